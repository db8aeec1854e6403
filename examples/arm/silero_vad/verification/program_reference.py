# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The exact reference for the host runner: the same ``.pte`` on ExecuTorch's Python runtime.

The PyTorch quantized program (``reference/<clip>.quantized.bin``) is not an exact
reference for a CPU ``.pte``: ExecuTorch's CPU kernels compute the float operations
between quantize and dequantize slightly differently from PyTorch, and the recurrent
int16 state carries those differences from frame to frame (measured: up to ~4e-3).
ExecuTorch's own Python runtime runs the same kernels as the C++ host runner, so this
tool's probabilities are what the runner must print, to float32 rounding::

    python -m examples.arm.silero_vad.verification.program_reference \\
        out/cpu/silero_vad_cpu.pte CLIP.wav [CLIP.wav ...] --output-dir out/cpu/program

writes ``<output-dir>/<clip>.program.bin`` (float32 little-endian, one probability per
frame, no header). Frames are cut by ``model_export/audio.py``, exactly as the runtime's
frame assembler cuts them, at the sample rate the program declares in its metadata, and
handed over in the program's input format (int16 PCM, or float32 audio). Each clip gets
a freshly loaded method, because the state lives in the loaded method and a new one
starts from the state serialized in the program (zero); that is what the runner does per
clip too.

An Ethos-U delegated ``.pte`` does not run here (the Python runtime has no Ethos-U
backend): its references are the device twin and the quantized program.

Exit status: 0 written, 2 unusable input (missing or broken file, delegated program,
wrong signature, duplicate clip names).
"""

from __future__ import annotations

if __name__ == "__main__":
    # Run as a command: before torch loads, hide the known third-party messages that are
    # not about this run. Only here: importing this module installs nothing.
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from examples.arm.silero_vad.model_export.audio import AudioError, AudioStream, load_stream
from examples.arm.silero_vad.streaming.cpu_program import (
    METHOD,
    CpuProgramError,
    load_runtime,
    program_geometry,
    program_input_dtype,
    read_cpu_program,
)

SUFFIX = ".program.bin"


def program_path(output_dir: Path, clip: str) -> Path:
    """``<output_dir>/<clip>.program.bin``."""
    return Path(output_dir) / f"{clip}{SUFFIX}"


def program_probabilities(
    pte: bytes, stream: AudioStream | np.ndarray, name: str = "program"
) -> np.ndarray:
    """Runs a stream (or int16 PCM frames) through a new load of the program, in order.

    A new program and method are loaded on every call (ExecuTorch's ``Program`` caches
    the method it loaded, state included), so every call starts from the program's
    initial state.
    """
    import torch

    runtime = load_runtime()
    try:
        program = runtime.load_program(pte)
        geometry = program_geometry(program, name)
        method = program.load_method(METHOD)
    except (RuntimeError, KeyError) as error:
        raise CpuProgramError(
            f"{name}: ExecuTorch cannot load method {METHOD!r} ({error}); a 'Missing "
            "operator' means the program needs a kernel the Python runtime lacks"
        ) from None
    dtype = program_input_dtype(method, name, geometry)
    if isinstance(stream, AudioStream):
        if stream.geometry != geometry:
            raise CpuProgramError(
                f"{name}: audio at {stream.sample_rate} Hz for the {geometry.sample_rate} Hz model"
            )
        frames = stream.frames if dtype is np.int16 else stream.float_frames
    else:
        frames = stream if dtype is np.int16 else stream.astype(np.float32) / 32768
    frames = np.ascontiguousarray(frames, dtype=dtype)
    if frames.ndim != 2 or frames.shape[1] != geometry.frame_samples:
        raise CpuProgramError(
            f"{name}: frames of shape {frames.shape}, expected (N, {geometry.frame_samples})"
        )
    probabilities = np.empty(frames.shape[0], dtype=np.float32)
    for index in range(frames.shape[0]):
        try:
            (output,) = method.execute([torch.from_numpy(frames[index : index + 1])])
        except RuntimeError as error:
            raise CpuProgramError(f"{name}: frame {index}: execute failed ({error})") from None
        probabilities[index] = float(output.reshape(-1)[0])
    return probabilities


def run_program_reference(
    pte_path: Path, clips: Sequence[Path | AudioStream], output_dir: Path
) -> dict[str, Path]:
    """Writes ``<output_dir>/<clip>.program.bin`` for every clip; returns them by clip name."""
    data = read_cpu_program(pte_path)
    try:
        geometry = program_geometry(load_runtime().load_program(data), str(pte_path))
    except RuntimeError as error:
        raise CpuProgramError(f"{pte_path}: cannot load the program ({error})") from None
    streams = []
    for clip in clips:
        try:
            streams.append(clip if isinstance(clip, AudioStream) else load_stream(clip, geometry))
        except AudioError as error:
            raise CpuProgramError(str(error)) from None
    names = [stream.name for stream in streams]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise CpuProgramError(
            f"clip names must differ (outputs are named after them): {', '.join(duplicates)}"
        )
    if not streams:
        raise CpuProgramError("no clips given")
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    written = {}
    for stream in streams:
        probabilities = program_probabilities(data, stream, f"{pte_path} on {stream.name}")
        path = program_path(output_dir, stream.name)
        probabilities.astype("<f4").tofile(path)
        written[stream.name] = path
    return written


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m examples.arm.silero_vad.verification.program_reference",
        description="Run a CPU .pte with ExecuTorch's Python runtime over WAV clips and write "
        "<output-dir>/<clip>.program.bin (float32 little-endian, one probability per frame): "
        "the exact reference for the C++ host runner. Exit status: 0 written, 2 unusable input.",
    )
    parser.add_argument("pte", type=Path, help="program exported with run.sh --target cpu")
    parser.add_argument("wav", type=Path, nargs="+", help="clips (one method load each)")
    parser.add_argument(
        "--output-dir", type=Path, required=True, help="where <clip>.program.bin go"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        written = run_program_reference(args.pte, args.wav, args.output_dir)
    except CpuProgramError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    for name, path in written.items():
        frames = path.stat().st_size // 4
        print(f"program_reference: {name}: {frames} frames -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
