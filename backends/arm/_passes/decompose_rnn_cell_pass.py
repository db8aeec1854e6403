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


class DecomposeRnnCellPass(DecomposeRecurrentCellPass):
    """Decomposes aten.rnn_tanh_cell and aten.rnn_relu_cell (no release pass: they stay on
    the CPU in float) into ops that the Arm INT pipeline quantizes and lowers; run before
    quantization annotation:

        h' = activation(linear(x, W_ih, b_ih) + linear(h, W_hh, b_hh))

    with tanh or relu, the release's ``DecomposeRnnPass`` step (``aten.rnn_*.input``). The
    sum (the pre-activation) gets its own observer. Any input rank, with or without biases.
    """

    _passes_required_after: set[type[ExportPass]] = set()

    _ACTIVATIONS = {
        torch.ops.aten.rnn_tanh_cell.default: torch.ops.aten.tanh.default,
        torch.ops.aten.rnn_relu_cell.default: torch.ops.aten.relu.default,
    }
    _TARGETS = tuple(_ACTIVATIONS)

    def _decompose(self, node: torch.fx.Node, op: CreateOp) -> torch.fx.Node:
        x, h, w_ih, w_hh, *biases = node.args
        b_ih, b_hh = (*biases, None, None)[:2]

        pre_activation = op(
            self._add, op(self._linear, x, w_ih, b_ih), op(self._linear, h, w_hh, b_hh)
        )
        return op(self._ACTIVATIONS[node.target], pre_activation)
