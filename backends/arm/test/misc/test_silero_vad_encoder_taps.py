# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Dropping the encoder taps that only meet padding leaves the encoder's function intact."""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.encoder_taps import trim_padding_taps
from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_16K
from examples.arm.silero_vad.model_export.silero_vad_model import Encoder, SileroVAD

STFT_COLUMNS = GEOMETRY_16K.stft_columns  # 4, at both sample rates


def test_last_two_encoder_convolutions_lose_their_padding_taps(eager_silero: SileroVAD) -> None:
    trimmed = trim_padding_taps(copy.deepcopy(eager_silero.encoder), STFT_COLUMNS)
    shapes = [(conv.kernel_size[0], conv.padding[0]) for conv in trimmed.convs]
    assert shapes == [(3, 1), (3, 1), (2, 0), (1, 0)]
    original = eager_silero.encoder.convs
    torch.testing.assert_close(trimmed.convs[2].weight, original[2].weight[:, :, 1:])
    torch.testing.assert_close(trimmed.convs[3].weight, original[3].weight[:, :, 1:2])
    before = sum(conv.weight.numel() for conv in original)
    after = sum(conv.weight.numel() for conv in trimmed.convs)
    assert before - after == 64 * 64 + 2 * 64 * 128  # 20,480 weights fewer


def test_trimmed_encoder_equals_encoder_on_real_spectra(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    trimmed = trim_padding_taps(copy.deepcopy(eager_silero.encoder), STFT_COLUMNS)
    with torch.no_grad():
        for stream in all_streams:
            for frame in torch.from_numpy(stream.float_frames[::7]):
                features = eager_silero.stft(frame.unsqueeze(0))
                expected = eager_silero.encoder(features)
                scale = expected.abs().clamp(min=1.0)
                assert ((trimmed(features) - expected).abs() / scale).max() <= 1e-5


@pytest.mark.parametrize("input_length", [1, 2, 3, 4, 5, 8])
def test_trimming_is_exact_for_any_input_length(input_length: int) -> None:
    torch.manual_seed(input_length)
    encoder = Encoder()
    features = torch.randn(2, 129, input_length)
    expected = encoder(features)
    trimmed = trim_padding_taps(copy.deepcopy(encoder), input_length)
    torch.testing.assert_close(trimmed(features), expected, atol=1e-5, rtol=1e-5)


def test_convolutions_that_use_every_tap_are_kept() -> None:
    encoder = Encoder()
    convs = list(encoder.convs)
    trimmed = trim_padding_taps(encoder, input_length=16)
    assert all(new is old for new, old in zip(trimmed.convs, convs, strict=True))


def test_grouped_convolutions_are_left_alone() -> None:
    encoder = Encoder()
    grouped = nn.Conv1d(64, 128, kernel_size=3, padding=1, groups=2)
    encoder.convs[3] = grouped
    assert trim_padding_taps(encoder, STFT_COLUMNS).convs[3] is grouped
