# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The host program for Linux (run.sh --target xnnpack): float Silero on XNNPACK, run by
StreamingVad, against silero-vad's own model and segmenter; the runtime path imports and
prints nothing of the export stack."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from silero_vad import get_speech_timestamps

from examples.arm.silero_vad import run_silero_vad
from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.export_silero_vad import ExportResult
from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.model_export.silero_vad_model import load_official_jit
from examples.arm.silero_vad.model_export.targets import XNNPACK_TARGET, program_role
from examples.arm.silero_vad.model_export.xnnpack_program import (
    XNNPACK_BACKEND,
    xnnpack_contract_violations,
)
from examples.arm.silero_vad.streaming.pte_contents import PteFormatError, read_pte_contents
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad
from examples.arm.silero_vad.verification.runtime_checks.make_toy_model import (
    METADATA_16K,
    ToyVadInt16State,
    export,
    pcm_frame,
)

REPO_ROOT = Path(__file__).resolve().parents[4]
RATES = (16000, 8000)
# What "float Silero" means for the program (the bound); measured: 2e-6.
MAX_ABS_VS_SILERO = 1e-4


class RecordingSilero:
    """silero-vad's TorchScript model as get_speech_timestamps calls it, keeping every
    probability it returns: one run gives silero's segments and its probabilities."""

    def __init__(self) -> None:
        self.model = load_official_jit()
        self.probabilities: list[float] = []

    def reset_states(self) -> None:
        self.model.reset_states()
        self.probabilities = []

    def __call__(self, chunk: torch.Tensor, sample_rate: int) -> torch.Tensor:
        probability = self.model(chunk, sample_rate)
        self.probabilities.append(probability.item())
        return probability


def _streamed(vad: StreamingVad, pcm: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
    vad.reset()
    updates = [vad.process(pcm), vad.finish()]
    probabilities = np.concatenate([update.probabilities for update in updates])
    return probabilities, [(s.start, s.end) for update in updates for s in update.segments]


@pytest.mark.parametrize("rate", RATES)
def test_xnnpack_program_keeps_the_host_contract(
    rate: int, silero_xnnpack_export: Callable[[int], ExportResult]
) -> None:
    result = silero_xnnpack_export(rate)
    assert result.pte_path.name == f"silero_vad_{XNNPACK_TARGET}.pte"
    summary = inspect_program(result.pte_path)
    assert xnnpack_contract_violations(summary, result.validation_streams[0].geometry) == []
    assert set(summary.backends) == {XNNPACK_BACKEND}
    assert result.report["program"] == program_role(XNNPACK_TARGET)
    assert read_pte_contents(result.pte_path.read_bytes()).backends == summary.backends


@pytest.mark.parametrize("rate", RATES)
def test_xnnpack_program_is_float_silero_on_every_committed_clip(
    rate: int,
    silero_xnnpack_export: Callable[[int], ExportResult],
    committed_streams: Callable[[int], list[AudioStream]],
) -> None:
    """StreamingVad on the program against silero-vad's TorchScript model, called by
    silero-vad's get_speech_timestamps: the same probabilities within 1e-4, no decision
    flip, and the same segments, on every committed clip of the rate."""
    vad = StreamingVad(silero_xnnpack_export(rate).pte_path)
    silero = RecordingSilero()
    for stream in committed_streams(rate):
        audio = torch.from_numpy(stream.pcm.astype(np.float32) / 32768)
        expected = get_speech_timestamps(audio, silero, sampling_rate=rate)
        probabilities, segments = _streamed(vad, stream.pcm)
        reference = np.asarray(silero.probabilities, dtype=np.float32)
        assert probabilities.shape == reference.shape, stream.name
        assert np.abs(probabilities - reference).max() <= MAX_ABS_VS_SILERO, stream.name
        assert np.array_equal(probabilities >= 0.5, reference >= 0.5), stream.name
        assert expected, f"{stream.name}: a clip without speech would compare nothing"
        assert segments == [(s["start"], s["end"]) for s in expected], stream.name


def test_xnnpack_state_restarts_per_stream(
    silero_xnnpack_export: Callable[[int], ExportResult],
) -> None:
    result = silero_xnnpack_export(16000)
    first, second = result.validation_streams[:2]
    vad = StreamingVad(result.pte_path)
    alone, _ = _streamed(StreamingVad(result.pte_path), second.pcm)
    _streamed(vad, first.pcm)
    after_reset, _ = _streamed(vad, second.pcm)
    np.testing.assert_array_equal(after_reset, alone)
    written = np.fromfile(
        result.pte_path.parent / "reference" / f"{second.name}.program.bin", "<f4"
    )
    np.testing.assert_array_equal(written, alone)
    # Without the reset the first clip's state and context carry over.
    vad.reset()
    vad.process(first.pcm)
    carried = vad.process(second.pcm).probabilities
    assert not np.array_equal(carried[:20], alone[:20])


def _run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, *args], input=stdin, capture_output=True, timeout=300, cwd=REPO_ROOT
    )


