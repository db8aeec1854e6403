# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Black-box checks of the silero_vad_runner command line, one group per CTest.

Groups:
  bad-wav     every file of the bad WAV corpus, and a directory: its ERROR line, exit 1,
              0x04
  bad-model   broken, foreign and metadata-less .pte files, a directory: ERROR line,
              exit 1, 0x04
  usage       bad command lines: ERROR line, exit 2, 0x04; --help exits 0 and prints
              nothing on stderr
  good-wav    every good WAV (16 and 8 kHz) with the program of its rate: DONE with
              ceil(samples / hop) frames, PROB times every 32 ms, 0x04, nothing on
              stderr
  stream      --wav - (standard input): for every good WAV, `cat clip | runner --wav -`
              prints exactly what `--wav clip` prints (and writes the same
              --probs-out); for every bad WAV, the same ERROR line, except the
              headers that declare more than the file has, which a stream reads
              until it ends; empty standard input; a stream fed slowly gets each
              PROB line while the input is still open
  end-to-end  int16 and float-input toy programs on a speech-like clip: the
              probabilities equal the eager PyTorch model's, every PROB line agrees
              with them, and the SEGMENT lines equal silero-vad's segmentation
  eight-khz   the 8 kHz toy program on an 8 kHz clip: 256-sample frames, the eager
              model's probabilities, silero-vad's segments at sampling_rate=8000,
              and both rate mismatches refused with both rates named
  python-twin the runner's output is byte for byte what the project's Python
              protocol writer (verification/serial_protocol.py) prints for the same
              probabilities, with default and custom segmentation, at 16 and 8 kHz
  xnnpack     the toy program delegated to XNNPACK: with --xnnpack yes (the build
              linked the backend) the eager model's probabilities and nothing on
              stderr; with --xnnpack no, refused with an ERROR that says so and
              ExecuTorch's log line naming the backend
