# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy under the recording conditions of ``conditions.py``, one report per condition.

Float Silero tips near-threshold frames under a 1-LSB dither of its input, so each
condition also reports ``float_dither`` (float on dithered audio against float): the
floor below which no quantized program can be held to float's decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, float_probabilities
from examples.arm.silero_vad.verification.accuracy import ClipProbabilities, accuracy_report
from examples.arm.silero_vad.verification.compare_vad_probs import DEFAULT_THRESHOLD
from examples.arm.silero_vad.verification.conditions import derive_stream

DITHER_SEED = 2026

# Runs the device side on streams, in order: per stream its probabilities and, where the
# device can say, the frames on which its state saturated (h, c).
DeviceRunner = Callable[[list[AudioStream]], list[tuple[np.ndarray, tuple[int, int] | None]]]


def conditions_report(
    conditions: Sequence[str],
    streams: Sequence[AudioStream],
    float_model: SileroVAD,
    run_device: DeviceRunner,
    actual: str,
    threshold: float = DEFAULT_THRESHOLD,
) -> dict[str, dict]:
    """``{condition: accuracy report + float_dither (+ state_saturation)}``; the device gets
    every derived stream in one batch, so a parallel runner keeps all cores busy."""
    derived = {
        condition: [derive_stream(stream, condition) for stream in streams]
        for condition in conditions
    }
    outputs = iter(
        run_device([stream for condition in conditions for stream in derived[condition]])
    )
    reports = {}
    for condition in conditions:
        clips, dithered, saturation = [], [], {}
        for original, stream in zip(streams, derived[condition], strict=True):
            probabilities, saturated = next(outputs)
            reference = float_probabilities(float_model, stream)
            clip = partial(ClipProbabilities, original.name, stream.num_samples, reference)
            clips.append(clip(probabilities, sample_rate=stream.sample_rate))
            floor = float_probabilities(float_model, dither(stream))
            dithered.append(clip(floor, sample_rate=stream.sample_rate))
            if saturated is not None:
                saturation[original.name] = {"h_frames": saturated[0], "c_frames": saturated[1]}
        report = accuracy_report(clips, threshold=threshold, actual=actual)
        report["float_dither"] = accuracy_report(dithered, threshold=threshold)["overall"]
        if saturation:
            report["state_saturation"] = saturation
        reports[condition] = report
    return reports


def dither(stream: AudioStream) -> AudioStream:
    """``stream`` with every sample moved by -1, 0 or +1 LSB (uniform, seeded)."""
    steps = np.random.default_rng(DITHER_SEED).integers(-1, 2, stream.num_samples)
    pcm = np.clip(stream.pcm.astype(np.int32) + steps, -32768, 32767).astype(np.int16)
    return stream.derived("dither", pcm)


def condition_summary(condition: str, report: dict) -> dict:
    """One line of a conditions table: pooled figures against float, and the dither floor."""
    overall = report["overall"]
    vs_float = overall["vs_float"]
    summary = {
        "condition": condition,
        "frames": overall["frames"],
        "mean_abs": vs_float["mean_abs"],
        "flips_pct": vs_float["flips_pct"],
        "confident_flips_pct": vs_float["confident_flips_pct"],
        "f1": overall["segments"]["f1"],
        "min_f1": overall["segments"]["min_f1"],
    }
    floor = report.get("float_dither")
    if floor is not None:
        summary["float_dither_flips_pct"] = floor["vs_float"]["flips_pct"]
        summary["float_dither_confident_flips_pct"] = floor["vs_float"]["confident_flips_pct"]
    return summary
