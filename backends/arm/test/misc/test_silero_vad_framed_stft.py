# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The NPU-friendly front end computes Silero's STFT magnitude, and the model stays Silero."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.float_reference import float_probabilities
from examples.arm.silero_vad.model_export.framed_stft import (
    POLYGON_MAX_RELATIVE_ERROR,
    FramedStftMagnitude,
    polygon_magnitude,
)
from examples.arm.silero_vad.model_export.model_config import (
    DEFAULT_CONFIG,
    EXACT_CONFIG,
    SQRT_MAGNITUDE_LEVELS,
    build_float_model,
)
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD

SQRT_LEVELS = {"sqrt": (), "sqrt_levels": SQRT_MAGNITUDE_LEVELS}


def _relative_error(ours: torch.Tensor, official: torch.Tensor) -> float:
    # 1e-5, relative above magnitude 1: both are float32 sums of up to 256 products taken
    # in a different order (the magnitudes reach ~20).
    return ((ours - official).abs() / official.abs().clamp(min=1.0)).max().item()


@pytest.mark.parametrize("levels", SQRT_LEVELS.values(), ids=SQRT_LEVELS.keys())
def test_framed_stft_equals_reflect_pad_and_conv_stft(
    levels: tuple[float, ...], all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    framed = FramedStftMagnitude.from_stft(eager_silero.stft, "sqrt", levels)
    with torch.no_grad():
        for stream in all_streams:
            for frame in torch.from_numpy(stream.frames):
                official = eager_silero.stft(frame.unsqueeze(0))
                ours = framed(frame.unsqueeze(0))
                assert ours.shape == official.shape
                assert _relative_error(ours, official) <= 1e-5, stream.name


def test_polygon_magnitude_is_within_its_bound_at_every_angle() -> None:
    assert POLYGON_MAX_RELATIVE_ERROR == pytest.approx(0.0097, abs=5e-5)
    angles = torch.linspace(0, 2 * math.pi, 100_001, dtype=torch.float64)
    radius = torch.logspace(-6, 1, angles.numel(), dtype=torch.float64)
    ratio = polygon_magnitude(radius * angles.cos(), radius * angles.sin()) / radius
    assert (ratio - 1).abs().max().item() <= POLYGON_MAX_RELATIVE_ERROR + 1e-12
    # The bound is tight: reached on the axes and between neighbouring directions.
    assert (ratio - 1).abs().max().item() >= 0.999 * POLYGON_MAX_RELATIVE_ERROR
    zero = torch.zeros(3)
    assert polygon_magnitude(zero, zero).eq(0).all()


def test_framed_polygon_stft_is_within_its_bound_of_the_official_stft(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    framed = FramedStftMagnitude.from_stft(eager_silero.stft, "polygon")
    with torch.no_grad():
        for stream in all_streams:
            for frame in torch.from_numpy(stream.frames):
                official = eager_silero.stft(frame.unsqueeze(0))
                ours = framed(frame.unsqueeze(0))
                allowed = POLYGON_MAX_RELATIVE_ERROR * official + 1e-5 * official.clamp(min=1.0)
                assert ((ours - official).abs() <= allowed).all(), stream.name


@pytest.mark.parametrize("magnitude", ["polygon", "sqrt"])
def test_framed_stft_handles_silence_and_tiny_signals(magnitude: str) -> None:
    model = SileroVAD.from_silero_package()
    levels = SQRT_MAGNITUDE_LEVELS if magnitude == "sqrt" else ()
    framed = FramedStftMagnitude.from_stft(model.stft, magnitude, levels)
    tolerance = POLYGON_MAX_RELATIVE_ERROR if magnitude == "polygon" else 1e-5
    for scale in (0.0, 1e-6, 1e-3, 1.0):
        frame = torch.sin(torch.arange(576.0) * 0.37).unsqueeze(0) * scale
        torch.testing.assert_close(framed(frame), model.stft(frame), atol=1e-5, rtol=tolerance)


def test_exact_model_config_is_still_silero(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    rearranged = build_float_model(EXACT_CONFIG)
    for stream in all_streams:
        difference = np.abs(
            float_probabilities(rearranged, stream) - float_probabilities(eager_silero, stream)
        )
        assert difference.max() <= 1e-5, stream.name


def test_default_model_config_decides_like_silero(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """The polygon magnitude moves probabilities by at most 0.024 (mean <= 0.0005) on
    these clips, far below the quantization error, and flips no decision."""
    assert DEFAULT_CONFIG.magnitude == "polygon"
    rearranged = build_float_model(DEFAULT_CONFIG)
    for stream in all_streams:
        ours = float_probabilities(rearranged, stream)
        official = float_probabilities(eager_silero, stream)
        assert np.abs(ours - official).max() <= 0.05, stream.name
        assert np.abs(ours - official).mean() <= 0.001, stream.name
        assert ((ours >= 0.5) == (official >= 0.5)).all(), stream.name


def test_fold_refuses_an_asymmetric_basis() -> None:
    basis = SileroVAD.from_silero_package().stft.forward_basis.clone()
    basis[3, 0, 10] += 0.5
    with pytest.raises(ValueError, match="not symmetric"):
        FramedStftMagnitude(basis)
