# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Soak test of the host runner: hours of generated audio streamed through ``--wav -``.

The committed clips at the program's rate, in a seeded random order at random gains
(clipped like a hot microphone), between silences or faint noise, are piped to
``silero_vad_runner --wav - --timing`` under a header of unknown sizes (as a recorder
writes to a pipe), ending mid-frame. Checked: resident memory (VmRSS) stops growing after
the warm-up; every PROB line is finite and 32 ms after the last; DONE counts every frame.
Reported: the model-step time per frame and the RSS at DONE (teardown, not checked).

    python -m examples.arm.silero_vad.lab.soak_runner --model out/cpu/silero_vad_cpu.pte \\
        [--hours 1] [--seed 0]  # taskset -c N in front pins it: the runner inherits it
"""

from __future__ import annotations

if __name__ == "__main__":
    # As a command: hide known third-party noise before torch loads (not on import).
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from examples.arm.silero_vad.lab import REPO_ROOT
from examples.arm.silero_vad.model_export.audio import AudioError, load_stream
from examples.arm.silero_vad.model_export.frame_geometry import FrameGeometry, frame_geometry
from examples.arm.silero_vad.run_silero_vad import default_clips
from examples.arm.silero_vad.verification.cli import exit_on_errors

DEFAULT_RUNNER = REPO_ROOT / "build/host/examples/arm/silero_vad/runtime/silero_vad_runner"
UNKNOWN_SIZE = 0xFFFFFFFF
FRAME_SECONDS = 0.032


class SoakError(RuntimeError):
    """Arguments or inputs the soak cannot use; the message says why."""


@dataclass
class SoakReport:
    """What the soak measured; ``failures`` lists every failed check."""

    model: str
    sample_rate: int
    audio_hours: float
    samples_sent: int
    frames_expected: int
    frames_printed: int = 0
    done_line: str = ""
    segments: int = 0
    non_finite: int = 0
    protocol_errors: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    exit_code: int | None = None
    rss_kib: list[int] = field(default_factory=list)  # VmRSS every --interval s until DONE
    rss_warmup_kib: int = 0
    rss_end_kib: int = 0
    rss_max_after_warmup_kib: int = 0
    rss_at_done_kib: int = 0
    timing: dict[str, float] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def wav_stream_header(sample_rate: int) -> bytes:
    """A PCM16 mono header with unknown RIFF and data sizes (0xFFFFFFFF)."""
    fmt = struct.pack("<HHIIHH", 1, 1, sample_rate, sample_rate * 2, 2, 16)
    riff = struct.pack("<4sI4s4sI", b"RIFF", UNKNOWN_SIZE, b"WAVE", b"fmt ", len(fmt))
    return riff + fmt + struct.pack("<4sI", b"data", UNKNOWN_SIZE)


def load_clips(sample_rate: int) -> list[np.ndarray]:
    """The committed validation and calibration clips at ``sample_rate`` as int16 arrays."""
    geometry = frame_geometry(sample_rate)
    kinds = ("validation", "calibration")
    return [load_stream(p, geometry).pcm for k in kinds for p in default_clips(k, sample_rate)]


def soak_audio(
    clips: list[np.ndarray], sample_rate: int, total_samples: int, seed: int
) -> Iterator[np.ndarray]:
    """Yields int16 pieces summing to ``total_samples``: clips at random gains, silences."""
    rng = np.random.default_rng(seed)
    sent = 0
    while sent < total_samples:
        if rng.random() < 0.25:
            # Silence: digital zero or faint noise (-70 .. -45 dBFS), 0.5 .. 20 s.
            length = int(rng.uniform(0.5, 20.0) * sample_rate)
            if rng.random() < 0.3:
                piece = np.zeros(length, dtype=np.int16)
            else:
                level = 32768 * 10 ** (rng.uniform(-70, -45) / 20)
                piece = np.round(rng.normal(0, level, length)).astype(np.int16)
        else:
            # A clip from -30 dB to +12 dB, clipped like a hot input.
            clip = clips[rng.integers(len(clips))].astype(np.float64)
            gain = 10 ** (rng.uniform(-30, 12) / 20)
            piece = np.clip(np.round(clip * gain), -32768, 32767).astype(np.int16)
        piece = piece[: total_samples - sent]
        sent += piece.size
        yield piece


def program_geometry_of(model: Path) -> FrameGeometry:
    """The frame geometry the program's metadata declares (ExecuTorch's Python runtime)."""
    from examples.arm.silero_vad.streaming.cpu_program import (
        CpuProgramError,
        load_program,
        program_geometry,
    )

    try:
        return program_geometry(load_program(model.read_bytes()), str(model))
    except (OSError, RuntimeError, CpuProgramError) as error:
        raise SoakError(f"{model}: cannot read the program's sample rate ({error})") from None


def read_rss_kib(pid: int) -> int | None:
    """VmRSS in KiB, or None once the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s*(\d+)", status, re.MULTILINE)
    return int(match.group(1)) if match else None


