# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Host twin of the Ethos-U device: the compiled TOSA graph, run frame by frame.

CI has no FVP or NPU, so the device's numerics come from the TOSA reference model running
the TOSA file Vela compiled, driven as the runtime drives the delegate: per frame the
audio (as the CPU hands it over) and the state go in, the quantized probability and the
new state (fed back) come out. Qparams and frame geometry are read from the ``.pte``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import tosa_reference_model
from tosa import TosaGraph

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.frame_geometry import FrameGeometry, frame_geometry
from examples.arm.silero_vad.model_export.program_inspection import (
    TensorQuantization,
    inspect_program,
)
from examples.arm.silero_vad.model_export.progress import FrameProgress
from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE
from examples.arm.silero_vad.verification.serial_protocol import format_protocol

_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default
_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default


class TwinError(RuntimeError):
    """The TOSA graph or the program does not have the interface the runtime drives."""


@dataclass(frozen=True)
class TwinStream:
    """What the twin saw on one stream."""

    probabilities: np.ndarray
    # Frames after which h (row 0) or c (row 1) of the state held a value on the rail.
    saturated_frames: tuple[int, int]


def read_tosa_interface(tosa: bytes, frame_samples: int) -> tuple[int, int, int, int]:
    """The positions of the audio and state inputs and of the probability and state outputs
    in the TOSA graph's input and output lists, found by their shapes."""
    block = TosaGraph.TosaGraph.GetRootAs(tosa, 0).Regions(0).Blocks(0)
    tensors = {}
    for index in range(block.TensorsLength()):
        tensor = block.Tensors(index)
        tensors[tensor.Name()] = tensor.ShapeAsNumpy().tolist() if tensor.ShapeLength() else []
    inputs = [tuple(tensors[block.Inputs(i)]) for i in range(block.InputsLength())]
    outputs = [tuple(tensors[block.Outputs(i)]) for i in range(block.OutputsLength())]
    try:
        return (
            inputs.index((1, frame_samples)),
            inputs.index(STATE_SHAPE),
            outputs.index((1, 1)),
            outputs.index(STATE_SHAPE),
        )
    except ValueError as error:
        raise TwinError(
            f"TOSA graph inputs {inputs} / outputs {outputs} are not "
            f"(audio {(1, frame_samples)}, state {STATE_SHAPE}) -> (probability (1, 1), "
            "state): is the whole model in one delegate?"
        ) from error


def _quantize_audio(frame: np.ndarray, q: TensorQuantization) -> np.ndarray:
    tensor = torch.from_numpy(frame).reshape(1, -1)
    return _quantize(tensor, q.scale, q.zero_point, q.qmin, q.qmax, q.torch_dtype).numpy()


def _dequantize_probability(value: np.ndarray, q: TensorQuantization) -> float:
    tensor = torch.from_numpy(value.astype(q.dtype))
    return float(_dequantize(tensor, q.scale, q.zero_point, q.qmin, q.qmax, q.torch_dtype).item())


def program_geometry(metadata: dict[str, int], source: Path) -> FrameGeometry:
    """The frame geometry a program declares in its metadata methods."""
    try:
        geometry = frame_geometry(metadata["sample_rate"])
    except (KeyError, ValueError) as error:
        raise TwinError(f"{source}: no usable sample_rate metadata ({error})") from None
    if geometry.metadata() != metadata:
        raise TwinError(f"{source}: metadata {metadata}, expected {geometry.metadata()}")
    return geometry


