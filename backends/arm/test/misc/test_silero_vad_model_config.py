# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""ModelConfig: consistent arrangements only, and the quantization each one asks for."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torchao.quantization.pt2e import MinMaxObserver

from backends.arm.test.stateful_test_utils import lower_to_u85
from examples.arm.silero_vad import run_silero_vad
from examples.arm.silero_vad.model_export.model_config import (
    A16W8_MIN_SCALE,
    DEFAULT_CONFIG,
    NAMED_CONFIGS,
    ModelConfig,
    gate_weight_spec,
    lstm_gate_product_spec,
    module_quantization_configs,
    quantization_config,
)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"magnitude": "polygon", "magnitude_levels": (0.1,)}, "sqrt magnitude only"),
        ({"front_end": "conv", "magnitude": "polygon"}, "conv front end"),
        ({"front_end": "conv", "magnitude_levels": (0.1,)}, "conv front end"),
        ({"magnitude": "cube"}, "magnitude 'cube'"),
        ({"magnitude": "sqrt", "magnitude_levels": (0.1, -1.0)}, "must be positive"),
        ({"weights": "int2"}, "weights 'int2'"),
        ({"activations": "fp16"}, "activations 'fp16'"),
        ({"lstm_gate_inputs": "int4"}, "LSTM gate inputs 'int4'"),
        ({"activations": "int8", "lstm_gate_inputs": "int16"}, "wider than the int8"),
        ({"lstm_gate_weights": "int5"}, "LSTM gate weights 'int5'"),
        ({"activations": "int8", "weights": "int4", "lstm_gate_weights": "int6"}, "wider"),
        ({"lstm_gate_inputs": "int16", "lstm_gate_weights": "int4"}, "need int8 gate inputs"),
        ({"lstm_gate_products": "joined"}, "LSTM gate products 'joined'"),
        ({"lstm_gate_products": "fused"}, "fused LSTM gate products need int8 activations"),
        ({"activations": "int8", "int16_modules": ("decoder.lstm",)}, "int16 modules"),
        ({"int16_modules": ("stft",)}, "inside int8 activations"),
    ],
)
def test_model_config_refuses_inconsistent_arrangements(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ModelConfig(**kwargs)


def test_model_config_magnitude_follows_the_front_end() -> None:
    assert ModelConfig().magnitude == "polygon"
    assert ModelConfig(front_end="conv").magnitude == "sqrt"
    assert ModelConfig().to_dict()["magnitude"] == "polygon"


def test_quantization_config_follows_activations_and_weights() -> None:
    default = quantization_config(ModelConfig())
    assert default.input_activation.dtype == torch.int16
    observer = default.input_activation.observer_or_fake_quant_ctr()
    assert isinstance(observer, MinMaxObserver) and observer.eps == A16W8_MIN_SCALE
    assert (default.weight.quant_min, default.weight.quant_max) == (-127, 127)

    floor = quantization_config(NAMED_CONFIGS["floor-a8w4"])
    assert floor.input_activation.dtype == torch.int8
    assert (floor.weight.quant_min, floor.weight.quant_max) == (-7, 7)


def _chosen(config: ModelConfig, memory_mode: str | None = "Sram_Only") -> ModelConfig:
    return config.for_memory_mode(memory_mode)


def test_lstm_gate_inputs_get_their_own_spec_only_when_narrower() -> None:
    gate_inputs = lstm_gate_product_spec(_chosen(DEFAULT_CONFIG)).input_activation
    assert DEFAULT_CONFIG.lstm_gate_inputs == "int8"
    assert gate_inputs is not None and gate_inputs.dtype == torch.int8
    int16_gates = _chosen(ModelConfig(lstm_gate_inputs="int16"))
    assert lstm_gate_product_spec(int16_gates).input_activation is None
    assert lstm_gate_product_spec(_chosen(NAMED_CONFIGS["framed-int8"])).input_activation is None


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
    floor = NAMED_CONFIGS["floor-a8w4"]
    assert floor.for_memory_mode("Sram_Only").lstm_gate_weights == "int4"
    assert lstm_gate_product_spec(_chosen(floor)).weight is None
    assert lstm_gate_product_spec(_chosen(NAMED_CONFIGS["recipe"])).weight is None
    with pytest.raises(ValueError, match="not chosen"):
        lstm_gate_product_spec(DEFAULT_CONFIG)


def test_lstm_gate_products_are_split_unless_asked_to_fuse() -> None:
    assert DEFAULT_CONFIG.lstm_gate_products == "split"
    assert not lstm_gate_product_spec(_chosen(DEFAULT_CONFIG)).fused
    assert lstm_gate_product_spec(_chosen(NAMED_CONFIGS["floor-a8w4-fused"])).fused


def test_int4_weights_halve_what_vela_streams_u85(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Linear(128, 512).eval()
    calibration = [(torch.randn(1, 128),) for _ in range(4)]
    dram_kib = {}
    for weights in ("int8", "int4"):
        config = quantization_config(ModelConfig(activations="int8", weights=weights))
        lowered = lower_to_u85(model, calibration, tmp_path / weights, config)
        assert (lowered.report.npu_ops, lowered.report.cpu_ops) == (1, 0)
        dram_kib[weights] = lowered.report.dram_kib
    # 64 KiB of int8 weights (plus per-channel scales and biases) against 32 KiB of int4.
    assert dram_kib["int4"] < 0.6 * dram_kib["int8"], dram_kib


def test_cli_options_make_the_model_config() -> None:
    args = run_silero_vad.parse_args(
        "--magnitude sqrt --magnitude-levels 1.2,0.25 --activations int8 --weights int4 "
        "--state-dtype int8".split()
    )
    assert run_silero_vad.model_config(args) == ModelConfig(
        magnitude="sqrt",
        magnitude_levels=(1.2, 0.25),
        activations="int8",
        weights="int4",
        state_dtype="int8",
    )
    wide_gates = run_silero_vad.parse_args(
        ["--lstm-gate-inputs", "int16", "--lstm-gate-weights", "int8"]
    )
    assert run_silero_vad.model_config(wide_gates) == ModelConfig(
        lstm_gate_inputs="int16", lstm_gate_weights="int8"
    )
    fused = run_silero_vad.parse_args(["--activations", "int8", "--lstm-gate-products", "fused"])
    assert run_silero_vad.model_config(fused) == ModelConfig(
        activations="int8", lstm_gate_products="fused"
    )
    assert run_silero_vad.model_config(run_silero_vad.parse_args([])) == DEFAULT_CONFIG
    levers_off = run_silero_vad.parse_args(
        ["--range-overdrive-db", "none", "--weight-rounding", "nearest"]
    )
    assert run_silero_vad.model_config(levers_off) == ModelConfig(
        range_overdrive_db=None, weight_rounding="nearest"
    )
    assert DEFAULT_CONFIG.range_overdrive_db == 10 and DEFAULT_CONFIG.weight_rounding == "gptq"
    conv = run_silero_vad.model_config(run_silero_vad.parse_args(["--front-end", "conv"]))
    assert conv.magnitude == "sqrt"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--magnitude-levels", "0.1"], "sqrt magnitude only"),
        (["--front-end", "conv", "--magnitude", "polygon"], "conv front end"),
        (["--magnitude", "sqrt", "--magnitude-levels", "0.1,x"], "expected numbers"),
        (["--activations", "int8", "--lstm-gate-inputs", "int16"], "wider than the int8"),
        (["--lstm-gate-products", "fused"], "fused LSTM gate products need int8 activations"),
        (["--range-overdrive-db", "loud"], "expected dB"),
        (["--range-overdrive-db", "60"], "expected 0 to 40"),
        (["--weight-rounding", "stochastic"], "invalid choice"),
        (["--conditions", "loud"], "condition 'loud'"),
    ],
)
def test_cli_refuses_inconsistent_options(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_silero_vad.parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_int16_modules_get_a16w8_by_their_names_in_the_stateful_model() -> None:
    config = ModelConfig(activations="int8", int16_modules=("stft", "decoder.rnn"))
    configs = module_quantization_configs(config)
    assert sorted(configs) == ["model.decoder.rnn", "model.stft"]
    assert all(c.input_activation.dtype == torch.int16 for c in configs.values())
    assert module_quantization_configs(DEFAULT_CONFIG) == {}


def test_lstm_gate_inputs_stay_int8_inside_an_int16_cell() -> None:
    cell16 = ModelConfig(activations="int8", int16_modules=("decoder.rnn",))
    gate_inputs = lstm_gate_product_spec(_chosen(cell16)).input_activation
    assert gate_inputs is not None and gate_inputs.dtype == torch.int8
