# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Float Silero VAD for Linux-class hosts, lowered with the release's XNNPACK backend.

A host with a vector unit has no reason to run the NPU's quantized arithmetic: this program
is float Silero itself (``SileroVAD`` with the package's weights, none of the NPU
arrangement), so it makes Silero's own decisions. Like every target, it takes the int16 PCM
frame (scaled by 2^-15 inside the program) and keeps its state ``[h, c]`` in a buffer of its
own, float32 here, written once per call. XNNPACK runs the network's arithmetic; ExecuTorch's
CPU kernels run the data movement around it (the STFT's reflection pad, slicing the state,
the state write).
"""

from __future__ import annotations

import hashlib
import time
import warnings
from importlib.metadata import version

import numpy as np
import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import (
    ExecutorchBackendConfig,
    ExecutorchProgramManager,
    to_edge_transform_and_lower,
)
from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass
from torch import nn

from examples.arm.silero_vad.model_export.audio import load_streams
from examples.arm.silero_vad.model_export.export_silero_vad import (
    ExportOptions,
    ExportResult,
    reference_path,
    write_report,
)
from examples.arm.silero_vad.model_export.frame_geometry import (
    PCM16_SCALE,
    FrameGeometry,
    frame_geometry,
)
from examples.arm.silero_vad.model_export.program_contract import (
    ProgramContractError,
    interface_violations,
)
from examples.arm.silero_vad.model_export.program_inspection import (
    ProgramSummary,
    inspect_program,
)
from examples.arm.silero_vad.model_export.silero_vad_model import (
    SileroVAD,
    float_probabilities,
    zero_state,
)
from examples.arm.silero_vad.model_export.stateful_silero_vad import STATE_BUFFER
from examples.arm.silero_vad.model_export.targets import XNNPACK_TARGET, program_role
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad

XNNPACK_BACKEND = "XnnpackBackend"
# The network's arithmetic, which must not fall back to the CPU's kernels.
_ARITHMETIC = ("aten::convolution", "aten::addmm", "aten::mm", "aten::linear", "aten::bmm")
# reference/<clip>.<kind>.bin of the program run on ExecuTorch's Python runtime.
PROGRAM_REFERENCE = "program"


class FloatStatefulSileroVAD(nn.Module):
    """``forward(frame) -> probability``: ``frame`` is ``(1, frame_samples)`` int16 PCM;
    ``[h, c]`` lives in the float32 buffer ``state``, zero at the start of a stream."""

    def __init__(self, model: SileroVAD) -> None:
        super().__init__()
        self.model = model
        self.register_buffer(STATE_BUFFER, zero_state())

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        audio = frame.to(torch.float32) * PCM16_SCALE  # exact: the float model's input
        probability, h, c = self.model.step(audio, self.state[0], self.state[1])
        self.state.copy_(torch.stack([h, c]))
        return probability


def lower_for_xnnpack(model: SileroVAD) -> ExecutorchProgramManager:
    """The stateful float model as an ExecuTorch program delegated to XNNPACK, the frame
    geometry in its constant methods and the state serialized as zeros."""
    # A parameter that requires grad makes the state's in-place copy_ fail at export.
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    geometry = model.geometry
    inputs = (torch.zeros(1, geometry.frame_samples, dtype=torch.int16),)
    exported = torch.export.export(FloatStatefulSileroVAD(model).eval(), inputs)
    edge = to_edge_transform_and_lower(
        exported, partitioner=[XnnpackPartitioner()], constant_methods=geometry.metadata()
    )
    with warnings.catch_warnings():
        # The emitter warns about every mutated buffer, even one the pass initializes.
        warnings.filterwarnings("ignore", "Mutation on a buffer", UserWarning)
        return edge.to_executorch(
            ExecutorchBackendConfig(passes=[InitializedMutableBufferPass([STATE_BUFFER])])
        )


def xnnpack_contract_violations(summary: ProgramSummary, geometry: FrameGeometry) -> list[str]:
    """How ``summary`` breaks the host program's contract: the runtime's interface (one int16
    frame in, one float32 probability out, the geometry in the metadata methods), one
    float32 state buffer that starts at zero and is written once per call, and the
    network's arithmetic in XNNPACK delegates (empty when it holds)."""
    problems = interface_violations(summary, geometry, np.int16, np.float32)
    if not summary.backends or set(summary.backends) != {XNNPACK_BACKEND}:
        problems.append(f"delegates to {list(summary.backends)}, expected {XNNPACK_BACKEND} only")
    on_cpu = sorted(op for op in summary.operator_calls if op.startswith(_ARITHMETIC))
    if on_cpu:
        problems.append(f"the network's arithmetic {on_cpu} runs on the CPU, not in XNNPACK")
    return problems


def program_stream_probabilities(pte_path, stream) -> np.ndarray:
    """The program's probabilities for one stream from its start, as ``StreamingVad`` (the
    product path) gives them."""
    vad = StreamingVad(pte_path)
    updates = [vad.process(stream.pcm), vad.finish()]
    return np.concatenate([update.probabilities for update in updates])


def export_xnnpack_program(options: ExportOptions) -> ExportResult:
    """Lowers float Silero at ``options.sample_rate``, checks the program and writes it with
    ``report.json`` and, per validation clip, ``reference/<clip>.float.bin`` (the eager
    float model) and ``reference/<clip>.program.bin`` (the program on ExecuTorch's Python
    runtime). Float Silero needs no calibration: the calibration clips are not read."""
    geometry = frame_geometry(options.sample_rate)
    validation = load_streams(options.validation_wavs, geometry)
    output_dir = options.output_dir
    output_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    float_model = SileroVAD.from_silero_package(options.sample_rate)
    program = lower_for_xnnpack(SileroVAD.from_silero_package(options.sample_rate))
    export_seconds = time.monotonic() - start

    summary = inspect_program(program.buffer)
    problems = xnnpack_contract_violations(summary, geometry)
    if problems:
        raise ProgramContractError(
            "the exported program breaks the runtime's contract: " + "; ".join(problems)
        )
    pte_path = output_dir / f"silero_vad_{XNNPACK_TARGET}.pte"
    pte_path.write_bytes(program.buffer)

    (output_dir / "reference").mkdir(exist_ok=True)
    for stream in validation:
        for kind, probabilities in (
            ("float", float_probabilities(float_model, stream)),
            (PROGRAM_REFERENCE, program_stream_probabilities(pte_path, stream)),
        ):
            probabilities.astype("<f4").tofile(reference_path(output_dir, stream.name, kind))

    report: dict = {
        "executorch_version": version("executorch"),
        "target": XNNPACK_TARGET,
        "program": program_role(XNNPACK_TARGET),
        "system_config": None,
        "memory_mode": None,
        "sample_rate": options.sample_rate,
        "audio_input": "int16",
        "geometry": geometry.metadata(),
        "pte": pte_path.name,
        "pte_bytes": len(program.buffer),
        "pte_sha256": hashlib.sha256(program.buffer).hexdigest(),
        "export_seconds": round(export_seconds, 1),
        "delegates": summary.delegates,
        "backends": sorted(set(summary.backends)),
        "portable_ops": summary.operator_calls,
        "model": {"activations": "float32", "weights": "float32", "state_dtype": "float32"},
        "calibration_clips": [],
        "validation_clips": [str(s.path) for s in validation],
    }
    write_report(output_dir, report)
    return ExportResult(report, pte_path, validation, None, float_model)
