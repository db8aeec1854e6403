# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Speed on a Linux-class host, one thread: ms per 32 ms frame and times real time, at both
sample rates, in one table from one run:

- ``StreamingVad`` on the XNNPACK program (``run.sh --target xnnpack``) and on the quantized
  portable program (``--target cpu``), timed around ``process()`` (framing, the program, the
  segmenter);
- silero-vad's TorchScript model (``torch.set_num_threads(1)``) and, where onnxruntime is
  installed, its ONNX model through silero-vad's own ``OnnxWrapper`` (one thread), timed
  around ``model(chunk, sample_rate)``;
- the C++ host runner on the XNNPACK program (each ``--runner``; by default the host builds
  under ``build/``), its own ``--timing`` mean of the model step, and how far its
  probabilities are from StreamingVad's on the same program.

The audio is every committed clip of the rate, end to end (``--wav`` for other audio). The
rows run in turn, ``--repeats`` rounds, and each keeps its fastest pass, so a change of load
during the run reaches every row alike. Pin the process to one core for
figures that mean something (``taskset -c 1 python -m examples.arm.silero_vad.lab.
benchmark_host_speed``); the load average is printed with the table.
"""

from __future__ import annotations

if __name__ == "__main__":
    # As a command: hide known third-party noise before torch loads (not on import).
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import contextlib
import io
import math
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np
import soundfile
import torch

from examples.arm.silero_vad.lab import REPO_ROOT, khz
from examples.arm.silero_vad.model_export.audio import AudioError, load_streams, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import ExportOptions, export_silero_vad
from examples.arm.silero_vad.model_export.frame_geometry import (
    DEFAULT_SAMPLE_RATE,
    SAMPLE_RATES,
    frame_geometry,
)
from examples.arm.silero_vad.model_export.silero_vad_model import load_official_jit
from examples.arm.silero_vad.model_export.targets import CPU_TARGET, XNNPACK_TARGET
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad
from examples.arm.silero_vad.verification.cli import exit_on_errors
from examples.arm.silero_vad.verification.report_markdown import markdown_table

DATA_DIR = REPO_ROOT / "examples" / "arm" / "silero_vad" / "data"
FRAME_MS = 32.0
_TIMING = re.compile(r"TIMING frames=(\d+) .*mean=([\d.]+)")


@dataclass
class Row:
    rate: int
    what: str
    ms_per_frame: float | None  # None: not measured, ``note`` says why
    note: str = ""
    vs_streaming_vad: str = "-"

    def cells(self) -> list[str]:
        if self.ms_per_frame is None:
            return [khz(self.rate), self.what, "-", "-", self.vs_streaming_vad, self.note]
        return [
            khz(self.rate),
            self.what,
            f"{self.ms_per_frame:.3f}",
            f"{FRAME_MS / self.ms_per_frame:.0f}",
            self.vs_streaming_vad,
            self.note,
        ]


def committed_clips(rate: int) -> list[Path]:
    suffix = "" if rate == DEFAULT_SAMPLE_RATE else f"_{rate // 1000}k"
    return [
        p for kind in ("calibration", "validation") for p in wav_files(DATA_DIR / f"{kind}{suffix}")
    ]


def export_programs(rate: int, work_dir: Path, reuse: bool) -> dict[str, Path]:
    """The xnnpack and cpu programs of ``rate`` in ``work_dir``, as run.sh exports them
    (exported unless ``reuse`` finds them there)."""
    suffix = "" if rate == DEFAULT_SAMPLE_RATE else f"_{rate // 1000}k"
    calibration = wav_files(DATA_DIR / f"calibration{suffix}")
    validation = wav_files(DATA_DIR / f"validation{suffix}")[:1]
    programs = {}
    for target in (XNNPACK_TARGET, CPU_TARGET):
        out = work_dir / f"{target}_{rate // 1000}k"
        pte = out / f"silero_vad_{target}.pte"
        if not (reuse and pte.is_file()):
            print(f"exporting the {khz(rate)} {target} program into {out} ...", flush=True)
            options = ExportOptions(calibration, validation, out, target=target, sample_rate=rate)
            progress = io.StringIO()  # the export's progress lines
            with contextlib.redirect_stdout(progress), contextlib.redirect_stderr(progress):
                export_silero_vad(options)
        programs[target] = pte
    return programs


class RunnerRefusedError(Exception):
    """A program the runner would not run; the message is its ERROR line."""


@dataclass
class Candidate:
    """One row: ``one_pass()`` runs the audio once and returns seconds per frame."""

    row: Row
    one_pass: Callable[[], float]
    best: float = math.inf


def streaming_vad(label: str, pte: Path, pcm: np.ndarray, rate: int, out: list) -> Candidate:
    """StreamingVad over ``pcm`` in 100 ms chunks; ``out`` receives its probabilities."""
    vad = StreamingVad(pte)
    chunk = vad.sample_rate // 10
    vad.process(pcm[: 16 * vad.geometry.hop_samples])  # warm-up: the delegate's first call

    def one_pass() -> float:
        vad.reset()
        start = time.perf_counter()
        updates = [vad.process(pcm[i : i + chunk]) for i in range(0, pcm.size, chunk)]
        updates.append(vad.finish())
        seconds = time.perf_counter() - start
        out[:] = [np.concatenate([update.probabilities for update in updates])]
        return seconds / out[0].size

    return Candidate(Row(rate, label, None, "process()"), one_pass)


def silero_model(label: str, model, pcm: np.ndarray, rate: int, note: str) -> Candidate:
    """silero-vad's own model called as its get_speech_timestamps calls it (float audio
    chunks of one hop; the model keeps the context)."""
    hop = frame_geometry(rate).hop_samples
    audio = torch.from_numpy(pcm[: pcm.size // hop * hop].astype(np.float32) / 32768)
    chunks = list(audio.split(hop))
    model(chunks[0], rate)  # warm-up

    def one_pass() -> float:
        model.reset_states()
        start = time.perf_counter()
        with torch.no_grad():
            for chunk in chunks:
                model(chunk, rate)
        return (time.perf_counter() - start) / len(chunks)

    return Candidate(Row(rate, label, None, note), one_pass)


def silero_onnx_model():
    """silero-vad's ONNX model in its OnnxWrapper, or None with why."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None, "onnxruntime is not installed (pip install onnxruntime)"
    from silero_vad import load_silero_vad

    return load_silero_vad(onnx=True), f"onnxruntime {version('onnxruntime')}"


