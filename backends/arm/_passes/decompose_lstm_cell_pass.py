# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import torch
from executorch.exir.pass_base import ExportPass

from backends.arm._passes.decompose_recurrent_cell_pass import (
    CreateOp,
    DecomposeRecurrentCellPass,
)


class DecomposeLstmCellPass(DecomposeRecurrentCellPass):
    """Decomposes aten.lstm_cell (left on the CPU in float by 1.4.1) into gate ops that the
    Arm INT pipeline quantizes and lowers; run before quantization annotation:

        gates_x = linear(x, W_ih, b_ih)              gates_h = linear(h, W_hh, b_hh)
        i = sigmoid(gates_x[0:H]   + gates_h[0:H])    f = sigmoid(gates_x[H:2H]  + gates_h[H:2H])
        g = tanh(gates_x[2H:3H]    + gates_h[2H:3H])  o = sigmoid(gates_x[3H:4H] + gates_h[3H:4H])
        c' = f * c + i * g
        h' = o * tanh(c')

    (slices on the last dimension), so each gate pre-activation gets its own observer. Any
    input rank, with or without biases; outputs read through ``getitem`` (0, 1, -2, -1).
    """

    _passes_required_after: set[type[ExportPass]] = set()

    _TARGETS = (torch.ops.aten.lstm_cell.default,)

    def _decompose(self, node: torch.fx.Node, op: CreateOp) -> tuple[torch.fx.Node, torch.fx.Node]:
        x, (h, c), w_ih, w_hh, *biases = node.args
        b_ih, b_hh = (*biases, None, None)[:2]
        # From the cell's own h' (x may be a cell decomposed just before, whose nodes
        # carry that cell's value until the retrace).
        h_next = node.meta["val"][0]
        hidden = h_next.shape[-1]
        feature_dim = h_next.dim() - 1

        gates_x = op(self._linear, x, w_ih, b_ih)
        gates_h = op(self._linear, h, w_hh, b_hh)

        def gate(index: int, activation) -> torch.fx.Node:
            start, end = index * hidden, (index + 1) * hidden
            slices = (
                op(self._slice, gates, feature_dim, start, end) for gates in (gates_x, gates_h)
            )
            return op(activation, op(self._add, *slices))

        input_gate = gate(0, self._sigmoid)
        forget_gate = gate(1, self._sigmoid)
        cell_candidate = gate(2, self._tanh)
        output_gate = gate(3, self._sigmoid)

        c_next = op(
            self._add, op(self._mul, forget_gate, c), op(self._mul, input_gate, cell_candidate)
        )
        h_next = op(self._mul, output_gate, op(self._tanh, c_next))
        return h_next, c_next
