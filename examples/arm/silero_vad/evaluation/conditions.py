# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Recording conditions derived from any clip, to test a quantized VAD beyond clean speech.

Float Silero is nearly gain-invariant and robust to noise, clipping and telephone band
limits; a quantized model must follow it there too, not only on the clips it was tuned
on. Each condition is a deterministic (seeded) function of the clip's samples:

| condition | what |
|---|---|
| ``quiet`` | -30 dB gain (an int8 spectrum sized for loud speech rounds it away) |
| ``clipped`` | +20 dB over the clip's peak, then hard clipping to [-1, 1] |
| ``noisy0``, ``noisy10`` | white noise added at 0 or 10 dB SNR (against the clip's RMS) |
| ``telephone`` | 300-3400 Hz band-pass, through 8 kHz and back |

The CLI writes the derived clips as 16 kHz WAVs, for ``run.sh --validation-wav`` or the
benchmarks:

    python -m examples.arm.silero_vad.evaluation.conditions OUT_DIR CLIP.wav ... \\
        [--condition quiet --condition telephone]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import butter, resample_poly, sosfiltfilt

from examples.arm.silero_vad.model_export.audio import AudioError, load_audio
from examples.arm.silero_vad.model_export.silero_vad_model import SAMPLE_RATE

QUIET_DB = -30.0
CLIPPING_OVERDRIVE_DB = 20.0
TELEPHONE_BAND_HZ = (300.0, 3400.0)
TELEPHONE_RATE = 8000
DEFAULT_SEED = 2026


def _gain(db: float) -> float:
    return 10.0 ** (db / 20.0)


def quiet(samples: np.ndarray, seed: int = DEFAULT_SEED) -> np.ndarray:
    del seed
    return samples * _gain(QUIET_DB)


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


def telephone(samples: np.ndarray, seed: int = DEFAULT_SEED) -> np.ndarray:
    del seed
    low, high = TELEPHONE_BAND_HZ
    band = butter(6, [low, high], btype="bandpass", fs=SAMPLE_RATE, output="sos")
    filtered = sosfiltfilt(band, samples.astype(np.float64))
    narrow = resample_poly(filtered, TELEPHONE_RATE, SAMPLE_RATE)
    wide = resample_poly(narrow, SAMPLE_RATE, TELEPHONE_RATE)[: samples.shape[0]]
    return np.clip(wide, -1.0, 1.0)


CONDITIONS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "quiet": quiet,
    "clipped": clipped,
    "noisy0": with_noise(0.0),
    "noisy10": with_noise(10.0),
    "telephone": telephone,
}


def derive(samples: np.ndarray, condition: str, seed: int = DEFAULT_SEED) -> np.ndarray:
    """``samples`` (16 kHz mono float) under ``condition``, as float32."""
    if condition not in CONDITIONS:
        raise ValueError(f"condition {condition!r}: expected one of {', '.join(CONDITIONS)}")
    return CONDITIONS[condition](samples, seed).astype(np.float32)


def derived_name(clip: Path, condition: str) -> str:
    return f"{clip.stem}.{condition}.wav"


def write_derived(
    clips: list[Path], output_dir: Path, conditions: list[str], seed: int = DEFAULT_SEED
) -> list[Path]:
    """Writes every clip under every condition as a 16 kHz float WAV; returns the paths."""
    output_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for clip in clips:
        samples = load_audio(clip)
        for condition in conditions:
            path = output_dir / derived_name(clip, condition)
            soundfile.write(path, derive(samples, condition, seed), SAMPLE_RATE, subtype="FLOAT")
            paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("clips", nargs="+", type=Path)
    parser.add_argument(
        "--condition",
        action="append",
        choices=sorted(CONDITIONS),
        help=f"repeatable (default: all: {', '.join(CONDITIONS)})",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    try:
        paths = write_derived(
            args.clips, args.output_dir, args.condition or list(CONDITIONS), args.seed
        )
    except AudioError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
