# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import operator

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.backends.arm._passes.arm_pass_utils import create_node
from executorch.exir.pass_base import ExportPass, PassResult

from backends.arm._passes.decompose_lstm_cell_pass import DecomposeLstmCellPass
from backends.arm._passes.pass_provenance import mark_created_by


class ConvertLstmToCellsPass(ArmPass):
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

    _TARGET = torch.ops.aten.lstm.input

    _cell = torch.ops.aten.lstm_cell.default
    _select = torch.ops.aten.select.int
    _stack = torch.ops.aten.stack.default

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        graph = graph_module.graph
        modified = False
        for node in list(graph.find_nodes(op="call_function", target=self._TARGET)):
            if not self.allowed_to_transform(node.meta) or not self._is_plain(node):
                continue
            with graph.inserting_before(node):
                outputs = self._convert(graph, node)
            for user in list(node.users):
                if user.target != operator.getitem:
                    raise RuntimeError(
                        f"{node.name}: lstm output used by {user.name} ({user.target}); "
                        "only getitem users are supported"
                    )
                user.replace_all_uses_with(outputs[user.args[1]])
                graph.erase_node(user)
            graph.erase_node(node)
            modified = True
        if modified:
            graph.eliminate_dead_code()
            graph_module.recompile()
            # Retrace so that every new node carries a fake-tensor value.
            graph_module = super().call(graph_module).graph_module
        return PassResult(graph_module, modified)

    @staticmethod
    def _is_plain(node: torch.fx.Node) -> bool:
        """One direction and no projection: the layers' parameters are (W_ih, W_hh[, b_ih,
        b_hh]) each."""
        _, _, params, has_biases, num_layers, _, _, bidirectional, _ = node.args
        return not bidirectional and len(params) == num_layers * (4 if has_biases else 2)

    def _convert(
        self, graph: torch.fx.Graph, node: torch.fx.Node
    ) -> tuple[torch.fx.Node, torch.fx.Node, torch.fx.Node]:
        sequence, (h_0, c_0), params, has_biases, num_layers, _, _, _, batch_first = node.args
        time_dim = 1 if batch_first else 0
        per_layer = 4 if has_biases else 2

        def op(target, *args: object) -> torch.fx.Node:
            created = create_node(graph, target, args=args, from_node=node)
            mark_created_by(created, self)
            return created

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
