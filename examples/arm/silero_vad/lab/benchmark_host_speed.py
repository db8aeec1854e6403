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

The audio is every committed clip of the rate, end to end (``--wav`` for other audio). Each
row takes the fastest of ``--repeats`` passes over it. Pin the process to one core for
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


def fastest(passes: int, run: Callable[[], float]) -> float:
    """The fastest of ``passes`` calls of ``run`` (each returns its own seconds)."""
    return min(run() for _ in range(passes))


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


def time_streaming_vad(pte: Path, pcm: np.ndarray, passes: int) -> tuple[float, np.ndarray]:
    """Seconds per frame of StreamingVad over ``pcm`` fed in 100 ms chunks, and its
    probabilities."""
    vad = StreamingVad(pte)
    hop = vad.geometry.hop_samples
    chunk = vad.sample_rate // 10
    vad.process(pcm[: 16 * hop])  # warm-up: the delegate's first call
    probabilities: list[np.ndarray] = []

    def one_pass() -> float:
        vad.reset()
        probabilities.clear()
        start = time.perf_counter()
        for position in range(0, pcm.size, chunk):
            probabilities.append(vad.process(pcm[position : position + chunk]).probabilities)
        probabilities.append(vad.finish().probabilities)
        return time.perf_counter() - start

    seconds = fastest(passes, one_pass)
    result = np.concatenate(probabilities)
    return seconds / result.size, result


def time_silero_model(model, pcm: np.ndarray, rate: int, passes: int) -> float:
    """Seconds per frame of silero-vad's own model called as its get_speech_timestamps calls
    it (float audio chunks of one hop, the context kept by the model)."""
    hop = frame_geometry(rate).hop_samples
    audio = torch.from_numpy(pcm[: pcm.size // hop * hop].astype(np.float32) / 32768)
    chunks = list(audio.split(hop))

    def one_pass() -> float:
        model.reset_states()
        start = time.perf_counter()
        with torch.no_grad():
            for chunk in chunks:
                model(chunk, rate)
        return time.perf_counter() - start

    model(chunks[0], rate)  # warm-up
    return fastest(passes, one_pass) / len(chunks)


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


def time_runner(
    runner: Path, pte: Path, wav: Path, passes: int, reference: np.ndarray, work_dir: Path
) -> Row:
    label = f"silero_vad_runner (C++, executorch {runner_release(runner)}) on xnnpack"
    probs = work_dir / "runner_probs.bin"
    best = None
    for _ in range(passes):
        done = subprocess.run(
            [
                str(runner),
                "--model",
                str(pte),
                "--wav",
                str(wav),
                "--timing",
                "--probs-out",
                str(probs),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            error = next(
                (line for line in done.stdout.splitlines() if line.startswith("ERROR")), ""
            )
            return Row(0, label, None, f"refused: {error or done.stderr.strip()[-200:]}")
        match = _TIMING.search(done.stderr)
        mean_us = float(match[2])
        best = mean_us if best is None else min(best, mean_us)
    got = np.fromfile(probs, dtype="<f4")
    if got.shape != reference.shape:
        vs = f"{got.size} frames vs {reference.size}"
    else:
        error = float(np.abs(got.astype(np.float64) - reference).max())
        vs = "equal" if error == 0 else f"max abs {error:.1e}"
    return Row(0, label, best / 1000, "model step (--timing mean)", vs)


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
        streams = load_streams(clips, frame_geometry(rate))
        pcm = np.concatenate([stream.pcm for stream in streams])
        seconds = pcm.size / rate
        wav = work_dir / f"audio_{rate // 1000}k.wav"
        wav.parent.mkdir(parents=True, exist_ok=True)
        soundfile.write(wav, pcm, rate, subtype="PCM_16")
        print(f"{khz(rate)}: {len(clips)} clip(s), {seconds:.1f} s of audio", flush=True)
        programs = export_programs(rate, work_dir, reuse)
        xnnpack_s, xnnpack_probs = time_streaming_vad(programs[XNNPACK_TARGET], pcm, passes)
        cpu_s, _ = time_streaming_vad(programs[CPU_TARGET], pcm, passes)
        rows.append(
            Row(
                rate,
                "StreamingVad on xnnpack (float Silero, XNNPACK)",
                xnnpack_s * 1e3,
                "process()",
            )
        )
        rows.append(
            Row(rate, "StreamingVad on cpu (quantized, portable kernels)", cpu_s * 1e3, "process()")
        )
        rows.append(
            Row(
                rate,
                "silero-vad TorchScript (torch, 1 thread)",
                time_silero_model(jit, pcm, rate, passes) * 1e3,
                "model(chunk, sr)",
            )
        )
        if onnx is None:
            rows.append(Row(rate, "silero-vad ONNX (onnxruntime, 1 thread)", None, onnx_note))
        else:
            ms = time_silero_model(onnx, pcm, rate, passes) * 1e3
            rows.append(
                Row(
                    rate, "silero-vad ONNX (onnxruntime, 1 thread)", ms, f"OnnxWrapper, {onnx_note}"
                )
            )
        reference = xnnpack_probs.astype(np.float64)
        for runner in runners:
            row = time_runner(runner, programs[XNNPACK_TARGET], wav, passes, reference, work_dir)
            row.rate = rate
            rows.append(row)
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
