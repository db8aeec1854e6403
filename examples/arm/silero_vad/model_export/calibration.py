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

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from examples.arm.silero_vad.model_export.audio import AudioStream, float_to_pcm16
from examples.arm.silero_vad.model_export.frame_geometry import PCM16_FULL_SCALE
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, zero_state
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    StateQuantization,
    program_frames,
    reset_state,
)
from examples.arm.silero_vad.progress import FrameProgress


def full_scale_versions(streams: Sequence[AudioStream]) -> list[AudioStream]:
    """Each stream scaled so that its peak reaches the int16 full scale.

    The program takes raw int16 PCM, so a product meets everything from a whisper to a
    talker at the top of the converter's range; activation ranges calibrated on the
    clips' recorded level alone let loud audio saturate the front end. Measured on the
    committed validation clips, PyTorch quantized program against float (flips at 0.5):
    clipped at +20 dB 8.4 % -> 4.0 %, clean unchanged (MAE 0.0048 -> 0.0049, 5 flips
    each), quiet, noisy and telephone within a flip or two. Driving the versions 10 dB
    further, into clipping, takes the clipped clips to 1.7 % but costs clean speech (MAE
    0.0072, 8 flips), so the versions stop at full scale.
    """
    versions = []
    for stream in streams:
        peak = int(np.abs(stream.pcm.astype(np.int32)).max())
        gain = (PCM16_FULL_SCALE - 1) / max(peak, 1)
        loud = float_to_pcm16(stream.pcm.astype(np.float64) * gain / PCM16_FULL_SCALE)
        versions.append(stream.derived("full_scale", loud))
    return versions


def _frames(streams: Sequence[AudioStream]) -> int:
    return sum(stream.num_frames for stream in streams)


@torch.no_grad()
def calibrate_state_quantization(
    model: SileroVAD, streams: Sequence[AudioStream], dtype: str = "int16"
) -> StateQuantization:
    """qparams of the state from the float model's largest |h| and |c| over the streams.

    No headroom above the largest |c|, on purpose. Louder or stranger audio than the
    calibration's drives c further (measured on the float model: 34 on the committed
    clips, 161 on speech clipped at +20 dB, 290 on a steady tone), and the int16 state
    then saturates; but wherever |c| exceeds ~5, tanh(c) is 1 to float precision, so a
    saturated c changes h not at all and only shortens the memory of a long loud sound.
    Headroom costs c's resolution on every frame instead. Float model with only the state
    quantized, validation clips and real speech each clean, clipped at +20 dB, with a
    tone and at 0 dB SNR (5,276 frames), decision flips against float: c bound 34 (the
    calibration max): 3 flips, max abs 0.014; 2x: 4, 0.034; 4x: 12, 0.115; 8x: 24, 0.23.
    The device twin reports the frames on which the state hit its rail.
    """
    h_bound = c_bound = 0.0
    progress = FrameProgress("state range", _frames(streams))
    for stream in streams:
        progress.start_clip(stream.name)
        state = zero_state()
        for frame in torch.from_numpy(stream.float_frames):
            _, state = model(frame.unsqueeze(0), state)
            h_bound = max(h_bound, state[0].abs().max().item())
            c_bound = max(c_bound, state[1].abs().max().item())
            progress.advance()
        progress.finish_clip()
    return StateQuantization.from_bounds(h_bound, c_bound, dtype)


@torch.no_grad()
def calibrate_observers(
    prepared: nn.Module, streams: Sequence[AudioStream], audio_input: str
) -> None:
    """Feeds every stream, frame by frame, through a PT2E-prepared stateful model whose
    audio input is ``audio_input`` (see StatefulSileroVAD)."""
    progress = FrameProgress("calibration", _frames(streams))
    for stream in streams:
        progress.start_clip(stream.name)
        reset_state(prepared)
        for frame in torch.from_numpy(program_frames(stream, audio_input)):
            prepared(frame.unsqueeze(0))
            progress.advance()
        progress.finish_clip()
    reset_state(prepared)
