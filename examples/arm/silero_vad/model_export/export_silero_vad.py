# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Exports the stateful quantized (a16w8) Silero VAD and everything needed to check it:
the ``.pte``, per validation clip the float and quantized probabilities (float32 ``.bin``
per frame, in ``reference/``), for NPU targets Vela's input and output (``vela/``), and
``report.json``."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np
import torch
from executorch.backends.arm.ethosu import EthosUCompileSpec

from examples.arm.silero_vad.model_export.audio import AudioError, AudioStream, load_streams
from examples.arm.silero_vad.model_export.calibration import (
    calibrate_state_quantization,
    overdriven_versions,
)
from examples.arm.silero_vad.model_export.frame_geometry import DEFAULT_SAMPLE_RATE, frame_geometry
from examples.arm.silero_vad.model_export.lowering import (
    example_inputs,
    lower,
    make_compile_spec,
    quantize_silero_vad,
)
from examples.arm.silero_vad.model_export.model_config import (
    DEFAULT_CONFIG,
    ModelConfig,
    build_float_model,
    gate_weight_spec,
    lstm_gate_product_spec,
    quantization_config,
)
from examples.arm.silero_vad.model_export.program_contract import check_program_contract
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, float_probabilities
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    DEFAULT_AUDIO_INPUT,
    StatefulSileroVAD,
    StateQuantization,
    program_frames,
    stream_probabilities,
)
from examples.arm.silero_vad.model_export.targets import (
    DEFAULT_NPU_TARGET,
    HOST_TARGETS,
    XNNPACK_TARGET,
    VelaSettings,
    default_vela_settings,
    program_role,
    reversal_for,
)
from examples.arm.silero_vad.model_export.vela_report import read_vela_report
from examples.arm.silero_vad.model_export.weight_rounding import round_weights, rounding_streams


@dataclass(frozen=True)
class ExportOptions:
    calibration_wavs: list[Path]
    validation_wavs: list[Path]
    output_dir: Path
    target: str = DEFAULT_NPU_TARGET
    # None: what the installed release's EthosUCompileSpec picks for the target.
    system_config: str | None = None
    memory_mode: str | None = None
    model: ModelConfig = DEFAULT_CONFIG
    sample_rate: int = DEFAULT_SAMPLE_RATE
    audio_input: str = DEFAULT_AUDIO_INPUT

    def vela_settings(self) -> VelaSettings | None:
        """The system config and memory mode Vela compiles for (None for a host target)."""
        if self.target in HOST_TARGETS:
            return None
        default = default_vela_settings(self.target)
        return VelaSettings(
            self.system_config or default.system_config, self.memory_mode or default.memory_mode
        )


@dataclass
class ExportResult:
    report: dict
    pte_path: Path
    validation_streams: list[AudioStream]
    # The PyTorch quantized program the .pte was lowered from (what the cpu target runs);
    # None for the xnnpack target, float Silero itself (xnnpack_program.py).
    quantized: torch.nn.Module | None
    # Float Silero at the program's sample rate: the accuracy reference.
    float_model: SileroVAD


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


def _check_distinct_audio(calibration: list[AudioStream], validation: list[AudioStream]) -> None:
    """Refuses validation audio that is calibration audio, whatever the files are called."""
    calibration_audio = {stream.pcm.tobytes(): stream.path for stream in calibration}
    for stream in validation:
        twin = calibration_audio.get(stream.pcm.tobytes())
        if twin is not None:
            raise AudioError(
                f"{stream.path}: the same audio as calibration clip {twin}; validate on "
                "audio the quantization was not calibrated on"
            )


def quantize_configured(
    config: ModelConfig,
    float_model: SileroVAD,
    calibration: Sequence[AudioStream],
    spec: EthosUCompileSpec,
    audio_input: str = DEFAULT_AUDIO_INPUT,
    reversal: str = "flip",
) -> tuple[torch.fx.GraphModule, StateQuantization]:
    """The stateful model with ``config``'s choices (gate weights chosen: ``for_memory_mode``),
    calibrated: the state's range on ``calibration`` as it is (``float_model``), the weights
    rounded over every level, the activation ranges also overdriven into clipping."""
    state_quantization = calibrate_state_quantization(float_model, calibration)
    arranged = build_float_model(float_model.geometry.sample_rate, reversal)
    if config.weight_rounding == "gptq":
        weight_spec, gate_spec = quantization_config().weight, gate_weight_spec(config)
        round_weights(arranged, rounding_streams(calibration), weight_spec, gate_spec)
    stateful = StatefulSileroVAD(arranged, state_quantization, audio_input)
    activation_calibration = list(calibration)
    if config.range_overdrive_db is not None:
        # At full scale too, so unclipped loud speech is seen as well (STUDIES.md).
        for overdrive_db in sorted({0.0, config.range_overdrive_db}):
            activation_calibration += overdriven_versions(calibration, overdrive_db)
    gate_products = lstm_gate_product_spec(config)
    quantized = quantize_silero_vad(
        stateful, activation_calibration, spec, quantization_config(), gate_products
    )
    return quantized, state_quantization


