# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Probability sequences and parameters that stress silero-vad's segmentation.

Shared by make_segmenter_golden.py (the committed golden file) and
compare_segmenter_random.py (a fresh random sweep against silero-vad).
The reference is silero-vad's own get_speech_timestamps_from_probs(), at
either of its sampling rates: 16000 Hz (512-sample windows) or 8000 Hz
(256-sample windows).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

SAMPLE_RATES = (16000, 8000)


def window_samples(sample_rate: int) -> int:
    """silero-vad's window_size_samples for a sampling rate."""
    return 512 if sample_rate == 16000 else 256


@dataclass
class Case:
    """One segmentation problem and silero-vad's answer to it."""

    name: str
    probs: np.ndarray  # float32, one per window (512 samples at 16 kHz, 256 at 8 kHz)
    audio_length_samples: int
    sample_rate: int = 16000
    params: dict = field(default_factory=dict)  # get_speech_timestamps keyword arguments
    expected: list[tuple[int, int]] = field(default_factory=list)


def silero_segments(case: Case) -> list[tuple[int, int]]:
    """silero-vad's segments in samples for the case."""
    from silero_vad.utils_vad import get_speech_timestamps_from_probs

    speeches = get_speech_timestamps_from_probs(
        [float(p) for p in case.probs],  # float32 -> exact Python floats
        sampling_rate=case.sample_rate,
        audio_length_samples=case.audio_length_samples,
        **case.params,
    )
    return [(int(s["start"]), int(s["end"])) for s in speeches]


def near(value: float) -> list[float]:
    """float32 values at and around a threshold (as seen by a float32 model)."""
    center = np.float32(value)
    return [
        float(np.nextafter(center, np.float32(-1))),
        float(center),
        float(np.nextafter(center, np.float32(2))),
    ]


def regime_sequence(rng: random.Random, frames: int, thresholds: list[float]) -> np.ndarray:
    """Runs of speech-like and silence-like values, with values hugging the thresholds."""
    edge_values = [v for t in thresholds for v in near(t)]
    out = []
    speaking = rng.random() < 0.3
    while len(out) < frames:
        run = rng.choice([1, 1, 2, 3, 4, 6, 8, 12, 20, 40, 80])
        for _ in range(run):
            roll = rng.random()
            if roll < 0.15:
                out.append(rng.choice(edge_values))
            elif roll < 0.22:
                out.append(rng.random())  # anything
            elif speaking:
                out.append(rng.uniform(0.45, 1.0))
            else:
                out.append(rng.uniform(0.0, 0.5))
        speaking = not speaking if rng.random() < 0.7 else speaking
    return np.asarray(out[:frames], dtype=np.float32)


def random_params(rng: random.Random) -> dict:
    """A random but valid set of get_speech_timestamps parameters."""
    params: dict = {}
    if rng.random() < 0.5:
        params["threshold"] = rng.choice([0.5, 0.3, 0.6, 0.7, 0.16, 0.1, rng.uniform(0.05, 0.95)])
    if rng.random() < 0.25:
        params["neg_threshold"] = rng.uniform(0.0, params.get("threshold", 0.5))
    if rng.random() < 0.5:
        params["min_speech_duration_ms"] = rng.choice(
            [0, 32, 64, 100, 250, 500, rng.randint(0, 800)]
        )
    if rng.random() < 0.5:
        params["min_silence_duration_ms"] = rng.choice(
            [0, 32, 50, 64, 100, 200, rng.randint(0, 600)]
        )
    if rng.random() < 0.5:
        # Fractional values make the pad a fraction of a sample (truncated by int()).
        params["speech_pad_ms"] = rng.choice(
            [0, 10, 30, 50, 100, 200, 400, rng.randint(0, 500), rng.uniform(0, 120)]
        )
    if rng.random() < 0.5:
        params["max_speech_duration_s"] = rng.choice(
            [0.2, 0.5, 1.0, 1.5, 3.0, rng.uniform(0.05, 4.0), math.inf]
        )
    if rng.random() < 0.4:
        params["min_silence_at_max_speech"] = rng.choice(
            [0, 32, 64, 98, 150, rng.randint(0, 400), rng.uniform(0, 200)]
        )
    if rng.random() < 0.5:
        params["use_max_poss_sil_at_max_speech"] = rng.random() < 0.5
    return params


