# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""compare_vad_probs: the figures, the limits, and every input it must refuse."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from examples.arm.silero_vad.verification.compare_vad_probs import (
    ComparisonError,
    check_limits,
    compare_files,
    compare_probabilities,
    format_comparison,
    main,
    read_probabilities,
)
from examples.arm.silero_vad.verification.serial_protocol import LOG_MAX_ABS_ERROR, format_protocol

REFERENCE = np.array([0.1, 0.2, 0.6, 0.9, 0.4, 0.05], dtype=np.float32)
NUM_SAMPLES = REFERENCE.size * 512


def _bin(path: Path, values) -> Path:
    np.asarray(values, dtype="<f4").tofile(path)
    return path


def _log_lines(values=REFERENCE) -> list[bytes]:
    """A valid serial log, as lines (the last one is the 0x04 byte alone)."""
    return format_protocol(values, NUM_SAMPLES, 16000).split(b"\n")


def _log(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines))
    return path


def test_figures_of_a_known_difference() -> None:
    actual = REFERENCE + np.array([0, 0, -0.2, 0, 0.3, 0], dtype=np.float32)
    comparison = compare_probabilities(actual, REFERENCE, threshold=0.5)
    assert comparison.frames == 6
    assert comparison.max_abs == pytest.approx(0.3, abs=1e-6)
    assert comparison.worst_frame == 4
    assert comparison.mean_abs == pytest.approx(0.5 / 6, abs=1e-6)
    # 0.6 -> 0.4 leaves speech, 0.4 -> 0.7 enters it: two flips.
    assert (comparison.flips, comparison.first_flip) == (2, 2)


def test_confident_flips_need_a_sure_reference() -> None:
    """Only flips where the reference is more than CONFIDENCE_MARGIN from the threshold."""
    reference = np.array([0.55, 0.61, 0.39, 0.45, 0.9], dtype=np.float32)
    actual = np.array([0.45, 0.49, 0.51, 0.55, 0.1], dtype=np.float32)
    comparison = compare_probabilities(actual, reference, threshold=0.5)
    assert comparison.flips == 5
    assert comparison.confident_flips == 3  # 0.61, 0.39 and 0.9; not 0.55 or 0.45
    assert "flips=5 (confident 3)" in format_comparison(comparison)


def test_identical_inputs_are_exactly_zero() -> None:
    comparison = compare_probabilities(REFERENCE, REFERENCE.copy())
    assert (comparison.max_abs, comparison.mean_abs, comparison.flips) == (0.0, 0.0, 0)
    check_limits(comparison, max_abs=0, mean_abs=0, max_flips=0)


def test_threshold_decision_uses_greater_or_equal() -> None:
    comparison = compare_probabilities(np.array([0.5]), np.array([0.4999]), threshold=0.5)
    assert comparison.flips == 1


@pytest.mark.parametrize("flips", [1, 3])
def test_flip_limit_allows_exactly_n(flips: int) -> None:
    reference = np.full(10, 0.1, dtype=np.float32)
    actual = reference.copy()
    actual[:flips] = 0.9
    comparison = compare_probabilities(actual, reference)
    assert comparison.flips == flips
    check_limits(comparison, max_flips=flips)
    with pytest.raises(AssertionError, match=f"{flips} decision flip"):
        check_limits(comparison, max_flips=flips - 1)


def test_limit_failure_lists_every_exceeded_limit() -> None:
    comparison = compare_probabilities(np.array([0.9, 0.1]), np.array([0.1, 0.1]))
    with pytest.raises(AssertionError) as error:
        check_limits(comparison, max_abs=0.5, mean_abs=0.1, max_flips=0)
    message = str(error.value)
    assert "max abs error 0.8 > 0.5 (frame 0)" in message
    assert "mean abs error 0.4 > 0.1" in message
    assert "1 decision flip(s)" in message


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_in_bin_names_the_frame(tmp_path: Path, bad: float) -> None:
    path = _bin(tmp_path / "actual.bin", [0.1, 0.2, bad, 0.3])
    with pytest.raises(ComparisonError, match=r"actual\.bin: frame 2 is .*not finite"):
        read_probabilities(path)


def test_non_finite_in_log_names_the_line(tmp_path: Path) -> None:
    lines = _log_lines()
    assert lines[3].startswith(b"PROB 0.096 ")
    lines[3] = b"PROB 0.096 nan speech"
    path = _log(tmp_path / "device.log", lines)
    with pytest.raises(ComparisonError, match=r"device\.log: line 4: probability is nan"):
        read_probabilities(path)


def test_frame_count_mismatch_says_both_counts(tmp_path: Path) -> None:
    actual = _bin(tmp_path / "actual.bin", REFERENCE[:-1])
    reference = _bin(tmp_path / "reference.bin", REFERENCE)
    with pytest.raises(ComparisonError, match=r"actual\.bin has 5 frames, .*reference\.bin has 6"):
        compare_files(actual, reference)


@pytest.mark.parametrize(
    "cut, message",
    [
        ("before_eot", r"no end-of-transmission \(0x04\): truncated"),
        ("before_done", r"no DONE line: truncated"),
        ("mid_line", r"no end-of-transmission"),
    ],
)
def test_truncated_log_is_rejected(tmp_path: Path, cut: str, message: str) -> None:
    lines = _log_lines()
    if cut == "before_eot":
        lines = lines[:-1]
    elif cut == "before_done":
        lines = [line for line in lines if not line.startswith(b"DONE")]
    else:
        lines = lines[:3] + [lines[3][:9]]
    path = _log(tmp_path / "device.log", lines)
    with pytest.raises(ComparisonError, match=message):
        read_probabilities(path)


