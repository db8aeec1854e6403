# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Streaming speech segmenter with the semantics of silero-vad's ``get_speech_timestamps``.

The Python twin of the C++ runtime's ``speech_segmenter``: one probability per frame in,
``(start_sample, end_sample)`` segments out as soon as their padded boundaries are known,
sample for sample those of silero-vad 6.2.3 on the same probabilities (specification in
``examples/arm/silero_vad/README.md``; parameter names are silero-vad's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from examples.arm.silero_vad.model_export.frame_geometry import DEFAULT_SAMPLE_RATE, frame_geometry


@dataclass(frozen=True)
class SegmenterConfig:
    """silero-vad's ``get_speech_timestamps`` parameters, with its defaults."""

    threshold: float = 0.5
    neg_threshold: float | None = None  # None: max(threshold - 0.15, 0.01)
    min_speech_duration_ms: float = 250
    min_silence_duration_ms: float = 100
    speech_pad_ms: float = 30
    max_speech_duration_s: float = math.inf
    min_silence_at_max_speech: float = 98
    use_max_poss_sil_at_max_speech: bool = True

    @property
    def exit_threshold(self) -> float:
        if self.neg_threshold is not None:
            return self.neg_threshold
        return max(self.threshold - 0.15, 0.01)


@dataclass
class _Segment:
    start: int
    end: int


class SpeechSegmenter:
    """Turns per-frame speech probabilities into padded speech segments, online.

    Detection (``_detect``) is silero-vad's per-frame state machine. Padding widens each kept
    segment by ``speech_pad_ms``, or half the gap to a closer neighbour; a segment is
    emitted once the next kept segment, or the certainty that none can start within two
    pads, fixes its end.
    """

    def __init__(
        self, config: SegmenterConfig | None = None, sample_rate: int = DEFAULT_SAMPLE_RATE
    ) -> None:
        self.config = config or SegmenterConfig()
        self.sample_rate = sample_rate
        rate = sample_rate
        hop = self._hop = frame_geometry(sample_rate).hop_samples  # silero's window size
        c = self.config
        self._min_speech = rate * c.min_speech_duration_ms / 1000
        self._pad = rate * c.speech_pad_ms / 1000
        self._max_speech = rate * c.max_speech_duration_s - hop - 2 * self._pad
        self._min_silence = rate * c.min_silence_duration_ms / 1000
        self._min_silence_at_max = rate * c.min_silence_at_max_speech / 1000
        self._exit = c.exit_threshold
        # Detection state (names follow silero-vad's).
        self._frame = 0
        self._triggered = False
        self._start: int | None = None  # start of the segment being detected
        self._temp_end = 0
        self._prev_end = 0
        self._next_start = 0
        self._possible_ends: list[tuple[int, int]] = []
        # Padding state: the last kept segment, its start already padded.
        self._pending: _Segment | None = None

    def push(self, probability: float) -> list[tuple[int, int]]:
        """Consumes one frame's probability; returns the segments that became final."""
        emitted: list[tuple[int, int]] = []
        self._detect(float(probability), emitted)
        self._frame += 1
        self._emit_if_isolated(emitted)
        return emitted

    def finish(self, audio_length_samples: int) -> list[tuple[int, int]]:
        """Ends the stream of ``audio_length_samples`` samples; returns the remaining segments."""
        emitted: list[tuple[int, int]] = []
        if self._start is not None and audio_length_samples - self._start > self._min_speech:
            self._keep(self._start, audio_length_samples, emitted)
        self._start = None
        if self._pending is not None:
            end = int(min(audio_length_samples, self._pending.end + self._pad))
            emitted.append((self._pending.start, end))
            self._pending = None
        return emitted

    def _detect(self, probability: float, emitted: list[tuple[int, int]]) -> None:
        sample = self._hop * self._frame
        if probability >= self.config.threshold and self._temp_end:
            silence = sample - self._temp_end
            if silence > self._min_silence_at_max:
                self._possible_ends.append((self._temp_end, silence))
            self._temp_end = 0
            if self._next_start < self._prev_end:
                self._next_start = sample

        if probability >= self.config.threshold and not self._triggered:
            self._triggered = True
            self._start = sample
            return

        if self._triggered and sample - self._start > self._max_speech:
            if self._cut_at_max_speech(sample, emitted):
                return

        if probability < self._exit and self._triggered:
            if not self._temp_end:
                self._temp_end = sample
            silence = sample - self._temp_end
            if (
                not self.config.use_max_poss_sil_at_max_speech
                and silence > self._min_silence_at_max
            ):
                self._prev_end = self._temp_end
            if silence < self._min_silence:
                return
            if self._temp_end - self._start > self._min_speech:
                self._keep(self._start, self._temp_end, emitted)
            self._start = None
            self._reset_detection()

    def _cut_at_max_speech(self, sample: int, emitted: list[tuple[int, int]]) -> bool:
        """Splits a segment that reached the maximum length; True ends this frame's work."""
        if self.config.use_max_poss_sil_at_max_speech and self._possible_ends:
            end, silence = max(self._possible_ends, key=lambda item: item[1])
            self._keep(self._start, end, emitted)
            next_start = end + silence
            self._start = next_start if next_start < end + sample else None
        elif self._prev_end:
            self._keep(self._start, self._prev_end, emitted)
            self._start = None if self._next_start < self._prev_end else self._next_start
        else:
            self._keep(self._start, sample, emitted)
            self._start = None
            self._reset_detection()
            return True
        self._reset_detection(triggered=self._start is not None)
        return False

    def _reset_detection(self, triggered: bool = False) -> None:
        self._prev_end = self._next_start = self._temp_end = 0
        self._triggered = triggered
        self._possible_ends = []

    def _keep(self, start: int, end: int, emitted: list[tuple[int, int]]) -> None:
        """A detected segment survived: pad the previous one against it, hold this one."""
        if self._pending is None:
            # First segment, or the previous one was emitted as isolated (gap >= 2 pads).
            padded_start = int(max(0, start - self._pad))
        else:
            gap = start - self._pending.end
            if gap < 2 * self._pad:
                emitted.append((self._pending.start, self._pending.end + gap // 2))
                padded_start = int(max(0, start - gap // 2))
            else:
                emitted.append((self._pending.start, int(self._pending.end + self._pad)))
                padded_start = int(max(0, start - self._pad))
        self._pending = _Segment(padded_start, end)

    def _emit_if_isolated(self, emitted: list[tuple[int, int]]) -> None:
        """Emits the held segment once no kept segment can start within two pads of its end."""
        if self._pending is None:
            return
        end = self._pending.end
        earliest_next = self._start if self._start is not None else self._hop * self._frame
        # This frame proves the stream reaches past end + pad: no clamp to its length.
        length_at_least = self._hop * (self._frame - 1) + 1
        if earliest_next >= end + 2 * self._pad and length_at_least >= end + self._pad:
            emitted.append((self._pending.start, int(end + self._pad)))
            # The next kept segment is then padded by a full pad, like any later one.
            self._pending = None


def speech_segments(
    probabilities: Iterable[float],
    audio_length_samples: int,
    config: SegmenterConfig | None = None,
    sample_rate: int = DEFAULT_SAMPLE_RATE,
) -> list[tuple[int, int]]:
    """All segments of one stream, in samples at ``sample_rate``."""
    segmenter = SpeechSegmenter(config, sample_rate)
    segments: list[tuple[int, int]] = []
    for probability in probabilities:
        segments.extend(segmenter.push(probability))
    segments.extend(segmenter.finish(audio_length_samples))
    return segments
