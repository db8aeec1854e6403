# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Accuracy metrics, report.md and plots on hand-made inputs whose answers are known."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from examples.arm.silero_vad.model_export.model_config import DEFAULT_CONFIG, ModelConfig
from examples.arm.silero_vad.streaming.speech_segmenter import speech_segments
from examples.arm.silero_vad.verification.accuracy import (
    ClipProbabilities,
    accuracy_report,
    boundary_errors,
    boundary_ms,
    overlap_samples,
    segment_f1,
    speech_samples,
)
from examples.arm.silero_vad.verification.plots import plot_clip
from examples.arm.silero_vad.verification.report_markdown import (
    accuracy_table,
    conditions_table,
    render_report,
)

F1_CASES = {
    "both_empty": ([], [], 1.0),
    "prediction_empty": ([(0, 100)], [], 0.0),
    "reference_empty": ([], [(0, 100)], 0.0),
    "identical": ([(0, 100), (200, 300)], [(0, 100), (200, 300)], 1.0),
    "half_shifted": ([(0, 100)], [(50, 150)], 0.5),
    "split_inside": ([(0, 100)], [(0, 40), (60, 100)], 160 / 180),
    "disjoint": ([(0, 100)], [(100, 200)], 0.0),
    "overlapping_predictions_count_once": ([(0, 100)], [(0, 80), (20, 100)], 1.0),
}


@pytest.mark.parametrize("case", F1_CASES)
def test_segment_f1(case: str) -> None:
    reference, predicted, expected = F1_CASES[case]
    assert segment_f1(reference, predicted) == pytest.approx(expected)


def test_overlap_and_speech_samples() -> None:
    assert speech_samples([(0, 10), (5, 20), (30, 40)]) == 30
    assert overlap_samples([(0, 10), (20, 30)], [(5, 25)]) == 10


def test_boundary_error_matches_each_float_boundary_to_the_nearest_of_its_kind() -> None:
    reference = [(0, 1600), (3200, 4800)]
    predicted = [(160, 1600)]  # the second float segment is missed
    # starts: 0 -> 160 (160), 3200 -> 160 (3040); ends: 1600 -> 1600 (0), 4800 -> 1600 (3200)
    assert boundary_errors(reference, predicted) == [160, 0, 3040, 3200]
    assert boundary_ms(reference, predicted) == pytest.approx(1600 / 16)  # 100 ms
    assert boundary_ms(reference, reference) == 0.0


def test_boundary_error_is_undefined_without_segments() -> None:
    assert boundary_ms([], []) is None
    assert boundary_ms([(0, 100)], []) is None
    assert boundary_ms([], [(0, 100)]) is None


def _speech(frames: int, speech: slice, level: float = 0.95) -> np.ndarray:
    probabilities = np.full(frames, 0.02, dtype=np.float32)
    probabilities[speech] = level
    return probabilities


def _clips(with_device: bool = True) -> list[ClipProbabilities]:
    frames = 100
    float_a = _speech(frames, slice(20, 60))
    actual_a = _speech(frames, slice(22, 60))  # onset two frames late: 2 flips
    float_b = np.full(frames, 0.02, dtype=np.float32)  # silence on both sides
    clips = [("a", float_a, actual_a), ("b", float_b, float_b.copy())]
    return [
        ClipProbabilities(name, frames * 512, ref, actual, actual.copy() if with_device else None)
        for name, ref, actual in clips
    ]


