# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import operator

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.backends.arm._passes.arm_pass_utils import create_node
from executorch.exir.pass_base import ExportPass, PassResult

from backends.arm._passes.pass_provenance import mark_created_by


class DecomposeLstmCellPass(ArmPass):
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

    _TARGET = torch.ops.aten.lstm_cell.default

    _linear = torch.ops.aten.linear.default
    _add = torch.ops.aten.add.Tensor
    _mul = torch.ops.aten.mul.Tensor
    _slice = torch.ops.aten.slice.Tensor
    _sigmoid = torch.ops.aten.sigmoid.default
    _tanh = torch.ops.aten.tanh.default

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        graph = graph_module.graph
        modified = False
        for node in list(graph.find_nodes(op="call_function", target=self._TARGET)):
            if not self.allowed_to_transform(node.meta):
                continue
            with graph.inserting_before(node):
                h_next, c_next = self._decompose(graph_module, node)
            self._replace_outputs(graph, node, (h_next, c_next))
            modified = True
        if modified:
            graph.eliminate_dead_code()
            graph_module.recompile()
            # Retrace so that every new node carries a fake-tensor value.
            graph_module = super().call(graph_module).graph_module
        return PassResult(graph_module, modified)

    def _decompose(
        self, graph_module: torch.fx.GraphModule, node: torch.fx.Node
    ) -> tuple[torch.fx.Node, torch.fx.Node]:
        graph = graph_module.graph
        x, (h, c), w_ih, w_hh, *biases = node.args
        b_ih, b_hh = (*biases, None, None)[:2]
        # From the cell's own h' (x may be a cell decomposed just before, whose nodes
        # carry that cell's value until the retrace).
        h_next = node.meta["val"][0]
        hidden = h_next.shape[-1]
        feature_dim = h_next.dim() - 1

        def op(target, *args: object) -> torch.fx.Node:
            created = create_node(graph, target, args=args, from_node=node)
            mark_created_by(created, self)
            return created

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

    @staticmethod
    def _replace_outputs(graph: torch.fx.Graph, node: torch.fx.Node, outputs: tuple) -> None:
        for user in list(node.users):
            if user.op != "call_function" or user.target != operator.getitem:
                raise RuntimeError(
                    f"{node.name}: lstm_cell output used by {user.name} ({user.target}); "
                    "only getitem users are supported"
                )
            index = user.args[1]
            if index not in (0, 1, -2, -1):
                raise RuntimeError(f"{user.name}: lstm_cell has 2 outputs, got index {index}")
            user.replace_all_uses_with(outputs[index % 2])
            graph.erase_node(user)
        graph.erase_node(node)
