# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Black-box checks of the silero_vad_runner command line, one group per CTest.

Groups:
  bad-wav     every file of the bad WAV corpus: its ERROR line, exit 1, 0x04
  bad-model   broken and foreign .pte files: ERROR line, exit 1, 0x04
  usage       bad command lines: ERROR line, exit 2, 0x04; --help exits 0
  good-wav    every good WAV: DONE with ceil(samples / 512) frames, 0x04
  end-to-end  toy model on a speech-like clip: the probabilities equal the
              eager PyTorch model's, every PROB line agrees with them, and the
              SEGMENT lines equal silero-vad's segmentation of them
  python-twin the runner's output is byte for byte what the project's Python
              protocol writer (runtime/serial_protocol.py) prints for the
              same probabilities, with default and custom segmentation
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

EOT = b"\x04"


class CheckError(Exception):
    """A failed expectation, with what was seen."""


def run(runner: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(runner), *args], capture_output=True, check=False, timeout=120)


def expect_error(
    result: subprocess.CompletedProcess[bytes], text: str, code: int, what: str
) -> None:
    out = result.stdout
    if result.returncode != code:
        raise CheckError(f"{what}: exit {result.returncode}, expected {code}; stdout {out!r}")
    if not out.endswith(b"\n" + EOT):
        raise CheckError(f"{what}: output does not end with an ERROR line and 0x04: {out!r}")
    lines = out[:-1].decode().splitlines()
    if len(lines) != 1 or not lines[0].startswith("ERROR "):
        raise CheckError(f"{what}: expected exactly one ERROR line, got {lines!r}")
    if text not in lines[0]:
        raise CheckError(f"{what}: {lines[0]!r} does not contain {text!r}")


def parse_protocol(
    out: bytes,
) -> tuple[list[tuple[float, float, str]], list[tuple[float, float]], str]:
    if not out.endswith(EOT) or out.count(EOT) != 1:
        raise CheckError(f"output must end with a single 0x04: {out[-60:]!r}")
    probs, segments, done = [], [], ""
    for line in out[:-1].decode().splitlines():
        fields = line.split()
        if fields[0] == "PROB" and len(fields) == 4:
            probs.append((float(fields[1]), float(fields[2]), fields[3]))
        elif fields[0] == "SEGMENT" and len(fields) == 3:
            segments.append((float(fields[1]), float(fields[2])))
        elif fields[0] == "DONE" and not done:
            done = line
        else:
            raise CheckError(f"unexpected line {line!r}")
    return probs, segments, done


def check_bad_wav(runner: Path, data: Path) -> int:
    model = data / "models" / "toy_state.pte"
    expected = (data / "wav" / "bad" / "expected.tsv").read_text().splitlines()
    for line in expected:
        name, text = line.split("\t")
        expect_error(
            run(runner, "--model", str(model), "--wav", str(data / "wav" / "bad" / name)),
            text,
            1,
            name,
        )
    return len(expected)


def check_bad_model(runner: Path, data: Path) -> int:
    wav = str(data / "wav" / "good" / "speech_like.wav")
    models = data / "models"
    cases = {
        "truncated.pte": "not a loadable ExecuTorch program",
        "header_only.pte": "not a loadable ExecuTorch program",
        "not_a_program.pte": "not a loadable ExecuTorch program",
        "random_bytes.pte": "not a loadable ExecuTorch program",
        "empty.pte": "model file is empty",
        "foreign_two_inputs.pte": "model has 2 inputs: expected 1",
        "foreign_input_shape.pte": "model input has shape (1, 512)",
        "foreign_output_shape.pte": "model output has shape (1, 2)",
        "foreign_delegated.pte": "a backend this program delegates to is not in this runner",
        "does_not_exist.pte": "cannot open",
    }
    for name, text in cases.items():
        expect_error(run(runner, "--model", str(models / name), "--wav", wav), text, 1, name)
    return len(cases)


