# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import math
from operator import attrgetter

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.exir.pass_base import ExportPass, PassResult

from backends.arm._passes.preserve_mutable_buffers_pass import mutable_buffers


class FoldScalarMulIntoQParamsPass(ArmPass):
    """Folds a multiplication by a positive constant scalar into a dequantize scale.

    Matches, in a PT2E-converted graph (quantize/dequantize nodes around every op),

        y = quantize(dequantize(x_q, s, z) * c, s_y, z_y)     with c a constant > 0

    and makes every ``dequantize(y, s_y, z_y)`` read ``x_q`` with scale ``s * c``: the
    same function without the product's second rounding, and on Ethos-U one multiply and
    its three rescales fewer (1.4.1 does not fuse them).

    Left alone: a non-constant (or written buffer), negative or non-scalar factor, and a
    product whose folding would make a consumer read the same integers as another node of
    its op: once dequantizes fold into qparams the two would look identical and be merged
    whatever their scales.
    """

    _passes_required_after: set[type[ExportPass]] = set()

    _mul = torch.ops.aten.mul.Tensor
    _quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default
    _dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        graph = graph_module.graph
        modified = False
        written = {buffer.name for buffer in mutable_buffers(graph_module)}
        for mul in list(graph.find_nodes(op="call_function", target=self._mul)):
            match = self._match(graph_module, mul, written)
            if match is None:
                continue
            dequantized_input, factor = match
            quantized, scale, zero_point, *quant_range = dequantized_input.args
            if self._would_duplicate(graph, mul, quantized):
                continue
            for requantize in list(mul.users):
                for dequantize in list(requantize.users):
                    with graph.inserting_before(dequantize):
                        scaled = graph.call_function(
                            self._dequantize, (quantized, scale * factor, zero_point, *quant_range)
                        )
                    scaled.meta = dict(dequantize.meta)
                    dequantize.replace_all_uses_with(scaled)
                    graph.erase_node(dequantize)
                graph.erase_node(requantize)
            graph.erase_node(mul)
            modified = True
        if modified:
            graph.eliminate_dead_code()
            graph_module.recompile()
        return PassResult(graph_module, modified)

    def _integer_signature(self, node: torch.fx.Node, replaced=None, source=None) -> tuple:
        """``node``'s op and arguments with dequantizes seen through to their integers
        (``replaced`` read as ``source``): what is left once the qparams are folded."""

        def integers(argument):
            if argument is replaced:
                return source
            if isinstance(argument, torch.fx.Node) and argument.target == self._dequantize:
                return argument.args[0]
            return argument

        return (node.target, tuple(integers(argument) for argument in node.args))

    def _would_duplicate(
        self, graph: torch.fx.Graph, mul: torch.fx.Node, source: torch.fx.Node
    ) -> bool:
        consumers = {
            consumer: dequantize
            for requantize in mul.users
            for dequantize in requantize.users
            for consumer in dequantize.users
        }
        others = {
            self._integer_signature(node)
            for node in graph.nodes
            if node.op == "call_function" and node not in consumers
        }
        return any(
            self._integer_signature(consumer, dequantize, source) in others
            for consumer, dequantize in consumers.items()
        )

    def _match(
        self, graph_module: torch.fx.GraphModule, mul: torch.fx.Node, written: set[str]
    ) -> tuple[torch.fx.Node, float] | None:
        """(the dequantized operand, the constant factor), or None if ``mul`` does not fit."""
        if len(mul.args) != 2 or mul.kwargs:
            return None
        # The product must reach the graph only through quantize -> dequantize.
        if not mul.users or not all(
            user.target == self._quantize
            and user.users
            and all(consumer.target == self._dequantize for consumer in user.users)
            for user in mul.users
        ):
            return None
        for operand, other in (mul.args, reversed(mul.args)):
            if not (isinstance(operand, torch.fx.Node) and operand.target == self._dequantize):
                continue
            factor = self._constant_scalar(graph_module, other, written)
            if factor is not None and factor > 0 and math.isfinite(factor):
                return operand, factor
        return None

    def _constant_scalar(
        self, graph_module: torch.fx.GraphModule, operand, written: set[str]
    ) -> float | None:
        """The value of a one-element constant: a number, a tensor, or one behind a
        dequantize (stored as integers, or as a float and its quantize)."""
        if isinstance(operand, (int, float)):
            return float(operand)
        if getattr(operand, "target", None) != self._dequantize:
            return self._attribute_scalar(graph_module, operand, written)
        source = operand.args[0]
        if isinstance(source, torch.fx.Node) and source.target == self._quantize:
            return self._attribute_scalar(graph_module, source.args[0], written)
        integers = self._attribute_scalar(graph_module, source, written, floating=False)
        if integers is None:
            return None
        scale, zero_point = operand.args[1:3]
        return (integers - zero_point) * scale

    def _attribute_scalar(
        self, graph_module: torch.fx.GraphModule, node, written: set[str], floating: bool = True
    ) -> float | None:
        """The value of a one-element constant attribute, never of a buffer the model writes."""
        if not (isinstance(node, torch.fx.Node) and node.op == "get_attr"):
            return None
        name = str(node.target)
        if name in written:
            return None
        value = attrgetter(name)(graph_module)
        if not (
            isinstance(value, torch.Tensor)
            and value.numel() == 1
            and value.is_floating_point() == floating
        ):
            return None
        return float(value.item())
