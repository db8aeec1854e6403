# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The exact reference for the host runner: the same ``.pte`` on ExecuTorch's Python runtime.

The PyTorch quantized program is not exact for the cpu target's ``.pte`` (ExecuTorch's
kernels round differently and the int16 state carries it: up to ~4e-3); the Python runtime
runs the C++ runner's kernels (and, for the xnnpack target, its XNNPACK library), a freshly
loaded method per clip as the runner does::

    python -m examples.arm.silero_vad.verification.program_reference \\
        out/cpu/silero_vad_cpu.pte CLIP.wav [CLIP.wav ...] --output-dir out/cpu/program
"""

from __future__ import annotations

if __name__ == "__main__":  # a command hides known third-party noise before torch loads
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from examples.arm.silero_vad.model_export.audio import AudioError, AudioStream, load_stream
from examples.arm.silero_vad.model_export.frame_geometry import FrameGeometry
from examples.arm.silero_vad.streaming.cpu_program import (
    CpuProgramError,
    load_forward,
    read_cpu_program,
)
from examples.arm.silero_vad.verification.cli import exit_on_errors


def _load_forward(pte: bytes, name: str) -> tuple[object, FrameGeometry, type]:
    """``load_forward``, with the runtime's own load errors as a CpuProgramError."""
    try:
        return load_forward(pte, name)
    except RuntimeError as error:
        raise CpuProgramError(f"{name}: ExecuTorch cannot load the program ({error})") from None


def program_probabilities(
    pte: bytes, stream: AudioStream | np.ndarray, name: str = "program"
) -> np.ndarray:
    """Runs a stream (or int16 PCM frames) through a new load of the program, so every
    call starts from the initial state."""
    import torch

    method, geometry, dtype = _load_forward(pte, name)
    if isinstance(stream, AudioStream) and stream.geometry != geometry:
        raise CpuProgramError(
            f"{name}: audio at {stream.sample_rate} Hz for the {geometry.sample_rate} Hz model"
        )
    pcm = stream.frames if isinstance(stream, AudioStream) else stream
    frames = pcm if dtype is np.int16 else pcm.astype(np.float32) / 32768
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
    pte_path: Path, clips: Sequence[Path], output_dir: Path
) -> dict[str, Path]:
    """Writes ``<output_dir>/<clip>.program.bin`` for every clip; returns them by clip name."""
    data = read_cpu_program(pte_path)
    geometry = _load_forward(data, str(pte_path))[1]
    streams = []
    for clip in clips:
        try:
            streams.append(load_stream(clip, geometry))
        except AudioError as error:
            raise CpuProgramError(str(error)) from None
    names = [stream.name for stream in streams]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise CpuProgramError(
            f"clip names must differ (outputs are named after them): {', '.join(duplicates)}"
        )
    output_dir.mkdir(parents=True, exist_ok=True)
    written = {}
    for stream in streams:
        probabilities = program_probabilities(data, stream, f"{pte_path} on {stream.name}")
        path = output_dir / f"{stream.name}.program.bin"
        probabilities.astype("<f4").tofile(path)
        written[stream.name] = path
    return written


@exit_on_errors(CpuProgramError)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m examples.arm.silero_vad.verification.program_reference",
        description="Run a host .pte with ExecuTorch's Python runtime over WAV clips and write "
        "<output-dir>/<clip>.program.bin (float32 little-endian, one probability per frame): "
        "the exact reference for the C++ host runner. Exit status: 0 written, 2 unusable input.",
    )
    parser.add_argument(
        "pte", type=Path, help="program exported with run.sh --target xnnpack (or cpu)"
    )
    parser.add_argument("wav", type=Path, nargs="+", help="clips (one method load each)")
    parser.add_argument(
        "--output-dir", type=Path, required=True, help="where <clip>.program.bin go"
    )
    args = parser.parse_args(argv)
    for name, path in run_program_reference(args.pte, args.wav, args.output_dir).items():
        print(f"program_reference: {name}: {path.stat().st_size // 4} frames -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