def check_usage(runner: Path, data: Path) -> int:
    model = str(data / "models" / "toy_state.pte")
    wav = str(data / "wav" / "good" / "speech_like.wav")
    cases = [
        ([], "--model and --wav are required"),
        (["--model", model], "--model and --wav are required"),
        (["--model", model, "--wav", wav, "--bogus", "1"], "unknown option '--bogus'"),
        (["--model", model, "--wav", wav, "--threshold", "abc"], "'abc' is not a number"),
        (
            ["--model", model, "--wav", wav, "--speech-pad-ms", "-3"],
            "speech_pad_ms must be finite and >= 0",
        ),
        (
            ["--model", model, "--wav", wav, "--use-max-poss-sil-at-max-speech", "maybe"],
            "needs true or false",
        ),
        (["--model", model, "--wav"], "--wav needs a path"),
        (["stray"], "unexpected argument 'stray'"),
    ]
    for args, text in cases:
        expect_error(run(runner, *args), text, 2, " ".join(args) or "(no arguments)")
    for flag in ("--help", "-h"):
        result = run(runner, flag)
        if result.returncode != 0 or b"Usage: silero_vad_runner" not in result.stdout:
            raise CheckError(f"{flag}: exit {result.returncode}, stdout {result.stdout[:200]!r}")
    return len(cases) + 2


def check_good_wav(runner: Path, data: Path) -> int:
    model = str(data / "models" / "toy_state.pte")
    expected = (data / "wav" / "good" / "expected.tsv").read_text().splitlines()
    for line in expected:
        name, samples = line.split("\t")
        path = data / "wav" / "good" / name
        result = run(runner, "--model", model, "--wav", str(path))
        if result.returncode != 0:
            raise CheckError(f"{name}: exit {result.returncode}: {result.stdout[-300:]!r}")
        probs, segments, done = parse_protocol(result.stdout)
        frames = math.ceil(int(samples) / 512)
        if len(probs) != frames or done != f"DONE frames={frames} segments={len(segments)}":
            raise CheckError(f"{name}: {len(probs)} PROB lines, {done!r}, expected {frames} frames")
        for index, (time_s, _, _) in enumerate(probs):
            if f"{time_s:.3f}" != f"{index * 0.032:.3f}":
                raise CheckError(f"{name}: frame {index} at time {time_s}")
    return len(expected)


def check_end_to_end(runner: Path, data: Path) -> int:
    import numpy as np
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_toy_model import ToyVad
    from silero_vad.utils_vad import get_speech_timestamps_from_probs

    wav = data / "wav" / "good" / "speech_like.wav"
    with tempfile.TemporaryDirectory() as tmp:
        probs_file = Path(tmp) / "probs.bin"
        result = run(
            runner,
            "--model",
            str(data / "models" / "toy_state.pte"),
            "--wav",
            str(wav),
            "--probs-out",
            str(probs_file),
            "--timing",
        )
        if result.returncode != 0:
            raise CheckError(f"runner failed: {result.stdout[-300:]!r} {result.stderr[-300:]!r}")
        got = np.frombuffer(probs_file.read_bytes(), dtype="<f4")
    probs, segments, done = parse_protocol(result.stdout)

    with wave.open(str(wav)) as handle:
        samples = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2")
    audio = torch.from_numpy(samples.astype(np.float32) / 32768.0)
    frames = math.ceil(len(samples) / 512)
    padded = torch.nn.functional.pad(audio, (0, frames * 512 - len(samples)))
    model = ToyVad().eval()
    context = torch.zeros(64)
    expected = []
    with torch.no_grad():
        for index in range(frames):
            chunk = padded[index * 512 : (index + 1) * 512]
            expected.append(float(model(torch.cat([context, chunk]).unsqueeze(0))))
            context = chunk[-64:]

    if len(got) != frames or len(probs) != frames:
        raise CheckError(
            f"{len(got)} probabilities in the file, {len(probs)} PROB lines, {frames} frames"
        )
    error = float(np.max(np.abs(got.astype(np.float64) - np.asarray(expected))))
    if error > 1e-5:
        raise CheckError(f"probabilities differ from the eager model by up to {error}")
    for index, ((time_s, shown, label), value) in enumerate(zip(probs, got, strict=True)):
        if f"{shown:.6f}" != f"{float(value):.6f}" or label != (
            "speech" if value >= 0.5 else "silence"
        ):
            raise CheckError(
                f"frame {index}: PROB line ({time_s}, {shown}, {label}) vs file value {value}"
            )
    reference = get_speech_timestamps_from_probs(
        [float(v) for v in got], audio_length_samples=len(samples)
    )
    want = [
        (float(f"{s['start'] / 16000:.3f}"), float(f"{s['end'] / 16000:.3f}")) for s in reference
    ]
    if segments != want or len(want) < 2:
        raise CheckError(f"segments {segments} differ from silero-vad's {want}")
    if done != f"DONE frames={frames} segments={len(want)}":
        raise CheckError(f"bad DONE line {done!r}")
    timing = [line for line in result.stderr.decode().splitlines() if line.startswith("TIMING ")]
    if len(timing) != 1 or f"frames={frames}" not in timing[0]:
        raise CheckError(f"no TIMING line for {frames} frames on stderr: {timing}")
    print(
        f"end-to-end: {frames} frames, max abs error {error:.2e}, {len(want)} segments, {timing[0]}"
    )
    return 1


