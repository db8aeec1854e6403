# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Vela's cycles per 32 ms frame: ours beside the release's own flow, per Ethos-U target.

Our default (or the lever variants of ``benchmark_accuracy.VARIANTS``) and ``upstream``,
the release's flow (``upstream_recipe.py``), on every family and size at both sample
rates, in the family's default memory mode and ``COMPARED_MEMORY_MODES``. Quantized once
per rate, lowered once per family and program (the TOSA does not depend on the size),
compiled by Vela for every size. Printed: a detail table of each family's first size, then
each family's cycles per size and memory mode. ``--executorch 1.4.1 --executorch 1.5.1``
runs in each release's virtualenv into one set of tables; ``--per-operator`` adds Vela's
per-operator cycles:

    python -m examples.arm.silero_vad.lab.benchmark_performance [--config default ...]
"""

from __future__ import annotations

if __name__ == "__main__":
    # As a command: hide known third-party noise before torch loads (not on import).
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import itertools
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import version
from pathlib import Path

from examples.arm.silero_vad.lab.benchmark_accuracy import VARIANTS as CONFIGS
from examples.arm.silero_vad.lab.common import REPO_ROOT, khz, print_or_fail
from examples.arm.silero_vad.lab.upstream_recipe import export_upstream_recipe
from examples.arm.silero_vad.model_export.audio import AudioError, load_streams
from examples.arm.silero_vad.model_export.export_silero_vad import quantize_configured
from examples.arm.silero_vad.model_export.frame_geometry import SAMPLE_RATES, frame_geometry
from examples.arm.silero_vad.model_export.lowering import example_inputs, lower, make_compile_spec
from examples.arm.silero_vad.model_export.model_config import ModelConfig
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.targets import (
    default_vela_settings,
    reversal_for,
    target_family,
)
from examples.arm.silero_vad.model_export.vela_report import (
    VelaReport,
    operator_performance,
    run_vela,
)
from examples.arm.silero_vad.run_silero_vad import default_clips
from examples.arm.silero_vad.verification.report_markdown import markdown_table

UPSTREAM = "upstream"
# Sizes per family (the first is lowered and is the detail table's representative).
FAMILY_TARGETS = {
    "ethos-u55": ("ethos-u55-128", "ethos-u55-64", "ethos-u55-256"),
    "ethos-u65": ("ethos-u65-256", "ethos-u65-512"),
    "ethos-u85": ("ethos-u85-256", "ethos-u85-128", "ethos-u85-512", "ethos-u85-1024"),
}
COMPARED_MEMORY_MODES = {
    "ethos-u55": "Sram_Only",
    "ethos-u65": "Shared_Sram",
    "ethos-u85": "Shared_Sram",
}
DEFAULT_CONFIGS = (UPSTREAM, "default")


@dataclass(frozen=True)
class BenchmarkRow:
    """One program (release, rate, configuration) compiled by Vela for one target and mode."""

    executorch: str
    sample_rate: int
    config: str
    cpu_calls: int
    pte_bytes: int
    export_seconds: float
    target: str
    system_config: str
    memory_mode: str
    vela: VelaReport


def memory_modes(family: str) -> tuple[str, str]:
    """The release's default memory mode for the family, then the compared one."""
    default = default_vela_settings(FAMILY_TARGETS[family][0]).memory_mode
    return default, COMPARED_MEMORY_MODES[family]


def run_vela_on_delegates(artifacts: Path, compiler_flags: list[str]) -> VelaReport:
    """Vela's figures summed over every delegate the lowering dumped: a model split into
    several (the release's flow on 1.4.1 leaves the LSTM cell between two) runs them all."""
    tosa_files = sorted(artifacts.glob("output_tag*.tosa")) or [artifacts / "out.tosa"]
    reports = [run_vela(path, compiler_flags) for path in tosa_files]
    fields = VelaReport.__dataclass_fields__
    return VelaReport(**{name: sum(getattr(report, name) for report in reports) for name in fields})


