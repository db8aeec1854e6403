# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy of the deployed VAD, per clip and over all clips.

Two questions, two references. *Is the device running the program we exported?* The
device's probabilities (today the device twin's) against the quantized program's on the
host: anything but zero error is a runtime or lowering bug. *How much does int8 cost?*
The device against the float model, as probabilities (errors, threshold-decision flips)
and as what a user consumes, speech segments (speech-time F1, boundary error).

Segment metrics, against the float model's segments as ground truth:

- ``f1``: speech-time F1 at sample level. With ``R`` the float segments' samples and
  ``P`` the device's, ``F1 = 2 |R & P| / (|R| + |P|)``, the harmonic mean of precision
  ``|R & P| / |P|`` and recall ``|R & P| / |R|``. Both empty: 1.0 (they agree there is no
  speech); exactly one empty: 0.0. ``overall`` pools the sample counts of all clips, so
  long clips weigh more.
- ``boundary_ms``: every float segment's start is matched to the nearest device segment
  start and every end to the nearest device end (one device boundary may serve several
  float boundaries: a split or merged segment then shows as a large error, not as a
  missing match); the mean absolute distance in milliseconds. ``None`` when either side
  has no segment (nothing to match; F1 already says 0.0 or 1.0). ``overall`` is the mean
  over all matched boundaries of all clips.

Probability metrics come from ``compare_vad_probs.compare_probabilities``, so the report
and the command-line gate measure the same way; ``overall`` pools all frames of all clips.
Against the float model, flips are also counted where float Silero was confident (more
than ``CONFIDENCE_MARGIN`` from the threshold): near the threshold float itself tips
under a 1-LSB dither of its input, so plain flips over-state the harm on quiet audio.
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

# Name of the evaluated side in the report: the device (twin) for NPU targets, the
# quantized program itself for the cpu target (there is no twin to compare it with).
NPU = "npu"
QUANTIZED = "quantized"


@dataclass(frozen=True)
class ClipProbabilities:
    """One clip's per-frame probabilities from the three sources that are compared."""

    name: str
    num_samples: int  # audio length: the segmenter's end-of-stream rule needs it
    float_model: np.ndarray
    actual: np.ndarray  # device twin, or the quantized program for the cpu target
    quantized: np.ndarray | None = None  # None when ``actual`` is the quantized program
    sample_rate: int = DEFAULT_SAMPLE_RATE  # of the model (and of num_samples)


def _merged(segments: Sequence[Segment]) -> list[Segment]:
    """Sorted, non-overlapping intervals covering the same samples."""
    merged: list[list[int]] = []
    for start, end in sorted((int(s), int(e)) for s, e in segments if e > s):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def speech_samples(segments: Sequence[Segment]) -> int:
    """Samples covered by at least one segment (``end`` exclusive)."""
    return sum(end - start for start, end in _merged(segments))


def overlap_samples(reference: Sequence[Segment], predicted: Sequence[Segment]) -> int:
    """Samples covered by both segment lists."""
    a, b = _merged(reference), _merged(predicted)
    i = j = total = 0
    while i < len(a) and j < len(b):
        total += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


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
    """Per reference boundary, the distance in samples to the nearest predicted one of its kind.

    Starts are matched to starts and ends to ends; empty when either side has no segment.
    """
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
    """Mean boundary error in ms (see the module docstring); None without boundaries."""
    return _mean_ms(boundary_errors(reference, predicted), sample_rate)


def _errors(comparison: Comparison) -> dict:
    return {
        "max_abs": comparison.max_abs,
        "mean_abs": comparison.mean_abs,
        "flips": comparison.flips,
    }


def _vs_float(comparison: Comparison) -> dict:
    return _errors(comparison) | {
        "flips_pct": 100.0 * comparison.flips / comparison.frames,
        "confident_flips": comparison.confident_flips,
        "confident_flips_pct": 100.0 * comparison.confident_flips / comparison.frames,
    }


def _compare(
    clip: ClipProbabilities, reference: np.ndarray, kind: str, threshold: float, actual: str
) -> Comparison:
    return compare_probabilities(
        clip.actual,
        reference,
        threshold,
        actual_name=f"{clip.name} ({actual})",
        reference_name=f"{clip.name} ({kind})",
    )


def segmenter_settings(config: SegmenterConfig) -> dict:
    """The segmenter's parameters for the report, JSON-safe: no limit is None, not inf."""
    settings = asdict(config) | {"neg_threshold": config.exit_threshold}
    return {
        key: None if isinstance(value, float) and math.isinf(value) else value
        for key, value in settings.items()
    }


