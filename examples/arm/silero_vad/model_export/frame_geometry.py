# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""How Silero VAD cuts audio into model calls at its two sample rates (two networks of one
shape: 32 ms of new audio per call, a 4-column STFT). The export writes the geometry into
the program (``PROGRAM_METADATA``), so the C++ runtime reads it instead of assuming it."""

from __future__ import annotations

from dataclasses import dataclass

# int16 sample s is audio s / 32768 (as soundfile reads it): the program's input scale.
PCM16_FULL_SCALE = 32768
PCM16_SCALE = 1.0 / PCM16_FULL_SCALE

# The program's constant methods that carry the geometry (see FrameGeometry.metadata).
PROGRAM_METADATA = ("sample_rate", "hop_samples", "context_samples")


@dataclass(frozen=True)
class FrameGeometry:
    """One model call: ``context_samples`` of the previous call, then ``hop_samples`` new;
    the STFT reflect-pads it on the right, windows of ``stft_filter_length`` every
    ``stft_hop``."""

    sample_rate: int
    hop_samples: int
    context_samples: int
    stft_filter_length: int
    stft_hop: int

    @property
    def frame_samples(self) -> int:
        """The model input length: context then new samples (576 at 16 kHz)."""
        return self.context_samples + self.hop_samples

    @property
    def frame_seconds(self) -> float:
        """Audio time per call: 0.032 s at both rates."""
        return self.hop_samples / self.sample_rate

    @property
    def stft_bins(self) -> int:
        return self.stft_filter_length // 2 + 1

    @property
    def stft_right_pad(self) -> int:
        return self.stft_filter_length // 4

    @property
    def stft_columns(self) -> int:
        """STFT windows per call: what the encoder's first convolution sees (4)."""
        padded = self.frame_samples + self.stft_right_pad
        return (padded - self.stft_filter_length) // self.stft_hop + 1

    def metadata(self) -> dict[str, int]:
        """The program's constant methods: name -> value (``PROGRAM_METADATA``)."""
        return {name: getattr(self, name) for name in PROGRAM_METADATA}


GEOMETRY_16K = FrameGeometry(
    sample_rate=16000, hop_samples=512, context_samples=64, stft_filter_length=256, stft_hop=128
)
GEOMETRY_8K = FrameGeometry(
    sample_rate=8000, hop_samples=256, context_samples=32, stft_filter_length=128, stft_hop=64
)
GEOMETRIES = {geometry.sample_rate: geometry for geometry in (GEOMETRY_16K, GEOMETRY_8K)}
SAMPLE_RATES = tuple(GEOMETRIES)
DEFAULT_SAMPLE_RATE = GEOMETRY_16K.sample_rate


def frame_geometry(sample_rate: int) -> FrameGeometry:
    """The geometry of Silero's model for ``sample_rate`` (16000 or 8000)."""
    try:
        return GEOMETRIES[sample_rate]
    except KeyError:
        rates = ", ".join(str(rate) for rate in SAMPLE_RATES)
        raise ValueError(f"sample rate {sample_rate}: Silero VAD has models for {rates}") from None
