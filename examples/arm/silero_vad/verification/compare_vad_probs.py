# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Compares a run's speech probabilities with a reference, frame by frame, with a verdict::

    python -m examples.arm.silero_vad.verification.compare_vad_probs DEVICE.log \\
        out/silero_vad/reference/CLIP.quantized.bin --max-abs 0 --max-flips 0

Flips are frames whose decision ``p >= threshold`` differs.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from examples.arm.silero_vad.verification.cli import exit_on_errors
from examples.arm.silero_vad.verification.serial_protocol import ProtocolError, parse_protocol

DEFAULT_THRESHOLD = 0.5
# Float Silero itself tips near-ties under a 1-LSB dither of its input: a flip further
# than this from the threshold is an error of the device.
CONFIDENCE_MARGIN = 0.1
_LOG_KEYWORDS = (b"PROB ", b"SEGMENT ", b"DONE ", b"ERROR ")


class ComparisonError(ValueError):
    """Inputs that cannot be compared; the message names the file and the frame or line."""


@dataclass(frozen=True)
class Comparison:
    """Frame-by-frame agreement of two probability sequences of equal length."""

    frames: int
    max_abs: float
    mean_abs: float
    flips: int
    threshold: float
    worst_frame: int  # index of the largest absolute error (first one on ties)
    first_flip: int | None  # index of the first decision mismatch, None without flips
    confident_flips: int = 0  # flips where the reference is beyond CONFIDENCE_MARGIN


def _check_finite(values: np.ndarray, what: str) -> None:
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise ComparisonError(
            f"{what}: frame {bad[0]} is {values[bad[0]]} (not finite; "
            f"{bad.size} non-finite frame(s) in all)"
        )


def compare_probabilities(
    actual: np.ndarray,
    reference: np.ndarray,
    threshold: float = DEFAULT_THRESHOLD,
    actual_name: str = "actual",
    reference_name: str = "reference",
) -> Comparison:
    """Errors and decision flips of ``actual`` against ``reference``, in float64 (a float32
    round-trip is exact); the accuracy report and the CLI both measure with it."""
    actual = np.asarray(actual, dtype=np.float64).reshape(-1)
    reference = np.asarray(reference, dtype=np.float64).reshape(-1)
    _check_finite(actual, actual_name)
    _check_finite(reference, reference_name)
    if actual.size != reference.size:
        raise ComparisonError(
            f"frame counts differ: {actual_name} has {actual.size} frames, "
            f"{reference_name} has {reference.size}"
        )
    if actual.size == 0:
        raise ComparisonError(f"{actual_name} and {reference_name} have no frames")
    errors = np.abs(actual - reference)
    flipped = (actual >= threshold) != (reference >= threshold)
    flip_frames = np.flatnonzero(flipped)
    confident = flipped & (np.abs(reference - threshold) > CONFIDENCE_MARGIN)
    return Comparison(
        frames=int(actual.size),
        max_abs=float(errors.max()),
        mean_abs=float(errors.mean()),
        flips=int(flip_frames.size),
        threshold=float(threshold),
        worst_frame=int(errors.argmax()),
        first_flip=int(flip_frames[0]) if flip_frames.size else None,
        confident_flips=int(confident.sum()),
    )


def check_limits(
    comparison: Comparison,
    max_abs: float | None = None,
    mean_abs: float | None = None,
    max_flips: int | None = None,
) -> None:
    """Raises AssertionError listing every exceeded limit (inclusive; None: unchecked)."""
    failures = []
    if max_abs is not None and comparison.max_abs > max_abs:
        failures.append(
            f"max abs error {comparison.max_abs:.6g} > {max_abs:g} (frame {comparison.worst_frame})"
        )
    if mean_abs is not None and comparison.mean_abs > mean_abs:
        failures.append(f"mean abs error {comparison.mean_abs:.6g} > {mean_abs:g}")
    if max_flips is not None and comparison.flips > max_flips:
        failures.append(
            f"{comparison.flips} decision flip(s) at threshold {comparison.threshold:g} "
            f"> {max_flips} (first at frame {comparison.first_flip})"
        )
    if failures:
        raise AssertionError(
            f"probabilities outside the limits over {comparison.frames} frames: "
            + "; ".join(failures)
        )


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise ComparisonError(f"{path}: cannot read ({error.strerror})") from None


