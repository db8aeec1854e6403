# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Derived recording conditions: deterministic, and each does what its name says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile

from examples.arm.silero_vad.evaluation.conditions import CONDITIONS, derive, main
from examples.arm.silero_vad.model_export.audio import load_audio


@pytest.fixture(scope="module")
def speech(validation_wavs: list[Path]) -> np.ndarray:
    return load_audio(validation_wavs[0])


def _rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))


@pytest.mark.parametrize("condition", sorted(CONDITIONS))
def test_conditions_are_deterministic_and_keep_length(speech: np.ndarray, condition: str) -> None:
    first, second = derive(speech, condition), derive(speech, condition)
    assert first.shape == speech.shape and first.dtype == np.float32
    np.testing.assert_array_equal(first, second)
    assert np.abs(first).max() <= 1.0


def test_quiet_is_30_db_down(speech: np.ndarray) -> None:
    assert 20 * np.log10(_rms(derive(speech, "quiet")) / _rms(speech)) == pytest.approx(
        -30, abs=0.01
    )


def test_clipped_saturates_and_noisy_has_its_snr(speech: np.ndarray) -> None:
    clipped = derive(speech, "clipped")
    assert np.mean(np.abs(clipped) >= 1.0) > 0.01
    noise = derive(speech, "noisy10") - speech
    assert 20 * np.log10(_rms(speech) / _rms(noise)) == pytest.approx(10, abs=0.2)


def test_telephone_removes_low_and_high_frequencies(speech: np.ndarray) -> None:
    band = derive(speech, "telephone")
    spectrum = np.abs(np.fft.rfft(band))
    frequencies = np.fft.rfftfreq(band.shape[0], 1 / 16000)
    inside = spectrum[(frequencies > 500) & (frequencies < 3000)].mean()
    assert spectrum[frequencies > 4500].mean() < 0.01 * inside
    assert spectrum[frequencies < 100].mean() < 0.05 * inside


def test_cli_writes_16_khz_clips(tmp_path: Path, validation_wavs: list[Path]) -> None:
    assert main([str(tmp_path), str(validation_wavs[0]), "--condition", "quiet"]) == 0
    (written,) = tmp_path.glob("*.wav")
    assert written.name == f"{validation_wavs[0].stem}.quiet.wav"
    assert soundfile.info(str(written)).samplerate == 16000
