# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""compare_releases: what counts as the same model on two executorch releases."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from backends.arm.test.compare_releases import (
    ReleaseOutput,
    check_parity,
    main,
    side_by_side,
)

STEP = 1.0 / 256
BOUNDARY_OPS = {
    "aten::copy_": 1,
    "quantized_decomposed::dequantize_per_tensor.out": 1,
}
REPORT = {
    "executorch_version": "1.4.1",
    "portable_ops": BOUNDARY_OPS,
    "delegates": 1,
    "cpu_ops": 0,
    "pte_bytes": 360_000,
    "export_seconds": 40.0,
    "vela": {
        "cycles_npu": 250_000,
        "cycles_total": 280_000,
        "npu_ops": 96,
        "cpu_ops": 0,
        "nn_macs": 550_000,
        "sram_kib": 100.0,
        "dram_kib": 342.0,
    },
    "accuracy": {
        "threshold": 0.5,
        "overall": {
            "frames": 4,
            "vs_float": {"mean_abs": 0.1, "max_abs": 0.5, "flips": 1, "flips_pct": 25.0},
            "segments": {"f1": 0.9},
        },
    },
}
TWIN = {"clip": np.array([0.1, 0.45, 0.5, 0.9], dtype=np.float32)}


def _output(release: str, twin: dict | None = None, **changes) -> ReleaseOutput:
    report = copy.deepcopy(REPORT) | {"executorch_version": release} | changes
    return ReleaseOutput(Path(release), report, twin or TWIN, STEP)


def test_same_model_on_two_releases_is_parity() -> None:
    shifted = {"clip": TWIN["clip"] + np.float32(STEP)}  # one output step apart
    parity = check_parity(_output("1.4.1"), _output("1.5.1", shifted))
    assert parity.failures == []
    # The measured difference (one step on every frame), and the limit it was held to.
    assert parity.max_abs == pytest.approx(STEP, abs=1e-9)
    assert parity.limit == STEP
    table = side_by_side(_output("1.4.1"), _output("1.5.1", shifted), parity)
    assert table.splitlines()[0] == "| executorch | 1.4.1 | 1.5.1 |"
    assert "| NPU cycles per frame (Vela) | 250,000 | 250,000 |" in table


@pytest.mark.parametrize(
    "candidate, failure",
    [
        (_output("1.5.1", {"clip": TWIN["clip"] + np.float32(3 * STEP)}), "twins differ"),
        (_output("1.5.1", {"clip": TWIN["clip"] - np.float32(STEP / 2)}), "decision"),
        (_output("1.5.1", portable_ops={**BOUNDARY_OPS, "aten::add.out": 1}), "portable_ops"),
        (_output("1.5.1", cpu_ops=2), "Vela's CPU list"),
        (_output("1.5.1", {"other": TWIN["clip"]}), "clips differ"),
    ],
    ids=["beyond_one_step", "decision_flip", "extra_cpu_op", "vela_cpu_op", "other_clips"],
)
def test_different_models_are_reported(candidate: ReleaseOutput, failure: str) -> None:
    parity = check_parity(_output("1.4.1"), candidate)
    assert any(failure in f for f in parity.failures), parity.failures


def test_an_incomplete_directory_is_a_usage_error(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path), str(tmp_path)]) == 2
    assert "no report.json" in capsys.readouterr().err
