# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Our stateful pieces in the release's test pipelines (``tester.test_pipeline``).

The release's pipelines (``TosaPipelineINT``, ``EthosU85PipelineINT``, ...) quantize,
lower and check a model in stages, with the release's quantizer and partitioner. A model
that owns its state needs ours, and the example's steps around them; each goes in
through a customization point the pipelines offer:

- the ``quantize`` stage: ``ArmQuantize`` with ``StatefulTOSAQuantizer`` (or
  ``StatefulEthosUQuantizer``), the given config, calibrated on the given samples in
  order (a stream: the state carries from one sample to the next);
- a stage after it: what the example does after ``convert_pt2e``
  (``FoldScalarMulIntoQParamsPass``), and the state buffers back to their initial values;
- a stage before ``to_edge_transform_and_lower``: the state buffers back to their
  initial values again, so the program starts where the example's does;
- ``to_edge_transform_and_lower``: the stateful partitioner (the state stays an
  ExecuTorch buffer) and the program's constant methods;
- ``to_executorch``: the state's initial values serialized (``InitializedMutableBufferPass``);
- ``run_stateful``: ``run()`` inside ``use_stateful_arm_pass_manager()``.

``step_lowered_program`` then runs the lowered program frame by frame with its state
carried, the delegate on the TOSA reference model (an Ethos-U delegate's TOSA from the
artifacts folder: the device's host twin).

Why the state is reset twice: the harness's quantize stage captures the model with
``export(...).module()``, which shares the eager model's buffer tensors, and the exported
program shares the quantized model's. Every reference run (calibration, the comparison
with the float model) moves that one state. The quantized model gets tensors of its own,
and the lowered program and the model it is compared with start from the same state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import executorch.kernels.quantized  # noqa: F401  (registers the q/dq out variants)
import torch
from executorch.backends.arm.common.arm_compile_spec import ArmCompileSpec
from executorch.backends.arm.ethosu import EthosUCompileSpec
from executorch.backends.arm.test.runner_utils import TosaReferenceModelDispatch, run_tosa_graph
from executorch.backends.arm.test.tester.arm_tester import ToEdgeTransformAndLower, ToExecutorch
from executorch.backends.arm.test.tester.quantize import ArmQuantize
from executorch.backends.arm.test.tester.test_pipeline import BasePipeline
from executorch.backends.test.harness.stages import StageType
from executorch.exir import ExecutorchBackendConfig, ExecutorchProgramManager, ExportedProgram
from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
from torch.export.graph_signature import InputKind, OutputKind
from torchao.quantization.pt2e.quantizer import QuantizationConfig

from backends.arm._passes import FoldScalarMulIntoQParamsPass, use_stateful_arm_pass_manager
from backends.arm._passes.preserve_mutable_buffers_pass import register_buffer
from backends.arm.ethosu.stateful_ethos_u_partitioner import StatefulEthosUPartitioner
from backends.arm.quantizer.stateful_ethos_u_quantizer import (
    LstmGateProductSpec,
    StatefulEthosUQuantizer,
    StatefulTOSAQuantizer,
)
from backends.arm.tosa.stateful_tosa_partitioner import StatefulTOSAPartitioner
from examples.arm.silero_vad.model_export.lowering import lower, make_compile_spec, quantize
from examples.arm.silero_vad.model_export.program_inspection import (
    ProgramSummary,
    inspect_program,
)
from examples.arm.silero_vad.model_export.targets import DEFAULT_NPU_TARGET
from examples.arm.silero_vad.model_export.vela_report import VelaReport, run_vela

# Edge-dialect code of a lowered graph: every operator left outside the delegate is a
# call of an edge op, so counting the prefix counts them all.
DELEGATE = "torch.ops.higher_order.executorch_call_delegate"
EDGE_OP = "executorch_exir_dialects_edge__ops_"
EDGE_QUANTIZE = (
    "executorch_exir_dialects_edge__ops_quantized_decomposed_quantize_per_tensor_default"
)
EDGE_DEQUANTIZE = (
    "executorch_exir_dialects_edge__ops_quantized_decomposed_dequantize_per_tensor_default"
)