"""

from __future__ import annotations

import argparse
import math
import os
import pty
import select
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

EOT = b"\x04"
HOP = {16000: 512, 8000: 256}
CONTEXT = {16000: 64, 8000: 32}
MODEL_FOR_RATE = {16000: "toy_state.pte", 8000: "toy_8k.pte"}


class CheckError(Exception):
    """A failed expectation, with what was seen."""


def run(runner: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(runner), *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        check=False,
        timeout=120,
    )


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


def read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()]


def wav_samples(path: Path) -> tuple[list[int], int]:
    """The int16 samples and the rate of a plain PCM16 mono file."""
    import numpy as np

    with wave.open(str(path)) as handle:
        rate = handle.getframerate()
        data = np.frombuffer(handle.readframes(handle.getnframes()), dtype="<i2")
    return data, rate


def check_bad_wav(runner: Path, data: Path, models: Path) -> int:
    model = models / "toy_state.pte"
    expected = read_tsv(data / "wav" / "bad" / "expected.tsv")
    for name, text, _ in expected:
        expect_error(
            run(runner, "--model", str(model), "--wav", str(data / "wav" / "bad" / name)),
            text,
            1,
            name,
        )
    directory = data / "wav"
    expect_error(
        run(runner, "--model", str(model), "--wav", str(directory)),
        f"{directory} is a directory, not a file",
        1,
        "--wav DIRECTORY",
    )
    return len(expected) + 1


def check_bad_model(runner: Path, data: Path, models: Path) -> int:
    wav = str(data / "wav" / "good" / "speech_like.wav")
    cases = {
        "truncated.pte": "not a loadable ExecuTorch program",
        "header_only.pte": "not a loadable ExecuTorch program",
        "not_a_program.pte": "not a loadable ExecuTorch program",
        "random_bytes.pte": "not a loadable ExecuTorch program",
        "empty.pte": "model file is empty",
        "foreign_two_inputs.pte": "model has 2 inputs: expected 1",
        "foreign_input_shape.pte": "model input has shape (1, 512): expected (1, 576)",
        "input_shape_16k_metadata_8k.pte": "model input has shape (1, 576): expected (1, 288)",
        "foreign_output_shape.pte": "model output has shape (1, 2)",
        "input_int32.pte": "model input is Int: expected int16 PCM samples",
        "no_metadata.pte": "program has no 'sample_rate' method: it was exported without the "
        "frame geometry (sample_rate, hop_samples, context_samples); re-export it with "
        "examples/arm/silero_vad/run.sh",
        "partial_metadata.pte": "program has no 'hop_samples' method",
        "inconsistent_metadata.pte": "program metadata: 16000 Hz with hop_samples 256",
        "metadata_rate_44100.pte": "program metadata: sample rate 44100 Hz",
        "metadata_not_integer.pte": "metadata method 'sample_rate' does not return one integer",
        "does_not_exist.pte": "cannot open",
        "foreign_delegated.pte": "a backend it delegates to is not in this runner",
    }
    for name, text in cases.items():
        expect_error(run(runner, "--model", str(models / name), "--wav", wav), text, 1, name)
    expect_error(
        run(runner, "--model", str(models), "--wav", wav),
        f"{models} is a directory, not a file",
        1,
        "--model DIRECTORY",
    )
    return len(cases) + 1


def check_usage(runner: Path, data: Path, models: Path) -> int:
    model = str(models / "toy_state.pte")
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
        if result.stderr:
            raise CheckError(f"{flag}: the runner printed on stderr: {result.stderr[:300]!r}")
        if b"--wav PATH|-" not in result.stdout:
            raise CheckError(f"{flag}: the help does not mention --wav -")
    return len(cases) + 2


def check_good_wav(runner: Path, data: Path, models: Path) -> int:
    expected = read_tsv(data / "wav" / "good" / "expected.tsv")
    rates = set()
    for name, samples, rate_text in expected:
        rate = int(rate_text)
        rates.add(rate)
        path = data / "wav" / "good" / name
        result = run(runner, "--model", str(models / MODEL_FOR_RATE[rate]), "--wav", str(path))
        if result.returncode != 0:
            raise CheckError(f"{name}: exit {result.returncode}: {result.stdout[-300:]!r}")
        if result.stderr:
            raise CheckError(f"{name}: the runner printed on stderr: {result.stderr[:300]!r}")
        probs, segments, done = parse_protocol(result.stdout)
        frames = math.ceil(int(samples) / HOP[rate])
        if len(probs) != frames or done != f"DONE frames={frames} segments={len(segments)}":
            raise CheckError(f"{name}: {len(probs)} PROB lines, {done!r}, expected {frames} frames")
        for index, (time_s, _, _) in enumerate(probs):
            if f"{time_s:.3f}" != f"{index * 0.032:.3f}":
                raise CheckError(f"{name}: frame {index} at time {time_s}")
    if rates != {16000, 8000}:
        raise CheckError(f"the good corpus covers the rates {sorted(rates)}, expected both")
    return len(expected)


def prob_lines(out: bytes) -> int:
    """Number of PROB lines in the output seen so far."""
    return sum(1 for line in out.split(b"\n") if line.startswith(b"PROB "))


def check_live_stream(runner: Path, model: Path, clip: bytes) -> None:
    """Feeds a stream in pieces and requires each frame's PROB line before more input."""
    header, pcm = clip[:44], clip[44:]
    # Frames are 1024 bytes at 16 kHz; send three frames at a time and wait for their
    # lines while standard input is still open.
    process = subprocess.Popen(
        [str(runner), "--model", str(model), "--wav", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    out = b""
    try:
        process.stdin.write(header)
        sent_frames = 0
        for rounds in range(4):
            piece = pcm[sent_frames * 1024 : (sent_frames + 3) * 1024]
            process.stdin.write(piece)
            process.stdin.flush()
            sent_frames += 3
            deadline = time.monotonic() + 60
            while prob_lines(out) < sent_frames:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CheckError(
                        f"round {rounds}: {prob_lines(out)} PROB lines after "
                        f"{sent_frames} frames were sent with the input still open: lines are "
                        "not printed as their frames are done"
                    )
                ready, _, _ = select.select([process.stdout], [], [], remaining)
                if ready:
                    chunk = os.read(process.stdout.fileno(), 65536)
                    if not chunk:
                        raise CheckError(f"the runner stopped early: {out[-200:]!r}")
                    out += chunk
            if prob_lines(out) != sent_frames:
                raise CheckError(f"more PROB lines than frames sent: {out[-200:]!r}")
        process.stdin.close()
        out += process.stdout.read()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0 or not out.endswith(b"DONE frames=12 segments=0\n" + EOT):
        raise CheckError(f"live stream: exit {process.returncode}, output ends {out[-80:]!r}")


def check_stream(runner: Path, data: Path, models: Path) -> int:
    checks = 0
    with tempfile.TemporaryDirectory() as tmp:
        file_probs = Path(tmp) / "file.bin"
        stream_probs = Path(tmp) / "stream.bin"
        for name, _, rate_text in read_tsv(data / "wav" / "good" / "expected.tsv"):
            model = str(models / MODEL_FOR_RATE[int(rate_text)])
            path = data / "wav" / "good" / name
            from_file = run(
                runner, "--model", model, "--wav", str(path), "--probs-out", str(file_probs)
            )
            from_stream = run(
                runner,
                "--model",
                model,
                "--wav",
                "-",
                "--probs-out",
                str(stream_probs),
                stdin=path.read_bytes(),
            )
            if from_file.returncode != 0 or from_stream.returncode != 0:
                raise CheckError(
                    f"{name}: exit {from_file.returncode} (file), {from_stream.returncode} "
                    f"(stream): {from_stream.stdout[-200:]!r}"
                )
            if from_stream.stdout != from_file.stdout:
                raise CheckError(f"{name}: --wav - prints other lines than --wav {name}")
            if stream_probs.read_bytes() != file_probs.read_bytes():
                raise CheckError(f"{name}: --probs-out differs between the file and the stream")
            checks += 1

    model = str(models / "toy_state.pte")
    for name, text, stream in read_tsv(data / "wav" / "bad" / "expected.tsv"):
        path = data / "wav" / "bad" / name
        from_file = run(runner, "--model", model, "--wav", str(path))
        from_stream = run(runner, "--model", model, "--wav", "-", stdin=path.read_bytes())
        what = f"cat {name} | runner --wav -"
        if stream == "=":
            expect_error(from_stream, text, 1, what)
            if from_stream.stdout != from_file.stdout:
                raise CheckError(
                    f"{what}: {from_stream.stdout!r}, the file path: {from_file.stdout!r}"
                )
        elif stream.startswith("accept "):
            samples = int(stream.split()[1])
            if from_stream.returncode != 0:
                raise CheckError(f"{what}: exit {from_stream.returncode}: {from_stream.stdout!r}")
            probs, segments, done = parse_protocol(from_stream.stdout)
            frames = math.ceil(samples / 512)
            if done != f"DONE frames={frames} segments={len(segments)}":
                raise CheckError(f"{what}: {done!r}, expected {frames} frames")
        else:
            expect_error(from_stream, stream, 1, what)
        checks += 1

    # A terminal on standard input: a usage error, not a wait for input.
    leader, follower = pty.openpty()
    try:
        tty = subprocess.run(
            [str(runner), "--model", model, "--wav", "-"],
            stdin=follower,
            capture_output=True,
            check=False,
            timeout=120,
        )
    finally:
        os.close(leader)
        os.close(follower)
    expect_error(tty, "--wav -: standard input is a terminal; pipe a WAV stream", 2, "tty")
    empty = run(runner, "--model", model, "--wav", "-", stdin=b"")
    expect_error(
        empty, "too short for a RIFF/WAVE header: 0 bytes, need at least 12", 1, "empty stdin"
    )
    # A stream of the wrong rate for the program, and a program refused before any
    # input is read.
    eight = (data / "wav" / "good" / "speech_like_8k.wav").read_bytes()
    expect_error(
        run(runner, "--model", model, "--wav", "-", stdin=eight),
        "sample rate 8000 Hz found: the program takes 16000 Hz",
        1,
        "8 kHz stream into the 16 kHz program",
    )
    expect_error(
        run(runner, "--model", str(models / "no_metadata.pte"), "--wav", "-", stdin=eight),
        "re-export it",
        1,
        "stream into a program without metadata",
    )
    check_live_stream(
        runner, models / "toy_state.pte", (data / "wav" / "good" / "speech_like.wav").read_bytes()
    )
    return checks + 5


def eager_probabilities(samples, rate: int, module) -> list[float]:
    """The eager toy over int16 frames cut as the runtime cuts them."""
    import numpy as np
    import torch

    hop, context = HOP[rate], CONTEXT[rate]
    frames = math.ceil(len(samples) / hop)
    padded = np.zeros(frames * hop, dtype=np.int16)
    padded[: len(samples)] = samples
    history = np.zeros(context, dtype=np.int16)
    out = []
    with torch.no_grad():
        for index in range(frames):
            chunk = padded[index * hop : (index + 1) * hop]
            frame = np.concatenate([history, chunk])[None, :]
            out.append(float(module(torch.from_numpy(frame.copy()))))
            history = chunk[-context:]
    return out


def run_with_probs(runner: Path, model: Path, wav: Path, *extra: str):
    import numpy as np

    with tempfile.TemporaryDirectory() as tmp:
        probs_file = Path(tmp) / "probs.bin"
        result = run(
            runner, "--model", str(model), "--wav", str(wav), "--probs-out", str(probs_file), *extra
        )
        if result.returncode != 0:
            raise CheckError(
                f"runner failed on {wav.name}: {result.stdout[-300:]!r} {result.stderr[-300:]!r}"
            )
        return result, np.frombuffer(probs_file.read_bytes(), dtype="<f4")


def check_toy_run(runner: Path, model: Path, wav: Path, rate: int, float_input: bool) -> str:
    """The runner's probabilities, PROB lines and segments for one toy program and clip."""
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from make_toy_model import ToyVad
    from silero_vad.utils_vad import get_speech_timestamps_from_probs

    result, got = run_with_probs(runner, model, wav, "--timing")
    probs, segments, done = parse_protocol(result.stdout)
    samples, wav_rate = wav_samples(wav)
    if wav_rate != rate:
        raise CheckError(f"{wav.name} is at {wav_rate} Hz, expected {rate}")
    toy = ToyVad(CONTEXT[rate]).eval()
    if float_input:
        import torch

        def module(x):
            return toy(x.to(torch.float32) / 32768.0)
    else:
        module = toy
    expected = eager_probabilities(samples, rate, module)
    frames = len(expected)
    if len(got) != frames or len(probs) != frames:
        raise CheckError(
            f"{len(got)} probabilities in the file, {len(probs)} PROB lines, {frames} frames"
        )
    error = float(np.max(np.abs(got.astype(np.float64) - np.asarray(expected))))
    if error > 1e-5:
        raise CheckError(
            f"{model.name}: probabilities differ from the eager model by up to {error}"
        )
    for index, ((time_s, shown, label), value) in enumerate(zip(probs, got, strict=True)):
        if (
            f"{time_s:.3f}" != f"{index * 0.032:.3f}"
            or f"{shown:.6f}" != f"{float(value):.6f}"
            or label != ("speech" if value >= 0.5 else "silence")
        ):
            raise CheckError(
                f"frame {index}: PROB line ({time_s}, {shown}, {label}) vs file value {value}"
            )
    reference = get_speech_timestamps_from_probs(
        [float(v) for v in got], sampling_rate=rate, audio_length_samples=len(samples)
    )
    want = [(float(f"{s['start'] / rate:.3f}"), float(f"{s['end'] / rate:.3f}")) for s in reference]
    if segments != want or len(want) < 2:
        raise CheckError(f"segments {segments} differ from silero-vad's {want}")
    if done != f"DONE frames={frames} segments={len(want)}":
        raise CheckError(f"bad DONE line {done!r}")
    timing = [line for line in result.stderr.decode().splitlines() if line.startswith("TIMING ")]
    if len(timing) != 1 or f"frames={frames}" not in timing[0]:
        raise CheckError(f"no TIMING line for {frames} frames on stderr: {timing}")
    return f"{model.name}: {frames} frames, max abs error {error:.2e}, {len(want)} segments"


def check_end_to_end(runner: Path, data: Path, models: Path) -> int:
    wav = data / "wav" / "good" / "speech_like.wav"
    for name, float_input in (("toy_state.pte", False), ("toy_float_input.pte", True)):
        print("end-to-end:", check_toy_run(runner, models / name, wav, 16000, float_input))
    return 2


def check_eight_khz(runner: Path, data: Path, models: Path) -> int:
    wav8 = data / "wav" / "good" / "speech_like_8k.wav"
    print("eight-khz:", check_toy_run(runner, models / "toy_8k.pte", wav8, 8000, False))
    expect_error(
        run(
            runner,
            "--model",
            str(models / "toy_8k.pte"),
            "--wav",
            str(data / "wav" / "good" / "speech_like.wav"),
        ),
        "sample rate 16000 Hz found: the program takes 8000 Hz (resample first, or use the "
        "model exported with run.sh --sample-rate 16000)",
        1,
        "16 kHz clip into the 8 kHz program",
    )
    expect_error(
        run(runner, "--model", str(models / "toy_state.pte"), "--wav", str(wav8)),
        "sample rate 8000 Hz found: the program takes 16000 Hz (resample first, or use the "
        "model exported with run.sh --sample-rate 8000)",
        1,
        "8 kHz clip into the 16 kHz program",
    )
    return 3


def check_python_twin(runner: Path, data: Path, models: Path) -> int:
    repo = Path(__file__).resolve().parents[5]
    sys.path.insert(0, str(repo))
    from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig
    from examples.arm.silero_vad.verification.serial_protocol import format_protocol

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
    checks = 0
    for rate, clip in ((16000, "speech_like.wav"), (8000, "speech_like_8k.wav")):
        wav = data / "wav" / "good" / clip
        with wave.open(str(wav)) as handle:
            num_samples = handle.getnframes()
        for args, config in settings:
            result, probs = run_with_probs(runner, models / MODEL_FOR_RATE[rate], wav, *args)
            expected = format_protocol([float(p) for p in probs], num_samples, rate, config)
            if result.stdout != expected:
                got_lines = result.stdout.split(b"\n")
                want_lines = expected.split(b"\n")
                for index, (got, want) in enumerate(zip(got_lines, want_lines, strict=False)):
                    if got != want:
                        raise CheckError(
                            f"{clip} {args}: line {index + 1}: runner {got!r}, twin {want!r}"
                        )
                raise CheckError(
                    f"{clip} {args}: {len(got_lines)} lines from the runner, "
                    f"{len(want_lines)} from the twin"
                )
            checks += 1
    return checks


def check_xnnpack(runner: Path, data: Path, models: Path, has_xnnpack: bool) -> int:
    model = models / "toy_xnnpack.pte"
    wav = data / "wav" / "good" / "speech_like.wav"
    result = run(runner, "--model", str(model), "--wav", str(wav))
    if not has_xnnpack:
        expect_error(
            result,
            "a backend it delegates to is not in this runner (named above: Ethos-U runs on "
            "its board; XNNPACK needs a runner built with it)",
            1,
            model.name,
        )
        if b"XnnpackBackend" not in result.stderr:
            raise CheckError(f"ExecuTorch's log does not name the backend: {result.stderr!r}")
        return 1
    if result.stderr:
        raise CheckError(f"{model.name}: the runner printed on stderr: {result.stderr[:300]!r}")
    print("xnnpack:", check_toy_run(runner, model, wav, 16000, False))
    return 2


GROUPS = {
    "bad-wav": check_bad_wav,
    "bad-model": check_bad_model,
    "usage": check_usage,
    "good-wav": check_good_wav,
    "stream": check_stream,
    "end-to-end": check_end_to_end,
    "eight-khz": check_eight_khz,
    "python-twin": check_python_twin,
    "xnnpack": check_xnnpack,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("group", choices=sorted(GROUPS), help="which checks to run")
    parser.add_argument("--runner", type=Path, required=True, help="the silero_vad_runner binary")
    parser.add_argument("--data", type=Path, required=True, help="test data dir (wav/)")
    parser.add_argument(
        "--models", type=Path, help="the toy programs (default: DATA/models)", default=None
    )
    parser.add_argument(
        "--xnnpack",
        choices=("yes", "no"),
        default="yes",
        help="xnnpack group: the runner was built with the XNNPACK backend (default: yes)",
    )
    args = parser.parse_args()
    models = args.models or args.data / "models"
    try:
        if args.group == "xnnpack":
            count = check_xnnpack(args.runner, args.data, models, args.xnnpack == "yes")
        else:
            count = GROUPS[args.group](args.runner, args.data, models)
    except CheckError as error:
        print(f"FAIL {args.group}: {error}")
        return 1
    print(f"PASS {args.group}: {count} checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
