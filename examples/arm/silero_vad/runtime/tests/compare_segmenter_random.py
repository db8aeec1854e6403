# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Compare the C++ streaming segmenter with silero-vad on random sequences.

Each case draws parameters and a probability sequence (see
segmenter_cases.random_case), asks silero-vad's
get_speech_timestamps_from_probs() for the segments, runs the `segment_probs`
tool on the same float32 values and requires identical sample positions.
Exits non-zero on the first mismatch, printing how to replay it.

    compare_segmenter_random.py --segment-probs build/host/.../segment_probs --cases 1200
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from segmenter_cases import Case, handmade_cases, random_case  # noqa: E402

OPTION_NAMES = {
    "threshold": "--threshold",
    "neg_threshold": "--neg-threshold",
    "min_speech_duration_ms": "--min-speech-duration-ms",
    "max_speech_duration_s": "--max-speech-duration-s",
    "min_silence_duration_ms": "--min-silence-duration-ms",
    "speech_pad_ms": "--speech-pad-ms",
    "min_silence_at_max_speech": "--min-silence-at-max-speech",
    "use_max_poss_sil_at_max_speech": "--use-max-poss-sil-at-max-speech",
}


def option_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    number = float(value)
    return "inf" if math.isinf(number) else repr(number)


def run_tool(tool: Path, case: Case, work: Path) -> list[tuple[int, int]]:
    probs_file = work / "probs.bin"
    probs_file.write_bytes(case.probs.astype("<f4").tobytes())
    command = [
        str(tool),
        "--probs",
        str(probs_file),
        "--audio-length-samples",
        str(case.audio_length_samples),
    ]
    for key, value in case.params.items():
        command += [OPTION_NAMES[key], option_value(value)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}"
        )
    segments = []
    for line in result.stdout.splitlines():
        fields = line.split()
        if len(fields) != 3 or fields[0] != "SEGMENT":
            raise RuntimeError(f"unexpected output line {line!r}")
        segments.append((int(fields[1]), int(fields[2])))
    return segments


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segment-probs", type=Path, required=True, help="the segment_probs tool")
    parser.add_argument(
        "--cases", type=int, default=1200, help="random cases to run (default 1200)"
    )
    parser.add_argument(
        "--first-seed", type=int, default=0, help="seed of the first case (default 0)"
    )
    args = parser.parse_args()

    cases = handmade_cases()
    total_segments = 0
    frames = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for index in range(len(cases) + args.cases):
            if index < len(cases):
                case = cases[index]
            else:
                case = random_case(args.first_seed + index - len(cases))
            got = run_tool(args.segment_probs, case, work)
            if got != case.expected:
                print(
                    f"MISMATCH in {case.name} (params {case.params}, {len(case.probs)} frames, "
                    f"audio_length_samples {case.audio_length_samples})"
                )
                print(f"  silero-vad: {case.expected}")
                print(f"  C++:        {got}")
                return 1
            total_segments += len(got)
            frames += len(case.probs)
    print(
        f"compare_segmenter_random: {len(cases) + args.cases} cases ({args.cases} random), "
        f"{frames} frames, {total_segments} segments: identical to silero-vad"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
