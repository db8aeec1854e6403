# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Every recurrent cell type with its state in the program, per Arm target: one table.

The seeded modules of ``backends/arm/test/recurrent_cells.py`` (``nn.GRUCell``,
``nn.RNNCell`` tanh and relu, ``nn.LSTMCell``, one step of a two-layer ``nn.LSTM`` and
``nn.GRU``; weights on the int8 grid), each with an int16 input and its state in an int16
buffer, quantized a16w8 as the example quantizes (calibrated on the 500-frame stream they
are then stepped on), lowered alone with the stateful Arm passes for TOSA-1.0+INT+int16
and for each Ethos-U target in the release's default system config and memory mode. Each
program is stepped over the stream with its state carried, the delegate on the TOSA
reference model (Ethos-U: the TOSA Vela compiled, the device's host twin), against the
float module stepped alike. Columns: delegates and CPU operator calls per step (read from
the ``.pte``), Vela's cycles per step, |program - float| (max, mean, the mean's trend over
the stream) in the output's quantization steps and absolute, and for scale what rounding
the float module's original weights to int8 costs in float arithmetic alone. A last row
per target lowers the nn.LSTM step through the release's ``DecomposeLstmPass`` instead of
``ConvertLstmToCellsPass``, for comparison.

    python -m examples.arm.silero_vad.lab.benchmark_recurrent_cells [--cell C] [--target T]
"""

from __future__ import annotations

if __name__ == "__main__":
    # As a command: hide known third-party noise before torch loads (not on import).
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import contextlib
import io
import re
import sys
import tempfile
import warnings
from dataclasses import dataclass, replace
from importlib.metadata import version
from pathlib import Path

import executorch.kernels.quantized  # noqa: F401  (registers the q/dq out variants)
import torch
from executorch.backends.arm.common.arm_compile_spec import ArmCompileSpec
from executorch.backends.arm.ethosu import EthosUCompileSpec
from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
from executorch.exir import EdgeCompileConfig, ExecutorchBackendConfig, to_edge_transform_and_lower
from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from backends.arm._passes import (
    ConvertLstmToCellsPass,
    FoldScalarMulIntoQParamsPass,
    use_stateful_arm_pass_manager,
)
from backends.arm.ethosu.stateful_ethos_u_partitioner import StatefulEthosUPartitioner
from backends.arm.quantizer.stateful_ethos_u_quantizer import (
    StatefulEthosUQuantizer,
    StatefulTOSAQuantizer,
)
from backends.arm.test.recurrent_cells import (
    STATE_BUFFER,
    STEPPED_FRAMES,
    CellType,
    SteppedError,
    cell_types,
    float_weight_rounding_error,
    int16_state_model,
    run_float,
    stimulus,
)
from backends.arm.test.stateful_test_utils import output_scales, step_lowered_program
from backends.arm.tosa.stateful_tosa_partitioner import StatefulTOSAPartitioner
from examples.arm.silero_vad.model_export.model_config import quantization_config
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.vela_report import run_vela
from examples.arm.silero_vad.run_silero_vad import native_stdout_to
from examples.arm.silero_vad.verification.cli import exit_on_errors
from examples.arm.silero_vad.verification.report_markdown import markdown_table

# The nn.LSTM step as the release decomposes it (one sum for the four gates), to compare.
RELEASE_LSTM = "lstm_step_release"
TOSA_TARGET = "tosa"
TOSA_SPEC = "TOSA-1.0+INT+int16"
TARGETS = (TOSA_TARGET, "ethos-u55-128", "ethos-u65-256", "ethos-u85-256")
_VELA_SETTING = re.compile(r"--(system-config|memory-mode)=(\S+)")
_SHORT_OPERATOR_NAMES = {
    "aten::copy_": "copy_",
    "quantized_decomposed::dequantize_per_tensor.out": "dequantize",
    "quantized_decomposed::quantize_per_tensor.out": "quantize",
}


@dataclass(frozen=True)
class CellResult:
    cell: CellType
    target: str
    delegates: int
    cpu_calls: dict[str, int]
    cycles: int | None  # Vela's per step; None for TOSA
    error: SteppedError
    output_step: float
    weight_rounding: float


def compile_spec(target: str, artifacts_dir: Path) -> ArmCompileSpec:
    """TOSA INT with int16, or the Ethos-U target in the release's default settings."""
    if target == TOSA_TARGET:
        spec: ArmCompileSpec = TosaCompileSpec(TOSA_SPEC)
    else:
        spec = EthosUCompileSpec(target=target)
    spec.dump_intermediate_artifacts_to(str(artifacts_dir))
    return spec


def target_label(target: str) -> str:
    """The target with the system config and memory mode its compile spec gives Vela."""
    if target == TOSA_TARGET:
        return TOSA_SPEC
    settings = dict(
        _VELA_SETTING.findall(" ".join(EthosUCompileSpec(target=target).compiler_flags))
    )
    return f"{target} ({settings['system-config']}, {settings['memory-mode']})"