def parse_timing(stderr: str) -> dict[str, float]:
    """The runner's ``TIMING frames=N model_step_us median=.. max=..`` line as numbers."""
    for line in stderr.splitlines():
        if line.startswith("TIMING "):
            items = (item.partition("=") for item in line.split()[1:])
            return {key: float(value) for key, _, value in items if value}
    return {}


def run_soak(args: argparse.Namespace) -> SoakReport:
    if not os.access(args.runner, os.X_OK):
        raise SoakError(
            f"no runner at {args.runner}: build it with backends/arm/scripts/build_host_runner.sh"
        )
    geometry = program_geometry_of(args.model)
    sample_rate, hop = geometry.sample_rate, geometry.hop_samples
    clips = load_clips(sample_rate)
    # The requested hours, plus a partial frame so that the stream ends mid-frame.
    total_samples = int(round(args.hours * 3600 * sample_rate)) + hop // 3
    frames_expected = math.ceil(total_samples / hop)
    warmup_frames = int(args.warmup_minutes * 60 / FRAME_SECONDS)
    hours = total_samples / sample_rate / 3600
    report = SoakReport(str(args.model), sample_rate, hours, total_samples, frames_expected)

    command = [str(args.runner), "--model", str(args.model), "--wav", "-", "--timing"]
    start = time.monotonic()
    stderr = tempfile.TemporaryFile()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
    )

    def sample_rss() -> int | None:
        """Appends a VmRSS sample; returns its index (None once the runner is gone)."""
        value = read_rss_kib(process.pid)
        if value is None:
            return None
        report.rss_kib.append(value)
        return len(report.rss_kib) - 1

    def write_audio() -> None:
        try:
            process.stdin.write(wav_stream_header(sample_rate))
            for piece in soak_audio(clips, sample_rate, total_samples, args.seed):
                process.stdin.write(piece.astype("<i2").tobytes())
            process.stdin.close()
        except (BrokenPipeError, OSError) as error:
            report.failures.append(f"writing the audio failed: {error}")

    writer = threading.Thread(target=write_audio, daemon=True)
    writer.start()
    # RSS every --interval seconds until DONE (then it is the teardown's), and at the end
    # of the warm-up and the last frame (their samples' indices).
    at_frame: dict[int, int | None] = {warmup_frames: None, frames_expected: None}
    sample_rss()
    next_sample = time.monotonic() + args.interval
    frames = 0
    for raw in process.stdout:
        if not report.done_line and time.monotonic() >= next_sample:
            sample_rss()
            next_sample += args.interval
        line = raw.decode("utf-8", errors="replace").rstrip("\n")
        if line.startswith("PROB "):
            try:
                time_s, probability = (float(value) for value in line.split()[1:3])
            except ValueError:
                report.protocol_errors.append(f"bad PROB line {line!r}")
                continue
            if not math.isfinite(probability):
                report.non_finite += 1
            if abs(time_s - frames * FRAME_SECONDS) > 0.0015:
                report.protocol_errors.append(f"frame {frames} at {time_s} s")
            frames += 1
            if frames in at_frame:
                at_frame[frames] = sample_rss()
        elif line.startswith("SEGMENT "):
            report.segments += 1
        elif line.startswith("DONE "):
            report.done_line = line
            report.rss_at_done_kib = read_rss_kib(process.pid) or 0
        elif line not in ("\x04", ""):
            report.protocol_errors.append(f"unexpected line {line[:200]!r}")
    process.wait()
    writer.join(timeout=10)
    report.wall_seconds = round(time.monotonic() - start, 1)
    report.exit_code = process.returncode
    report.frames_printed = frames
    with stderr:
        stderr.seek(0)
        report.timing = parse_timing(stderr.read().decode("utf-8", errors="replace"))
    _check(report, warmup_frames, at_frame[warmup_frames], at_frame[frames_expected], args)
    return report