class DeviceTwin:
    """Runs a lowered Silero VAD's TOSA graph the way the device runs its delegate."""

    def __init__(self, tosa_path: Path, pte_path: Path) -> None:
        program = inspect_program(pte_path)
        if program.delegates != 1:
            raise TwinError(
                f"{pte_path}: {program.delegates} delegates; the twin stands in for one "
                "Ethos-U delegate (export for an Ethos-U target)"
            )
        self.geometry = program_geometry(program.metadata, pte_path)
        self.tosa = tosa_path.read_bytes()
        self.audio_input, self.state_input, self.probability_output, self.state_output = (
            read_tosa_interface(self.tosa, self.geometry.frame_samples)
        )
        if program.output_quantization is None:
            raise TwinError(f"{pte_path}: no output dequantize on the CPU")
        (audio_input,) = program.inputs
        self.pcm_input = audio_input is not None and audio_input.dtype is np.int16
        if not self.pcm_input and program.input_quantization is None:
            raise TwinError(f"{pte_path}: float audio input without a quantize on the CPU")
        if len(program.mutable_buffers) != 1:
            raise TwinError(f"{pte_path}: {len(program.mutable_buffers)} state buffers, not 1")
        (state,) = program.mutable_buffers
        if state.initial_value is None:
            raise TwinError(f"{pte_path}: the state's initial value is not in the program")
        self.input_quantization = program.input_quantization
        self.output_quantization = program.output_quantization
        self.initial_state = state.initial_value
        self.state_rails = np.iinfo(self.initial_state.dtype)

    def run_stream(self, stream: AudioStream) -> TwinStream:
        """Probabilities for every frame of one stream, starting from the program's state."""
        if stream.geometry != self.geometry:
            raise TwinError(
                f"{stream.path}: audio framed for {stream.sample_rate} Hz, the program is the "
                f"{self.geometry.sample_rate} Hz model"
            )
        state = np.array(self.initial_state, copy=True)
        probabilities = np.empty(stream.num_frames, dtype=np.float32)
        saturated = np.zeros(2, dtype=int)
        inputs: list[np.ndarray] = [np.empty(0)] * 2
        for index in range(stream.num_frames):
            # The delegate's audio: what the CPU hands over.
            inputs[self.audio_input] = (
                stream.frames[index : index + 1]
                if self.pcm_input
                else _quantize_audio(stream.float_frames[index], self.input_quantization)
            )
            inputs[self.state_input] = state
            outputs, status = tosa_reference_model.run(self.tosa, inputs)
            if status != tosa_reference_model.GraphStatus.TOSA_VALID:
                raise TwinError(
                    f"{stream.path}: frame {index} "
                    f"(t={index * self.geometry.frame_seconds:.3f} s): "
                    f"TOSA reference model returned {status.name}"
                )
            state = outputs[self.state_output].reshape(STATE_SHAPE).astype(self.initial_state.dtype)
            on_rail = (state == self.state_rails.min) | (state == self.state_rails.max)
            saturated += on_rail.reshape(2, -1).any(axis=1)
            probability = outputs[self.probability_output]
            probabilities[index] = _dequantize_probability(probability, self.output_quantization)
        return TwinStream(probabilities, (int(saturated[0]), int(saturated[1])))

    def run_streams(
        self,
        streams: list[AudioStream],
        progress: FrameProgress | None = None,
        processes: int | None = None,
    ) -> list[TwinStream]:
        """``run_stream`` for every stream, one process per core: the reference model runs
        about 110 frames per second on one core, and streams are independent."""
        processes = min(processes or os.cpu_count() or 1, len(streams))
        jobs = [(self, stream) for stream in streams]
        # fork: the workers inherit the loaded twin and the caller's stdout redirection.
        with (
            multiprocessing.get_context("fork").Pool(processes)
            if processes > 1
            else contextlib.nullcontext()
        ) as pool:
            results = []
            timed = pool.imap(_timed_run_stream, jobs) if pool else map(_timed_run_stream, jobs)
            for stream, (result, seconds) in zip(streams, timed, strict=True):
                if progress is not None:
                    progress.record_clip(stream.name, stream.num_frames, seconds)
                results.append(result)
            return results


def _timed_run_stream(job: tuple[DeviceTwin, AudioStream]) -> tuple[TwinStream, float]:
    twin, stream = job
    start = time.monotonic()
    return twin.run_stream(stream), time.monotonic() - start


def run_twin(
    tosa_path: Path, pte_path: Path, streams: list[AudioStream], output_dir: Path
) -> dict[str, TwinStream]:
    """Runs every stream and writes ``twin/<clip>.bin`` (float32 LE) and ``twin/<clip>.log``
    (serial protocol) under ``output_dir``; returns what it saw."""
    twin = DeviceTwin(tosa_path, pte_path)
    progress = FrameProgress("device twin", sum(stream.num_frames for stream in streams))
    twin_dir = output_dir / "twin"
    twin_dir.mkdir(parents=True, exist_ok=True)
    results = {}
    for stream, result in zip(streams, twin.run_streams(streams, progress), strict=True):
        result.probabilities.astype("<f4").tofile(twin_dir / f"{stream.name}.bin")
        (twin_dir / f"{stream.name}.log").write_bytes(
            format_protocol(result.probabilities, stream.num_samples, stream.sample_rate)
        )
        results[stream.name] = result
    return results
