# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Vela's estimate per 32 ms frame: our default (and the lever variants of
``benchmark_accuracy.VARIANTS``) beside the release's own flow, on every Ethos-U family
and size, in the memory modes that matter, at both sample rates.

Each configuration is quantized once per sample rate (calibrated on the committed clips
of that rate) and lowered once per Ethos-U family (the TOSA a family gets does not depend
on its size or memory mode); Vela then compiles that TOSA for every size and memory mode
of the family (a second each). ``upstream`` is the release's own flow
(``lab/upstream_recipe.py``: h and c as graph I/O, the release's quantizer and
partitioner). Memory modes: the release's default for the family (what
``EthosUCompileSpec`` picks) and its main alternative (``COMPARED_MEMORY_MODES``).

Printed, in one run:

1. the detail table: every configuration on each family's representative size
   (U55-128, U65-256, U85-256) in both memory modes: cycles (total, NPU, SRAM and DRAM
   access), Vela's NPU/CPU operators, the operator calls left to the CPU, SRAM/DRAM use,
   the .pte size and the export time (calibration, quantization and lowering);
2. one table per family: cycles for each size in both memory modes.

``--executorch 1.4.1 --executorch 1.5.1`` runs the benchmark once per release, each in its
own virtualenv, and prints one set of tables; ``--per-operator`` prints Vela's cycles and
memory access for every operator of the representative targets:

    python -m examples.arm.silero_vad.lab.benchmark_performance [--config default ...]
"""

from __future__ import annotations

if __name__ == "__main__":
    # Run as a command: before torch loads, hide the known third-party messages that are
    # not about this run. Only here: importing this module installs nothing.
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
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
    run_vela_on_delegates,
)
from examples.arm.silero_vad.run_silero_vad import default_clips
from examples.arm.silero_vad.verification.report_markdown import markdown_table

UPSTREAM = "upstream"
REPO_ROOT = Path(__file__).resolve().parents[4]
# Sizes per family in the tables (the first listed is lowered, the others recompiled).
FAMILY_TARGETS = {
    "ethos-u55": ("ethos-u55-128", "ethos-u55-64", "ethos-u55-256"),
    "ethos-u65": ("ethos-u65-256", "ethos-u65-512"),
    "ethos-u85": ("ethos-u85-256", "ethos-u85-128", "ethos-u85-512", "ethos-u85-1024"),
}
# The memory mode each family is compared in beside the release's default for it.
COMPARED_MEMORY_MODES = {
    "ethos-u55": "Sram_Only",
    "ethos-u65": "Shared_Sram",
    "ethos-u85": "Shared_Sram",
}
# Configurations run by default, per sample rate.
DEFAULT_CONFIGS = {16000: (UPSTREAM, "default"), 8000: (UPSTREAM, "default")}


@dataclass(frozen=True)
class BenchmarkRow:
    executorch: str
    sample_rate: int
    config: str
    target: str
    system_config: str
    memory_mode: str
    vela: VelaReport
    cpu_calls: int
    pte_bytes: int
    export_seconds: float

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> BenchmarkRow:
        return cls(**{**data, "vela": VelaReport(**data["vela"])})


def memory_modes(family: str) -> tuple[str, str]:
    """The release's default memory mode for the family, then the compared one."""
    default = default_vela_settings(FAMILY_TARGETS[family][0]).memory_mode
    return default, COMPARED_MEMORY_MODES[family]


def _vela_flags(target: str, memory_mode: str) -> tuple[str, list[str]]:
    system_config = default_vela_settings(target).system_config
    spec = make_compile_spec(target, system_config, memory_mode, None)
    return system_config, spec.compiler_flags


def _lower_for_family(
    config: ModelConfig | None,
    family: str,
    calibration: list,
    float_model: SileroVAD,
    artifacts: Path,
    operator_tables: list[tuple[str, str]] | None,
    label: str,
) -> tuple[int, int, float]:
    """Lowers ``config`` (None: the release's own flow) for the family's first target;
    returns (CPU calls, .pte bytes, seconds)."""
    target = FAMILY_TARGETS[family][0]
    settings = default_vela_settings(target)
    spec = make_compile_spec(target, settings.system_config, settings.memory_mode, artifacts)
    start = time.monotonic()
    if config is None:
        program = export_upstream_recipe(calibration, spec)
    else:
        quantized, _ = quantize_configured(
            config, float_model, calibration, spec, reversal=reversal_for(target)
        )
        geometry = float_model.geometry
        program = lower(quantized, example_inputs(geometry), spec, geometry.metadata())
    seconds = time.monotonic() - start
    if operator_tables is not None:
        for tosa in sorted(artifacts.glob("output_tag*.tosa")):
            title = f"{label}, {target}, {settings.memory_mode}, {tosa.name}"
            operator_tables.append((title, operator_performance(tosa, spec.compiler_flags)))
    calls = sum(inspect_program(program.buffer).operator_calls.values())
    return calls, len(program.buffer), seconds


def _programs_by_memory_mode(config: str, family: str) -> dict[ModelConfig | None, list[str]]:
    """The family's memory modes grouped by the program our export makes for each (a
    configuration can choose its arithmetic per memory mode: ``for_memory_mode``)."""
    groups: dict[ModelConfig | None, list[str]] = {}
    for memory_mode in memory_modes(family):
        resolved = None if config == UPSTREAM else CONFIGS[config].for_memory_mode(memory_mode)
        groups.setdefault(resolved, []).append(memory_mode)
    return groups


