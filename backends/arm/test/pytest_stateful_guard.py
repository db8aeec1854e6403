# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""pytest plugin: runs any test suite under our Arm pass-manager guard and records outcomes.

Users who copy the example lower *their* models through the same patched backend, so
``use_stateful_arm_pass_manager()`` must be transparent for models that own no state.
``run_upstream_arm_tests.sh`` proves it with the installed release's own Arm tests: it runs
them twice with this plugin (``-p backends.arm.test.pytest_stateful_guard``), once plain
and once with ``--stateful-guard``, and ``compare_test_outcomes.py`` compares the two
``--outcomes-json`` reports test by test. Both runs load the plugin, so the guard is the
only difference between them.

With ``--stateful-guard`` each test (setup, call and teardown) runs inside
``use_stateful_arm_pass_manager()``. The plugin counts the passes
``StatefulArmPassManager`` wrapped, per test and in total, and fails the session when the
total is 0: a release that moves the names the guard patches would otherwise make the
guarded run a second plain run that proves nothing. A plain run that wrapped any pass
fails too (then the two runs were not plain and guarded).

``--exclusions FILE`` deselects tests by id, each with its reason (one
``PATTERN REASON`` per line, ``*`` matches any text, ``#`` starts a comment); the
excluded tests and their reasons go into the report, and pytest counts them as
deselected.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from backends.arm._passes.stateful_arm_pass_manager import (
    StatefulArmPassManager,
    pass_manager_sites,
    use_stateful_arm_pass_manager,
)


@dataclass(frozen=True)
class Exclusion:
    """Tests left out of the comparison, and why (e.g. a tool that is absent here)."""

    pattern: str
    reason: str

    def matches(self, test_id: str) -> bool:
        # Test ids carry brackets (parametrize ids), so only * is special.
        regex = ".*".join(re.escape(part) for part in self.pattern.split("*"))
        return re.fullmatch(regex, test_id) is not None


def read_exclusions(path: Path) -> list[Exclusion]:
    """Reads ``PATTERN REASON`` lines (``#`` lines are comments); no reason is an error."""
    exclusions = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        pattern, _, reason = text.partition(" ")
        if not reason.strip():
            raise pytest.UsageError(f"{path}:{number}: '{pattern}' has no reason")
        exclusions.append(Exclusion(pattern, reason.strip()))
    return exclusions


def outcome_of(report: pytest.TestReport) -> str | None:
    """The outcome one phase report decides, in pytest's summary words, or None.

    A test's outcome is its call phase's, unless setup did not pass (then setup decides)
    or teardown failed (then it is an error).
    """
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        if report.passed:
            return "xpassed" if xfail else "passed"
        return "failed"
    if report.when == "setup" and not report.passed:
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "error"
    if report.when == "teardown" and report.failed:
        return "error"
    return None


@dataclass
class GuardRecorder:
    """Per-session state: the guard switch, the exclusions and what each test did."""

    guard: bool
    outcomes_json: Path | None
    exclusions: list[Exclusion]
    outcomes: dict[str, str] = field(default_factory=dict)
    wrapped: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    excluded: dict[str, str] = field(default_factory=dict)
    matched: Counter[Exclusion] = field(default_factory=Counter)
    problem: str | None = None

    @property
    def wrapped_total(self) -> int:
        return sum(self.wrapped.values())

    def _guarded(self) -> contextlib.AbstractContextManager[None]:
        return use_stateful_arm_pass_manager() if self.guard else contextlib.nullcontext()

    def pytest_report_header(self) -> str:
        if not self.guard:
            return "stateful guard: off (plain run)"
        sites = ", ".join(site.__name__ for site in pass_manager_sites()) or "none found"
        return f"stateful guard: on, patches ArmPassManager in {sites}"

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        kept, dropped = [], []
        for item in items:
            exclusion = next((e for e in self.exclusions if e.matches(item.nodeid)), None)
            if exclusion is None:
                kept.append(item)
            else:
                dropped.append(item)
                self.excluded[item.nodeid] = exclusion.reason
                self.matched[exclusion] += 1
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, Any, Any]:
        before = StatefulArmPassManager.wrapped_passes
        try:
            with self._guarded():
                return (yield)
        finally:
            self.wrapped[item.nodeid] = StatefulArmPassManager.wrapped_passes - before

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = outcome_of(report)
        if outcome is not None:
            self.outcomes[report.nodeid] = outcome
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.outcomes:  # a session that ran tests
            if self.guard and self.wrapped_total == 0:
                self.problem = (
                    "the guard wrapped no pass: use_stateful_arm_pass_manager() patched "
                    f"{len(pass_manager_sites())} module(s) and no test reached "
                    "StatefulArmPassManager, so this run tested nothing of ours "
                    "(did the release move ArmPassManager?)"
                )
            elif not self.guard and self.wrapped_total > 0:
                self.problem = f"the plain run wrapped {self.wrapped_total} passes: not plain"
        if self.problem is not None:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.outcomes_json is not None:
            self.outcomes_json.parent.mkdir(parents=True, exist_ok=True)
            self.outcomes_json.write_text(json.dumps(self.report(), indent=1, sort_keys=True))

    def report(self) -> dict[str, Any]:
        """What ``compare_test_outcomes.py`` reads."""
        return {
            "stateful_guard": self.guard,
            "wrapped_passes": self.wrapped_total,
            "problem": self.problem,
            "tests": {
                test_id: {
                    "outcome": outcome,
                    "wrapped_passes": self.wrapped.get(test_id, 0),
                    "seconds": round(self.seconds.get(test_id, 0.0), 3),
                }
                for test_id, outcome in self.outcomes.items()
            },
            "excluded": self.excluded,
        }

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        terminalreporter.section("stateful guard")
        through = sum(1 for count in self.wrapped.values() if count)
        write(
            f"guard {'on' if self.guard else 'off'}: {self.wrapped_total} passes wrapped, "
            f"in {through} of {len(self.outcomes)} tests"
        )
        for exclusion in self.exclusions:
            count = self.matched[exclusion]
            write(f"excluded {count:4d}  {exclusion.pattern}: {exclusion.reason}")
        if self.problem is not None:
            write(f"ERROR {self.problem}", red=True, bold=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("stateful guard", "backends/arm/test/pytest_stateful_guard.py")
    group.addoption(
        "--stateful-guard",
        action="store_true",
        help="run every test inside use_stateful_arm_pass_manager(); fail if no pass was wrapped",
    )
    group.addoption(
        "--outcomes-json", type=Path, help="write each test's outcome and wrapped passes here"
    )
    group.addoption(
        "--exclusions", type=Path, help="deselect the tests of this file (PATTERN REASON lines)"
    )


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("exclusions")
    recorder = GuardRecorder(
        guard=config.getoption("stateful_guard"),
        outcomes_json=config.getoption("outcomes_json"),
        exclusions=read_exclusions(path) if path is not None else [],
    )
    config.pluginmanager.register(recorder, "stateful_guard_recorder")
