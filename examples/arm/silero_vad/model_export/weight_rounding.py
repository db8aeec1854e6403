# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero's weights rounded to their integer grids with the layers' inputs in mind (GPTQ).

Nearest rounding shifts the encoder's silence operating point, which is what separates the
program from float Silero on quiet speech (figures in STUDIES.md). GPTQ (Frantar et al.
2022) rounds one input column at a time and moves each error onto the columns not yet
rounded, weighted by how the inputs co-vary, so the output error ``(W_q - W) x`` is small
over the inputs the layer sees: float Silero streaming the calibration clips at every
level. Each bias then absorbs the mean output error (Nagel et al. 2019). The grid is the
quantizer's own (per-channel scale from the spec's observer, largest |w| on the top code),
so the quantizer finds the same scale again and every weight is an exact multiple of it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import nn
from torchao.quantization.pt2e.quantizer import QuantizationSpec

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.calibration import level_versions, overdriven_versions
from examples.arm.silero_vad.model_export.progress import FrameProgress
from examples.arm.silero_vad.model_export.reproducible_statistics import (
    check_code_margin,
    snap_nearest,
    statistics_copy,
    statistics_dtype,
    statistics_frames,
)
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, zero_state

# Hessian dampening (fraction of its mean diagonal): a stable inverse for constant inputs.
DAMPENING = 0.01
# Levels (dB on each clip as recorded) whose layer inputs the rounding sees, plus full scale.
ROUNDING_LEVELS_DB = (-40, -30, -20, -10, 0)


def rounding_streams(calibration: Sequence[AudioStream]) -> list[AudioStream]:
    """The calibration clips at every rounding level and at full scale."""
    return level_versions(calibration, ROUNDING_LEVELS_DB) + overdriven_versions(calibration, 0)


@dataclass
class InputMoments:
    """Running first and second moments of one layer's inputs (columns of ``X``)."""

    total: torch.Tensor | float = 0.0
    outer: torch.Tensor | float = 0.0
    count: int = 0

    def add(self, columns: torch.Tensor) -> None:
        """``columns``: ``(input size, samples)``."""
        columns = columns.detach().to(torch.float64)
        self.total += columns.sum(dim=1)
        self.outer += columns @ columns.T
        self.count += columns.shape[1]

    @property
    def mean(self) -> torch.Tensor:
        return self.total / self.count

    @property
    def second_moment(self) -> torch.Tensor:
        return self.outer / self.count


@dataclass(frozen=True)
class RoundedLayer:
    """A weight (and the bias that absorbs its mean error) with the spec of its grid."""

    name: str
    weight: nn.Parameter
    bias: nn.Parameter | None
    spec: QuantizationSpec
    moments: InputMoments = field(repr=False)


def channel_scales(weight: torch.Tensor, spec: QuantizationSpec) -> torch.Tensor:
    """Per-output-channel scales exactly as the spec's observer computes them."""
    observer = spec.observer_or_fake_quant_ctr(
        dtype=spec.dtype,
        quant_min=spec.quant_min,
        quant_max=spec.quant_max,
        qscheme=spec.qscheme,
        ch_axis=spec.ch_axis,
    )
    observer(weight.detach())
    scales, _ = observer.calculate_qparams()
    return scales.to(torch.float64)


def gptq_round(
    weight: torch.Tensor,
    second_moment: torch.Tensor,
    scales: torch.Tensor,
    top_code: int,
    name: str = "weight",
) -> torch.Tensor:
    """``weight`` (out, in) on the grid ``k * scales[out]``, ``|k| <= top_code``, by GPTQ;
    refuses a code that float noise could round the other way (``check_code_margin``)."""
    remaining = weight.detach().to(torch.float64).clone()
    hessian = second_moment.clone()
    dead = torch.diag(hessian) == 0
    hessian[dead, dead] = 1.0
    hessian += (
        DAMPENING * torch.diag(hessian).mean() * torch.eye(hessian.shape[0], dtype=hessian.dtype)
    )
    # Upper Cholesky factor of the inverse: row i holds how column i's error spreads.
    inverse = torch.linalg.cholesky(
        torch.cholesky_inverse(torch.linalg.cholesky(hessian)), upper=True
    )
    rounded = torch.empty_like(remaining)
    for column in range(remaining.shape[1]):
        values = remaining[:, column]
        real_codes = values / scales
        check_code_margin(real_codes, top_code, f"{name}, input column {column}")
        codes = torch.clamp(torch.round(real_codes), -top_code, top_code)
        rounded[:, column] = codes * scales
        error = (values - rounded[:, column]) / inverse[column, column]
        remaining[:, column + 1 :] -= error[:, None] * inverse[column, column + 1 :][None, :]
    # Each channel's largest weight on its top code: the quantizer re-derives the same scale.
    original = weight.detach().to(torch.float64)
    rows = torch.arange(original.shape[0])
    largest = original.abs().argmax(dim=1)
    rounded[rows, largest] = torch.sign(original[rows, largest]) * top_code * scales
    return rounded


