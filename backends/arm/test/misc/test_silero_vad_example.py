# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The Silero VAD export: what the lowered Ethos-U85 program contains."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest

from examples.arm.silero_vad.model_export.audio import AudioError
from examples.arm.silero_vad.model_export.export_silero_vad import (
    ExportOptions,
    ExportResult,
    export_silero_vad,
    read_probabilities,
    reference_path,
    tosa_path,
)
from examples.arm.silero_vad.model_export.lowering import make_compile_spec
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE
from examples.arm.silero_vad.model_export.vela_report import operator_performance

BOUNDARY_AND_STATE_WRITE = {
    "aten::copy_": 1,
    "quantized_decomposed::dequantize_per_tensor.out": 1,
    "quantized_decomposed::quantize_per_tensor.out": 1,
}


def test_silero_program_leaves_only_boundary_ops_on_cpu_u85(
    silero_u85_export: ExportResult,
) -> None:
    summary = inspect_program(silero_u85_export.pte_path)
    assert summary.operator_calls == BOUNDARY_AND_STATE_WRITE
    assert summary.delegates == 1
    assert silero_u85_export.report["portable_ops"] == BOUNDARY_AND_STATE_WRITE


def test_silero_program_has_one_input_one_output_and_integer_zero_state_u85(
    silero_u85_export: ExportResult,
) -> None:
    summary = inspect_program(silero_u85_export.pte_path)
    assert (summary.user_inputs, summary.user_outputs) == (1, 1)
    (state,) = summary.mutable_buffers
    assert state.shape == STATE_SHAPE
    assert state.initial_value is not None and not state.initial_value.any()
    assert str(state.initial_value.dtype) == silero_u85_export.report["model"]["state_dtype"]
    assert summary.input_quantization is not None and summary.output_quantization is not None


def test_silero_report_has_vela_figures_and_all_ops_on_npu_u85(
    silero_u85_export: ExportResult,
) -> None:
    output_dir = silero_u85_export.pte_path.parent
    report = json.loads((output_dir / "report.json").read_text())
    assert report == silero_u85_export.report
    assert report["executorch_version"] == version("executorch")  # the active venv's
    assert (report["target"], report["system_config"], report["memory_mode"]) == (
        "ethos-u85-256",
        "Ethos_U85_SYS_DRAM_Mid",
        "Shared_Sram",
    )
    assert report["npu_ops"] > 0 and report["cpu_ops"] == 0
    assert report["pte_bytes"] == silero_u85_export.pte_path.stat().st_size
    vela = report["vela"]
    assert 0 < vela["cycles_npu"] <= vela["cycles_total"]
    assert vela["sram_kib"] > 0 and vela["dram_kib"] > 0
    state = report["state_qparams"]
    assert state["zero_point"] == 0 and 0 < state["h_scale"] < state["c_scale"]
    assert tosa_path(output_dir).stat().st_size > 0
    assert list((output_dir / "vela" / "output").glob("out_summary_*.csv"))


def test_vela_per_operator_table_covers_the_delegate_u85(
    silero_u85_export: ExportResult,
) -> None:
    """What benchmark_performance --per-operator prints: one NPU row per operator."""
    output_dir = silero_u85_export.pte_path.parent
    spec = make_compile_spec("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", None)
    table = operator_performance(tosa_path(output_dir), spec.compiler_flags)
    header, _, *rows = table.splitlines()
    assert header.startswith("Original Operator") and "Op Cycles" in header
    assert all(row.split()[2] == "NPU" for row in rows)
    # Four fully connected / convolution layers of the encoder, two of the LSTM, two of
    # the STFT and the head: nine Conv2D rows.
    assert sum(row.split()[0] == "Conv2D" for row in rows) == 9


def test_silero_reference_probabilities_per_validation_clip_u85(
    silero_u85_export: ExportResult,
) -> None:
    output_dir = silero_u85_export.pte_path.parent
    assert silero_u85_export.validation_streams
    for stream in silero_u85_export.validation_streams:
        for kind in ("float", "quantized"):
            probabilities = read_probabilities(reference_path(output_dir, stream.name, kind))
            assert probabilities.shape == (stream.num_frames,)
            assert np.all((probabilities >= 0) & (probabilities <= 1))


def test_calibration_and_validation_must_differ(
    tmp_path: Path, calibration_wavs: list[Path]
) -> None:
    options = ExportOptions(
        calibration_wavs=calibration_wavs,
        validation_wavs=[calibration_wavs[0]],
        output_dir=tmp_path,
    )
    with pytest.raises(AudioError, match="used for both calibration and validation"):
        export_silero_vad(options)
