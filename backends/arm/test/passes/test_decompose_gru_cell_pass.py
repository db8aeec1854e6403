# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""DecomposeGruCellPass: equal to nn.GRUCell, with PyTorch's reset-gate placement.

Like ``DecomposeLstmCellPass`` the pass runs before quantization annotation, on the ATen
graph, which the release's ``PassPipeline`` (passes on the edge program, where ``to_edge``
has already decomposed the cell its own way) does not reach: it is tested directly here,
and lowered with its state in the program on every target in
``test_recurrent_cell_state.py``.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from backends.arm._passes import DecomposeGruCellPass
from backends.arm._passes.pass_provenance import created_by

INPUT, HIDDEN = 6, 4


class StackedGruCells(nn.Module):
    """Two GRU cells, the second reading the first's h' (``layers=2``), or one."""

    def __init__(self, layers: int, bias: bool) -> None:
        super().__init__()
        sizes = [INPUT] + [HIDDEN] * layers
        self.cells = nn.ModuleList(
            nn.GRUCell(i, o, bias=bias) for i, o in zip(sizes, sizes[1:], strict=False)
        )

    def forward(self, x: torch.Tensor, *hs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        outputs = []
        for cell, h in zip(self.cells, hs, strict=True):
            x = cell(x, h)
            outputs.append(x)
        return tuple(outputs)


test_cases = {
    "batched": ((3,), 1, True),
    "batch_of_one": ((1,), 1, True),
    "unbatched": ((), 1, True),
    "no_bias": ((2,), 1, False),
    "stacked": ((2,), 2, True),
}


def _decomposed(model: nn.Module, inputs: tuple[torch.Tensor, ...]) -> torch.fx.GraphModule:
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    assert graph_module.graph.find_nodes(op="call_function", target=torch.ops.aten.gru_cell.default)
    result = DecomposeGruCellPass(tfa_pass=True)(graph_module)
    assert result.modified
    return result.graph_module


@pytest.mark.parametrize("case", test_cases.values(), ids=test_cases.keys())
def test_decompose_gru_cell_equals_nn_gru_cell_tosa(case) -> None:
    batch, layers, bias = case
    torch.manual_seed(0)
    model = StackedGruCells(layers, bias).eval()
    inputs = (torch.randn(*batch, INPUT), *(torch.randn(*batch, HIDDEN) for _ in range(layers)))
    decomposed = _decomposed(model, inputs)

    calls = [node for node in decomposed.graph.nodes if node.op == "call_function"]
    assert torch.ops.aten.gru_cell.default not in {node.target for node in calls}
    # Per cell: 2 linears, 6 slices, 2 sigmoids and a tanh, the 3 gates' sums,
    # r * (W_hn h + b_hn), h - n, z * (h - n) and n + z * (h - n). (An unbatched cell also
    # has the squeeze and unsqueeze nn.GRUCell adds.)
    ours = [node.target for node in calls if created_by(node) == "DecomposeGruCellPass"]
    assert len(ours) == 18 * layers
    assert ours.count(torch.ops.aten.sigmoid.default) == 2 * layers
    assert ours.count(torch.ops.aten.tanh.default) == layers
    for want, got in zip(model(*inputs), decomposed(*inputs), strict=True):
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)


def test_decompose_gru_cell_resets_the_hidden_product_tosa() -> None:
    """r multiplies W_hn h + b_hn (a slice of the h-side product), not h: PyTorch's GRU,
    not the variant of Cho et al. With b_hn large the two differ at once."""
    torch.manual_seed(1)
    model = StackedGruCells(1, bias=True).eval()
    with torch.no_grad():
        model.cells[0].bias_hh[2 * HIDDEN :] = 3.0
    inputs = (torch.randn(2, INPUT), torch.randn(2, HIDDEN))
    decomposed = _decomposed(model, inputs)

    (candidate,) = decomposed.graph.find_nodes(
        op="call_function", target=torch.ops.aten.tanh.default
    )
    (_, reset_product) = candidate.args[0].args  # add(W_in x + b_in, r * (W_hn h + b_hn))
    reset_gate, hidden_slice = reset_product.args
    assert reset_gate.target == torch.ops.aten.sigmoid.default
    assert hidden_slice.target == torch.ops.aten.slice.Tensor
    assert hidden_slice.args[2:] == (2 * HIDDEN, 3 * HIDDEN)
    (linear_h,) = hidden_slice.all_input_nodes
    assert linear_h.target == torch.ops.aten.linear.default
    assert linear_h.args[0].op == "placeholder"  # h itself
    torch.testing.assert_close(decomposed(*inputs)[0], model(*inputs)[0], atol=1e-6, rtol=1e-6)
