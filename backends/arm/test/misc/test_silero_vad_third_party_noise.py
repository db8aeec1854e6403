# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Known third-party noise: hidden when a command runs, untouched when a module is imported.

The example's command-line entry points install the filters of ``third_party_noise.py``
before torch loads; importing any module of the example must leave the importer's
logging and warning settings as they were. Fresh interpreters check both ends (pytest
installs warning filters of its own, and has torch loaded already).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import runpy
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from examples.arm.silero_vad.third_party_noise import (
    _LOG_MESSAGES,
    _WARNINGS,
    silence_known_third_party_noise,
)

REPO_ROOT = Path(__file__).resolve().parents[4]

# The commands whose run loads torch, torchao or executorch.
COMMANDS = [
    "examples.arm.silero_vad.run_silero_vad",
    "examples.arm.silero_vad.lab.benchmark_accuracy",
    "examples.arm.silero_vad.lab.benchmark_performance",
    "examples.arm.silero_vad.lab.benchmark_recurrent_cells",
    "examples.arm.silero_vad.verification.program_reference",
    "examples.arm.silero_vad.lab.soak_runner",
]

# Imports the modules, then prints what the example added to the logging and warning
# filters (the libraries it imports add warning filters of their own).
_IMPORT_AND_REPORT = """
import importlib, json, logging, sys, warnings
loggers = json.loads(sys.argv[1])
messages = set(json.loads(sys.argv[2]))
for module in json.loads(sys.argv[3]):
    importlib.import_module(module)
print(json.dumps({
    "log_filters": sum(len(logging.getLogger(name).filters) for name in loggers),
    "warning_filters": [f[1].pattern for f in warnings.filters
                        if f[1] is not None and f[1].pattern in messages],
}))
"""


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )


def _log_filters() -> int:
    return sum(len(logging.getLogger(name).filters) for name in _LOG_MESSAGES)


@pytest.fixture
def restored_filters() -> Iterator[None]:
    """Whatever a test installs is gone after it (logger filters and warning filters)."""
    saved = {name: list(logging.getLogger(name).filters) for name in _LOG_MESSAGES}
    with warnings.catch_warnings():
        yield
    for name, filters in saved.items():
        logging.getLogger(name).filters[:] = filters


def test_importing_the_example_installs_no_filter() -> None:
    completed = _python(
        "-c",
        _IMPORT_AND_REPORT,
        json.dumps(list(_LOG_MESSAGES)),
        json.dumps([message for _, message in _WARNINGS]),
        json.dumps(["examples.arm.silero_vad", *COMMANDS]),
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.splitlines()[-1])
    assert report == {"log_filters": 0, "warning_filters": []}


def test_the_main_job_prints_no_known_noise_on_help() -> None:
    """The filters are in place before torch loads (torchao logs its noise at import)."""
    completed = _python("-m", "examples.arm.silero_vad.run_silero_vad", "--help")
    assert completed.returncode == 0, completed.stderr
    noise = [
        line
        for line in completed.stderr.splitlines()
        if any(pattern.search(line) for pattern in _LOG_MESSAGES.values())
    ]
    assert noise == []


# runpy's note that the module is imported already (by this process's other tests).
@pytest.mark.filterwarnings("ignore:.*found in sys.modules after import of package")
@pytest.mark.parametrize("module", COMMANDS)
def test_a_command_installs_the_filters_when_it_runs(
    module: str, restored_filters, monkeypatch
) -> None:
    for name in _LOG_MESSAGES:
        logging.getLogger(name).filters.clear()
    monkeypatch.setattr(sys, "argv", [module, "--help"])
    with pytest.raises(SystemExit) as exited, contextlib.redirect_stdout(io.StringIO()):
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    assert exited.value.code == 0
    assert _log_filters() == len(_LOG_MESSAGES)


def test_the_filters_drop_only_the_known_messages(restored_filters) -> None:
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    logger = logging.getLogger("torchao")
    handler = Collect()
    logger.addHandler(handler)
    warnings.resetwarnings()  # without pytest's filters, inside restored_filters
    try:
        silence_known_third_party_noise()
        silence_known_third_party_noise()  # idempotent
        logger.warning("Failed to load /site-packages/torchao/_C_mxfp8.cpython-310.so: no GPU")
        logger.warning("Failed to quantize a layer")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", append=True)
            for message, category in (
                ("`isinstance(treespec, LeafSpec)` is deprecated", FutureWarning),
                ("erase_node(add) on an already erased node", UserWarning),
                ("another FutureWarning", FutureWarning),
            ):
                warnings.warn(message, category, stacklevel=1)
    finally:
        logger.removeHandler(handler)
    assert seen == ["Failed to quantize a layer"]
    assert [str(w.message) for w in caught] == ["another FutureWarning"]
    assert len(warnings.filters) == len(_WARNINGS)