def use_stateful_pieces(
    pipeline: BasePipeline,
    config: QuantizationConfig,
    calibration: Sequence[tuple[torch.Tensor, ...]],
    state_buffers: Sequence[str],
    lstm_gate_products: LstmGateProductSpec | None = None,
    constant_methods: dict[str, int] | None = None,
    fold_scalar_mul: bool = True,
) -> None:
    """Plugs the stateful quantizer and partitioner, and the example's steps around them,
    into ``pipeline`` (see the module doc). ``state_buffers``: the buffers the model
    writes; they start every run from their values now. Call before ``run_stateful``.
    """
    tester = pipeline.tester
    spec = tester.compile_spec
    if isinstance(spec, EthosUCompileSpec):
        quantizer = StatefulEthosUQuantizer(spec, lstm_gate_products)
        partitioner = StatefulEthosUPartitioner(spec)
    else:
        quantizer = StatefulTOSAQuantizer(spec, lstm_gate_products)
        partitioner = StatefulTOSAPartitioner(spec)
    eager = tester.original_module
    initial = {name: eager.get_buffer(name).detach().clone() for name in state_buffers}

    def restore_initial_state(module: torch.nn.Module) -> None:
        for name, value in initial.items():
            module.get_buffer(name).copy_(value)

    def quantize_as_the_example_does() -> None:
        quantized = tester.get_artifact(StageType.QUANTIZE)
        if fold_scalar_mul:
            FoldScalarMulIntoQParamsPass()(quantized)
        for name, value in initial.items():
            register_buffer(quantized, name, value.clone())
        restore_initial_state(eager)

    def lower_from_initial_state() -> None:
        restore_initial_state(tester.get_artifact(StageType.QUANTIZE))

    pipeline.change_args(
        "quantize", ArmQuantize(quantizer, config, calibration_samples=list(calibration))
    )
    pipeline.add_stage_after("quantize", quantize_as_the_example_does)
    pipeline.add_stage(
        lower_from_initial_state, pos=pipeline.find_pos("to_edge_transform_and_lower")
    )
    pipeline.change_args(
        "to_edge_transform_and_lower",
        ToEdgeTransformAndLower([partitioner], constant_methods=constant_methods),
    )
    initialized = InitializedMutableBufferPass(list(state_buffers))
    pipeline.change_args(
        "to_executorch", ToExecutorch(ExecutorchBackendConfig(passes=[initialized]))
    )


def run_stateful(pipeline: BasePipeline) -> None:
    """Runs ``pipeline`` with the Arm backend building its pass pipelines statefully."""
    with use_stateful_arm_pass_manager():
        pipeline.run()


def check_vela_runs_everything_on_npu(pipeline: BasePipeline, artifacts_dir: Path) -> None:
    """Adds a stage after lowering: Vela, on the TOSA the lowering dumped to
    ``artifacts_dir`` (the pipeline's ``custom_path``), places every operator on the NPU.

    Vela can leave operators it cannot run to the CPU inside the delegate's command
    stream; the lowered graph does not show that, Vela's own summary does.
    """

    def vela_runs_everything_on_npu() -> None:
        report = run_vela(artifacts_dir / "out.tosa", pipeline.tester.compile_spec.compiler_flags)
        assert report.cpu_ops == 0 and report.npu_ops > 0, report

    pipeline.add_stage_after("to_edge_transform_and_lower", vela_runs_everything_on_npu)


class _EthosUTwinDispatch(TosaReferenceModelDispatch):
    """Runs an Ethos-U delegate as its host twin: the TOSA that Vela compiled, on the TOSA
    reference model (the release's dispatch runs TOSA delegates only)."""

    def __init__(self, tosa: bytes, compile_spec: EthosUCompileSpec) -> None:
        super().__init__()
        self.tosa = tosa
        self.tosa_spec = compile_spec.tosa_spec

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch._higher_order_ops.executorch_call_delegate:
            lowered, *inputs = args
            self.ran_tosa_dispatch = True
            output = lowered.original_module.graph.output_node()
            return run_tosa_graph(self.tosa, self.tosa_spec, inputs, output)
        return super().__torch_function__(func, types, args, kwargs)


def lowered_program(pipeline: BasePipeline) -> ExportedProgram:
    """The program ``to_edge_transform_and_lower`` made (delegate and CPU operators)."""
    return pipeline.tester.get_artifact(StageType.TO_EDGE_TRANSFORM_AND_LOWER).exported_program()


