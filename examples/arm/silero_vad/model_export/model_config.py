# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""How the float Silero VAD is arranged and quantized for the NPU.

One arrangement: the STFT framed for the NPU (``FramedStftMagnitude``, the same spectrum,
the magnitude as a 16-gon's support function, within 0.97 %, no squares), the encoder
without the taps that only meet padding (``encoder_taps.py``, the same function), 16-bit
activations with 8-bit weights (a16w8), 8-bit inputs for the LSTM gate products, and a
16-bit state. For every recording level, not only the calibration's, the weights are
rounded with GPTQ on the calibration clips at every level and the activation ranges are
calibrated 10 dB into clipping (``weight_rounding.py``, ``calibration.overdriven_versions``);
the LSTM gate weights follow the memory mode (``gate_weights_for_memory_mode``). The
arrangements measured and not kept, and the figures per target, level and channel, are in
the results document.
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

# Symmetric weight ranges: narrower int8 ranges stay int8 (Vela's codec then spends fewer
# bits on them).
_WEIGHT_BITS = {"int8": 8, "int6": 6}
_WEIGHT_RANGES = {
    name: {"weight_qmin": 1 - 2 ** (bits - 1), "weight_qmax": 2 ** (bits - 1) - 1}
    for name, bits in _WEIGHT_BITS.items()
}


@dataclass(frozen=True)
class ModelConfig:
    """The quantization choices of the one arrangement; the defaults are the product's, the
    others exist so tests can show what each lever buys."""

    # The LSTM's gate weights (half the model's weight bytes). "int6": values -31..31 per
    # channel, stored as int8; Vela's lossless weight codec streams them in about 6 bits,
    # so the products stop waiting on memory where weights stream from DRAM or flash.
    # None: chosen per memory mode (``gate_weights_for_memory_mode``).
    lstm_gate_weights: str | None = None
    # Activation ranges also calibrated on each calibration clip taken to the int16 full
    # scale and this many dB further into clipping, not only at the level it was recorded
    # at: the program takes any int16 PCM, and ranges set on moderate clips saturate on
    # loud audio (calibration.overdriven_versions has the measurements). None: the clips
    # as recorded only. The state's range keeps the clips as they are
    # (calibrate_state_quantization says why).
    range_overdrive_db: float | None = 10.0
    # "gptq": every weight rounded to its grid with its layer's inputs at every level in
    # mind, each bias corrected for the mean error (weight_rounding.py); "nearest": each
    # weight to its nearest step, the quantizer's own rounding.
    weight_rounding: str = "gptq"

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("LSTM gate weights", self.lstm_gate_weights or "int8", LSTM_GATE_WEIGHTS),
            ("weight rounding", self.weight_rounding, WEIGHT_ROUNDINGS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} {value!r}: expected one of {', '.join(allowed)}")

    def for_memory_mode(self, memory_mode: str | None) -> ModelConfig:
        """This configuration with its LSTM gate weights chosen for ``memory_mode`` (Vela's;
        None: no NPU) when it leaves them open."""
        if self.lstm_gate_weights is not None:
            return self
        return replace(self, lstm_gate_weights=gate_weights_for_memory_mode(memory_mode))

    def to_dict(self) -> dict:
        """JSON-ready: the fixed arithmetic and this configuration's choices."""
        return {**ARITHMETIC, **asdict(self)}


def gate_weights_for_memory_mode(memory_mode: str | None) -> str:
    """The LSTM gate weights' grid for a memory mode.

    With every weight in SRAM (``Sram_Only``, or the host CPU) the 6-bit grid buys no
    cycles, so the gate weights keep all 8 bits: measured on Ethos-U85-256 ``Sram_Only``,
    77,266 cycles per frame either way (8 kHz: 56,813), and the 6-bit grid cost the
    quietest clip its segments (committed clips at -30 dB, PyTorch quantized program, GPTQ
    rounding either way: lowest clip F1 0.955 against 0.993; MAE on clipped audio 0.0157
    against 0.0132). Where weights stream from DRAM or flash the codec's 6-bit stream is
    faster: int8 cost Ethos-U55-128 ``Shared_Sram`` 315,642 cycles instead of 287,226
    (+9.9 %) and Ethos-U65-256 ``Dedicated_Sram_384KB`` 139,095 instead of 131,517
    (+5.8 %), past the 5 % the level work could spend.
    """
    return "int8" if memory_mode in (None, "Sram_Only") else "int6"


DEFAULT_CONFIG = ModelConfig()


def build_float_model(sample_rate: int = DEFAULT_SAMPLE_RATE, reversal: str = "flip") -> SileroVAD:
    """The official weights for ``sample_rate``, arranged for the NPU.

    The STFT is framed for the NPU (reversing samples as ``reversal`` says: see
    ``targets.reversal_for``) and the encoder's padding taps are trimmed: the same float
    function as Silero's, except that the polygon magnitude is within 0.97 % of the exact
    one.
    """
    model = SileroVAD.from_silero_package(sample_rate)
    model.stft = FramedStftMagnitude.from_stft(model.stft, reversal)
    model.encoder = trim_padding_taps(model.encoder, model.geometry.stft_columns)
    return model


# The release's a16w8 config floors every scale at 2**-12, which would give small
# magnitudes the same coarse step as loud speech; 2**-26 lets each tensor take the scale
# its calibrated range needs.
A16W8_MIN_SCALE = 2**-26


def quantization_config() -> QuantizationConfig:
    """a16w8 with min/max activation observers (``_a16w8_min_max_config``)."""
    return _a16w8_min_max_config(**_WEIGHT_RANGES["int8"])


def gate_weight_spec(config: ModelConfig) -> QuantizationSpec:
    """The LSTM gate products' weight spec (their own, or the global one)."""
    spec = lstm_gate_product_spec(config).weight
    return spec if spec is not None else quantization_config().weight


def lstm_gate_product_spec(config: ModelConfig) -> LstmGateProductSpec:
    """The gate products' specs where they differ from the global a16w8: int8 inputs, and
    int6 weights when ``config`` (with its gate weights chosen: ``for_memory_mode``) says."""
    if config.lstm_gate_weights is None:
        raise ValueError("LSTM gate weights not chosen: use ModelConfig.for_memory_mode")
    input_activation = get_symmetric_quantization_config().input_activation
    weight = None
    if config.lstm_gate_weights != "int8":
        weight_range = _WEIGHT_RANGES[config.lstm_gate_weights]
        weight = get_symmetric_quantization_config(**weight_range).weight
    return LstmGateProductSpec(input_activation, weight)


def _a16w8_min_max_config(weight_qmin: int, weight_qmax: int) -> QuantizationConfig:
    """The release's a16w8 config, with min/max instead of histogram activation observers.

    The histogram observer's range search took 14 of the export's 33 seconds (observing
    every frame, then searching 2048 bins per tensor). At 16 bits clipping outliers buys
    nothing: measured with the device twin, min/max gives the same accuracy (real speech
    MAE 0.0031 and no flips, as with histograms; committed clips MAE 0.0067 vs 0.0073).
    """
    release = get_symmetric_a16w8_quantization_config(
        weight_qmin=weight_qmin, weight_qmax=weight_qmax, epsilon=A16W8_MIN_SCALE
    )
    activation = replace(
        release.input_activation,
        observer_or_fake_quant_ctr=MinMaxObserver.with_args(eps=A16W8_MIN_SCALE),
    )
    return replace(release, input_activation=activation, output_activation=activation)
