# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Calibration streams each clip from the zero state, as the device will run it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from torch import nn

from examples.arm.silero_vad.model_export.audio import AudioStream, load_streams
from examples.arm.silero_vad.model_export.calibration import (
    calibrate_observers,
    calibrate_state_quantization,
    full_scale_versions,
)
from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_16K
from examples.arm.silero_vad.model_export.model_config import DEFAULT_CONFIG
from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE, SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import STATE_BUFFER


class StateRecorder(nn.Module):
    """Stands in for a prepared stateful model: counts frames in its state and records the
    state each call starts from."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer(STATE_BUFFER, torch.zeros(STATE_SHAPE, dtype=torch.int16))
        self.starts: list[int] = []
        self.inputs: list[torch.Tensor] = []

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        self.starts.append(int(self.state[0, 0, 0]))
        self.inputs.append(frame)
        self.state.add_(1)
        return torch.zeros(1, 1)


def _short(streams: list[AudioStream], frames: int) -> list[AudioStream]:
    return [replace(s, pcm=s.pcm[: frames * s.geometry.hop_samples]) for s in streams]


def test_every_stream_starts_from_the_zero_state(all_streams: list[AudioStream]) -> None:
    streams = _short(all_streams[:3], 5)
    recorder = StateRecorder()
    calibrate_observers(recorder, streams, "int16")
    assert recorder.starts == [0, 1, 2, 3, 4] * 3  # reset at each clip, carried within it
    assert not recorder.state.any()  # and left at zero for the export
    # The program's input format: the PCM frames themselves.
    assert all(frame.dtype == torch.int16 and frame.shape == (1, 576) for frame in recorder.inputs)


def test_float_input_calibration_feeds_float_audio(all_streams: list[AudioStream]) -> None:
    recorder = StateRecorder()
    calibrate_observers(recorder, _short(all_streams[:1], 3), "float")
    assert all(frame.dtype == torch.float32 for frame in recorder.inputs)
    assert max(frame.abs().max().item() for frame in recorder.inputs) < 1.0


def test_state_range_comes_from_streams_started_at_zero(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """A clip's state range does not depend on the clip before it."""
    first, second = _short(all_streams[:2], 40)
    alone = calibrate_state_quantization(eager_silero, [second])
    after_first = calibrate_state_quantization(eager_silero, [first, second])
    both = calibrate_state_quantization(eager_silero, [second, first])
    assert after_first == both  # the maxima of two independent streams, in any order
    assert after_first.c_scale >= alone.c_scale
    assert np.isclose(
        max(alone.c_scale, calibrate_state_quantization(eager_silero, [first]).c_scale),
        after_first.c_scale,
    )


def test_full_scale_versions_reach_the_int16_rails(validation_wavs: list[Path]) -> None:
    """The activation ranges also see every calibration clip at the top of the int16
    range (a loud talker), shaped as recorded: scaled, not clipped."""
    streams = load_streams(validation_wavs[:2], GEOMETRY_16K)
    versions = full_scale_versions(streams)
    assert [v.name for v in versions] == [f"{s.name}.full_scale" for s in streams]
    for stream, version in zip(streams, versions, strict=True):
        assert int(np.abs(version.pcm.astype(np.int32)).max()) == 32767
        assert version.num_samples == stream.num_samples
        gain = 32767 / np.abs(stream.pcm.astype(np.int32)).max()
        assert gain > 1.5, "a committed clip already at full scale tests nothing"
        expected = np.round(stream.pcm.astype(np.float64) * gain)
        assert np.abs(version.pcm - expected).max() <= 1
    assert DEFAULT_CONFIG.full_scale_calibration
