# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""DecomposeRnnCellPass: equal to nn.RNNCell, tanh and relu.

Run before quantization annotation, on the ATen graph (see
``test_decompose_gru_cell_pass.py`` for why not on ``PassPipeline``); lowered with its
state in the program on every target in ``test_recurrent_cell_state.py``.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from backends.arm._passes import DecomposeRnnCellPass
from backends.arm._passes.pass_provenance import created_by

INPUT, HIDDEN = 6, 4

test_cases = {
    "tanh_batched": ("tanh", (3,), True),
    "tanh_unbatched": ("tanh", (), True),
    "tanh_no_bias": ("tanh", (2,), False),
    "relu_batched": ("relu", (3,), True),
    "relu_unbatched_no_bias": ("relu", (), False),
}
_CELL_OPS = {
    "tanh": (torch.ops.aten.rnn_tanh_cell.default, torch.ops.aten.tanh.default),
    "relu": (torch.ops.aten.rnn_relu_cell.default, torch.ops.aten.relu.default),
}


@pytest.mark.parametrize("case", test_cases.values(), ids=test_cases.keys())
def test_decompose_rnn_cell_equals_nn_rnn_cell_tosa(case) -> None:
    nonlinearity, batch, bias = case
    cell_op, activation = _CELL_OPS[nonlinearity]
    torch.manual_seed(0)
    model = nn.RNNCell(INPUT, HIDDEN, bias=bias, nonlinearity=nonlinearity).eval()
    inputs = (torch.randn(*batch, INPUT), torch.randn(*batch, HIDDEN))
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    assert graph_module.graph.find_nodes(op="call_function", target=cell_op)

    result = DecomposeRnnCellPass(tfa_pass=True)(graph_module)

    assert result.modified
    decomposed = result.graph_module
    calls = [node for node in decomposed.graph.nodes if node.op == "call_function"]
    assert cell_op not in {node.target for node in calls}
    # (An unbatched cell also has the squeeze and unsqueeze nn.RNNCell adds.)
    assert [node.target for node in calls if created_by(node) == "DecomposeRnnCellPass"] == [
        torch.ops.aten.linear.default,
        torch.ops.aten.linear.default,
        torch.ops.aten.add.Tensor,
        activation,
    ]
    want, got = model(*inputs), decomposed(*inputs)
    assert got.shape == want.shape
    torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)
