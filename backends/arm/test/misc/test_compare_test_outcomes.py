# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""compare_test_outcomes: what makes the guard not transparent on the release's tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from backends.arm.test.compare_test_outcomes import OutcomeReport, compare, main

TESTS = {
    "passes/test_a.py::test_a_tosa_INT": "passed",
    "passes/test_b.py::test_b_u85_INT": "xfailed",
    "passes/test_c.py::test_c_vgf": "skipped",
}
EXCLUDED = {"passes/test_d.py::test_d_vgf_INT": "needs the Model Converter"}


def _write(path: Path, guard: bool, outcomes: dict[str, str], **changes: Any) -> Path:
    wrapped = 7 if guard else 0
    report = {
        "stateful_guard": guard,
        "wrapped_passes": wrapped,
        "problem": None,
        "tests": {
            test_id: {"outcome": outcome, "wrapped_passes": wrapped, "seconds": 0.1}
            for test_id, outcome in outcomes.items()
        },
        "excluded": EXCLUDED,
    } | changes
    path.write_text(json.dumps(report))
    return path


def _run(tmp_path: Path, plain: dict[str, str], guarded: dict[str, str], **changes: Any):
    plain_path = _write(tmp_path / "plain.json", False, plain)
    guarded_path = _write(tmp_path / "guarded.json", True, guarded, **changes)
    return main([str(plain_path), str(guarded_path)])


def test_same_outcomes_are_transparent_tosa(tmp_path, capsys) -> None:
    assert _run(tmp_path, TESTS, TESTS) == 0
    out = capsys.readouterr().out
    assert "transparent: 3 tests" in out
    assert "excluded 1: needs the Model Converter" in out
    table = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:7]}
    assert table["passed"] == ["1", "1"] and table["xfailed"] == ["1", "1"]


@pytest.mark.parametrize(
    "test_id, flipped",
    [
        ("passes/test_a.py::test_a_tosa_INT", "failed"),  # passes plain, fails guarded
        ("passes/test_b.py::test_b_u85_INT", "failed"),  # the FVP xfail raised otherwise
        ("passes/test_c.py::test_c_vgf", "passed"),
    ],
)
def test_a_flipped_outcome_fails_tosa(tmp_path, capsys, test_id: str, flipped: str) -> None:
    assert _run(tmp_path, TESTS, TESTS | {test_id: flipped}) == 1
    err = capsys.readouterr().err
    assert f"{test_id}: plain {TESTS[test_id]}, guarded {flipped}" in err
    assert "1 test(s) changed outcome" in err


def test_a_test_fixed_by_the_guard_is_a_difference_too_tosa(tmp_path, capsys) -> None:
    failing = TESTS | {"passes/test_a.py::test_a_tosa_INT": "failed"}
    assert _run(tmp_path, failing, TESTS) == 1
    assert "plain failed, guarded passed" in capsys.readouterr().err


def test_a_test_missing_from_one_run_fails_tosa(tmp_path, capsys) -> None:
    fewer = {k: v for k, v in TESTS.items() if "test_c" not in k}
    assert _run(tmp_path, TESTS, fewer) == 1
    assert "test_c_vgf: plain skipped, guarded not run" in capsys.readouterr().err


def test_a_failure_in_both_runs_must_be_excluded_tosa(tmp_path, capsys) -> None:
    failing = TESTS | {"passes/test_a.py::test_a_tosa_INT": "failed"}
    assert _run(tmp_path, failing, failing) == 1
    err = capsys.readouterr().err
    assert "failed in both runs" in err and "test_a_tosa_INT: failed" in err


def test_a_guard_that_wrapped_nothing_fails_tosa(tmp_path, capsys) -> None:
    assert _run(tmp_path, TESTS, TESTS, wrapped_passes=0) == 1
    assert "the guard wrapped no pass" in capsys.readouterr().err


def test_the_plugin_problem_is_reported_tosa(tmp_path, capsys) -> None:
    assert _run(tmp_path, TESTS, TESTS, problem="the guard wrapped no pass: ...") == 1
    assert "guarded.json: the guard wrapped no pass" in capsys.readouterr().err


def test_swapped_reports_fail_tosa(tmp_path, capsys) -> None:
    plain = _write(tmp_path / "plain.json", False, TESTS)
    guarded = _write(tmp_path / "guarded.json", True, TESTS)
    assert main([str(guarded), str(plain)]) == 1
    assert "expected a plain then a guarded report" in capsys.readouterr().err


def test_different_exclusions_fail_tosa(tmp_path) -> None:
    plain = OutcomeReport.read(_write(tmp_path / "plain.json", False, TESTS))
    guarded = OutcomeReport.read(_write(tmp_path / "guarded.json", True, TESTS, excluded={}))
    assert any("excluded different tests" in p for p in compare(plain, guarded).problems)


def test_an_unreadable_report_is_exit_2_tosa(tmp_path, capsys) -> None:
    guarded = _write(tmp_path / "guarded.json", True, TESTS)
    (tmp_path / "plain.json").write_text("{}")
    assert main([str(tmp_path / "plain.json"), str(guarded)]) == 2
    assert "not an outcomes report" in capsys.readouterr().err
