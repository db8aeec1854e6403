# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""One program from any build machine: the calibration statistics come out the same on any
CPU kernels (``reproducible_statistics``), and the program names no folder of the machine.

The slow tests export in subprocesses, because the kernels (``ATEN_CPU_CAPABILITY``,
``ONEDNN_MAX_CPU_ISA``) and the thread count are chosen when torch starts.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torchao.quantization.pt2e import HistogramObserver

from examples.arm.silero_vad.model_export import reproducible_statistics
from examples.arm.silero_vad.model_export.reproducible_statistics import (
    BIAS_BITS,
    BIN_MARGIN,
    CODE_MARGIN,
    MARGIN,
    RANGE_BITS,
    NotReproducibleError,
    ReproducibleHistogramObserver,
    check_code_margin,
    histogram_search_range,
    snap_nearest,
    snap_outward,
)

REPO_ROOT = Path(__file__).resolve().parents[4]
CALIBRATION_CLIP = REPO_ROOT / "examples/arm/silero_vad/data/calibration/cal_es_male_brown5.wav"
# The CPU kernels a build machine without AVX runs, and a single thread.
BASELINE_KERNELS = {
    "ATEN_CPU_CAPABILITY": "default",
    "ONEDNN_MAX_CPU_ISA": "SSE41",
    "OMP_NUM_THREADS": "1",
}


def _on_grid(value: float, bits: int) -> bool:
    mantissa, _ = math.frexp(value)
    return (mantissa * 2**bits).is_integer()


@pytest.mark.parametrize(
    ("low", "high"),
    [(-0.0549774, 0.0683288), (0.0, 3.1181640), (2.5e-06, 0.33), (-1.0, 1.0), (0.0, 0.0)],
)
def test_ranges_snap_outward_onto_the_grid(low: float, high: float) -> None:
    """Both ends land on the 16-bit grid, outside the range, at most a step wider."""
    snapped_low, snapped_high = snap_outward(low, high, "range")
    assert _on_grid(snapped_low, RANGE_BITS) and _on_grid(snapped_high, RANGE_BITS)
    assert snapped_low <= low and snapped_high >= high
    for end, snapped in ((low, snapped_low), (high, snapped_high)):
        assert abs(snapped - end) <= abs(end) * 2.0 ** (1 - RANGE_BITS)


def test_a_bounded_end_snaps_to_its_bound() -> None:
    """A sigmoid's maximum is 1.0 in float32 and 1 - 5e-15 in float64, and another CPU may
    give either (never more): the same range comes out. So for tanh's -1."""
    for high in (1.0, 1.0 - 5e-15, 1.0 - 2e-11):
        assert snap_outward(0.0, high, "sigmoid") == (0.0, 1.0)
    for low in (-1.0, -1.0 + 5e-15):
        assert snap_outward(low, 0.5, "tanh") == (-1.0, 0.5)


@pytest.mark.parametrize(("low", "high"), [(0.0, 1.0 + 5e-15), (-1.0 - 5e-15, 0.5)])
def test_an_end_just_outside_a_grid_point_is_refused(low: float, high: float) -> None:
    """Noise could have put it there from inside, where it rounds to the grid point."""
    with pytest.raises(NotReproducibleError, match="the state's range: value"):
        snap_outward(low, high, "the state's range")
    # A hundred margins out it is a value of its own, and snaps to the next grid point.
    step = 2.0 ** (1 - RANGE_BITS)
    assert snap_outward(0.0, 1.0 + 100 * MARGIN, "range")[1] == 1.0 + step


def test_biases_snap_to_the_nearest_16_bit_value() -> None:
    values = torch.tensor([0.3333333333, -12.712345678, 1e-7, 0.0], dtype=torch.float64)
    snapped = snap_nearest(values, "bias")
    assert all(_on_grid(float(v), BIAS_BITS) for v in snapped)
    assert torch.all((snapped - values).abs() <= values.abs() * 2.0**-BIAS_BITS)
    # Exactly representable in float32: the model's parameter stores the snapped value.
    assert torch.equal(snapped.to(torch.float32).to(torch.float64), snapped)