def measure(cell: CellType, target: str, work_dir: Path, release_lstm: bool = False) -> CellResult:
    """Quantizes, lowers and steps one cell for one target (see the module doc);
    ``release_lstm``: an nn.LSTM through the release's DecomposeLstmPass instead of
    ConvertLstmToCellsPass."""
    frames = stimulus(cell)
    model = int16_state_model(cell, frames)
    spec = compile_spec(target, work_dir)
    quantizer_class = StatefulTOSAQuantizer if target == TOSA_TARGET else StatefulEthosUQuantizer
    quantizer = quantizer_class(spec).set_global(quantization_config())
    if release_lstm:
        quantizer.cell_decompositions = tuple(
            p for p in quantizer.cell_decompositions if p is not ConvertLstmToCellsPass
        )
    graph_module = torch.export.export(model, (frames[0],)).module(check_guards=False)
    prepared = prepare_pt2e(graph_module, quantizer)
    with torch.no_grad():
        for frame in frames:
            prepared(frame)
    quantized = FoldScalarMulIntoQParamsPass()(convert_pt2e(prepared)).graph_module
    quantized.get_buffer(STATE_BUFFER).zero_()  # calibration left its last state there

    partitioner_class = (
        StatefulTOSAPartitioner if target == TOSA_TARGET else StatefulEthosUPartitioner
    )
    # Vela prints its summary on stdout: keep the table alone there.
    with use_stateful_arm_pass_manager(), contextlib.redirect_stdout(io.StringIO()):
        edge = to_edge_transform_and_lower(
            torch.export.export(quantized, (frames[0],)),
            partitioner=[partitioner_class(spec)],
            compile_config=EdgeCompileConfig(_check_ir_validity=False),
        )
    program = edge.exported_program()
    stepped = step_lowered_program(program, spec, [(frame,) for frame in frames], work_dir)
    (output_step,) = output_scales(program)
    reference = run_float(cell.float_step(), cell, frames)[0]
    error = SteppedError.of(torch.stack([s for (s,) in stepped]), reference, output_step)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Mutation on a buffer", UserWarning)
        executorch_program = edge.to_executorch(
            ExecutorchBackendConfig(passes=[InitializedMutableBufferPass([STATE_BUFFER])])
        )
    summary = inspect_program(executorch_program.buffer)
    cycles = None
    if isinstance(spec, EthosUCompileSpec):
        cycles = run_vela(work_dir / "out.tosa", spec.compiler_flags).cycles_total
    if release_lstm:
        cell = replace(cell, label=f"{cell.label}, the release's DecomposeLstmPass")
    return CellResult(
        cell,
        target,
        summary.delegates,
        summary.operator_calls,
        cycles,
        error,
        output_step,
        float_weight_rounding_error(cell, frames),
    )


def table(results: list[CellResult]) -> str:
    header = [
        "cell",
        "target",
        "delegates",
        "CPU operator calls per step",
        "Vela cycles per step",
        "max error (output steps)",
        "mean error (output steps)",
        "mean error",
        f"trend over {STEPPED_FRAMES} frames (steps)",
        "int8 rounding of float weights (mean, float)",
    ]
    rows = [
        [
            r.cell.label,
            r.target,
            str(r.delegates),
            ", ".join(f"{_SHORT_OPERATOR_NAMES.get(k, k)} {v}" for k, v in r.cpu_calls.items()),
            "-" if r.cycles is None else f"{r.cycles:,}",
            f"{r.error.max_steps:.1f}",
            f"{r.error.mean_steps:.2f}",
            f"{r.error.mean_steps * r.output_step:.1e}",
            f"{r.error.trend_steps:+.2f}",
            f"{r.weight_rounding:.1e}",
        ]
        for r in results
    ]
    return markdown_table(header, rows)


@exit_on_errors(RuntimeError, ValueError)
def main(argv: list[str] | None = None) -> int:
    cells = cell_types()
    choices = [*cells, RELEASE_LSTM]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cell",
        action="append",
        choices=choices,
        help=f"default: all ({RELEASE_LSTM}: lstm_step through the release's DecomposeLstmPass)",
    )
    parser.add_argument("--target", action="append", choices=TARGETS, help="default: all")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # tensors of tens of elements: one thread is faster
    results = []
    with tempfile.TemporaryDirectory() as work, native_stdout_to(Path(work) / "native.log"):
        for name in args.cell or choices:
            for target in args.target or TARGETS:
                print(f"{name} on {target}...", file=sys.stderr, flush=True)
                work_dir = Path(work) / f"{name}_{target}"
                release_lstm = name == RELEASE_LSTM
                cell = cells["lstm_step" if release_lstm else name]
                results.append(measure(cell, target, work_dir, release_lstm))
    targets = [target_label(target) for target in args.target or TARGETS]
    print(
        f"Recurrent cells, a16w8, int16 state, {STEPPED_FRAMES} frames stepped "
        f"(executorch {version('executorch')}; targets: {'; '.join(targets)})\n"
    )
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
