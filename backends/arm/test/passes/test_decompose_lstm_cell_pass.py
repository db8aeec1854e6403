# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""DecomposeLstmCellPass: equal to nn.LSTMCell, and lowered whole by the Arm backend.

The pass runs where the stateful quantizer calls it, before quantization annotation, on
the ATen graph: the release's ``PassPipeline`` runs passes on the edge program, where
``to_edge`` has already decomposed the cell its own way, so it cannot reach this pass.
The pass itself is tested directly (float equality with ``nn.LSTMCell``, every way a cell
is called); what the Arm backend makes of its output is tested on the release's
``TosaPipelineINT`` and ``EthosU85PipelineINT``, with the stateful quantizer in their
quantize stage (as the release tests its own annotation-time decompositions).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from executorch.backends.arm.quantizer import (
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from executorch.backends.arm.test import common
from executorch.backends.arm.test.tester.test_pipeline import (
    BasePipeline,
    EthosU85PipelineINT,
    TosaPipelineINT,
)
from executorch.backends.test.harness.stages import StageType
from torch import nn
from torchao.quantization.pt2e.quantizer import QuantizationConfig

from backends.arm._passes import DecomposeLstmCellPass
from backends.arm.quantizer.stateful_ethos_u_quantizer import (
    LstmGateProductSpec,
    lstm_gate_product_nodes,
)
from backends.arm.test.stateful_test_utils import (
    DELEGATE,
    EDGE_DEQUANTIZE,
    EDGE_OP,
    EDGE_QUANTIZE,
    check_vela_runs_everything_on_npu,
    run_stateful,
    use_stateful_pieces,
)

INPUT, HIDDEN = 12, 8


class CellReadByIndex(nn.Module):
    """An LSTMCell whose outputs are read through the given tuple indices."""

    def __init__(self, h_index: int, c_index: int, bias: bool = True) -> None:
        super().__init__()
        self.cell = nn.LSTMCell(INPUT, HIDDEN, bias=bias)
        self.h_index, self.c_index = h_index, c_index

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        outputs = self.cell(x, (h, c))
        return outputs[self.h_index] * 2.0, outputs[self.c_index] + 1.0


test_cases = {
    "batched": ((3,), 0, 1, True),
    "batch_of_one": ((1,), 0, 1, True),
    "unbatched": ((), 0, 1, True),
    "negative_indices": ((2,), -2, -1, True),
    "mixed_indices": ((2,), 0, -1, True),
    "no_bias": ((2,), 0, 1, False),
    "no_bias_unbatched_negative": ((), -2, -1, False),
}


@pytest.mark.parametrize("case", test_cases.values(), ids=test_cases.keys())
def test_decompose_lstm_cell_equals_nn_lstm_cell_tosa(case) -> None:
    batch, h_index, c_index, bias = case
    torch.manual_seed(0)
    model = CellReadByIndex(h_index, c_index, bias).eval()
    inputs = (torch.randn(*batch, INPUT), torch.randn(*batch, HIDDEN), torch.randn(*batch, HIDDEN))
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    assert graph_module.graph.find_nodes(
        op="call_function", target=torch.ops.aten.lstm_cell.default
    )

    result = DecomposeLstmCellPass(tfa_pass=True)(graph_module)

    assert result.modified
    decomposed = result.graph_module
    targets = {node.target for node in decomposed.graph.nodes if node.op == "call_function"}
    assert torch.ops.aten.lstm_cell.default not in targets
    assert {torch.ops.aten.linear.default, torch.ops.aten.sigmoid.default} <= targets
    assert len(lstm_gate_product_nodes(decomposed)) == 2
    expected = model(*inputs)
    actual = decomposed(*inputs)
    for want, got in zip(expected, actual, strict=True):
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)


def test_decompose_lstm_cell_rejects_out_of_range_index_tosa() -> None:
    model = CellReadByIndex(0, 1).eval()
    inputs = (torch.randn(1, INPUT), torch.randn(1, HIDDEN), torch.randn(1, HIDDEN))
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    cell = graph_module.graph.find_nodes(
        op="call_function", target=torch.ops.aten.lstm_cell.default
    )[0]
    next(iter(cell.users)).args = (cell, 2)
    with pytest.raises(RuntimeError, match="has 2 outputs, got index 2"):
        DecomposeLstmCellPass(tfa_pass=True)(graph_module)


class StackedCells(nn.Module):
    """Two LSTM cells, the second reading the first's h'."""

    def __init__(self) -> None:
        super().__init__()
        self.first = nn.LSTMCell(INPUT, HIDDEN)
        self.second = nn.LSTMCell(HIDDEN, HIDDEN)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        h1, c1 = self.first(x, (h, c))
        return self.second(h1, (h1 * 0.5, c1))


def test_decompose_stacked_lstm_cells_tosa() -> None:
    """The second cell reads nodes of the first one's decomposition, which carry the first
    cell's value until the pass retraces: its shapes come from its own value."""
    torch.manual_seed(2)
    model = StackedCells().eval()
    inputs = (torch.randn(2, INPUT), torch.randn(2, HIDDEN), torch.randn(2, HIDDEN))
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    decomposed = DecomposeLstmCellPass(tfa_pass=True)(graph_module).graph_module
    assert len(lstm_gate_product_nodes(decomposed)) == 4
    for want, got in zip(model(*inputs), decomposed(*inputs), strict=True):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)


