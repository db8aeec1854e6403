# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The out-of-the-box script (test_arm_ootb.sh) and the host runner's program reference."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from examples.arm.silero_vad.model_export.audio import load_stream, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import ExportResult
from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_16K, frame_geometry
from examples.arm.silero_vad.streaming.cpu_program import CpuProgramError
from examples.arm.silero_vad.streaming.streaming_vad import StreamingVad
from examples.arm.silero_vad.verification import program_reference
from examples.arm.silero_vad.verification.program_reference import (
    program_probabilities,
    run_program_reference,
)
from examples.arm.silero_vad.verification.runtime_checks.make_toy_model import ToyVad, export
from examples.arm.silero_vad.verification.serial_protocol import parse_protocol

REPO_ROOT = Path(__file__).resolve().parents[4]
OOTB = REPO_ROOT / "backends" / "arm" / "test" / "test_arm_ootb.sh"
VALIDATION_8K = REPO_ROOT / "examples" / "arm" / "silero_vad" / "data" / "validation_8k"
EXIT_NOT_RUN = 77
# The host test's budget: per sample rate a cpu export (~30 s with one clip) and an xnnpack
# export (~10 s), each program's reference, the runner. The runner build is reused from
# run_cpp_tests.sh (test_silero_vad.sh runs it first); from a clean tree it adds a build of
# the runner alone.
OOTB_TIMEOUT_S = 900


