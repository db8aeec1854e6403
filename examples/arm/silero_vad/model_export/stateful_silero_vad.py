# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD that owns its recurrent state, as an integer buffer, for export.

On the device the program keeps ``[h, c]`` between calls, so the runtime only feeds
audio and reads a probability. The audio is the int16 PCM frame itself (``"int16"``, the
default): the program reads it through an explicit dequantize with the scale 16-bit
audio implies (2^-15, zero point 0), which the Arm quantizer keeps inside the delegate
like the state's, so the CPU neither quantizes nor converts audio. ``"float"`` takes
float32 audio instead, which the CPU quantizes with calibrated qparams.

The state is stored as integers (int16 by default, int8 on request) and crosses the
model boundary through an explicit dequantize (read) and quantize (write) with fixed,
calibrated qparams: the Arm quantizer then sees an ordinary quantized tensor and keeps
both conversions inside the NPU delegate, instead of re-observing hand-made rounding on
the CPU.
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
STATE_DTYPES = {"int8": torch.int8, "int16": torch.int16}
# The program's audio input: int16 PCM frames (default) or float32 audio in [-1, 1).
AUDIO_INPUTS = ("int16", "float")
DEFAULT_AUDIO_INPUT = "int16"
_PCM16 = torch.iinfo(torch.int16)


@dataclass(frozen=True)
class StateQuantization:
    """Symmetric qparams of the state, one scale for h and one for c (zero point 0).

    h = o * tanh(c) stays in (-1, 1) while c grows to tens, so a shared scale would leave
    h a handful of levels; a zero point of 0 keeps the all-zero buffer an all-zero state.
    """

    h_scale: float
    c_scale: float
    dtype: str = "int16"

    @classmethod
    def from_bounds(cls, h_bound: float, c_bound: float, dtype: str = "int16") -> StateQuantization:
        if dtype not in STATE_DTYPES:
            raise ValueError(f"state dtype {dtype!r}: expected one of {sorted(STATE_DTYPES)}")
        if not (h_bound > 0 and c_bound > 0):
            raise ValueError(f"state bounds h={h_bound} c={c_bound}: calibration saw no audio?")
        qmax = torch.iinfo(STATE_DTYPES[dtype]).max
        return cls(h_scale=h_bound / qmax, c_scale=c_bound / qmax, dtype=dtype)

    @property
    def torch_dtype(self) -> torch.dtype:
        return STATE_DTYPES[self.dtype]

    @property
    def numpy_dtype(self) -> type:
        return {"int8": np.int8, "int16": np.int16}[self.dtype]

    @property
    def qmin_qmax(self) -> tuple[int, int]:
        info = torch.iinfo(self.torch_dtype)
        return info.min, info.max

    def to_dict(self) -> dict[str, float | int | str]:
        qmin, qmax = self.qmin_qmax
        return {**asdict(self), "zero_point": 0, "qmin": qmin, "qmax": qmax}


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
        zeros = torch.zeros(STATE_SHAPE, dtype=state_quantization.torch_dtype)
        self.register_buffer(STATE_BUFFER, zeros)

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        probability, new_state = self.step(frame)
        self.state.copy_(new_state)
        return probability

    def step(self, frame: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """One frame from the current state: the probability and the new integer state."""
        if self.audio_input == "int16":
            frame = _dequantize(frame, PCM16_SCALE, 0, _PCM16.min, _PCM16.max, torch.int16)
        q = self.state_quantization
        qmin, qmax = q.qmin_qmax
        dtype = q.torch_dtype
        h = _dequantize(self.state[0], q.h_scale, 0, qmin, qmax, dtype)
        c = _dequantize(self.state[1], q.c_scale, 0, qmin, qmax, dtype)
        probability, h_next, c_next = self.model.step(frame, h, c)
        new_state = torch.stack(
            [
                _quantize(h_next, q.h_scale, 0, qmin, qmax, dtype),
                _quantize(c_next, q.c_scale, 0, qmin, qmax, dtype),
            ]
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
    """Runs a stateful model (eager, prepared or quantized) over one stream from zero state.

    ``frames`` are in the model's input format (``program_frames``).
    """
    reset_state(module)
    probabilities = np.empty(frames.shape[0], dtype=np.float32)
    for index, frame in enumerate(torch.from_numpy(frames)):
        probabilities[index] = module(frame.unsqueeze(0)).item()
    return probabilities
