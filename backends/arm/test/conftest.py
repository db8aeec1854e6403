# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Shared fixtures: the committed clips and the eager Silero model (loaded once)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from examples.arm.silero_vad.model_export.audio import AudioStream, load_streams, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import (
    ExportOptions,
    ExportResult,
    export_silero_vad,
)
from examples.arm.silero_vad.model_export.frame_geometry import (
    DEFAULT_SAMPLE_RATE,
    frame_geometry,
)
from examples.arm.silero_vad.model_export.model_config import DEFAULT_CONFIG, ModelConfig
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import DEFAULT_AUDIO_INPUT
from examples.arm.silero_vad.model_export.targets import CPU_TARGET, XNNPACK_TARGET

REPO_ROOT = Path(__file__).resolve().parents[3]
SILERO_DATA_DIR = REPO_ROOT / "examples" / "arm" / "silero_vad" / "data"


@pytest.fixture(scope="session")
def calibration_wavs() -> list[Path]:
    return wav_files(SILERO_DATA_DIR / "calibration")


@pytest.fixture(scope="session")
def validation_wavs() -> list[Path]:
    return wav_files(SILERO_DATA_DIR / "validation")


@pytest.fixture(scope="session")
def all_streams(calibration_wavs: list[Path], validation_wavs: list[Path]) -> list[AudioStream]:
    return load_streams(calibration_wavs + validation_wavs)


@pytest.fixture(scope="session")
def committed_streams() -> Callable[[int], list[AudioStream]]:
    """All committed clips of one sample rate (calibration and validation), loaded once."""
    loaded: dict[int, list[AudioStream]] = {}

    def streams(sample_rate: int) -> list[AudioStream]:
        if sample_rate not in loaded:
            suffix = "" if sample_rate == DEFAULT_SAMPLE_RATE else f"_{sample_rate // 1000}k"
            paths = [
                path
                for kind in ("calibration", "validation")
                for path in wav_files(SILERO_DATA_DIR / f"{kind}{suffix}")
            ]
            loaded[sample_rate] = load_streams(paths, frame_geometry(sample_rate))
        return loaded[sample_rate]

    return streams


@pytest.fixture(scope="session")
def eager_silero() -> SileroVAD:
    return SileroVAD.from_silero_package()


def _session_export(
    factory: pytest.TempPathFactory,
    name: str,
    calibration_wavs: list[Path],
    validation_wavs: list[Path],
    model: ModelConfig = DEFAULT_CONFIG,
    audio_input: str = DEFAULT_AUDIO_INPUT,
) -> ExportResult:
    return export_silero_vad(
        ExportOptions(
            calibration_wavs=calibration_wavs,
            validation_wavs=validation_wavs,
            output_dir=factory.mktemp(name),
            model=model,
            audio_input=audio_input,
        )
    )


@pytest.fixture(scope="session")
def silero_u85_export(
    tmp_path_factory: pytest.TempPathFactory,
    calibration_wavs: list[Path],
    validation_wavs: list[Path],
) -> ExportResult:
    """The example's default export (Ethos-U85-256), run once for every test that needs it."""
    return _session_export(tmp_path_factory, "silero_u85", calibration_wavs, validation_wavs)


@pytest.fixture(scope="session")
def silero_cpu_export(
    tmp_path_factory: pytest.TempPathFactory,
    calibration_wavs: list[Path],
    validation_wavs: list[Path],
) -> ExportResult:
    """The default model exported for the host CPU (no delegate): what the C++ host runner
    and the Python streaming API run, and what ExecuTorch's Python runtime can execute."""
    return export_silero_vad(
        ExportOptions(
            calibration_wavs=calibration_wavs,
            validation_wavs=validation_wavs,
            output_dir=tmp_path_factory.mktemp("silero_cpu"),
            target=CPU_TARGET,
        )
    )


@pytest.fixture(scope="session")
def silero_xnnpack_export(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[int], ExportResult]:
    """Float Silero lowered with XNNPACK at a sample rate (the validation clips of that rate
    referenced), exported once per rate for every test that needs it."""
    exports: dict[int, ExportResult] = {}

    def export(sample_rate: int) -> ExportResult:
        if sample_rate not in exports:
            suffix = "" if sample_rate == DEFAULT_SAMPLE_RATE else f"_{sample_rate // 1000}k"
            exports[sample_rate] = export_silero_vad(
                ExportOptions(
                    calibration_wavs=[],
                    validation_wavs=wav_files(SILERO_DATA_DIR / f"validation{suffix}"),
                    output_dir=tmp_path_factory.mktemp(f"silero_xnnpack{suffix}"),
                    target=XNNPACK_TARGET,
                    sample_rate=sample_rate,
                )
            )
        return exports[sample_rate]

    return export


# --- The bare-metal scripts and the host runner (misc/test_silero_vad_{baremetal,pools}.py) ---

ARM_SCRIPTS = REPO_ROOT / "backends" / "arm" / "scripts"
HOST_RUNNER = REPO_ROOT / "build/host/examples/arm/silero_vad/runtime/silero_vad_runner"


def env_without_checkout() -> dict[str, str]:
    """The environment without an ExecuTorch checkout or an FVP path."""
    return {k: v for k, v in os.environ.items() if k not in ("EXECUTORCH_ROOT", "FVP")}


def run_arm_script(
    script: str, *args: str, env: dict[str, str] | None = None, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    """backends/arm/scripts/<script> from the repository root (default: env_without_checkout)."""
    return subprocess.run(
        [str(ARM_SCRIPTS / script), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env=env_without_checkout() if env is None else env,
        cwd=REPO_ROOT,
    )


def fake_program(
    path: Path,
    target: str = "",
    system_config: str = "",
    memory_mode: str = "",
    size: int = 280_000,  # about the exported Silero program (275 KB for ethos-u85-256)
) -> Path:
    """Bytes with an Ethos-U delegate's Vela flags as a program stores them (none without a
    target), padded to ``size``; no memory plan, so the pools must be given."""
    flags = b""
    if target:
        flags = (
            f"--accelerator-config={target} --config=Arm/vela.ini --output-format=raw "
            f"--system-config={system_config} --memory-mode={memory_mode}"
        ).encode()
    path.write_bytes(b"\0\0\0\0ET12" + flags + b"\0" * max(0, size - len(flags) - 8))
    return path


@pytest.fixture(scope="session")
def host_runner() -> Path:
    """The C++ host runner run_cpp_tests.sh builds (or $SILERO_VAD_HOST_RUNNER); skips
    without it."""
    runner = Path(os.environ.get("SILERO_VAD_HOST_RUNNER", HOST_RUNNER))
    if not os.access(runner, os.X_OK):
        pytest.skip(f"no host runner at {runner} (backends/arm/test/run_cpp_tests.sh)")
    return runner
