# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""How the float Silero VAD is arranged and quantized for the NPU.

One arrangement: the STFT framed for the NPU (``framed_stft.py``), the encoder without its
padding-only taps (``encoder_taps.py``), a16w8 with int8 LSTM gate inputs and an int16
state; weights rounded by GPTQ over every level (``weight_rounding.py``) and activation
ranges calibrated 10 dB into clipping (``calibration.overdriven_versions``). The LSTM gate
weights follow the memory mode. Arrangements measured and not kept are in STUDIES.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from executorch.backends.arm.quantizer import (
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from torchao.quantization.pt2e import MinMaxObserver
from torchao.quantization.pt2e.quantizer import QuantizationConfig, QuantizationSpec

from backends.arm.quantizer.stateful_ethos_u_quantizer import LstmGateProductSpec
from examples.arm.silero_vad.model_export.encoder_taps import trim_padding_taps
from examples.arm.silero_vad.model_export.frame_geometry import DEFAULT_SAMPLE_RATE
from examples.arm.silero_vad.model_export.framed_stft import FramedStftMagnitude
from examples.arm.silero_vad.model_export.reproducible_statistics import reproducible_histogram_spec
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD

# The arithmetic every program has (recorded in report.json beside the choices below).
ARITHMETIC = {
    "activations": "int16",
    "weights": "int8",
    "lstm_gate_inputs": "int8",
    "state_dtype": "int16",
}
LSTM_GATE_WEIGHTS = ("int8", "int6")
WEIGHT_ROUNDINGS = ("gptq", "nearest")

# Symmetric weight ranges, stored as int8 (Vela's codec spends fewer bits on narrow ones).
_WEIGHT_RANGES = {
    name: {"weight_qmin": 1 - 2 ** (bits - 1), "weight_qmax": 2 ** (bits - 1) - 1}
    for name, bits in {"int8": 8, "int6": 6}.items()
}


@dataclass(frozen=True)
class ModelConfig:
    """The quantization choices of the one arrangement; the defaults are the product's, the
    others let tests show what each lever buys."""

    # The LSTM gate weights (half the weight bytes): "int6" (-31..31, streamed in about 6
    # bits by Vela's codec) or "int8"; None: per memory mode (``for_memory_mode``).
    lstm_gate_weights: str | None = None
    # Activation ranges also calibrated on each clip at full scale and this many dB into
    # clipping (``calibration.overdriven_versions``); None: the clips as recorded only.
    range_overdrive_db: float | None = 10.0
    # "gptq" (``weight_rounding.py``) or "nearest" (the quantizer's own rounding).
    weight_rounding: str = "gptq"

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("LSTM gate weights", self.lstm_gate_weights or "int8", LSTM_GATE_WEIGHTS),
            ("weight rounding", self.weight_rounding, WEIGHT_ROUNDINGS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} {value!r}: expected one of {', '.join(allowed)}")

    def for_memory_mode(self, memory_mode: str | None) -> ModelConfig:
        """This configuration with open LSTM gate weights chosen for Vela's ``memory_mode``
        (None: no NPU): int8 where every weight sits in SRAM (6 bits buy no cycles there and
        cost quiet speech accuracy), int6 where weights stream from DRAM or flash (int8 costs
        up to +9.9 % cycles: STUDIES.md)."""
        if self.lstm_gate_weights is not None:
            return self
        gate_weights = "int8" if memory_mode in (None, "Sram_Only") else "int6"
        return replace(self, lstm_gate_weights=gate_weights)

    def to_dict(self) -> dict:
        """JSON-ready: the fixed arithmetic and this configuration's choices."""
        return {**ARITHMETIC, **asdict(self)}


DEFAULT_CONFIG = ModelConfig()


def build_float_model(sample_rate: int = DEFAULT_SAMPLE_RATE, reversal: str = "flip") -> SileroVAD:
    """The official weights for ``sample_rate``, arranged for the NPU: Silero's float
    function but for the polygon magnitude (within 0.97 %); ``reversal``: see
    ``targets.reversal_for``."""
    model = SileroVAD.from_silero_package(sample_rate)
    model.stft = FramedStftMagnitude.from_stft(model.stft, reversal)
    model.encoder = trim_padding_taps(model.encoder, model.geometry.stft_columns)
    return model


# The release's a16w8 floors every scale at 2**-12 (small magnitudes would get loud
# speech's step); 2**-26 lets each tensor take the scale its calibrated range needs.
A16W8_MIN_SCALE = 2**-26


def quantization_config() -> QuantizationConfig:
    """The release's a16w8 config with min/max activation observers: histograms cost 14 of
    the export's 33 s and, at 16 bits, bought no accuracy (STUDIES.md)."""
    release = get_symmetric_a16w8_quantization_config(
        **_WEIGHT_RANGES["int8"], epsilon=A16W8_MIN_SCALE
    )
    activation = replace(
        release.input_activation,
        observer_or_fake_quant_ctr=MinMaxObserver.with_args(eps=A16W8_MIN_SCALE),
    )
    return replace(release, input_activation=activation, output_activation=activation)


def gate_weight_spec(config: ModelConfig) -> QuantizationSpec:
    """The LSTM gate products' weight spec (their own, or the global one)."""
    return lstm_gate_product_spec(config).weight or quantization_config().weight


def lstm_gate_product_spec(config: ModelConfig) -> LstmGateProductSpec:
    """The gate products' specs where they differ from the global a16w8: int8 inputs (the
    release's histogram, made reproducible), and int6 weights when ``config`` (with its gate
    weights chosen: ``for_memory_mode``) says."""
    if config.lstm_gate_weights is None:
        raise ValueError("LSTM gate weights not chosen: use ModelConfig.for_memory_mode")
    weight = None
    if config.lstm_gate_weights != "int8":
        weight = get_symmetric_quantization_config(
            **_WEIGHT_RANGES[config.lstm_gate_weights]
        ).weight
    inputs = reproducible_histogram_spec(get_symmetric_quantization_config().input_activation)
    return LstmGateProductSpec(inputs, weight)
