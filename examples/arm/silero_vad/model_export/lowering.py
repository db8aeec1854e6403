# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""PT2E quantization of the stateful model and its lowering to an ExecuTorch program.

The release's recipe (export, prepare_pt2e, calibrate, convert_pt2e, export,
to_edge_transform_and_lower, to_executorch) with the stateful pieces of ``backends/arm``.
The ``cpu`` target lowers the same quantized model without a delegate. Every program
carries its frame geometry as constant methods, which the C++ runtime reads.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable, Sequence
from operator import attrgetter
from pathlib import Path

import executorch.kernels.quantized  # noqa: F401  (registers the q/dq out variants)
import torch
from executorch.backends.arm.common.arm_compile_spec import ArmCompileSpec
from executorch.backends.arm.ethosu import EthosUCompileSpec
from executorch.backends.arm.quantizer import get_symmetric_quantization_config
from executorch.exir import (
    EdgeCompileConfig,
    ExecutorchBackendConfig,
    ExecutorchProgramManager,
    to_edge_transform_and_lower,
)
from executorch.exir.lowered_backend_module import get_lowered_backend_modules
from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
from torchao.quantization.pt2e.quantizer import QuantizationConfig

from backends.arm._passes.fold_scalar_mul_into_qparams_pass import FoldScalarMulIntoQParamsPass
from backends.arm._passes.preserve_mutable_buffers_pass import mutable_buffers
from backends.arm._passes.stateful_arm_pass_manager import use_stateful_arm_pass_manager
from backends.arm.ethosu.stateful_ethos_u_partitioner import StatefulEthosUPartitioner
from backends.arm.quantizer.stateful_ethos_u_quantizer import (
    LstmGateProductSpec,
    StatefulEthosUQuantizer,
)
from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.calibration import calibrate_observers
from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_16K, FrameGeometry
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    DEFAULT_AUDIO_INPUT,
    STATE_BUFFER,
    StatefulSileroVAD,
    check_audio_input,
    reset_state,
)
from examples.arm.silero_vad.model_export.vela_report import VELA_LOG


def example_inputs(
    geometry: FrameGeometry = GEOMETRY_16K, audio_input: str = DEFAULT_AUDIO_INPUT
) -> tuple[torch.Tensor]:
    """One frame of silence in the program's input format."""
    check_audio_input(audio_input)
    dtype = torch.int16 if audio_input == "int16" else torch.float32
    return (torch.zeros(1, geometry.frame_samples, dtype=dtype),)


def make_compile_spec(
    target: str, system_config: str | None, memory_mode: str | None, artifacts_dir: Path | None
) -> EthosUCompileSpec:
    """Ethos-U compile spec (None: the release's default); ``artifacts_dir`` receives the
    TOSA file and Vela's output."""
    spec = EthosUCompileSpec(target=target, system_config=system_config, memory_mode=memory_mode)
    if artifacts_dir is not None:
        spec.dump_intermediate_artifacts_to(str(artifacts_dir))
    return spec


def quantize(
    model: torch.nn.Module,
    inputs: tuple[torch.Tensor, ...],
    calibrate: Callable[[torch.nn.Module], None],
    compile_spec: EthosUCompileSpec,
    config: QuantizationConfig | None = None,
    lstm_gate_products: LstmGateProductSpec | None = None,
) -> torch.fx.GraphModule:
    """PT2E quantization (default int8; ``lstm_gate_products``: StatefulEthosUQuantizer);
    ``calibrate`` feeds data through the prepared model. Products with positive constants
    are folded into their readers' scales (FoldScalarMulIntoQParamsPass)."""
    exported = torch.export.export(model.eval(), inputs)
    # check_guards=False: a _guards_fn call_module would be rejected by the Arm passes.
    graph_module = exported.module(check_guards=False)
    quantizer = StatefulEthosUQuantizer(compile_spec, lstm_gate_products)
    quantizer.set_global(config or get_symmetric_quantization_config())
    prepared = prepare_pt2e(graph_module, quantizer)
    calibrate(prepared)
    return FoldScalarMulIntoQParamsPass()(convert_pt2e(prepared)).graph_module