def test_accuracy_report_per_clip_and_overall() -> None:
    clips = _clips()
    report = accuracy_report(clips, threshold=0.5)
    json.dumps(report, allow_nan=False)  # report.json must stay strict JSON
    assert report["actual"] == "npu" and report["threshold"] == 0.5
    assert report["segmenter"]["max_speech_duration_s"] is None  # no limit, not Infinity

    a, b = report["clips"]["a"], report["clips"]["b"]
    assert a["frames"] == b["frames"] == 100
    assert a["vs_quantized"] == {"max_abs": 0.0, "mean_abs": 0.0, "flips": 0}
    assert a["vs_float"]["flips"] == 2 and a["vs_float"]["flips_pct"] == pytest.approx(2.0)
    # float says 0.95 on both late frames: far from the threshold, so both are confident.
    assert a["vs_float"]["confident_flips"] == 2
    assert a["vs_float"]["confident_flips_pct"] == pytest.approx(2.0)
    assert a["vs_float"]["max_abs"] == pytest.approx(0.93)
    expected_float = speech_segments(clips[0].float_model, clips[0].num_samples)
    expected_npu = speech_segments(clips[0].actual, clips[0].num_samples)
    assert a["segments"]["float"] == [list(s) for s in expected_float]
    assert a["segments"]["npu"] == [list(s) for s in expected_npu]
    assert a["segments"]["boundary_ms"] == pytest.approx(2 * 512 / 16 / 2)  # start 64 ms, end 0
    assert b["segments"] == {"float": [], "npu": [], "f1": 1.0, "boundary_ms": None}

    overall = report["overall"]
    assert overall["frames"] == 200
    assert overall["vs_float"]["flips"] == 2 and overall["vs_float"]["flips_pct"] == 1.0
    assert overall["vs_float"]["mean_abs"] == pytest.approx(a["vs_float"]["mean_abs"] / 2)
    # Pooled over clips: clip b adds no speech, so the pooled F1 is clip a's.
    assert overall["segments"]["f1"] == pytest.approx(a["segments"]["f1"])
    assert overall["segments"]["boundary_ms"] == pytest.approx(a["segments"]["boundary_ms"])
    assert overall["segments"]["min_f1"] == a["segments"]["f1"] < b["segments"]["f1"]


def test_accuracy_report_pools_f1_by_speech_time() -> None:
    frames = 100
    long_ref, long_act = _speech(frames, slice(10, 90)), _speech(frames, slice(10, 90))
    short_ref, short_act = _speech(frames, slice(10, 30)), np.full(frames, 0.02, np.float32)
    clips = [
        ClipProbabilities("long", frames * 512, long_ref, long_act, long_act),
        ClipProbabilities("short", frames * 512, short_ref, short_act, short_act),
    ]
    report = accuracy_report(clips)
    long_seg = report["clips"]["long"]["segments"]
    short_seg = report["clips"]["short"]["segments"]
    assert (long_seg["f1"], short_seg["f1"]) == (1.0, 0.0)
    long_samples = speech_samples(long_seg["float"])
    short_samples = speech_samples(short_seg["float"])
    expected = 2 * long_samples / (2 * long_samples + short_samples)
    assert report["overall"]["segments"]["f1"] == pytest.approx(expected)


def test_accuracy_report_without_device_names_the_quantized_program() -> None:
    report = accuracy_report(_clips(with_device=False))
    assert report["actual"] == "quantized"
    assert "vs_quantized" not in report["clips"]["a"] and "vs_quantized" not in report["overall"]
    assert set(report["clips"]["a"]["segments"]) == {"float", "quantized", "f1", "boundary_ms"}
    assert "twin vs quantized" not in accuracy_table(report)


def test_near_threshold_flips_are_not_confident() -> None:
    """A flip where float itself sat within the margin of the threshold is a near-tie."""
    frames = 100
    reference = _speech(frames, slice(20, 60), level=0.55)  # float barely says speech
    actual = reference.copy()
    actual[20:24] = 0.45
    clip = ClipProbabilities("tie", frames * 512, reference, actual, actual.copy())
    vs_float = accuracy_report([clip])["clips"]["tie"]["vs_float"]
    assert (vs_float["flips"], vs_float["confident_flips"]) == (4, 0)


def test_device_side_can_be_named_without_the_quantized_program() -> None:
    """Conditions compare the device with float only: no vs_quantized, still 'npu'."""
    report = accuracy_report(_clips(with_device=False), actual="npu")
    assert report["actual"] == "npu" and "vs_quantized" not in report["overall"]
    assert "npu" in report["clips"]["a"]["segments"]
    with pytest.raises(ValueError, match="actual 'fpga'"):
        accuracy_report(_clips(), actual="fpga")


