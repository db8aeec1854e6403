# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The stream command (streaming/silero_vad_stream.py): 16-bit PCM from a pipe or a file in,
the C++ runner's serial protocol out; and its WAV stream reader against the C++ runtime's
WAV corpus."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from examples.arm.silero_vad.model_export.export_silero_vad import ExportResult
from examples.arm.silero_vad.streaming import silero_vad_stream
from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad
from examples.arm.silero_vad.streaming.wav_stream import PcmFormatError, pcm_chunks
from examples.arm.silero_vad.verification.runtime_checks.make_wav_corpus import (
    bad_files,
    good_files,
)
from examples.arm.silero_vad.verification.serial_protocol import format_protocol

REPO_ROOT = Path(__file__).resolve().parents[4]
STREAM_COMMAND = "examples.arm.silero_vad.streaming.silero_vad_stream"


def _probabilities(pte: Path, pcm: np.ndarray) -> list[float]:
    vad = StreamingVad(pte)
    updates = [vad.process(pcm), vad.finish()]
    return [float(p) for update in updates for p in update.probabilities]


def _run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", STREAM_COMMAND, *args],
        input=stdin,
        capture_output=True,
        timeout=300,
        cwd=REPO_ROOT,
    )


def _main(
    args: list[str],
    stdin: bytes,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> tuple[int, bytes, bytes]:
    """The command's main() in this process, ``stdin`` from a file (exit status, stdout,
    stderr); a usage error's SystemExit becomes its status."""
    source = tmp_path / "stdin.bin"
    source.write_bytes(stdin)
    with source.open("rb") as file:
        monkeypatch.setattr(sys, "stdin", file)
        try:
            status = silero_vad_stream.main(args)
        except SystemExit as error:
            status = int(error.code)
    out, err = capsysbinary.readouterr()
    return status, out, err


def test_stream_command_prints_the_runners_protocol_from_a_pipe(
    silero_xnnpack_export: Callable[[int], ExportResult], validation_wavs: list[Path]
) -> None:
    """`cat clip.wav | silero_vad_stream` prints, and only prints, the serial log a device
    prints for StreamingVad's probabilities (the same bytes as the C++ runner)."""
    result = silero_xnnpack_export(16000)
    stream = result.validation_streams[0]
    wav = next(path for path in validation_wavs if path.stem == stream.name)
    done = _run("--model", str(result.pte_path), stdin=wav.read_bytes())
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
    probabilities = _probabilities(result.pte_path, stream.pcm)
    assert done.stdout == format_protocol(probabilities, stream.num_samples, 16000)
    raw = _run("--model", str(result.pte_path), "--raw", stdin=stream.pcm.tobytes())
    assert raw.stdout == done.stdout


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        ([], b"RIFX" + bytes(40), "not a RIFF/WAVE stream"),
        (["--raw"], b"\x01\x02" * 100, "100 samples, shorter than one frame"),
        ([str(REPO_ROOT)], b"", "Is a directory"),
        (["--model", "no/such.pte"], b"", "no/such.pte: no such program; export it with"),
        (["--model", str(REPO_ROOT)], b"", "cannot read the program (Is a directory)"),
    ],
)
def test_stream_command_refuses_bad_input_with_an_error_line(
    args: list[str],
    stdin: bytes,
    message: str,
    silero_xnnpack_export: Callable[[int], ExportResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    model = ["--model", str(silero_xnnpack_export(16000).pte_path)]
    status, out, _ = _main([*model, *args], stdin, tmp_path, monkeypatch, capsysbinary)
    assert status == 1, out
    assert out.endswith(b"\x04")
    lines = out.removesuffix(b"\x04").decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ERROR ") and message in lines[0], lines


def test_stream_command_takes_silero_segmenter_options(
    silero_xnnpack_export: Callable[[int], ExportResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    result = silero_xnnpack_export(8000)
    stream = result.validation_streams[0]
    options = ["--raw", "--speech-pad-ms", "90", "--threshold", "0.6"]
    args = ["--model", str(result.pte_path), *options]
    status, out, _ = _main(args, stream.pcm.tobytes(), tmp_path, monkeypatch, capsysbinary)
    probabilities = _probabilities(result.pte_path, stream.pcm)
    config = SegmenterConfig(threshold=0.6, speech_pad_ms=90)
    expected = format_protocol(probabilities, stream.num_samples, 8000, config)
    assert status == 0 and out == expected
    default = format_protocol(probabilities, stream.num_samples, 8000)
    assert expected != default, "the options must change the output for this check to count"
    status, _, err = _main(["--speech-pad-ms", "-3"], b"", tmp_path, monkeypatch, capsysbinary)
    assert status == 2 and b"must be a number >= 0" in err


def _read_from(data: bytes) -> Callable[[int], bytes]:
    position = 0

    def read(size: int) -> bytes:
        nonlocal position
        piece = data[position : position + min(size, 7)]  # short reads, as from a pipe
        position += len(piece)
        return piece

    return read


def test_wav_stream_accepts_and_refuses_what_the_cpp_stream_reader_does() -> None:
    """The C++ runtime's WAV corpus through the Python stream reader: every good file
    gives its samples; a bad file the C++ stream refuses is refused, one it reads to the
    end of the input (a header that declares more) gives the samples that are there."""
    for name, (data, samples, rate) in good_files().items():
        pcm = b"".join(pcm_chunks(_read_from(data), rate, raw=False, chunk_bytes=1000))
        assert len(pcm) == 2 * samples, name
    for name, (data, _, stream) in bad_files().items():
        read = _read_from(data)
        if stream.startswith("accept "):
            pcm = b"".join(pcm_chunks(read, 16000, raw=False, chunk_bytes=1000))
            assert len(pcm) == 2 * int(stream.split()[1]), name
            continue
        try:
            pcm = b"".join(pcm_chunks(read, 16000, raw=False, chunk_bytes=1000))
        except PcmFormatError:
            continue
        # The C++ reader refuses what ends up shorter than one frame after the header.
        assert len(pcm) < 2 * 512, (name, len(pcm))


def test_ctrl_c_ends_a_live_stream_like_its_end(
    silero_xnnpack_export: Callable[[int], ExportResult],
) -> None:
    """SIGINT while the input is still open: the open stream is closed as at its end (DONE,
    0x04, exit 0), not cut by a traceback."""
    pte = silero_xnnpack_export(16000).pte_path
    process = subprocess.Popen(
        [sys.executable, "-m", STREAM_COMMAND, "--model", str(pte), "--raw"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO_ROOT,
        # Unbuffered: communicate() reads the pipe itself, so lines a buffered readline had
        # already pulled in (the other frames' PROB lines) would be lost to it.
        bufsize=0,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(bytes(2 * 512 * 3))  # three frames of silence
        first = process.stdout.readline()  # the handler is in place once a frame is out
        assert first.startswith(b"PROB 0.000 "), first
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0 and err == b"", err.decode()
    # The frames run before the signal landed (one to three), each with its PROB line.
    frames = 1 + out.count(b"PROB ")
    assert 1 <= frames <= 3 and out.endswith(
        f"DONE frames={frames} segments=0\n".encode() + b"\x04"
    )
