# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Exports the stateful int8 Silero VAD and everything needed to check it.

Writes to the output directory: the ``.pte``; per validation clip the float model's and
the quantized program's probabilities (float32 little-endian ``.bin``, one per frame);
for NPU targets the TOSA file Vela compiled and Vela's summary CSV (``vela/``); and
``report.json``.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path

import numpy as np
import torch
from executorch.backends.arm.ethosu import EthosUCompileSpec

from examples.arm.silero_vad.model_export.audio import AudioError, AudioStream, load_streams
from examples.arm.silero_vad.model_export.calibration import calibrate_state_quantization
from examples.arm.silero_vad.model_export.float_reference import float_probabilities
from examples.arm.silero_vad.model_export.lowering import (
    CPU_TARGET,
    example_inputs,
    lower,
    make_compile_spec,
    quantize_silero_vad,
)
from examples.arm.silero_vad.model_export.model_config import (
    DEFAULT_CONFIG,
    ModelConfig,
    build_float_model,
    lstm_gate_product_spec,
    module_quantization_configs,
    quantization_config,
)
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    StatefulSileroVAD,
    StateQuantization,
    stream_probabilities,
)
from examples.arm.silero_vad.model_export.vela_report import run_vela

DEFAULT_SYSTEM_CONFIG = "Ethos_U85_SYS_DRAM_Mid"
DEFAULT_MEMORY_MODE = "Shared_Sram"
# The quantization is the same for every target: the cpu program is the NPU model's twin.
QUANTIZATION_TARGET = "ethos-u85-256"


@dataclass(frozen=True)
class ExportOptions:
    calibration_wavs: list[Path]
    validation_wavs: list[Path]
    output_dir: Path
    target: str = QUANTIZATION_TARGET
    system_config: str = DEFAULT_SYSTEM_CONFIG
    memory_mode: str = DEFAULT_MEMORY_MODE
    model: ModelConfig = DEFAULT_CONFIG


@dataclass
class ExportResult:
    report: dict
    pte_path: Path
    validation_streams: list[AudioStream] = field(default_factory=list)


def pte_name(target: str) -> str:
    return f"silero_vad_{target}.pte"


def reference_path(output_dir: Path, clip: str, kind: str) -> Path:
    """``<dir>/reference/<clip>.<kind>.bin`` with kind ``float`` or ``quantized``."""
    return output_dir / "reference" / f"{clip}.{kind}.bin"


def tosa_path(output_dir: Path) -> Path:
    return output_dir / "vela" / "out.tosa"


def _check_disjoint(calibration: list[Path], validation: list[Path]) -> None:
    shared = {p.resolve() for p in calibration} & {p.resolve() for p in validation}
    if shared:
        names = ", ".join(sorted(str(p) for p in shared))
        raise AudioError(f"{names}: used for both calibration and validation")
    stems = [p.stem for p in validation]
    duplicates = sorted({s for s in stems if stems.count(s) > 1})
    if duplicates:
        raise AudioError(f"validation clips share a name ({', '.join(duplicates)}): rename one")


def quantize_configured(
    config: ModelConfig,
    float_model: SileroVAD,
    calibration: Sequence[AudioStream],
    spec: EthosUCompileSpec,
) -> tuple[torch.fx.GraphModule, StateQuantization]:
    """The stateful model in ``config``'s arrangement and arithmetic, calibrated."""
    state_quantization = calibrate_state_quantization(float_model, calibration, config.state_dtype)
    stateful = StatefulSileroVAD(build_float_model(config, calibration), state_quantization)
    quantized = quantize_silero_vad(
        stateful,
        calibration,
        spec,
        quantization_config(config),
        lstm_gate_product_spec(config),
        module_quantization_configs(config),
    )
    return quantized, state_quantization


def export_silero_vad(options: ExportOptions) -> ExportResult:
    """Calibrates, quantizes, lowers and writes the artifacts; returns the report."""
    _check_disjoint(options.calibration_wavs, options.validation_wavs)
    calibration = load_streams(options.calibration_wavs)
    validation = load_streams(options.validation_wavs)
    output_dir = options.output_dir
    output_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()

    float_model = SileroVAD.from_silero_package()
    on_npu = options.target != CPU_TARGET
    vela_dir = output_dir / "vela"
    if vela_dir.exists():
        shutil.rmtree(vela_dir)
    spec = make_compile_spec(
        options.target if on_npu else QUANTIZATION_TARGET,
        options.system_config,
        options.memory_mode,
        vela_dir if on_npu else None,
    )
    quantized, state_quantization = quantize_configured(
        options.model, float_model, calibration, spec
    )
    program = lower(quantized, example_inputs(), spec if on_npu else None)
    export_seconds = time.monotonic() - start

    pte_path = output_dir / pte_name(options.target)
    pte_path.write_bytes(program.buffer)

    for stream in validation:
        for kind, probabilities in (
            ("float", float_probabilities(float_model, stream)),
            ("quantized", stream_probabilities(quantized, stream.frames)),
        ):
            path = reference_path(output_dir, stream.name, kind)
            path.parent.mkdir(parents=True, exist_ok=True)
            probabilities.astype("<f4").tofile(path)

    program_summary = inspect_program(program.buffer)
    report: dict = {
        "executorch_version": version("executorch"),
        "target": options.target,
        "system_config": options.system_config if on_npu else None,
        "memory_mode": options.memory_mode if on_npu else None,
        "pte": pte_path.name,
        "pte_bytes": len(program.buffer),
        "export_seconds": round(export_seconds, 1),
        "delegates": program_summary.delegates,
        "portable_ops": program_summary.operator_calls,
        "model": options.model.to_dict(),
        "state_qparams": state_quantization.to_dict(),
        "calibration_clips": [str(s.path) for s in calibration],
        "validation_clips": [str(s.path) for s in validation],
    }
    if on_npu:
        vela = run_vela(tosa_path(output_dir), spec.compiler_flags)
        report["npu_ops"] = vela.npu_ops
        report["cpu_ops"] = vela.cpu_ops
        report["vela"] = vela.to_dict()
    write_report(output_dir, report)
    return ExportResult(report=report, pte_path=pte_path, validation_streams=validation)


def write_report(output_dir: Path, report: dict) -> Path:
    path = output_dir / "report.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    return path


def read_probabilities(path: Path) -> np.ndarray:
    """A float32 little-endian ``.bin`` of per-frame probabilities."""
    return np.fromfile(path, dtype="<f4")
