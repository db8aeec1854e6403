# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The NPU-friendly front end computes Silero's STFT magnitude, and the model stays Silero."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.framed_stft import (
    POLYGON_MAX_RELATIVE_ERROR,
    REVERSALS,
    FramedStftMagnitude,
    Reverse,
    polygon_magnitude,
)
from examples.arm.silero_vad.model_export.model_config import build_float_model
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, float_probabilities

# Both models, each with both ways of reversing samples (flip for Ethos-U85, an
# exchange-matrix product for Ethos-U55/U65, which have no REVERSE).
RATES_AND_REVERSALS = [(rate, reversal) for rate in (16000, 8000) for reversal in REVERSALS]


def _exact_magnitude(framed: FramedStftMagnitude, frame: torch.Tensor) -> torch.Tensor:
    """The framed spectrum's exact magnitude, shaped as the official STFT's output: the
    framing and the folded basis without the polygon."""
    even_part, odd_part = framed.folded(frame)
    real, imag = framed.even(even_part), framed.odd(odd_part)
    return torch.sqrt(real * real + imag * imag).transpose(-2, -1).unsqueeze(0)


def _relative_error(ours: torch.Tensor, official: torch.Tensor) -> float:
    # 1e-5, relative above magnitude 1: both are float32 sums of up to 256 products taken
    # in a different order (the magnitudes reach ~20).
    return ((ours - official).abs() / official.abs().clamp(min=1.0)).max().item()


@pytest.mark.parametrize("sample_rate, reversal", RATES_AND_REVERSALS)
def test_framed_stft_equals_reflect_pad_and_conv_stft(
    sample_rate: int, reversal: str, committed_streams: Callable[[int], list[AudioStream]]
) -> None:
    model = SileroVAD.from_silero_package(sample_rate)
    framed = FramedStftMagnitude.from_stft(model.stft, reversal)
    with torch.no_grad():
        for stream in committed_streams(sample_rate):
            for frame in torch.from_numpy(stream.float_frames):
                official = model.stft(frame.unsqueeze(0))
                ours = _exact_magnitude(framed, frame.unsqueeze(0))
                assert ours.shape == official.shape
                assert _relative_error(ours, official) <= 1e-5, stream.name


@pytest.mark.parametrize("size", [1, 32, 64, 128])
def test_exchange_matrix_reverses_exactly(size: int) -> None:
    """The reversal for NPUs without REVERSE is the same function as torch.flip."""
    x = torch.randn(5, size)
    product = Reverse(size, "matmul")
    assert torch.equal(product(x), x.flip(-1))
    assert torch.equal(Reverse(size, "flip")(x), x.flip(-1))
    # One weight of 1 per output channel: exact under any per-channel int8 scale.
    assert product.exchange.weight.abs().sum(dim=1).eq(1).all()


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


@pytest.mark.parametrize("sample_rate", [16000, 8000])
def test_framed_polygon_stft_is_within_its_bound_of_the_official_stft(
    sample_rate: int, committed_streams: Callable[[int], list[AudioStream]]
) -> None:
    model = SileroVAD.from_silero_package(sample_rate)
    framed = FramedStftMagnitude.from_stft(model.stft)
    with torch.no_grad():
        for stream in committed_streams(sample_rate):
            for frame in torch.from_numpy(stream.float_frames):
                official = model.stft(frame.unsqueeze(0))
                ours = framed(frame.unsqueeze(0))
                allowed = POLYGON_MAX_RELATIVE_ERROR * official + 1e-5 * official.clamp(min=1.0)
                assert ((ours - official).abs() <= allowed).all(), stream.name


def test_framed_stft_handles_silence_and_tiny_signals() -> None:
    model = SileroVAD.from_silero_package()
    framed = FramedStftMagnitude.from_stft(model.stft)
    for scale in (0.0, 1e-6, 1e-3, 1.0):
        frame = torch.sin(torch.arange(576.0) * 0.37).unsqueeze(0) * scale  # 16 kHz frame
        expected = model.stft(frame)
        torch.testing.assert_close(
            framed(frame), expected, atol=1e-5, rtol=POLYGON_MAX_RELATIVE_ERROR
        )
        torch.testing.assert_close(_exact_magnitude(framed, frame), expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("sample_rate", [16000, 8000])
def test_default_model_config_decides_like_silero(
    sample_rate: int, committed_streams: Callable[[int], list[AudioStream]]
) -> None:
    """The polygon magnitude moves probabilities by at most 0.024 (mean <= 0.0005) on
    these clips at 16 kHz, 0.017 (mean <= 0.0009) at 8 kHz: far below the quantization
    error. A decision can then differ only where Silero itself is that close to the
    threshold (measured: none at 16 kHz; 4 of 1,611 frames at 8 kHz, all within 0.02)."""
    silero = SileroVAD.from_silero_package(sample_rate)
    rearranged = build_float_model(sample_rate)
    for stream in committed_streams(sample_rate):
        ours = float_probabilities(rearranged, stream)
        official = float_probabilities(silero, stream)
        assert np.abs(ours - official).max() <= 0.03, stream.name
        assert np.abs(ours - official).mean() <= 0.001, stream.name
        flipped = (ours >= 0.5) != (official >= 0.5)
        assert (np.abs(official[flipped] - 0.5) <= 0.03).all(), stream.name
        assert flipped.mean() <= 0.01, stream.name


def test_fold_refuses_an_asymmetric_basis() -> None:
    stft = SileroVAD.from_silero_package().stft
    basis = stft.forward_basis.clone()
    basis[3, 0, 10] += 0.5
    with pytest.raises(ValueError, match="not symmetric"):
        FramedStftMagnitude(basis, stft.geometry)