def read_bin(path: Path) -> np.ndarray:
    """A float32 little-endian ``.bin``: checks it is whole, non-empty and finite."""
    data = _read_bytes(path)
    if data.startswith(_LOG_KEYWORDS):
        raise ComparisonError(f"{path}: looks like a serial log, but .bin means float32 data")
    if len(data) % 4:
        raise ComparisonError(
            f"{path}: {len(data)} bytes is not a whole number of float32 values (truncated?)"
        )
    values = np.frombuffer(data, dtype="<f4")
    if values.size == 0:
        raise ComparisonError(f"{path}: empty (0 frames)")
    _check_finite(values, str(path))
    return values.astype(np.float32)


def read_log(path: Path) -> np.ndarray:
    """The probabilities of a serial log (every line is checked by the protocol parser)."""
    data = _read_bytes(path)
    # Binary: more than a tenth of the first 4 KiB are not text (a garbled log line is
    # only a few bytes, which the parser names).
    text = sum(32 <= byte < 127 or byte in b"\t\r\n\x04" for byte in data[:4096])
    if data and text < 0.9 * min(len(data), 4096):
        raise ComparisonError(
            f"{path}: binary data, not a serial log (float32 files must be named *.bin)"
        )
    try:
        log = parse_protocol(data, source=str(path))
    except ProtocolError as error:
        raise ComparisonError(str(error)) from None
    if log.probabilities.size == 0:
        raise ComparisonError(f"{path}: no PROB lines (0 frames)")
    return log.probabilities


def read_probabilities(path: Path) -> np.ndarray:
    """``.bin`` files as float32 little-endian, every other file as a serial log."""
    path = Path(path)
    return read_bin(path) if path.suffix.lower() == ".bin" else read_log(path)


def compare_files(
    actual: Path, reference: Path, threshold: float = DEFAULT_THRESHOLD
) -> Comparison:
    """Reads both files (see :func:`read_probabilities`) and compares them."""
    values = read_probabilities(actual), read_bin(Path(reference))
    return compare_probabilities(*values, threshold, str(actual), str(reference))


def format_comparison(comparison: Comparison) -> str:
    return (
        f"frames={comparison.frames} max_abs={comparison.max_abs:.6f} "
        f"(frame {comparison.worst_frame}) mean_abs={comparison.mean_abs:.6f} "
        f"flips={comparison.flips} (confident {comparison.confident_flips}) at threshold "
        f"{comparison.threshold:g}"
    )


def probability_arg(text: str) -> float:
    """argparse type for a threshold: a float in [0, 1]."""
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a probability in [0, 1]")
    return value


def _limit(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a finite, non-negative limit")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


@exit_on_errors(ComparisonError)
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m examples.arm.silero_vad.verification.compare_vad_probs",
        description="Compare per-frame speech probabilities (a serial log or a float32 .bin) "
        "with a reference .bin. Exit status: 0 within the limits, 1 a limit exceeded, "
        "2 unusable input.",
    )
    parser.add_argument("actual", type=Path, help="serial log, or float32 LE file named *.bin")
    parser.add_argument("reference", type=Path, help="float32 little-endian .bin")
    parser.add_argument(
        "--threshold",
        type=probability_arg,
        default=DEFAULT_THRESHOLD,
        help=f"speech decision threshold for counting flips (default {DEFAULT_THRESHOLD})",
    )
    parser.add_argument("--max-abs", type=_limit, help="fail above this max abs error")
    parser.add_argument("--mean-abs", type=_limit, help="fail above this mean abs error")
    parser.add_argument("--max-flips", type=_count, help="fail with more decision flips")
    args = parser.parse_args(argv)
    comparison = compare_files(args.actual, args.reference, args.threshold)
    print(f"{args.actual} vs {args.reference}: {format_comparison(comparison)}")
    try:
        check_limits(comparison, args.max_abs, args.mean_abs, args.max_flips)
    except AssertionError as error:
        print(f"FAIL {error}", file=sys.stderr)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
