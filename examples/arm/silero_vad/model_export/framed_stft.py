# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD's STFT magnitude, rewritten for the NPU and for integer arithmetic.

The same spectrum as ``StftMagnitude`` (float max diff ~1e-5), in two steps (16 kHz numbers):

1. Framing without a pad: the reflect-padded 640-sample frame is five 128-sample hops (a
   reshape, and one reverse for the 64 reflected samples); window ``i`` is hops ``i`` and
   ``i + 1``. Ethos-U would run the official strided one-channel convolution as slow
   depthwise passes plus dozens of copies for the pad.
2. Half the basis: the windowed DFT basis is even (real) and odd (imaginary) around sample
   128, so ``x[n] + x[256-n]`` and ``x[n] - x[256-n]`` meet a 129x128 and a 129x127 matrix
   instead of the 258x256 one: half the weights to stream per frame.

Reverses are ``torch.flip``, or on Ethos-U55 (no REVERSE) products with an exchange matrix.
The magnitude is the largest projection of ``(|re|, |im|)`` on 16 directions (a 16-gon's
support function, within 0.97 %): linear in the spectrum, so small magnitudes keep the
spectrum's resolution, where ``sqrt(re^2 + im^2)`` squares them to zero in integers.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from examples.arm.silero_vad.model_export.frame_geometry import FrameGeometry
from examples.arm.silero_vad.model_export.silero_vad_model import StftMagnitude

# How the front end reverses samples: "flip" (TOSA REVERSE) or "matmul" (exchange matrix).
REVERSALS = ("flip", "matmul")

# Two directions in the first octant; folding the plane into it (abs, max/min) makes 16,
# 22.5 degrees apart. The gain centres |z| cos(d), d <= 11.25 degrees, around |z|.
_POLYGON_HALF_ANGLE = math.pi / 16
_POLYGON_GAIN = 2.0 / (1.0 + math.cos(_POLYGON_HALF_ANGLE))
_POLYGON_FIRST, _POLYGON_SECOND = (
    (math.cos(angle) * _POLYGON_GAIN, math.sin(angle) * _POLYGON_GAIN)
    for angle in (_POLYGON_HALF_ANGLE, 3 * _POLYGON_HALF_ANGLE)
)
# c1 L + s1 S = (c1 / c0) (c0 L + s0 S) + (s1 - s0 c1 / c0) S, both factors positive.
_POLYGON_SECOND_FROM_FIRST = (
    _POLYGON_SECOND[0] / _POLYGON_FIRST[0],
    _POLYGON_SECOND[1] - _POLYGON_FIRST[1] * _POLYGON_SECOND[0] / _POLYGON_FIRST[0],
)
POLYGON_MAX_RELATIVE_ERROR = (1 - math.cos(_POLYGON_HALF_ANGLE)) / (
    1 + math.cos(_POLYGON_HALF_ANGLE)
)  # 0.0097


def polygon_magnitude(real: torch.Tensor, imag: torch.Tensor) -> torch.Tensor:
    """``|real + i imag|`` within 0.97 %, from abs, max, min, scale and add only."""
    a, b = real.abs(), imag.abs()
    larger, smaller = torch.maximum(a, b), torch.minimum(a, b)
    first = larger * _POLYGON_FIRST[0] + smaller * _POLYGON_FIRST[1]
    # The second projection from the first: no two adds read the same tensors, so every
    # scale factor can fold into a dequantize (FoldScalarMulIntoQParamsPass).
    second = first * _POLYGON_SECOND_FROM_FIRST[0] + smaller * _POLYGON_SECOND_FROM_FIRST[1]
    return torch.maximum(first, second)


def _check_symmetry(real: torch.Tensor, imag: torch.Tensor) -> None:
    """The fold is exact only for an even real and an odd imaginary basis (a symmetric window)."""
    tail = slice(1, None)
    even = torch.allclose(real[:, tail], real[:, tail].flip(1), atol=1e-7)
    odd = torch.allclose(imag[:, tail], -imag[:, tail].flip(1), atol=1e-7)
    first_column_zero = not real[:, 0].any() and not imag[:, 0].any()
    if not (even and odd and first_column_zero):
        raise ValueError("STFT basis is not symmetric around its centre: cannot fold it")