def test_accuracy_table_and_report_markdown() -> None:
    accuracy = accuracy_report(_clips())
    table = accuracy_table(accuracy).splitlines()
    assert len(table) == 2 + 3  # header, rule, clips a and b, overall
    assert table[-1].startswith("| overall ")
    assert "| 2 (2.0 %)   | 2 " in table[2] and "| 1/1 " in table[2]
    assert "confident flips" in table[0]
    report = {
        "executorch_version": "1.4.1",
        "target": "cpu",
        "sample_rate": 16000,
        "audio_input": "int16",
        "model": DEFAULT_CONFIG.to_dict(),
        "pte": "silero_vad_cpu.pte",
        "pte_bytes": 1234,
        "pte_sha256": "0" * 64,
        "export_seconds": 1.0,
        "delegates": 0,
        "portable_ops": {"aten::add.out": 2},
        "calibration_clips": ["/x/cal.wav"],
        "validation_clips": ["/x/a.wav", "/x/b.wav"],
        "accuracy": accuracy,
    }
    text = render_report(report, {"a": "plots/a%20b.png"})
    assert "No NPU target: Vela did not run." in text
    assert "`aten::add.out`" in text and table[-1] in text
    assert "![a](plots/a%20b.png)" in text
    assert "int16 PCM frames" in text and "16 kHz" in text
    assert "## Recording conditions\n\nNot measured (`--conditions none`)." in text


def _conditions(clips: list[ClipProbabilities]) -> dict[str, dict]:
    """Two fake conditions: one with the clips as they are, one with every frame of clip
    a flipped to silence."""
    worse = [replace(clip, actual=np.full_like(clip.actual, 0.01)) for clip in clips]
    return {
        "clipped": accuracy_report(clips, actual="npu"),
        "level-30": accuracy_report(worse, actual="npu"),
    }


def test_conditions_table_runs_from_quiet_to_loud_with_the_clips_at_0_db() -> None:
    accuracy = accuracy_report(_clips())
    table = conditions_table(accuracy, _conditions(_clips())).splitlines()
    names = [line.split("|")[1].strip() for line in table[2:]]
    assert names == ["level-30", "clean (0 dB)", "clipped"]
    quiet = table[2].split("|")
    assert quiet[4].strip() == "20.00 %" and quiet[5].strip() == "20.00 %"  # 40 of 200 frames
    assert quiet[7].strip() == "0.000"  # clip a lost its only segment


def test_report_markdown_has_the_conditions_table() -> None:
    accuracy = accuracy_report(_clips())
    report = {
        **json.loads(json.dumps(_npu_report_dict(DEFAULT_CONFIG, "int16"))),
        "accuracy": accuracy,
        "conditions": _conditions(_clips()),
    }
    text = render_report(report)
    assert "## Recording conditions" in text and "| level-30 " in text
    assert "more than 0.1 from the threshold" in text


def _npu_report(model: ModelConfig, audio_input: str) -> str:
    return render_report(_npu_report_dict(model, audio_input))


def _npu_report_dict(model: ModelConfig, audio_input: str) -> dict:
    clips = [replace(clip, quantized=clip.actual) for clip in _clips()]
    return {
        "executorch_version": "1.4.1",
        "target": "ethos-u85-256",
        "sample_rate": 8000,
        "audio_input": audio_input,
        "model": model.to_dict(),
        "pte": "p.pte",
        "pte_bytes": 1,
        "pte_sha256": "0" * 64,
        "export_seconds": 1.0,
        "calibration_clips": [],
        "validation_clips": [],
        "accuracy": accuracy_report(clips),
    }


def test_report_says_what_the_twin_difference_should_be_for_its_arithmetic() -> None:
    """Generated text is true for the configuration it describes (no 'int8' on int16)."""
    int16 = _npu_report(DEFAULT_CONFIG, "int16")
    assert "with the int16 state fed back" in int16
    assert "small but not 0" in int16 and "exactly 0" not in int16
    assert "Silero VAD 8 kHz" in int16 and "int16 activations, int8 weights" in int16


def test_plot_clip_writes_a_png(tmp_path: Path) -> None:
    clip = _clips()[0]
    samples = np.random.default_rng(0).normal(0, 0.1, clip.num_samples).astype(np.float32)
    path = plot_clip(
        tmp_path / "plots" / "a.png",
        "a",
        samples,
        clip.float_model,
        clip.actual,
        speech_segments(clip.float_model, clip.num_samples),
        [],
        0.5,
    )
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