def _lower(
    config: ModelConfig | None, target: str, calibration: list, float_model: SileroVAD, spec
):
    """Our export of ``config`` for ``target`` (None: the release's own flow)."""
    if config is None:
        return export_upstream_recipe(calibration, spec)
    quantized, _ = quantize_configured(
        config, float_model, calibration, spec, reversal=reversal_for(target)
    )
    geometry = float_model.geometry
    return lower(quantized, example_inputs(geometry), spec, geometry.metadata())


def benchmark(
    configs: Sequence[str],
    families: Sequence[str],
    sample_rate: int,
    operator_tables: list[tuple[str, str]] | None = None,
) -> list[BenchmarkRow]:
    """One row per configuration, target and memory mode at ``sample_rate``."""
    calibration = load_streams(
        default_clips("calibration", sample_rate), frame_geometry(sample_rate)
    )
    float_model = SileroVAD.from_silero_package(sample_rate)
    executorch = version("executorch")
    rows = []
    for config, family in itertools.product(configs, families):
        print(f"== {sample_rate} Hz, {config}, {family} ...", file=sys.stderr, flush=True)
        # A configuration may choose its arithmetic per memory mode (``for_memory_mode``):
        # one lowering per distinct program.
        programs: dict[ModelConfig | None, list[str]] = {}
        for mode in memory_modes(family):
            resolved = None if config == UPSTREAM else CONFIGS[config].for_memory_mode(mode)
            programs.setdefault(resolved, []).append(mode)
        lowered = FAMILY_TARGETS[family][0]
        settings = default_vela_settings(lowered)
        for resolved, modes in programs.items():
            with tempfile.TemporaryDirectory() as directory:
                artifacts = Path(directory)
                spec = make_compile_spec(
                    lowered, settings.system_config, settings.memory_mode, artifacts
                )
                start = time.monotonic()
                program = _lower(resolved, lowered, calibration, float_model, spec)
                seconds = round(time.monotonic() - start, 1)
                if operator_tables is not None:
                    for tosa in sorted(artifacts.glob("output_tag*.tosa")):
                        title = f"{config}, {lowered}, {settings.memory_mode}, {tosa.name}"
                        table = operator_performance(tosa, spec.compiler_flags)
                        operator_tables.append((title, table))
                calls = sum(inspect_program(program.buffer).operator_calls.values())
                program_row = (executorch, sample_rate, config, calls, len(program.buffer), seconds)
                for target in FAMILY_TARGETS[family]:
                    system_config = default_vela_settings(target).system_config
                    for mode in modes:
                        flags = make_compile_spec(target, system_config, mode, None).compiler_flags
                        vela = run_vela_on_delegates(artifacts, flags)
                        rows.append(BenchmarkRow(*program_row, target, system_config, mode, vela))
    return rows


def rows_in_release(release: str, argv: list[str]) -> list[BenchmarkRow]:
    """Runs this benchmark in another release's virtualenv and returns its rows."""
    python = REPO_ROOT / ".venv" / f"executorch-{release}" / "bin" / "python"
    if not python.is_file():
        raise RuntimeError(
            f"{python} missing: create it with "
            f"'source backends/arm/scripts/python_env.sh && activate_python_env {release}'"
        )
    command = [str(python), "-m", "examples.arm.silero_vad.lab.benchmark_performance", "--json"]
    completed = subprocess.run(
        command + argv, cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"benchmark on executorch {release} failed ({completed.returncode})")
    rows = json.loads(completed.stdout.splitlines()[-1])
    return [BenchmarkRow(**{**row, "vela": VelaReport(**row["vela"])}) for row in rows]


