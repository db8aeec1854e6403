# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Calibration statistics that come out the same on any CPU, so the program does too.

Every number the program takes from calibration (the state's range, the activation ranges,
the GPTQ weight codes, the corrected biases) is computed from forward passes over the
calibration audio. In float32 those passes round differently on different CPU kernels
(AVX-512, AVX2, baseline; oneDNN, MKL), and the program's bytes moved with the build
machine. Two levers together make them independent of it (``REPRODUCIBLE``):

1. The forward passes run in float64 (``statistics_dtype``). The kernels still differ, but
   by about 1e-13 of a value instead of 1e-4 (measured: STUDIES.md).
2. Each statistic is rounded to a grid far coarser than that: ranges outward to
   ``RANGE_BITS`` significant bits, biases to the nearest of ``BIAS_BITS``, weights to
   their integer codes, histogram values to their bins. A value closer than ``MARGIN``
   (relative; in code or bin units for weights and histograms) to where its rounding
   changes could round the other way on another machine: the export refuses it
   (``NotReproducibleError``) instead of writing a program that may differ. The margins
   sit a thousand times above the float64 noise, and refuse an export about once in 400
   (mostly for a bias); the committed clips' defaults pass.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import numpy as np
import torch
from torch import nn
from torchao.quantization.pt2e import HistogramObserver
from torchao.quantization.pt2e.quantizer import QuantizationSpec

# The lever. False: the statistics in float32 and unrounded, as the export made them before
# (what that costs is measured by the lever test and in STUDIES.md).
REPRODUCIBLE = True
# Ranges (outward) and corrected biases (to the nearest) keep 16 significant bits: a range
# moves the top code of its int16 grid by less than one step, a bias by less than 8e-6 of
# itself. (Coarser grids move the accuracy figures as much as any other perturbation of
# the arithmetic, no further: STUDIES.md.)
RANGE_BITS = 16
BIAS_BITS = 16
# How close (relative) a range or bias may come to a rounding boundary: a thousand times
# what float64 kernels differ by (1.4e-14 relative, a corrected bias; STUDIES.md).
MARGIN = 2.0**-36
# How close (in weight codes) a GPTQ value may come to a rounding boundary: a thousand
# times what float64 kernels differ by (1.4e-13 codes).
CODE_MARGIN = 2.0**-30
# How close (in bins) a histogram's value may come to a bin edge: far more than float64
# values differ by (the gate inputs' came out bit-identical on two kernel sets; the other
# float64 statistics differ by up to 1.4e-13 relative: STUDIES.md).
BIN_MARGIN = 2.0**-30


class NotReproducibleError(RuntimeError):
    """A statistic sits so close to a rounding boundary that another CPU could round it the
    other way; the message names it."""


