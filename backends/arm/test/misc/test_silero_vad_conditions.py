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

from examples.arm.silero_vad.model_export.audio import load_audio, load_streams
from examples.arm.silero_vad.verification.conditions import (
    CONDITION_SETS,
    CONDITIONS,
    derive,
    derive_stream,
    expand_conditions,
    main,
)


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


@pytest.mark.parametrize("db", [-40, -30, -20, -10])
def test_quiet_levels_are_gains(speech: np.ndarray, db: int) -> None:
    level = derive(speech, f"level{db:+d}")
    assert 20 * np.log10(_rms(level) / _rms(speech)) == pytest.approx(db, abs=0.01)


@pytest.mark.parametrize("db", [10, 20])
def test_loud_levels_clip_at_full_scale(speech: np.ndarray, db: int) -> None:
    """A gain the converter cannot hold clips, as a microphone path driven too hard does;
    below the rails the samples are the clip times the gain."""
    loud = derive(speech, f"level{db:+d}")
    gain = 10 ** (db / 20)
    railed = np.abs(loud) >= 1.0
    assert np.abs(speech).max() * gain > 1.0 and railed.any()
    np.testing.assert_allclose(loud[~railed], speech[~railed] * gain, rtol=1e-5, atol=1e-7)


def test_condition_sets_expand_in_order_and_once() -> None:
    assert expand_conditions(["levels"]) == [
        "level-40",
        "level-30",
        "level-20",
        "level-10",
        "level+10",
        "level+20",
    ]
    everything = expand_conditions(["all"])
    assert len(everything) == len(set(everything))  # quiet (level-30) is in both sets
    assert everything == expand_conditions(["levels", "recording", "level-30"])
    assert set(CONDITION_SETS["recording"]) == {"level-30", "clipped", "noisy10", "telephone"}
    with pytest.raises(ValueError, match="condition 'loud'"):
        expand_conditions(["loud"])


def test_derived_stream_is_the_pcm_a_device_receives(validation_wavs: list[Path]) -> None:
    (stream,) = load_streams(validation_wavs[:1])
    quiet = derive_stream(stream, "level-30")
    assert quiet.name == f"{stream.name}.level-30" and quiet.pcm.dtype == np.int16
    expected = np.round(stream.pcm.astype(np.float64) * 10 ** (-30 / 20))
    assert np.abs(quiet.pcm - expected).max() <= 1


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
    assert main([str(tmp_path), str(validation_wavs[0]), "--condition", "level-30"]) == 0
    (written,) = tmp_path.glob("*.wav")
    assert written.name == f"{validation_wavs[0].stem}.level-30.wav"
    assert soundfile.info(str(written)).samplerate == 16000


def test_cli_writes_a_set(tmp_path: Path, validation_wavs: list[Path]) -> None:
    assert main([str(tmp_path), str(validation_wavs[0]), "--condition", "levels"]) == 0
    written = sorted(path.name.split(".")[-2] for path in tmp_path.glob("*.wav"))
    assert written == sorted(CONDITION_SETS["levels"])
