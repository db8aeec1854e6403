# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy under recording conditions: every condition of every clip runs once on the
device side, is compared with float Silero on the same audio, and float's own 1-LSB
dither floor is reported beside it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, float_probabilities
from examples.arm.silero_vad.verification.condition_accuracy import (
    condition_summary,
    conditions_report,
    dither,
)


@pytest.fixture(scope="module")
def clips(all_streams: list[AudioStream]) -> list[AudioStream]:
    return [replace(s, pcm=s.pcm[: 40 * s.geometry.hop_samples]) for s in all_streams[3:5]]


def test_dither_moves_every_sample_by_at_most_one_step(clips: list[AudioStream]) -> None:
    moved = dither(clips[0])
    difference = moved.pcm.astype(np.int32) - clips[0].pcm.astype(np.int32)
    assert set(np.unique(difference)) == {-1, 0, 1}
    np.testing.assert_array_equal(moved.pcm, dither(clips[0]).pcm)  # seeded


def test_conditions_report_runs_each_derived_stream_once(
    clips: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """A device that is float Silero itself: no flips anywhere, the dither floor is
    float's own, and the runner sees every condition of every clip in one batch."""
    batches: list[list[str]] = []

    def float_device(streams: list[AudioStream]) -> list[tuple]:
        batches.append([stream.name for stream in streams])
        return [(float_probabilities(eager_silero, s), (0, 1)) for s in streams]

    reports = conditions_report(["level-30", "clipped"], clips, eager_silero, float_device, "npu")
    assert batches == [[f"{c.name}.{cond}" for cond in ("level-30", "clipped") for c in clips]]
    assert list(reports) == ["level-30", "clipped"]
    for condition, report in reports.items():
        assert report["actual"] == "npu" and sorted(report["clips"]) == sorted(
            c.name for c in clips
        )
        assert report["overall"]["vs_float"]["max_abs"] == 0.0
        assert report["state_saturation"][clips[0].name] == {"h_frames": 0, "c_frames": 1}
        floor = report["float_dither"]["vs_float"]
        assert 0 < floor["mean_abs"] < 0.05  # float moves a little under a 1-LSB dither
        summary = condition_summary(condition, report)
        assert summary["flips_pct"] == 0.0 and summary["min_f1"] == 1.0
        assert summary["float_dither_flips_pct"] == floor["flips_pct"]
