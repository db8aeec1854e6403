# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Export tiny stateful programs with the Silero VAD contract for runtime tests.

The real model comes from the model export; the runtime only needs a program
with the same contract (model_export/program_contract.py): ``forward`` takes
one audio frame of shape (1, context_samples + hop_samples), int16 PCM (or
float32 audio for a float-input program), and returns one float32 (1, 1);
recurrent state in a registered buffer updated with ``copy_`` and started at
zero (``InitializedMutableBufferPass``); the constant methods ``sample_rate``,
``hop_samples`` and ``context_samples`` give the frame geometry. These toys
have it, and their output is a closed formula of the inputs so the C++ tests
can predict every frame and prove the state survives between ``execute()``
calls.

ToyVad, per frame (audio = x / 32768 for int16 input, x for float input)::

    energy = mean(audio[:, context:] ** 2)
    state  = 0.5 * state + 0.5 * energy          (float32 buffer, 1 x 1)
    prob   = sigmoid(200 * (state - 0.01))

Programs written (``--out-dir``):

* ``toy_state.pte``: int16 input, 16 kHz geometry (1, 576);
* ``toy_float_input.pte``: float32 input, 16 kHz geometry;
* ``toy_8k.pte``: int16 input, 8 kHz geometry (1, 288);
* ``toy_int16_state.pte``: the state stored as int16 with fixed quantization
  parameters (scale 1/32768, zero point 0) through explicit
  quantize/dequantize ops, like the deployed model does, so loading it proves
  the runner has the quantized kernels;
* ``toy_xnnpack.pte``: ``toy_state.pte`` lowered with the release's XNNPACK
  partitioner, like the host program (``run.sh --target xnnpack``), so running
  it proves the runner has the XNNPACK backend;
* programs the runtime must refuse, each with its reason: no metadata (the
  contract before the frame geometry), partial or inconsistent metadata, a
  rate Silero has no model for, a non-integer metadata value, an input dtype
  that is neither int16 nor float32, an input shape that is not the metadata's,
  two inputs, two outputs, a delegate to a backend no runner has;
* broken files (truncated, header only, empty, text, noise).
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from pathlib import Path

import torch

STATE_DECAY = 0.5
GAIN = 200.0
BIAS = 0.01
INT16_SCALE = 1.0 / 32768.0
PCM16_FULL_SCALE = 32768.0

# The program metadata of Silero's two models (model_export/frame_geometry.py).
METADATA_16K = {"sample_rate": 16000, "hop_samples": 512, "context_samples": 64}
METADATA_8K = {"sample_rate": 8000, "hop_samples": 256, "context_samples": 32}


def frame_samples(metadata: dict[str, int]) -> int:
    """The input length of a geometry: context then new samples."""
    return metadata["context_samples"] + metadata["hop_samples"]


def as_audio(x: torch.Tensor) -> torch.Tensor:
    """Float audio from the program input: int16 PCM is scaled by 2^-15."""
    if x.dtype == torch.float32:
        return x
    return x.to(torch.float32) * (1.0 / PCM16_FULL_SCALE)


