# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Speech detection on a live 16-bit PCM stream, for Linux-class hosts::

    arecord -f S16_LE -r 16000 -c 1 |
        python -m examples.arm.silero_vad.streaming.silero_vad_stream \\
        --model out/silero_vad/silero_vad_xnnpack.pte

``StreamingVad`` over standard input or a file, printing the C++ runner's serial protocol
(``PROB`` per frame as soon as it is computed, ``SEGMENT`` as soon as it is final, ``DONE``,
then 0x04; ``ERROR <message>`` on bad input), so a product can swap one for the other.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

from examples.arm.silero_vad.streaming.cpu_program import CpuProgramError
from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad, StreamUpdate
from examples.arm.silero_vad.streaming.wav_stream import PcmFormatError, ReadBytes, pcm_chunks

DEFAULT_MODEL = Path("out/silero_vad/silero_vad_xnnpack.pte")
END_OF_TRANSMISSION = b"\x04"
EXIT_ERROR = 1
_READ_BYTES = 4096


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1"):
        return True
    if text.lower() in ("false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"'{text}' is neither true nor false")


def _non_negative(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if math.isnan(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text}: must be a number >= 0")
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m examples.arm.silero_vad.streaming.silero_vad_stream",
        description="Run a Silero VAD host program (run.sh --target xnnpack, or cpu) over "
        "mono 16-bit PCM at the program's rate, from standard input or a file, and print "
        "the serial protocol as it happens: PROB <time_s> <probability> speech|silence per "
        "32 ms frame, SEGMENT <start_s> <end_s> when a segment is final, DONE, then 0x04. "
        "Bad input prints ERROR <message> and exits 1; a bad command line exits 2.",
        epilog="Live: arecord -f S16_LE -r 16000 -c 1 | python -m "
        "examples.arm.silero_vad.streaming.silero_vad_stream --model M.pte",
    )
    parser.add_argument(
        "input",
        nargs="?",
        default="-",
        help="a WAV file, or - for standard input (default: -)",
    )
    parser.add_argument(
        "--model",
        type=Path,
        default=DEFAULT_MODEL,
        help="the program (default: %(default)s, what run.sh --target xnnpack writes)",
    )
    parser.add_argument(
        "--raw",
        action="store_true",
        help="the input is headerless S16_LE at the program's rate (arecord -t raw)",
    )
    segmenter = parser.add_argument_group(
        "segmentation (names and defaults of silero-vad's get_speech_timestamps)"
    )
    for field in fields(SegmenterConfig):
        option = "--" + field.name.replace("_", "-")
        kind = _bool if field.type == "bool" else _non_negative
        default = "max(threshold - 0.15, 0.01)" if field.default is None else field.default
        segmenter.add_argument(option, dest=field.name, type=kind, help=f"(default: {default})")
    args = parser.parse_args(argv)
    if args.input == "-" and os.isatty(sys.stdin.fileno()):
        parser.error(
            "standard input is a terminal: pipe a stream into it (arecord -f S16_LE -r 16000 "
            "-c 1 | ...) or name a file"
        )
    return args


def _write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def _error(message: str) -> int:
    """The runner's failure: one ERROR line, then 0x04."""
    _write(f"ERROR {message}\n".encode() + END_OF_TRANSMISSION)
    return EXIT_ERROR


class ProtocolWriter:
    """The runner's lines on standard output, each flushed as soon as it is known."""

    def __init__(self, vad: StreamingVad) -> None:
        self.vad = vad
        self.frames = 0
        self.segments = 0

    def _line(self, text: str) -> None:
        _write(text.encode() + b"\n")

    def update(self, update: StreamUpdate) -> None:
        """PROB lines, then the segments the last of those frames made final."""
        geometry = self.vad.geometry
        threshold = self.vad.config.threshold
        for probability in update.probabilities:
            decision = "speech" if probability >= threshold else "silence"
            self._line(
                f"PROB {self.frames * geometry.frame_seconds:.3f} {probability:.6f} {decision}"
            )
            self.frames += 1
        for segment in update.segments:
            self._line(f"SEGMENT {segment.start_s:.3f} {segment.end_s:.3f}")
            self.segments += 1

    def done(self) -> None:
        self._line(f"DONE frames={self.frames} segments={self.segments}")
        _write(END_OF_TRANSMISSION)


@contextlib.contextmanager
def _interrupt_ends_the_stream() -> Iterator[list[bool]]:
    """Ctrl-C ends a live stream like the end of its input (the frame in progress
    completes, the open segment closes); a second Ctrl-C stops at once."""
    interrupted: list[bool] = []

    def handler(_signal: int, _frame: object) -> None:
        interrupted.append(True)
        signal.signal(signal.SIGINT, previous)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def stream(vad: StreamingVad, read: ReadBytes, raw: bool, writer: ProtocolWriter) -> None:
    """Feeds the input frame by frame, so each frame's segments follow its PROB line."""
    hop = vad.geometry.hop_samples
    samples = 0
    with _interrupt_ends_the_stream() as interrupted:
        for data in pcm_chunks(read, vad.sample_rate, raw, _READ_BYTES):
            position = 0
            while position < len(data) and not interrupted:
                to_frame_end = 2 * (hop - samples % hop)
                piece = data[position : position + to_frame_end]
                writer.update(vad.process(piece))
                samples += len(piece) // 2
                position += len(piece)
            if interrupted:
                break
    if samples < hop:
        raise PcmFormatError(
            f"{samples} samples, shorter than one frame ({hop} samples = 32 ms at "
            f"{vad.sample_rate} Hz)"
        )
    writer.update(vad.finish())


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    options = {f.name: getattr(args, f.name) for f in fields(SegmenterConfig)}
    config = SegmenterConfig(**{k: v for k, v in options.items() if v is not None})
    if not args.model.exists():
        return _error(
            f"{args.model}: no such program; export it with examples/arm/silero_vad/run.sh "
            f"--target xnnpack --output-dir {args.model.parent}"
        )
    try:
        vad = StreamingVad(args.model, config)
    except CpuProgramError as error:
        return _error(str(error))
    writer = ProtocolWriter(vad)
    name = "standard input" if args.input == "-" else args.input
    try:
        if args.input == "-":
            stream(vad, lambda size: os.read(sys.stdin.fileno(), size), args.raw, writer)
        else:
            with open(args.input, "rb") as file:
                stream(vad, file.read, args.raw, writer)
    except BrokenPipeError:  # the reader went away (| head): nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except (PcmFormatError, OSError) as error:
        message = error.strerror if isinstance(error, OSError) else str(error)
        return _error(f"{name}: {message}")
    writer.done()
    return 0


if __name__ == "__main__":
    sys.exit(main())
