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
    assert run_silero_vad.model_config(run_silero_vad.parse_args([])) == DEFAULT_CONFIG
    conv = run_silero_vad.model_config(run_silero_vad.parse_args(["--front-end", "conv"]))
    assert conv.magnitude == "sqrt"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--magnitude-levels", "0.1"], "sqrt magnitude only"),
        (["--front-end", "conv", "--magnitude", "polygon"], "conv front end"),
        (["--magnitude", "sqrt", "--magnitude-levels", "0.1,x"], "expected numbers"),
    ],
)
def test_cli_refuses_inconsistent_options(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run_silero_vad.parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