def export_silero_vad(options: ExportOptions) -> ExportResult:
    """Calibrates, quantizes, lowers, checks and writes the artifacts; returns the report."""
    if options.target == XNNPACK_TARGET:  # float Silero: nothing to calibrate or quantize
        from examples.arm.silero_vad.model_export.xnnpack_program import export_xnnpack_program

        return export_xnnpack_program(options)
    _check_disjoint(options.calibration_wavs, options.validation_wavs)
    geometry = frame_geometry(options.sample_rate)
    calibration = load_streams(options.calibration_wavs, geometry)
    validation = load_streams(options.validation_wavs, geometry)
    _check_distinct_audio(calibration, validation)
    output_dir = options.output_dir
    output_dir.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()

    float_model = SileroVAD.from_silero_package(options.sample_rate)
    vela = options.vela_settings()
    system_config, memory_mode = (vela.system_config, vela.memory_mode) if vela else (None, None)
    vela_dir = output_dir / "vela"
    if vela_dir.exists():
        shutil.rmtree(vela_dir)
    # The cpu program is quantized as for the default NPU: the NPU model's twin.
    target = options.target if vela else DEFAULT_NPU_TARGET
    spec = make_compile_spec(target, system_config, memory_mode, vela_dir if vela else None)
    model = options.model.for_memory_mode(memory_mode)
    quantized, state_quantization = quantize_configured(
        model, float_model, calibration, spec, options.audio_input, reversal_for(options.target)
    )
    inputs = example_inputs(geometry, options.audio_input)
    program = lower(quantized, inputs, spec if vela else None, geometry.metadata())
    export_seconds = time.monotonic() - start

    program_summary = inspect_program(program.buffer)
    check_program_contract(program_summary, geometry, options.audio_input, bool(vela))
    pte_path = output_dir / f"silero_vad_{options.target}.pte"
    pte_path.write_bytes(program.buffer)

    (output_dir / "reference").mkdir(exist_ok=True)
    for stream in validation:
        frames = program_frames(stream, options.audio_input)
        for kind, probabilities in (
            ("float", float_probabilities(float_model, stream)),
            ("quantized", stream_probabilities(quantized, frames)),
        ):
            probabilities.astype("<f4").tofile(reference_path(output_dir, stream.name, kind))

    report: dict = {
        "executorch_version": version("executorch"),
        "target": options.target,
        "program": program_role(options.target),
        "system_config": system_config,
        "memory_mode": memory_mode,
        "sample_rate": options.sample_rate,
        "audio_input": options.audio_input,
        "geometry": geometry.metadata(),
        "pte": pte_path.name,
        "pte_bytes": len(program.buffer),
        "pte_sha256": hashlib.sha256(program.buffer).hexdigest(),
        "export_seconds": round(export_seconds, 1),
        "delegates": program_summary.delegates,
        "portable_ops": program_summary.operator_calls,
        "model": model.to_dict(),
        "state_qparams": state_quantization.to_dict(),
        "calibration_clips": [str(s.path) for s in calibration],
        "validation_clips": [str(s.path) for s in validation],
    }
    if vela:
        vela_report = read_vela_report(vela_dir)
        report["npu_ops"] = vela_report.npu_ops
        report["cpu_ops"] = vela_report.cpu_ops
        report["vela"] = asdict(vela_report)
    write_report(output_dir, report)
    return ExportResult(report, pte_path, validation, quantized, float_model)


def write_report(output_dir: Path, report: dict) -> Path:
    path = output_dir / "report.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    return path


def read_probabilities(path: Path) -> np.ndarray:
    """A float32 little-endian ``.bin`` of per-frame probabilities."""
    return np.fromfile(path, dtype="<f4")
