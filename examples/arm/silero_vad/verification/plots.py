# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""One PNG per clip: the audio, both probability curves and both sets of speech segments.

Numbers say how far the device is from the float model; the picture says where and why
(a late onset, a pause bridged). Agg canvas without pyplot: no display or global state.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from examples.arm.silero_vad.model_export.frame_geometry import DEFAULT_SAMPLE_RATE, frame_geometry

FLOAT_COLOR = "tab:blue"
ACTUAL_COLOR = "tab:orange"


def _step(axes, probabilities: np.ndarray, frame_seconds: float, color: str, label: str) -> None:
    """Frame ``i`` covers ``[i, i + 1)`` frame durations (32 ms): draw it as a flat step."""
    edges = np.arange(probabilities.size + 1) * frame_seconds
    values = np.append(probabilities, probabilities[-1:])
    axes.step(edges, values, where="post", color=color, linewidth=1.2, label=label)


def _bars(segments: Sequence[Sequence[int]], rate: int) -> list[tuple[float, float]]:
    return [(start / rate, (end - start) / rate) for start, end in segments]


def plot_clip(
    path: Path,
    title: str,
    samples: np.ndarray,
    float_probabilities: np.ndarray,
    actual_probabilities: np.ndarray,
    float_segments: Sequence[Sequence[int]],
    actual_segments: Sequence[Sequence[int]],
    threshold: float,
    actual_label: str = "NPU twin",
    sample_rate: int = DEFAULT_SAMPLE_RATE,
) -> Path:
    """Writes waveform / probabilities / segments (at ``sample_rate``) to ``path``."""
    frame_seconds = frame_geometry(sample_rate).frame_seconds
    figure = Figure(figsize=(11, 6), layout="constrained")
    FigureCanvasAgg(figure)
    wave, probs, segs = figure.subplots(3, 1, sharex=True, gridspec_kw={"height_ratios": [2, 2, 1]})
    duration = samples.size / sample_rate

    wave.plot(np.arange(samples.size) / sample_rate, samples, color="0.35", linewidth=0.4)
    wave.set_ylabel("audio")
    wave.set_title(title)

    _step(probs, float_probabilities, frame_seconds, FLOAT_COLOR, "float model")
    _step(probs, actual_probabilities, frame_seconds, ACTUAL_COLOR, actual_label)
    probs.axhline(threshold, color="0.5", linestyle="--", linewidth=0.8, label="threshold")
    probs.set_ylim(-0.02, 1.02)
    probs.set_ylabel("speech probability")
    probs.legend(loc="upper right", fontsize="small")

    segs.broken_barh(_bars(float_segments, sample_rate), (1.1, 0.8), color=FLOAT_COLOR)
    segs.broken_barh(_bars(actual_segments, sample_rate), (0.1, 0.8), color=ACTUAL_COLOR)
    segs.set_ylim(0, 2)
    segs.set_yticks([0.5, 1.5], [actual_label, "float model"])
    segs.set_xlabel("time (s)")
    segs.set_xlim(0, duration)

    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    return path
