# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The Python speech segmenter gives silero-vad's segments, sample for sample."""

from __future__ import annotations

import math

import numpy as np
import pytest
from silero_vad.utils_vad import get_speech_timestamps, get_speech_timestamps_from_probs

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_16K, frame_geometry
from examples.arm.silero_vad.model_export.silero_vad_model import (
    SileroVAD,
    float_probabilities,
    load_official_jit,
)
from examples.arm.silero_vad.streaming.speech_segmenter import (
    SegmenterConfig,
    SpeechSegmenter,
    speech_segments,
)

CONFIGS = {
    "defaults": {},
    "strict": dict(threshold=0.7, min_speech_duration_ms=400, min_silence_duration_ms=300),
    "wide_pad_short_max": dict(speech_pad_ms=200, max_speech_duration_s=1.5),
    "legacy_max_cut": dict(max_speech_duration_s=1.0, use_max_poss_sil_at_max_speech=False),
    "neg_threshold": dict(threshold=0.4, neg_threshold=0.3, min_silence_duration_ms=50),
}


HOP_SAMPLES = GEOMETRY_16K.hop_samples


def _silero(
    probabilities: np.ndarray, length: int, sample_rate: int = 16000, **config
) -> list[tuple[int, int]]:
    timestamps = get_speech_timestamps_from_probs(
        [float(p) for p in probabilities],
        audio_length_samples=length,
        sampling_rate=sample_rate,
        **config,
    )
    return [(t["start"], t["end"]) for t in timestamps]


@pytest.mark.parametrize("config_name", CONFIGS)
def test_segments_equal_silero_on_committed_clips(
    config_name: str, all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    config = CONFIGS[config_name]
    for stream in all_streams:
        probabilities = float_probabilities(eager_silero, stream)
        ours = speech_segments(probabilities, stream.num_samples, SegmenterConfig(**config))
        assert ours == _silero(probabilities, stream.num_samples, **config), stream.name
        assert ours, f"{stream.name}: no speech found in a clip made of speech"


def test_segments_equal_get_speech_timestamps_end_to_end(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """silero-vad's own entry point, running its own model on the audio, agrees too."""
    stream = all_streams[0]
    official = get_speech_timestamps(stream.samples, load_official_jit())
    ours = speech_segments(float_probabilities(eager_silero, stream), stream.num_samples)
    assert ours == [(t["start"], t["end"]) for t in official]


def _random_case(rng: np.random.Generator, hop: int = HOP_SAMPLES) -> tuple[np.ndarray, int, dict]:
    frames = int(rng.integers(1, 300))
    shape = rng.integers(0, 3)
    if shape == 0:
        probabilities = rng.random(frames)
    elif shape == 1:  # runs of equal values, like speech and pauses
        probabilities = np.repeat(rng.random(frames // 6 + 1), 6)[:frames]
    else:  # values at and around the thresholds
        probabilities = rng.choice([0.0, 0.34, 0.35, 0.36, 0.49, 0.5, 0.51, 1.0], frames)
    length = frames * hop - int(rng.integers(0, hop))
    config = dict(
        threshold=float(rng.choice([0.3, 0.5, 0.7])),
        min_speech_duration_ms=int(rng.choice([0, 100, 250])),
        min_silence_duration_ms=int(rng.choice([0, 30, 100, 300])),
        speech_pad_ms=int(rng.choice([0, 30, 100, 200])),
        max_speech_duration_s=float(rng.choice([math.inf, 0.5, 2.5])),
        use_max_poss_sil_at_max_speech=bool(rng.integers(0, 2)),
    )
    return probabilities.astype(np.float32), length, config


@pytest.mark.parametrize("sample_rate", [16000, 8000])
def test_segments_equal_silero_on_random_sequences(sample_rate: int) -> None:
    rng = np.random.default_rng(20261202 + sample_rate)
    hop = frame_geometry(sample_rate).hop_samples
    for case in range(1000):
        probabilities, length, config = _random_case(rng, hop)
        ours = speech_segments(probabilities, length, SegmenterConfig(**config), sample_rate)
        expected = _silero(probabilities, length, sample_rate, **config)
        assert ours == expected, f"case {case} at {sample_rate} Hz: {config}"


def test_speech_at_the_very_start_and_end() -> None:
    probabilities = np.array([0.9] * 20 + [0.0] * 10 + [0.9] * 20, dtype=np.float32)
    length = len(probabilities) * HOP_SAMPLES
    segments = speech_segments(probabilities, length)
    assert segments[0][0] == 0 and segments[-1][1] == length
    assert segments == _silero(probabilities, length)


def test_stream_shorter_than_min_speech_has_no_segment() -> None:
    probabilities = np.full(7, 0.99, dtype=np.float32)  # 7 * 32 ms = 224 ms < 250 ms
    assert speech_segments(probabilities, 7 * HOP_SAMPLES) == []


def test_alternating_around_thresholds_stays_in_speech() -> None:
    # Above the threshold, then between the exit and entry thresholds: hysteresis keeps speech.
    probabilities = np.array([0.6, 0.4] * 30, dtype=np.float32)
    length = len(probabilities) * HOP_SAMPLES
    assert speech_segments(probabilities, length) == [(0, length)]
    assert speech_segments(probabilities, length) == _silero(probabilities, length)


def test_segments_are_emitted_online_with_bounded_latency() -> None:
    """With default parameters a segment is out once the 100 ms silence that ends it is seen."""
    segmenter = SpeechSegmenter()
    probabilities = [0.9] * 20 + [0.1] * 40
    emitted_at = None
    for index, probability in enumerate(probabilities):
        if segmenter.push(probability):
            emitted_at = index
            break
    # Speech ends at frame 20; silence must last > 1600 samples: frame 24 (2048 samples).
    assert emitted_at == 24
    assert segmenter.finish(len(probabilities) * HOP_SAMPLES) == []
