# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD that owns its recurrent state, as an int8 buffer, for export.

On the device the program keeps ``[h, c]`` between calls, so the runtime only feeds
audio and reads a probability. The state is stored as int8 and crosses the model
boundary through an explicit dequantize (read) and quantize (write) with fixed,
calibrated qparams: the Arm quantizer then sees an ordinary int8 tensor and keeps both
conversions inside the NPU delegate, instead of re-observing hand-made rounding on the CPU.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines the quantized_decomposed ops)
from torch import nn

from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE, SileroVAD

STATE_BUFFER = "state"
_QMIN, _QMAX = -128, 127
_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default


@dataclass(frozen=True)
class StateQuantization:
    """Symmetric int8 qparams of the ``[h, c]`` state (zero point 0: zeros stay zeros)."""

    scale: float
    zero_point: int = 0

    @classmethod
    def from_range(cls, low: float, high: float) -> StateQuantization:
        bound = max(abs(low), abs(high))
        if not bound > 0:
            raise ValueError(f"state range [{low}, {high}] is empty: calibration saw no audio?")
        return cls(scale=bound / _QMAX)

    def to_dict(self) -> dict[str, float | int]:
        return {**asdict(self), "dtype": "int8", "qmin": _QMIN, "qmax": _QMAX}


class StatefulSileroVAD(nn.Module):
    """``forward(frame) -> probability``; ``[h, c]`` lives in the int8 buffer ``state``."""

    def __init__(self, model: SileroVAD, state_quantization: StateQuantization) -> None:
        super().__init__()
        self.model = model
        self.state_quantization = state_quantization
        self.register_buffer(STATE_BUFFER, torch.zeros(STATE_SHAPE, dtype=torch.int8))

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        q = self.state_quantization
        state = _dequantize(self.state, q.scale, q.zero_point, _QMIN, _QMAX, torch.int8)
        probability, h, c = self.model.step(frame, state[0], state[1])
        new_state = _quantize(torch.stack([h, c]), q.scale, q.zero_point, _QMIN, _QMAX, torch.int8)
        self.state.copy_(new_state)
        return probability


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


@torch.no_grad()
def stream_probabilities(module: nn.Module, frames: np.ndarray) -> np.ndarray:
    """Runs a stateful model (eager, prepared or quantized) over one stream from zero state."""
    reset_state(module)
    probabilities = np.empty(frames.shape[0], dtype=np.float32)
    for index, frame in enumerate(torch.from_numpy(frames)):
        probabilities[index] = module(frame.unsqueeze(0)).item()
    return probabilities
