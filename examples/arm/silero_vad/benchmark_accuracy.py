# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy of each export configuration against the float model, twin and fake-quant.

For every configuration it exports (calibrating on the calibration clips), runs the
device twin on the validation clips and prints, per clip and overall, the mean and max
absolute error, the decision flips at the threshold and the speech-segment F1, for the
NPU twin and for the PyTorch quantized program (fake-quant) side by side:

    python -m examples.arm.silero_vad.benchmark_accuracy \\
        --calibration-wav de.wav --validation-wav en_num.wav [--condition quiet ...]

``--condition`` adds every validation clip under a derived recording condition (quiet,
clipped, noisy, telephone: ``evaluation/conditions.py``), one row per derived clip.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from examples.arm.silero_vad.evaluation.accuracy import ClipProbabilities, accuracy_report
from examples.arm.silero_vad.evaluation.conditions import CONDITIONS, write_derived
from examples.arm.silero_vad.evaluation.report_markdown import markdown_table
from examples.arm.silero_vad.model_export.audio import AudioError, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import (
    ExportOptions,
    export_silero_vad,
    read_probabilities,
    reference_path,
)
from examples.arm.silero_vad.model_export.model_config import NAMED_CONFIGS as CONFIGS
from examples.arm.silero_vad.run_silero_vad import DATA_DIR, run_device_twin


def _row(config: str, clip: str, npu: dict, fake_quant: dict) -> list[str]:
    def cells(entry: dict) -> list[str]:
        vs_float = entry["vs_float"]
        return [
            f"{vs_float['mean_abs']:.4f}",
            f"{vs_float['max_abs']:.3f}",
            f"{vs_float['flips']} ({vs_float['flips_pct']:.2f} %)",
            f"{entry['segments']['f1']:.3f}",
        ]

    return [config, clip, str(npu["frames"]), *cells(npu), *cells(fake_quant)]


def benchmark(
    configs: list[str], calibration: list[Path], validation: list[Path], work_dir: Path
) -> list[list[str]]:
    rows = []
    for name in configs:
        output_dir = work_dir / name
        print(f"== {name}: export and device twin ...", file=sys.stderr, flush=True)
        result = export_silero_vad(
            ExportOptions(calibration, validation, output_dir, model=CONFIGS[name])
        )
        twin, _ = run_device_twin(result, output_dir)
        npu_clips, fake_quant_clips = [], []
        for stream in result.validation_streams:
            float_model = read_probabilities(reference_path(output_dir, stream.name, "float"))
            quantized = read_probabilities(reference_path(output_dir, stream.name, "quantized"))
            npu_clips.append(
                ClipProbabilities(
                    stream.name, stream.num_samples, float_model, twin[stream.name], quantized
                )
            )
            fake_quant_clips.append(
                ClipProbabilities(stream.name, stream.num_samples, float_model, quantized)
            )
        npu, fake_quant = accuracy_report(npu_clips), accuracy_report(fake_quant_clips)
        for clip in npu["clips"]:
            rows.append(_row(name, clip, npu["clips"][clip], fake_quant["clips"][clip]))
        rows.append(_row(name, "overall", npu["overall"], fake_quant["overall"]))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibration-wav", action="append", type=Path)
    parser.add_argument("--validation-wav", action="append", type=Path)
    parser.add_argument(
        "--config",
        action="append",
        choices=sorted(CONFIGS),
        help=f"configuration(s) to compare (default: all: {', '.join(CONFIGS)})",
    )
    parser.add_argument(
        "--condition",
        action="append",
        choices=sorted(CONDITIONS),
        help="also validate on every validation clip under this recording condition "
        "(evaluation/conditions.py; repeatable)",
    )
    parser.add_argument("--work-dir", type=Path, default=Path("out/benchmark_accuracy"))
    args = parser.parse_args(argv)
    try:
        validation = args.validation_wav or wav_files(DATA_DIR / "validation")
        if args.condition:
            derived_dir = args.work_dir / "conditions"
            validation = validation + write_derived(validation, derived_dir, args.condition)
        rows = benchmark(
            args.config or list(CONFIGS),
            args.calibration_wav or wav_files(DATA_DIR / "calibration"),
            validation,
            args.work_dir,
        )
    except AudioError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    metrics = ["mean abs", "max abs", "flips @ 0.5", "segment F1"]
    header = ["config", "clip", "frames"]
    header += [f"twin {m}" for m in metrics] + [f"fake-quant {m}" for m in metrics]
    print(markdown_table(header, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
