# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Compares a plain and a guarded run of the same tests: is the guard transparent?

Each file is the ``--outcomes-json`` report of ``pytest_stateful_guard.py``, one run
without and one with ``--stateful-guard``. The guard is transparent when:

* every test has the same outcome in both runs (a test that passes plain and fails
  guarded, or the reverse, is a difference; so is xfailed against failed, or a test
  that ran in one run only), and the same tests were excluded;
* the guarded run wrapped passes (more than 0) and the plain run none, so the two runs
  really were with and without the guard.

A test that fails in both runs is not a difference the guard made, but it is not a
pass either: it is reported and fails the comparison until it is fixed or excluded with
its reason (``upstream_arm_test_exclusions.txt``), so every outcome of the stage is
explained. Prints a table of the outcomes and every difference. Exit status 0 when the
guard is transparent, 1 otherwise, 2 when a report cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

OUTCOMES = ("passed", "skipped", "xfailed", "xpassed", "failed", "error")
FAILING = ("failed", "error")


class OutcomeReportError(ValueError):
    """A file that is not a report of ``pytest_stateful_guard.py``."""


@dataclass(frozen=True)
class OutcomeReport:
    """One run: each test's outcome and wrapped passes, the excluded tests, the guard."""

    path: Path
    guard: bool
    wrapped_passes: int
    problem: str | None
    outcomes: dict[str, str]
    wrapped: dict[str, int]
    excluded: dict[str, str]

    @classmethod
    def read(cls, path: Path) -> OutcomeReport:
        try:
            data = json.loads(path.read_text())
            tests = data["tests"]
            return cls(
                path=path,
                guard=bool(data["stateful_guard"]),
                wrapped_passes=int(data["wrapped_passes"]),
                problem=data.get("problem"),
                outcomes={test_id: str(test["outcome"]) for test_id, test in tests.items()},
                wrapped={test_id: int(test["wrapped_passes"]) for test_id, test in tests.items()},
                excluded=dict(data["excluded"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise OutcomeReportError(f"{path}: not an outcomes report ({error})") from error

    def counts(self) -> Counter[str]:
        return Counter(self.outcomes.values())


@dataclass
class Comparison:
    """What differs between the plain and the guarded run, and what is wrong with either."""

    differences: list[tuple[str, str, str]] = field(default_factory=list)  # id, plain, guarded
    failed_in_both: list[tuple[str, str]] = field(default_factory=list)  # id, outcome
    problems: list[str] = field(default_factory=list)

    @property
    def transparent(self) -> bool:
        return not (self.differences or self.failed_in_both or self.problems)


def compare(plain: OutcomeReport, guarded: OutcomeReport) -> Comparison:
    """Test by test, plus the checks that the runs were what they claim to be."""
    comparison = Comparison()
    problems = comparison.problems
    if plain.guard or not guarded.guard:
        problems.append(
            f"expected a plain then a guarded report, got guard={plain.guard} "
            f"({plain.path}) and guard={guarded.guard} ({guarded.path})"
        )
    for report in (plain, guarded):
        if report.problem:
            problems.append(f"{report.path}: {report.problem}")
        if not report.outcomes:
            problems.append(f"{report.path}: no test ran")
    if guarded.wrapped_passes == 0:
        problems.append(f"{guarded.path}: the guard wrapped no pass, so nothing of ours ran")
    if plain.wrapped_passes != 0:
        problems.append(f"{plain.path}: the plain run wrapped {plain.wrapped_passes} passes")
    if plain.excluded.keys() != guarded.excluded.keys():
        problems.append("the two runs excluded different tests (same exclusions file?)")

    for test_id in sorted(plain.outcomes.keys() | guarded.outcomes.keys()):
        before = plain.outcomes.get(test_id, "not run")
        after = guarded.outcomes.get(test_id, "not run")
        if before != after:
            comparison.differences.append((test_id, before, after))
        elif before in FAILING:
            comparison.failed_in_both.append((test_id, before))
    return comparison


def outcome_table(plain: OutcomeReport, guarded: OutcomeReport) -> str:
    """Counts per outcome, side by side, with the exclusions and the wrapped passes."""
    rows = [("outcome", "plain", "guarded")]
    plain_counts, guarded_counts = plain.counts(), guarded.counts()
    for outcome in OUTCOMES:
        rows.append((outcome, str(plain_counts[outcome]), str(guarded_counts[outcome])))
    rows.append(("excluded", str(len(plain.excluded)), str(len(guarded.excluded))))
    rows.append(("wrapped passes", str(plain.wrapped_passes), str(guarded.wrapped_passes)))
    through = sum(1 for count in guarded.wrapped.values() if count)
    rows.append(("tests via the guard", "-", str(through)))
    width = max(len(row[0]) for row in rows)
    return "\n".join(f"{name:<{width}}  {a:>7}  {b:>7}" for name, a, b in rows)


def report_lines(comparison: Comparison) -> list[str]:
    """The differences and problems, one line each, for the stage's output."""
    lines = [f"ERROR {problem}" for problem in comparison.problems]
    if comparison.differences:
        count = len(comparison.differences)
        lines.append(f"ERROR {count} test(s) changed outcome under the guard:")
        lines += [f"  {tid}: plain {a}, guarded {b}" for tid, a, b in comparison.differences]
    if comparison.failed_in_both:
        lines.append(
            f"ERROR {len(comparison.failed_in_both)} test(s) failed in both runs (not the "
            "guard's doing): fix them or exclude them with the reason in "
            "backends/arm/test/upstream_arm_test_exclusions.txt:"
        )
        lines += [f"  {test_id}: {outcome}" for test_id, outcome in comparison.failed_in_both]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Compare a plain and a guarded run of the same tests "
        "(--outcomes-json reports of backends/arm/test/pytest_stateful_guard.py)."
    )
    parser.add_argument("plain", type=Path, help="report of the run without --stateful-guard")
    parser.add_argument("guarded", type=Path, help="report of the run with --stateful-guard")
    args = parser.parse_args(argv)
    try:
        plain, guarded = OutcomeReport.read(args.plain), OutcomeReport.read(args.guarded)
    except OutcomeReportError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    comparison = compare(plain, guarded)
    print(outcome_table(plain, guarded))
    for reason, count in sorted(Counter(guarded.excluded.values()).items()):
        print(f"excluded {count}: {reason}")
    for line in report_lines(comparison):
        print(line, file=sys.stderr)
    if not comparison.transparent:
        return 1
    print(f"the guard is transparent: {len(guarded.outcomes)} tests, the same outcome in both runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
