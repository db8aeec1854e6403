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


class DecomposeGruCellPass(DecomposeRecurrentCellPass):
    """Decomposes aten.gru_cell (no release pass: it stays on the CPU in float) into gate
    ops that the Arm INT pipeline quantizes and lowers; run before quantization annotation:

        gates_x = linear(x, W_ih, b_ih)                gates_h = linear(h, W_hh, b_hh)
        r = sigmoid(gates_x[0:H]  + gates_h[0:H])      z = sigmoid(gates_x[H:2H] + gates_h[H:2H])
        n = tanh(gates_x[2H:3H] + r * gates_h[2H:3H])
        h' = n + z * (h - n)                           (= (1 - z) * n + z * h)

    PyTorch's reset-gate placement: ``r`` scales ``W_hn h + b_hn``, not ``h``. The step is
    the release's ``DecomposeGruPass`` step (``aten.gru.input``), so a GRUCell and a GRU
    layer quantize alike; each gate's pre-activation gets its own observer. Any input
    rank, with or without biases.
    """

    _passes_required_after: set[type[ExportPass]] = set()

    _TARGETS = (torch.ops.aten.gru_cell.default,)

    def _decompose(self, node: torch.fx.Node, op: CreateOp) -> torch.fx.Node:
        x, h, w_ih, w_hh, *biases = node.args
        b_ih, b_hh = (*biases, None, None)[:2]
        # From the cell's own h' (x may be a cell decomposed just before, whose nodes
        # carry that cell's value until the retrace).
        h_next = node.meta["val"]
        hidden = h_next.shape[-1]
        feature_dim = h_next.dim() - 1

        gates_x = op(self._linear, x, w_ih, b_ih)
        gates_h = op(self._linear, h, w_hh, b_hh)

        def part(gates: torch.fx.Node, index: int) -> torch.fx.Node:
            return op(self._slice, gates, feature_dim, index * hidden, (index + 1) * hidden)

        reset_gate = op(self._sigmoid, op(self._add, part(gates_x, 0), part(gates_h, 0)))
        update_gate = op(self._sigmoid, op(self._add, part(gates_x, 1), part(gates_h, 1)))
        candidate = op(
            self._tanh,
            op(self._add, part(gates_x, 2), op(self._mul, reset_gate, part(gates_h, 2))),
        )
        return op(self._add, candidate, op(self._mul, update_gate, op(self._sub, h, candidate)))
