# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""How the float Silero VAD is arranged and quantized for the NPU.

Measured on real speech (calibrated on one recording, validated on another, device twin
against the float model; see the accuracy benchmark): the straightforward recipe (conv
STFT, int8 everywhere) flips a quarter of the decisions, mostly because squaring an int8
or int16 spectrum rounds every small power to zero. The default frames the STFT for the
NPU (``FramedStftMagnitude``, the same spectrum), takes the magnitude as a 16-gon's
support function (within 0.97 %, no squares), drops the encoder taps that only meet
padding (``encoder_taps.py``, the same function), uses 16-bit activations with 8-bit
weights (a16w8), except 8-bit inputs for the LSTM gate products (and 6-bit gate weights
where weights stream from DRAM or flash), and a 16-bit state. For every recording level,
not only the calibration's, the weights are rounded with GPTQ on the calibration clips at
every level and the activation ranges are calibrated 10 dB into clipping
(``weight_rounding.py``, ``calibration.overdriven_versions``). The figures per target,
level and channel are in the example README. ``magnitude="sqrt"`` with levels keeps
Silero's exact float function at the same accuracy, at a higher cost.
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
from examples.arm.silero_vad.model_export.framed_stft import FramedStftMagnitude, check_magnitude
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD

# StatefulSileroVAD keeps the float model under this attribute (module names in the graph).
STATEFUL_MODEL_ATTRIBUTE = "model"

FRONT_ENDS = ("framed", "conv")
ACTIVATIONS = ("int16", "int8")
WEIGHTS = ("int8", "int4")
LSTM_GATE_WEIGHTS = ("int8", "int6", "int4")
LSTM_GATE_PRODUCTS = ("split", "fused")
STATE_DTYPES = ("int16", "int8")
WEIGHT_ROUNDINGS = ("gptq", "nearest")
# Submodules of SileroVAD that can keep a16w8 inside int8 activations.
INT16_MODULES = (
    "stft",
    *(f"encoder.convs.{index}" for index in range(4)),
    "decoder.rnn",
    "decoder.head",
)

# Symmetric weight ranges: the Arm backend serializes a weight quantized to -7..7 as int4;
# narrower int8 ranges stay int8 (Vela's codec then spends fewer bits on them).
_WEIGHT_BITS = {"int8": 8, "int6": 6, "int4": 4}
_WEIGHT_RANGES = {
    name: {"weight_qmin": 1 - 2 ** (bits - 1), "weight_qmax": 2 ** (bits - 1) - 1}
    for name, bits in _WEIGHT_BITS.items()
}


# Levels for the sqrt magnitude with int16 activations: an int16 sqrt table interpolates
# linearly between 513 entries, so a level L is accurate from about 0.2 L to L; these
# tile the magnitude range down to ~0.002 (speech reaches ~8).
SQRT_MAGNITUDE_LEVELS = (1.2, 0.25, 0.05, 0.01)


