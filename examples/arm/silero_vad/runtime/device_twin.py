# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Host twin of the Ethos-U85 device: the compiled TOSA graph, run frame by frame.

No FVP or NPU exists in CI, so the device's numerics come from the TOSA reference model
running the exact TOSA file Vela compiled, driven the way the runtime drives the
delegate: per frame the CPU quantizes the audio with the program's input qparams, the
delegate gets the quantized audio and state, returns the quantized probability and the
new state (fed back on the next frame, zeros at each stream start), and the CPU
dequantizes the probability with the program's output qparams. Both qparams are read
from the ``.pte``, never written down by hand.

    python -m examples.arm.silero_vad.runtime.device_twin --output-dir out/silero_vad
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import tosa_reference_model
from tosa import TosaGraph

from examples.arm.silero_vad.model_export.audio import AudioError, AudioStream, load_streams
from examples.arm.silero_vad.model_export.program_inspection import (
    TensorQuantization,
    inspect_program,
)
from examples.arm.silero_vad.model_export.silero_vad_model import (
    FRAME_SAMPLES,
    SAMPLE_RATE,
    STATE_SHAPE,
)
from examples.arm.silero_vad.runtime.serial_protocol import format_protocol

_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default
_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default


class TwinError(RuntimeError):
    """The TOSA graph or the program does not have the interface the runtime drives."""


@dataclass(frozen=True)
class TosaInterface:
    """Positions of the delegate's tensors in the TOSA graph's input and output lists."""

    audio_input: int
    state_input: int
    probability_output: int
    state_output: int


def _tensor_shapes(names: list[bytes], tensors: dict[bytes, list[int]]) -> list[tuple]:
    return [tuple(tensors[name]) for name in names]


def read_tosa_interface(tosa: bytes) -> TosaInterface:
    """Finds audio/state inputs and probability/state outputs by their shapes."""
    block = TosaGraph.TosaGraph.GetRootAs(tosa, 0).Regions(0).Blocks(0)
    tensors = {}
    for index in range(block.TensorsLength()):
        tensor = block.Tensors(index)
        tensors[tensor.Name()] = tensor.ShapeAsNumpy().tolist() if tensor.ShapeLength() else []
    inputs = _tensor_shapes([block.Inputs(i) for i in range(block.InputsLength())], tensors)
    outputs = _tensor_shapes([block.Outputs(i) for i in range(block.OutputsLength())], tensors)
    try:
        return TosaInterface(
            audio_input=inputs.index((1, FRAME_SAMPLES)),
            state_input=inputs.index(STATE_SHAPE),
            probability_output=outputs.index((1, 1)),
            state_output=outputs.index(STATE_SHAPE),
        )
    except ValueError as error:
        raise TwinError(
            f"TOSA graph inputs {inputs} / outputs {outputs} are not "
            f"(audio {(1, FRAME_SAMPLES)}, state {STATE_SHAPE}) -> (probability (1, 1), state)"
        ) from error


def _quantize_audio(frame: np.ndarray, q: TensorQuantization) -> np.ndarray:
    tensor = torch.from_numpy(frame).reshape(1, FRAME_SAMPLES)
    return _quantize(tensor, q.scale, q.zero_point, q.qmin, q.qmax, q.torch_dtype).numpy()


def _dequantize_probability(value: np.ndarray, q: TensorQuantization) -> float:
    tensor = torch.from_numpy(value.astype(q.dtype))
    return float(_dequantize(tensor, q.scale, q.zero_point, q.qmin, q.qmax, q.torch_dtype).item())


class DeviceTwin:
    """Runs a lowered Silero VAD's TOSA graph the way the device runs its delegate."""

    def __init__(self, tosa_path: Path, pte_path: Path) -> None:
        self.tosa = tosa_path.read_bytes()
        self.interface = read_tosa_interface(self.tosa)
        program = inspect_program(pte_path)
        if program.input_quantization is None or program.output_quantization is None:
            raise TwinError(f"{pte_path}: no input quantize / output dequantize on the CPU")
        (state,) = program.mutable_buffers
        self.input_quantization = program.input_quantization
        self.output_quantization = program.output_quantization
        self.initial_state = state.initial_value

    def run_stream(self, stream: AudioStream) -> np.ndarray:
        """Probabilities for every frame of one stream, starting from the program's state."""
        state = np.array(self.initial_state, copy=True)
        probabilities = np.empty(stream.num_frames, dtype=np.float32)
        inputs: list[np.ndarray] = [np.empty(0)] * 2
        for index, frame in enumerate(stream.frames):
            inputs[self.interface.audio_input] = _quantize_audio(frame, self.input_quantization)
            inputs[self.interface.state_input] = state
            outputs, status = tosa_reference_model.run(self.tosa, inputs)
            if status != tosa_reference_model.GraphStatus.TOSA_VALID:
                raise TwinError(
                    f"{stream.path}: frame {index} (t={index * 0.032:.3f} s): "
                    f"TOSA reference model returned {status.name}"
                )
            state = outputs[self.interface.state_output].reshape(STATE_SHAPE)
            state = state.astype(self.initial_state.dtype)
            probability = outputs[self.interface.probability_output]
            probabilities[index] = _dequantize_probability(probability, self.output_quantization)
        return probabilities


def twin_paths(output_dir: Path, clip: str) -> tuple[Path, Path]:
    """``<dir>/twin/<clip>.bin`` (float32 LE) and ``<dir>/twin/<clip>.log`` (serial)."""
    twin_dir = output_dir / "twin"
    return twin_dir / f"{clip}.bin", twin_dir / f"{clip}.log"


def run_twin(
    tosa_path: Path, pte_path: Path, streams: list[AudioStream], output_dir: Path
) -> dict[str, np.ndarray]:
    """Runs every stream and writes its ``.bin`` and serial ``.log``; returns the probabilities."""
    twin = DeviceTwin(tosa_path, pte_path)
    results = {}
    for stream in streams:
        probabilities = twin.run_stream(stream)
        bin_path, log_path = twin_paths(output_dir, stream.name)
        bin_path.parent.mkdir(parents=True, exist_ok=True)
        probabilities.astype("<f4").tofile(bin_path)
        log_path.write_bytes(format_protocol(probabilities, stream.num_samples, SAMPLE_RATE))
        results[stream.name] = probabilities
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=Path("out/silero_vad"))
    parser.add_argument("--tosa", type=Path, help="default: <output-dir>/vela/out.tosa")
    parser.add_argument("--pte", type=Path, help="default: the .pte in <output-dir>")
    parser.add_argument("--validation-wav", action="append", type=Path, required=True)
    args = parser.parse_args(argv)
    tosa = args.tosa or args.output_dir / "vela" / "out.tosa"
    ptes = [args.pte] if args.pte else sorted(args.output_dir.glob("silero_vad_ethos-*.pte"))
    if len(ptes) != 1 or not tosa.is_file():
        print(f"ERROR device_twin: need one Ethos-U .pte and {tosa}; export first", file=sys.stderr)
        return 2
    try:
        streams = load_streams(args.validation_wav)
        results = run_twin(tosa, ptes[0], streams, args.output_dir)
    except (AudioError, TwinError) as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    for name, probabilities in results.items():
        print(f"{name}: {probabilities.size} frames -> {twin_paths(args.output_dir, name)[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
