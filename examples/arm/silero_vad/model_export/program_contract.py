# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What every exported Silero VAD program must be, checked before the export writes it.

The C++ runtime (host and bare metal) and the device twin rely on this contract. A
release of executorch that moves what our passes patch could lose the state or push an
operator to the CPU without any error; checking the serialized program itself turns that
into a clear failure at export time:

- ``forward`` takes one audio frame, ``(1, frame_samples)`` int16 PCM (or float32 for a
  float-input program), and returns one float32 probability ``(1, 1)``;
- the program owns exactly one mutable int16 state buffer ``(2, 1, 128)``, serialized as
  zeros, and writes it exactly once per call;
- the metadata methods give the frame geometry (``frame_geometry.PROGRAM_METADATA``);
- an Ethos-U program runs in one delegate, and the CPU runs only the boundary operators:
  the probability's dequantize, the state write and, with float input, the audio's
  quantize.
"""

from __future__ import annotations

import numpy as np

from examples.arm.silero_vad.model_export.frame_geometry import FrameGeometry
from examples.arm.silero_vad.model_export.program_inspection import ProgramSummary, TensorSpec
from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE

STATE_WRITE = "aten::copy_"
PROBABILITY_DEQUANTIZE = "quantized_decomposed::dequantize_per_tensor.out"
AUDIO_QUANTIZE = "quantized_decomposed::quantize_per_tensor.out"
_INPUT_DTYPES = {"int16": np.int16, "float": np.float32}
_STATE_DTYPE = np.int16


class ProgramContractError(RuntimeError):
    """The exported program breaks the runtime's contract; the message says how."""


def interface_violations(
    summary: ProgramSummary,
    geometry: FrameGeometry,
    input_dtype: type[np.generic],
    state_dtype: type[np.generic],
) -> list[str]:
    """How ``summary`` breaks what every runtime relies on, whatever runs the network: one
    frame in, one float32 probability out, the geometry in the metadata methods, one state
    buffer that starts at zero and is written once per call (empty when it holds)."""
    problems = []
    expected_input = TensorSpec(input_dtype, (1, geometry.frame_samples))
    if summary.inputs != [expected_input]:
        problems.append(f"inputs {summary.inputs}, expected [{expected_input}]")
    expected_output = TensorSpec(np.float32, (1, 1))
    if summary.outputs != [expected_output]:
        problems.append(f"outputs {summary.outputs}, expected [{expected_output}]")
    if summary.metadata != geometry.metadata():
        problems.append(f"metadata methods {summary.metadata}, expected {geometry.metadata()}")

    writes = summary.operator_calls.get(STATE_WRITE, 0)
    if len(summary.mutable_buffers) != 1 or writes != 1:
        problems.append(
            f"{len(summary.mutable_buffers)} mutable buffer(s) and {writes} state write(s) "
            "per call, expected one of each: the program-owned state was lost"
        )
    for buffer in summary.mutable_buffers:
        if buffer.shape != STATE_SHAPE or buffer.dtype is not state_dtype:
            problems.append(
                f"state buffer {buffer.dtype.__name__ if buffer.dtype else '?'} "
                f"{buffer.shape}, expected {state_dtype.__name__} {STATE_SHAPE}"
            )
        if buffer.initial_value is None or np.any(buffer.initial_value):
            problems.append("the state buffer does not start at zero in the program")
    return problems


def contract_violations(
    summary: ProgramSummary, geometry: FrameGeometry, audio_input: str, on_npu: bool
) -> list[str]:
    """Every way ``summary`` breaks the contract (empty when it holds)."""
    problems = interface_violations(summary, geometry, _INPUT_DTYPES[audio_input], _STATE_DTYPE)
    if on_npu:
        if summary.delegates != 1:
            problems.append(f"{summary.delegates} delegates, expected one")
        expected_cpu = {PROBABILITY_DEQUANTIZE: 1, STATE_WRITE: 1}
        if audio_input == "float":
            expected_cpu[AUDIO_QUANTIZE] = 1
        if summary.operator_calls != expected_cpu:
            problems.append(
                f"CPU operators {summary.operator_calls}, expected only the boundary ones "
                f"{expected_cpu}"
            )
    elif summary.delegates:
        problems.append(f"{summary.delegates} delegate(s) in a CPU program")
    return problems


def check_program_contract(
    summary: ProgramSummary, geometry: FrameGeometry, audio_input: str, on_npu: bool
) -> None:
    """Raises ProgramContractError naming every violation."""
    problems = contract_violations(summary, geometry, audio_input, on_npu)
    if problems:
        raise ProgramContractError(
            "the exported program breaks the runtime's contract: " + "; ".join(problems)
        )