def detail_table(rows: Sequence[BenchmarkRow]) -> str:
    """Every configuration on each family's representative size, in both memory modes."""
    representative = {targets[0] for targets in FAMILY_TARGETS.values()}
    header = ["executorch", "rate", "config", "target", "memory mode", "cycles", "NPU"]
    header += ["SRAM access", "DRAM access", "NPU/CPU ops", "CPU calls", "SRAM KiB", "DRAM KiB"]
    header += ["PTE bytes", "export s"]
    table = []
    for row in (row for row in rows if row.target in representative):
        vela = row.vela
        cycles = (vela.cycles_total, vela.cycles_npu, vela.cycles_sram_access)
        table.append(
            [row.executorch, khz(row.sample_rate), row.config, row.target, row.memory_mode]
            + [f"{value:,}" for value in (*cycles, vela.cycles_dram_access)]
            + [f"{vela.npu_ops}/{vela.cpu_ops}", str(row.cpu_calls)]
            + [f"{vela.sram_kib:.1f}", f"{vela.dram_kib:.1f}"]
            + [f"{row.pte_bytes:,}", f"{row.export_seconds:.1f}"]
        )
    return markdown_table(header, table)


def family_table(rows: Sequence[BenchmarkRow], family: str) -> str:
    """Cycles per frame of each size of one family, one column per size and memory mode."""
    ordered = sorted(FAMILY_TARGETS[family], key=lambda t: int(t.rsplit("-", 1)[1]))
    columns = [(target, mode) for target in ordered for mode in memory_modes(family)]
    header = ["executorch", "rate", "config"]
    header += [f"{target.removeprefix('ethos-')} {mode}" for target, mode in columns]
    cycles: dict[tuple, dict[tuple[str, str], int]] = {}
    for r in rows:
        if target_family(r.target) == family:
            key = (r.executorch, r.sample_rate, r.config)
            cycles.setdefault(key, {})[(r.target, r.memory_mode)] = r.vela.cycles_total
    table = []
    for (executorch, rate, config), by_column in cycles.items():
        cells = [by_column.get(column) for column in columns]
        table.append(
            [executorch, khz(rate), config]
            + ["-" if value is None else f"{value:,}" for value in cells]
        )
    return markdown_table(header, table)


def tables(rows: Sequence[BenchmarkRow], families: Sequence[str]) -> str:
    systems = sorted({(target_family(r.target), r.system_config) for r in rows})
    parts = [
        "Vela estimates per 32 ms frame (512 samples at 16 kHz, 256 at 8 kHz); system configs: ",
        ", ".join(f"{family} {system}" for family, system in systems) + "\n",
        detail_table(rows),
    ]
    for family in families:
        parts += [
            f"\n{family}, cycles per frame by size and memory mode\n",
            family_table(rows, family),
        ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add(
        "--config",
        action="append",
        choices=sorted(CONFIGS) + [UPSTREAM],
        help="default: " + ", ".join(DEFAULT_CONFIGS),
    )
    add("--family", action="append", choices=sorted(FAMILY_TARGETS), help="default: all")
    add("--sample-rate", action="append", type=int, choices=SAMPLE_RATES, help="default: both")
    add(
        "--executorch",
        action="append",
        metavar="VERSION",
        help="run in this release's virtualenv (repeatable; default: the active one)",
    )
    add("--per-operator", action="store_true", help="also print Vela's per-operator cycles")
    add("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.per_operator and args.executorch:
        parser.error("--per-operator runs in the active release only: drop --executorch")
    families = args.family or list(FAMILY_TARGETS)
    operator_tables: list[tuple[str, str]] = []

    def run() -> str:
        if args.executorch:
            forwarded = [
                f"--{name.replace('_', '-')}={value}"
                for name in ("config", "family", "sample_rate")
                for value in getattr(args, name) or []
            ]
            rows = [
                row for release in args.executorch for row in rows_in_release(release, forwarded)
            ]
        else:
            per_operator = operator_tables if args.per_operator else None
            configs = args.config or DEFAULT_CONFIGS
            rows = [
                row
                for rate in args.sample_rate or SAMPLE_RATES
                for row in benchmark(configs, families, rate, per_operator)
            ]
        if args.json:
            return json.dumps([asdict(row) for row in rows])
        return tables(rows, families) + "".join(
            f"\n\n{title}\n{table}" for title, table in operator_tables
        )

    return print_or_fail(run, (AudioError, RuntimeError))


if __name__ == "__main__":
    sys.exit(main())
