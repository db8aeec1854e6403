# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""TOSA and Ethos-U quantizers for models that own recurrent state."""

from dataclasses import dataclass

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.backends.arm.common.arm_compile_spec import ArmCompileSpec
from executorch.backends.arm.quantizer.arm_quantizer import EthosUQuantizer, TOSAQuantizer
from torchao.quantization.pt2e.quantizer import QuantizationSpec, SharedQuantizationSpec

from backends.arm._passes.convert_lstm_to_cells_pass import ConvertLstmToCellsPass
from backends.arm._passes.decompose_gru_cell_pass import DecomposeGruCellPass
from backends.arm._passes.decompose_lstm_cell_pass import DecomposeLstmCellPass
from backends.arm._passes.decompose_rnn_cell_pass import DecomposeRnnCellPass
from backends.arm._passes.pass_provenance import created_by
from backends.arm._passes.preserve_mutable_buffers_pass import PreserveMutableBuffersPass
from backends.arm._passes.stateful_arm_pass_manager import use_stateful_arm_pass_manager


@dataclass(frozen=True)
class LstmGateProductSpec:
    """The LSTM gate products' input and weight specs (None: the global config's)."""

    input_activation: QuantizationSpec | None = None
    weight: QuantizationSpec | None = None


class StatefulTOSAQuantizer(TOSAQuantizer):
    """Quantizes recurrent cells and model-owned state for the Arm backend (TOSA, Ethos-U).

    LSTM, GRU and RNN cells, and one-direction ``nn.LSTM`` layers, are decomposed into gates
    (``cell_decompositions``) before the release's annotation pipeline, which runs under
    ``StatefulArmPassManager`` so mutable buffers survive it; the gates quantize alike on
    every release (``upstream_capabilities``).

    ``lstm_gate_products`` gives the gate products' inputs and weights their own specs:
    Vela's cost of a one-row product follows its input width and weight bytes, while the
    pre-activations, nonlinearities and state keep 16 bits.
    """

    # In this order: the LSTM's layers become cells before the cells become gates.
    cell_decompositions: tuple[type[ArmPass], ...] = (
        ConvertLstmToCellsPass,
        DecomposeLstmCellPass,
        DecomposeGruCellPass,
        DecomposeRnnCellPass,
    )

    def __init__(
        self, compile_spec: ArmCompileSpec, lstm_gate_products: LstmGateProductSpec | None = None
    ) -> None:
        super().__init__(compile_spec)
        self.lstm_gate_products = lstm_gate_products or LstmGateProductSpec()

    def transform_for_annotation(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        for decompose in self.cell_decompositions:
            model = PreserveMutableBuffersPass(decompose(tfa_pass=True))(model).graph_module
        with use_stateful_arm_pass_manager():
            return super().transform_for_annotation(model)

    def annotate(self, model: torch.fx.GraphModule) -> torch.fx.GraphModule:
        model = super().annotate(model)
        _share_explicit_dequantize_readers(model)
        specs = self.lstm_gate_products
        overrides = {0: specs.input_activation, 1: specs.weight}
        for node in lstm_gate_product_nodes(model):
            input_qspecs = node.meta["quantization_annotation"].input_qspec_map
            for index, spec in overrides.items():
                if spec is not None:
                    input_qspecs[node.args[index]] = spec
        return model


class StatefulEthosUQuantizer(StatefulTOSAQuantizer, EthosUQuantizer):
    """``StatefulTOSAQuantizer`` for an Ethos-U compile spec (all ``EthosUQuantizer`` adds)."""


_DEQUANTIZE = torch.ops.quantized_decomposed.dequantize_per_tensor.default


def _share_explicit_dequantize_readers(model: torch.fx.GraphModule) -> None:
    """Every reader of an explicit dequantize (integer input or state) shares the first
    reader's spec: one tensor, one observer. Specs annotated reader by reader could make
    torchao's union-find recurse forever in prepare_pt2e."""
    for dequantize in model.graph.find_nodes(op="call_function", target=_DEQUANTIZE):
        readers = [user for user in dequantize.users if dequantize in _input_specs(user)]
        for reader in readers[1:]:
            _input_specs(reader)[dequantize] = SharedQuantizationSpec((dequantize, readers[0]))


def _input_specs(node: torch.fx.Node) -> dict:
    annotation = node.meta.get("quantization_annotation")
    return annotation.input_qspec_map if annotation is not None else {}


def lstm_gate_product_nodes(graph_module: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """The gate products (``linear`` nodes) that DecomposeLstmCellPass created."""
    return [
        node
        for node in graph_module.graph.find_nodes(
            op="call_function", target=DecomposeLstmCellPass._linear
        )
        if created_by(node) == DecomposeLstmCellPass.__name__
    ]
