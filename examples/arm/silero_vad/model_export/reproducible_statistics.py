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
   their integer codes. A value closer than ``MARGIN`` (relative; in code units for
   weights) to where its rounding changes could round the other way on another machine:
   the export refuses it (``NotReproducibleError``) instead of writing a program that
   may differ. On the committed clips the closest value sits about a thousand times
   farther out than that.
"""

from __future__ import annotations

import copy

import numpy as np
import torch
from torch import nn

# The lever. False: the statistics in float32 and unrounded, as the export made them before
# (what that costs is measured by the lever test and in STUDIES.md).
REPRODUCIBLE = True
# Activation and state ranges keep 12 significant bits: at most 0.05 % wider than measured.
RANGE_BITS = 12
# Corrected biases keep 16 significant bits: an error below 8e-6 of the bias.
BIAS_BITS = 16
# How close (relative) a statistic may come to a rounding boundary: float64 kernels
# differ by at most about 1e-13 relative (STUDIES.md), a hundred times less.
MARGIN = 2.0**-36
# How close (in weight codes) a GPTQ value may come to a rounding boundary.
CODE_MARGIN = 2.0**-30


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

    Each end first moves out by twice ``MARGIN``: a value on the grid, or one a bounded
    function approaches (a sigmoid's 1 - 5e-15), then rounds the same way on every CPU.
    """
    if not REPRODUCIBLE:
        return low, high
    values = np.array([low, high], dtype=np.float64)
    values += np.array([-1.0, 1.0]) * 2 * MARGIN * np.abs(values)
    positions, steps = _grid_positions(values, RANGE_BITS)
    fractions = positions - np.floor(positions)
    _refuse_near(np.minimum(fractions, 1 - fractions) * steps, values, what)
    snapped = np.array([np.floor(positions[0]), np.ceil(positions[1])]) * steps
    return float(snapped[0]), float(snapped[1])


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


def statistics_dtype() -> torch.dtype:
    """The dtype of every forward pass that gathers statistics."""
    return torch.float64 if REPRODUCIBLE else torch.float32


def statistics_copy(model: nn.Module) -> nn.Module:
    """A copy of a float model that computes in ``statistics_dtype()``."""
    return copy.deepcopy(model).to(statistics_dtype())


def statistics_frames(frames: np.ndarray) -> torch.Tensor:
    """Float audio frames in ``statistics_dtype()`` (exact: they come from int16 PCM)."""
    return torch.from_numpy(frames).to(statistics_dtype())
