# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The bare-metal scripts without an FVP or an ExecuTorch checkout.

build_baremetal.sh: the board and memory placement it derives from the program (its
Vela flags), from report.json and from options, and the modes it refuses to place.
run_fvp.sh: the FVP and the parameter names it picks per board, checked on fake FVP
executables that record their command line, and its DONE/ERROR verdicts.
Test names carry the target (u55, u65, u85) for -k selection.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from executorch.backends.arm.ethosu import EthosUCompileSpec

from backends.arm.test.conftest import env_without_checkout, fake_program, run_arm_script
from examples.arm.silero_vad.model_export.export_silero_vad import ExportResult

BUILD = "build_baremetal.sh"
RUN_FVP = "run_fvp.sh"
FVPS = (
    "FVP_Corstone_SSE-300_Ethos-U55",
    "FVP_Corstone_SSE-300_Ethos-U65",
    "FVP_Corstone_SSE-320",
)


def _vela_flags(spec: EthosUCompileSpec) -> dict[str, str]:
    flags = {}
    for flag in spec.compiler_flags:
        for entry in flag.split():
            if entry.startswith("--") and "=" in entry:
                name, value = entry[2:].split("=", 1)
                flags[name] = value
    return flags


# A fake program has no memory plan for pool_sizes.py to read, so the tests give the pools
# (after --, as CMake settings); the temporary pool at 1 MiB, which the SSE-300's SRAM has
# to hold beside the program in Sram_Only.
def _fake_pools(temp: str = "0x100000") -> tuple[str, ...]:
    return (
        "--",
        "-DSILERO_VAD_METHOD_POOL_BYTES=4096",
        "-DSILERO_VAD_PLANNED_POOL_BYTES=4096",
        f"-DSILERO_VAD_TEMP_POOL_BYTES={temp}",
    )


# --- build_baremetal.sh: board and memory placement ---------------------------------------

# What each memory mode must place where (runtime/README.md has the table).
PLACEMENT = {
    "Shared_Sram": "program and weights in DDR, arena in SRAM, no fast scratch",
    "Sram_Only": "program and weights in SRAM, arena in SRAM, no fast scratch",
    "Dedicated_Sram_384KB": (
        "program and weights in DDR, arena in DDR, fast scratch 384 KiB in SRAM"
    ),
}
BOARD_OF = {"ethos-u55": "Corstone-300", "ethos-u65": "Corstone-300", "ethos-u85": "Corstone-320"}


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u65-256", "ethos-u85-256"])
def test_build_places_release_default_mode(target: str, tmp_path: Path) -> None:
    """The release's EthosUCompileSpec default for the target is a mode its board places."""
    flags = _vela_flags(EthosUCompileSpec(target))
    mode, system_config = flags["memory-mode"], flags["system-config"]
    program = fake_program(tmp_path / "p.pte", target, system_config, mode)
    result = run_arm_script(BUILD, "--pte", str(program), "--print-plan", *_fake_pools())
    assert result.returncode == 0, result.stderr
    board = BOARD_OF[target.rsplit("-", 1)[0]]
    assert f"{target} on the {board}" in result.stderr
    assert f"memory: {mode} on the {board.lower()}: {PLACEMENT[mode]}" in result.stderr


@pytest.mark.parametrize(
    ("target", "mode"),
    [("ethos-u55-128", "Shared_Sram"), ("ethos-u55-128", "Sram_Only")]
    + [("ethos-u65-512", m) for m in PLACEMENT]
    + [("ethos-u85-1024", m) for m in PLACEMENT],
)
def test_build_places_every_mode(target: str, mode: str, tmp_path: Path) -> None:
    program = fake_program(tmp_path / "p.pte", target, "Any_System", mode)
    result = run_arm_script(BUILD, "--pte", str(program), "--print-plan", *_fake_pools())
    assert result.returncode == 0, result.stderr
    assert PLACEMENT[mode] in result.stderr


def test_build_refuses_dedicated_sram_u55(tmp_path: Path) -> None:
    program = fake_program(
        tmp_path / "p.pte", "ethos-u55-128", "Ethos_U55_High_End_Embedded", "Dedicated_Sram_384KB"
    )
    result = run_arm_script(BUILD, "--pte", str(program), "--print-plan", *_fake_pools())
    assert result.returncode == 1
    assert "cannot be placed for the Ethos-U55: it has no cache region" in result.stderr
    assert "memory:" not in result.stderr


