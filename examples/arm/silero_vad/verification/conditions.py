# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Recording conditions derived from any clip, to test a quantized VAD beyond clean speech.

A product's microphone gain is not the calibration's: the program meets speech from a
whisper far from the microphone to a talker driving the converter into clipping, over
noise and through telephone channels. A quantized model must make float Silero's
decisions there too, not only on the clips it was tuned on. Each condition is a
deterministic (seeded) function of the clip's samples:

| condition | what |
|---|---|
| ``level-40`` ... ``level+20`` | the level sweep: -40, -30, -20, -10, +10 or +20 dB of gain |
|  | on the clip as recorded, clipped at full scale (``level-30`` is ``quiet``; 0 dB is the clip) |
| ``clean`` | the clip as recorded (the sweep's 0 dB; in no set: the reports have it already) |
| ``clipped`` | +20 dB over the clip's peak, then hard clipping to [-1, 1] |
| ``noisy0``, ``noisy10`` | white noise added at 0 or 10 dB SNR (against the clip's RMS) |
| ``telephone`` | 300-3400 Hz band-pass, through 8 kHz and back |

``CONDITION_SETS`` names the groups the reports use: ``levels`` (the sweep) and
``recording`` (quiet, clipped, noisy at 10 dB SNR, telephone band).

The CLI writes the derived clips as 16-bit PCM WAVs at the clips' rate (16 kHz unless
``--sample-rate 8000``), what the device and the C++ runner take, for ``run.sh
--validation-wav`` or the benchmarks:

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

LEVELS_DB = (-40, -30, -20, -10, 10, 20)
QUIET_DB = -30
CLIPPING_OVERDRIVE_DB = 20.0
TELEPHONE_BAND_HZ = (300.0, 3400.0)
TELEPHONE_RATE = 8000
DEFAULT_SEED = 2026


def _gain(db: float) -> float:
    return 10.0 ** (db / 20.0)


def level_name(db: int) -> str:
    return f"level{db:+d}"


def at_level(db: float) -> Callable[[np.ndarray, int], np.ndarray]:
    """The clip with a gain of ``db`` dB, clipped to [-1, 1] as a converter would."""

    def leveled(samples: np.ndarray, seed: int = DEFAULT_SEED) -> np.ndarray:
        del seed
        return np.clip(samples * _gain(db), -1.0, 1.0)

    return leveled


def clipped(samples: np.ndarray, seed: int = DEFAULT_SEED) -> np.ndarray:
    del seed
    peak = float(np.abs(samples).max())
    if peak == 0.0:
        return samples.copy()
    return np.clip(samples * (_gain(CLIPPING_OVERDRIVE_DB) / peak), -1.0, 1.0)


def with_noise(snr_db: float) -> Callable[[np.ndarray, int], np.ndarray]:
    """White noise at ``snr_db`` against the clip's RMS (seeded), clipped to [-1, 1]."""

    def noisy(samples: np.ndarray, seed: int = DEFAULT_SEED) -> np.ndarray:
        rms = float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))
        noise = np.random.default_rng(seed).standard_normal(samples.shape)
        return np.clip(samples + noise * rms * _gain(-snr_db), -1.0, 1.0)

    return noisy


def telephone(
    samples: np.ndarray, seed: int = DEFAULT_SEED, rate: int = DEFAULT_SAMPLE_RATE
) -> np.ndarray:
    del seed
    low, high = TELEPHONE_BAND_HZ
    band = butter(6, [low, high], btype="bandpass", fs=rate, output="sos")
    filtered = sosfiltfilt(band, samples.astype(np.float64))
    if rate != TELEPHONE_RATE:
        narrow = resample_poly(filtered, TELEPHONE_RATE, rate)
        filtered = resample_poly(narrow, rate, TELEPHONE_RATE)[: samples.shape[0]]
    return np.clip(filtered, -1.0, 1.0)


CONDITIONS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    **{level_name(db): at_level(db) for db in LEVELS_DB},
    "clean": at_level(0.0),
    "clipped": clipped,
    "noisy0": with_noise(0.0),
    "noisy10": with_noise(10.0),
    "telephone": telephone,
}


QUIET = level_name(QUIET_DB)
CONDITION_SETS: dict[str, tuple[str, ...]] = {
    "levels": tuple(level_name(db) for db in LEVELS_DB),
    "recording": (QUIET, "clipped", "noisy10", "telephone"),
}


def expand_conditions(names: list[str]) -> list[str]:
    """Condition names with set names (``levels``, ``recording``, ``all``) expanded, in
    order, each once."""
    expanded: list[str] = []
    for name in names:
        if name == "all":
            members = [c for group in CONDITION_SETS.values() for c in group]
        elif name in CONDITION_SETS:
            members = list(CONDITION_SETS[name])
        elif name in CONDITIONS:
            members = [name]
        else:
            choices = ", ".join([*CONDITIONS, *CONDITION_SETS, "all"])
            raise ValueError(f"condition {name!r}: expected one of {choices}")
        for member in members:
            if member not in expanded:
                expanded.append(member)
    return expanded


def condition_choices() -> list[str]:
    """What ``--condition`` accepts: every condition, every set, and ``all``."""
    return [*CONDITIONS, *CONDITION_SETS, "all"]


def derive_stream(stream: AudioStream, condition: str) -> AudioStream:
    """``stream`` under ``condition``, as the int16 PCM a device would receive."""
    samples = derive(stream.samples, condition, rate=stream.sample_rate)
    return stream.derived(condition, float_to_pcm16(samples))


def derive(
    samples: np.ndarray,
    condition: str,
    seed: int = DEFAULT_SEED,
    rate: int = DEFAULT_SAMPLE_RATE,
) -> np.ndarray:
    """``samples`` (mono float at ``rate``) under ``condition``, as float32."""
    if condition not in CONDITIONS:
        raise ValueError(f"condition {condition!r}: expected one of {', '.join(CONDITIONS)}")
    if condition == "telephone":
        return telephone(samples, seed, rate).astype(np.float32)
    return CONDITIONS[condition](samples, seed).astype(np.float32)


def derived_name(clip: Path, condition: str) -> str:
    return f"{clip.stem}.{condition}.wav"


def write_derived(
    clips: list[Path],
    output_dir: Path,
    conditions: list[str],
    seed: int = DEFAULT_SEED,
    rate: int = DEFAULT_SAMPLE_RATE,
) -> list[Path]:
    """Writes every clip under every condition as 16-bit PCM at ``rate``; returns the paths."""
    output_dir.mkdir(parents=True, exist_ok=True)
    geometry = frame_geometry(rate)
    paths = []
    for clip in clips:
        samples = load_audio(clip, geometry)
        for condition in conditions:
            path = output_dir / derived_name(clip, condition)
            pcm = float_to_pcm16(derive(samples, condition, seed, rate))
            soundfile.write(path, pcm, rate, subtype="PCM_16")
            paths.append(path)
    return paths


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
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument(
        "--sample-rate", type=int, choices=SAMPLE_RATES, default=DEFAULT_SAMPLE_RATE
    )
    args = parser.parse_args(argv)
    try:
        conditions = expand_conditions(args.condition or ["all"])
        paths = write_derived(args.clips, args.output_dir, conditions, args.seed, args.sample_rate)
    except AudioError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