@dataclass(frozen=True)
class ModelConfig:
    # "framed": FramedStftMagnitude and the encoder without padding taps; "conv": Silero's
    # own arrangement (the official STFT).
    front_end: str = "framed"
    # "polygon" or "sqrt"; None: the front end's own ("polygon" framed, "sqrt" conv, which
    # has no other).
    magnitude: str | None = None
    magnitude_levels: tuple[float, ...] = ()  # sqrt magnitude of the framed front end only
    activations: str = "int16"  # "int16": a16w8; "int8": a8w8
    # The inputs of the LSTM's two gate products (cell input and hidden state as they
    # enter them). "int8" with int16 activations: the products run at 8 bits, the rest of
    # the cell (pre-activations, nonlinearities, state) at 16 (see StatefulEthosUQuantizer).
    lstm_gate_inputs: str = "int8"
    # "int4" (values -7..7, per channel) halves the weight bytes Vela streams; without
    # quantization-aware training it costs accuracy: a cycle floor for the benchmarks.
    weights: str = "int8"
    # The LSTM's gate weights (half the model's weight bytes), at most as wide as
    # ``weights``. "int6": values -31..31 per channel, stored as int8; Vela's lossless
    # weight codec streams them in about 6 bits, so the products stop waiting on memory
    # where weights stream from DRAM or flash. None: chosen per memory mode when the
    # export knows it (``gate_weights_for_memory_mode``), "int8" otherwise.
    lstm_gate_weights: str | None = None
    # "split": one product for the cell input, one for the hidden state; "fused": one
    # product over both (one weight stream, one set of per-channel scales; x and h share
    # its input range). With int8 activations only: inside a16w8 the release builds an
    # int16 table for a gate it reads as int8, and the shared int8 range measured less
    # accurate there anyway (committed clips, PyTorch quantized: MAE 0.0073 vs 0.0048).
    lstm_gate_products: str = "split"
    state_dtype: str = "int16"
    # Submodules of SileroVAD ("stft", "encoder.convs.0", "decoder.rnn", ...) that keep
    # a16w8 inside int8 activations: int16 only where a measurement shows it must stay
    # (precision_search.py measures it).
    int16_modules: tuple[str, ...] = ()
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
        if self.magnitude is None:
            default = "polygon" if self.front_end == "framed" else "sqrt"
            object.__setattr__(self, "magnitude", default)
        for name, value, allowed in (
            ("front end", self.front_end, FRONT_ENDS),
            ("activations", self.activations, ACTIVATIONS),
            ("LSTM gate inputs", self.lstm_gate_inputs, ACTIVATIONS),
            ("weights", self.weights, WEIGHTS),
            ("LSTM gate weights", self.lstm_gate_weights or self.weights, LSTM_GATE_WEIGHTS),
            ("LSTM gate products", self.lstm_gate_products, LSTM_GATE_PRODUCTS),
            ("state dtype", self.state_dtype, STATE_DTYPES),
            ("weight rounding", self.weight_rounding, WEIGHT_ROUNDINGS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} {value!r}: expected one of {', '.join(allowed)}")
        if self.activations == "int8" and self.lstm_gate_inputs != "int8":
            raise ValueError("LSTM gate inputs wider than the int8 activations around them")
        if self.lstm_gate_products == "fused" and self.activations != "int8":
            raise ValueError("fused LSTM gate products need int8 activations")
        if _WEIGHT_BITS[self.lstm_gate_weights or self.weights] > _WEIGHT_BITS[self.weights]:
            raise ValueError(f"LSTM gate weights wider than the {self.weights} weights")
        if self.lstm_gate_weights == "int4" and self.lstm_gate_inputs != "int8":
            raise ValueError("int4 LSTM gate weights need int8 gate inputs (Ethos-U, TOSA)")
        if self.front_end == "conv" and (self.magnitude != "sqrt" or self.magnitude_levels):
            raise ValueError("the conv front end is Silero's own: sqrt magnitude, no levels")
        check_magnitude(self.magnitude, self.magnitude_levels)
        unknown = sorted(set(self.int16_modules) - set(INT16_MODULES))
        if unknown:
            raise ValueError(f"int16 modules {unknown}: expected among {', '.join(INT16_MODULES)}")
        if self.int16_modules and self.activations != "int8":
            raise ValueError("int16 modules only make sense inside int8 activations")

    def for_memory_mode(self, memory_mode: str | None) -> ModelConfig:
        """This configuration with its LSTM gate weights chosen for ``memory_mode`` (Vela's;
        None: no NPU) when it leaves them open."""
        if self.lstm_gate_weights is not None:
            return self
        return replace(self, lstm_gate_weights=gate_weights_for_memory_mode(self, memory_mode))

    def to_dict(self) -> dict:
        """JSON-ready (lists, not tuples), so a report read back compares equal."""
        return {
            **asdict(self),
            "magnitude_levels": list(self.magnitude_levels),
            "int16_modules": list(self.int16_modules),
        }


def gate_weights_for_memory_mode(config: ModelConfig, memory_mode: str | None) -> str:
    """The LSTM gate weights' grid where the configuration leaves it open.

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
    if config.weights != "int8":
        return config.weights
    return "int8" if memory_mode in (None, "Sram_Only") else "int6"


DEFAULT_CONFIG = ModelConfig()
# The straightforward recipe, kept for comparison (benchmark, --front-end conv ...).
RECIPE_CONFIG = ModelConfig(
    front_end="conv", activations="int8", lstm_gate_weights="int8", state_dtype="int8"
)
# Silero's exact float function (sqrt magnitude), accurate thanks to the levels.
EXACT_CONFIG = ModelConfig(magnitude="sqrt", magnitude_levels=SQRT_MAGNITUDE_LEVELS)

# The configurations the benchmarks compare, by name.
NAMED_CONFIGS = {
    "recipe": RECIPE_CONFIG,
    "framed-int8": ModelConfig(activations="int8", state_dtype="int8"),
    "framed-int16-int8-state": ModelConfig(state_dtype="int8"),
    "exact-sqrt-levels": EXACT_CONFIG,
    "default": DEFAULT_CONFIG,
    # The default arrangement in the narrowest arithmetic Vela offers, post-training:
    # where the cycles bottom out without retraining.
    "floor-a8w4": ModelConfig(activations="int8", weights="int4", state_dtype="int8"),
    # The same with one gate product (one weight stream and one set of scales).
    "floor-a8w4-fused": ModelConfig(
        activations="int8", weights="int4", lstm_gate_products="fused", state_dtype="int8"
    ),
}


def build_float_model(
    config: ModelConfig, sample_rate: int = DEFAULT_SAMPLE_RATE, reversal: str = "flip"
) -> SileroVAD:
    """The official weights for ``sample_rate`` in the arrangement ``config`` asks for.

    The framed arrangement frames the STFT for the NPU (reversing samples as ``reversal``
    says: see ``targets.reversal_for``) and trims the encoder's padding taps: the same
    float function as Silero's, except that the polygon magnitude is within 0.97 % of the
    exact one.
    """
    model = SileroVAD.from_silero_package(sample_rate)
    if config.front_end == "framed":
        model.stft = FramedStftMagnitude.from_stft(
            model.stft, config.magnitude, config.magnitude_levels, reversal
        )
        model.encoder = trim_padding_taps(model.encoder, model.geometry.stft_columns)
    return model


# The release's a16w8 config floors every scale at 2**-12, which would give small
# magnitudes (and the sqrt levels' clamped powers, range ~2e-4) the same coarse step as
# loud speech; 2**-26 lets each tensor take the scale its calibrated range needs.
A16W8_MIN_SCALE = 2**-26


def gate_weight_spec(config: ModelConfig) -> QuantizationSpec:
    """The LSTM gate products' weight spec (their own, or the global one)."""
    spec = lstm_gate_product_spec(config).weight
    return spec if spec is not None else quantization_config(config).weight


def quantization_config(config: ModelConfig) -> QuantizationConfig:
    weight_range = _WEIGHT_RANGES[config.weights]
    if config.activations == "int16":
        return _a16w8_min_max_config(**weight_range)
    return get_symmetric_quantization_config(**weight_range)


def lstm_gate_product_spec(config: ModelConfig) -> LstmGateProductSpec:
    """The gate products' arrangement, and their specs where they differ from the global
    (``config`` with its gate weights chosen: ``ModelConfig.for_memory_mode``)."""
    if config.lstm_gate_weights is None:
        raise ValueError("LSTM gate weights not chosen: use ModelConfig.for_memory_mode")
    input_activation = weight = None
    # The cell's own width: a16w8 when the activations are, or when it is an int16 module.
    cell = "int16" if "decoder.rnn" in config.int16_modules else config.activations
    if config.lstm_gate_inputs != cell:
        input_activation = get_symmetric_quantization_config().input_activation
    if config.lstm_gate_weights != config.weights:
        weight_range = _WEIGHT_RANGES[config.lstm_gate_weights]
        weight = get_symmetric_quantization_config(**weight_range).weight
    return LstmGateProductSpec(input_activation, weight, config.lstm_gate_products == "fused")


def module_quantization_configs(config: ModelConfig) -> dict[str, QuantizationConfig]:
    """a16w8 for ``config.int16_modules``, by their names in the stateful model."""
    if not config.int16_modules:
        return {}
    a16w8 = _a16w8_min_max_config(**_WEIGHT_RANGES[config.weights])
    return {f"{STATEFUL_MODEL_ATTRIBUTE}.{name}": a16w8 for name in config.int16_modules}


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
