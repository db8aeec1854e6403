# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Vela's estimate per frame for the straightforward recipe and our export, per Ethos-U85 size.

Each configuration is quantized once (calibrated on the calibration clips) and lowered
for every accelerator size; the table gives cycles (total, NPU, SRAM and DRAM access),
Vela's NPU/CPU operator counts, the operators left to the CPU in the program, SRAM/DRAM
use, the .pte size and the export time (calibration and quantization, shared by the
sizes, plus that size's lowering). ``upstream`` is the release's own flow
(``model_export/upstream_recipe.py``). ``--executorch 1.4.1 --executorch 1.5.1`` runs
the benchmark once per release, each in its own virtualenv, and prints one table.
``--per-operator`` also prints Vela's cycles and memory access for every operator:

    python -m examples.arm.silero_vad.benchmark_performance [--target ethos-u85-256 ...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from examples.arm.silero_vad.evaluation.report_markdown import markdown_table
from examples.arm.silero_vad.model_export.audio import AudioError, load_streams, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import (
    DEFAULT_MEMORY_MODE,
    DEFAULT_SYSTEM_CONFIG,
    quantize_configured,
)
from examples.arm.silero_vad.model_export.lowering import example_inputs, lower, make_compile_spec
from examples.arm.silero_vad.model_export.model_config import NAMED_CONFIGS as CONFIGS
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.upstream_recipe import export_upstream_recipe
from examples.arm.silero_vad.model_export.vela_report import (
    operator_performance,
    run_vela_on_delegates,
)
from examples.arm.silero_vad.run_silero_vad import DATA_DIR

TARGETS = ("ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024")
UPSTREAM = "upstream"
REPO_ROOT = Path(__file__).resolve().parents[3]


def benchmark(
    configs: list[str],
    targets: list[str],
    calibration_wavs: list[Path],
    system_config: str,
    memory_mode: str,
    operator_tables: list[tuple[str, str]] | None = None,
) -> list[list[str]]:
    """One row per configuration and target; ``operator_tables``, when given, receives
    (title, Vela's per-operator table) for every delegate."""
    calibration = load_streams(calibration_wavs)
    float_model = SileroVAD.from_silero_package()
    rows = []
    for name in configs:
        print(f"== {name}: quantize ...", file=sys.stderr, flush=True)
        quantized = None
        quantize_seconds = 0.0  # the upstream flow quantizes inside its export
        if name != UPSTREAM:
            quantize_start = time.monotonic()
            quantizer_spec = make_compile_spec(targets[0], system_config, memory_mode, None)
            quantized, _ = quantize_configured(
                CONFIGS[name], float_model, calibration, quantizer_spec
            )
            quantize_seconds = time.monotonic() - quantize_start
        for target in targets:
            with tempfile.TemporaryDirectory() as artifacts:
                spec = make_compile_spec(target, system_config, memory_mode, Path(artifacts))
                start = time.monotonic()
                if quantized is None:
                    program = export_upstream_recipe(calibration, spec)
                else:
                    program = lower(quantized, example_inputs(), spec)
                seconds = quantize_seconds + time.monotonic() - start
                vela = run_vela_on_delegates(Path(artifacts), spec.compiler_flags)
                if operator_tables is not None:
                    for tosa in sorted(Path(artifacts).glob("output_tag*.tosa")):
                        title = f"{name}, {target}, {tosa.name}"
                        table = operator_performance(tosa, spec.compiler_flags)
                        operator_tables.append((title, table))
            cpu_calls = inspect_program(program.buffer).operator_calls
            rows.append(
                [
                    version("executorch"),
                    name,
                    target,
                    f"{vela.cycles_total:,}",
                    f"{vela.cycles_npu:,}",
                    f"{vela.cycles_sram_access:,}",
                    f"{vela.cycles_dram_access:,}",
                    f"{vela.npu_ops}/{vela.cpu_ops}",
                    str(sum(cpu_calls.values())),
                    f"{vela.sram_kib:.1f}",
                    f"{vela.dram_kib:.1f}",
                    f"{len(program.buffer):,}",
                    f"{seconds:.1f}",
                ]
            )
    return rows


def rows_in_release(release: str, argv: list[str]) -> list[list[str]]:
    """Runs this benchmark in another release's virtualenv and returns its rows."""
    python = REPO_ROOT / ".venv" / f"executorch-{release}" / "bin" / "python"
    if not python.is_file():
        raise RuntimeError(
            f"{python} missing: create it with "
            f"'source backends/arm/scripts/python_env.sh && activate_python_env {release}'"
        )
    command = [str(python), "-m", "examples.arm.silero_vad.benchmark_performance", "--json"]
    completed = subprocess.run(
        command + argv, cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"benchmark on executorch {release} failed ({completed.returncode})")
    return json.loads(completed.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibration-wav", action="append", type=Path)
    parser.add_argument("--config", action="append", choices=sorted(CONFIGS) + [UPSTREAM])
    parser.add_argument("--target", action="append", help=f"default: {', '.join(TARGETS)}")
    parser.add_argument("--system-config", default=DEFAULT_SYSTEM_CONFIG)
    parser.add_argument("--memory-mode", default=DEFAULT_MEMORY_MODE)
    parser.add_argument(
        "--executorch",
        action="append",
        metavar="VERSION",
        help="run in this release's virtualenv (repeatable); default: the active one",
    )
    parser.add_argument(
        "--per-operator",
        action="store_true",
        help="also print Vela's per-operator cycles and memory access (active release only)",
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.per_operator and args.executorch:
        parser.error("--per-operator runs in the active release only: drop --executorch")
    operator_tables: list[tuple[str, str]] | None = [] if args.per_operator else None
    forwarded = [
        option
        for flag, values in (
            ("--calibration-wav", args.calibration_wav),
            ("--config", args.config),
            ("--target", args.target),
        )
        for value in values or []
        for option in (flag, str(value))
    ] + ["--system-config", args.system_config, "--memory-mode", args.memory_mode]
    try:
        if args.executorch:
            rows = [
                row for release in args.executorch for row in rows_in_release(release, forwarded)
            ]
        else:
            rows = benchmark(
                args.config or [UPSTREAM, "recipe", "default"],
                args.target or list(TARGETS),
                args.calibration_wav or wav_files(DATA_DIR / "calibration"),
                args.system_config,
                args.memory_mode,
                operator_tables,
            )
    except (AudioError, RuntimeError) as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{args.system_config}, {args.memory_mode}, Vela estimates per 32 ms frame")
    header = ["executorch", "config", "target", "cycles", "NPU", "SRAM access", "DRAM access"]
    header += ["NPU/CPU ops", "CPU calls", "SRAM KiB", "DRAM KiB", "PTE bytes", "export s"]
    print(markdown_table(header, rows))
    for title, table in operator_tables or []:
        print(f"\n{title}\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
