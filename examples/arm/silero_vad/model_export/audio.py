# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Audio front door: any file soundfile reads -> mono int16 PCM at the model's rate -> frames.

Calibration, references, the device twin and the report all read audio through here, so
they see the samples and framing of the C++ runtime: frame ``i`` holds the context samples
before ``i * hop`` (zeros at first), then ``hop`` new ones, the last frame zero-padded.
Each file stays its own :class:`AudioStream`, so stream boundaries (state resets) survive.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import resample_poly

from examples.arm.silero_vad.model_export.frame_geometry import (
    GEOMETRY_16K,
    PCM16_FULL_SCALE,
    FrameGeometry,
)

logger = logging.getLogger(__name__)


class AudioError(ValueError):
    """A file that cannot be used as VAD input; the message names the file and the problem."""


@dataclass(frozen=True)
class AudioStream:
    """One audio file as the device hears it: mono int16 PCM at the model's sample rate."""

    path: Path
    pcm: np.ndarray  # int16, (num_samples,)
    geometry: FrameGeometry = GEOMETRY_16K

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def sample_rate(self) -> int:
        return self.geometry.sample_rate

    @property
    def num_samples(self) -> int:
        return int(self.pcm.shape[0])

    @property
    def num_frames(self) -> int:
        return -(-self.num_samples // self.geometry.hop_samples)

    def derived(self, label: str, pcm: np.ndarray) -> AudioStream:
        """The same stream with other PCM (a condition, a gain), named ``<name>.<label>``."""
        path = self.path.with_name(f"{self.path.stem}.{label}{self.path.suffix}")
        return AudioStream(path, pcm, self.geometry)

    @cached_property
    def samples(self) -> np.ndarray:
        """float32 audio in [-1, 1): the PCM over 32768, as soundfile reads it."""
        return pcm16_to_float(self.pcm)

    @cached_property
    def frames(self) -> np.ndarray:
        """int16 model inputs ``(num_frames, frame_samples)``: what the program takes."""
        return frame_samples(self.pcm, self.geometry)

    @cached_property
    def float_frames(self) -> np.ndarray:
        """The frames as float32 audio, for the float model (and float-input programs)."""
        return pcm16_to_float(self.frames)


def pcm16_to_float(pcm: np.ndarray) -> np.ndarray:
    return (pcm.astype(np.float32) / PCM16_FULL_SCALE).astype(np.float32)


def float_to_pcm16(samples: np.ndarray) -> np.ndarray:
    """Rounds float audio to int16 PCM (full scale 32768), clipping what exceeds it."""
    scaled = np.round(np.asarray(samples, dtype=np.float64) * PCM16_FULL_SCALE)
    return np.clip(scaled, -PCM16_FULL_SCALE, PCM16_FULL_SCALE - 1).astype(np.int16)


def load_audio(path: str | Path, geometry: FrameGeometry = GEOMETRY_16K) -> np.ndarray:
    """``path`` as float32 mono samples at ``geometry``'s rate (downmixed, resampled)."""
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

    target_rate = geometry.sample_rate
    if rate != target_rate:
        logger.warning("%s: resampled from %d Hz to %d Hz", path, rate, target_rate)
        divisor = math.gcd(int(rate), target_rate)
        mono = resample_poly(mono, target_rate // divisor, int(rate) // divisor)

    hop = geometry.hop_samples
    if mono.shape[0] < hop:
        raise AudioError(
            f"{path}: {mono.shape[0]} samples at {target_rate} Hz is shorter than one frame "
            f"({hop} samples = {1000 * hop // target_rate} ms)"
        )
    return mono.astype(np.float32)


def frame_samples(samples: np.ndarray, geometry: FrameGeometry = GEOMETRY_16K) -> np.ndarray:
    """Cuts samples into ``(num_frames, frame_samples)`` model inputs in their own dtype."""
    hop, context = geometry.hop_samples, geometry.context_samples
    num_frames = -(-samples.shape[0] // hop)
    padded = np.zeros(context + num_frames * hop, dtype=samples.dtype)
    padded[context : context + samples.shape[0]] = samples
    starts = np.arange(num_frames) * hop
    return padded[starts[:, None] + np.arange(geometry.frame_samples)[None, :]]


def load_stream(path: str | Path, geometry: FrameGeometry = GEOMETRY_16K) -> AudioStream:
    """Loads one file as the int16 PCM stream the device would receive."""
    pcm = float_to_pcm16(load_audio(path, geometry))
    return AudioStream(path=Path(path), pcm=pcm, geometry=geometry)


def load_streams(
    paths: list[str | Path], geometry: FrameGeometry = GEOMETRY_16K
) -> list[AudioStream]:
    """Loads several files, one stream each (stream boundaries are state resets)."""
    if not paths:
        raise AudioError("no audio files given")
    return [load_stream(path, geometry) for path in paths]


def wav_files(directory: Path) -> list[Path]:
    """The ``.wav`` files of a directory, sorted so runs are reproducible."""
    files = sorted(directory.glob("*.wav"))
    if not files:
        raise AudioError(f"{directory}: no .wav files")
    return files
