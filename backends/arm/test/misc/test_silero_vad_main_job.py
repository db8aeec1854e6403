# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The main job end to end on the committed clips, per target and sample rate: export,
device twin, accuracy against float Silero on the clips and under every recording
condition (the level sweep, quiet, clipped, noisy, telephone), report and plots.

Bounds sit near what the default configuration measures (device twin vs float, committed
validation clips, executorch 1.4.1), with the margin said in each case. Where a bound is
looser than the issue's goal for that condition the goal is not met; STUDIES.md
gives the numbers of every lever tried.
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
class ConditionBounds:
    """Device twin vs float on one recording condition, pooled over the clips."""

    flips_pct: float
    confident_flips_pct: float
    min_f1: float  # the lowest clip's speech-segment F1


def _condition(flips: float, confident: float, lowest_f1: float) -> ConditionBounds:
    """Measured figures -> bounds: flips +0.5 points, confident flips +0.25 points (two or
    three frames of 756-944), the lowest clip F1 -0.01."""
    return ConditionBounds(flips + 0.5, confident + 0.25, lowest_f1 - 0.01)


# Measured per condition, device twin (flips %, confident flips %, lowest clip F1).
CONDITIONS_16K_U85 = {
    "level-40": _condition(11.55, 1.69, 0.676),  # float's own dither floor: 3.18 / 0.53
    "level-30": _condition(2.54, 0.00, 0.993),
    "level-20": _condition(0.53, 0.11, 0.994),
    "level-10": _condition(0.64, 0.11, 0.997),
    "level+10": _condition(0.21, 0.00, 1.000),
    "level+20": _condition(0.53, 0.00, 0.992),
    "clipped": _condition(1.38, 0.00, 0.991),
    "noisy10": _condition(0.21, 0.00, 1.000),
    "telephone": _condition(0.42, 0.00, 1.000),
}
# Ethos-U55/U65 (their own TOSA subset; int6 LSTM gate weights in their memory modes).
# Their export moves with the CPU that calibrates it: the weights round the same, but the
# bias correction and the activation ranges come from float32 forward passes whose last bits
# differ between CPU kernels, and at low levels the state carries the difference. Measured on three
# kernel sets: the host these figures come from, an AVX2 host, and that host's baseline
# kernels (ATEN_CPU_CAPABILITY=default, ONEDNN_MAX_CPU_ISA=SSE41); where they differ, the
# entry takes the worst and the comment lists the three.
CONDITIONS_16K_U55 = {
    "level-40": _condition(10.70, 1.59, 0.679),  # 10.28/10.70/10.70, 1.17/1.59/1.48
    "level-30": _condition(2.12, 0.00, 0.952),  # 1.27/2.12/1.59
    "level-20": _condition(0.64, 0.11, 0.992),
    "level-10": _condition(0.74, 0.21, 0.997),
    "level+10": _condition(0.11, 0.00, 1.000),
    "level+20": _condition(0.53, 0.00, 0.979),  # 0.42/0.53/0.42
    "clipped": _condition(1.38, 0.11, 0.990),
    "noisy10": _condition(0.11, 0.00, 0.997),
    "telephone": _condition(0.53, 0.00, 0.998),
}
# The baseline kernels of CONDITIONS_16K_U55 measure within these (-40 dB 2.25 / 0.26,
# clipped 2.12 / 1.32).
CONDITIONS_8K_U85 = {
    "level-40": _condition(2.12, 0.13, 0.941),  # float's own dither floor: 1.85 / 0.00
    "level-30": _condition(0.66, 0.13, 0.990),
    "level-20": _condition(0.13, 0.00, 0.997),
    "level-10": _condition(0.00, 0.00, 1.000),
    "level+10": _condition(0.40, 0.00, 0.992),
    "level+20": _condition(1.85, 1.32, 0.973),
    "clipped": _condition(1.98, 1.32, 0.973),
    "noisy10": _condition(0.00, 0.00, 1.000),
    "telephone": _condition(0.26, 0.00, 0.997),
}
# The same three kernel sets as CONDITIONS_16K_U55 (a fourth CI host measured 3.44 / 0.40
# at -40 dB).
CONDITIONS_8K_U55 = {
    "level-40": _condition(3.70, 0.53, 0.941),  # 3.04/3.70/3.31, 0.13/0.53/0.53
    "level-30": _condition(0.79, 0.13, 0.987),  # 0.66/0.66/0.79
    "level-20": _condition(0.26, 0.00, 0.989),  # F1 0.995/0.993/0.989
    "level-10": _condition(0.26, 0.00, 1.000),
    "level+10": _condition(0.53, 0.00, 0.995),  # 0.40/0.53/0.40
    "level+20": _condition(1.72, 1.32, 0.973),
    "clipped": _condition(1.98, 1.32, 0.973),
    "noisy10": _condition(0.00, 0.00, 1.000),
    "telephone": _condition(0.66, 0.00, 0.992),  # 0.40/0.66/0.40, F1 0.996/0.992/0.992
}


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
    # Per recording condition; empty: the case runs with --conditions none.
    conditions: dict[str, ConditionBounds]


