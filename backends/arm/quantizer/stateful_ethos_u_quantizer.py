# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""EthosUQuantizer for models that own recurrent state."""

import torch
from executorch.backends.arm.quantizer.arm_quantizer import EthosUQuantizer

from backends.arm._passes.decompose_lstm_cell_pass import DecomposeLstmCellPass
from backends.arm._passes.preserve_mutable_buffers_pass import PreserveMutableBuffersPass
from backends.arm._passes.stateful_arm_pass_manager import use_stateful_arm_pass_manager


class StatefulEthosUQuantizer(EthosUQuantizer):
    """Quantizes LSTM cells and model-owned state for Ethos-U.

    Before the release's annotation pipeline runs, ``aten.lstm_cell`` is decomposed
    (``DecomposeLstmCellPass``) so its gates are annotated and lowered like any other
    op; the pipeline itself runs under ``StatefulArmPassManager``, which keeps mutable
    buffers (names, storage, reads) intact through every transform.

    Releases from 1.5.1 decompose ``lstm_cell`` in that pipeline too
    (``DecomposeLstmPass``); running ours first leaves it no cell, so the graph, and the
    quantization of each gate, is the same on every release (see
    ``backends/arm/_passes/upstream_capabilities.py``).
    """

    def transform_for_annotation(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        model = PreserveMutableBuffersPass(DecomposeLstmCellPass(tfa_pass=True))(model).graph_module
        with use_stateful_arm_pass_manager():
            return super().transform_for_annotation(model)
