# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""ModelConfig: the quantization the one arrangement asks for, and its refused choices."""

from __future__ import annotations

import pytest
import torch
from executorch.backends.arm.quantizer import get_symmetric_quantization_config
from torchao.quantization.pt2e import HistogramObserver, MinMaxObserver

from examples.arm.silero_vad import run_silero_vad
from examples.arm.silero_vad.model_export.model_config import (
    A16W8_MIN_SCALE,
    DEFAULT_CONFIG,
    ModelConfig,
    gate_weight_spec,
    lstm_gate_product_spec,
    quantization_config,
)
from examples.arm.silero_vad.model_export.reproducible_statistics import (
    ReproducibleHistogramObserver,
)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lstm_gate_weights": "int5"}, "LSTM gate weights 'int5'"),
        ({"lstm_gate_weights": "int4"}, "LSTM gate weights 'int4'"),
        ({"weight_rounding": "stochastic"}, "weight rounding 'stochastic'"),
    ],
)
def test_model_config_refuses_unknown_choices(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ModelConfig(**kwargs)


def test_quantization_config_is_a16w8_with_min_max_observers() -> None:
    config = quantization_config()
    assert config.input_activation.dtype == torch.int16
    observer = config.input_activation.observer_or_fake_quant_ctr()
    assert isinstance(observer, MinMaxObserver) and observer.eps == A16W8_MIN_SCALE
    assert (config.weight.quant_min, config.weight.quant_max) == (-127, 127)


def test_report_records_the_arithmetic_and_the_choices() -> None:
    model = DEFAULT_CONFIG.for_memory_mode("Shared_Sram").to_dict()
    assert model["activations"] == "int16" and model["state_dtype"] == "int16"
    assert model["lstm_gate_weights"] == "int6"
    assert (model["weight_rounding"], model["range_overdrive_db"]) == ("gptq", 10.0)


def test_lstm_gate_inputs_are_int8() -> None:
    """The release's int8 activation spec, its histogram made reproducible."""
    gate_inputs = lstm_gate_product_spec(DEFAULT_CONFIG.for_memory_mode(None)).input_activation
    assert gate_inputs is not None and gate_inputs.dtype == torch.int8
    release = get_symmetric_quantization_config().input_activation
    observer, release_observer = (
        spec.observer_or_fake_quant_ctr() for spec in (gate_inputs, release)
    )
    assert isinstance(observer, ReproducibleHistogramObserver)
    assert type(release_observer) is HistogramObserver
    assert observer.eps == release_observer.eps and observer.bins == release_observer.bins
    assert (gate_inputs.quant_min, gate_inputs.quant_max) == (release.quant_min, release.quant_max)


@pytest.mark.parametrize(
    "memory_mode, grid",
    [
        ("Sram_Only", "int8"),  # weights in SRAM: the 6-bit stream buys no cycles
        (None, "int8"),  # the host CPU
        ("Shared_Sram", "int6"),  # weights stream from DRAM or flash: Vela's codec pays
        ("Dedicated_Sram_384KB", "int6"),
    ],
)
def test_lstm_gate_weights_follow_the_memory_mode(memory_mode: str | None, grid: str) -> None:
    assert DEFAULT_CONFIG.lstm_gate_weights is None
    chosen = DEFAULT_CONFIG.for_memory_mode(memory_mode)
    assert chosen.lstm_gate_weights == grid
    gate_weights = lstm_gate_product_spec(chosen).weight
    if grid == "int8":
        assert gate_weights is None  # the global weight spec
    else:
        assert gate_weights is not None and gate_weights.dtype == torch.int8
        assert (gate_weights.quant_min, gate_weights.quant_max) == (-31, 31)
        assert gate_weights.qscheme == torch.per_channel_symmetric
    assert gate_weight_spec(chosen).quant_max == (127 if grid == "int8" else 31)


def test_explicit_lstm_gate_weights_stay_whatever_the_memory_mode() -> None:
    explicit = ModelConfig(lstm_gate_weights="int6")
    assert explicit.for_memory_mode("Sram_Only") is explicit
    with pytest.raises(ValueError, match="not chosen"):
        lstm_gate_product_spec(DEFAULT_CONFIG)


def test_cli_has_no_model_options() -> None:
    """run.sh exports the one arrangement; the levers are ModelConfig's, for the lab."""
    with pytest.raises(SystemExit):
        run_silero_vad.parse_args(["--activations", "int8"])
