# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Drops the encoder's kernel taps that only ever multiply zero padding.

The encoder's strides (1, 2, 2, 1) shrink a frame's 4 STFT columns to 4, 2, 1, 1: the
third convolution's first tap and the fourth's outer taps only meet padding, yet the NPU
streams their weights. Cutting them is the same function with a third fewer weights in
the last two layers.
"""

from __future__ import annotations

import torch
from torch import nn

from examples.arm.silero_vad.model_export.silero_vad_model import Encoder


def _without_padding_taps(conv: nn.Conv1d, input_length: int) -> tuple[nn.Conv1d, int]:
    """``conv`` cut to the taps that meet a real input column when that is exactly the same
    function (the first used tap is the padding's width), and its output length."""
    (kernel,), (stride,), (padding,) = conv.kernel_size, conv.stride, conv.padding
    output_length = (input_length + 2 * padding - kernel) // stride + 1
    used = sorted(
        {
            tap
            for out in range(output_length)
            for tap in range(kernel)
            if 0 <= out * stride - padding + tap < input_length
        }
    )
    first, count = used[0], len(used)
    exact = (
        count < kernel
        and used == list(range(first, first + count))
        and first == padding
        and (input_length - count) // stride + 1 == output_length
        and conv.groups == 1
        and conv.dilation == (1,)
        and conv.padding_mode == "zeros"
    )
    if not exact:
        return conv, output_length
    trimmed = nn.Conv1d(
        conv.in_channels, conv.out_channels, count, stride=stride, bias=conv.bias is not None
    )
    with torch.no_grad():
        trimmed.weight.copy_(conv.weight[:, :, first : first + count])
        if conv.bias is not None:
            trimmed.bias.copy_(conv.bias)
    return trimmed, output_length


def trim_padding_taps(encoder: Encoder, input_length: int) -> Encoder:
    """``encoder`` (changed in place) cut to its useful taps for ``input_length`` columns."""
    for index, conv in enumerate(encoder.convs):
        encoder.convs[index], input_length = _without_padding_taps(conv, input_length)
    return encoder
