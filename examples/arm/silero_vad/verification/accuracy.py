# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy of the deployed VAD, per clip and pooled over all clips.

Against the quantized program: does the device run what we exported? Against the float
model: what does quantization cost, as probabilities (``compare_vad_probs``) and as speech
segments, what a user consumes: ``f1`` (sample-level speech-time F1; both empty: 1.0) and
``boundary_ms`` (mean distance from each float start/end to the nearest device one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from examples.arm.silero_vad.model_export.frame_geometry import DEFAULT_SAMPLE_RATE
from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig, speech_segments
from examples.arm.silero_vad.verification.compare_vad_probs import (
    DEFAULT_THRESHOLD,
    Comparison,
    compare_probabilities,
)

Segment = tuple[int, int]

# The evaluated side: the device (twin) for NPU targets, the quantized program for cpu,
# the program on ExecuTorch's Python runtime for xnnpack.
NPU = "npu"
QUANTIZED = "quantized"
XNNPACK = "xnnpack"
SIDES = (NPU, QUANTIZED, XNNPACK)


@dataclass(frozen=True)
class ClipProbabilities:
    """One clip's per-frame probabilities from the sources that are compared."""

    name: str
    num_samples: int  # the segmenter's end-of-stream rule needs it
    float_model: np.ndarray
    actual: np.ndarray  # device twin, or the quantized program for the cpu target
    quantized: np.ndarray | None = None  # None when ``actual`` is the quantized program
    sample_rate: int = DEFAULT_SAMPLE_RATE  # of the model (and of num_samples)


def _covered(segments: Sequence[Segment], length: int) -> np.ndarray:
    """Per sample of ``[0, length)``: is it in a segment (``end`` exclusive)?"""
    covered = np.zeros(length, dtype=bool)
    for start, end in segments:
        covered[start:end] = True
    return covered


def speech_samples(segments: Sequence[Segment]) -> int:
    """Samples covered by at least one segment."""
    return int(_covered(segments, max((end for _, end in segments), default=0)).sum())


def overlap_samples(reference: Sequence[Segment], predicted: Sequence[Segment]) -> int:
    """Samples covered by both segment lists."""
    length = max((end for _, end in [*reference, *predicted]), default=0)
    return int((_covered(reference, length) & _covered(predicted, length)).sum())


def _f1(overlap: int, reference_samples: int, predicted_samples: int) -> float:
    if reference_samples + predicted_samples == 0:
        return 1.0  # both say there is no speech: full agreement
    return 2.0 * overlap / (reference_samples + predicted_samples)


def segment_f1(reference: Sequence[Segment], predicted: Sequence[Segment]) -> float:
    """Speech-time F1 of ``predicted`` against ``reference`` (1.0 when both are empty)."""
    return _f1(
        overlap_samples(reference, predicted), speech_samples(reference), speech_samples(predicted)
    )


def boundary_errors(reference: Sequence[Segment], predicted: Sequence[Segment]) -> list[int]:
    """Per reference start (end), the samples to the nearest predicted start (end)."""
    if not reference or not predicted:
        return []
    starts = np.array([start for start, _ in predicted])
    ends = np.array([end for _, end in predicted])
    errors = []
    for start, end in reference:
        errors.append(int(np.abs(starts - start).min()))
        errors.append(int(np.abs(ends - end).min()))
    return errors


def _mean_ms(errors_samples: Sequence[int], sample_rate: int) -> float | None:
    if not errors_samples:
        return None
    return 1000.0 * float(np.mean(errors_samples)) / sample_rate


def boundary_ms(
    reference: Sequence[Segment],
    predicted: Sequence[Segment],
    sample_rate: int = DEFAULT_SAMPLE_RATE,
) -> float | None:
    """Mean boundary error in ms; None without boundaries."""
    return _mean_ms(boundary_errors(reference, predicted), sample_rate)


def _errors(comparison: Comparison) -> dict:
    return {key: getattr(comparison, key) for key in ("max_abs", "mean_abs", "flips")}


def _probability_figures(clip: ClipProbabilities, actual: str, threshold: float) -> dict:
    """Frames and the errors of ``clip.actual`` against float (and the quantized program)."""

    def compare(reference: np.ndarray, kind: str) -> Comparison:
        names = f"{clip.name} ({actual})", f"{clip.name} ({kind})"
        return compare_probabilities(clip.actual, reference, threshold, *names)

    vs_float = compare(clip.float_model, "float model")
    figures: dict = {"frames": vs_float.frames}
    if clip.quantized is not None:
        figures["vs_quantized"] = _errors(compare(clip.quantized, QUANTIZED))
    figures["vs_float"] = _errors(vs_float) | {
        "flips_pct": 100.0 * vs_float.flips / vs_float.frames,
        "confident_flips": vs_float.confident_flips,
        "confident_flips_pct": 100.0 * vs_float.confident_flips / vs_float.frames,
    }
    return figures


def accuracy_report(
    clips: Sequence[ClipProbabilities],
    threshold: float = DEFAULT_THRESHOLD,
    actual: str | None = None,
) -> dict:
    """The ``accuracy`` section of ``report.json``: ``clips`` and pooled ``overall``.

    Each has ``frames``, ``vs_float``, ``vs_quantized`` (given the quantized program's
    probabilities) and ``segments`` (silero-vad's segmenter, default settings, in samples;
    ``overall`` adds ``min_f1``, the lowest clip's). ``threshold`` only counts flips.
    """
    sample_rate = clips[0].sample_rate
    config = SegmenterConfig()
    with_device = clips[0].quantized is not None
    if actual not in (None, *SIDES):
        raise ValueError(f"actual {actual!r}: expected one of {', '.join(SIDES)}")
    actual_key = actual or (NPU if with_device else QUANTIZED)

    per_clip: dict[str, dict] = {}
    totals = [0, 0, 0]  # overlap, float and device speech samples, pooled over the clips
    all_boundary_errors: list[int] = []
    for clip in clips:
        entry = _probability_figures(clip, actual_key, threshold)
        reference = speech_segments(clip.float_model, clip.num_samples, config, sample_rate)
        predicted = speech_segments(clip.actual, clip.num_samples, config, sample_rate)
        errors = boundary_errors(reference, predicted)
        counts = [
            overlap_samples(reference, predicted),
            *map(speech_samples, (reference, predicted)),
        ]
        entry["segments"] = {
            "float": [list(segment) for segment in reference],
            actual_key: [list(segment) for segment in predicted],
            "f1": _f1(*counts),
            "boundary_ms": _mean_ms(errors, sample_rate),
        }
        per_clip[clip.name] = entry
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        all_boundary_errors.extend(errors)

    pooled = ClipProbabilities(
        name="overall",
        num_samples=0,
        float_model=np.concatenate([clip.float_model for clip in clips]),
        actual=np.concatenate([clip.actual for clip in clips]),
        quantized=np.concatenate([clip.quantized for clip in clips]) if with_device else None,
    )
    overall = _probability_figures(pooled, actual_key, threshold)
    overall["segments"] = {
        "f1": _f1(*totals),
        "min_f1": min(entry["segments"]["f1"] for entry in per_clip.values()),
        "boundary_ms": _mean_ms(all_boundary_errors, sample_rate),
    }
    settings = asdict(config) | {"neg_threshold": config.exit_threshold}
    return {
        "threshold": threshold,
        "sample_rate": sample_rate,
        "actual": actual_key,
        # JSON-safe: no limit is None, not inf
        "segmenter": {
            k: None if isinstance(v, float) and math.isinf(v) else v for k, v in settings.items()
        },
        "clips": per_clip,
        "overall": overall,
    }
