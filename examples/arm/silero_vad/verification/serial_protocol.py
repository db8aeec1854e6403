# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The runtime's serial protocol, written by the device twin and read by the compare tool.

``PROB <time_s %.3f> <probability %.6f> speech|silence``, ``SEGMENT <start_s> <end_s>``
(as the segmenter emits them), ``DONE frames=<n> segments=<m>``, one per line, then 0x04;
errors are ``ERROR `` lines. PROB times step by 0.032 s for both of Silero's models.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_16K, frame_geometry
from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig, SpeechSegmenter

END_OF_TRANSMISSION = b"\x04"
# A PROB line has 6 decimals (rounding error 5e-7) and is read back as float32 (half an
# ulp below 1.0: 2**-25), so a log differs from the values it printed by at most this.
LOG_MAX_ABS_ERROR = 5e-7 + 2**-25
_PROB = re.compile(r"PROB (\S+) (\S+) (speech|silence)")
_SEGMENT = re.compile(r"SEGMENT (\S+) (\S+)")
_DONE = re.compile(r"DONE frames=(\d+) segments=(\d+)")


class ProtocolError(ValueError):
    """A serial log that does not follow the protocol; the message names the line."""


@dataclass
class SerialLog:
    probabilities: np.ndarray
    segments_s: list[tuple[float, float]] = field(default_factory=list)


def format_protocol(
    probabilities: Sequence[float],
    num_samples: int,
    sample_rate: int,
    config: SegmenterConfig | None = None,
) -> bytes:
    """The bytes a device prints for these probabilities, segments emitted online."""
    segmenter = SpeechSegmenter(config, sample_rate)
    frame_seconds = frame_geometry(sample_rate).frame_seconds
    lines: list[str] = []

    def add_segments(segments: list[tuple[int, int]]) -> None:
        lines.extend(f"SEGMENT {s / sample_rate:.3f} {e / sample_rate:.3f}" for s, e in segments)

    for index, probability in enumerate(probabilities):
        decision = "speech" if probability >= segmenter.config.threshold else "silence"
        lines.append(f"PROB {index * frame_seconds:.3f} {probability:.6f} {decision}")
        add_segments(segmenter.push(probability))
    add_segments(segmenter.finish(num_samples))
    count = sum(line.startswith("SEGMENT") for line in lines)
    lines.append(f"DONE frames={len(probabilities)} segments={count}")
    return ("\n".join(lines) + "\n").encode() + END_OF_TRANSMISSION


def _finite(text: str, where: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ProtocolError(f"{where}: {what} '{text}' is not a number") from None
    if not math.isfinite(value):
        raise ProtocolError(f"{where}: {what} is {text} (not finite)")
    return value


def parse_protocol(data: bytes, source: str = "log") -> SerialLog:
    """Reads a serial log; anything off-protocol raises ProtocolError naming the line."""
    body, end, _ = data.decode("utf-8", errors="replace").partition(END_OF_TRANSMISSION.decode())
    if not end:
        raise ProtocolError(f"{source}: no end-of-transmission (0x04): truncated log?")
    probabilities: list[float] = []
    segments: list[tuple[float, float]] = []
    done: tuple[int, int] | None = None
    for line_number, line in enumerate(body.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        where = f"{source}: line {line_number}"
        if done is not None:
            raise ProtocolError(f"{where}: '{line}' after DONE")
        if line.startswith("ERROR "):
            raise ProtocolError(f"{where}: device reported {line}")
        if match := _PROB.fullmatch(line):
            time_s = _finite(match.group(1), where, "time")
            expected = len(probabilities) * GEOMETRY_16K.frame_seconds  # 0.032 s at 8 kHz too
            if abs(time_s - expected) > 0.0015:
                raise ProtocolError(
                    f"{where}: frame {len(probabilities)} at {time_s} s, "
                    f"expected {expected:.3f} s (a missing or repeated frame)"
                )
            probabilities.append(_finite(match.group(2), where, "probability"))
        elif match := _SEGMENT.fullmatch(line):
            start = _finite(match.group(1), where, "segment start")
            segments.append((start, _finite(match.group(2), where, "segment end")))
        elif match := _DONE.fullmatch(line):
            done = (int(match.group(1)), int(match.group(2)))
        else:
            raise ProtocolError(f"{where}: not a protocol line: '{line}'")
    if done is None:
        raise ProtocolError(f"{source}: no DONE line: truncated log?")
    if done != (len(probabilities), len(segments)):
        raise ProtocolError(
            f"{source}: DONE says frames={done[0]} segments={done[1]}, "
            f"the log has {len(probabilities)} PROB and {len(segments)} SEGMENT lines"
        )
    return SerialLog(np.asarray(probabilities, dtype=np.float32), segments)
