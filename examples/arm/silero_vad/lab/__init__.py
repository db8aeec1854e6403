# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The lab: benchmarks, studies, soak and clip generators. Nothing a product copies
imports from here. What their commands share: the repository root, the tables' rate labels."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[4]


def khz(sample_rate: int) -> str:
    """A sample rate as the tables print it: ``16 kHz``."""
    return f"{sample_rate // 1000} kHz"
