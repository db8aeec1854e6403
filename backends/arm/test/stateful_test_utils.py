# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Quantize-and-lower helper for the pass tests: small models through the real flow."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from executorch.exir import ExecutorchProgramManager
from torchao.quantization.pt2e.quantizer import QuantizationConfig

from backends.arm.quantizer.stateful_ethos_u_quantizer import LstmGateProductSpec
from examples.arm.silero_vad.model_export.lowering import (
    lower,
    make_compile_spec,
    quantize,
)
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.targets import DEFAULT_NPU_TARGET
from examples.arm.silero_vad.model_export.vela_report import VelaReport, run_vela


@dataclass
class LoweredProgram:
    quantized: torch.fx.GraphModule
    program: ExecutorchProgramManager
    report: VelaReport


def lower_to_u85(
    model: torch.nn.Module,
    calibration: list[tuple[torch.Tensor, ...]],
    artifacts_dir: Path,
    config: QuantizationConfig | None = None,
    lstm_gate_products: LstmGateProductSpec | None = None,
) -> LoweredProgram:
    """Quantizes with the stateful Arm quantizer (calibrating in order; default int8) and
    lowers to U85."""
    spec = make_compile_spec(
        DEFAULT_NPU_TARGET, "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", artifacts_dir
    )

    def calibrate(prepared: torch.nn.Module) -> None:
        with torch.no_grad():
            for inputs in calibration:
                prepared(*inputs)

    quantized = quantize(model, calibration[0], calibrate, spec, config, lstm_gate_products)
    program = lower(quantized, calibration[0], spec)
    report = run_vela(artifacts_dir / "out.tosa", spec.compiler_flags)
    return LoweredProgram(quantized, program, report)


def ops_outside_delegate(lowered: LoweredProgram) -> dict[str, int]:
    """Operators the serialized program runs outside the delegate."""
    return inspect_program(lowered.program.buffer).operator_calls
