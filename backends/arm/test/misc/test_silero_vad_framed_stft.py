# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The NPU-friendly front end computes Silero's STFT magnitude, and the model stays Silero."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.float_reference import float_probabilities
from examples.arm.silero_vad.model_export.framed_stft import FramedStftMagnitude
from examples.arm.silero_vad.model_export.model_config import DEFAULT_CONFIG, build_float_model
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD

LEVELS = {"no_levels": (), "default_levels": DEFAULT_CONFIG.magnitude_levels}


@pytest.mark.parametrize("levels", LEVELS.values(), ids=LEVELS.keys())
def test_framed_stft_equals_reflect_pad_and_conv_stft(
    levels: tuple[float, ...], all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    framed = FramedStftMagnitude.from_stft(eager_silero.stft, levels)
    with torch.no_grad():
        for stream in all_streams:
            frames = torch.from_numpy(stream.frames)
            for frame in frames:
                official = eager_silero.stft(frame.unsqueeze(0))
                ours = framed(frame.unsqueeze(0))
                assert ours.shape == official.shape
                # 1e-5, relative above magnitude 1: both are float32 sums of up to 256
                # products taken in a different order (the magnitudes reach ~20).
                error = ((ours - official).abs() / official.abs().clamp(min=1.0)).max().item()
                assert error <= 1e-5, f"{stream.name}: {error}"


def test_framed_stft_handles_silence_and_tiny_signals() -> None:
    model = SileroVAD.from_silero_package()
    framed = FramedStftMagnitude.from_stft(model.stft, DEFAULT_CONFIG.magnitude_levels)
    for scale in (0.0, 1e-6, 1e-3, 1.0):
        frame = torch.sin(torch.arange(576.0) * 0.37).unsqueeze(0) * scale
        torch.testing.assert_close(framed(frame), model.stft(frame), atol=1e-5, rtol=1e-5)


def test_default_model_config_is_still_silero(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    rearranged = build_float_model(DEFAULT_CONFIG)
    for stream in all_streams:
        difference = np.abs(
            float_probabilities(rearranged, stream) - float_probabilities(eager_silero, stream)
        )
        assert difference.max() <= 1e-5, stream.name


def test_fold_refuses_an_asymmetric_basis() -> None:
    basis = SileroVAD.from_silero_package().stft.forward_basis.clone()
    basis[3, 0, 10] += 0.5
    with pytest.raises(ValueError, match="not symmetric"):
        FramedStftMagnitude(basis)