def _grid_positions(values: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """``values`` in units of their grid step (``bits`` significant bits), and the steps."""
    _, exponents = np.frexp(values)
    steps = np.ldexp(1.0, exponents - bits)
    return values / steps, steps


def _refuse_near(distance: np.ndarray, values: np.ndarray, what: str) -> None:
    near = np.flatnonzero(distance < MARGIN * np.abs(values))
    if near.size:
        index = int(near[0])
        raise NotReproducibleError(
            f"{what}: value {values.flat[index]!r} (index {index}) lies "
            f"{distance.flat[index]:.3g} from a rounding boundary, within the float noise "
            "of another CPU; calibrate with one clip more or less to move it"
        )


def snap_outward(low: float, high: float, what: str) -> tuple[float, float]:
    """The range ``[low, high]`` widened to the ``RANGE_BITS`` grid.

    An end just outside a grid point is refused: noise could have put it there from inside,
    where it would round to that point. An end on a grid point or just inside one stays
    there: that is where bounded functions sit (a sigmoid's maximum is 1 - 5e-15 or 1.0,
    never above), and another value lands that close inside with a chance of 1e-10.
    """
    if not REPRODUCIBLE:
        return low, high
    values = np.array([low, high], dtype=np.float64)
    positions, steps = _grid_positions(values, RANGE_BITS)
    snapped = np.array([np.floor(positions[0]), np.ceil(positions[1])])
    beyond = np.abs(positions - np.array([np.ceil(positions[0]), np.floor(positions[1])]))
    _refuse_near(np.where(beyond > 0, beyond * steps, np.inf), values, what)
    return float(snapped[0] * steps[0]), float(snapped[1] * steps[1])


def snap_nearest(values: torch.Tensor, what: str) -> torch.Tensor:
    """``values`` rounded to ``BIAS_BITS`` significant bits (float64 in, float64 out)."""
    if not REPRODUCIBLE:
        return values
    array = values.detach().to(torch.float64).numpy()
    positions, steps = _grid_positions(array, BIAS_BITS)
    distance = np.abs(positions - np.floor(positions) - 0.5) * steps
    _refuse_near(distance, array, what)
    return torch.from_numpy(np.round(positions) * steps)


def check_code_margin(codes: torch.Tensor, top_code: int, what: str) -> None:
    """Refuses real-valued weight codes (before rounding) that lie within ``CODE_MARGIN`` of
    a rounding boundary; codes beyond ``top_code`` clamp to it whichever way they round."""
    if not REPRODUCIBLE:
        return
    inside = codes.abs() <= top_code
    distance = ((codes - torch.floor(codes)) - 0.5).abs()
    near = torch.nonzero(inside & (distance < CODE_MARGIN))
    if near.numel():
        index = tuple(int(i) for i in near[0])
        raise NotReproducibleError(
            f"{what}: weight {index} rounds from {codes[index].item()!r}, "
            f"{distance[index].item():.3g} of a code from a rounding boundary, within the "
            "float noise of another CPU; calibrate with one clip more or less to move it"
        )


class ReproducibleHistogramObserver(HistogramObserver):
    """The release's histogram observer (the int8 activations: the LSTM gate products'
    inputs) with a range that comes out the same on any CPU: it keeps every value it sees
    (in the dtype calibration computes in, float64) and its qparams are those of
    ``histogram_search_range`` over all of them, searched once. An observer class of its
    own, not a replacement after calibration: the biases' derived specs hold the observer
    object itself."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """The release's arguments (``HistogramObserver.with_args``), passed on unchanged."""
        super().__init__(*args, **kwargs)
        self.seen: list[torch.Tensor] = []
        self._searched: tuple[float, float] | None = None

    def forward(self, x_orig: torch.Tensor) -> torch.Tensor:
        """Keeps ``x_orig``'s values; no histogram yet (its bins would follow the frames)."""
        if x_orig.numel():
            self.seen.append(x_orig.detach().flatten().to(torch.float64))
            self._searched = None
        return x_orig

    def searched_range(self) -> tuple[float, float]:
        """The range searched over every value seen, once (each derived bias spec asks)."""
        if self._searched is None:
            what = "the range of an int8 activation (an LSTM gate product's input)"
            self._searched = histogram_search_range(self, torch.cat(self.seen), what)
        return self._searched

    def calculate_qparams(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The release's qparams of the searched range."""
        if not self.seen:  # the release's warning and default qparams
            return super().calculate_qparams()
        low, high = self.searched_range()
        return self._calculate_qparams(torch.tensor(low), torch.tensor(high))


def reproducible_histogram_spec(spec: QuantizationSpec) -> QuantizationSpec:
    """``spec`` (the release's, with a histogram observer) observed by a
    ``ReproducibleHistogramObserver`` with the same arguments (unchanged without the lever)."""
    if not REPRODUCIBLE:
        return spec
    constructor = spec.observer_or_fake_quant_ctr
    if constructor.p.func is not HistogramObserver:
        raise TypeError(f"expected the release's HistogramObserver, got {constructor.p.func}")
    observer = ReproducibleHistogramObserver.with_args(**constructor.p.keywords)
    return replace(spec, observer_or_fake_quant_ctr=observer)


def histogram_search_range(
    observer: HistogramObserver, values: torch.Tensor, what: str
) -> tuple[float, float]:
    """The range the release's histogram search picks for ``values`` (float64, all that
    ``observer`` saw), made independent of the CPU, and snapped outward.

    The release fills a float32 histogram frame by frame, re-binning it each time the range
    grows, and searches it in float32: both round with the CPU's kernels, and the searched
    range moved with them (measured: STUDIES.md). Here one histogram of every value, between
    the snapped extremes, is filled and searched in float64; a value within ``BIN_MARGIN``
    of a bin edge, or a search whose float32 run picks another range (two candidates within
    float rounding of each other), is refused.
    """
    low, high = snap_outward(*(float(end) for end in torch.aminmax(values)), what)
    if high == low:
        return low, high
    positions = (values - low) / (high - low) * observer.bins
    edges = torch.round(positions)
    distance = (positions - edges).abs()
    # Zeros (ReLU, the zero state) are exact on every CPU; nothing lies beyond the ends.
    inside = (values != 0) & (edges > 0) & (edges < observer.bins)
    near = torch.nonzero((distance < BIN_MARGIN) & inside)
    if near.numel():
        index = int(near[0])
        raise NotReproducibleError(
            f"{what}: value {values[index].item()!r} (index {index}) lies "
            f"{distance[index].item():.3g} of a bin from a histogram bin edge, within the "
            "float noise of another CPU; calibrate with one clip more or less to move it"
        )
    histogram = torch.histc(values.to(torch.float64), observer.bins, low, high)
    searched = {
        dtype: _searched_range(observer, histogram, low, high, dtype)
        for dtype in (torch.float64, torch.float32)
    }
    bin_width = (high - low) / observer.bins
    if any(
        abs(end64 - end32) > bin_width / 2
        for end64, end32 in zip(searched[torch.float64], searched[torch.float32], strict=True)
    ):
        raise NotReproducibleError(
            f"{what}: the histogram search ends on {searched[torch.float64]} in float64 and "
            f"on {searched[torch.float32]} in float32: two ranges within float rounding of "
            "each other, either could win on another CPU; calibrate with one clip more or "
            "less to move it"
        )
    return snap_outward(*searched[torch.float64], what)


def _searched_range(
    observer: HistogramObserver,
    histogram: torch.Tensor,
    low: float,
    high: float,
    dtype: torch.dtype,
) -> tuple[float, float]:
    """The release's search on ``histogram`` (over ``[low, high]``) in ``dtype``, by a fresh
    observer of ``observer``'s kind (the search makes its own tensors in the default dtype)."""
    searcher = HistogramObserver(bins=observer.bins, dtype=observer.dtype)
    searcher.min_val = torch.tensor(low, dtype=dtype)
    searcher.max_val = torch.tensor(high, dtype=dtype)
    searcher.histogram = histogram.to(dtype)
    default_dtype = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        new_low, new_high = searcher._non_linear_param_search()
    finally:
        torch.set_default_dtype(default_dtype)
    return float(new_low), float(new_high)


def statistics_dtype() -> torch.dtype:
    """The dtype of every forward pass that gathers statistics."""
    return torch.float64 if REPRODUCIBLE else torch.float32


def statistics_copy(model: nn.Module) -> nn.Module:
    """A copy of a float model that computes in ``statistics_dtype()``."""
    return copy.deepcopy(model).to(statistics_dtype())


def statistics_frames(frames: np.ndarray) -> torch.Tensor:
    """Float audio frames in ``statistics_dtype()`` (exact: they come from int16 PCM)."""
    return torch.from_numpy(frames).to(statistics_dtype())
