# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Export tiny stateful programs with the Silero VAD signature for runtime tests.

The real model comes from the model export; the runtime only needs a program
with the same contract: one float32 input (1, 576), one float32 output (1, 1),
recurrent state in a registered buffer updated with ``copy_`` and started at
zero (``InitializedMutableBufferPass``). These toys have it, and their output
is a closed formula of the inputs so the C++ tests can predict every frame
and prove the state survives between ``execute()`` calls.

ToyVad (``toy_state.pte``), per frame::

    energy = mean(x[:, 64:] ** 2)
    state  = 0.5 * state + 0.5 * energy          (float32 buffer, 1 x 1)
    prob   = sigmoid(200 * (state - 0.01))

ToyVadInt8State (``toy_int8_state.pte``) keeps the state as int8 with fixed
quantization parameters (scale 1/256, zero point -128) through explicit
quantize/dequantize ops, like the deployed model does, so loading it proves
the runner has the quantized kernels.

Also written: programs with the wrong signature, one delegated to a backend
no runner has, and broken files, each of which the runner must refuse with a
clear error.
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
INT8_SCALE = 1.0 / 256.0
INT8_ZERO_POINT = -128
CONTEXT = 64
INPUT_SAMPLES = 576


class ToyVad(torch.nn.Module):
    """Energy detector with a float32 recurrent state buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.zeros(1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        new = x[:, CONTEXT:]
        energy = torch.mean(new * new, dim=1, keepdim=True)
        state = STATE_DECAY * self.state + (1.0 - STATE_DECAY) * energy
        self.state.copy_(state)
        return torch.sigmoid(GAIN * (state - BIAS))


class ToyVadInt8State(torch.nn.Module):
    """The same detector with the state stored as int8."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.full((1, 1), INT8_ZERO_POINT, dtype=torch.int8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        qd = torch.ops.quantized_decomposed
        previous = qd.dequantize_per_tensor.default(
            self.state, INT8_SCALE, INT8_ZERO_POINT, -128, 127, torch.int8
        )
        new = x[:, CONTEXT:]
        energy = torch.mean(new * new, dim=1, keepdim=True)
        state = STATE_DECAY * previous + (1.0 - STATE_DECAY) * energy
        self.state.copy_(
            qd.quantize_per_tensor.default(
                state, INT8_SCALE, INT8_ZERO_POINT, -128, 127, torch.int8
            )
        )
        return torch.sigmoid(GAIN * (state - BIAS))


class TwoInputs(torch.nn.Module):
    """Wrong signature: state passed as a second input."""

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(torch.mean(x, dim=1, keepdim=True) + h)


class WrongInputShape(torch.nn.Module):
    """Wrong signature: 512 samples without context."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(torch.mean(x, dim=1, keepdim=True))


class DelegatedToDemoBackend(torch.nn.Module):
    """Right signature, but delegated to a backend no runner has (ExecuTorch's demo)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(torch.mean(x * x + x, dim=1, keepdim=True))


class WrongOutputShape(torch.nn.Module):
    """Wrong signature: two outputs per frame."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x[:, :2])


def export(
    module: torch.nn.Module,
    example: tuple[torch.Tensor, ...],
    init_state: bool,
    delegate: bool = False,
    metadata: dict[str, int] | None = None,
) -> bytes:
    """Lower an eager module to an ExecuTorch program; ``metadata`` becomes constant
    methods (the frame geometry, as the export writes it)."""
    # Registers the out variants of quantize/dequantize for to_executorch().
    import executorch.kernels.quantized  # noqa: F401
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    program = torch.export.export(module.eval(), example, strict=True)
    passes = [InitializedMutableBufferPass(["state"])] if init_state else []
    edge = to_edge(program, constant_methods=metadata)
    if delegate:
        from executorch.exir.backend.test.op_partitioner_demo import AddMulPartitionerDemo

        edge = edge.to_backend(AddMulPartitionerDemo())
    return edge.to_executorch(ExecutorchBackendConfig(passes=passes)).buffer


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

    frame = (torch.zeros(1, INPUT_SAMPLES),)
    programs = {
        "toy_state.pte": (ToyVad(), frame, True),
        "toy_int8_state.pte": (ToyVadInt8State(), frame, True),
        "foreign_two_inputs.pte": (
            TwoInputs(),
            (torch.zeros(1, INPUT_SAMPLES), torch.zeros(1, 1)),
            False,
        ),
        "foreign_input_shape.pte": (WrongInputShape(), (torch.zeros(1, 512),), False),
        "foreign_output_shape.pte": (WrongOutputShape(), frame, False),
    }
    for name, (module, example, init_state) in programs.items():
        (out / name).write_bytes(export(module, example, init_state))
        print(f"make_toy_model: wrote {out / name}")
    delegated = out / "foreign_delegated.pte"
    delegated.write_bytes(export(DelegatedToDemoBackend(), frame, False, delegate=True))
    print(f"make_toy_model: wrote {delegated}")

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
