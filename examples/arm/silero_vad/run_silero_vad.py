# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The example's main job (run through ``examples/arm/silero_vad/run.sh``).

Exports the stateful int8 Silero VAD for Ethos-U85 (or the host CPU) from calibration
clips, writes the program, reference probabilities, Vela's figures and ``report.json``
to the output directory, and prints a summary.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from examples.arm.silero_vad.model_export.audio import AudioError, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import (
    DEFAULT_MEMORY_MODE,
    DEFAULT_SYSTEM_CONFIG,
    ExportOptions,
    export_silero_vad,
)
from examples.arm.silero_vad.model_export.lowering import CPU_TARGET, DEFAULT_NPU_TARGET

DATA_DIR = Path(__file__).resolve().parent / "data"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="run.sh",
        description="Export Silero VAD as a stateful int8 ExecuTorch program for Ethos-U85 "
        "and check it on the validation clips.",
    )
    parser.add_argument(
        "--calibration-wav",
        action="append",
        type=Path,
        help="calibration audio (repeatable; default: data/calibration/*.wav)",
    )
    parser.add_argument(
        "--validation-wav",
        action="append",
        type=Path,
        help="validation audio (repeatable; default: data/validation/*.wav)",
    )
    parser.add_argument(
        "--target",
        default=DEFAULT_NPU_TARGET,
        help=f"ethos-u85-128/256/512/1024, ethos-u55-*, or '{CPU_TARGET}' for the host runtime "
        f"(default: {DEFAULT_NPU_TARGET})",
    )
    parser.add_argument("--system-config", default=DEFAULT_SYSTEM_CONFIG)
    parser.add_argument("--memory-mode", default=DEFAULT_MEMORY_MODE)
    parser.add_argument("--output-dir", type=Path, default=Path("out/silero_vad"))
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    try:
        options = ExportOptions(
            calibration_wavs=args.calibration_wav or wav_files(DATA_DIR / "calibration"),
            validation_wavs=args.validation_wav or wav_files(DATA_DIR / "validation"),
            output_dir=args.output_dir,
            target=args.target,
            system_config=args.system_config,
            memory_mode=args.memory_mode,
        )
        result = export_silero_vad(options)
    except AudioError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    print(json.dumps(result.report, indent=2))
    print(f"wrote {result.pte_path} and {args.output_dir / 'report.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
