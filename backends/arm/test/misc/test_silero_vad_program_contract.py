# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The export's last check: each way a program can break the runtime's contract is named."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_8K, GEOMETRY_16K
from examples.arm.silero_vad.model_export.program_contract import (
    ProgramContractError,
    check_program_contract,
    contract_violations,
)
from examples.arm.silero_vad.model_export.program_inspection import (
    MutableBufferInfo,
    ProgramSummary,
    TensorQuantization,
    TensorSpec,
)

STATE = MutableBufferInfo(np.int16, (2, 1, 128), np.zeros((2, 1, 128), dtype=np.int16))
GOOD = ProgramSummary(
    delegates=1,
    operator_calls={"aten::copy_": 1, "quantized_decomposed::dequantize_per_tensor.out": 1},
    mutable_buffers=[STATE],
    input_quantization=None,
    output_quantization=TensorQuantization(1 / 32768, 0, -32768, 32767, np.int16),
    inputs=[TensorSpec(np.int16, (1, 576))],
    outputs=[TensorSpec(np.float32, (1, 1))],
    metadata={"sample_rate": 16000, "hop_samples": 512, "context_samples": 64},
)


def _violations(summary: ProgramSummary, **options) -> list[str]:
    arguments = dict(geometry=GEOMETRY_16K, audio_input="int16", on_npu=True)
    return contract_violations(summary, **(arguments | options))


def test_the_deployed_shape_passes() -> None:
    assert _violations(GOOD) == []
    check_program_contract(GOOD, GEOMETRY_16K, "int16", on_npu=True)


DEQUANTIZE = "quantized_decomposed::dequantize_per_tensor.out"
QUANTIZE = "quantized_decomposed::quantize_per_tensor.out"

# Named ways to break the contract, each with the words its message must contain.
BROKEN = {
    "state_write_removed": (
        replace(GOOD, mutable_buffers=[], operator_calls={DEQUANTIZE: 1}),
        "0 mutable buffer(s) and 0 state write(s) per call, expected one of each",
    ),
    "state_written_twice": (
        replace(GOOD, operator_calls={"aten::copy_": 2, DEQUANTIZE: 1}),
        "2 state write(s)",
    ),
    "state_not_zero_at_start": (
        replace(
            GOOD,
            mutable_buffers=[replace(STATE, initial_value=np.ones((2, 1, 128), np.int16))],
        ),
        "does not start at zero",
    ),
    "state_initial_value_not_serialized": (
        replace(GOOD, mutable_buffers=[replace(STATE, initial_value=None)]),
        "does not start at zero",
    ),
    "state_of_another_dtype": (
        replace(GOOD, mutable_buffers=[replace(STATE, dtype=np.int8)]),
        "state buffer int8 (2, 1, 128), expected int16",
    ),
    "float_input": (
        replace(GOOD, inputs=[TensorSpec(np.float32, (1, 576))]),
        "inputs [TensorSpec(dtype=<class 'numpy.float32'>",
    ),
    "frame_without_context": (
        replace(GOOD, inputs=[TensorSpec(np.int16, (1, 512))]),
        "shape=(1, 512)",
    ),
    "two_outputs": (
        replace(GOOD, outputs=[TensorSpec(np.float32, (1, 1))] * 2),
        "outputs",
    ),
    "no_metadata": (replace(GOOD, metadata={}), "metadata methods {}"),
    "audio_quantized_on_the_cpu": (
        replace(GOOD, operator_calls={**GOOD.operator_calls, QUANTIZE: 1}),
        "expected only the boundary ones",
    ),
    "operator_fell_back_to_the_cpu": (
        replace(GOOD, operator_calls={**GOOD.operator_calls, "aten::sigmoid.out": 1}),
        "aten::sigmoid.out",
    ),
    "split_into_two_delegates": (replace(GOOD, delegates=2), "2 delegates, expected one"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_each_broken_program_is_refused_with_its_reason(name: str) -> None:
    summary, words = BROKEN[name]
    problems = _violations(summary)
    assert problems, name
    assert any(words in problem for problem in problems), problems
    with pytest.raises(ProgramContractError, match="breaks the runtime's contract"):
        check_program_contract(summary, GEOMETRY_16K, "int16", on_npu=True)


def test_float_input_programs_may_quantize_audio_on_the_cpu() -> None:
    summary = replace(
        GOOD,
        inputs=[TensorSpec(np.float32, (1, 576))],
        operator_calls={**GOOD.operator_calls, QUANTIZE: 1},
    )
    assert _violations(summary, audio_input="float") == []


def test_the_8khz_model_has_its_own_geometry() -> None:
    summary = replace(
        GOOD,
        inputs=[TensorSpec(np.int16, (1, 288))],
        metadata={"sample_rate": 8000, "hop_samples": 256, "context_samples": 32},
    )
    assert _violations(summary, geometry=GEOMETRY_8K) == []
    assert _violations(summary) != []  # not a 16 kHz program


def test_cpu_programs_run_everything_on_the_cpu_but_own_the_state() -> None:
    summary = replace(
        GOOD, delegates=0, operator_calls={**GOOD.operator_calls, "aten::sigmoid.out": 3}
    )
    assert _violations(summary, on_npu=False) == []
    assert "delegate(s) in a CPU program" in " ".join(_violations(GOOD, on_npu=False))
