# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Progress of the long frame loops on stderr: one line redrawn in place on a terminal
(frames, frames per second, time left), else one line per finished clip."""

from __future__ import annotations

import sys
import time

_REDRAW_SECONDS = 0.25


class FrameProgress:
    """``start_clip`` / ``advance`` per frame / ``finish_clip``, for one named task."""

    def __init__(self, task: str, total_frames: int) -> None:
        self.task = task
        self.total = total_frames
        self.stream = sys.stderr
        self.interactive = self.stream.isatty()
        self.done = 0
        self._start = time.monotonic()
        self._last_draw = 0.0
        self.start_clip("")

    def start_clip(self, name: str) -> None:
        self._clip = name
        self._clip_start = time.monotonic()
        self._clip_frames = 0

    def advance(self, frames: int = 1) -> None:
        self.done += frames
        self._clip_frames += frames
        now = time.monotonic()
        if self.interactive and now - self._last_draw >= _REDRAW_SECONDS:
            self._last_draw = now
            self.stream.write("\r" + self._status(now) + "\033[K")
            self.stream.flush()

    def finish_clip(self) -> None:
        now = time.monotonic()
        seconds = max(now - self._clip_start, 1e-9)
        line = (
            f"{self.task}: {self._clip}: {self._clip_frames} frames in {seconds:.1f} s "
            f"({self._clip_frames / seconds:.0f} frames/s; {self.done}/{self.total} in all)"
        )
        self.stream.write(("\r" + line + "\033[K" if self.interactive else line) + "\n")
        self.stream.flush()

    def record_clip(self, name: str, frames: int, seconds: float) -> None:
        """A clip another process ran: counted and reported as if it ran here."""
        self.start_clip(name)
        self._clip_start = time.monotonic() - seconds
        self.advance(frames)
        self.finish_clip()

    def _status(self, now: float) -> str:
        elapsed = max(now - self._start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        return (
            f"{self.task}: {self._clip} {self.done}/{self.total} frames, "
            f"{rate:.0f} frames/s, {left:.0f} s left"
        )
