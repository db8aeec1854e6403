# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Cross-layer equalisation of Silero's positively homogeneous chain, for per-tensor int8.

An int8 activation has one scale per tensor, sized by its widest channel: a spectral bin
or an encoder channel whose values stay 100 times smaller than the loudest one keeps
only a level or two. Every link of the chain

    STFT products -> magnitude (bin k) -> conv1 -> ReLU -> ... -> conv4 -> ReLU -> LSTM

is positively homogeneous per channel: the 16-gon magnitude of ``(re / s, im / s)`` is the
magnitude over ``s``, and ``relu(x / s) = relu(x) / s`` for ``s > 0``. So channel ``c`` of
a link's output can be divided by ``s_c`` (its producer's output rows and bias scaled by
``1 / s_c``) and its consumer's input weights multiplied by ``s_c``: the same float
function (max diff ~1e-6), with channel ranges ``r_c / s_c``. With
``s_c = (r_c / r_ref) ** strength`` (``r_ref`` the geometric mean of the ranges),
``strength`` 1 gives every channel the same range (all int8 levels for each), 0 changes
nothing; in between it shares the precision between the activation (per tensor) and the
consumer's weights (per output channel, where a column scaled up takes the row's range).

The ranges come from the float model on the calibration audio (the export's own clips):
no learned artefact, a second of work.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from examples.arm.silero_vad.model_export.framed_stft import FramedStftMagnitude
from examples.arm.silero_vad.model_export.pointwise_encoder import PointwiseConv, SpectrumRows
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD

# A channel that never fires (range 0) or barely does is scaled as if its range were
# this fraction of the largest: its consumer's weights are not shrunk to nothing.
_RANGE_FLOOR = 1e-3


def _framed_stft(model: SileroVAD) -> FramedStftMagnitude:
    stft = model.stft.stft if isinstance(model.stft, SpectrumRows) else model.stft
    if not isinstance(stft, FramedStftMagnitude):
        raise ValueError("channel equalisation needs the framed STFT (positively homogeneous bins)")
    if stft.magnitude != "polygon" and stft.magnitude_levels:
        raise ValueError("the sqrt magnitude's levels are absolute: not homogeneous per bin")
    return stft


def _channels_last(features: torch.Tensor) -> torch.Tensor:
    """(columns, channels) from either layout: (1, channels, columns) or rows."""
    return features[0].transpose(0, 1) if features.dim() == 3 else features


@torch.no_grad()
def channel_ranges(model: SileroVAD, frames: np.ndarray) -> list[torch.Tensor]:
    """Per-channel max of the magnitude and of each encoder ReLU output over ``frames``."""
    stft = model.stft
    ranges: list[torch.Tensor] = []
    for frame in torch.from_numpy(frames):
        features = stft(frame.unsqueeze(0))
        seen = [_channels_last(features).abs().amax(dim=0)]
        for conv in model.encoder.convs:
            features = torch.relu(conv(features))
            seen.append(_channels_last(features).abs().amax(dim=0))
        if not ranges:
            ranges = seen
        else:
            ranges = [torch.maximum(a, b) for a, b in zip(ranges, seen, strict=True)]
    return ranges


def equalization_factors(ranges: torch.Tensor, strength: float) -> torch.Tensor:
    """``s_c = (r_c / r_ref) ** strength``; the factor channel ``c`` is divided by."""
    floored = torch.clamp(ranges, min=ranges.max() * _RANGE_FLOOR).double()
    reference = torch.exp(torch.log(floored).mean())
    return ((floored / reference) ** strength).float()


def _scale_outputs(layer: nn.Module, factors: torch.Tensor) -> None:
    """Divides output channel ``c`` of ``layer`` (rows and bias) by ``factors[c]``."""
    target = layer.linear if isinstance(layer, PointwiseConv) else layer
    shape = (-1,) + (1,) * (target.weight.dim() - 1)
    target.weight.div_(factors.view(shape))
    if target.bias is not None:
        target.bias.div_(factors)


def _scale_inputs(layer: nn.Module, factors: torch.Tensor) -> None:
    """Multiplies the weights that read input channel ``c`` of ``layer`` by ``factors[c]``."""
    if isinstance(layer, PointwiseConv):
        weight = layer.linear.weight
        out_channels = weight.shape[0]
        weight.view(out_channels, -1, layer.in_channels).mul_(factors)
    elif isinstance(layer, nn.Conv1d):
        layer.weight.mul_(factors.view(1, -1, 1))
    elif isinstance(layer, nn.LSTMCell):
        layer.weight_ih.mul_(factors)
    else:
        raise TypeError(f"cannot scale the inputs of {type(layer).__name__}")


@torch.no_grad()
def equalize_channels(
    model: SileroVAD, frames: np.ndarray, strength: float = 0.5, links: Sequence[int] | None = None
) -> SileroVAD:
    """``model`` (changed in place) with its chain's channels equalised on ``frames``.

    ``links``: which outputs to equalise (0: the magnitude's bins, 1-4: the encoder's
    ReLU outputs); all by default. Ranges are measured once, before any scaling: each
    link's factors only rescale its own channels, so the others' ranges stay valid.
    """
    stft = _framed_stft(model)
    ranges = channel_ranges(model, frames)
    convs = list(model.encoder.convs)
    consumers = [*convs, model.decoder.rnn]
    for link in range(len(ranges)) if links is None else links:
        factors = equalization_factors(ranges[link], strength)
        if link == 0:
            stft.even.weight.div_(factors.view(-1, 1))
            stft.odd.weight.div_(factors.view(-1, 1))
        else:
            _scale_outputs(convs[link - 1], factors)
        _scale_inputs(consumers[link], factors)
    return model
