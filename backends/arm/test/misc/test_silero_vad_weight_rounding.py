# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""GPTQ weight rounding: on the quantizer's own grid, and better than nearest rounding on
the inputs the layers see."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream, load_streams
from examples.arm.silero_vad.model_export.model_config import (
    DEFAULT_CONFIG,
    build_float_model,
    gate_weight_spec,
    quantization_config,
)
from examples.arm.silero_vad.model_export.reproducible_statistics import BIAS_BITS
from examples.arm.silero_vad.model_export.weight_rounding import (
    channel_scales,
    gptq_round,
    layer_input_moments,
    round_weights,
    rounded_layers,
    rounding_streams,
)

CONFIG = DEFAULT_CONFIG.for_memory_mode("Shared_Sram")  # int6 gate weights: the coarser grid


@pytest.fixture(scope="module")
def short_calibration(all_streams: list[AudioStream]) -> list[AudioStream]:
    """Two calibration clips cut to 60 frames, at every rounding level."""
    clips = [replace(s, pcm=s.pcm[: 60 * s.geometry.hop_samples]) for s in all_streams[:2]]
    return rounding_streams(clips)


@pytest.fixture(scope="module")
def calibration(calibration_wavs: list) -> list[AudioStream]:
    """The committed calibration clips at every rounding level (what the export uses)."""
    return rounding_streams(load_streams(calibration_wavs))


def _output_error(difference: torch.Tensor, second_moment: torch.Tensor) -> float:
    """Mean squared output error of a weight difference over inputs with that moment."""
    return float(torch.einsum("oi,ij,oj->", difference, second_moment, difference))


def test_gptq_keeps_the_grid_and_each_channels_largest_weight() -> None:
    torch.manual_seed(0)
    weight = torch.randn(8, 16, dtype=torch.float64)
    inputs = torch.randn(16, 200, dtype=torch.float64)
    scales = weight.abs().amax(dim=1) / 31
    rounded = gptq_round(weight, inputs @ inputs.T / 200, scales, 31)
    codes = rounded / scales[:, None]
    assert torch.allclose(codes, codes.round(), atol=1e-9)
    assert codes.abs().max() <= 31
    assert torch.equal(codes.abs().amax(dim=1).round(), torch.full((8,), 31.0, dtype=codes.dtype))


def test_round_weights_lands_on_the_quantizers_grid(short_calibration: list[AudioStream]) -> None:
    """The quantizer re-derives the same per-channel scales from the rounded weights, and
    each rounded weight is an exact multiple of its scale: quantizing changes nothing."""
    model = build_float_model()
    weight_spec, gate_spec = quantization_config().weight, gate_weight_spec(CONFIG)
    before = {
        id(layer.weight): channel_scales(layer.weight, layer.spec)
        for layer in rounded_layers(
            model, layer_input_moments(model, short_calibration), weight_spec, gate_spec
        )
    }
    round_weights(model, short_calibration, weight_spec, gate_spec)
    moments = layer_input_moments(model, short_calibration)
    for layer in rounded_layers(model, moments, weight_spec, gate_spec):
        scales = channel_scales(layer.weight, layer.spec)
        assert torch.allclose(scales, before[id(layer.weight)], rtol=1e-6)
        flat = layer.weight.detach().reshape(layer.weight.shape[0], -1).to(torch.float64)
        codes = flat / scales[:, None]
        assert torch.allclose(codes, codes.round(), atol=1e-3)
        assert codes.abs().max() <= layer.spec.quant_max + 1e-3


def test_gptq_beats_nearest_rounding_on_the_layers_inputs(
    calibration: list[AudioStream],
) -> None:
    """Output error over the layers' calibration inputs, GPTQ / nearest rounding, measured
    per layer (STFT products, 4 convs, 2 gate products, head): 0.19, 0.23, 0.055, 0.11,
    0.057, 0.23, 0.20, 0.14, 0.057. Bound: every layer at least 2x better."""
    model = build_float_model()
    weight_spec, gate_spec = quantization_config().weight, gate_weight_spec(CONFIG)
    moments = layer_input_moments(model, calibration)
    for layer in rounded_layers(model, moments, weight_spec, gate_spec):
        weight = layer.weight.detach().reshape(layer.weight.shape[0], -1).to(torch.float64)
        scales = channel_scales(layer.weight, layer.spec)
        top = layer.spec.quant_max
        nearest = torch.clamp(torch.round(weight / scales[:, None]), -top, top) * scales[:, None]
        gptq = gptq_round(weight, layer.moments.second_moment, scales, top)
        second = layer.moments.second_moment
        assert _output_error(gptq - weight, second) < 0.5 * _output_error(nearest - weight, second)


def test_bias_absorbs_the_mean_output_error(short_calibration: list[AudioStream]) -> None:
    model = build_float_model()
    original = build_float_model()
    weight_spec, gate_spec = quantization_config().weight, gate_weight_spec(CONFIG)
    moments = layer_input_moments(original, short_calibration)
    round_weights(model, short_calibration, weight_spec, gate_spec)
    pairs = zip(
        rounded_layers(original, moments, weight_spec, gate_spec),
        rounded_layers(model, moments, weight_spec, gate_spec),
        strict=True,
    )
    for before, after in pairs:
        if before.bias is None:
            continue
        flat = before.weight.shape[0], -1
        weight_error = after.weight.reshape(flat).double() - before.weight.reshape(flat).double()
        mean_error = weight_error @ before.moments.mean + (after.bias - before.bias).double()
        # Up to half a step of the corrected bias's reproducible grid (BIAS_BITS), and the
        # float32 storage of the rounded weights (measured 1.1e-8).
        half_step = after.bias.detach().double().abs() * 2.0**-BIAS_BITS
        excess = (mean_error.abs() - half_step).max().item()
        assert excess <= 1e-7, excess
