# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import operator
from collections.abc import Callable

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.backends.arm._passes.arm_pass_utils import create_node
from executorch.exir.pass_base import PassResult
from torch._ops import OpOverload

from backends.arm._passes.pass_provenance import mark_created_by

# op(target, *args): one node of a decomposition, with the replaced node's metadata.
CreateOp = Callable[..., torch.fx.Node]


class DecomposeRecurrentCellPass(ArmPass):
    """Base of the passes that replace a recurrent op with smaller ops; it is not run itself.

    A subclass names its ops in ``_TARGETS`` and builds the replacement (the math in its
    docstring) in ``_decompose``. Each such node that the pass is allowed to transform and
    ``_is_supported`` is replaced by the nodes ``_decompose`` creates before it: one output
    takes over the node's uses; a tuple of outputs is read by the node's ``getitem`` users.
    The created nodes are marked with the subclass's name; the graph is then retraced.
    """

    _TARGETS: tuple[OpOverload, ...] = ()

    # What the cells' gate math is built from (each quantized and lowered by the Arm backend).
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
        for node in list(graph.nodes):
            if node.op != "call_function" or node.target not in self._TARGETS:
                continue
            if not self.allowed_to_transform(node.meta) or not self._is_supported(node):
                continue
            with graph.inserting_before(node):
                outputs = self._decompose(node, self._op_creator(node))
            self._replace_outputs(node, outputs)
            modified = True
        if modified:
            graph.eliminate_dead_code()
            graph_module.recompile()
            # Retrace so that every new node carries a fake-tensor value.
            graph_module = super().call(graph_module).graph_module
        return PassResult(graph_module, modified)

    def _is_supported(self, node: torch.fx.Node) -> bool:
        """Whether the pass handles this variant of its op: all of them unless overridden."""
        return True

    def _decompose(
        self, node: torch.fx.Node, op: CreateOp
    ) -> torch.fx.Node | tuple[torch.fx.Node, ...]:
        """Creates the replacement of ``node`` with ``op``; returns its output or outputs."""
        raise NotImplementedError

    def _op_creator(self, node: torch.fx.Node) -> CreateOp:
        def op(target: Callable[..., object], *args: object) -> torch.fx.Node:
            created = create_node(node.graph, target, args=args, from_node=node)
            mark_created_by(created, self)
            return created

        return op

    @staticmethod
    def _replace_outputs(
        node: torch.fx.Node, outputs: torch.fx.Node | tuple[torch.fx.Node, ...]
    ) -> None:
        if isinstance(outputs, torch.fx.Node):
            node.replace_all_uses_with(outputs)
        else:
            name = node.target.overloadpacket.__name__
            for user in list(node.users):
                if user.op != "call_function" or user.target != operator.getitem:
                    raise RuntimeError(
                        f"{node.name}: {name} output used by {user.name} ({user.target}); "
                        "only getitem users are supported"
                    )
                index = user.args[1]
                if not -len(outputs) <= index < len(outputs):
                    raise RuntimeError(
                        f"{user.name}: {name} has {len(outputs)} outputs, got index {index}"
                    )
                user.replace_all_uses_with(outputs[index])
                node.graph.erase_node(user)
        node.graph.erase_node(node)