def check_python_twin(runner: Path, data: Path) -> int:
    repo = Path(__file__).resolve().parents[5]
    sys.path.insert(0, str(repo))
    import numpy as np

    from examples.arm.silero_vad.runtime.serial_protocol import format_protocol
    from examples.arm.silero_vad.runtime.speech_segmenter import SegmenterConfig

    wav = data / "wav" / "good" / "speech_like.wav"
    with wave.open(str(wav)) as handle:
        num_samples = handle.getnframes()
    settings = [
        ([], SegmenterConfig()),
        (
            ["--threshold", "0.6", "--speech-pad-ms", "150", "--min-silence-duration-ms", "40"],
            SegmenterConfig(threshold=0.6, speech_pad_ms=150, min_silence_duration_ms=40),
        ),
        (
            ["--max-speech-duration-s", "0.5", "--use-max-poss-sil-at-max-speech", "false"],
            SegmenterConfig(max_speech_duration_s=0.5, use_max_poss_sil_at_max_speech=False),
        ),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        probs_file = Path(tmp) / "probs.bin"
        for args, config in settings:
            result = run(
                runner,
                "--model",
                str(data / "models" / "toy_state.pte"),
                "--wav",
                str(wav),
                "--probs-out",
                str(probs_file),
                *args,
            )
            if result.returncode != 0:
                raise CheckError(f"runner failed with {args}: {result.stdout[-300:]!r}")
            probs = np.frombuffer(probs_file.read_bytes(), dtype="<f4")
            expected = format_protocol([float(p) for p in probs], num_samples, 16000, config)
            if result.stdout != expected:
                got_lines = result.stdout.split(b"\n")
                want_lines = expected.split(b"\n")
                for index, (got, want) in enumerate(zip(got_lines, want_lines, strict=False)):
                    if got != want:
                        raise CheckError(f"{args}: line {index + 1}: runner {got!r}, twin {want!r}")
                raise CheckError(
                    f"{args}: {len(got_lines)} lines from the runner, "
                    f"{len(want_lines)} from the twin"
                )
    return len(settings)


GROUPS = {
    "bad-wav": check_bad_wav,
    "bad-model": check_bad_model,
    "usage": check_usage,
    "good-wav": check_good_wav,
    "end-to-end": check_end_to_end,
    "python-twin": check_python_twin,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("group", choices=sorted(GROUPS), help="which checks to run")
    parser.add_argument("--runner", type=Path, required=True, help="the silero_vad_runner binary")
    parser.add_argument("--data", type=Path, required=True, help="test data dir (models/ and wav/)")
    args = parser.parse_args()
    try:
        count = GROUPS[args.group](args.runner, args.data)
    except CheckError as error:
        print(f"FAIL {args.group}: {error}")
        return 1
    print(f"PASS {args.group}: {count} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