def runner_release(runner: Path) -> str:
    """The executorch release a host build links, from its CMake cache."""
    for parent in runner.parents:
        cache = parent / "CMakeCache.txt"
        if cache.is_file():
            match = re.search(r"executorch_DIR:\w+=(.*)/share/cmake", cache.read_text())
            if match:
                found = re.search(
                    r'__version__\s*=\s*"([^"]+)"', _read(Path(match[1]) / "version.py")
                )
                return found[1] if found else "?"
    return "?"


def _read(path: Path) -> str:
    return path.read_text() if path.is_file() else ""


def runner(path: Path, pte: Path, wav: Path, rate: int, probs: Path) -> Candidate:
    """The C++ host runner on ``wav``: its own --timing mean of the model step."""
    label = f"silero_vad_runner (C++, executorch {runner_release(path)}) on xnnpack"
    command = [str(path), "--model", str(pte), "--wav", str(wav), "--timing"]

    def one_pass() -> float:
        done = subprocess.run(
            [*command, "--probs-out", str(probs)], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            lines = [line for line in done.stdout.splitlines() if line.startswith("ERROR")]
            raise RunnerRefusedError(lines[0] if lines else done.stderr.strip()[-200:])
        return float(_TIMING.search(done.stderr)[2]) * 1e-6

    return Candidate(Row(rate, label, None, "model step (--timing mean)"), one_pass)


def measure(candidates: list[Candidate], passes: int) -> None:
    """Round robin: every candidate once per pass, so a change of the machine's load
    between passes reaches every row alike; each row keeps its fastest pass."""
    for _ in range(passes):
        for candidate in candidates:
            if candidate.row.note.startswith("refused"):
                continue
            try:
                candidate.best = min(candidate.best, candidate.one_pass())
            except RunnerRefusedError as error:
                candidate.row.note = f"refused: {error}"
    for candidate in candidates:
        if math.isfinite(candidate.best):
            candidate.row.ms_per_frame = candidate.best * 1e3


def _compare(probs: Path, reference: np.ndarray) -> str:
    got = np.fromfile(probs, dtype="<f4") if probs.is_file() else np.empty(0, np.float32)
    if got.shape != reference.shape:
        return f"{got.size} frames vs {reference.size}"
    error = float(np.abs(got.astype(np.float64) - reference.astype(np.float64)).max())
    return "equal" if error == 0 else f"max abs {error:.1e}"


def default_runners() -> list[Path]:
    found = sorted(
        (REPO_ROOT / "build").glob("host*/examples/arm/silero_vad/runtime/silero_vad_runner")
    )
    return [path for path in found if os.access(path, os.X_OK)]


def benchmark(
    rates: list[int],
    wavs: list[Path] | None,
    runners: list[Path],
    work_dir: Path,
    passes: int,
    reuse: bool,
) -> list[Row]:
    torch.set_num_threads(1)
    jit = load_official_jit()
    onnx, onnx_note = silero_onnx_model()
    rows: list[Row] = []
    for rate in rates:
        clips = wavs or committed_clips(rate)
        pcm = np.concatenate([s.pcm for s in load_streams(clips, frame_geometry(rate))])
        wav = work_dir / f"audio_{rate // 1000}k.wav"
        wav.parent.mkdir(parents=True, exist_ok=True)
        soundfile.write(wav, pcm, rate, subtype="PCM_16")
        print(f"{khz(rate)}: {len(clips)} clip(s), {pcm.size / rate:.1f} s of audio", flush=True)
        programs = export_programs(rate, work_dir, reuse)
        streamed: list[np.ndarray] = []
        candidates = [
            streaming_vad(
                "StreamingVad on xnnpack (float Silero, XNNPACK)",
                programs[XNNPACK_TARGET],
                pcm,
                rate,
                streamed,
            ),
            streaming_vad(
                "StreamingVad on cpu (quantized, portable kernels)",
                programs[CPU_TARGET],
                pcm,
                rate,
                [],
            ),
            silero_model(
                "silero-vad TorchScript (torch, 1 thread)", jit, pcm, rate, "model(chunk, sr)"
            ),
        ]
        onnx_label = "silero-vad ONNX (onnxruntime, 1 thread)"
        if onnx is not None:
            note = f"OnnxWrapper, {onnx_note}"
            candidates.append(silero_model(onnx_label, onnx, pcm, rate, note))
        probs = [work_dir / f"runner{index}_{rate // 1000}k.bin" for index in range(len(runners))]
        candidates += [
            runner(path, programs[XNNPACK_TARGET], wav, rate, out)
            for path, out in zip(runners, probs, strict=True)
        ]
        measure(candidates, passes)
        for candidate in candidates:
            rows.append(candidate.row)
            if onnx is None and candidate.row.what.startswith("silero-vad TorchScript"):
                rows.append(Row(rate, onnx_label, None, onnx_note))
        for candidate, out in zip(
            candidates[-len(runners) :] if runners else [], probs, strict=True
        ):
            if not candidate.row.note.startswith("refused"):
                candidate.row.vs_streaming_vad = _compare(out, streamed[0])
    return rows


def machine() -> str:
    cpus = sorted(os.sched_getaffinity(0))
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in _read(Path("/proc/cpuinfo")).splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return f"{model}; this process may run on CPU(s) {cpus} of {os.cpu_count()}"


@exit_on_errors(AudioError)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sample-rate", type=int, action="append", choices=SAMPLE_RATES, help="default: both"
    )
    parser.add_argument(
        "--wav",
        type=Path,
        action="append",
        help="audio instead of the committed clips (repeatable; at the rate)",
    )
    parser.add_argument(
        "--runner",
        type=Path,
        action="append",
        help="a C++ host runner (repeatable; default: build/host*/...)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        help="passes per row, the fastest counts (default: %(default)s)",
    )
    parser.add_argument("--work-dir", type=Path, default=Path("build/benchmark_host_speed"))
    parser.add_argument(
        "--reuse-programs", action="store_true", help="reuse the programs already in --work-dir"
    )
    args = parser.parse_args(argv)
    runners = args.runner if args.runner is not None else default_runners()
    load = os.getloadavg()
    rows = benchmark(
        args.sample_rate or list(SAMPLE_RATES),
        args.wav,
        runners,
        args.work_dir,
        args.repeats,
        args.reuse_programs,
    )
    header = [
        "rate",
        "what",
        "ms per 32 ms frame",
        "x real time",
        "probabilities vs StreamingVad on xnnpack",
        "timed",
    ]
    print()
    print(markdown_table(header, [row.cells() for row in rows]))
    print(
        f"\nexecutorch {version('executorch')}, torch {version('torch')}, silero-vad "
        f"{version('silero-vad')}; {machine()}; load average {load[0]:.2f} before, "
        f"{os.getloadavg()[0]:.2f} after; fastest of {args.repeats} passes"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
