# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy against float Silero per recording condition: the default, or a lever off.

Per variant: export, then the validation clips as recorded and under each condition of
``verification/conditions.py``, for the device twin and the PyTorch quantized program
(fake-quant): mean absolute error, flips at the threshold, confident flips (float more
than 0.1 from it), pooled and lowest clip's speech-segment F1; float Silero's own flips
under a 1-LSB dither are the floor:

    python -m examples.arm.silero_vad.lab.benchmark_accuracy \\
        --calibration-wav de.wav --validation-wav en_num.wav --condition all
"""

from __future__ import annotations

if __name__ == "__main__":
    # As a command: hide known third-party noise before torch loads (not on import).
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import sys
from pathlib import Path

from examples.arm.silero_vad.model_export.audio import AudioError
from examples.arm.silero_vad.model_export.export_silero_vad import (
    ExportOptions,
    export_silero_vad,
)
from examples.arm.silero_vad.model_export.frame_geometry import DEFAULT_SAMPLE_RATE, SAMPLE_RATES
from examples.arm.silero_vad.model_export.model_config import DEFAULT_CONFIG, ModelConfig
from examples.arm.silero_vad.model_export.targets import (
    DEFAULT_NPU_TARGET,
    HOST_TARGETS,
    all_targets,
)
from examples.arm.silero_vad.run_silero_vad import default_clips, device_runner
from examples.arm.silero_vad.verification.accuracy import NPU, QUANTIZED
from examples.arm.silero_vad.verification.cli import exit_on_errors
from examples.arm.silero_vad.verification.condition_accuracy import (
    condition_summary,
    conditions_report,
)
from examples.arm.silero_vad.verification.conditions import condition_choices, expand_conditions
from examples.arm.silero_vad.verification.report_markdown import markdown_table

CLEAN = "clean"  # the clips as recorded: the level sweep's 0 dB
# The default, and the default with one lever of the recording-level work switched off.
VARIANTS = {
    "default": DEFAULT_CONFIG,
    "nearest-rounding": ModelConfig(weight_rounding="nearest"),
    "full-scale-ranges": ModelConfig(range_overdrive_db=0.0),
    "int6-gate-weights": ModelConfig(lstm_gate_weights="int6"),
    "int8-gate-weights": ModelConfig(lstm_gate_weights="int8"),
}


def _cells(summary: dict) -> list[str]:
    return [
        f"{summary['mean_abs']:.4f}",
        f"{summary['flips_pct']:.2f} %",
        f"{summary['confident_flips_pct']:.2f} %",
        f"{summary['f1']:.3f} / {summary['min_f1']:.3f}",
    ]


def benchmark(
    variants: list[str],
    calibration: list[Path],
    validation: list[Path],
    conditions: list[str],
    work_dir: Path,
    target: str = DEFAULT_NPU_TARGET,
    sample_rate: int = DEFAULT_SAMPLE_RATE,
) -> list[list[str]]:
    """Per variant and condition (the clips as recorded first): twin, fake-quant and
    float's dither floor."""
    rows = []
    for name in variants:
        output_dir = work_dir / name
        print(f"== {name}: export, device twin and fake-quant ...", file=sys.stderr, flush=True)
        options = ExportOptions(
            calibration,
            validation,
            output_dir,
            target=target,
            model=VARIANTS[name],
            sample_rate=sample_rate,
        )
        result = export_silero_vad(options)
        streams, float_model = result.validation_streams, result.float_model
        all_conditions = [CLEAN, *conditions]
        by_side = {}
        for side, on_npu in ((NPU, True), (QUANTIZED, False)):
            run = device_runner(result, output_dir, on_npu)
            by_side[side] = conditions_report(all_conditions, streams, float_model, run, side)
        for condition in all_conditions:
            twin = condition_summary(condition, by_side[NPU][condition])
            fake = condition_summary(condition, by_side[QUANTIZED][condition])
            floor = (
                f"{twin['float_dither_flips_pct']:.2f} % / "
                f"{twin['float_dither_confident_flips_pct']:.2f} %"
            )
            rows.append([name, condition, str(twin["frames"]), *_cells(twin), *_cells(fake), floor])
    return rows


@exit_on_errors(AudioError)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--calibration-wav", action="append", type=Path)
    add("--validation-wav", action="append", type=Path)
    add("--variant", action="append", choices=list(VARIANTS), help="default: default")
    npu_targets = [target for target in all_targets() if target not in HOST_TARGETS]
    add("--target", default=DEFAULT_NPU_TARGET, choices=npu_targets, help="default: %(default)s")
    add("--sample-rate", type=int, choices=SAMPLE_RATES, default=DEFAULT_SAMPLE_RATE)
    conditions_help = "a recording condition or set (levels, recording, all); default: all"
    add("--condition", action="append", choices=condition_choices(), help=conditions_help)
    add("--work-dir", type=Path, default=Path("out/benchmark_accuracy"))
    args = parser.parse_args(argv)
    rate = args.sample_rate
    rows = benchmark(
        args.variant or ["default"],
        args.calibration_wav or default_clips("calibration", rate),
        args.validation_wav or default_clips("validation", rate),
        expand_conditions(args.condition or ["all"]),
        args.work_dir,
        args.target,
        rate,
    )
    metrics = ["mean abs", "flips", "confident flips", "F1 / lowest clip"]
    header = ["variant", "condition", "frames"]
    header += [f"twin {m}" for m in metrics] + [f"fake-quant {m}" for m in metrics]
    print(markdown_table(header + ["float ±1 LSB: flips / confident"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
