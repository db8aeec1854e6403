# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Vela's cycles per 32 ms frame: ours beside the release's own flow, per Ethos-U target.

Our default (or the lever variants of ``benchmark_accuracy.VARIANTS``) and ``upstream``,
the release's flow without any of our passes (see ``_lower``), on every family and size at
both sample rates, in the family's default memory mode and ``COMPARED_MEMORY_MODES``.
Quantized once per rate, lowered once per family and program (the TOSA does not depend on
the size), compiled by Vela for every size. ``--executorch 1.4.1 --executorch 1.5.1`` runs
in each release's virtualenv into one set of tables:

    python -m examples.arm.silero_vad.lab.benchmark_performance [--config default ...]
"""

from __future__ import annotations

if __name__ == "__main__":
    # As a command: hide known third-party noise before torch loads (not on import).
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import contextlib
import io
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

import executorch.kernels.quantized  # noqa: F401  (registers the q/dq out variants)
import torch
from executorch.backends.arm.ethosu import EthosUPartitioner
from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from examples.arm.silero_vad.lab import REPO_ROOT, khz
from examples.arm.silero_vad.lab.benchmark_accuracy import VARIANTS as CONFIGS
from examples.arm.silero_vad.model_export.audio import AudioError, load_streams
from examples.arm.silero_vad.model_export.export_silero_vad import quantize_configured
from examples.arm.silero_vad.model_export.frame_geometry import SAMPLE_RATES
from examples.arm.silero_vad.model_export.lowering import example_inputs, lower, make_compile_spec
from examples.arm.silero_vad.model_export.model_config import ModelConfig
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import HIDDEN_SIZE, SileroVAD
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
from examples.arm.silero_vad.verification.cli import exit_on_errors
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


class SileroVADWithStateIO(nn.Module):
    """``(frame, h, c) -> (probability, h, c)``: the state crosses the graph boundary."""

    def __init__(self, model: SileroVAD) -> None:
        super().__init__()
        self.model = model

    def forward(self, frame: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        return self.model.step(frame, h, c)


def _lower(
    config: ModelConfig | None, target: str, calibration: list, float_model: SileroVAD, spec
):
    """Our export of ``config`` for ``target``. None: the release's flow (float input), with
    h and c as graph inputs and outputs (a model-owned buffer does not lower on 1.4.1) and
    the release's ``EthosUQuantizer`` and ``EthosUPartitioner``: on 1.4.1 the LSTM cell
    stays on the CPU in float; 1.5.1 lowers it itself."""
    geometry = float_model.geometry
    if config is not None:
        quantized, _ = quantize_configured(
            config, float_model, calibration, spec, reversal=reversal_for(target)
        )
        return lower(quantized, example_inputs(geometry), spec, geometry.metadata())
    model = SileroVADWithStateIO(SileroVAD.from_silero_package(geometry.sample_rate)).eval()
    # Distinct tensors for h and c: export would merge one tensor passed twice.
    h, c = torch.zeros(1, HIDDEN_SIZE), torch.zeros(1, HIDDEN_SIZE)
    inputs = (torch.zeros(1, geometry.frame_samples), h, c)
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    quantizer = EthosUQuantizer(spec).set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(graph_module, quantizer)
    with torch.no_grad():
        for stream in calibration:
            h, c = torch.zeros(1, HIDDEN_SIZE), torch.zeros(1, HIDDEN_SIZE)
            for frame in torch.from_numpy(stream.float_frames):
                _, h, c = prepared(frame.unsqueeze(0), h, c)
    exported = torch.export.export(convert_pt2e(prepared), inputs)
    with contextlib.redirect_stdout(io.StringIO()):
        edge = to_edge_transform_and_lower(
            exported,
            partitioner=[EthosUPartitioner(spec)],
            compile_config=EdgeCompileConfig(_check_ir_validity=False),
        )
    return edge.to_executorch()


def benchmark(
    configs: Sequence[str],
    families: Sequence[str],
    sample_rate: int,
    operator_tables: list[tuple[str, str]] | None = None,
) -> list[BenchmarkRow]:
    """One row per configuration, target and memory mode at ``sample_rate``."""
    float_model = SileroVAD.from_silero_package(sample_rate)
    calibration = load_streams(default_clips("calibration", sample_rate), float_model.geometry)
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
        for resolved, modes in programs.items():
            with tempfile.TemporaryDirectory() as directory:
                artifacts = Path(directory)
                spec = make_compile_spec(lowered, None, None, artifacts)  # the release's default
                start = time.monotonic()
                program = _lower(resolved, lowered, calibration, float_model, spec)
                seconds = round(time.monotonic() - start, 1)
                if operator_tables is not None:
                    for tosa in sorted(artifacts.glob("output_tag*.tosa")):
                        title = f"{config}, {lowered}, {memory_modes(family)[0]}, {tosa.name}"
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
    cycles: dict[tuple[str, str, str], dict[tuple[str, str], str]] = {}
    for r in rows:
        if target_family(r.target) == family:
            key = (r.executorch, khz(r.sample_rate), r.config)
            cycles.setdefault(key, {})[(r.target, r.memory_mode)] = f"{r.vela.cycles_total:,}"
    table = [
        [*key, *(cells.get(column, "-") for column in columns)] for key, cells in cycles.items()
    ]
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


@exit_on_errors(AudioError, RuntimeError)
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
    if args.executorch:
        forwarded = [
            f"--{name.replace('_', '-')}={value}"
            for name in ("config", "family", "sample_rate")
            for value in getattr(args, name) or []
        ]
        rows = [row for release in args.executorch for row in rows_in_release(release, forwarded)]
    else:
        per_operator = operator_tables if args.per_operator else None
        rows = [
            row
            for rate in args.sample_rate or SAMPLE_RATES
            for row in benchmark(args.config or DEFAULT_CONFIGS, families, rate, per_operator)
        ]
    if args.json:
        print(json.dumps([asdict(row) for row in rows]))
    else:
        print(tables(rows, families) + "".join(f"\n\n{t}\n{table}" for t, table in operator_tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
