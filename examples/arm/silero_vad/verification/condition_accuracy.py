# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy of the deployed VAD under recording conditions, one report per condition.

The validation clips at every level of the sweep and through every recording channel of
``conditions.py``, each run by the device (or the quantized program for the cpu target)
and by float Silero from a zero state, and compared the way ``accuracy.py`` compares the
clips themselves: errors, flips, confident flips and speech-segment F1 per clip and
pooled. A product's microphone gain and channel are not the calibration's; these are the
figures that say whether it keeps Silero's decisions anyway.

Float Silero is not a fixed point either: near the threshold, a 1-LSB dither of its own
input tips frames, most on very quiet audio. Each condition therefore also reports
``float_dither``: float Silero on the same audio with every PCM sample moved by -1, 0 or
+1 LSB (seeded), against float Silero undisturbed. It is the floor below which no
quantized program can be held to the float model's decisions on that audio.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.float_reference import float_probabilities
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
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
    """``{condition: accuracy report}`` (``accuracy.accuracy_report``'s layout, plus
    ``state_saturation`` per clip when the device reports it) for ``streams`` under each
    of ``conditions``. The device runs every derived stream in one batch, so a parallel
    runner keeps all cores busy."""
    derived = {
        condition: [derive_stream(stream, condition) for stream in streams]
        for condition in conditions
    }
    batch = [stream for condition in conditions for stream in derived[condition]]
    outputs = iter(run_device(batch))
    reports = {}
    for condition in conditions:
        clips, dithered = [], []
        saturation = {}
        for original, stream in zip(streams, derived[condition], strict=True):
            probabilities, saturated = next(outputs)
            reference = float_probabilities(float_model, stream)
            clips.append(
                ClipProbabilities(
                    original.name,
                    stream.num_samples,
                    reference,
                    probabilities,
                    None,
                    stream.sample_rate,
                )
            )
            dithered.append(
                ClipProbabilities(
                    original.name,
                    stream.num_samples,
                    reference,
                    float_probabilities(float_model, dither(stream)),
                    None,
                    stream.sample_rate,
                )
            )
            if saturated is not None:
                saturation[original.name] = {"h_frames": saturated[0], "c_frames": saturated[1]}
        report = accuracy_report(clips, threshold=threshold, actual=actual)
        report["float_dither"] = accuracy_report(dithered, threshold=threshold)["overall"]
        if saturation:
            report["state_saturation"] = saturation
        reports[condition] = report
    return reports


def dither(stream: AudioStream, seed: int = DITHER_SEED) -> AudioStream:
    """``stream`` with every sample moved by -1, 0 or +1 LSB (uniform, seeded)."""
    steps = np.random.default_rng(seed).integers(-1, 2, stream.num_samples)
    pcm = np.clip(stream.pcm.astype(np.int32) + steps, -32768, 32767).astype(np.int16)
    return stream.derived("dither", pcm)


def condition_summary(condition: str, report: dict) -> dict:
    """One line of a conditions table: pooled errors, flips, confident flips and F1, and
    float Silero's own flips under a 1-LSB dither where measured."""
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
