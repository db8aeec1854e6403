# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The soak script's own parts: the audio it generates, its header, what it reads back.

The soak itself (an hour of audio through the host runner) is a measurement, run by hand
(see examples/arm/silero_vad/runtime/README.md), not a test.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from examples.arm.silero_vad.lab import soak_runner


@pytest.mark.parametrize("sample_rate", [16000, 8000])
def test_soak_audio_is_seeded_exact_and_varied(sample_rate: int) -> None:
    clips = soak_runner.load_clips(sample_rate)
    total = 90 * sample_rate + 7
    pieces = list(soak_runner.soak_audio(clips, sample_rate, total, seed=3))
    audio = np.concatenate(pieces)
    assert audio.dtype == np.int16 and audio.size == total
    again = np.concatenate(list(soak_runner.soak_audio(clips, sample_rate, total, seed=3)))
    np.testing.assert_array_equal(audio, again)
    other = np.concatenate(list(soak_runner.soak_audio(clips, sample_rate, total, seed=4)))
    assert not np.array_equal(audio, other)
    # Gains up to +12 dB clip some clips; silences are long runs of (near) zero.
    assert np.any(np.abs(audio.astype(np.int32)) >= 32767)
    quiet = np.abs(audio.astype(np.int32)) < 64
    longest, run = 0, 0
    for value in quiet[:: sample_rate // 100]:  # every 10 ms
        run = run + 1 if value else 0
        longest = max(longest, run)
    assert longest >= 50  # half a second of silence at least


def test_soak_header_has_unknown_sizes() -> None:
    header = soak_runner.wav_stream_header(8000)
    assert len(header) == 44
    assert header[:4] == b"RIFF" and header[8:16] == b"WAVEfmt "
    assert struct.unpack("<I", header[4:8])[0] == 0xFFFFFFFF
    assert header[36:40] == b"data" and struct.unpack("<I", header[40:44])[0] == 0xFFFFFFFF
    tag, channels, rate, _, align, bits = struct.unpack("<HHIIHH", header[20:36])
    assert (tag, channels, rate, align, bits) == (1, 1, 8000, 2, 16)


def test_soak_reads_the_runners_timing_line() -> None:
    stderr = (
        "executorch W something\n"
        "TIMING frames=112501 model_step_us median=2034.50 mean=2101.33 min=1700.01 "
        "max=9120.77 first=8000.00 total_ms=236412.123 (real time per frame: 32 ms)\n"
    )
    timing = soak_runner.parse_timing(stderr)
    assert timing["frames"] == 112501
    assert timing["median"] == 2034.5 and timing["max"] == 9120.77
    assert soak_runner.parse_timing("no timing here\n") == {}


def test_soak_refuses_unusable_arguments(capsys: pytest.CaptureFixture) -> None:
    for argv in (
        ["--model", "m.pte", "--hours", "0"],
        ["--model", "m.pte", "--hours", "0.01", "--warmup-minutes", "1"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            soak_runner.parse_args(argv)
        assert exit_info.value.code == 2
    assert "warm-up must be shorter" in capsys.readouterr().err
