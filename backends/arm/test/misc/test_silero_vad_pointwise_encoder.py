# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The encoder as one-tap products over its receptive fields is the same function."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch
from torch import nn

from backends.arm.test.stateful_test_utils import lower_to_u85, ops_outside_delegate
from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.encoder_taps import trim_padding_taps
from examples.arm.silero_vad.model_export.framed_stft import FramedStftMagnitude
from examples.arm.silero_vad.model_export.model_config import (
    ModelConfig,
    build_float_model,
    quantization_config,
)
from examples.arm.silero_vad.model_export.pointwise_encoder import PointwiseConv, PointwiseEncoder
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, zero_state


def test_pointwise_encoder_equals_encoder_on_real_spectra(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    trimmed = trim_padding_taps(copy.deepcopy(eager_silero.encoder))
    pointwise = PointwiseEncoder(trimmed)
    framed = FramedStftMagnitude.from_stft(eager_silero.stft)
    with torch.no_grad():
        for stream in all_streams:
            for frame in torch.from_numpy(stream.frames[::7]):
                rows = framed.spectrum_rows(frame.unsqueeze(0))
                expected = eager_silero.encoder(rows.transpose(0, 1).unsqueeze(0))
                scale = expected.abs().clamp(min=1.0)
                # Float sums in another order: relative differences up to ~1e-5.
                assert ((pointwise(rows) - expected).abs() / scale).max() <= 5e-5


@pytest.mark.parametrize(
    "kernel, stride, padding, length",
    [(3, 1, 1, 4), (3, 2, 1, 4), (2, 2, 0, 2), (1, 1, 0, 1), (3, 1, 0, 5), (3, 2, 1, 7)],
)
def test_pointwise_conv_equals_conv(kernel: int, stride: int, padding: int, length: int) -> None:
    torch.manual_seed(kernel * 100 + stride * 10 + length)
    conv = nn.Conv1d(6, 5, kernel, stride=stride, padding=padding)
    rows = torch.randn(length, 6)
    expected = conv(rows.transpose(0, 1).unsqueeze(0))[0].transpose(0, 1)
    torch.testing.assert_close(PointwiseConv(conv, length)(rows), expected, atol=1e-6, rtol=1e-5)


def test_fields_use_a_reshape_where_taps_tile_the_input() -> None:
    conv = nn.Conv1d(4, 3, kernel_size=2, stride=2)
    pointwise = PointwiseConv(conv, 2)
    assert pointwise._first_tiled_tap(2) == 0  # the whole field is the input, reshaped


def test_pointwise_arrangement_keeps_silero_function(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    framed = build_float_model(ModelConfig())
    pointwise = build_float_model(ModelConfig(encoder="pointwise"))
    with torch.no_grad():
        for stream in all_streams[:2]:
            state_a = state_b = zero_state()
            for frame in torch.from_numpy(stream.frames[:120]):
                a, state_a = framed(frame.unsqueeze(0), state_a)
                b, state_b = pointwise(frame.unsqueeze(0), state_b)
                assert (a - b).abs().max() <= 1e-5


class _FrontEndAndEncoder(nn.Module):
    """Framed STFT rows into the pointwise encoder: the part the arrangement changes."""

    def __init__(self, eager: SileroVAD) -> None:
        super().__init__()
        self.stft = FramedStftMagnitude.from_stft(eager.stft)
        self.encoder = PointwiseEncoder(trim_padding_taps(copy.deepcopy(eager.encoder)))

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        return self.encoder(self.stft.spectrum_rows(frame))


def test_pointwise_encoder_runs_on_the_npu_in_int8_u85(
    tmp_path: Path, all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    model = _FrontEndAndEncoder(eager_silero).eval()
    frames = torch.from_numpy(all_streams[0].frames[100:110])
    calibration = [(frame.unsqueeze(0),) for frame in frames]
    config = quantization_config(ModelConfig(activations="int8"))
    lowered = lower_to_u85(model, calibration, tmp_path, config)
    assert lowered.report.cpu_ops == 0
    assert set(ops_outside_delegate(lowered)) <= {
        "quantized_decomposed::quantize_per_tensor.out",
        "quantized_decomposed::dequantize_per_tensor.out",
    }
