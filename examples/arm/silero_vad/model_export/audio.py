# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Audio front door: any file soundfile reads -> 16 kHz mono float -> model frames.

Every consumer (calibration, reference probabilities, the device twin, the report)
goes through here, so they all see the same samples and the same framing as the C++
runtime: frame ``i`` holds the 64 samples before ``i * 512`` (zeros before the
first frame) followed by 512 new samples, the last frame zero-padded. Each file
stays its own :class:`AudioStream` so that stream boundaries (state resets) survive.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import resample_poly

from examples.arm.silero_vad.model_export.silero_vad_model import (
    CONTEXT_SAMPLES,
    FRAME_SAMPLES,
    HOP_SAMPLES,
    SAMPLE_RATE,
)

logger = logging.getLogger(__name__)


class AudioError(ValueError):
    """A file that cannot be used as VAD input; the message names the file and the problem."""


@dataclass(frozen=True)
class AudioStream:
    """One audio file: its 16 kHz mono samples and the model frames cut from them."""

    path: Path
    samples: np.ndarray  # float32, (num_samples,)
    frames: np.ndarray  # float32, (num_frames, 576)

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def num_samples(self) -> int:
        return int(self.samples.shape[0])

    @property
    def num_frames(self) -> int:
        return int(self.frames.shape[0])


def load_audio(path: str | Path) -> np.ndarray:
    """Reads ``path`` as float32 mono 16 kHz samples, downmixing and resampling if needed."""
    path = Path(path)
    if not path.exists():
        raise AudioError(f"{path}: no such file")
    if not path.is_file():
        raise AudioError(f"{path}: not a regular file")
    if path.stat().st_size == 0:
        raise AudioError(f"{path}: empty file (0 bytes)")
    try:
        samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (soundfile.LibsndfileError, RuntimeError, TypeError) as error:
        raise AudioError(f"{path}: not a readable audio file ({error})") from error

    if samples.shape[0] == 0:
        raise AudioError(f"{path}: contains no audio samples")
    bad = np.flatnonzero(~np.isfinite(samples).all(axis=1))
    if bad.size:
        raise AudioError(
            f"{path}: {bad.size} non-finite (NaN or Inf) sample(s), first at sample {bad[0]}"
        )

    channels = samples.shape[1]
    if channels > 1:
        logger.warning("%s: %d channels, downmixed to mono by averaging", path, channels)
    mono = samples.mean(axis=1, dtype=np.float64)

    if rate != SAMPLE_RATE:
        logger.warning("%s: resampled from %d Hz to %d Hz", path, rate, SAMPLE_RATE)
        divisor = math.gcd(int(rate), SAMPLE_RATE)
        mono = resample_poly(mono, SAMPLE_RATE // divisor, int(rate) // divisor)

    if mono.shape[0] < HOP_SAMPLES:
        raise AudioError(
            f"{path}: {mono.shape[0]} samples at {SAMPLE_RATE} Hz is shorter than one frame "
            f"({HOP_SAMPLES} samples = {1000 * HOP_SAMPLES // SAMPLE_RATE} ms)"
        )
    return mono.astype(np.float32)


def frame_samples(samples: np.ndarray) -> np.ndarray:
    """Cuts samples into ``(num_frames, 576)`` model inputs: 64 context + 512 new samples.

    The context of frame ``i`` is the 64 samples before ``i * 512`` (zeros for the first
    frame). The last frame is zero-padded, so no sample is dropped.
    """
    num_frames = -(-samples.shape[0] // HOP_SAMPLES)
    padded = np.zeros(CONTEXT_SAMPLES + num_frames * HOP_SAMPLES, dtype=np.float32)
    padded[CONTEXT_SAMPLES : CONTEXT_SAMPLES + samples.shape[0]] = samples
    starts = np.arange(num_frames) * HOP_SAMPLES
    return padded[starts[:, None] + np.arange(FRAME_SAMPLES)[None, :]]


def load_stream(path: str | Path) -> AudioStream:
    """Loads one file as a stream of model frames."""
    samples = load_audio(path)
    return AudioStream(path=Path(path), samples=samples, frames=frame_samples(samples))


def load_streams(paths: list[str | Path]) -> list[AudioStream]:
    """Loads several files, one stream each (stream boundaries are state resets)."""
    if not paths:
        raise AudioError("no audio files given")
    return [load_stream(path) for path in paths]


def wav_files(directory: Path) -> list[Path]:
    """The ``.wav`` files of a directory, sorted so runs are reproducible."""
    files = sorted(directory.glob("*.wav"))
    if not files:
        raise AudioError(f"{directory}: no .wav files")
    return files