# Measured on the clips as recorded (mean abs / max abs / flips of 944 or 756 frames / F1;
# vs quantized max / mean), then the bound: mean x1.12 (for the 16 kHz Ethos-U85 default
# that is the goal, MAE <= 0.0045: no worse than before the level work), max
# +50 %, flips +3 frames (at most 6 of 944: the goal's 0.64 %), F1 -0.003, vs quantized
# x1.5.
CASES = {
    # 0.00379 / 0.207 / 1 / 1.000; 0.0737 / 0.0012
    "u85_16k": (
        ["--target", "ethos-u85-256"],
        Bounds(0.0043, 0.31, 4, 0.997, 0.11, 0.0018, CONDITIONS_16K_U85),
    ),
    # 0.00398 / 0.210 / 3 / 0.999; 0.0379 / 0.0013 (the exchange-matrix reversal); on the
    # other two kernel sets of CONDITIONS_16K_U55 0.00436 and 0.00409, vs quantized max
    # 0.0410 and 0.0374: the bounds scale the worst.
    "u55_16k": (
        ["--target", "ethos-u55-128"],
        Bounds(0.0049, 0.32, 6, 0.996, 0.062, 0.0020, CONDITIONS_16K_U55),
    ),
    # The same TOSA as Ethos-U55 (the "+u55" subset), compiled for U65 by Vela: measured
    # identical to U55 under every condition, so this case leaves them out.
    "u65_16k": (
        ["--target", "ethos-u65-256", "--conditions", "none"],
        Bounds(0.0049, 0.32, 6, 0.996, 0.062, 0.0020, {}),
    ),
    # 8 kHz model, telephone-band clips: 0.00194 / 0.058 / 2 / 0.999; 0.110 / 0.0018 (on the
    # baseline kernels of CONDITIONS_16K_U55 0.00207 / 0.064 / 2 / 0.999; 0.0995 / 0.0016:
    # the mean bound scales that)
    "u85_8k": (
        ["--target", "ethos-u85-256", "--sample-rate", "8000"],
        Bounds(0.0023, 0.087, 5, 0.996, 0.17, 0.0027, CONDITIONS_8K_U85),
    ),
    # 0.00275 / 0.066 / 1 / 0.999; 0.131 / 0.0020
    "u55_8k": (
        ["--target", "ethos-u55-128", "--sample-rate", "8000"],
        Bounds(0.0031, 0.099, 4, 0.996, 0.20, 0.0030, CONDITIONS_8K_U55),
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

    conditions = report.get("conditions", {})
    assert sorted(conditions) == sorted(bounds.conditions)
    for name, expected in bounds.conditions.items():
        condition = conditions[name]
        assert sorted(condition["clips"]) == sorted(names), name
        vs_float = condition["overall"]["vs_float"]
        assert condition["overall"]["frames"] == total, name
        assert vs_float["flips_pct"] <= expected.flips_pct, (name, vs_float)
        assert vs_float["confident_flips_pct"] <= expected.confident_flips_pct, (name, vs_float)
        assert condition["overall"]["segments"]["min_f1"] >= expected.min_f1, name
        assert "float_dither" in condition, name

    markdown = (output_dir / "report.md").read_text()
    for text in ("## Vela", "## Accuracy", "| overall ", "![", target, f"{rate // 1000} kHz"):
        assert text in markdown
    if bounds.conditions:
        assert "| clipped " in markdown and "| clipped " in stdout
    assert "| overall " in stdout and "device twin: done" in stdout
    assert "WARNING: Different TOSA spec" not in stdout  # the reference model's noise is kept out
