# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.


import torch
from executorch.backends.arm._passes.constant_folding_pass import ConstantFoldingPass
from executorch.exir.pass_base import ExportPass, PassResult
from torchao.quantization.pt2e.constant_fold import constant_fold


class FoldConstantsKeepMutableStatePass(ConstantFoldingPass):
    """Folds constant subgraphs, except reads of buffers the model writes.

    The annotation pipeline's ``ConstantFoldingPass`` uses torch's export folder, which
    treats every ``get_attr`` as a constant: a read of the recurrent state
    (``state * 2``, ``state.float()``) is evaluated once on the initial zeros and frozen
    into the graph, so the model forgets its state. torchao's folder (pinned with
    executorch) finds the buffers written by ``copy_`` and leaves every op that reads
    them in place. This pass folds with it and keeps the upstream guarantee that
    conv/linear weights stay parameters.
    """

    _passes_required_after: set[type[ExportPass]] = set()

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult:
        before = str(graph_module.graph)
        constant_fold(graph_module)
        modified = before != str(graph_module.graph)
        for node in graph_module.graph.nodes:
            if node.op == "call_function" and node.target in self.parameter_targets:
                for weight_or_bias in node.args[1:3]:
                    if isinstance(weight_or_bias, torch.fx.Node):
                        modified |= self._ensure_param_attr(graph_module, weight_or_bias)
        return PassResult(graph_module, modified)
