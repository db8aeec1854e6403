# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Compare the C++ streaming segmenter with silero-vad on random sequences.

Each case draws parameters and a probability sequence (see
segmenter_cases.random_case), asks silero-vad's
get_speech_timestamps_from_probs() for the segments at --sample-rate (16000:
512-sample windows, 8000: 256-sample windows), runs the `segment_probs` tool
on the same float32 values and requires identical sample positions.
Exits non-zero on the first mismatch, printing how to replay it.

With --python-twin it also checks *when* each segment comes out: the frame
after which the C++ segmenter releases it must be the frame after which the
project's Python twin (examples/arm/silero_vad/streaming/speech_segmenter.py)
does, so the serial logs of the device and of the twin are byte-identical.

    compare_segmenter_random.py --segment-probs build/host/.../segment_probs --cases 1200 \
        [--sample-rate 8000]
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


Released = list[tuple[int, int, str]]  # start, end, "frame=<n>" or "finish"


def run_tool(tool: Path, case: Case, work: Path) -> Released:
    probs_file = work / "probs.bin"
    probs_file.write_bytes(case.probs.astype("<f4").tobytes())
    command = [
        str(tool),
        "--probs",
        str(probs_file),
        "--audio-length-samples",
        str(case.audio_length_samples),
        "--sample-rate",
        str(case.sample_rate),
        "--show-release",
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
        if len(fields) != 4 or fields[0] != "SEGMENT":
            raise RuntimeError(f"unexpected output line {line!r}")
        segments.append((int(fields[1]), int(fields[2]), fields[3]))
    return segments


def python_twin_release(case: Case) -> Released:
    """Segments of the project's Python twin, with the frame count at release."""
    repo = Path(__file__).resolve().parents[5]
    if str(repo) not in sys.path:
        sys.path.insert(0, str(repo))
    from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig, SpeechSegmenter

    segmenter = SpeechSegmenter(SegmenterConfig(**case.params), case.sample_rate)
    released: Released = []
    for frame, probability in enumerate(case.probs, start=1):
        released += [(s, e, f"frame={frame}") for s, e in segmenter.push(float(probability))]
    released += [(s, e, "finish") for s, e in segmenter.finish(case.audio_length_samples)]
    return released


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--segment-probs", type=Path, required=True, help="the segment_probs tool")
    parser.add_argument(
        "--cases", type=int, default=1200, help="random cases to run (default 1200)"
    )
    parser.add_argument(
        "--first-seed", type=int, default=0, help="seed of the first case (default 0)"
    )
    parser.add_argument(
        "--sample-rate",
        type=int,
        choices=(16000, 8000),
        default=16000,
        help="silero-vad's sampling_rate for every case (default 16000)",
    )
    parser.add_argument(
        "--python-twin",
        action="store_true",
        help="also require the release frames of the project's Python segmenter",
    )
    args = parser.parse_args()

    cases = handmade_cases(args.sample_rate)
    total_segments = 0
    frames = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for index in range(len(cases) + args.cases):
            if index < len(cases):
                case = cases[index]
            else:
                case = random_case(args.first_seed + index - len(cases), args.sample_rate)
            released = run_tool(args.segment_probs, case, work)
            got = [(start, end) for start, end, _ in released]
            if got != case.expected:
                print(
                    f"MISMATCH in {case.name} (params {case.params}, {len(case.probs)} frames, "
                    f"audio_length_samples {case.audio_length_samples})"
                )
                print(f"  silero-vad: {case.expected}")
                print(f"  C++:        {got}")
                return 1
            if args.python_twin and (twin := python_twin_release(case)) != released:
                print(f"RELEASE MISMATCH in {case.name} (params {case.params})")
                print(f"  Python twin: {twin}")
                print(f"  C++:         {released}")
                return 1
            total_segments += len(got)
            frames += len(case.probs)
    twin = " and released on the same frames as the Python twin" if args.python_twin else ""
    print(
        f"compare_segmenter_random: {len(cases) + args.cases} cases ({args.cases} random) at "
        f"{args.sample_rate} Hz, "
        f"{frames} frames, {total_segments} segments: identical to silero-vad{twin}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