class Reverse(nn.Module):
    """Reverses the last dimension: ``torch.flip``, or a product with a 0/1 exchange matrix
    (exact in int8 with per-channel scales) for NPUs without a reverse operator."""

    def __init__(self, size: int, reversal: str = "flip") -> None:
        super().__init__()
        if reversal not in REVERSALS:
            raise ValueError(f"reversal {reversal!r}: expected one of {', '.join(REVERSALS)}")
        self.reversal = reversal
        if reversal == "matmul":
            self.exchange = nn.Linear(size, size, bias=False)
            with torch.no_grad():
                self.exchange.weight.copy_(torch.eye(size).flip(0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.flip(-1) if self.reversal == "flip" else self.exchange(x)


class FramedStftMagnitude(nn.Module):
    """``StftMagnitude`` as reshape/reverse/add, two small linear layers and the polygon
    magnitude."""

    def __init__(
        self, forward_basis: torch.Tensor, geometry: FrameGeometry, reversal: str = "flip"
    ) -> None:
        super().__init__()
        bins, half = geometry.stft_bins, geometry.stft_hop
        basis = forward_basis[:, 0, :]  # (258, 256) at 16 kHz
        real, imag = basis[:bins], basis[bins:]
        _check_symmetry(real, imag)
        self.geometry = geometry
        # Inputs: x[n] + x[256-n] for n = 1..127, then x[128] (weight real[:, 128]).
        self.even = nn.Linear(half, bins, bias=False)
        # Inputs: x[n] - x[256-n] for n = 1..127 (imag[:, 128] is zero).
        self.odd = nn.Linear(half - 1, bins, bias=False)
        with torch.no_grad():
            self.even.weight.copy_(real[:, 1 : half + 1])
            self.odd.weight.copy_(imag[:, 1:half])
        self.reverse_reflection = Reverse(geometry.stft_right_pad, reversal)
        self.reverse_hops = Reverse(half, reversal)

    @classmethod
    def from_stft(cls, stft: StftMagnitude, reversal: str = "flip") -> FramedStftMagnitude:
        return cls(stft.forward_basis, stft.geometry, reversal)

    def hops(self, frame: torch.Tensor) -> torch.Tensor:
        """(5, 128) at 16 kHz: the padded frame in hops; window ``i`` is hops ``i``, ``i + 1``."""
        g = self.geometry
        windows, hop, end = g.stft_columns, g.stft_hop, g.frame_samples
        hops = frame[:, : windows * hop].reshape(windows, hop)
        # Reflect pad: padded[576 + k] = frame[574 - k], k = 0..63.
        reflected = self.reverse_reflection(frame[:, end - 1 - g.stft_right_pad : end - 1])
        last = torch.cat([frame[:, windows * hop :], reflected], dim=1)
        return torch.cat([hops, last], dim=0)

    def folded(self, frame: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The inputs of the two basis products: ``x[n] + x[256 - n]`` then ``x[128]``
        (4, 128), and ``x[n] - x[256 - n]`` (4, 127), per window (16 kHz numbers)."""
        # x[256 - n] of window i is hops[i + 1, 128 - n] = reversed[i + 1, n - 1]: no
        # overlapping windows to build.
        windows, half = self.geometry.stft_columns, self.geometry.stft_hop
        hops = self.hops(frame)
        reversed_hops = self.reverse_hops(hops)
        head = hops[:windows, 1:]  # x[n] for n = 1..127
        mirrored = reversed_hops[1:, : half - 1]  # x[256 - n] for n = 1..127
        centre = hops[1:, :1]  # x[128]
        return torch.cat([head + mirrored, centre], dim=1), head - mirrored

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        even_part, odd_part = self.folded(frame)
        return self.magnitude_of(self.even(even_part), self.odd(odd_part))

    def magnitude_of(self, real: torch.Tensor, imag: torch.Tensor) -> torch.Tensor:
        """``(..., windows, bins)`` real and imaginary parts -> ``(..., bins, windows)``
        magnitude (``(1, bins, windows)`` unbatched)."""
        magnitude = polygon_magnitude(real, imag).transpose(-2, -1)
        return magnitude.unsqueeze(0) if magnitude.dim() == 2 else magnitude