def _check(
    report: SoakReport, warmup_frames: int, warmup: int | None, last: int | None, args
) -> None:
    """Appends every failed check to ``report.failures`` and fills in the RSS figures from
    the samples from the end of the warm-up (index ``warmup``) to the last frame's."""
    failures = report.failures
    failures += report.protocol_errors[:10]
    if report.exit_code != 0:
        failures.append(f"runner exit status {report.exit_code}")
    if report.non_finite:
        failures.append(f"{report.non_finite} non-finite probabilities")
    expected_done = f"DONE frames={report.frames_expected} segments={report.segments}"
    if report.done_line != expected_done:
        failures.append(f"{report.done_line!r}, expected {expected_done!r}")
    if report.frames_printed != report.frames_expected:
        failures.append(f"{report.frames_printed} PROB lines, {report.frames_expected} frames sent")
    if not report.rss_kib:
        failures.append("no memory samples")
    elif warmup is None or last is None:
        failures.append(f"no memory sample at the warm-up ({warmup_frames} frames) or the end")
    else:
        report.rss_warmup_kib, report.rss_end_kib = report.rss_kib[warmup], report.rss_kib[last]
        report.rss_max_after_warmup_kib = max(report.rss_kib[warmup : last + 1])
        growth = report.rss_max_after_warmup_kib - report.rss_warmup_kib
        if growth > args.max_growth_kib:
            failures.append(
                f"RSS grew by {growth} KiB after the warm-up (limit {args.max_growth_kib} KiB)"
            )


def format_report(report: SoakReport) -> str:
    timing = report.timing
    lines = [
        f"soak: {report.model} at {report.sample_rate} Hz: {report.audio_hours:.4f} h of audio "
        f"({report.samples_sent} samples) in {report.wall_seconds} s",
        f"  frames: {report.frames_printed} PROB lines, expected {report.frames_expected}; "
        f"{report.done_line or 'no DONE line'}; non-finite probabilities: {report.non_finite}",
        f"  RSS (KiB): first sample {report.rss_kib[0] if report.rss_kib else 0}, after "
        f"warm-up {report.rss_warmup_kib}, last frame {report.rss_end_kib}, max in between "
        f"{report.rss_max_after_warmup_kib} (growth "
        f"{report.rss_max_after_warmup_kib - report.rss_warmup_kib}); "
        f"at DONE {report.rss_at_done_kib}; {len(report.rss_kib)} samples",
    ]
    if timing:
        lines.append(
            f"  model step per frame (us): median {timing.get('median', 0):.1f}, mean "
            f"{timing.get('mean', 0):.1f}, max {timing.get('max', 0):.1f}, first "
            f"{timing.get('first', 0):.1f} (real time: 32000)"
        )
    else:
        lines.append("  model step per frame: no TIMING line from the runner")
    lines.append("  PASS" if not report.failures else "  FAIL: " + "; ".join(report.failures))
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m examples.arm.silero_vad.lab.soak_runner",
        description=__doc__.splitlines()[0],
        epilog="Exit status: 0 all checks passed, 1 a check failed, 2 unusable arguments.",
    )
    add = parser.add_argument
    add("--model", type=Path, required=True, help="a host program (run.sh --target xnnpack or cpu)")
    add("--runner", type=Path, default=DEFAULT_RUNNER, help="default: %(default)s")
    add("--hours", type=float, default=1.0, help="hours of audio (default 1)")
    add("--seed", type=int, default=0, help="seed of the audio (default 0)")
    add("--interval", type=float, default=2.0, help="seconds between RSS samples (default 2)")
    add("--warmup-minutes", type=float, default=2.0, help="audio before RSS must stay flat")
    add("--max-growth-kib", type=int, default=0, help="RSS growth allowed after the warm-up")
    args = parser.parse_args(argv)
    if args.hours <= 0 or args.interval <= 0 or args.warmup_minutes <= 0:
        parser.error("--hours, --interval and --warmup-minutes must be > 0")
    if args.warmup_minutes * 60 >= args.hours * 3600:
        parser.error("the warm-up must be shorter than the audio")
    return args


@exit_on_errors(SoakError, AudioError)
def main(argv: list[str] | None = None) -> int:
    report = run_soak(parse_args(argv))
    print(format_report(report))
    return 0 if not report.failures else 1


if __name__ == "__main__":
    sys.exit(main())