def test_build_refuses_sram_only_larger_than_sram_u55(tmp_path: Path) -> None:
    """1.2 MiB of program and the 1 MiB temporary pool do not fit the SSE-300's 2 MiB of SRAM."""
    program = fake_program(
        tmp_path / "p.pte",
        "ethos-u55-256",
        "Ethos_U55_High_End_Embedded",
        "Sram_Only",
        size=1200 * 1024,
    )
    result = run_arm_script(BUILD, "--pte", str(program), "--print-plan", *_fake_pools())
    assert result.returncode == 1
    assert "Sram_Only cannot be placed on the corstone-300" in result.stderr
    assert "program 1200 KiB + temporary pool 1024 KiB = 2224 KiB in SRAM" in result.stderr
    assert "which has 2048 KiB" in result.stderr
    # A smaller temporary pool (a CMake setting after --) makes it fit.
    smaller = run_arm_script(
        BUILD,
        "--pte",
        str(program),
        "--print-plan",
        *_fake_pools(temp="0x80000"),
    )
    assert smaller.returncode == 0, smaller.stderr
    assert "SRAM 1712 KiB of 2048 KiB" in smaller.stderr


def test_build_refuses_options_that_contradict_the_program_u85(tmp_path: Path) -> None:
    program = fake_program(
        tmp_path / "p.pte", "ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram"
    )
    cases = {
        "memory mode": (["--memory-mode", "Sram_Only"], "was compiled for Shared_Sram"),
        "system config": (
            ["--system-config", "Ethos_U85_SYS_DRAM_High"],
            "was compiled for Ethos_U85_SYS_DRAM_Mid",
        ),
        "target": (["--target", "ethos-u55-128"], "was compiled for ethos-u85-256"),
    }
    for what, (options, message) in cases.items():
        result = run_arm_script(BUILD, "--pte", str(program), *options, "--print-plan")
        assert result.returncode == 1, what
        assert message in result.stderr, what


def test_build_refuses_a_report_of_another_export_u65(tmp_path: Path) -> None:
    fake_program(tmp_path / "p.pte", "ethos-u65-256", "Ethos_U65_High_End", "Dedicated_Sram_384KB")
    report = tmp_path / "report.json"
    report.write_text(
        json.dumps(
            {
                "target": "ethos-u65-256",
                "system_config": "Ethos_U65_High_End",
                "memory_mode": "Shared_Sram",
                "pte": "p.pte",
            }
        )
    )
    result = run_arm_script(BUILD, "--report", str(report), "--print-plan")
    assert result.returncode == 1
    assert "says Shared_Sram: the report belongs to another export" in result.stderr


def test_build_checks_vela_cache_use_from_report_u65(tmp_path: Path) -> None:
    """report.json's Vela SRAM figure must fit the fast scratch of the mode."""
    fake_program(tmp_path / "p.pte", "ethos-u65-512", "Ethos_U65_High_End", "Dedicated_Sram_384KB")
    report = tmp_path / "report.json"
    fields = {
        "target": "ethos-u65-512",
        "system_config": "Ethos_U65_High_End",
        "memory_mode": "Dedicated_Sram_384KB",
        "pte": "p.pte",
    }
    report.write_text(json.dumps({**fields, "vela": {"sram_kib": 10.05}}))
    fits = run_arm_script(BUILD, "--report", str(report), "--print-plan", *_fake_pools())
    assert fits.returncode == 0, fits.stderr
    assert PLACEMENT["Dedicated_Sram_384KB"] in fits.stderr
    report.write_text(json.dumps({**fields, "vela": {"sram_kib": 500.0}}))
    too_big = run_arm_script(BUILD, "--report", str(report), "--print-plan", *_fake_pools())
    assert too_big.returncode == 1
    assert "uses 500 KiB of SRAM cache, more than the 384 KiB fast scratch" in too_big.stderr


def test_build_refuses_a_cpu_program(tmp_path: Path) -> None:
    program = fake_program(tmp_path / "cpu.pte", size=1008)
    result = run_arm_script(BUILD, "--pte", str(program), "--print-plan")
    assert result.returncode == 1
    assert "stores no Vela compile flags" in result.stderr
    assert "pass --target" in result.stderr