def test_a_bias_near_a_rounding_midpoint_is_refused() -> None:
    step = 2.0 ** (1 - BIAS_BITS)
    midpoint = 1.0 + 7.5 * step
    with pytest.raises(NotReproducibleError, match="conv bias"):
        snap_nearest(torch.tensor([0.5, midpoint * (1 + MARGIN / 4)]), "conv bias")


def test_weight_codes_near_a_rounding_boundary_are_refused() -> None:
    check_code_margin(torch.tensor([2.5 + 1e-6, -3.5 - 1e-6, 0.0, 126.9]), 127, "ok")
    with pytest.raises(NotReproducibleError, match=r"conv, input column 3: weight \(1,\)"):
        check_code_margin(torch.tensor([0.2, -2.5 + CODE_MARGIN / 2]), 127, "conv, input column 3")
    # Beyond the top code both sides clamp to it: nothing to refuse.
    check_code_margin(torch.tensor([127.5, -200.5]), 127, "clamped")


def _gate_input_observer() -> HistogramObserver:
    """The observer the release gives an int8 activation (the LSTM gate products' inputs)."""
    return HistogramObserver(dtype=torch.int8, qscheme=torch.per_tensor_symmetric)


def _relu_like(count: int = 50_000) -> torch.Tensor:
    """Values like the LSTM's input (a ReLU output): zeros and a long tail."""
    generator = torch.Generator().manual_seed(7)
    values = torch.empty(count, dtype=torch.float64).exponential_(generator=generator)
    return values * (torch.rand(count, generator=generator, dtype=torch.float64) < 0.6)


def test_the_histogram_search_is_the_same_for_values_within_float_noise() -> None:
    """Values as another CPU computes them (within 1e-14 relative, in another frame order)
    give the same range: on the grid, the tail clipped."""
    values = _relu_like()
    searched = histogram_search_range(_gate_input_observer(), values, "relu")
    noise = 1 + 1e-14 * torch.randn(values.numel(), dtype=torch.float64)
    other_cpu = (values * noise).flip(0)
    assert histogram_search_range(_gate_input_observer(), other_cpu, "relu") == searched
    assert all(_on_grid(end, RANGE_BITS) for end in searched)
    assert searched[0] == 0.0 and searched[1] < values.max().item()
    # The release's own observer, fed every value at once in float32, searches its way to
    # the same range within a bin of its histogram.
    release = _gate_input_observer()
    release(values.to(torch.float32))
    release_high = release._non_linear_param_search()[1].item()
    assert abs(release_high - searched[1]) <= values.max().item() / release.bins


def test_the_reproducible_observer_quantizes_with_the_searched_range() -> None:
    """Fed frame by frame, it keeps every value and its qparams are those of the searched
    range of all of them; never fed, the release's default qparams."""
    values = _relu_like()
    observer = ReproducibleHistogramObserver(dtype=torch.int8, qscheme=torch.per_tensor_affine)
    for frame in values.split(128):
        assert observer(frame) is frame
    low, high = histogram_search_range(_gate_input_observer(), values, "relu")
    assert observer.searched_range() == (low, high)
    expected = observer._calculate_qparams(torch.tensor(low), torch.tensor(high))
    assert all(map(torch.equal, observer.calculate_qparams(), expected))
    with pytest.warns(UserWarning, match="must run observer"):
        scale, _ = ReproducibleHistogramObserver(dtype=torch.int8).calculate_qparams()
    assert scale.item() == 1.0


def test_a_histogram_value_on_a_bin_edge_is_refused() -> None:
    """Another CPU could put it in the next bin; exact zeros (a ReLU's) sit still."""
    observer = _gate_input_observer()
    values = torch.cat([_relu_like(), torch.zeros(100, dtype=torch.float64)])
    low, high = snap_outward(0.0, values.max().item(), "relu")
    edge = low + (high - low) * 700 / observer.bins
    near_edge = torch.cat([values, torch.tensor([edge * (1 + BIN_MARGIN / 4000)])])
    with pytest.raises(NotReproducibleError, match="relu: value .* bin edge"):
        histogram_search_range(observer, near_edge, "relu")


