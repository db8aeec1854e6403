# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""DecomposeLstmCellPass: equal to nn.LSTMCell, and lowered whole to the NPU."""

from __future__ import annotations

import pytest
import torch
from executorch.backends.arm.quantizer import (
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from torch import nn

from backends.arm._passes import DecomposeLstmCellPass
from backends.arm.quantizer.stateful_ethos_u_quantizer import (
    LstmGateProductSpec,
    lstm_gate_product_nodes,
)
from backends.arm.test.stateful_test_utils import lower_to_u85, ops_outside_delegate

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


@pytest.mark.parametrize("fuse", [False, True], ids=["split", "fused"])
@pytest.mark.parametrize("case", test_cases.values(), ids=test_cases.keys())
def test_decompose_lstm_cell_equals_nn_lstm_cell_tosa(case, fuse: bool) -> None:
    batch, h_index, c_index, bias = case
    torch.manual_seed(0)
    model = CellReadByIndex(h_index, c_index, bias).eval()
    inputs = (torch.randn(*batch, INPUT), torch.randn(*batch, HIDDEN), torch.randn(*batch, HIDDEN))
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    assert graph_module.graph.find_nodes(
        op="call_function", target=torch.ops.aten.lstm_cell.default
    )

    result = DecomposeLstmCellPass(fuse_gate_products=fuse, tfa_pass=True)(graph_module)

    assert result.modified
    decomposed = result.graph_module
    targets = {node.target for node in decomposed.graph.nodes if node.op == "call_function"}
    assert torch.ops.aten.lstm_cell.default not in targets
    assert {torch.ops.aten.linear.default, torch.ops.aten.sigmoid.default} <= targets
    assert len(lstm_gate_product_nodes(decomposed)) == (1 if fuse else 2)
    assert (torch.ops.aten.cat.default in targets) == fuse
    expected = model(*inputs)
    actual = decomposed(*inputs)
    for want, got in zip(expected, actual, strict=True):
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)


def test_fused_gate_products_need_constant_weights_tosa() -> None:
    """In an ExportedProgram's graph the weights are inputs: the pass keeps two products."""
    model = CellReadByIndex(0, 1).eval()
    inputs = (torch.randn(2, INPUT), torch.randn(2, HIDDEN), torch.randn(2, HIDDEN))
    graph_module = torch.export.export(model, inputs).graph_module
    weights = [
        node
        for node in graph_module.graph.nodes
        if node.op == "placeholder" and "cell" in node.name
    ]
    assert len(weights) == 4

    decomposed = DecomposeLstmCellPass(fuse_gate_products=True)(graph_module).graph_module

    assert len(lstm_gate_product_nodes(decomposed)) == 2


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


def test_lstm_cell_model_lowers_without_cpu_compute_u85(tmp_path) -> None:
    torch.manual_seed(1)
    # Distinct tensors for h and c: export would merge one tensor passed twice.
    calibration = [
        (torch.randn(1, 16), torch.randn(1, HIDDEN) * 0.5, torch.randn(1, HIDDEN)) for _ in range(8)
    ]
    program = lower_to_u85(LstmCellHead().eval(), calibration, tmp_path)
    # Only the boundary conversions of the three inputs and three outputs remain.
    assert set(ops_outside_delegate(program)) <= {
        "quantized_decomposed::quantize_per_tensor.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    }
    assert program.report.cpu_ops == 0 and program.report.npu_ops > 0


def _input_dtype(node: torch.fx.Node) -> torch.dtype:
    """The integer type a quantized op reads its first input in."""
    dequantize = node.args[0]
    assert dequantize.target == torch.ops.quantized_decomposed.dequantize_per_tensor.default
    return dequantize.args[-1]


def test_lstm_gate_products_read_int8_inside_a16w8_u85(tmp_path) -> None:
    torch.manual_seed(1)
    calibration = [
        (torch.randn(1, 16), torch.randn(1, HIDDEN) * 0.5, torch.randn(1, HIDDEN)) for _ in range(8)
    ]
    a16w8 = get_symmetric_a16w8_quantization_config()
    int8 = get_symmetric_quantization_config().input_activation

    lowered = lower_to_u85(
        LstmCellHead().eval(), calibration, tmp_path, a16w8, LstmGateProductSpec(int8)
    )

    linears = lowered.quantized.graph.find_nodes(
        op="call_function", target=torch.ops.aten.linear.default
    )
    gates = lstm_gate_product_nodes(lowered.quantized)
    assert len(gates) == 2 and len(linears) == 4
    assert {_input_dtype(node) for node in gates} == {torch.int8}
    assert {_input_dtype(node) for node in linears if node not in gates} == {torch.int16}
    assert lowered.report.cpu_ops == 0 and lowered.report.npu_ops > 0


def test_fused_lstm_gate_product_lowers_whole_u85(tmp_path) -> None:
    torch.manual_seed(1)
    calibration = [
        (torch.randn(1, 16), torch.randn(1, HIDDEN) * 0.5, torch.randn(1, HIDDEN)) for _ in range(8)
    ]

    lowered = lower_to_u85(
        LstmCellHead().eval(), calibration, tmp_path, None, LstmGateProductSpec(fused=True)
    )

    gates = lstm_gate_product_nodes(lowered.quantized)
    assert len(gates) == 1
    assert _input_dtype(gates[0]) == torch.int8
    # The ReLU before the cell keeps its own range, so nothing but the boundary
    # conversions of the inputs and outputs is left to the CPU.
    assert set(ops_outside_delegate(lowered)) <= {
        "quantized_decomposed::quantize_per_tensor.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    }
    assert lowered.report.cpu_ops == 0 and lowered.report.npu_ops > 0
