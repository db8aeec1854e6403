# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""pytest_stateful_guard: the guard really runs, is counted, and a run without it fails.

The plugin acts on whole pytest sessions, so each case runs one in a subprocess, on a
small test file written here: one test lowers a Linear to TOSA (the release's
``ArmPassManager`` builds the pipeline, so the guard has passes to wrap), one touches no
Arm code, one is excluded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backends.arm.test.pytest_stateful_guard import Exclusion, read_exclusions

REPO_ROOT = Path(__file__).resolve().parents[4]

TESTS = """
import torch
from executorch.backends.arm.tosa.compile_spec import TosaCompileSpec
from executorch.backends.arm.tosa.partitioner import TOSAPartitioner
from executorch.exir import to_edge_transform_and_lower


def test_lowers_a_linear_tosa():
    exported = torch.export.export(torch.nn.Linear(4, 2).eval(), (torch.ones(1, 4),))
    spec = TosaCompileSpec("TOSA-1.0+FP")
    to_edge_transform_and_lower(exported, partitioner=[TOSAPartitioner(spec)])


def test_touches_no_arm_code():
    assert torch.ones(2).sum() == 2


def test_excluded_vgf():
    raise AssertionError("an excluded test must not run")
"""


def _session(tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess, dict]:
    (tmp_path / "test_toy.py").write_text(TESTS)
    exclusions = tmp_path / "exclusions.txt"
    exclusions.write_text("# pattern reason\ntest_toy.py::*_vgf needs a tool that is absent\n")
    report = tmp_path / "outcomes.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        os.devnull,
        "--rootdir",
        str(tmp_path),
        "-p",
        "no:cacheprovider",
        "-p",
        "backends.arm.test.pytest_stateful_guard",
        "--exclusions",
        str(exclusions),
        "--outcomes-json",
        str(report),
        *options,
    ]
    env = os.environ | {"PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    return done, json.loads(report.read_text())


def test_guard_wraps_passes_of_a_release_pipeline_tosa(tmp_path) -> None:
    done, report = _session(tmp_path, "--stateful-guard", str(tmp_path / "test_toy.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    tests = report["tests"]
    assert {test_id: test["outcome"] for test_id, test in tests.items()} == {
        "test_toy.py::test_lowers_a_linear_tosa": "passed",
        "test_toy.py::test_touches_no_arm_code": "passed",
    }
    assert tests["test_toy.py::test_lowers_a_linear_tosa"]["wrapped_passes"] > 10
    assert tests["test_toy.py::test_touches_no_arm_code"]["wrapped_passes"] == 0
    assert report["wrapped_passes"] > 10 and report["stateful_guard"] is True
    assert report["excluded"] == {"test_toy.py::test_excluded_vgf": "needs a tool that is absent"}
    assert "stateful guard: on, patches ArmPassManager in" in done.stdout
    assert "1 deselected" in done.stdout


def test_a_guarded_run_that_wraps_nothing_fails_tosa(tmp_path) -> None:
    target = str(tmp_path / "test_toy.py") + "::test_touches_no_arm_code"
    done, report = _session(tmp_path, "--stateful-guard", target)
    assert done.returncode == 1
    assert report["tests"] == {
        "test_toy.py::test_touches_no_arm_code": {
            "outcome": "passed",
            "wrapped_passes": 0,
            "seconds": report["tests"]["test_toy.py::test_touches_no_arm_code"]["seconds"],
        }
    }
    assert "the guard wrapped no pass" in report["problem"]
    assert "ERROR the guard wrapped no pass" in done.stdout


def test_exclusions_need_a_reason_and_match_ids_tosa(tmp_path) -> None:
    path = tmp_path / "exclusions.txt"
    path.write_text("# comment\n\npasses/test_a.py::test_*_vgf_INT[x]   needs a converter \n")
    (exclusion,) = read_exclusions(path)
    assert exclusion == Exclusion("passes/test_a.py::test_*_vgf_INT[x]", "needs a converter")
    assert exclusion.matches("passes/test_a.py::test_io_vgf_INT[x]")
    assert not exclusion.matches("passes/test_a.py::test_io_vgf_INT[y]")  # [ is literal
    assert not exclusion.matches("passes/test_a.py::test_io_vgf_INT[x]_more")
    path.write_text("passes/test_a.py::test_io_vgf_INT\n")
    with pytest.raises(pytest.UsageError, match="has no reason"):
        read_exclusions(path)