def test_missing_frame_line_is_rejected(tmp_path: Path) -> None:
    lines = _log_lines()
    del lines[2]  # frame 2 is gone, and DONE no longer matches either
    path = _log(tmp_path / "device.log", lines)
    with pytest.raises(ComparisonError, match=r"line 3: frame 2 at 0.096 s, expected 0.064 s"):
        read_probabilities(path)


def test_garbled_line_is_named(tmp_path: Path) -> None:
    lines = _log_lines()
    lines[1] = b"PR\xff\xfeB 0.032 0.200000 silence"
    path = _log(tmp_path / "device.log", lines)
    with pytest.raises(ComparisonError, match=r"device\.log: line 2: not a protocol line"):
        read_probabilities(path)


def test_bin_with_partial_value_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "actual.bin"
    path.write_bytes(REFERENCE.astype("<f4").tobytes()[:-1])
    with pytest.raises(ComparisonError, match="not a whole number of float32"):
        read_probabilities(path)


def test_binary_data_under_another_name_is_not_read_as_a_log(tmp_path: Path) -> None:
    path = _bin(tmp_path / "actual.dat", np.linspace(0.2, 0.9, 64))
    with pytest.raises(ComparisonError, match=r"binary data, not a serial log"):
        read_probabilities(path)


def test_log_matches_its_bin_to_six_decimals(tmp_path: Path) -> None:
    values = np.random.default_rng(0).random(50).astype(np.float32)
    log = _log(tmp_path / "device.log", format_protocol(values, 50 * 512, 16000).split(b"\n"))
    comparison = compare_files(log, _bin(tmp_path / "reference.bin", values))
    assert comparison.frames == 50 and comparison.flips == 0
    assert comparison.max_abs <= LOG_MAX_ABS_ERROR


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reference = _bin(tmp_path / "reference.bin", REFERENCE)
    log = _log(tmp_path / "device.log", _log_lines())
    assert main([str(log), str(reference), "--max-abs", "1e-6", "--max-flips", "0"]) == 0
    assert "PASS" in capsys.readouterr().out

    shifted = _bin(tmp_path / "shifted.bin", REFERENCE + 0.15)  # 0.4 -> 0.55 flips
    assert main([str(shifted), str(reference), "--max-flips", "1"]) == 0
    assert main([str(shifted), str(reference), "--max-flips", "0"]) == 1
    assert main([str(shifted), str(reference), "--mean-abs", "0.1"]) == 1
    assert "FAIL" in capsys.readouterr().err

    short = _bin(tmp_path / "short.bin", REFERENCE[:2])
    assert main([str(short), str(reference)]) == 2
    assert main([str(tmp_path / "missing.log"), str(reference)]) == 2
    assert "ERROR" in capsys.readouterr().err

    with pytest.raises(SystemExit) as usage:
        main([str(log), str(reference), "--threshold", "1.5"])
    assert usage.value.code == 2


def _edited_log(tmp_path: Path, edit) -> Path:
    lines = _log_lines()
    edit(lines)
    return _log(tmp_path / "device.log", lines)


def _insert_error(lines: list[bytes]) -> None:
    lines.insert(3, b"ERROR model output at frame 3 is not finite")


def _line_after_done(lines: list[bytes]) -> None:
    done = next(i for i, line in enumerate(lines) if line.startswith(b"DONE"))
    lines.insert(done + 1, b"PROB 0.192 0.100000 silence")


def _done_counts_wrong(lines: list[bytes]) -> None:
    # Every PROB line is intact (no frame-time error can fire first): only DONE lies.
    done = next(i for i, line in enumerate(lines) if line.startswith(b"DONE"))
    lines[done] = b"DONE frames=7 segments=0"


def _no_prob_lines(lines: list[bytes]) -> None:
    lines[:] = [b"DONE frames=0 segments=0", b"\x04"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (_insert_error, r"line 4: device reported ERROR model output at frame 3"),
        (_line_after_done, r"line \d+: 'PROB 0.192 0.100000 silence' after DONE"),
        (_done_counts_wrong, r"DONE says frames=7 segments=0, the log has 6 PROB and 0 SEGMENT"),
        (_no_prob_lines, r"device\.log: no PROB lines \(0 frames\)"),
    ],
    ids=["device_error", "line_after_done", "done_counts_disagree", "no_prob_lines"],
)
def test_log_error_paths_name_the_file_and_line(tmp_path: Path, edit, message: str) -> None:
    path = _edited_log(tmp_path, edit)
    with pytest.raises(ComparisonError, match=message):
        read_probabilities(path)


def test_empty_bin_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    with pytest.raises(ComparisonError, match=r"empty\.bin: empty \(0 frames\)"):
        read_probabilities(path)


def test_bin_holding_a_log_is_rejected(tmp_path: Path) -> None:
    path = _log(tmp_path / "device.bin", _log_lines())
    with pytest.raises(ComparisonError, match=r"device\.bin: looks like a serial log"):
        read_probabilities(path)


@pytest.mark.parametrize(
    "option, value",
    [
        ("--max-abs", "-0.1"),
        ("--max-abs", "nan"),
        ("--max-abs", "inf"),
        ("--max-abs", "lots"),
        ("--max-flips", "-1"),
        ("--max-flips", "1.5"),
        ("--mean-abs", "-1"),
    ],
)
def test_cli_refuses_bad_limits(
    tmp_path: Path, option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = _bin(tmp_path / "reference.bin", REFERENCE)
    with pytest.raises(SystemExit) as usage:
        main([str(reference), str(reference), option, value])
    assert usage.value.code == 2
    assert option in capsys.readouterr().err
