# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The audio front door: formats it accepts, the clear errors it gives, and framing."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
import soundfile

from examples.arm.silero_vad.model_export.audio import (
    AudioError,
    frame_samples,
    load_audio,
    load_streams,
    wav_files,
)
from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_8K

RATE = 16000


def _tone(seconds: float = 0.5, rate: int = RATE) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def _write(path: Path, data: np.ndarray, rate: int = RATE, subtype: str = "PCM_16") -> Path:
    soundfile.write(str(path), data, rate, subtype=subtype)
    return path


@pytest.mark.parametrize(
    "subtype, tolerance",
    [("PCM_U8", 1 / 64), ("PCM_16", 1e-4), ("PCM_24", 1e-6), ("PCM_32", 1e-6), ("FLOAT", 1e-7)],
)
def test_pcm_and_float_formats_are_read(tmp_path: Path, subtype: str, tolerance: float) -> None:
    tone = _tone()
    samples = load_audio(_write(tmp_path / f"{subtype}.wav", tone, subtype=subtype))
    assert samples.dtype == np.float32 and samples.shape == tone.shape
    assert np.max(np.abs(samples - tone)) <= tolerance


def test_stereo_is_downmixed_and_said(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    tone = _tone()
    path = _write(tmp_path / "stereo.wav", np.stack([tone, 0 * tone], axis=1))
    with caplog.at_level(logging.WARNING):
        samples = load_audio(path)
    assert np.allclose(samples, tone / 2, atol=1e-4)
    assert "2 channels, downmixed" in caplog.text and "stereo.wav" in caplog.text


def test_other_rates_are_resampled_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _write(tmp_path / "cd.wav", _tone(rate=44100), rate=44100)
    with caplog.at_level(logging.WARNING):
        samples = load_audio(path)
    assert samples.shape == (RATE // 2,)
    # Still a 440 Hz tone after resampling: compare with one made at 16 kHz.
    assert np.max(np.abs(samples[200:-200] - _tone()[200:-200])) < 0.01
    assert "resampled from 44100 Hz to 16000 Hz" in caplog.text


def test_missing_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match=r"nowhere\.wav: no such file"):
        load_audio(tmp_path / "nowhere.wav")


def test_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AudioError, match="not a regular file"):
        load_audio(tmp_path)


def test_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.wav"
    path.write_bytes(b"")
    with pytest.raises(AudioError, match=r"empty\.wav: empty file"):
        load_audio(path)


def test_header_without_samples_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "no_samples.wav", np.zeros(0, dtype=np.float32))
    with pytest.raises(AudioError, match=r"no_samples\.wav: contains no audio samples"):
        load_audio(path)


def test_not_audio_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.wav"
    path.write_text("this is a text file, not audio\n" * 20)
    with pytest.raises(AudioError, match=r"notes\.wav: not a readable audio file"):
        load_audio(path)


def test_truncated_header_is_refused(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.wav", _tone())
    path = tmp_path / "truncated.wav"
    path.write_bytes(good.read_bytes()[:30])
    with pytest.raises(AudioError, match=r"truncated\.wav: not a readable audio file"):
        load_audio(path)


@pytest.mark.parametrize("bad_value", [np.nan, np.inf, -np.inf])
def test_non_finite_samples_are_refused(tmp_path: Path, bad_value: float) -> None:
    tone = _tone()
    tone[1234] = bad_value
    path = _write(tmp_path / "nan.wav", tone, subtype="FLOAT")
    with pytest.raises(AudioError, match=r"nan\.wav: 1 non-finite .* first at sample 1234"):
        load_audio(path)


def test_clip_shorter_than_a_frame_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "short.wav", _tone(seconds=0.02))
    with pytest.raises(AudioError, match=r"short\.wav: 320 samples .* shorter than one frame"):
        load_audio(path)


def test_frames_carry_context_and_pad_the_last_frame() -> None:
    samples = np.arange(1, 1301, dtype=np.float32)  # 2 full hops + 276 samples
    frames = frame_samples(samples)
    assert frames.shape == (3, 576)
    assert not frames[0, :64].any()  # zeros before the first frame
    assert np.array_equal(frames[0, 64:], samples[:512])
    assert np.array_equal(frames[1, :64], samples[448:512])  # context = previous 64
    assert np.array_equal(frames[1, 64:], samples[512:1024])
    assert np.array_equal(frames[2, 64 : 64 + 276], samples[1024:])
    assert not frames[2, 64 + 276 :].any()  # last frame zero-padded


def test_exact_multiple_has_no_padding_frame() -> None:
    assert frame_samples(np.ones(1024, dtype=np.float32)).shape == (2, 576)


def test_each_file_stays_its_own_stream(tmp_path: Path) -> None:
    first = _write(tmp_path / "a.wav", _tone(0.1))
    second = _write(tmp_path / "b.wav", _tone(0.05))
    streams = load_streams([first, second])
    assert [s.name for s in streams] == ["a", "b"]
    assert [s.num_frames for s in streams] == [4, 2]
    # The second stream starts from zero context, not from the end of the first.
    assert not streams[1].frames[0, :64].any()


def test_no_files_is_an_error() -> None:
    with pytest.raises(AudioError, match="no audio files"):
        load_streams([])


def test_folder_without_wav_files_is_named(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no audio here")
    with pytest.raises(AudioError, match=rf"{tmp_path.name}: no \.wav files"):
        wav_files(tmp_path)


def test_pcm_frames_are_the_int16_samples_and_floats_their_scaled_copy(tmp_path: Path) -> None:
    path = _write(tmp_path / "tone.wav", _tone())
    (stream,) = load_streams([path])
    assert stream.frames.dtype == np.int16 and stream.frames.shape == (16, 576)
    assert np.array_equal(stream.frames[1, 64:], stream.pcm[512:1024])
    assert np.array_equal(stream.float_frames, stream.frames.astype(np.float32) / 32768)


def test_8khz_streams_use_the_8khz_frame_geometry(tmp_path: Path) -> None:
    path = _write(tmp_path / "tone8k.wav", _tone(rate=8000), rate=8000)
    (stream,) = load_streams([path], GEOMETRY_8K)
    assert stream.sample_rate == 8000 and stream.frames.shape == (16, 288)
    assert np.array_equal(stream.frames[1, :32], stream.pcm[224:256])  # 32 context samples