class ToyVad(torch.nn.Module):
    """Energy detector with a float32 recurrent state buffer."""

    def __init__(self, context_samples: int = 64) -> None:
        super().__init__()
        self.context_samples = context_samples
        self.register_buffer("state", torch.zeros(1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        new = as_audio(x)[:, self.context_samples :]
        energy = torch.mean(new * new, dim=1, keepdim=True)
        state = STATE_DECAY * self.state + (1.0 - STATE_DECAY) * energy
        self.state.copy_(state)
        return torch.sigmoid(GAIN * (state - BIAS))


class ToyVadInt16State(torch.nn.Module):
    """The same detector with the state stored as int16, as the deployed model stores it."""

    def __init__(self, context_samples: int = 64) -> None:
        super().__init__()
        self.context_samples = context_samples
        self.register_buffer("state", torch.zeros((1, 1), dtype=torch.int16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        qd = torch.ops.quantized_decomposed
        previous = qd.dequantize_per_tensor.default(
            self.state, INT16_SCALE, 0, -32768, 32767, torch.int16
        )
        new = as_audio(x)[:, self.context_samples :]
        energy = torch.mean(new * new, dim=1, keepdim=True)
        state = STATE_DECAY * previous + (1.0 - STATE_DECAY) * energy
        self.state.copy_(
            qd.quantize_per_tensor.default(state, INT16_SCALE, 0, -32768, 32767, torch.int16)
        )
        return torch.sigmoid(GAIN * (state - BIAS))


class Stateless(torch.nn.Module):
    """Right output, no state: for programs refused before they ever run."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(torch.mean(as_audio(x), dim=1, keepdim=True))


class TwoInputs(torch.nn.Module):
    """Wrong signature: state passed as a second input."""

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(torch.mean(as_audio(x), dim=1, keepdim=True) + h)


class DelegatedToDemoBackend(torch.nn.Module):
    """Right signature, but delegated to a backend no runner has (ExecuTorch's demo)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(torch.mean(x * x + x, dim=1, keepdim=True))


class WrongOutputShape(torch.nn.Module):
    """Wrong signature: two outputs per frame."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(as_audio(x)[:, :2])


def export(
    module: torch.nn.Module,
    example: tuple[torch.Tensor, ...],
    init_state: bool,
    delegate: bool = False,
    metadata: dict[str, object] | None = None,
    xnnpack: bool = False,
) -> bytes:
    """Lower an eager module to an ExecuTorch program; ``metadata`` becomes constant
    methods (the frame geometry, as the export writes it); ``delegate`` delegates to
    ExecuTorch's demo backend, ``xnnpack`` to XNNPACK."""
    # Registers the out variants of quantize/dequantize for to_executorch().
    import executorch.kernels.quantized  # noqa: F401
    from executorch.exir import ExecutorchBackendConfig, to_edge, to_edge_transform_and_lower
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    program = torch.export.export(module.eval(), example, strict=True)
    passes = [InitializedMutableBufferPass(["state"])] if init_state else []
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
            XnnpackPartitioner,
        )

        edge = to_edge_transform_and_lower(
            program, partitioner=[XnnpackPartitioner()], constant_methods=metadata
        )
    else:
        edge = to_edge(program, constant_methods=metadata)
    if delegate:
        from executorch.exir.backend.test.op_partitioner_demo import AddMulPartitionerDemo

        edge = edge.to_backend(AddMulPartitionerDemo())
    return edge.to_executorch(ExecutorchBackendConfig(passes=passes)).buffer


def pcm_frame(metadata: dict[str, int], dtype: torch.dtype = torch.int16) -> tuple[torch.Tensor]:
    """An example frame of a geometry."""
    return (torch.zeros(1, frame_samples(metadata), dtype=dtype),)


def programs() -> dict[str, tuple[torch.nn.Module, tuple[torch.Tensor, ...], bool, dict]]:
    """name -> (module, example inputs, initialize the state, metadata)."""
    m16, m8 = METADATA_16K, METADATA_8K
    frame16 = pcm_frame(m16)
    return {
        # Good programs.
        "toy_state.pte": (ToyVad(64), frame16, True, m16),
        "toy_float_input.pte": (ToyVad(64), pcm_frame(m16, torch.float32), True, m16),
        "toy_8k.pte": (ToyVad(32), pcm_frame(m8), True, m8),
        "toy_int16_state.pte": (ToyVadInt16State(64), frame16, True, m16),
        # Programs to refuse.
        "no_metadata.pte": (ToyVad(64), pcm_frame(m16, torch.float32), True, None),
        "partial_metadata.pte": (ToyVad(64), frame16, True, {"sample_rate": 16000}),
        "inconsistent_metadata.pte": (
            Stateless(),
            (torch.zeros(1, 288, dtype=torch.int16),),
            False,
            {"sample_rate": 16000, "hop_samples": 256, "context_samples": 32},
        ),
        "metadata_rate_44100.pte": (
            Stateless(),
            frame16,
            False,
            {"sample_rate": 44100, "hop_samples": 512, "context_samples": 64},
        ),
        "metadata_not_integer.pte": (
            Stateless(),
            frame16,
            False,
            {"sample_rate": 16000.0, "hop_samples": 512, "context_samples": 64},
        ),
        "input_int32.pte": (Stateless(), pcm_frame(m16, torch.int32), False, m16),
        "input_shape_16k_metadata_8k.pte": (Stateless(), frame16, False, m8),
        "foreign_two_inputs.pte": (TwoInputs(), (*frame16, torch.zeros(1, 1)), False, m16),
        "foreign_input_shape.pte": (
            Stateless(),
            (torch.zeros(1, 512, dtype=torch.int16),),
            False,
            m16,
        ),
        "foreign_output_shape.pte": (WrongOutputShape(), frame16, False, m16),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, required=True, help="where to write the files")
    args = parser.parse_args()
    # Known, harmless noise of this torch/torchao/executorch set. The emitter warns
    # about every mutated buffer, even those InitializedMutableBufferPass
    # initializes.
    for noisy in ("torch.utils._pytree", "torchao"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", message="Mutation on a buffer in the model is detected")
    out: Path = args.out_dir
    out.mkdir(parents=True, exist_ok=True)

    for name, (module, example, init_state, metadata) in programs().items():
        (out / name).write_bytes(export(module, example, init_state, metadata=metadata))
        print(f"make_toy_model: wrote {out / name}")
    delegated = out / "foreign_delegated.pte"
    delegated.write_bytes(
        export(
            DelegatedToDemoBackend(),
            pcm_frame(METADATA_16K, torch.float32),
            False,
            delegate=True,
            metadata=METADATA_16K,
        )
    )
    print(f"make_toy_model: wrote {delegated}")
    xnnpack = out / "toy_xnnpack.pte"
    xnnpack.write_bytes(
        export(ToyVad(64), pcm_frame(METADATA_16K), True, metadata=METADATA_16K, xnnpack=True)
    )
    print(f"make_toy_model: wrote {xnnpack}")

    good = (out / "toy_state.pte").read_bytes()
    broken = {
        "truncated.pte": good[: len(good) // 2],
        "header_only.pte": good[:64],
        "empty.pte": b"",
        "not_a_program.pte": b"This is a text file, not an ExecuTorch program.\n" * 8,
        # Deterministic noise: the same bytes on every run.
        "random_bytes.pte": bytes((i * 2654435761 >> 13) & 0xFF for i in range(4096)),
    }
    for name, data in broken.items():
        (out / name).write_bytes(data)
    print(f"make_toy_model: wrote {len(broken)} broken programs to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