def accuracy_report(
    clips: Sequence[ClipProbabilities],
    threshold: float = DEFAULT_THRESHOLD,
    config: SegmenterConfig | None = None,
    actual: str | None = None,
) -> dict:
    """The ``accuracy`` section of ``report.json``: per clip and ``overall``.

    Layout (``<actual>`` is ``npu`` when a device's probabilities were given, else
    ``quantized``)::

        {"threshold": t, "sample_rate": r, "actual": "npu", "segmenter": {...},
         "clips": {name: {"frames", "vs_quantized": {max_abs, mean_abs, flips},
                          "vs_float": {max_abs, mean_abs, flips, flips_pct,
                                       confident_flips, confident_flips_pct},
                          "segments": {"float": [[start, end], ...], "<actual>": [...],
                                       "f1", "boundary_ms"}}},
         "overall": {"frames", "vs_quantized", "vs_float",
                     "segments": {"f1", "min_f1", "boundary_ms"}}}

    ``min_f1`` is the lowest clip's F1 (one badly cut clip is what a user notices; the
    pooled F1 hides it). ``vs_quantized`` is left out when there is no device (cpu target) or
    when ``actual`` is given (conditions: the device against float only). Segments are in
    samples at the clips' sample rate, from the silero-vad segmenter with ``config``
    (default: silero's defaults), independent of ``threshold``, which only counts flips.
    """
    if not clips:
        raise ValueError("accuracy_report needs at least one clip")
    sample_rate = clips[0].sample_rate
    if any(clip.sample_rate != sample_rate for clip in clips):
        raise ValueError("the clips of one accuracy report must share a sample rate")
    config = config or SegmenterConfig()
    with_device = all(clip.quantized is not None for clip in clips)
    if not with_device and any(clip.quantized is not None for clip in clips):
        raise ValueError("either every clip or none has the quantized program's probabilities")
    if actual not in (None, NPU, QUANTIZED):
        raise ValueError(f"actual {actual!r}: expected {NPU!r} or {QUANTIZED!r}")
    actual_key = actual or (NPU if with_device else QUANTIZED)

    per_clip: dict[str, dict] = {}
    overlap = reference_total = predicted_total = 0
    all_boundary_errors: list[int] = []
    for clip in clips:
        if clip.name in per_clip:
            raise ValueError(f"two clips are named {clip.name}")
        entry: dict = {}
        vs_float = _compare(clip, clip.float_model, "float model", threshold, actual_key)
        entry["frames"] = vs_float.frames
        if with_device:
            entry["vs_quantized"] = _errors(
                _compare(clip, clip.quantized, QUANTIZED, threshold, actual_key)
            )
        entry["vs_float"] = _vs_float(vs_float)

        reference = speech_segments(clip.float_model, clip.num_samples, config, sample_rate)
        predicted = speech_segments(clip.actual, clip.num_samples, config, sample_rate)
        errors = boundary_errors(reference, predicted)
        entry["segments"] = {
            "float": [list(segment) for segment in reference],
            actual_key: [list(segment) for segment in predicted],
            "f1": segment_f1(reference, predicted),
            "boundary_ms": _mean_ms(errors, sample_rate),
        }
        per_clip[clip.name] = entry
        overlap += overlap_samples(reference, predicted)
        reference_total += speech_samples(reference)
        predicted_total += speech_samples(predicted)
        all_boundary_errors.extend(errors)

    pooled = ClipProbabilities(
        name="overall",
        num_samples=0,
        float_model=np.concatenate([clip.float_model for clip in clips]),
        actual=np.concatenate([clip.actual for clip in clips]),
        quantized=np.concatenate([clip.quantized for clip in clips]) if with_device else None,
    )
    overall_float = _compare(pooled, pooled.float_model, "float model", threshold, actual_key)
    overall: dict = {"frames": overall_float.frames}
    if with_device:
        overall["vs_quantized"] = _errors(
            _compare(pooled, pooled.quantized, QUANTIZED, threshold, actual_key)
        )
    overall["vs_float"] = _vs_float(overall_float)
    overall["segments"] = {
        "f1": _f1(overlap, reference_total, predicted_total),
        "min_f1": min(entry["segments"]["f1"] for entry in per_clip.values()),
        "boundary_ms": _mean_ms(all_boundary_errors, sample_rate),
    }
    return {
        "threshold": threshold,
        "sample_rate": sample_rate,
        "actual": actual_key,
        "segmenter": segmenter_settings(config),
        "clips": per_clip,
        "overall": overall,
    }
