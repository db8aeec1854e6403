# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What the lab's commands share: the repository root, the row labels of their tables
and the one way they report an unusable input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from examples.arm.silero_vad.verification.cli import exit_on_errors

REPO_ROOT = Path(__file__).resolve().parents[4]


def khz(sample_rate: int) -> str:
    """A sample rate as the tables print it: ``16 kHz``."""
    return f"{sample_rate // 1000} kHz"


def print_or_fail(
    table: Callable[[], str], errors: tuple[type[Exception], ...], status: int = 2
) -> int:
    """Prints what ``table`` makes; an expected error becomes one ERROR line (no traceback)
    and the exit ``status``."""

    @exit_on_errors(*errors, status=status)
    def print_table() -> int:
        print(table())
        return 0

    return print_table()