def test_build_stops_naming_the_missing_checkout_u65(
    tmp_path: Path, validation_wavs: list[Path]
) -> None:
    """Past the plan, without EXECUTORCH_ROOT: one clear message, nothing configured."""
    program = fake_program(
        tmp_path / "p.pte", "ethos-u65-256", "Ethos_U65_High_End", "Dedicated_Sram_384KB"
    )
    build_dir = tmp_path / "build"
    result = run_arm_script(
        BUILD,
        "--pte",
        str(program),
        "--wav",
        str(validation_wavs[0]),
        "--build-dir",
        str(build_dir),
        *_fake_pools(),
    )
    assert result.returncode == 1
    assert "memory: Dedicated_Sram_384KB on the corstone-300" in result.stderr
    assert "no ExecuTorch checkout: pass --executorch-root DIR" in result.stderr
    assert not build_dir.exists()


@pytest.mark.slow
def test_build_plan_of_the_real_export_u85(silero_u85_export: ExportResult) -> None:
    """The flags are read from a real exported program and agree with its report.json."""
    report = silero_u85_export.pte_path.parent / "report.json"
    result = run_arm_script(BUILD, "--report", str(report), "--print-plan")
    assert result.returncode == 0, result.stderr
    fields = json.loads(report.read_text())
    mode = fields["memory_mode"]
    assert f"{fields['target']} on the Corstone-320 (cortex-m85), {fields['system_config']}" in (
        result.stderr
    )
    assert f"memory: {mode} on the corstone-320: " in result.stderr


# --- run_fvp.sh: FVP and parameters per board -----------------------------------------------

FAKE_FVP = """#!/usr/bin/env bash
printf '%s\\n' "$(basename "$0")" "$@" >"${FAKE_FVP_ARGV:?}"
echo "telnetterminal0: Listening for serial connection on port 5000"
cat "${FAKE_FVP_UART:?}"
echo "Info: /OSCI/SystemC: Simulation stopped by user."
"""

PROTOCOL = "PROB 0.000 0.100000 silence\nPROB 0.032 0.900000 speech\nDONE frames=2 segments=0\n"