QUIET_CHECK = """
import sys
import numpy as np
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad
from examples.arm.silero_vad.verification.runtime_checks.make_toy_model import (
    METADATA_16K,
    ToyVadInt16State,
    export,
    pcm_frame,
)
vad = StreamingVad(sys.argv[1])
vad.process(np.zeros(16000, dtype=np.int16))
vad.finish()
print(sorted(m for m in sys.modules if m.startswith(("torchao", "executorch.exir"))))
"""


@pytest.fixture(scope="module")
def quantized_toy_pte(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A program with the cpu target's quantize/dequantize operators (cheaper to export)."""
    path = tmp_path_factory.mktemp("toy") / "toy_int16_state.pte"
    path.write_bytes(
        export(ToyVadInt16State(), pcm_frame(METADATA_16K), True, metadata=METADATA_16K)
    )
    return path


@pytest.mark.parametrize("program", ["xnnpack", "quantized"])
def test_streaming_vad_as_a_library_prints_nothing_and_imports_no_export_stack(
    program: str,
    silero_xnnpack_export: Callable[[int], ExportResult],
    quantized_toy_pte: Path,
) -> None:
    """StreamingVad(...) and its first process() in a fresh interpreter: no line on stdout or
    stderr that the caller did not print, no torchao or executorch.exir imported; the
    quantized program loads the quantized kernels it needs."""
    pte = silero_xnnpack_export(16000).pte_path if program == "xnnpack" else quantized_toy_pte
    done = _run("-c", QUIET_CHECK, str(pte))
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b"", done.stderr.decode()
    assert done.stdout == b"[]\n"


def test_pte_contents_refuses_bytes_that_are_no_program() -> None:
    for data in (b"", b"\x00" * 3, b"\xff" * 64, b"RIFF" + bytes(100)):
        with pytest.raises(PteFormatError):
            read_pte_contents(data)


def test_main_job_makes_and_reports_the_xnnpack_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """run.sh --target xnnpack: the program, its accuracy against float Silero (here and
    through a telephone channel) and a report that says what the program is for."""
    output_dir = tmp_path / "out"
    arguments = ["--target", XNNPACK_TARGET, "--conditions", "telephone"]
    assert run_silero_vad.main([*arguments, "--output-dir", str(output_dir)]) == 0
    assert "target xnnpack: float Silero on XNNPACK" in capsys.readouterr().out
    report = json.loads((output_dir / "report.json").read_text())
    assert (report["target"], report["program"]) == (XNNPACK_TARGET, program_role(XNNPACK_TARGET))
    assert report["backends"] == [XNNPACK_BACKEND] and "vela" not in report
    accuracy = report["accuracy"]
    assert accuracy["actual"] == "xnnpack"
    assert accuracy["overall"]["vs_float"]["max_abs"] <= MAX_ABS_VS_SILERO
    assert accuracy["overall"]["vs_float"]["flips"] == 0
    assert accuracy["overall"]["segments"]["f1"] == 1.0
    assert report["conditions"]["telephone"]["overall"]["vs_float"]["flips"] == 0
    markdown = (output_dir / "report.md").read_text()
    assert program_role(XNNPACK_TARGET) in markdown and "xnnpack target: float Silero" in markdown


@pytest.mark.parametrize(
    "options, message",
    [
        (["--input", "float"], "--input float: the xnnpack program takes int16"),
        (["--memory-mode", "Sram_Only"], "--memory-mode Sram_Only: the xnnpack target does not"),
    ],
)
def test_main_job_refuses_npu_options_for_xnnpack(
    options: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = ["--target", XNNPACK_TARGET, *options, "--output-dir", str(tmp_path)]
    assert run_silero_vad.main(arguments) == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_run_sh_help_tells_the_two_host_programs_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        run_silero_vad.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for target, role in (("xnnpack", program_role("xnnpack")), ("cpu", program_role("cpu"))):
        assert f"{target}: {role}" in text, target
