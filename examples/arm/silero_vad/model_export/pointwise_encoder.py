# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero's encoder as one-tap products over the columns each output reads (im2col).

A frame gives the encoder 4 STFT columns: its convolutions produce 4, 2, 1 and 1
columns. Vela's Ethos-U85 model runs a multi-tap convolution over so few columns far
below the speed of a one-tap product of the same weights (measured, int8, U85-256,
Sram_Only: the 3-tap first convolution 11,642 cycles for 49.5 k weights, the one-tap
fourth 750 for 8 k, an LSTM gate product 5,410 for 65.5 k). So each convolution here is
a ``linear`` over the rows of its receptive fields: output column ``t`` reads the input
columns its taps meet (zero padding as zero rows), flattened tap by tap. Same function
as the convolutions (float max diff ~1e-6), same weights, rearranged.

The input is the spectrum as rows, ``(columns, bins)`` (``FramedStftMagnitude``'s
magnitude before its transpose), so no transposes are needed on the way.
"""

from __future__ import annotations

import torch
from torch import nn

from examples.arm.silero_vad.model_export.encoder_taps import STFT_COLUMNS
from examples.arm.silero_vad.model_export.framed_stft import FramedStftMagnitude
from examples.arm.silero_vad.model_export.silero_vad_model import Encoder


def _receptive_rows(conv: nn.Conv1d, input_length: int) -> list[list[int | None]]:
    """Per output column, the input column each tap reads (None: zero padding)."""
    (kernel,), (stride,), (padding,) = conv.kernel_size, conv.stride, conv.padding
    output_length = (input_length + 2 * padding - kernel) // stride + 1
    rows = []
    for out in range(output_length):
        columns = [out * stride - padding + tap for tap in range(kernel)]
        rows.append([c if 0 <= c < input_length else None for c in columns])
    return rows


def _check_plain(conv: nn.Conv1d) -> None:
    if conv.groups != 1 or conv.dilation != (1,) or conv.padding_mode != "zeros":
        raise ValueError(f"{conv}: only plain zero-padded convolutions can be rearranged")


class PointwiseConv(nn.Module):
    """One convolution over a fixed number of columns as a ``linear`` over its fields.

    ``forward(rows)``: ``(input_length, in_channels)`` -> ``(output_length, out_channels)``.
    """

    def __init__(self, conv: nn.Conv1d, input_length: int) -> None:
        super().__init__()
        _check_plain(conv)
        self.rows = _receptive_rows(conv, input_length)
        self.in_channels = conv.in_channels
        kernel = conv.kernel_size[0]
        self.linear = nn.Linear(kernel * conv.in_channels, conv.out_channels, conv.bias is not None)
        with torch.no_grad():
            # (out, in, tap) -> (out, tap * in + channel): tap by tap, as the fields are laid.
            self.linear.weight.copy_(conv.weight.permute(0, 2, 1).reshape(conv.out_channels, -1))
            if conv.bias is not None:
                self.linear.bias.copy_(conv.bias)

    @property
    def output_length(self) -> int:
        return len(self.rows)

    def fields(self, rows: torch.Tensor) -> torch.Tensor:
        """``(output_length, kernel * in_channels)``: each output column's input columns.

        Built with as few copies as the NPU allows (each slice or concatenated part is a
        memory copy): the taps whose fields tile the input in order come from one
        reshape, every other tap is the input itself or a slice between zero rows.
        """
        kernel = len(self.rows[0])
        first_tiled = self._first_tiled_tap(rows.shape[0])
        parts = [self._tap_rows(rows, tap) for tap in range(first_tiled)]
        if first_tiled < kernel:
            parts.append(rows.reshape(self.output_length, -1))
        return torch.cat(parts, dim=1) if len(parts) > 1 else parts[0]

    def _first_tiled_tap(self, input_length: int) -> int:
        """The first tap ``k`` such that taps ``k..`` of output ``t`` read input columns
        ``t * (kernel - k)`` onwards and together cover the input exactly (a reshape)."""
        kernel = len(self.rows[0])
        for first in range(kernel):
            width = kernel - first
            if width * self.output_length != input_length:
                continue
            expected = [list(range(t * width, (t + 1) * width)) for t in range(self.output_length)]
            if [columns[first:] for columns in self.rows] == expected:
                return first
        return kernel

    def _tap_rows(self, rows: torch.Tensor, tap: int) -> torch.Tensor:
        """The input column each output reads at ``tap``, zero rows for padding."""
        columns = [field[tap] for field in self.rows]
        if columns == list(range(rows.shape[0])):
            return rows
        zero = rows.new_zeros(1, self.in_channels)
        parts, index = [], 0
        while index < len(columns):
            column = columns[index]
            if column is None:
                parts.append(zero)
                index += 1
                continue
            last = index
            while last + 1 < len(columns) and columns[last + 1] == columns[last] + 1:
                last += 1
            parts.append(rows[column : columns[last] + 1])
            index = last + 1
        return torch.cat(parts, dim=0) if len(parts) > 1 else parts[0]

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        return self.linear(self.fields(rows))


class SpectrumRows(nn.Module):
    """A ``FramedStftMagnitude`` that hands the encoder its spectrum as rows, (4, bins)."""

    def __init__(self, stft: FramedStftMagnitude) -> None:
        super().__init__()
        self.stft = stft

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        return self.stft.spectrum_rows(frame)


class PointwiseEncoder(nn.Module):
    """``Encoder`` (ReLU after each convolution) as ``PointwiseConv`` products.

    ``forward(spectrum_rows)``: ``(STFT_COLUMNS, bins)`` -> ``(1, channels, 1)``, the
    shape ``Encoder`` gives the decoder.
    """

    def __init__(self, encoder: Encoder, input_length: int = STFT_COLUMNS) -> None:
        super().__init__()
        layers = []
        length = input_length
        for conv in encoder.convs:
            layer = PointwiseConv(conv, length)
            layers.append(layer)
            length = layer.output_length
        if length != 1:
            raise ValueError(f"the encoder leaves {length} columns; the decoder reads one")
        self.convs = nn.ModuleList(layers)

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            rows = torch.relu(conv(rows))
        return rows.reshape(1, -1, 1)  # one column left: (1, channels, 1)
