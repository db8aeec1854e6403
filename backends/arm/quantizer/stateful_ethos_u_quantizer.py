# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""EthosUQuantizer for models that own recurrent state."""

import torch
from executorch.backends.arm.ethosu import EthosUCompileSpec
from executorch.backends.arm.quantizer.arm_quantizer import EthosUQuantizer
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from backends.arm._passes.decompose_lstm_cell_pass import DecomposeLstmCellPass
from backends.arm._passes.pass_provenance import created_by
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

    ``lstm_gate_input_activation`` and ``lstm_gate_weight``, when given, quantize the
    inputs (the cell input and the hidden state, as they enter them) and the weights of
    the cell's two gate products with those specs instead of the global config, which
    everything else keeps. A one-row product streams each weight once per step: Vela's
    Ethos-U85 cost for it follows the input width (8-bit inputs halve it) and the bytes
    of weights read from memory, while the gate pre-activations, the nonlinearities and
    the state can keep 16 bits.
    """

    def __init__(
        self,
        compile_spec: EthosUCompileSpec,
        lstm_gate_input_activation: QuantizationSpec | None = None,
        lstm_gate_weight: QuantizationSpec | None = None,
    ) -> None:
        super().__init__(compile_spec)
        self.lstm_gate_input_activation = lstm_gate_input_activation
        self.lstm_gate_weight = lstm_gate_weight

    def transform_for_annotation(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        model = PreserveMutableBuffersPass(DecomposeLstmCellPass(tfa_pass=True))(model).graph_module
        with use_stateful_arm_pass_manager():
            return super().transform_for_annotation(model)

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        model = super().annotate(model)
        overrides = {0: self.lstm_gate_input_activation, 1: self.lstm_gate_weight}
        for node in lstm_gate_products(model):
            input_qspecs = node.meta["quantization_annotation"].input_qspec_map
            for index, spec in overrides.items():
                if spec is not None:
                    input_qspecs[node.args[index]] = spec
        return model


def lstm_gate_products(graph_module: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """The gate products (``linear`` nodes) that DecomposeLstmCellPass created."""
    return [
        node
        for node in graph_module.graph.find_nodes(
            op="call_function", target=DecomposeLstmCellPass._linear
        )
        if created_by(node) == DecomposeLstmCellPass.__name__
    ]