def random_case(seed: int, sample_rate: int = 16000) -> Case:
    """A reproducible random case: parameters, probabilities, clip length."""
    rng = random.Random(seed)
    window = window_samples(sample_rate)
    params = random_params(rng)
    threshold = params.get("threshold", 0.5)
    thresholds = [threshold, params.get("neg_threshold", max(threshold - 0.15, 0.01))]
    frames = rng.choice([0, 1, 2, 5, 17, 40, 90, 150, 300, 600, rng.randint(0, 1200)])
    probs = regime_sequence(rng, frames, thresholds)
    if frames and rng.random() < 0.03:
        probs[rng.randrange(frames)] = np.float32("nan")
    if frames == 0:
        length = 0
    else:
        # Any length whose framing gives `frames` frames.
        length = window * (frames - 1) + rng.randint(1, window)
    case = Case(
        name=f"random_{seed}",
        probs=probs,
        audio_length_samples=length,
        sample_rate=sample_rate,
        params=params,
    )
    case.expected = silero_segments(case)
    return case


def handmade_cases(sample_rate: int = 16000) -> list[Case]:
    """Deterministic cases for the branches a random sweep may hit rarely."""
    window = window_samples(sample_rate)

    def make(name: str, values: list[float], length: int | None = None, **params) -> Case:
        probs = np.asarray(values, dtype=np.float32)
        if length is None:
            length = window * len(values)
        case = Case(
            name=name,
            probs=probs,
            audio_length_samples=length,
            sample_rate=sample_rate,
            params=params,
        )
        case.expected = silero_segments(case)
        return case

    speech, silence, weak = 0.9, 0.05, 0.4
    cases = [
        make("empty", []),
        make("single_silence_frame", [silence], length=100),
        make("all_speech", [speech] * 60),
        make("all_speech_partial_last_frame", [speech] * 60, length=window * 59 + 7),
        make("one_burst", [silence] * 10 + [speech] * 20 + [silence] * 10),
        make("too_short_burst", [silence] * 5 + [speech] * 7 + [silence] * 10),
        make("burst_at_start", [speech] * 15 + [silence] * 10),
        make("burst_at_end_unclosed", [silence] * 10 + [speech] * 15),
        make("two_bursts_close", [speech] * 12 + [silence] * 4 + [speech] * 12 + [silence] * 6),
        make(
            "weak_frames_keep_speech", [speech] * 10 + [weak] * 30 + [speech] * 10 + [silence] * 8
        ),
        make(
            "exact_threshold_values",
            [0.5] * 12 + [0.35] * 4 + near(0.35) * 4 + [0.5] * 10 + [0.0] * 8,
        ),
        make("nan_frames", [speech] * 10 + [math.nan] * 5 + [speech] * 5 + [silence] * 8),
        make(
            "max_speech_longest_silence",
            [speech] * 20 + [weak] * 5 + [speech] * 20 + [weak] * 9 + [speech] * 40 + [silence] * 6,
            max_speech_duration_s=2.0,
        ),
        make(
            "max_speech_no_silence",
            [speech] * 200 + [silence] * 6,
            max_speech_duration_s=1.0,
        ),
        make(
            "max_speech_legacy_last_silence",
            [speech] * 20
            + [silence] * 5
            + [speech] * 20
            + [silence] * 4
            + [speech] * 40
            + [silence] * 6,
            max_speech_duration_s=2.0,
            use_max_poss_sil_at_max_speech=False,
            min_silence_duration_ms=300,
        ),
        make(
            "zero_min_silence",
            [speech] * 10 + [silence] + [speech] * 10 + [silence] * 3,
            min_silence_duration_ms=0,
            min_speech_duration_ms=0,
        ),
        make(
            "pad_wider_than_gap",
            [speech] * 10
            + [silence] * 2
            + [speech] * 10
            + [silence] * 2
            + [speech] * 3
            + [silence] * 2,
            min_silence_duration_ms=30,
            speech_pad_ms=200,
            min_speech_duration_ms=64,
        ),
        make(
            "pad_past_clip_end",
            [silence] * 3 + [speech] * 10 + [silence] * 2,
            length=window * 14 + 3,
            min_silence_duration_ms=20,
            speech_pad_ms=400,
        ),
        make(
            "zero_pad",
            [speech] * 10 + [silence] * 5 + [speech] * 10 + [silence] * 5,
            speech_pad_ms=0,
        ),
        make("low_threshold_floor", [0.2, 0.02, 0.009, 0.011] * 20, threshold=0.1),
        make(
            "explicit_neg_threshold", [0.6, 0.45, 0.3, 0.2] * 20, threshold=0.55, neg_threshold=0.25
        ),
    ]
    return cases