def test_a_histogram_search_within_float_rounding_of_another_range_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two candidate ranges whose errors tie within float32 rounding: the float32 search
    ending a bin away from the float64 one shows it, and the export stops."""
    monkeypatch.setattr(
        reproducible_statistics,
        "_searched_range",
        lambda observer, histogram, low, high, dtype: (0.0, 5.0 if dtype == torch.float64 else 4.9),
    )
    with pytest.raises(NotReproducibleError, match="relu: the histogram search ends on"):
        histogram_search_range(_gate_input_observer(), _relu_like(), "relu")


VALIDATION_CLIPS = {
    16000: REPO_ROOT / "examples/arm/silero_vad/data/validation/val_fr_male_pink8.wav",
    8000: REPO_ROOT / "examples/arm/silero_vad/data/validation_8k/val8k_es_female_brown9.wav",
}


def _export(
    output_dir: Path,
    environment: dict[str, str],
    *arguments: str,
    sample_rate: int = 16000,
    lever_off: bool = False,
) -> bytes:
    """The main job's export (no recording conditions, one validation clip) in a new process;
    ``lever_off``: the statistics in float32 and unrounded, as before."""
    main = [
        *("--sample-rate", str(sample_rate), "--conditions", "none"),
        *("--validation-wav", str(VALIDATION_CLIPS[sample_rate])),
        "--output-dir",
        str(output_dir),
        *arguments,
    ]
    lever = (
        "from examples.arm.silero_vad.model_export import reproducible_statistics as r; "
        "r.REPRODUCIBLE = False; "
        if lever_off
        else ""
    )
    code = f"{lever}from examples.arm.silero_vad.run_silero_vad import main; main({main!r})"
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env={**os.environ, **environment},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads((output_dir / "report.json").read_text())
    program = (output_dir / report["pte"]).read_bytes()
    assert report["pte_sha256"] == hashlib.sha256(program).hexdigest()
    assert report["pte_sha256"] in completed.stdout  # the console names it too
    return program


@pytest.mark.slow
def test_export_is_byte_identical_across_cpu_kernels_and_folders_u55(tmp_path: Path) -> None:
    """Ethos-U55-128 at 8 kHz (the export that moved with the CPU longest: its int8 LSTM
    gate inputs' histograms): the native kernels into one folder, the baseline kernels on
    one thread into another, the same bytes; no folder of the build machine in the
    program. (lab/benchmark_reproducibility.py checks every default program.)"""
    arguments = ("--target", "ethos-u55-128")
    native = _export(tmp_path / "a", {}, *arguments, sample_rate=8000)
    baseline = _export(tmp_path / "b" / "elsewhere", BASELINE_KERNELS, *arguments, sample_rate=8000)
    assert native == baseline  # exported at two times, too
    for folder in (tmp_path, REPO_ROOT, Path.home()):
        assert str(folder).encode() not in native


@pytest.mark.slow
def test_float32_statistics_move_with_the_cpu_kernels(tmp_path: Path) -> None:
    """The lever switched off (statistics in float32, unrounded): the two kernel sets above
    give two programs, so the test above would fail without it. (The host program, from
    one calibration clip: the same statistics, a quarter of the time.)"""
    if torch.backends.cpu.get_cpu_capability() == "DEFAULT":
        pytest.skip("this CPU's native kernels are the baseline ones: nothing differs")
    arguments = ("--target", "cpu", "--calibration-wav", str(CALIBRATION_CLIP))
    native = _export(tmp_path / "a", {}, *arguments, lever_off=True)
    baseline = _export(tmp_path / "b", BASELINE_KERNELS, *arguments, lever_off=True)
    assert native != baseline
