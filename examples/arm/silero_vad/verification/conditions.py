# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Recording conditions derived from any clip, to test a quantized VAD beyond clean speech.

A product meets a whisper far from the microphone, a talker clipping the converter, noise
and telephone channels; a quantized model must make float Silero's decisions there too.
Each condition is deterministic (seeded). The CLI writes derived clips as 16-bit PCM WAVs
(for ``run.sh --validation-wav``)::

    python -m examples.arm.silero_vad.verification.conditions OUT_DIR CLIP.wav ... \\
        [--condition level-30 --condition telephone | --condition levels]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import butter, resample_poly, sosfiltfilt

from examples.arm.silero_vad.model_export.audio import (
    AudioError,
    AudioStream,
    float_to_pcm16,
    load_audio,
)
from examples.arm.silero_vad.model_export.frame_geometry import (
    DEFAULT_SAMPLE_RATE,
    SAMPLE_RATES,
    frame_geometry,
)
from examples.arm.silero_vad.verification.cli import exit_on_errors

LEVELS_DB = (-40, -30, -20, -10, 10, 20)
CLIPPING_OVERDRIVE_DB = 20.0
TELEPHONE_BAND_HZ = (300.0, 3400.0)
TELEPHONE_RATE = 8000
SEED = 2026

# (mono float samples, sample rate) -> the samples under the condition
Condition = Callable[[np.ndarray, int], np.ndarray]


def _gain(db: float) -> float:
    return 10.0 ** (db / 20.0)


def at_level(db: float) -> Condition:
    """A gain of ``db`` dB, clipped to [-1, 1] as a converter would."""
    return lambda samples, rate: np.clip(samples * _gain(db), -1.0, 1.0)


def clipped(samples: np.ndarray, rate: int) -> np.ndarray:
    """``CLIPPING_OVERDRIVE_DB`` over the clip's peak, hard-clipped."""
    peak = float(np.abs(samples).max())
    if peak == 0.0:
        return samples.copy()
    return np.clip(samples * (_gain(CLIPPING_OVERDRIVE_DB) / peak), -1.0, 1.0)


def with_noise(snr_db: float) -> Condition:
    """White noise at ``snr_db`` against the clip's RMS (seeded), clipped to [-1, 1]."""

    def noisy(samples: np.ndarray, rate: int) -> np.ndarray:
        rms = float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))
        noise = np.random.default_rng(SEED).standard_normal(samples.shape)
        return np.clip(samples + noise * rms * _gain(-snr_db), -1.0, 1.0)

    return noisy


def telephone(samples: np.ndarray, rate: int) -> np.ndarray:
    """The telephone band, through the telephone's sample rate."""
    band = butter(6, TELEPHONE_BAND_HZ, btype="bandpass", fs=rate, output="sos")
    filtered = sosfiltfilt(band, samples.astype(np.float64))
    if rate != TELEPHONE_RATE:
        narrow = resample_poly(filtered, TELEPHONE_RATE, rate)
        filtered = resample_poly(narrow, rate, TELEPHONE_RATE)[: samples.shape[0]]
    return np.clip(filtered, -1.0, 1.0)


LEVELS = tuple(f"level{db:+d}" for db in LEVELS_DB)
CONDITIONS: dict[str, Condition] = {
    **{name: at_level(db) for name, db in zip(LEVELS, LEVELS_DB, strict=True)},
    "clean": at_level(0.0),
    "clipped": clipped,
    "noisy0": with_noise(0.0),
    "noisy10": with_noise(10.0),
    "telephone": telephone,
}
CONDITION_SETS: dict[str, tuple[str, ...]] = {
    "levels": LEVELS,
    "recording": ("level-30", "clipped", "noisy10", "telephone"),
}


def condition_choices() -> list[str]:
    """What ``--condition`` accepts: every condition, every set, and ``all``."""
    return [*CONDITIONS, *CONDITION_SETS, "all"]


def expand_conditions(names: list[str]) -> list[str]:
    """Condition names with the sets (and ``all``) expanded, in order, each once."""
    sets = {**CONDITION_SETS, "all": [c for group in CONDITION_SETS.values() for c in group]}
    expanded: list[str] = []
    for name in names:
        if name not in CONDITIONS and name not in sets:
            raise ValueError(
                f"condition {name!r}: expected one of {', '.join(condition_choices())}"
            )
        expanded += sets.get(name, [name])
    return list(dict.fromkeys(expanded))


def derive(samples: np.ndarray, condition: str, rate: int = DEFAULT_SAMPLE_RATE) -> np.ndarray:
    """``samples`` (mono float at ``rate``) under ``condition``, as float32."""
    return CONDITIONS[condition](samples, rate).astype(np.float32)


def derive_stream(stream: AudioStream, condition: str) -> AudioStream:
    """``stream`` under ``condition``, as the int16 PCM a device would receive."""
    samples = derive(stream.samples, condition, rate=stream.sample_rate)
    return stream.derived(condition, float_to_pcm16(samples))


@exit_on_errors(AudioError)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("clips", nargs="+", type=Path)
    parser.add_argument(
        "--condition",
        action="append",
        choices=condition_choices(),
        help="a condition or a set of them (levels, recording, all); repeatable (default: all)",
    )
    parser.add_argument(
        "--sample-rate", type=int, choices=SAMPLE_RATES, default=DEFAULT_SAMPLE_RATE
    )
    args = parser.parse_args(argv)
    rate = args.sample_rate
    args.output_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for clip in args.clips:
        samples = load_audio(clip, frame_geometry(rate))
        for condition in expand_conditions(args.condition or ["all"]):
            paths.append(args.output_dir / f"{clip.stem}.{condition}.wav")
            pcm = float_to_pcm16(derive(samples, condition, rate))
            soundfile.write(paths[-1], pcm, rate, subtype="PCM_16")
    print("\n".join(map(str, paths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