def benchmark(
    configs: Sequence[str],
    families: Sequence[str],
    sample_rates: Sequence[int],
    operator_tables: list[tuple[str, str]] | None = None,
) -> list[BenchmarkRow]:
    """One row per sample rate, configuration, target and memory mode."""
    rows = []
    for sample_rate in sample_rates:
        calibration = load_streams(
            default_clips("calibration", sample_rate), frame_geometry(sample_rate)
        )
        float_model = SileroVAD.from_silero_package(sample_rate)
        for config in configs:
            for family in families:
                print(f"== {sample_rate} Hz, {config}, {family} ...", file=sys.stderr, flush=True)
                for resolved, modes in _programs_by_memory_mode(config, family).items():
                    with tempfile.TemporaryDirectory() as directory:
                        artifacts = Path(directory)
                        calls, pte_bytes, seconds = _lower_for_family(
                            resolved,
                            family,
                            calibration,
                            float_model,
                            artifacts,
                            operator_tables,
                            config,
                        )
                        for target in FAMILY_TARGETS[family]:
                            for memory_mode in modes:
                                system_config, flags = _vela_flags(target, memory_mode)
                                rows.append(
                                    BenchmarkRow(
                                        version("executorch"),
                                        sample_rate,
                                        config,
                                        target,
                                        system_config,
                                        memory_mode,
                                        run_vela_on_delegates(artifacts, flags),
                                        calls,
                                        pte_bytes,
                                        round(seconds, 1),
                                    )
                                )
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
    return [BenchmarkRow.from_dict(row) for row in json.loads(completed.stdout.splitlines()[-1])]


def detail_table(rows: Sequence[BenchmarkRow]) -> str:
    """Every configuration on each family's representative size, in both memory modes."""
    representative = {targets[0] for targets in FAMILY_TARGETS.values()}
    header = ["executorch", "rate", "config", "target", "memory mode", "cycles", "NPU"]
    header += ["SRAM access", "DRAM access", "NPU/CPU ops", "CPU calls", "SRAM KiB", "DRAM KiB"]
    header += ["PTE bytes", "export s"]
    table = []
    for row in rows:
        if row.target not in representative:
            continue
        vela = row.vela
        table.append(
            [
                row.executorch,
                f"{row.sample_rate // 1000} kHz",
                row.config,
                row.target,
                row.memory_mode,
                f"{vela.cycles_total:,}",
                f"{vela.cycles_npu:,}",
                f"{vela.cycles_sram_access:,}",
                f"{vela.cycles_dram_access:,}",
                f"{vela.npu_ops}/{vela.cpu_ops}",
                str(row.cpu_calls),
                f"{vela.sram_kib:.1f}",
                f"{vela.dram_kib:.1f}",
                f"{row.pte_bytes:,}",
                f"{row.export_seconds:.1f}",
            ]
        )
    return markdown_table(header, table)


def family_table(rows: Sequence[BenchmarkRow], family: str) -> str:
    """Cycles per frame of each size of one family, one column per size and memory mode."""
    targets = FAMILY_TARGETS[family]
    ordered = sorted(targets, key=lambda t: int(t.rsplit("-", 1)[1]))
    modes = memory_modes(family)
    header = ["executorch", "rate", "config"]
    header += [f"{t.removeprefix('ethos-')} {mode}" for t in ordered for mode in modes]
    cycles = {
        (r.executorch, r.sample_rate, r.config, r.target, r.memory_mode): r.vela.cycles_total
        for r in rows
        if target_family(r.target) == family
    }
    keys = dict.fromkeys(
        (r.executorch, r.sample_rate, r.config) for r in rows if target_family(r.target) == family
    )
    table = []
    for executorch, rate, config in keys:
        cells = [
            cycles.get((executorch, rate, config, target, mode))
            for target in ordered
            for mode in modes
        ]
        table.append(
            [executorch, f"{rate // 1000} kHz", config]
            + ["-" if value is None else f"{value:,}" for value in cells]
        )
    return markdown_table(header, table)


def print_tables(rows: Sequence[BenchmarkRow], families: Sequence[str]) -> None:
    systems = sorted({(target_family(r.target), r.system_config) for r in rows})
    print("Vela estimates per 32 ms frame (512 samples at 16 kHz, 256 at 8 kHz); system configs: ")
    print(", ".join(f"{family} {system}" for family, system in systems))
    print()
    print(detail_table(rows))
    for family in families:
        print(f"\n{family}, cycles per frame by size and memory mode\n")
        print(family_table(rows, family))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--config",
        action="append",
        choices=sorted(CONFIGS) + [UPSTREAM],
        help="configuration(s) (default: "
        + "; ".join(f"{rate} Hz: {', '.join(c)}" for rate, c in DEFAULT_CONFIGS.items())
        + ")",
    )
    parser.add_argument(
        "--family",
        action="append",
        choices=sorted(FAMILY_TARGETS),
        help="Ethos-U family (default: all)",
    )
    parser.add_argument(
        "--sample-rate",
        action="append",
        type=int,
        choices=SAMPLE_RATES,
        help="model(s) (default: both)",
    )
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
    families = args.family or list(FAMILY_TARGETS)
    operator_tables: list[tuple[str, str]] | None = [] if args.per_operator else None
    try:
        if args.executorch:
            forwarded = [
                option
                for flag, values in (
                    ("--config", args.config),
                    ("--family", args.family),
                    ("--sample-rate", args.sample_rate),
                )
                for value in values or []
                for option in (flag, str(value))
            ]
            rows = [
                row for release in args.executorch for row in rows_in_release(release, forwarded)
            ]
        else:
            rows = []
            for sample_rate in args.sample_rate or SAMPLE_RATES:
                configs = args.config or DEFAULT_CONFIGS[sample_rate]
                rows += benchmark(configs, families, [sample_rate], operator_tables)
    except (AudioError, RuntimeError) as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([row.to_dict() for row in rows]))
        return 0
    print_tables(rows, families)
    for title, table in operator_tables or []:
        print(f"\n{title}\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
