# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import operator

import torch
from executorch.exir.pass_base import ExportPass

from backends.arm._passes.decompose_lstm_cell_pass import DecomposeLstmCellPass
from backends.arm._passes.decompose_recurrent_cell_pass import (
    CreateOp,
    DecomposeRecurrentCellPass,
)


class ConvertLstmToCellsPass(DecomposeRecurrentCellPass):
    """Rewrites a one-direction aten.lstm.input (``nn.LSTM``, any number of layers and
    steps, batch first or not) as aten.lstm_cell calls, which ``DecomposeLstmCellPass``
    then decomposes; run before quantization annotation:

        for each step t:      x = input[t]     (time dimension 1 if batch_first, else 0)
          for each layer l:   h[l], c[l] = lstm_cell(x, (h[l], c[l]), *params[l])
                              x = h[l]
        output = stack(x of every step, time dimension);  h_n = stack(h);  c_n = stack(c)

    (``params[l]``: the layer's W_ih, W_hh and, with biases, b_ih, b_hh.)

    The release's ``DecomposeLstmPass`` sums the four gates' products before slicing the
    sum: one observer for the four pre-activations, and on Ethos-U a slice between each
    sum and its table, which keeps Vela from fusing the table into the sum (about 2,000
    cycles per gate on Ethos-U85-256). Through the cell pass each gate gets its own sum,
    observer and fused table, as an ``nn.LSTMCell`` does. Bidirectional LSTMs and LSTMs
    with projections are left to the release's pass.
    """

    _passes_required_after: set[type[ExportPass]] = {DecomposeLstmCellPass}

    _TARGETS = (torch.ops.aten.lstm.input,)

    _cell = torch.ops.aten.lstm_cell.default
    _select = torch.ops.aten.select.int
    _stack = torch.ops.aten.stack.default

    def _is_supported(self, node: torch.fx.Node) -> bool:
        """One direction and no projection: the layers' parameters are (W_ih, W_hh[, b_ih,
        b_hh]) each."""
        _, _, params, has_biases, num_layers, _, _, bidirectional, _ = node.args
        return not bidirectional and len(params) == num_layers * (4 if has_biases else 2)

    def _decompose(
        self, node: torch.fx.Node, op: CreateOp
    ) -> tuple[torch.fx.Node, torch.fx.Node, torch.fx.Node]:
        sequence, (h_0, c_0), params, has_biases, num_layers, _, _, _, batch_first = node.args
        time_dim = 1 if batch_first else 0
        per_layer = 4 if has_biases else 2

        h = [op(self._select, h_0, 0, layer) for layer in range(num_layers)]
        c = [op(self._select, c_0, 0, layer) for layer in range(num_layers)]
        steps = []
        for t in range(sequence.meta["val"].shape[time_dim]):
            x = op(self._select, sequence, time_dim, t)
            for layer in range(num_layers):
                weights = params[layer * per_layer : (layer + 1) * per_layer]
                cell = op(self._cell, x, [h[layer], c[layer]], *weights)
                h[layer], c[layer] = (op(operator.getitem, cell, index) for index in (0, 1))
                x = h[layer]
            steps.append(x)
        return op(self._stack, steps, time_dim), op(self._stack, h, 0), op(self._stack, c, 0)