class LstmCellHead(nn.Module):
    """A small stateless cell model: linear -> LSTMCell -> linear -> sigmoid."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(16, INPUT)
        self.cell = nn.LSTMCell(INPUT, HIDDEN)
        self.head = nn.Linear(HIDDEN, 1)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        h_next, c_next = self.cell(torch.relu(self.encoder(x)), (h, c))
        return torch.sigmoid(self.head(h_next)), h_next, c_next


input_t = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # x, h, c


def _calibration() -> list[input_t]:
    torch.manual_seed(1)
    # Distinct tensors for h and c: export would merge one tensor passed twice.
    return [
        (torch.randn(1, 16), torch.randn(1, HIDDEN) * 0.5, torch.randn(1, HIDDEN)) for _ in range(8)
    ]


@dataclass(frozen=True)
class GateProductCase:
    """A quantization of LstmCellHead and what its gate products must look like."""

    config: QuantizationConfig
    gate_products: LstmGateProductSpec
    gate_input_dtype: torch.dtype  # what the gate products read
    other_input_dtype: torch.dtype  # what the encoder and head read
    tosa_extensions: tuple[str, ...] = ()


_INT8_ACTIVATION = get_symmetric_quantization_config().input_activation

test_data_suite = {
    "int8": GateProductCase(
        get_symmetric_quantization_config(), LstmGateProductSpec(), torch.int8, torch.int8
    ),
    # The example's arithmetic: a16w8, except 8-bit inputs for the gate products.
    "a16w8_int8_gate_inputs": GateProductCase(
        get_symmetric_a16w8_quantization_config(),
        LstmGateProductSpec(_INT8_ACTIVATION),
        torch.int8,
        torch.int16,
        ("int16",),
    ),
}


def _input_dtype(node: torch.fx.Node) -> torch.dtype:
    """The integer type a quantized op reads its first input in."""
    dequantize = node.args[0]
    assert dequantize.target == torch.ops.quantized_decomposed.dequantize_per_tensor.default
    return dequantize.args[-1]


def _check_decomposed_cell(pipeline: BasePipeline, case: GateProductCase) -> None:
    """Stages after quantize: no cell left, the gate products the case asks for, each
    linear reading the integer type the case gives it."""

    def gate_products_read_their_dtypes() -> None:
        quantized = pipeline.tester.get_artifact(StageType.QUANTIZE)
        linears = quantized.graph.find_nodes(
            op="call_function", target=torch.ops.aten.linear.default
        )
        gates = lstm_gate_product_nodes(quantized)
        assert len(gates) == 2 and len(linears) == 4
        assert {_input_dtype(node) for node in gates} == {case.gate_input_dtype}
        others = {_input_dtype(node) for node in linears if node not in gates}
        assert others == {case.other_input_dtype}

    pipeline.add_stage_after("quantize", gate_products_read_their_dtypes)
    pipeline.add_stage_after(
        "quantize",
        pipeline.tester.check_count,
        {"torch.ops.aten.linear.default": 4, "torch.ops.aten.sigmoid.default": 4},
        suffix="decomposed_cell",
    )
    pipeline.add_stage_after(
        "quantize", pipeline.tester.check_not, ["torch.ops.aten.lstm_cell.default"], suffix="cell"
    )
    # One delegate; outside it only the three inputs' quantize and the three outputs'
    # dequantize.
    pipeline.change_args(
        "check_count.exir", {DELEGATE: 1, EDGE_OP: 6, EDGE_QUANTIZE: 3, EDGE_DEQUANTIZE: 3}
    )


# On the TOSA reference model: the case that mixes ranges inside the cell (int8 gate inputs
# among int16 activations).
tosa_test_data = {name: test_data_suite[name] for name in ("a16w8_int8_gate_inputs",)}


@common.parametrize("test_data", tosa_test_data)
def test_lstm_cell_head_tosa_INT(test_data: GateProductCase) -> None:
    """The decomposed cell, quantized as the case says, lowers to one TOSA delegate (only
    the inputs' quantize and the outputs' dequantize outside it) whose outputs on the TOSA
    reference model equal the quantized model's."""
    calibration = _calibration()
    pipeline = TosaPipelineINT[input_t](
        LstmCellHead().eval(),
        calibration[0],
        aten_op=[],
        exir_op=["executorch_exir_dialects_edge__ops_aten_sigmoid_default"],
        tosa_extensions=list(test_data.tosa_extensions),
    )
    use_stateful_pieces(pipeline, test_data.config, calibration, [], test_data.gate_products)
    _check_decomposed_cell(pipeline, test_data)
    run_stateful(pipeline)


@common.parametrize("test_data", test_data_suite)
def test_lstm_cell_head_u85_INT(test_data: GateProductCase, tmp_path: Path) -> None:
    """The same on Ethos-U85, where Vela runs every operator on the NPU."""
    calibration = _calibration()
    pipeline = EthosU85PipelineINT[input_t](
        LstmCellHead().eval(),
        calibration[0],
        aten_ops=[],
        exir_ops=["executorch_exir_dialects_edge__ops_aten_sigmoid_default"],
        run_on_fvp=False,  # lowering is what is tested here
        custom_path=str(tmp_path),
    )
    use_stateful_pieces(pipeline, test_data.config, calibration, [], test_data.gate_products)
    _check_decomposed_cell(pipeline, test_data)
    check_vela_runs_everything_on_npu(pipeline, tmp_path)
    run_stateful(pipeline)