def output_scales(program: ExportedProgram) -> list[float]:
    """The scale of each user output's dequantize (on the CPU, outside the delegate)."""
    outputs = program.graph.output_node().args[0]
    scales = []
    for spec, node in zip(program.graph_signature.output_specs, outputs, strict=True):
        if spec.kind == OutputKind.USER_OUTPUT:
            if "dequantize_per_tensor" not in str(getattr(node, "target", "")):
                raise AssertionError(f"output {node} is not read through a dequantize")
            scales.append(float(node.args[1]))
    return scales


def step_lowered_program(
    program: ExportedProgram,
    compile_spec: ArmCompileSpec,
    frames: Sequence[tuple[torch.Tensor, ...]],
    artifacts_dir: Path | None = None,
) -> list[list[torch.Tensor]]:
    """The user outputs of a lowered ``program`` for each of ``frames`` (its user inputs),
    run one after the other from its initial buffers, each mutated buffer carried to the
    next frame as the ExecuTorch runtime writes it back. A TOSA delegate runs on the TOSA
    reference model; an Ethos-U delegate as its host twin, from the TOSA the lowering left
    in ``artifacts_dir``."""
    if isinstance(compile_spec, EthosUCompileSpec):
        delegates = program.graph.find_nodes(
            op="call_function", target=torch._higher_order_ops.executorch_call_delegate
        )
        if artifacts_dir is None or len(delegates) != 1:
            raise ValueError(
                f"an Ethos-U program is stepped from its one delegate's TOSA in artifacts_dir "
                f"(got {len(delegates)} delegates, artifacts_dir {artifacts_dir})"
            )
        dispatch = _EthosUTwinDispatch((artifacts_dir / "out.tosa").read_bytes(), compile_spec)
    else:
        dispatch = TosaReferenceModelDispatch()
    signature = program.graph_signature
    values = {**program.state_dict, **program.constants}
    # Parameters, constants and buffers by name; mutated buffers take each frame's value.
    held = {spec.target: values[spec.target] for spec in signature.input_specs if spec.target}
    outputs = []
    with dispatch:
        for frame in frames:
            user_inputs = iter(frame)
            arguments = [
                next(user_inputs) if spec.kind == InputKind.USER_INPUT else held[spec.target]
                for spec in signature.input_specs
            ]
            results = program.graph_module(*arguments)
            outputs.append([])
            for spec, value in zip(signature.output_specs, results, strict=True):
                if spec.kind == OutputKind.BUFFER_MUTATION:
                    held[spec.target] = value
                elif spec.kind == OutputKind.USER_OUTPUT:
                    outputs[-1].append(value)
    return outputs


def program_summary(pipeline: BasePipeline) -> ProgramSummary:
    """What the serialized program of a pipeline that ran ``to_executorch`` contains."""
    program = pipeline.tester.get_artifact(StageType.TO_EXECUTORCH)
    return inspect_program(program.buffer)


@dataclass
class LoweredProgram:
    quantized: torch.fx.GraphModule
    program: ExecutorchProgramManager
    report: VelaReport


def lower_to_u85(
    model: torch.nn.Module,
    calibration: list[tuple[torch.Tensor, ...]],
    artifacts_dir: Path,
    config: QuantizationConfig | None = None,
    lstm_gate_products: LstmGateProductSpec | None = None,
) -> LoweredProgram:
    """The example's own flow (``lowering.quantize`` and ``lowering.lower``, U85-256 with
    the example's Vela settings), for tests of what that flow's Vela figures show; the
    pass and model tests use the release's pipelines instead (``use_stateful_pieces``).
    Calibrates in order; default int8."""
    spec = make_compile_spec(
        DEFAULT_NPU_TARGET, "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", artifacts_dir
    )

    def calibrate(prepared: torch.nn.Module) -> None:
        with torch.no_grad():
            for inputs in calibration:
                prepared(*inputs)

    quantized = quantize(model, calibration[0], calibrate, spec, config, lstm_gate_products)
    program = lower(quantized, calibration[0], spec)
    report = run_vela(artifacts_dir / "out.tosa", spec.compiler_flags)
    return LoweredProgram(quantized, program, report)
