# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The example's main job (run through ``examples/arm/silero_vad/run.sh``)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from examples.arm.silero_vad.model_export.audio import AudioError, load_streams, wav_files
from examples.arm.silero_vad.model_export.float_reference import float_probabilities
from examples.arm.silero_vad.model_export.silero_vad_model import (
    FRAME_SECONDS,
    SAMPLE_RATE,
    SileroVAD,
)
from examples.arm.silero_vad.runtime.speech_segmenter import speech_segments

DATA_DIR = Path(__file__).resolve().parent / "data"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="run.sh",
        description="Silero VAD on Ethos-U85: float probabilities and speech segments per clip.",
    )
    parser.add_argument(
        "--validation-wav",
        action="append",
        type=Path,
        help="audio file to run (repeatable; default: the committed validation clips)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    try:
        streams = load_streams(args.validation_wav or wav_files(DATA_DIR / "validation"))
    except AudioError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    model = SileroVAD.from_silero_package()
    for stream in streams:
        probabilities = float_probabilities(model, stream)
        print(f"# {stream.path} ({stream.num_frames} frames)")
        for index, probability in enumerate(probabilities):
            decision = "speech" if probability >= 0.5 else "silence"
            print(f"PROB {index * FRAME_SECONDS:.3f} {probability:.6f} {decision}")
        segments = speech_segments(probabilities, stream.num_samples)
        for start, end in segments:
            print(f"SEGMENT {start / SAMPLE_RATE:.3f} {end / SAMPLE_RATE:.3f}")
        print(f"DONE frames={stream.num_frames} segments={len(segments)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
