# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD as a Python stream processor over the exported program, for Linux-class hosts.

``StreamingVad`` runs a host ``.pte`` on ExecuTorch's Python runtime over 16-bit PCM chunks
of any length: the XNNPACK program (``run.sh --target xnnpack``, float Silero, the one to
use) or the NPU's quantized arithmetic on the portable kernels (``--target cpu``, its host
reference). It keeps what the C++ runtime keeps (context samples, the state inside the
program) with the same segmenter, so its probabilities and segments are the C++ runner's
(usage: the example README's "Python streaming API"). It imports only what runs a program
(``host_runtime.py``), so a product using it prints nothing it did not print itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from examples.arm.silero_vad.streaming.cpu_program import load_forward, read_cpu_program
from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig, SpeechSegmenter


@dataclass(frozen=True)
class SpeechSegment:
    """One speech segment, in samples of the stream (end exclusive) and in seconds."""

    start: int
    end: int
    sample_rate: int

    @property
    def start_s(self) -> float:
        return self.start / self.sample_rate

    @property
    def end_s(self) -> float:
        return self.end / self.sample_rate


@dataclass
class StreamUpdate:
    """One call's probabilities (frames from ``first_frame`` on) and final segments."""

    first_frame: int
    probabilities: np.ndarray
    segments: list[SpeechSegment] = field(default_factory=list)


class StreamingVad:
    """Feeds PCM chunks through a Silero VAD program, one 32 ms frame at a time."""

    def __init__(self, pte: str | Path, config: SegmenterConfig | None = None) -> None:
        self.path = Path(pte)
        self.config = config or SegmenterConfig()
        self._program_bytes = read_cpu_program(self.path)
        self.reset()

    @property
    def sample_rate(self) -> int:
        return self.geometry.sample_rate

    def reset(self) -> None:
        """Starts a new stream: zero context, the program's initial state, a new segmenter."""
        self._method, self.geometry, self._dtype = load_forward(self._program_bytes, str(self.path))
        g = self.geometry
        self._frame = np.zeros(g.frame_samples, dtype=np.int16)  # context, then new samples
        # The program's input, sharing memory with the frame (or its float32 copy).
        self._audio = (
            self._frame if self._dtype is np.int16 else np.zeros_like(self._frame, np.float32)
        )
        self._input = torch.from_numpy(self._audio[None, :])
        self._filled = 0  # new samples in the frame so far
        self._frames = 0
        self._samples = 0
        self._segmenter = SpeechSegmenter(self.config, g.sample_rate)
        self._finished = False

    def process(self, pcm: np.ndarray | bytes) -> StreamUpdate:
        """Consumes a chunk of mono int16 PCM (an array, or little-endian bytes)."""
        if self._finished:
            raise RuntimeError("the stream has ended (finish() was called): reset() first")
        samples = _as_pcm16(pcm)
        update = StreamUpdate(self._frames, np.empty(0, dtype=np.float32))
        probabilities = []
        context, hop = self.geometry.context_samples, self.geometry.hop_samples
        position = 0
        while position < samples.size:
            take = min(hop - self._filled, samples.size - position)
            start = context + self._filled
            self._frame[start : start + take] = samples[position : position + take]
            self._filled += take
            position += take
            if self._filled == hop:
                probabilities.append(self._run_frame(update))
        self._samples += samples.size
        update.probabilities = np.asarray(probabilities, dtype=np.float32)
        return update

    def finish(self) -> StreamUpdate:
        """Ends the stream: runs the zero-padded last frame, closes the open segment."""
        if self._finished:
            raise RuntimeError("finish() was already called: reset() first")
        update = StreamUpdate(self._frames, np.empty(0, dtype=np.float32))
        if self._filled:
            context = self.geometry.context_samples
            self._frame[context + self._filled :] = 0
            update.probabilities = np.asarray([self._run_frame(update)], dtype=np.float32)
        self._add_segments(update, self._segmenter.finish(self._samples))
        self._finished = True
        return update

    def _run_frame(self, update: StreamUpdate) -> float:
        if self._audio is not self._frame:
            np.divide(self._frame, 32768.0, out=self._audio, casting="same_kind")
        (output,) = self._method.execute([self._input], clone_outputs=False)
        probability = output.item()
        if not math.isfinite(probability):
            raise RuntimeError(f"{self.path}: frame {self._frames}: output {probability}")
        self._add_segments(update, self._segmenter.push(probability))
        self._frames += 1
        # The last context samples of this frame start the next one.
        context = self.geometry.context_samples
        self._frame[:context] = self._frame[-context:]
        self._filled = 0
        return probability

    def _add_segments(self, update: StreamUpdate, segments: list[tuple[int, int]]) -> None:
        rate = self.geometry.sample_rate
        update.segments.extend(SpeechSegment(start, end, rate) for start, end in segments)


def _as_pcm16(pcm: np.ndarray | bytes) -> np.ndarray:
    if isinstance(pcm, (bytes, bytearray, memoryview)):
        if len(pcm) % 2:
            raise ValueError(f"{len(pcm)} bytes of S16_LE PCM: not a whole number of samples")
        return np.frombuffer(pcm, dtype="<i2")
    samples = np.asarray(pcm)
    if samples.dtype != np.int16 or samples.ndim != 1:
        raise ValueError(f"PCM must be a 1-D int16 array, got {samples.dtype} {samples.shape}")
    return samples