def _conv_columns(conv: nn.Conv1d, features: torch.Tensor) -> torch.Tensor:
    """The conv's input windows as columns ``(in_channels * kernel, samples)``."""
    (kernel,), (stride,), (padding,) = conv.kernel_size, conv.stride, conv.padding
    padded = nn.functional.pad(features, (padding, padding))
    windows = padded.unfold(-1, kernel, stride)  # (frames, channels, outputs, kernel)
    return windows.permute(1, 3, 0, 2).reshape(conv.in_channels * kernel, -1)


def _rows(values: torch.Tensor) -> torch.Tensor:
    """``(..., features)`` as columns ``(features, samples)``."""
    return values.reshape(-1, values.shape[-1]).T


@torch.no_grad()
def layer_input_moments(
    model: SileroVAD, streams: Sequence[AudioStream]
) -> dict[str, InputMoments]:
    """Each weighted layer's input moments while the arranged float model streams every clip.

    Only the LSTM cell needs its state carried frame by frame; the rest runs batched, all
    in ``statistics_dtype()``.
    """
    model = statistics_copy(model)
    moments: dict[str, InputMoments] = defaultdict(InputMoments)
    progress = FrameProgress("weight rounding", sum(stream.num_frames for stream in streams))
    stft, rnn = model.stft, model.decoder.rnn
    for stream in streams:
        progress.start_clip(stream.name)
        frames = statistics_frames(stream.float_frames).unsqueeze(1)
        even_part, odd_part = torch.vmap(stft.folded)(frames)
        moments["stft.even"].add(_rows(even_part))
        moments["stft.odd"].add(_rows(odd_part))
        features = stft.magnitude_of(stft.even(even_part), stft.odd(odd_part))
        for index, conv in enumerate(model.encoder.convs):
            moments[f"encoder.convs.{index}"].add(_conv_columns(conv, features))
            features = torch.relu(conv(features))
        cell_inputs = features.squeeze(-1)  # (frames, hidden)
        h, c = zero_state().to(statistics_dtype())
        hidden_in, hidden_out = [], []
        for x in cell_inputs:
            hidden_in.append(h)
            h, c = rnn(x.unsqueeze(0), (h, c))
            hidden_out.append(h)
        moments["decoder.rnn.input"].add(_rows(cell_inputs))
        moments["decoder.rnn.hidden"].add(_rows(torch.cat(hidden_in)))
        moments["decoder.head"].add(_rows(torch.relu(torch.cat(hidden_out))))
        progress.advance(stream.num_frames)
        progress.finish_clip()
    return dict(moments)


def rounded_layers(
    model: SileroVAD,
    moments: dict[str, InputMoments],
    weight_spec: QuantizationSpec,
    gate_weight_spec: QuantizationSpec,
) -> list[RoundedLayer]:
    """Every weighted layer with its grid's spec and its inputs' moments (not the 0/1
    exchange matrices: exact on any grid)."""
    rnn, head, convs = model.decoder.rnn, model.decoder.head, model.encoder.convs
    layers = [
        (model.stft.even.weight, None, weight_spec, "stft.even"),
        (model.stft.odd.weight, None, weight_spec, "stft.odd"),
        *(
            (conv.weight, conv.bias, weight_spec, f"encoder.convs.{i}")
            for i, conv in enumerate(convs)
        ),
        (rnn.weight_ih, rnn.bias_ih, gate_weight_spec, "decoder.rnn.input"),
        (rnn.weight_hh, rnn.bias_hh, gate_weight_spec, "decoder.rnn.hidden"),
        (head.weight, head.bias, weight_spec, "decoder.head"),
    ]
    return [
        RoundedLayer(name, weight, bias, spec, moments[name]) for weight, bias, spec, name in layers
    ]


@torch.no_grad()
def round_weights(
    model: SileroVAD,
    streams: Sequence[AudioStream],
    weight_spec: QuantizationSpec,
    gate_weight_spec: QuantizationSpec,
) -> None:
    """Rounds ``model``'s weights in place by GPTQ on ``streams``, and corrects the biases
    (snapped to their grid: ``reproducible_statistics.snap_nearest``)."""
    moments = layer_input_moments(model, streams)
    for layer in rounded_layers(model, moments, weight_spec, gate_weight_spec):
        original = layer.weight.detach().reshape(layer.weight.shape[0], -1).to(torch.float64)
        scales = channel_scales(layer.weight, layer.spec)
        rounded = gptq_round(
            original, layer.moments.second_moment, scales, layer.spec.quant_max, layer.name
        )
        if layer.bias is not None:
            corrected = layer.bias.to(torch.float64) - (rounded - original) @ layer.moments.mean
            layer.bias.copy_(snap_nearest(corrected, f"{layer.name} bias"))
        layer.weight.copy_(rounded.reshape(layer.weight.shape).to(layer.weight.dtype))
