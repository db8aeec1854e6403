# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Cross-layer equalisation: the same float function, channels of one range."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.channel_equalization import (
    channel_ranges,
    equalization_factors,
    equalize_channels,
)
from examples.arm.silero_vad.model_export.model_config import ModelConfig, build_float_model
from examples.arm.silero_vad.model_export.silero_vad_model import zero_state


@pytest.mark.parametrize("encoder", ["conv", "pointwise"])
def test_equalised_model_keeps_its_float_output(
    all_streams: list[AudioStream], encoder: str
) -> None:
    config = ModelConfig(encoder=encoder)
    reference = build_float_model(config)
    calibration = np.concatenate([stream.frames[::5] for stream in all_streams[:3]])
    equalised = equalize_channels(build_float_model(config), calibration, strength=1.0)
    with torch.no_grad():
        for stream in all_streams[3:]:
            state_a = state_b = zero_state()
            for frame in torch.from_numpy(stream.frames[:150]):
                a, state_a = reference(frame.unsqueeze(0), state_a)
                b, state_b = equalised(frame.unsqueeze(0), state_b)
                assert (a - b).abs().max() <= 1e-5
                assert (state_a - state_b).abs().max() <= 1e-4


def test_full_strength_gives_every_live_channel_the_same_range(
    all_streams: list[AudioStream],
) -> None:
    model = build_float_model(ModelConfig(encoder="pointwise"))
    frames = np.concatenate([stream.frames[::5] for stream in all_streams[:3]])
    before = channel_ranges(model, frames)
    assert before[0].max() / before[0].min() > 20  # the spectral bins' dynamic range
    after = channel_ranges(equalize_channels(model, frames, strength=1.0), frames)
    for ranges, original in zip(after, before, strict=True):
        live = ranges[original > original.max() * 1e-3]  # the others' factors are floored
        torch.testing.assert_close(live, torch.full_like(live, live[0].item()), rtol=1e-4, atol=0)


def test_factors_of_dead_channels_are_floored() -> None:
    factors = equalization_factors(torch.tensor([4.0, 1.0, 0.0]), strength=1.0)
    assert torch.all(factors > 0)
    assert factors[0] / factors[1] == pytest.approx(4.0)
    assert equalization_factors(torch.tensor([4.0, 1.0]), strength=0.0).tolist() == [1.0, 1.0]


def test_equalisation_needs_calibration_audio() -> None:
    with pytest.raises(ValueError, match="calibration audio"):
        build_float_model(ModelConfig(activations="int8", channel_equalization=0.5))
