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

    The release's ``ConstantFoldingPass`` treats every ``get_attr`` as constant and freezes
    reads of the recurrent state on its initial zeros. torchao's folder leaves ops reading
    ``copy_`` destinations in place; this pass folds with it and, like upstream, keeps
    conv/linear weights as parameters.
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
