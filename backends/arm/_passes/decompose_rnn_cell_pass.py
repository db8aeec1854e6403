# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.backends.arm._passes.arm_pass_utils import create_node
from executorch.exir.pass_base import ExportPass, PassResult

from backends.arm._passes.pass_provenance import mark_created_by


class DecomposeRnnCellPass(ArmPass):
    """Decomposes aten.rnn_tanh_cell and aten.rnn_relu_cell (no release pass: they stay on
    the CPU in float) into ops that the Arm INT pipeline quantizes and lowers; run before
    quantization annotation:

        h' = activation(linear(x, W_ih, b_ih) + linear(h, W_hh, b_hh))

    with tanh or relu, the release's ``DecomposeRnnPass`` step (``aten.rnn_*.input``). The
    sum (the pre-activation) gets its own observer. Any input rank, with or without biases.
    """

    _passes_required_after: set[type[ExportPass]] = set()

    _linear = torch.ops.aten.linear.default
    _add = torch.ops.aten.add.Tensor

    _ACTIVATIONS = {
        torch.ops.aten.rnn_tanh_cell.default: torch.ops.aten.tanh.default,
        torch.ops.aten.rnn_relu_cell.default: torch.ops.aten.relu.default,
    }

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        graph = graph_module.graph
        modified = False
        for node in list(graph.nodes):
            if node.op != "call_function" or node.target not in self._ACTIVATIONS:
                continue
            if not self.allowed_to_transform(node.meta):
                continue
            with graph.inserting_before(node):
                h_next = self._decompose(graph, node)
            node.replace_all_uses_with(h_next)
            graph.erase_node(node)
            modified = True
        if modified:
            graph.eliminate_dead_code()
            graph_module.recompile()
            # Retrace so that every new node carries a fake-tensor value.
            graph_module = super().call(graph_module).graph_module
        return PassResult(graph_module, modified)

    def _decompose(self, graph: torch.fx.Graph, node: torch.fx.Node) -> torch.fx.Node:
        x, h, w_ih, w_hh, *biases = node.args
        b_ih, b_hh = (*biases, None, None)[:2]

        def op(target, *args: object) -> torch.fx.Node:
            created = create_node(graph, target, args=args, from_node=node)
            mark_created_by(created, self)
            return created

        pre_activation = op(
            self._add, op(self._linear, x, w_ih, b_ih), op(self._linear, h, w_hh, b_hh)
        )
        return op(self._ACTIVATIONS[node.target], pre_activation)
