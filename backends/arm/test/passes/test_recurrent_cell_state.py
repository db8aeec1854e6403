# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Every recurrent cell type with its state in the program's int16 buffer, on every target.

A small seeded module of each cell type (``recurrent_cells.py``: ``nn.GRUCell``,
``nn.RNNCell`` tanh and relu, one step of ``nn.LSTM`` and of ``nn.GRU``), its state in an
int16 buffer, goes through the release's ``TosaPipelineINT``, ``EthosU55PipelineINT`` and
``EthosU85PipelineINT`` with our stateful pieces (``stateful_test_utils``), quantized a16w8
as the example quantizes and calibrated on the stream it is then stepped on. Checked:

- the quantized graph: no cell or layer operator left; each gate's pre-activation a sum of
  its own, with its own observer, read by the gate's activation;
- the lowered program: one delegate; outside it only the output's dequantize and, as the
  program's one buffer, the state written back (``aten::copy_``); on Ethos-U, Vela places
  every operator on the NPU;
- the output, stepped over 500 frames with the state carried (the TOSA reference model
  runs the delegate; for Ethos-U the TOSA Vela compiled: the device's host twin), against
  the float module stepped alike: every 100-frame window's mean error within 2 of the
  output's quantization steps, and the error's trend over the 500 frames under half a
  step (a drift fails, however small each frame's error).

Ethos-U65 takes the Ethos-U55 TOSA subset: its test compiles the U55 pipeline's TOSA with
Vela for U65-256 (the only step of its own). The lowered steps have one layer (CI time);
two stacked layers are checked on the quantized graph here and lowered for every target
in ``lab/benchmark_recurrent_cells.py``. The Silero model's tests
(``models/test_silero_vad_arm.py``) cover ``nn.LSTMCell``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from executorch.backends.arm.test import common
from executorch.backends.arm.test.tester.test_pipeline import (
    BasePipeline,
    EthosU55PipelineINT,
    EthosU85PipelineINT,
    TosaPipelineINT,
)
from executorch.backends.test.harness.stages import StageType
from torch.export.graph_signature import InputKind, OutputKind
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from backends.arm._passes import ConvertLstmToCellsPass
from backends.arm.quantizer.stateful_ethos_u_quantizer import StatefulTOSAQuantizer
from backends.arm.test.recurrent_cells import (
    STACKED_LAYERS,
    STATE_BUFFER,
    CellType,
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
from examples.arm.silero_vad.model_export.vela_report import run_vela

input_t = tuple[torch.Tensor]  # one int16 frame

_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default
_add = torch.ops.aten.add.Tensor

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
    f"aten.{op}"
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
test_cells = {name: cell_types(LOWERED_LAYERS)[name] for name in GATE_ACTIVATIONS}

MAX_WINDOW_MEAN_STEPS = 2.0
MAX_TREND_STEPS = 0.5


def _expected_activations(name: str, layers: int) -> dict[str, int]:
    per_layer = GATE_ACTIVATIONS[name]
    return {activation: count * layers for activation, count in per_layer.items()}


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
    assert not targets & set(RECURRENT_OPS), targets
    for name, count in expected.items():
        target = getattr(torch.ops.aten, name).default
        nodes = quantized.graph.find_nodes(op="call_function", target=target)
        assert len(nodes) == count, f"{len(nodes)} {name}, expected {count}"
        assert all(_reads_own_sum(node) for node in nodes), f"a {name} reads no sum"


def _customize(pipeline: BasePipeline, cell: CellType, frames: torch.Tensor, tosa_dir: Path | None):
    """The stateful pieces, calibrated on ``frames``, and the checks of the module doc."""
    calibration = [(frame,) for frame in frames]
    use_stateful_pieces(pipeline, quantization_config(), calibration, [STATE_BUFFER])

    def gates_have_their_own_sums() -> None:
        quantized = pipeline.tester.get_artifact(StageType.QUANTIZE)
        check_gates_have_their_own_sums(quantized, _expected_activations(cell.name, 1))

    pipeline.add_stage_after("quantize", gates_have_their_own_sums)
    pipeline.change_args("check_count.exir", {DELEGATE: 1, EDGE_OP: 1, EDGE_DEQUANTIZE: 1})
    pipeline.count_program_io_kinds(
        {InputKind.USER_INPUT: 1, InputKind.BUFFER: 1},
        {OutputKind.USER_OUTPUT: 1, OutputKind.BUFFER_MUTATION: 1},
    )

    def follows_float_without_drift() -> None:
        program = lowered_program(pipeline)
        spec = pipeline.tester.compile_spec
        outputs = step_lowered_program(program, spec, calibration, tosa_dir)
        (scale,) = output_scales(program)
        reference = run_float(cell.float_step(), cell, frames)[0]
        error = SteppedError.of(torch.stack([o for (o,) in outputs]), reference, scale)
        assert max(error.window_mean_steps) <= MAX_WINDOW_MEAN_STEPS, error
        assert error.trend_steps <= MAX_TREND_STEPS, error

    # On the lowered program, before to_executorch rewrites the state's write-back.
    pipeline.add_stage_after("to_edge_transform_and_lower", follows_float_without_drift)

    def cpu_runs_only_the_boundary() -> None:
        assert program_summary(pipeline).operator_calls == {
            "aten::copy_": 1,
            "quantized_decomposed::dequantize_per_tensor.out": 1,
        }

    pipeline.add_stage_after("to_executorch", cpu_runs_only_the_boundary)


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """Calibration and stepping run thousands of ops on tensors of tens of elements: one
    thread is faster than two that wait for each other."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@common.parametrize("cell", test_cells)
def test_recurrent_cell_state_tosa_INT(cell: CellType) -> None:
    frames = stimulus(cell)
    pipeline = TosaPipelineINT[input_t](
        int16_state_model(cell, frames),
        (frames[0],),
        aten_op=[],
        exir_op=[],
        tosa_extensions=["int16"],
    )
    _customize(pipeline, cell, frames, None)
    run_stateful(pipeline)


def _ethos_u_pipeline(pipeline_class: type[BasePipeline], cell: CellType, tmp_path: Path):
    frames = stimulus(cell)
    pipeline = pipeline_class(
        int16_state_model(cell, frames),
        (frames[0],),
        aten_ops=[],
        exir_ops=[],
        run_on_fvp=False,
        custom_path=str(tmp_path),
    )
    _customize(pipeline, cell, frames, tmp_path)
    check_vela_runs_everything_on_npu(pipeline, tmp_path)
    run_stateful(pipeline)
    return pipeline


@pytest.fixture(scope="module", params=test_cells.values(), ids=test_cells.keys())
def u55_lowering(request, tmp_path_factory) -> tuple[BasePipeline, Path]:
    """A cell through ``EthosU55PipelineINT`` with every check of the module doc, and the
    folder with the TOSA Vela compiled (run once per cell: the Ethos-U65 test compiles it)."""
    tmp_path = tmp_path_factory.mktemp(f"u55_{request.param.name}")
    return _ethos_u_pipeline(EthosU55PipelineINT[input_t], request.param, tmp_path), tmp_path


def test_recurrent_cell_state_u55_INT(u55_lowering: tuple[BasePipeline, Path]) -> None:
    """Ethos-U55-128: the fixture's pipeline ran every check."""
    pipeline, _ = u55_lowering
    assert pipeline.tester.compile_spec.target == "ethos-u55-128"


def test_recurrent_cell_state_u65_INT(u55_lowering: tuple[BasePipeline, Path], tmp_path) -> None:
    """Ethos-U65-256 takes the Ethos-U55 TOSA subset: with the same TOSA spec the quantizer,
    the lowering, the partition and the program's CPU side are the U55 pipeline's (so are
    its delegate, CPU operators and 500 stepped frames; lowering again would cost CI time
    for the same TOSA). Vela, the only step of its own, compiles that TOSA for U65-256 with
    the release's U65 test settings: every operator on the NPU."""
    pipeline, u55_dir = u55_lowering
    u65 = common.get_u65_compile_spec(custom_path=str(tmp_path))
    assert u65.target == "ethos-u65-256"
    assert u65.tosa_spec == pipeline.tester.compile_spec.tosa_spec
    report = run_vela(u55_dir / "out.tosa", u65.compiler_flags)
    assert report.cpu_ops == 0 and report.npu_ops > 0, report


@common.parametrize("cell", test_cells)
def test_recurrent_cell_state_u85_INT(cell: CellType, tmp_path: Path) -> None:
    _ethos_u_pipeline(EthosU85PipelineINT[input_t], cell, tmp_path)


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
    check_gates_have_their_own_sums(quantized, _expected_activations(name, STACKED_LAYERS))


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
            quantized, _expected_activations("lstm_step", STACKED_LAYERS)
        )


def test_stepped_error_tells_a_drift_from_an_offset_tosa() -> None:
    """The bounds above on made-up errors: a constant 1.5 steps passes, a drift from 0 to 1
    step over the 500 frames fails, though its mean (0.5) and every window are small."""
    reference = torch.zeros(500, 1, 16)
    step = 1e-4
    offset = SteppedError.of(reference + 1.5 * step, reference, step)
    assert max(offset.window_mean_steps) <= MAX_WINDOW_MEAN_STEPS
    assert abs(offset.trend_steps) <= MAX_TREND_STEPS
    ramp = torch.linspace(0, step, 500).reshape(500, 1, 1)
    drift = SteppedError.of(reference + ramp, reference, step)
    assert max(drift.window_mean_steps) <= MAX_WINDOW_MEAN_STEPS
    assert drift.trend_steps == pytest.approx(1.0) and drift.trend_steps > MAX_TREND_STEPS
