# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The virtualenv setup (backends/arm/scripts/python_env.sh) recovers from an interrupted
first run: a venv made without pip yet would fail every later run with 'No module named
pip'."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[4]
PYTHON_ENV = REPO_ROOT / "backends" / "arm" / "scripts" / "python_env.sh"


def _remove_interrupted_venv(venv: Path) -> subprocess.CompletedProcess:
    script = f'source "{PYTHON_ENV}" && remove_interrupted_venv "{venv}"'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)


def test_a_venv_without_pip_is_removed_to_be_made_again(tmp_path: Path) -> None:
    venv = tmp_path / "executorch-1.4.1"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    assert (venv / "bin" / "python").exists()
    completed = _remove_interrupted_venv(venv)
    assert not venv.exists()
    assert f"{venv} has no pip (its setup was interrupted): making it again" in completed.stderr


def test_a_working_venv_is_kept(tmp_path: Path) -> None:
    venv = tmp_path / "executorch-1.4.1"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    completed = _remove_interrupted_venv(venv)
    assert (venv / "bin" / "python").exists() and completed.stderr == ""
    # And a venv not made yet is left to be made.
    assert _remove_interrupted_venv(tmp_path / "absent").stderr == ""
