# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Calibration on real audio, one stream at a time, state reset at every stream start.

A VAD's state carries across frames, so observers must see the ranges that occur while
it streams, not on independent frames: each clip is fed frame by frame from a zero state,
exactly as the device will run it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import torch
from torch import nn

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, zero_state
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    StateQuantization,
    reset_state,
)


def _progress(label: str, stream: AudioStream, index: int, total: int) -> None:
    print(
        f"\r{label}: clip {index + 1}/{total} {stream.name} ({stream.num_frames} frames)",
        end="" if index + 1 < total else "\n",
        file=sys.stderr,
        flush=True,
    )


@torch.no_grad()
def calibrate_state_quantization(
    model: SileroVAD, streams: Sequence[AudioStream], dtype: str = "int16"
) -> StateQuantization:
    """qparams of the state from the float model's largest |h| and |c| over the streams."""
    h_bound = c_bound = 0.0
    for index, stream in enumerate(streams):
        _progress("state range", stream, index, len(streams))
        state = zero_state()
        for frame in torch.from_numpy(stream.frames):
            _, state = model(frame.unsqueeze(0), state)
            h_bound = max(h_bound, state[0].abs().max().item())
            c_bound = max(c_bound, state[1].abs().max().item())
    return StateQuantization.from_bounds(h_bound, c_bound, dtype)


@torch.no_grad()
def calibrate_observers(prepared: nn.Module, streams: Sequence[AudioStream]) -> None:
    """Feeds every stream, frame by frame, through a PT2E-prepared stateful model."""
    for index, stream in enumerate(streams):
        _progress("calibration", stream, index, len(streams))
        reset_state(prepared)
        for frame in torch.from_numpy(stream.frames):
            prepared(frame.unsqueeze(0))
    reset_state(prepared)
