# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The device twin (compiled TOSA on the reference model) runs the exported int8 program."""

from __future__ import annotations

from pathlib import Path

from examples.arm.silero_vad.model_export.export_silero_vad import (
    ExportResult,
    read_probabilities,
    reference_path,
    tosa_path,
)
from examples.arm.silero_vad.model_export.silero_vad_model import SAMPLE_RATE
from examples.arm.silero_vad.runtime.compare_vad_probs import (
    check_limits,
    compare_files,
    compare_probabilities,
)
from examples.arm.silero_vad.runtime.device_twin import run_twin
from examples.arm.silero_vad.runtime.serial_protocol import parse_protocol
from examples.arm.silero_vad.runtime.speech_segmenter import speech_segments


def test_device_twin_equals_quantized_program_tosa_u85(
    silero_u85_export: ExportResult, tmp_path: Path
) -> None:
    """Bit exact: the delegate's TOSA and the host's quantized program do the same int8
    arithmetic, and the twin re-uses the program's own I/O qparams, so any difference is
    a lowering or state-handling bug, not rounding."""
    export_dir = silero_u85_export.pte_path.parent
    streams = silero_u85_export.validation_streams
    twin = run_twin(tosa_path(export_dir), silero_u85_export.pte_path, streams, tmp_path)
    assert sorted(twin) == sorted(stream.name for stream in streams)
    for stream in streams:
        quantized_bin = reference_path(export_dir, stream.name, "quantized")
        comparison = compare_probabilities(
            twin[stream.name], read_probabilities(quantized_bin), actual_name=stream.name
        )
        assert comparison.frames == stream.num_frames
        check_limits(comparison, max_abs=0.0, max_flips=0)

        # The serial log carries the same values (6 decimals) and the segments of them.
        log_path = tmp_path / "twin" / f"{stream.name}.log"
        check_limits(compare_files(log_path, quantized_bin), max_abs=5e-7, max_flips=0)
        log = parse_protocol(log_path.read_bytes(), str(log_path))
        expected = speech_segments(twin[stream.name], stream.num_samples)
        assert log.segments_s == [
            (round(start / SAMPLE_RATE, 3), round(end / SAMPLE_RATE, 3)) for start, end in expected
        ]
