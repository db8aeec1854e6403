# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""benchmark_accuracy runs from a fresh work directory and prints one row per condition."""

from __future__ import annotations

from pathlib import Path

import pytest
import soundfile as sf

from examples.arm.silero_vad.lab import benchmark_accuracy

SECONDS = 3  # enough frames for a segment, short enough for the twin


def _shortened(wavs: list[Path], directory: Path) -> list[Path]:
    directory.mkdir()
    shortened = []
    for wav in wavs:
        audio, rate = sf.read(wav, dtype="int16")
        path = directory / wav.name
        sf.write(path, audio[: SECONDS * rate], rate, subtype="PCM_16")
        shortened.append(path)
    return shortened


@pytest.mark.slow
def test_u85_benchmark_accuracy_prints_twin_fake_quant_and_floor_per_condition(
    calibration_wavs: list[Path],
    validation_wavs: list[Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    calibration = _shortened(calibration_wavs[:1], tmp_path / "calibration")
    validation = _shortened(validation_wavs[:1], tmp_path / "validation")
    argv = ["--condition", "level-30", "--work-dir", str(tmp_path / "work")]
    for flag, paths in (("--calibration-wav", calibration), ("--validation-wav", validation)):
        for path in paths:
            argv += [flag, str(path)]
    assert benchmark_accuracy.main(argv) == 0
    rows = [line.split("|")[1:-1] for line in capsys.readouterr().out.splitlines()[2:]]
    assert [row[1].strip() for row in rows] == ["clean", "level-30"]
    for row in rows:
        assert len(row) == 12
        assert int(row[2]) == SECONDS * 16000 // 512 + 1
        twin_mae, fake_mae = float(row[3]), float(row[7])
        assert 0 <= twin_mae < 0.05 and 0 <= fake_mae < 0.05


def test_benchmark_accuracy_names_an_unreadable_clip(
    validation_wavs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.wav"
    broken.write_bytes(b"RIFF\x00\x00\x00\x00WAVE")
    argv = ["--calibration-wav", str(broken), "--validation-wav", str(validation_wavs[0])]
    assert benchmark_accuracy.main(argv + ["--work-dir", str(tmp_path / "work")]) == 2
    assert str(broken) in capsys.readouterr().err
