# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The main job end to end on the committed clips, per target and sample rate: export,
device twin, accuracy against float Silero, report and plots.

Bounds sit near what the default configuration measures (device twin vs float, committed
validation clips, executorch 1.4.1), with the margin said in each case; they are well
inside the issues' acceptance bounds (MAE <= 0.01, flips <= 1 %, F1 >= 0.98).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from examples.arm.silero_vad import run_silero_vad
from examples.arm.silero_vad.model_export.export_silero_vad import read_probabilities
from examples.arm.silero_vad.model_export.frame_geometry import frame_geometry
from examples.arm.silero_vad.model_export.program_inspection import TensorSpec, inspect_program
from examples.arm.silero_vad.run_silero_vad import default_clips


@dataclass(frozen=True)
class Bounds:
    """Device twin vs float model over all validation clips; and vs the quantized program."""

    mean_abs: float
    max_abs: float
    flips: int
    f1: float
    # The twin against the PyTorch quantized program: 16-bit sigmoid/tanh tables
    # interpolate on the NPU and the state carries the difference.
    vs_quantized_max_abs: float
    vs_quantized_mean_abs: float


# Measured (mean abs / max abs / flips of 944 or 756 frames / F1; vs quantized max / mean),
# then the bound: mean x1.5, max +50 %, flips +3 frames, F1 -0.003, vs quantized x1.5.
CASES = {
    # 0.00447 / 0.145 / 6 / 0.999; 0.151 / 0.0022
    "u85_16k": (["--target", "ethos-u85-256"], Bounds(0.0068, 0.22, 9, 0.996, 0.23, 0.0033)),
    # 0.00451 / 0.123 / 6 / 0.999; 0.154 / 0.0019 (the exchange-matrix reversal)
    "u55_16k": (["--target", "ethos-u55-128"], Bounds(0.0068, 0.19, 9, 0.996, 0.23, 0.0029)),
    # The same TOSA as Ethos-U55 (the "+u55" subset), compiled for U65 by Vela.
    "u65_16k": (["--target", "ethos-u65-256"], Bounds(0.0068, 0.19, 9, 0.996, 0.23, 0.0029)),
    # 8 kHz model, telephone-band clips: 0.00439 / 0.141 / 2 / 0.999; 0.0363 / 0.0012
    "u85_8k": (
        ["--target", "ethos-u85-256", "--sample-rate", "8000"],
        Bounds(0.0066, 0.21, 5, 0.996, 0.055, 0.0018),
    ),
}


def _option(arguments: list[str], name: str, default: str) -> str:
    return arguments[arguments.index(name) + 1] if name in arguments else default


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_main_job_meets_its_accuracy_on_the_device_twin(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments, bounds = CASES[case]
    output_dir = tmp_path / "out"
    assert run_silero_vad.main([*arguments, "--output-dir", str(output_dir)]) == 0
    stdout = capsys.readouterr().out
    target = _option(arguments, "--target", "ethos-u85-256")
    rate = int(_option(arguments, "--sample-rate", "16000"))
    geometry = frame_geometry(rate)

    report = json.loads((output_dir / "report.json").read_text())
    assert (report["target"], report["sample_rate"]) == (target, rate)
    # One delegate, every operator on the NPU, the CPU only at the program's boundary.
    assert report["delegates"] == 1 and report["cpu_ops"] == 0
    assert report["portable_ops"] == {
        "aten::copy_": 1,
        "quantized_decomposed::dequantize_per_tensor.out": 1,
    }
    summary = inspect_program(output_dir / report["pte"])
    assert summary.inputs == [TensorSpec(np.int16, (1, geometry.frame_samples))]

    accuracy = report["accuracy"]
    assert (accuracy["actual"], accuracy["threshold"], accuracy["sample_rate"]) == (
        "npu",
        0.5,
        rate,
    )
    names = [wav.stem for wav in default_clips("validation", rate)]
    assert sorted(accuracy["clips"]) == sorted(names)
    total = 0
    for name in names:
        clip = accuracy["clips"][name]
        frames = read_probabilities(output_dir / "reference" / f"{name}.float.bin").size
        assert clip["frames"] == frames
        assert read_probabilities(output_dir / "twin" / f"{name}.bin").size == frames
        total += frames
        segments = clip["segments"]
        assert segments["float"] and segments["npu"], f"{name}: speech clip without speech"
        for start, end in segments["float"] + segments["npu"]:
            assert 0 <= start < end <= frames * geometry.hop_samples
        png = output_dir / "plots" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        saturation = report["state_saturation"][name]
        assert saturation == {"h_frames": 0, "c_frames": 0}, f"{name}: {saturation}"

    overall = accuracy["overall"]
    assert overall["frames"] == total
    vs_float = overall["vs_float"]
    assert vs_float["mean_abs"] <= bounds.mean_abs
    assert vs_float["max_abs"] <= bounds.max_abs
    assert vs_float["flips"] <= bounds.flips
    assert overall["segments"]["f1"] >= bounds.f1
    assert overall["vs_quantized"]["max_abs"] <= bounds.vs_quantized_max_abs
    assert overall["vs_quantized"]["mean_abs"] <= bounds.vs_quantized_mean_abs

    markdown = (output_dir / "report.md").read_text()
    for text in ("## Vela", "## Accuracy", "| overall ", "![", target, f"{rate // 1000} kHz"):
        assert text in markdown
    assert "| overall " in stdout and "device twin: done" in stdout
    assert "WARNING: Different TOSA spec" not in stdout  # the reference model's noise is kept out
