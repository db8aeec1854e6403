# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The Python streaming API: chunks of any size give the program's frames and segments."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.export_silero_vad import ExportResult
from examples.arm.silero_vad.streaming.cpu_program import CpuProgramError
from examples.arm.silero_vad.streaming.speech_segmenter import SegmenterConfig, speech_segments
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad, StreamUpdate
from examples.arm.silero_vad.verification.program_reference import (
    program_probabilities,
)

REPO_ROOT = Path(__file__).resolve().parents[4]


def _stream_through(
    vad: StreamingVad, stream: AudioStream, chunk_sizes: np.ndarray, as_bytes: np.ndarray
) -> tuple[np.ndarray, list[tuple[int, int]], list[int]]:
    """Feeds the clip in the given chunks; returns probabilities, segments, first frames."""
    updates: list[StreamUpdate] = []
    position = 0
    for size, raw in zip(chunk_sizes, as_bytes, strict=False):
        chunk = stream.pcm[position : position + size]
        updates.append(vad.process(chunk.tobytes() if raw else chunk))
        position += size
        if position >= stream.num_samples:
            break
    assert position >= stream.num_samples
    updates.append(vad.finish())
    probabilities = np.concatenate([update.probabilities for update in updates])
    segments = [(s.start, s.end) for update in updates for s in update.segments]
    return probabilities, segments, [update.first_frame for update in updates]


@pytest.fixture(scope="module")
def streaming_vad(silero_cpu_export: ExportResult) -> StreamingVad:
    return StreamingVad(silero_cpu_export.pte_path)


def test_any_chunking_gives_the_programs_frames_and_segments(
    streaming_vad: StreamingVad, silero_cpu_export: ExportResult
) -> None:
    rng = np.random.default_rng(17)
    stream = silero_cpu_export.validation_streams[0]
    program = program_probabilities(silero_cpu_export.pte_path.read_bytes(), stream)
    expected_segments = speech_segments(program, stream.num_samples)
    assert expected_segments, "a speech clip without speech"
    chunkings = {
        "random": rng.integers(1, 4000, size=stream.num_samples),
        "whole_clip": np.array([stream.num_samples]),
        "exact_frames": np.full(stream.num_frames, 512),
    }
    for name, sizes in chunkings.items():
        streaming_vad.reset()
        as_bytes = rng.integers(0, 2, size=sizes.size).astype(bool)
        probabilities, segments, firsts = _stream_through(streaming_vad, stream, sizes, as_bytes)
        np.testing.assert_array_equal(probabilities, program, err_msg=name)
        assert segments == expected_segments, name
        assert firsts == sorted(firsts), name


def test_sample_by_sample_equals_one_block(streaming_vad: StreamingVad) -> None:
    pcm = (np.sin(np.arange(3000) * 0.05) * 8000).astype(np.int16)
    streaming_vad.reset()
    by_sample = np.concatenate(
        [streaming_vad.process(pcm[i : i + 1]).probabilities for i in range(pcm.size)]
        + [streaming_vad.finish().probabilities]
    )
    streaming_vad.reset()
    block = np.concatenate(
        [streaming_vad.process(pcm).probabilities, streaming_vad.finish().probabilities]
    )
    assert by_sample.size == block.size == 6  # ceil(3000 / 512)
    np.testing.assert_array_equal(by_sample, block)


def test_reset_starts_an_unrelated_stream(
    streaming_vad: StreamingVad, silero_cpu_export: ExportResult
) -> None:
    first, second = silero_cpu_export.validation_streams[:2]
    streaming_vad.reset()
    streaming_vad.process(first.pcm)
    streaming_vad.finish()
    streaming_vad.reset()
    after_reset = streaming_vad.process(second.pcm).probabilities
    program = program_probabilities(silero_cpu_export.pte_path.read_bytes(), second)
    np.testing.assert_array_equal(after_reset, program[: after_reset.size])
    # Without the reset, the state and context of the first clip would carry over.
    streaming_vad.reset()
    streaming_vad.process(first.pcm)
    carried = streaming_vad.process(second.pcm).probabilities
    assert not np.array_equal(carried[:20], program[:20])


def test_segmenter_parameters_are_silero_s(
    streaming_vad: StreamingVad, silero_cpu_export: ExportResult
) -> None:
    config = SegmenterConfig(threshold=0.7, min_silence_duration_ms=300, speech_pad_ms=60)
    vad = StreamingVad(silero_cpu_export.pte_path, config)
    stream = silero_cpu_export.validation_streams[1]
    updates = [vad.process(stream.pcm), vad.finish()]
    segments = [(s.start, s.end) for update in updates for s in update.segments]
    probabilities = np.concatenate([update.probabilities for update in updates])
    assert segments == speech_segments(probabilities, stream.num_samples, config)
    assert all(s.start_s == s.start / 16000 for update in updates for s in update.segments)


@pytest.mark.parametrize(
    "chunk, message",
    [
        (b"\x00\x01\x02", "3 bytes of S16_LE PCM"),
        (np.zeros(10, dtype=np.float32), "1-D int16 array"),
        (np.zeros((2, 10), dtype=np.int16), "1-D int16 array"),
    ],
)
def test_bad_chunks_are_refused(streaming_vad: StreamingVad, chunk, message: str) -> None:
    streaming_vad.reset()
    with pytest.raises(ValueError, match=message):
        streaming_vad.process(chunk)


def test_a_finished_stream_needs_a_reset(streaming_vad: StreamingVad) -> None:
    streaming_vad.reset()
    streaming_vad.finish()
    with pytest.raises(RuntimeError, match="reset"):
        streaming_vad.process(np.zeros(10, dtype=np.int16))
    with pytest.raises(RuntimeError, match="reset"):
        streaming_vad.finish()


def test_an_ethos_u_program_is_refused_with_the_way_out_u85(
    silero_u85_export: ExportResult,
) -> None:
    with pytest.raises(CpuProgramError, match="run.sh --target xnnpack"):
        StreamingVad(silero_u85_export.pte_path)


def test_the_readme_example_prints_the_programs_segments(
    silero_xnnpack_export: Callable[[int], ExportResult],
    validation_wavs: list[Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The example README's usage block, run as written on a committed clip with the program
    it names (run.sh --target xnnpack)."""
    export = silero_xnnpack_export(16000)
    readme = (REPO_ROOT / "examples" / "arm" / "silero_vad" / "README.md").read_text()
    section = readme.split("## Python streaming API", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    stream = export.validation_streams[0]
    wav = next(path for path in validation_wavs if path.stem == stream.name)
    for placeholder, path in (
        ('"out/xnnpack/silero_vad_xnnpack.pte"', export.pte_path),
        ('"clip.wav"', wav),
    ):
        assert placeholder in code
        code = code.replace(placeholder, repr(str(path)))
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - our own README's example
    program = program_probabilities(export.pte_path.read_bytes(), stream)
    expected = [
        f"speech {start / 16000:.3f}-{end / 16000:.3f} s"
        for start, end in speech_segments(program, stream.num_samples)
    ]
    assert expected and capsys.readouterr().out.splitlines() == expected
