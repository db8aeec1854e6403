# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Each lever that keeps Silero's decisions across levels, switched off, breaks a bound the
default keeps.

The PyTorch quantized program (what the Ethos-U program is lowered from; the device twin
follows it, see test_silero_vad_main_job.py) against float Silero on the committed 16 kHz
clips under the condition the lever is for, quantized for Ethos-U85 in its default memory
mode. Measured, default / lever off:

- weight rounding GPTQ -> nearest: clean MAE 0.0040 / 0.0060; quiet (-30 dB) MAE
  0.0113 / 0.0307 and lowest clip F1 0.993 / 0.836;
- activation ranges calibrated 10 dB into clipping -> at full scale only (the previous
  default): clipped audio 1.48 / 3.60 % flips, 0 / 1.48 % confident flips;
- int8 LSTM gate weights where weights sit in SRAM -> int6: quiet (-30 dB) lowest clip F1
  0.993 / 0.955.

Each bound lies between the two, nearer the default, with the margin said.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from examples.arm.silero_vad.model_export.audio import AudioStream, load_streams
from examples.arm.silero_vad.model_export.export_silero_vad import quantize_configured
from examples.arm.silero_vad.model_export.lowering import make_compile_spec
from examples.arm.silero_vad.model_export.model_config import DEFAULT_CONFIG, ModelConfig
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    program_frames,
    stream_probabilities,
)
from examples.arm.silero_vad.verification.accuracy import QUANTIZED
from examples.arm.silero_vad.verification.condition_accuracy import conditions_report

pytestmark = pytest.mark.slow

DEFAULT = DEFAULT_CONFIG.for_memory_mode("Sram_Only")  # Ethos-U85's default memory mode
VARIANTS = {
    "default": DEFAULT,
    "nearest_rounding": replace(DEFAULT, weight_rounding="nearest"),
    "full_scale_ranges": replace(DEFAULT, range_overdrive_db=0.0),
    "int6_gate_weights": replace(DEFAULT, lstm_gate_weights="int6"),
}
CONDITIONS = ("clean", "level-30", "clipped")


class Reports:
    """Quantizes each variant once, on first use, and reports it under CONDITIONS."""

    def __init__(self, calibration: list[AudioStream], validation: list[AudioStream]) -> None:
        self.calibration, self.validation = calibration, validation
        self.float_model = SileroVAD.from_silero_package()
        self.spec = make_compile_spec("ethos-u85-256", None, None, None)
        self.done: dict[str, dict] = {}

    def __getitem__(self, variant: str) -> dict:
        if variant not in self.done:
            config: ModelConfig = VARIANTS[variant]
            quantized, _ = quantize_configured(
                config, self.float_model, self.calibration, self.spec
            )

            def run(streams: list[AudioStream]) -> list[tuple]:
                return [
                    (stream_probabilities(quantized, program_frames(s, "int16")), None)
                    for s in streams
                ]

            reports = conditions_report(
                CONDITIONS, self.validation, self.float_model, run, QUANTIZED
            )
            self.done[variant] = {name: report["overall"] for name, report in reports.items()}
        return self.done[variant]


@pytest.fixture(scope="module")
def reports(calibration_wavs: list[Path], validation_wavs: list[Path]) -> Reports:
    return Reports(load_streams(calibration_wavs), load_streams(validation_wavs))


def test_gptq_rounding_keeps_clean_and_quiet_speech(reports: Reports) -> None:
    """Bounds: clean MAE 0.0050 (default +25 %), quiet MAE 0.017 (x1.5), quiet lowest F1
    0.98 (the issue's goal)."""
    for variant, keeps in (("default", True), ("nearest_rounding", False)):
        clean, quiet = reports[variant]["clean"], reports[variant]["level-30"]
        within = (
            clean["vs_float"]["mean_abs"] <= 0.0050
            and quiet["vs_float"]["mean_abs"] <= 0.017
            and quiet["segments"]["min_f1"] >= 0.98
        )
        assert within == keeps, (variant, clean["vs_float"], quiet)


def test_ranges_calibrated_into_clipping_keep_clipped_speech(reports: Reports) -> None:
    """Bounds: clipped flips 2.0 % (default +0.5 points), confident flips 0.2 % (the
    issue's goal; default 0)."""
    for variant, keeps in (("default", True), ("full_scale_ranges", False)):
        clipped = reports[variant]["clipped"]["vs_float"]
        within = clipped["flips_pct"] <= 2.0 and clipped["confident_flips_pct"] <= 0.2
        assert within == keeps, (variant, clipped)


def test_int8_gate_weights_keep_every_quiet_clip(reports: Reports) -> None:
    """Bound: quiet (-30 dB) lowest clip F1 0.98 (the issue's goal; default 0.993)."""
    for variant, keeps in (("default", True), ("int6_gate_weights", False)):
        quiet = reports[variant]["level-30"]["segments"]
        assert (quiet["min_f1"] >= 0.98) == keeps, (variant, quiet)