@pytest.fixture
def fake_fvps(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A bin/ with fake FVPs of all three kinds, and an environment that finds only them."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in FVPS:
        fvp = bin_dir / name
        fvp.write_text(FAKE_FVP)
        fvp.chmod(fvp.stat().st_mode | stat.S_IEXEC)
    uart = tmp_path / "uart.txt"
    uart.write_text(PROTOCOL + "\x04")
    path = [
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and not any(Path(entry, name).exists() for name in FVPS)
    ]
    env = env_without_checkout()
    env.update(
        PATH=os.pathsep.join([str(bin_dir), *path]),
        FAKE_FVP_ARGV=str(tmp_path / "argv.txt"),
        FAKE_FVP_UART=str(uart),
    )
    return tmp_path, env


def _image(directory: Path, name: str, target: str | None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    elf = directory / name
    elf.write_bytes(b"\x7fELF")
    if target:
        (directory / name.replace(".elf", ".target")).write_text(target + "\n")
    return elf


SSE300 = [
    "ethosu.num_macs={macs}",
    "mps3_board.visualisation.disable-visualisation=1",
    "mps3_board.telnetterminal0.start_telnet=0",
    "mps3_board.uart0.out_file=-",
    "mps3_board.uart0.unbuffered_output=1",
    "mps3_board.uart0.shutdown_on_eot=1",
]
SSE320 = [
    "mps4_board.subsystem.ethosu.num_macs={macs}",
    "mps4_board.visualisation.disable-visualisation=1",
    "vis_hdlcd.disable_visualisation=1",
    "mps4_board.telnetterminal0.start_telnet=0",
    "mps4_board.uart0.out_file=-",
    "mps4_board.uart0.unbuffered_output=1",
    "mps4_board.uart0.shutdown_on_eot=1",
]
RUNS = {
    "ethos-u55-64": ("FVP_Corstone_SSE-300_Ethos-U55", SSE300, "silero_vad_corstone300.elf"),
    "ethos-u55-256": ("FVP_Corstone_SSE-300_Ethos-U55", SSE300, "silero_vad_corstone300.elf"),
    "ethos-u65-256": ("FVP_Corstone_SSE-300_Ethos-U65", SSE300, "silero_vad_corstone300.elf"),
    "ethos-u65-512": ("FVP_Corstone_SSE-300_Ethos-U65", SSE300, "silero_vad_corstone300.elf"),
    "ethos-u85-256": ("FVP_Corstone_SSE-320", SSE320, "silero_vad_corstone320.elf"),
    "ethos-u85-2048": ("FVP_Corstone_SSE-320", SSE320, "silero_vad_corstone320.elf"),
}


def _fvp_argv(tmp_path: Path) -> list[str]:
    return (tmp_path / "argv.txt").read_text().splitlines()


def _parameters(argv: list[str]) -> list[str]:
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == "-C"]


@pytest.mark.parametrize("target", list(RUNS))
def test_run_fvp_picks_the_board_fvp_and_parameters(
    target: str, fake_fvps: tuple[Path, dict[str, str]]
) -> None:
    tmp_path, env = fake_fvps
    fvp, parameters, elf_name = RUNS[target]
    elf = _image(tmp_path / "image", elf_name, target)
    result = run_arm_script(RUN_FVP, "--elf", str(elf), "--timelimit", "30", env=env)
    assert result.returncode == 0, result.stderr
    argv = _fvp_argv(tmp_path)
    assert argv[0] == fvp
    macs = target.rsplit("-", 1)[1]
    assert _parameters(argv) == [p.format(macs=macs) for p in parameters]
    assert argv[-4:] == ["-a", str(elf), "--timelimit", "30"]
    # The protocol alone (and the 0x04) for the compare tool.
    assert (tmp_path / "image" / "fvp_protocol.log").read_text() == PROTOCOL + "\x04"
    assert "DONE frames=2 segments=0" in result.stderr


def test_run_fvp_refuses_another_npu_than_the_image_u55(
    fake_fvps: tuple[Path, dict[str, str]],
) -> None:
    """An image built for the U65 (its .target file) does not run on the U55 FVP."""
    tmp_path, env = fake_fvps
    elf = _image(tmp_path / "image", "silero_vad_corstone300.elf", "ethos-u65-256")
    result = run_arm_script(RUN_FVP, "--elf", str(elf), "--target", "ethos-u55-128", env=env)
    assert result.returncode == 1
    assert "was built for ethos-u65-256" in result.stderr
    assert not (tmp_path / "argv.txt").exists()


def test_run_fvp_names_the_missing_fvp_u65(fake_fvps: tuple[Path, dict[str, str]]) -> None:
    tmp_path, env = fake_fvps
    (tmp_path / "bin" / "FVP_Corstone_SSE-300_Ethos-U65").unlink()
    elf = _image(tmp_path / "image", "silero_vad_corstone300.elf", "ethos-u65-256")
    result = run_arm_script(RUN_FVP, "--elf", str(elf), env=env)
    assert result.returncode == 1
    assert "FVP_Corstone_SSE-300_Ethos-U65 not found (the Corstone-300 FVP for ethos-u65-256)" in (
        result.stderr
    )
    assert not (tmp_path / "argv.txt").exists()


@pytest.mark.parametrize(
    ("uart", "message"),
    [
        (
            "PROB 0.000 0.100000 silence\nLOG E delegate failed\nERROR model step failed\n\x04",
            "the application reported an error: ERROR model step failed",
        ),
        ("PROB 0.000 0.100000 silence\n", "no DONE line"),
    ],
    ids=["error-line", "no-done"],
)
def test_run_fvp_fails_without_a_clean_done_u85(
    uart: str, message: str, fake_fvps: tuple[Path, dict[str, str]]
) -> None:
    tmp_path, env = fake_fvps
    Path(env["FAKE_FVP_UART"]).write_text(uart)
    elf = _image(tmp_path / "image", "silero_vad_corstone320.elf", "ethos-u85-256")
    result = run_arm_script(RUN_FVP, "--elf", str(elf), env=env)
    assert result.returncode == 1
    assert message in result.stderr


def test_run_fvp_rejects_an_unknown_target(fake_fvps: tuple[Path, dict[str, str]]) -> None:
    tmp_path, env = fake_fvps
    elf = _image(tmp_path / "image", "silero_vad_corstone300.elf", None)
    result = run_arm_script(RUN_FVP, "--elf", str(elf), "--target", "ethos-u65-128", env=env)
    assert result.returncode == 1
    assert "--target ethos-u65-128 runs on no board here" in result.stderr