@pytest.fixture(scope="module")
def toy_pte(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runtime tests' stateful toy (float state buffer, started at zero)."""
    path = tmp_path_factory.mktemp("toy") / "toy_state.pte"
    metadata = GEOMETRY_16K.metadata()
    path.write_bytes(export(ToyVad(), (torch.zeros(1, 576),), init_state=True, metadata=metadata))
    return path


def _eager_toy(frames: np.ndarray) -> np.ndarray:
    model = ToyVad().eval()
    with torch.no_grad():
        return np.array([float(model(torch.from_numpy(frame[None]))) for frame in frames])


def test_program_reference_restarts_state_per_clip(
    toy_pte: Path, validation_wavs: list[Path], tmp_path: Path
) -> None:
    clips = validation_wavs[:2]
    written = run_program_reference(toy_pte, clips, tmp_path)
    assert sorted(written) == sorted(wav.stem for wav in clips)
    for wav in clips:
        stream = load_stream(wav)
        values = np.fromfile(written[wav.stem], dtype="<f4")
        assert values.size == stream.num_frames
        # Each clip starts from the zero state, as if it were run alone.
        np.testing.assert_allclose(values, _eager_toy(stream.float_frames), rtol=0, atol=1e-6)
        alone = program_probabilities(toy_pte.read_bytes(), stream)
        np.testing.assert_array_equal(values, alone)


def test_program_reference_refuses_ethos_u_program_u85(
    silero_u85_export: ExportResult, validation_wavs: list[Path], tmp_path: Path
) -> None:
    with pytest.raises(CpuProgramError, match="needs the Ethos-U\\s+backend"):
        run_program_reference(silero_u85_export.pte_path, validation_wavs[:1], tmp_path)


def test_program_reference_cli_errors(
    toy_pte: Path, validation_wavs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    cases = {
        "missing program": ([str(tmp_path / "none.pte"), str(validation_wavs[0])], "cannot read"),
        "not a program": ([str(validation_wavs[0]), str(validation_wavs[0])], "not a readable"),
        "missing clip": ([str(toy_pte), str(tmp_path / "none.wav")], "no such file"),
        "same clip twice": ([str(toy_pte), *map(str, validation_wavs[:1] * 2)], "must differ"),
    }
    for what, (args, message) in cases.items():
        assert program_reference.main([*args, "--output-dir", str(tmp_path)]) == 2, what
        assert message in capsys.readouterr().err, what


def _ootb(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(OOTB), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=OOTB_TIMEOUT_S,
        env=env,
        cwd=REPO_ROOT,
    )


def test_ootb_help_lists_tests() -> None:
    result = _ootb("--help")
    assert result.returncode == 0, result.stderr
    for name in ("run_silero_vad_e2e_host", "run_silero_vad_e2e_ethos_u"):
        assert f"  {name} - " in result.stdout
    assert _ootb("run_no_such_test").returncode == 2


def _passing_e2e(
    test: str, wav: Path, work_dir: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    """Runs an end-to-end OOTB test on one clip and checks it exits 0 and says PASS."""
    result = _ootb(test, "--validation-wav", str(wav), "--work-dir", str(work_dir), *options)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert f"{test}: PASS" in result.stdout, output
    return result


def test_ootb_host_rejects_clip_rates(validation_wavs: list[Path], tmp_path: Path) -> None:
    """The host test runs each model on clips of its rate and says so before exporting."""
    wav_8k = str(wav_files(VALIDATION_8K)[0])
    cases = {
        "unknown rate": (["--sample-rate", "44100"], "--sample-rate 44100: Silero's models"),
        "clip not at the asked rate": (
            ["--validation-wav", wav_8k, "--sample-rate", "16000"],
            "8000 Hz, but --sample-rate 16000",
        ),
        "asked rate without a clip": (
            ["--validation-wav", str(validation_wavs[0])]
            + ["--sample-rate", "16000", "--sample-rate", "8000"],
            "--sample-rate 8000: none of the --validation-wav clips is at 8000 Hz",
        ),
    }
    for what, (options, message) in cases.items():
        result = _ootb("run_silero_vad_e2e_host", "--work-dir", str(tmp_path), *options)
        assert result.returncode == 2, (what, result.stdout + result.stderr)
        assert message in result.stderr, (what, result.stderr)
    assert not list(tmp_path.glob("host*/export/*.pte"))


@pytest.mark.slow
def test_ootb_host_runner_matches_program(validation_wavs: list[Path], tmp_path: Path) -> None:
    """Export both models as both host programs, build the host runner, run one clip of each
    rate: PASS against the program."""
    clips = {16000: validation_wavs[0], 8000: wav_files(VALIDATION_8K)[0]}
    result = _passing_e2e(
        "run_silero_vad_e2e_host", clips[16000], tmp_path, "--validation-wav", str(clips[8000])
    )
    assert "PASS (cpu xnnpack programs; 16 kHz: 1 clip(s), 8 kHz: 1 clip(s), " in result.stdout
    for rate, wav in clips.items():
        for target in ("cpu", "xnnpack"):
            model_dir = tmp_path / "_".join(
                ["host"] + ([target] if target != "cpu" else []) + ([] if rate == 16000 else ["8k"])
            )
            _check_host_model(result.stdout, model_dir, wav, rate, target)


def _check_host_model(stdout: str, model_dir: Path, wav: Path, rate: int, target: str) -> None:
    """One clip of the host test at ``rate``: the runner against the program, and the Python
    streaming API on the same program (the XNNPACK program: equal, bit for bit)."""
    name = wav.stem
    assert f"{name}.bin vs program reference: frames=" in stdout, name
    reference = "float Silero" if target == "xnnpack" else "PyTorch quantized program"
    assert f"{name}.bin vs {reference}: frames=" in stdout, name
    assert f"{name}: DONE frames=" in stdout and "host runner time per frame: median" in stdout
    pte = model_dir / "export" / f"silero_vad_{target}.pte"
    stream = load_stream(wav, frame_geometry(rate))
    runner = np.fromfile(model_dir / "runner" / f"{name}.bin", dtype="<f4")
    program = np.fromfile(model_dir / "program" / f"{name}.program.bin", dtype="<f4")
    assert runner.size == program.size == stream.num_frames, name
    assert np.abs(runner - program).max() <= (0 if target == "xnnpack" else 1e-4), name

    # The Python streaming API on the same program and clip, fed in uneven chunks, makes
    # the C++ runner's decisions: the same segments and every frame on the same side of
    # the threshold; probabilities within the log's 6 decimals of the runner's.
    log_path = model_dir / "runner" / f"{name}.log"
    log = parse_protocol(log_path.read_bytes(), str(log_path))
    vad = StreamingVad(pte)
    assert vad.sample_rate == rate, name
    chunks = np.array_split(stream.pcm, np.cumsum(np.random.default_rng(7).integers(1, 3000, 200)))
    updates = [vad.process(chunk) for chunk in chunks if chunk.size] + [vad.finish()]
    streamed = np.concatenate([update.probabilities for update in updates])
    segments = [(s.start_s, s.end_s) for update in updates for s in update.segments]
    assert streamed.size == len(log.probabilities) == runner.size, name
    assert np.abs(streamed - np.asarray(log.probabilities)).max() <= 1e-4, name
    if target == "xnnpack":
        np.testing.assert_array_equal(streamed, runner, err_msg=name)
    assert np.array_equal(streamed >= 0.5, runner >= 0.5), name
    assert [(round(a, 3), round(b, 3)) for a, b in segments] == log.segments_s, name
    assert log.segments_s, f"{name} has speech: an empty segment list would compare nothing"


def _fvp_missing(fvp_name: str = "FVP_Corstone_SSE-320") -> str:
    """What the real FVP run lacks, empty when it can run."""
    missing = []
    fvp = os.environ.get("FVP") or shutil.which(fvp_name)
    if not (fvp and os.access(fvp, os.X_OK)):
        missing.append(f"{fvp_name} not found (PATH or $FVP)")
    if not os.environ.get("EXECUTORCH_ROOT"):
        missing.append("EXECUTORCH_ROOT (ExecuTorch checkout with its arm-baremetal build) not set")
    return "; ".join(missing)


def test_ootb_ethos_u_stops_early_without_fvp_u85(tmp_path: Path) -> None:
    """Without the FVP and a checkout: exit 77 naming both and how to get them, before exporting."""
    env = {k: v for k, v in os.environ.items() if k != "EXECUTORCH_ROOT"}
    env["FVP"] = str(tmp_path / "missing" / "FVP_Corstone_SSE-320")
    start = time.monotonic()
    result = _ootb("run_silero_vad_e2e_ethos_u", "--work-dir", str(tmp_path), env=env)
    assert result.returncode == EXIT_NOT_RUN, result.stdout + result.stderr
    assert time.monotonic() - start < 30
    message = result.stderr
    assert "run_silero_vad_e2e_ethos_u: NOT RUN: missing prerequisites" in message
    assert "FVP_Corstone_SSE-320" in message and "developer.arm.com" in message
    assert "EXECUTORCH_ROOT" in message and "examples/arm/setup.sh" in message
    assert "run_silero_vad_e2e_ethos_u: PASS" not in result.stdout + message
    assert not (tmp_path / "ethos_u").exists()


def _env_without_fvp_or_checkout() -> dict[str, str]:
    """The environment with no ExecuTorch checkout, no $FVP and no FVP on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("EXECUTORCH_ROOT", "FVP")}
    env["PATH"] = os.pathsep.join(
        entry
        for entry in env.get("PATH", "").split(os.pathsep)
        if entry and not list(Path(entry).glob("FVP_Corstone_*"))
    )
    return env


@pytest.mark.parametrize(
    ("target", "fvp"),
    [
        ("ethos-u55-128", "FVP_Corstone_SSE-300_Ethos-U55"),
        ("ethos-u65-256", "FVP_Corstone_SSE-300_Ethos-U65"),
    ],
)
def test_ootb_ethos_u_stops_early_without_sse300_fvp(target: str, fvp: str, tmp_path: Path) -> None:
    """Corstone-300 targets: exit 77 naming the SSE-300 FVP of the NPU, before exporting."""
    start = time.monotonic()
    result = _ootb(
        "run_silero_vad_e2e_ethos_u",
        "--target",
        target,
        "--work-dir",
        str(tmp_path),
        env=_env_without_fvp_or_checkout(),
    )
    assert result.returncode == EXIT_NOT_RUN, result.stdout + result.stderr
    assert time.monotonic() - start < 30
    message = result.stderr
    assert (
        "NOT RUN: missing prerequisites for the Corstone-300 (cortex-m55) FVP run of " + target
    ) in message
    assert f"{fvp} (the Corstone-300 FVP for {target}): not found on PATH" in message
    assert "FVP_Corstone_SSE-320" not in message
    assert "EXECUTORCH_ROOT" in message
    assert "run_silero_vad_e2e_ethos_u: PASS" not in result.stdout + message
    assert not (tmp_path / "ethos_u").exists()


@pytest.mark.parametrize("target", ["ethos-u65-128", "ethos-u75-256", "ethos-u55", "cpu"])
def test_ootb_ethos_u_rejects_unknown_target(target: str, tmp_path: Path) -> None:
    result = _ootb(
        "run_silero_vad_e2e_ethos_u",
        "--target",
        target,
        "--work-dir",
        str(tmp_path),
        env=_env_without_fvp_or_checkout(),
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"--target {target}: not a target of the Corstone boards" in result.stderr
    assert "ethos-u65-256/512" in result.stderr


def test_ootb_help_names_every_board() -> None:
    result = _ootb("--help")
    assert result.returncode == 0, result.stderr
    for name in (
        "FVP_Corstone_SSE-300_Ethos-U55 / -U65",
        "FVP_Corstone_SSE-320",
        "ethos-u65-256/512",
        "build_baremetal.sh",
    ):
        assert name in result.stdout, name


@pytest.mark.fvp
@pytest.mark.slow
@pytest.mark.skipif(bool(_fvp_missing()), reason=_fvp_missing() or "FVP present")
def test_ootb_ethos_u_fvp_matches_twin_u85(validation_wavs: list[Path], tmp_path: Path) -> None:
    _passing_e2e("run_silero_vad_e2e_ethos_u", validation_wavs[0], tmp_path)


@pytest.mark.fvp
@pytest.mark.slow
@pytest.mark.parametrize(
    "target",
    [
        pytest.param(
            target,
            marks=pytest.mark.skipif(
                bool(_fvp_missing(fvp)), reason=_fvp_missing(fvp) or "FVP present"
            ),
        )
        for target, fvp in (
            ("ethos-u55-128", "FVP_Corstone_SSE-300_Ethos-U55"),
            ("ethos-u65-256", "FVP_Corstone_SSE-300_Ethos-U65"),
        )
    ],
)
def test_ootb_ethos_u_fvp_matches_twin_sse300(
    target: str, validation_wavs: list[Path], tmp_path: Path
) -> None:
    _passing_e2e("run_silero_vad_e2e_ethos_u", validation_wavs[0], tmp_path, "--target", target)