def quantize_silero_vad(
    model: StatefulSileroVAD,
    calibration_streams: Sequence[AudioStream],
    compile_spec: EthosUCompileSpec,
    config: QuantizationConfig | None = None,
    lstm_gate_products: LstmGateProductSpec | None = None,
) -> torch.fx.GraphModule:
    """The stateful Silero VAD, calibrated stream by stream on real audio."""
    return quantize(
        model,
        example_inputs(model.model.geometry, model.audio_input),
        lambda prepared: calibrate_observers(prepared, calibration_streams, model.audio_input),
        compile_spec,
        config,
        lstm_gate_products,
    )


def fold_weight_dequantize(graph_module: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """Replaces dequantize ops on constant weights and biases by the floats they produce.

    For the host program: 1.4.1's portable kernels get a linear/conv wrong when its int8
    weight and int32 bias are dequantized in the program; the folded floats are exact and
    the same arithmetic.
    """
    graph = graph_module.graph
    written = {str(b.name) for b in mutable_buffers(graph_module)}
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target not in _WEIGHT_DEQUANTIZE:
            continue
        tensors = node.args[: _WEIGHT_DEQUANTIZE[node.target]]
        if not all(
            isinstance(a, torch.fx.Node) and a.op == "get_attr" and a.target not in written
            for a in tensors
        ):
            continue
        values = [attrgetter(str(a.target))(graph_module) for a in tensors]
        folded = node.target(*values, *node.args[len(tensors) :])
        name = f"{node.name}_folded"
        graph_module.register_buffer(name, folded)
        with graph.inserting_before(node):
            constant = graph.get_attr(name)
        node.replace_all_uses_with(constant)
        graph.erase_node(node)
    graph.eliminate_dead_code()
    graph_module.recompile()
    return graph_module


# Dequantize ops whose leading tensor arguments are constants when they read a weight.
_WEIGHT_DEQUANTIZE = {
    torch.ops.quantized_decomposed.dequantize_per_channel.default: 3,
    torch.ops.quantized_decomposed.dequantize_per_tensor.default: 1,
}


def lower(
    quantized: torch.nn.Module,
    inputs: tuple[torch.Tensor, ...],
    compile_spec: EthosUCompileSpec | None,
    metadata: dict[str, int] | None = None,
) -> ExecutorchProgramManager:
    """Lowers to an ExecuTorch program: Ethos-U delegate, or none when spec is None.

    The ``state`` buffer is serialized as zeros, so every run starts from a known state;
    ``metadata`` (name -> value) becomes constant methods of the program. What Vela prints
    goes to ``VELA_LOG`` in the spec's artifacts folder, whose path stays out of the program.
    """
    if STATE_BUFFER in dict(quantized.named_buffers()):
        reset_state(quantized)  # calibration left its last state in the buffer
    if compile_spec is None:
        quantized = fold_weight_dequantize(quantized)
    exported = torch.export.export(quantized, inputs)
    partitioners = [] if compile_spec is None else [StatefulEthosUPartitioner(compile_spec)]
    # Vela prints its network summary on stdout; keep it out of the caller's output.
    vela_output = io.StringIO()
    with use_stateful_arm_pass_manager(), contextlib.redirect_stdout(vela_output):
        edge = to_edge_transform_and_lower(
            exported,
            partitioner=partitioners,
            compile_config=EdgeCompileConfig(_check_ir_validity=False),
            constant_methods=metadata,
        )
    artifacts = compile_spec and compile_spec.path_for_intermediates
    if artifacts:
        (Path(artifacts) / VELA_LOG).write_text(vela_output.getvalue())
    _forget_artifacts_path(edge.exported_program().graph_module)
    with warnings.catch_warnings():
        # The emitter warns about every mutated buffer, even one the pass initializes.
        warnings.filterwarnings("ignore", "Mutation on a buffer", UserWarning)
        return edge.to_executorch(
            ExecutorchBackendConfig(passes=[InitializedMutableBufferPass([STATE_BUFFER])])
        )


def _forget_artifacts_path(graph_module: torch.fx.GraphModule) -> None:
    """Drops the artifacts folder from the delegates' compile specs: the backend used it
    while lowering, and in the program it would name a folder of the build machine."""
    for delegate in get_lowered_backend_modules(graph_module):
        delegate._compile_specs = [
            spec
            for spec in delegate.compile_specs
            if spec.key != ArmCompileSpec._DEBUG_ARTIFACT_KEY
        ]
