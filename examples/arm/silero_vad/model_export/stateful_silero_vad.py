# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD that owns its recurrent state, as an int16 buffer, for export.

The runtime only feeds audio and reads a probability. The int16 PCM frame (default) and
the state are read through explicit dequantize nodes, and the state written through an
explicit quantize, with fixed qparams: the Arm quantizer then keeps all of them inside
the NPU delegate, and the CPU converts nothing. ``"float"`` audio is quantized by the CPU.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines the quantized_decomposed ops)
from torch import nn

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.frame_geometry import PCM16_SCALE
from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE, SileroVAD

STATE_BUFFER = "state"
_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default
# The program's audio input: int16 PCM frames (default) or float32 audio in [-1, 1).
AUDIO_INPUTS = ("int16", "float")
DEFAULT_AUDIO_INPUT = "int16"
_INT16 = torch.iinfo(torch.int16)


@dataclass(frozen=True)
class StateQuantization:
    """Symmetric int16 qparams of the state: h (in (-1, 1)) and c (tens) need their own
    scales; zero point 0 keeps the all-zero buffer an all-zero state."""

    h_scale: float
    c_scale: float

    @classmethod
    def from_bounds(cls, h_bound: float, c_bound: float) -> StateQuantization:
        if not (h_bound > 0 and c_bound > 0):
            raise ValueError(f"state bounds h={h_bound} c={c_bound}: calibration saw no audio?")
        return cls(h_scale=h_bound / _INT16.max, c_scale=c_bound / _INT16.max)

    def to_dict(self) -> dict[str, float | int | str]:
        qparams = {"dtype": "int16", "zero_point": 0, "qmin": _INT16.min, "qmax": _INT16.max}
        return {**asdict(self), **qparams}


def check_audio_input(audio_input: str) -> None:
    if audio_input not in AUDIO_INPUTS:
        raise ValueError(f"audio input {audio_input!r}: expected one of {', '.join(AUDIO_INPUTS)}")


class StatefulSileroVAD(nn.Module):
    """``forward(frame) -> probability``; ``[h, c]`` lives in the integer buffer ``state``.

    ``frame`` is ``(1, frame_samples)`` int16 PCM (``audio_input="int16"``) or float32
    audio (``"float"``).
    """

    def __init__(
        self,
        model: SileroVAD,
        state_quantization: StateQuantization,
        audio_input: str = DEFAULT_AUDIO_INPUT,
    ) -> None:
        super().__init__()
        check_audio_input(audio_input)
        self.model = model
        self.state_quantization = state_quantization
        self.audio_input = audio_input
        self.register_buffer(STATE_BUFFER, torch.zeros(STATE_SHAPE, dtype=torch.int16))

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        probability, new_state = self.step(frame)
        self.state.copy_(new_state)
        return probability

    def step(self, frame: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """One frame from the current state: the probability and the new integer state."""
        int16 = (_INT16.min, _INT16.max, torch.int16)
        if self.audio_input == "int16":
            frame = _dequantize(frame, PCM16_SCALE, 0, *int16)
        q = self.state_quantization
        h = _dequantize(self.state[0], q.h_scale, 0, *int16)
        c = _dequantize(self.state[1], q.c_scale, 0, *int16)
        probability, h_next, c_next = self.model.step(frame, h, c)
        new_state = torch.stack(
            [_quantize(h_next, q.h_scale, 0, *int16), _quantize(c_next, q.c_scale, 0, *int16)]
        )
        return probability, new_state


def reset_state(module: nn.Module) -> None:
    """Zeroes the ``state`` buffer of a stateful model, eager or quantized (a new stream)."""
    try:
        state = module.get_buffer(STATE_BUFFER)
    except AttributeError as error:
        raise RuntimeError(
            f"{type(module).__name__} has no '{STATE_BUFFER}' buffer: the state was lost "
            "during quantization (were the stateful Arm passes used?)"
        ) from error
    state.zero_()


def program_frames(stream: AudioStream, audio_input: str) -> np.ndarray:
    """A stream's frames in the program's input format (int16 PCM or float32 audio)."""
    check_audio_input(audio_input)
    return stream.frames if audio_input == "int16" else stream.float_frames


@torch.no_grad()
def stream_probabilities(module: nn.Module, frames: np.ndarray) -> np.ndarray:
    """Runs a stateful model (eager, prepared or quantized) over ``program_frames`` of one
    stream from zero state."""
    reset_state(module)
    probabilities = np.empty(frames.shape[0], dtype=np.float32)
    for index, frame in enumerate(torch.from_numpy(frames)):
        probabilities[index] = module(frame.unsqueeze(0)).item()
    return probabilities
