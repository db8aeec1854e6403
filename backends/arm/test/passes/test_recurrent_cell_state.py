# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Every recurrent cell type with its state in the program's int16 buffers, on every target.

Small seeded modules of each cell type (``recurrent_cells.py``: ``nn.GRUCell``,
``nn.RNNCell`` tanh and relu, one step of ``nn.LSTM`` and of ``nn.GRU``), each keeping its
state in its own int16 buffer, side by side in one module (``CellBank``): one lowering per
target, as most of a small cell's lowering is the pipeline's fixed cost. The bank goes
through the release's ``TosaPipelineINT`` and ``EthosU55/65/85PipelineINT`` with our
stateful pieces (``stateful_test_utils.use_stateful_pieces``), quantized a16w8 as the
example quantizes, calibrated on the stream it is then stepped on. Each test checks:

- the quantized graph: no cell or layer operator left; each gate's pre-activation a sum of
  its own, with its own observer, read by the gate's activation;
- the lowered program: one delegate; outside it only each cell's output dequantize and,
  as the program's buffers, each cell's state written back (``aten::copy_``); on Ethos-U,
  Vela places every operator on the NPU;
- each cell's output, stepped over 500 frames with the states carried (the TOSA reference
  model runs the delegate; for Ethos-U the TOSA Vela compiled: the device's host twin),
  against its float module stepped alike: every 100-frame window's mean error within 2
  of the output's quantization steps, and the error's trend over the 500 frames under
  half a step (a drift fails, however small each frame's error).

The lowered steps have one layer (CI time); the gates of two stacked layers are checked on
the quantized graph here, their lowering in ``lab/benchmark_recurrent_cells.py``. The
Silero model's tests (``models/test_silero_vad_arm.py``) cover ``nn.LSTMCell``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import torch
from executorch.backends.arm.test import common
from executorch.backends.arm.test.tester.test_pipeline import (
    BasePipeline,
    EthosU55PipelineINT,
    EthosU65PipelineINT,
    EthosU85PipelineINT,
    TosaPipelineINT,
)
from executorch.backends.test.harness.stages import StageType
from torch import nn
from torch.export.graph_signature import InputKind, OutputKind
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from backends.arm._passes import ConvertLstmToCellsPass
from backends.arm.quantizer.stateful_ethos_u_quantizer import StatefulTOSAQuantizer
from backends.arm.test.recurrent_cells import (
    STACKED_LAYERS,
    STATE_BUFFER,
    Int16StateModel,
    SteppedError,
    cell_types,
    int16_state_model,
    run_float,
    stimulus,
)
from backends.arm.test.stateful_test_utils import (
    DELEGATE,
    EDGE_DEQUANTIZE,
    EDGE_OP,
    check_vela_runs_everything_on_npu,
    lowered_program,
    output_scales,
    program_summary,
    run_stateful,
    step_lowered_program,
    use_stateful_pieces,
)
from examples.arm.silero_vad.model_export.model_config import quantization_config

_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default
_add = torch.ops.aten.add.Tensor

TESTED = ("gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "lstm_step", "gru_step")
# The activations that read a gate's (or the cell state's) pre-activation, per layer.
GATE_ACTIVATIONS = {
    "gru_cell": {"sigmoid": 2, "tanh": 1},  # r, z; n
    "rnn_tanh_cell": {"tanh": 1},
    "rnn_relu_cell": {"relu": 1},
    "lstm_step": {"sigmoid": 3, "tanh": 2},  # i, f, o; g and tanh(c')
    "gru_step": {"sigmoid": 2, "tanh": 1},
}
STEPS = ("lstm_step", "gru_step")
RECURRENT_OPS = [
    f"torch.ops.aten.{op}"
    for op in (
        "gru_cell.default",
        "rnn_tanh_cell.default",
        "rnn_relu_cell.default",
        "lstm_cell.default",
        "lstm.input",
        "gru.input",
    )
]

LOWERED_LAYERS = 1
MAX_WINDOW_MEAN_STEPS = 2.0
MAX_TREND_STEPS = 0.5


class CellBank(nn.Module):
    """Several ``Int16StateModel``s side by side: ``forward(*inputs) -> outputs``, one of
    each per model (inputs and states independent)."""

    def __init__(self, models: dict[str, Int16StateModel]) -> None:
        super().__init__()
        self.cells = nn.ModuleDict(models)

    def forward(self, *inputs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(model(x) for model, x in zip(self.cells.values(), inputs, strict=True))


def _expected_activations(names: tuple[str, ...], layers: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in names:
        for activation, count in GATE_ACTIVATIONS[name].items():
            counts[activation] = counts.get(activation, 0) + count * (
                layers if name in STEPS else 1
            )
    return counts


def _reads_own_sum(activation: torch.fx.Node) -> bool:
    """The activation reads, through its input's dequantize and quantize, a sum."""
    dequantize = activation.args[0]
    quantize = getattr(dequantize, "args", (None,))[0]
    return (
        getattr(dequantize, "target", None) == _dequantize
        and getattr(quantize, "target", None) == _quantize
        and quantize.args[0].target == _add
    )


def check_gates_have_their_own_sums(quantized: torch.fx.GraphModule, expected: dict[str, int]):
    """No recurrent operator is left; each gate activation (``expected``: how many of
    each) reads a quantized sum."""
    targets = {str(node.target) for node in quantized.graph.nodes if node.op == "call_function"}
    assert not targets & {op.removeprefix("torch.ops.") for op in RECURRENT_OPS}, targets
    for name, count in expected.items():
        target = getattr(torch.ops.aten, name).default
        nodes = quantized.graph.find_nodes(op="call_function", target=target)
        assert len(nodes) == count, f"{len(nodes)} {name}, expected {count}"
        assert all(_reads_own_sum(node) for node in nodes), f"a {name} reads no sum"


def _bank() -> tuple[CellBank, list[tuple[torch.Tensor, ...]]]:
    """The bank of the tested cells and its stimulus: one input per cell for each frame."""
    cells = cell_types(LOWERED_LAYERS)
    streams = [stimulus(cells[name]) for name in TESTED]
    bank = CellBank(
        {name: int16_state_model(cells[name], s) for name, s in zip(TESTED, streams, strict=True)}
    )
    return bank.eval(), list(zip(*streams, strict=True))


def _customize(
    pipeline: BasePipeline, frames: list[tuple[torch.Tensor, ...]], tosa_dir: Path | None
) -> None:
    """The stateful pieces, calibrated on ``frames``, and the checks of the module doc."""
    count = len(TESTED)
    buffers = [f"cells.{name}.{STATE_BUFFER}" for name in TESTED]
    use_stateful_pieces(pipeline, quantization_config(), frames, buffers)

    def gates_have_their_own_sums() -> None:
        quantized = pipeline.tester.get_artifact(StageType.QUANTIZE)
        check_gates_have_their_own_sums(quantized, _expected_activations(TESTED, LOWERED_LAYERS))

    pipeline.add_stage_after("quantize", gates_have_their_own_sums)
    pipeline.change_args("check_count.exir", {DELEGATE: 1, EDGE_OP: count, EDGE_DEQUANTIZE: count})
    pipeline.count_program_io_kinds(
        {InputKind.USER_INPUT: count, InputKind.BUFFER: count},
        {OutputKind.USER_OUTPUT: count, OutputKind.BUFFER_MUTATION: count},
    )

    def follows_float_without_drift() -> None:
        program = lowered_program(pipeline)
        scales = output_scales(program)
        outputs = _stepped(program, pipeline.tester.compile_spec, frames, tosa_dir, scales)
        cells = cell_types(LOWERED_LAYERS)
        errors = {}
        for index, name in enumerate(TESTED):
            cell = cells[name]
            inputs = torch.stack([frame[index] for frame in frames])
            reference = run_float(cell.float_step(), cell, inputs)[0]
            stepped = torch.stack([frame[index] for frame in outputs])
            errors[name] = SteppedError.of(stepped, reference, scales[index])
        for name, error in errors.items():
            assert max(error.window_mean_steps) <= MAX_WINDOW_MEAN_STEPS, (name, errors)
            assert error.trend_steps <= MAX_TREND_STEPS, (name, errors)

    # On the lowered program, before to_executorch rewrites the states' write-back.
    pipeline.add_stage_after("to_edge_transform_and_lower", follows_float_without_drift)

    def cpu_runs_only_the_boundary() -> None:
        assert program_summary(pipeline).operator_calls == {
            "aten::copy_": count,
            "quantized_decomposed::dequantize_per_tensor.out": count,
        }

    pipeline.add_stage_after("to_executorch", cpu_runs_only_the_boundary)


# Ethos-U55 and Ethos-U65 programs share their TOSA (the "+u55" subset; Vela compiles it
# for each): stepped once, keyed by the TOSA's bytes and the outputs' scales.
_stepped_by_tosa: dict[tuple[str, tuple[float, ...]], list[list[torch.Tensor]]] = {}


def _stepped(program, compile_spec, frames, tosa_dir: Path | None, scales: list[float]):
    if tosa_dir is None:
        return step_lowered_program(program, compile_spec, frames)
    key = (hashlib.sha256((tosa_dir / "out.tosa").read_bytes()).hexdigest(), tuple(scales))
    if key not in _stepped_by_tosa:
        _stepped_by_tosa[key] = step_lowered_program(program, compile_spec, frames, tosa_dir)
    return _stepped_by_tosa[key]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Calibration and stepping run thousands of ops on tensors of tens of elements: one
    thread is faster than two that wait for each other."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_recurrent_cells_tosa_INT() -> None:
    bank, frames = _bank()
    pipeline = TosaPipelineINT[tuple[torch.Tensor, ...]](
        bank, frames[0], aten_op=[], exir_op=[], tosa_extensions=["int16"]
    )
    _customize(pipeline, frames, None)
    run_stateful(pipeline)


def _ethos_u_test(pipeline_class: type[BasePipeline], tmp_path: Path) -> None:
    bank, frames = _bank()
    pipeline = pipeline_class(
        bank, frames[0], aten_ops=[], exir_ops=[], run_on_fvp=False, custom_path=str(tmp_path)
    )
    _customize(pipeline, frames, tmp_path)
    check_vela_runs_everything_on_npu(pipeline, tmp_path)
    run_stateful(pipeline)


def test_recurrent_cells_u55_INT(tmp_path: Path) -> None:
    _ethos_u_test(EthosU55PipelineINT[tuple[torch.Tensor, ...]], tmp_path)


def test_recurrent_cells_u65_INT(tmp_path: Path) -> None:
    _ethos_u_test(EthosU65PipelineINT[tuple[torch.Tensor, ...]], tmp_path)


def test_recurrent_cells_u85_INT(tmp_path: Path) -> None:
    _ethos_u_test(EthosU85PipelineINT[tuple[torch.Tensor, ...]], tmp_path)


def _quantized_stacked(name: str, quantizer: StatefulTOSAQuantizer) -> torch.fx.GraphModule:
    """The cell type ``name`` with two stacked layers, quantized (graph only, no lowering)."""
    cell = cell_types(STACKED_LAYERS)[name]
    frames = stimulus(cell, frames=8)
    model = int16_state_model(cell, frames)
    graph_module = torch.export.export(model, (frames[0],)).module(check_guards=False)
    prepared = prepare_pt2e(graph_module, quantizer.set_global(quantization_config()))
    with torch.no_grad():
        for frame in frames:
            prepared(frame)
    return convert_pt2e(prepared)


def _tosa_quantizer() -> StatefulTOSAQuantizer:
    return StatefulTOSAQuantizer(common.get_tosa_compile_spec("TOSA-1.0+INT+int16"))


@common.parametrize("name", {name: name for name in STEPS})
def test_stacked_steps_gates_have_their_own_sums_tosa(name: str) -> None:
    """Two stacked layers quantize as one does, layer by layer."""
    quantized = _quantized_stacked(name, _tosa_quantizer())
    check_gates_have_their_own_sums(quantized, _expected_activations((name,), STACKED_LAYERS))


def test_release_lstm_decomposition_shares_one_sum_tosa() -> None:
    """Without ConvertLstmToCellsPass the release's DecomposeLstmPass takes the nn.LSTM:
    its gates read slices of one sum, which the check above tells apart."""
    quantizer = _tosa_quantizer()
    quantizer.cell_decompositions = tuple(
        p for p in quantizer.cell_decompositions if p is not ConvertLstmToCellsPass
    )
    quantized = _quantized_stacked("lstm_step", quantizer)
    with pytest.raises(AssertionError, match="a sigmoid reads no sum"):
        check_gates_have_their_own_sums(
            quantized, _expected_activations(("lstm_step",), STACKED_LAYERS)
        )
