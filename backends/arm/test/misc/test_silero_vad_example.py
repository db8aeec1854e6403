# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The Silero VAD export: what the lowered Ethos-U85 program contains."""

from __future__ import annotations

import json
import shutil
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
from examples.arm.silero_vad.model_export.program_inspection import TensorSpec, inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE
from examples.arm.silero_vad.model_export.vela_report import operator_performance

# What the runtime's contract says the CPU runs for an int16-PCM program: the
# probability's dequantize and the state write, nothing else (issue text, not derived
# from the implementation).
BOUNDARY_CPU_OPERATORS = {
    "aten::copy_": 1,
    "quantized_decomposed::dequantize_per_tensor.out": 1,
}


def test_silero_program_leaves_only_boundary_ops_on_cpu_u85(
    silero_u85_export: ExportResult,
) -> None:
    summary = inspect_program(silero_u85_export.pte_path)
    assert summary.operator_calls == BOUNDARY_CPU_OPERATORS
    assert summary.delegates == 1


def test_silero_program_takes_pcm_frames_and_owns_a_zero_state_u85(
    silero_u85_export: ExportResult,
) -> None:
    summary = inspect_program(silero_u85_export.pte_path)
    assert summary.inputs == [TensorSpec(np.int16, (1, 576))]
    assert summary.outputs == [TensorSpec(np.float32, (1, 1))]
    assert summary.input_quantization is None  # no CPU quantize: PCM goes to the NPU
    assert summary.output_quantization is not None
    (state,) = summary.mutable_buffers
    assert state.shape == STATE_SHAPE
    assert state.initial_value is not None and not state.initial_value.any()
    assert str(state.initial_value.dtype) == silero_u85_export.report["model"]["state_dtype"]
    assert summary.metadata == {"sample_rate": 16000, "hop_samples": 512, "context_samples": 64}


def test_silero_report_has_vela_figures_and_all_ops_on_npu_u85(
    silero_u85_export: ExportResult,
) -> None:
    output_dir = silero_u85_export.pte_path.parent
    report = json.loads((output_dir / "report.json").read_text())
    assert report == silero_u85_export.report
    # executorch 1.4.1 and 1.5.1 compile Ethos-U85 for DRAM_Mid, Sram_Only by default.
    assert (report["target"], report["system_config"], report["memory_mode"]) == (
        "ethos-u85-256",
        "Ethos_U85_SYS_DRAM_Mid",
        "Sram_Only",
    )
    assert report["npu_ops"] > 0 and report["cpu_ops"] == 0
    vela = report["vela"]
    assert 0 < vela["cycles_npu"] <= vela["cycles_total"]
    # Sram_Only: the weights live in SRAM, nothing is read from DRAM.
    assert vela["sram_kib"] > 0 and vela["dram_kib"] == 0 and vela["cycles_dram_access"] == 0
    assert tosa_path(output_dir).stat().st_size > 0
    assert list((output_dir / "vela" / "output").glob("out_summary_*.csv"))


def test_vela_per_operator_table_covers_the_delegate_u85(
    silero_u85_export: ExportResult,
) -> None:
    """What benchmark_performance --per-operator prints: one NPU row per operator."""
    output_dir = silero_u85_export.pte_path.parent
    spec = make_compile_spec("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Sram_Only", None)
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


def test_validation_clip_names_must_differ(
    tmp_path: Path, calibration_wavs: list[Path], validation_wavs: list[Path]
) -> None:
    renamed = tmp_path / "other" / validation_wavs[0].name
    renamed.parent.mkdir()
    shutil.copy(validation_wavs[1], renamed)  # other audio, same file name
    options = ExportOptions(calibration_wavs, [validation_wavs[0], renamed], tmp_path / "out")
    with pytest.raises(AudioError, match=r"validation clips share a name \(val_"):
        export_silero_vad(options)


def test_calibration_audio_under_another_name_is_refused(
    tmp_path: Path, calibration_wavs: list[Path]
) -> None:
    """A copy of a calibration clip is not validation audio, whatever it is called."""
    copy = tmp_path / "fresh_clip.wav"
    shutil.copy(calibration_wavs[1], copy)
    options = ExportOptions(calibration_wavs, [copy], tmp_path / "out")
    with pytest.raises(
        AudioError, match=rf"fresh_clip\.wav: the same audio as .*{calibration_wavs[1].name}"
    ):
        export_silero_vad(options)
