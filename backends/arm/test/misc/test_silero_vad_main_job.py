# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The main job end to end on the committed clips: export, device twin, accuracy, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backends.arm.test.misc.test_silero_vad_device_twin import (
    INT16_MAX_ABS,
    INT16_MAX_FLIPS_FRACTION,
    INT16_MEAN_ABS,
)
from examples.arm.silero_vad import run_silero_vad
from examples.arm.silero_vad.model_export.export_silero_vad import read_probabilities


@pytest.mark.slow
def test_main_job_reports_twin_accuracy_u85(
    tmp_path: Path, validation_wavs: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    output_dir = tmp_path / "out"
    assert run_silero_vad.main(["--output-dir", str(output_dir)]) == 0
    stdout = capsys.readouterr().out

    report = json.loads((output_dir / "report.json").read_text())
    accuracy = report["accuracy"]
    assert (accuracy["actual"], accuracy["threshold"]) == ("npu", 0.5)
    names = [wav.stem for wav in validation_wavs]
    assert sorted(accuracy["clips"]) == sorted(names)

    total = 0
    for name in names:
        clip = accuracy["clips"][name]
        frames = read_probabilities(output_dir / "reference" / f"{name}.float.bin").size
        assert clip["frames"] == frames
        assert read_probabilities(output_dir / "twin" / f"{name}.bin").size == frames
        total += frames
        # int16 tables interpolate on the NPU: see test_silero_vad_device_twin.py.
        assert clip["vs_quantized"]["max_abs"] <= INT16_MAX_ABS
        assert clip["vs_quantized"]["flips"] <= INT16_MAX_FLIPS_FRACTION * frames
        vs_float = clip["vs_float"]
        assert 0.0 <= vs_float["mean_abs"] <= vs_float["max_abs"] <= 1.0
        assert vs_float["flips_pct"] == pytest.approx(100.0 * vs_float["flips"] / frames)
        segments = clip["segments"]
        assert segments["float"] and segments["npu"], f"{name}: speech clip without speech"
        assert 0.0 < segments["f1"] <= 1.0 and segments["boundary_ms"] >= 0.0
        for start, end in segments["float"] + segments["npu"]:
            assert 0 <= start < end <= frames * 512
        png = output_dir / "plots" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    overall = accuracy["overall"]
    assert overall["frames"] == total
    assert overall["vs_quantized"]["mean_abs"] <= INT16_MEAN_ABS
    # Regression bound of the accuracy goal on the committed clips (NPU twin vs float):
    # measured mean abs 0.0047 and 0.53 % decision flips; a small margin above.
    assert overall["vs_float"]["mean_abs"] <= 0.01
    assert overall["vs_float"]["flips_pct"] <= 1.0
    assert overall["segments"]["f1"] >= 0.98
    assert overall["vs_float"]["flips"] == sum(
        accuracy["clips"][name]["vs_float"]["flips"] for name in names
    )
    assert 0.0 < overall["segments"]["f1"] <= 1.0

    markdown = (output_dir / "report.md").read_text()
    for text in ("## Vela", "## Accuracy", "| overall ", "![", "ethos-u85-256"):
        assert text in markdown
    assert "| overall " in stdout and "device twin: done" in stdout
    assert "WARNING: Different TOSA spec" not in stdout  # the reference model's noise is kept out
