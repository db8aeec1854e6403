# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.backends.arm._passes.arm_pass_utils import create_node
from executorch.exir.pass_base import ExportPass, PassResult

from backends.arm._passes.pass_provenance import mark_created_by


class DecomposeGruCellPass(ArmPass):
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

    _TARGET = torch.ops.aten.gru_cell.default

    _linear = torch.ops.aten.linear.default
    _add = torch.ops.aten.add.Tensor
    _sub = torch.ops.aten.sub.Tensor
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
                h_next = self._decompose(graph_module, node)
            node.replace_all_uses_with(h_next)
            graph.erase_node(node)
            modified = True
        if modified:
            graph.eliminate_dead_code()
            graph_module.recompile()
            # Retrace so that every new node carries a fake-tensor value.
            graph_module = super().call(graph_module).graph_module
        return PassResult(graph_module, modified)

    def _decompose(self, graph_module: torch.fx.GraphModule, node: torch.fx.Node) -> torch.fx.Node:
        graph = graph_module.graph
        x, h, w_ih, w_hh, *biases = node.args
        b_ih, b_hh = (*biases, None, None)[:2]
        # From the cell's own h' (x may be a cell decomposed just before, whose nodes
        # carry that cell's value until the retrace).
        h_next = node.meta["val"]
        hidden = h_next.shape[-1]
        feature_dim = h_next.dim() - 1

        def op(target, *args: object) -> torch.fx.Node:
            created = create_node(graph, target, args=args, from_node=node)
            mark_created_by(created, self)
            return created

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
