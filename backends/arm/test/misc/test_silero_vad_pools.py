# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The bare-metal image's memory pools, sized from the program (runtime/baremetal).

pool_sizes.py against the Ethos-U delegate's Vela scratch,
the method pool's bound against what ExecuTorch really allocates (the host runner's
``--pool-usage``), and the build: the sizes reach build_baremetal.sh, a too-small
override is refused, a program it cannot read needs all three sizes.
Test names carry the target (u85, cpu) for -k selection.
"""

from __future__ import annotations

import re
import struct
import subprocess
from pathlib import Path

import pytest
from executorch.backends.arm.scripts.get_ethosu_scratch_from_pte import (
    get_scratch_size_from_delegate,
)
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.schema import DelegateCall, KernelCall

from backends.arm.test.conftest import REPO_ROOT, fake_program, run_arm_script
from examples.arm.silero_vad.lab.benchmark_footprint import footprint, footprint_table
from examples.arm.silero_vad.model_export.export_silero_vad import ExportResult
from examples.arm.silero_vad.runtime.baremetal import pool_sizes
from examples.arm.silero_vad.runtime.baremetal.pool_sizes import (
    KIB,
    PLANNED_ALIGNMENT,
    ProgramError,
    size_pools,
)

# Far below the 1 MiB each pool used to get.
POOL_CEILING = 64 * KIB


def _run_build(*args: str) -> subprocess.CompletedProcess[str]:
    return run_arm_script("build_baremetal.sh", *args)


def _vela_stream(scratch: int) -> bytes:
    """A delegate blob laid out as executorch's arm_vela.py writes it."""

    def block(name: str, data: bytes) -> bytes:
        padded = data + b"\0" * (-len(data) % 16)
        return name.encode().ljust(16, b"\0") + struct.pack("<iiii", len(data), 0, 0, 0) + padded

    return b"".join(
        [
            block("vela_bin_stream", b""),
            block("cmd_data", b"\1" * 20),
            block("weight_data", b"\2" * 7),
            block("scratch_size", struct.pack("<I", scratch)),
            block("inputs", struct.pack("<i", 0)),
            block("outputs", struct.pack("<i", 0)),
            block("vela_end_stream", b""),
        ]
    )


# --- Without an export -------------------------------------------------------------------


def test_vela_scratch_is_read_as_the_release_reads_it() -> None:
    blob = _vela_stream(10256)
    assert pool_sizes._vela_scratch(blob) == get_scratch_size_from_delegate(blob) == 10256
    assert pool_sizes._vela_scratch(b"not a vela stream" * 4) is None
    assert pool_sizes._vela_scratch(blob[:-40]) is None  # no end block


@pytest.mark.parametrize(
    "data",
    [b"", b"\0\0\0\0ET12", b"\0\0\0\0ET12" + b"\xff" * 64, b"\x10\0\0\0XX12" + b"\0" * 64],
    ids=["empty", "header-only", "garbage", "other-file"],
)
def test_pool_sizes_refuses_what_is_not_a_program(data: bytes) -> None:
    with pytest.raises(ProgramError, match="ExecuTorch program"):
        size_pools(data)


def test_build_needs_every_pool_size_for_an_unreadable_program_u85(tmp_path: Path) -> None:
    """No fallback size: a program pool_sizes.py cannot read must come with all three."""
    program = fake_program(
        tmp_path / "p.pte", "ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Sram_Only", size=1100
    )
    missing = _run_build(
        "--pte", str(program), "--print-plan", "--", "-DSILERO_VAD_TEMP_POOL_BYTES=0x4000"
    )
    assert missing.returncode == 1
    assert "Cannot size the memory pools from" in missing.stderr
    assert "-DSILERO_VAD_METHOD_POOL_BYTES=..., -DSILERO_VAD_PLANNED_POOL_BYTES=..." in (
        missing.stderr
    )
    given = _run_build(
        "--pte",
        str(program),
        "--print-plan",
        "--",
        "-DSILERO_VAD_METHOD_POOL_BYTES=4096",
        "-DSILERO_VAD_PLANNED_POOL_BYTES=4096",
        "-DSILERO_VAD_TEMP_POOL_BYTES=0x4000",
    )
    assert given.returncode == 0, given.stderr
    assert (
        "pools: method 4096 (given), planned 4096 (given), temp 16384 (given) bytes, unchecked"
        in (given.stderr)
    )


# --- On the exported programs ------------------------------------------------------------


def _forward(pte: Path):
    program = deserialize_pte_binary(pte.read_bytes()).program
    return program, next(plan for plan in program.execution_plan if plan.name == "forward")


@pytest.mark.slow
def test_pool_sizes_cover_the_memory_plan_and_arena_u85(silero_u85_export: ExportResult) -> None:
    """The pools cover what executorch's loader and the delegate say the program needs, and
    stay a few KiB each."""
    pte = silero_u85_export.pte_path
    program, forward = _forward(pte)
    pools = size_pools(pte.read_bytes())
    # Planned: every buffer of the plan, each aligned as VadModel carves them.
    planned = PLANNED_ALIGNMENT + sum(
        -(-size // PLANNED_ALIGNMENT) * PLANNED_ALIGNMENT
        for size in forward.non_const_buffer_sizes[1:]
    )
    assert pools.need["planned"] == planned <= pools.size["planned"]
    # Temp: the delegate's Vela scratch, 16-byte aligned, with the margin.
    scratches = [
        get_scratch_size_from_delegate(program.backend_delegate_data[d.processed.index].data)
        for d in forward.delegates
    ]
    assert scratches and all(scratches)
    assert pools.vela_scratch_bytes == max(scratches)
    assert pools.size["temp"] >= 1.25 * (max(scratches) + 16)
    # Method: at least one argument list per call, and the margin.
    calls = [
        i
        for chain in forward.chains
        for i in chain.instructions
        if isinstance(i.instr_args, (KernelCall, DelegateCall))
    ]
    assert pools.need["method"] > 16 * len(forward.values) + 8 * len(calls)
    assert pools.size["method"] >= 1.25 * pools.need["method"]
    for pool, size in pools.size.items():
        assert size % KIB == 0 and size <= POOL_CEILING, (pool, size)


@pytest.mark.slow
def test_build_takes_the_pools_from_the_program_u85(silero_u85_export: ExportResult) -> None:
    """build_baremetal.sh sizes the pools with pool_sizes.py and refuses a smaller one."""
    report = silero_u85_export.pte_path.parent / "report.json"
    pools = size_pools(silero_u85_export.pte_path.read_bytes())
    derived = _run_build("--report", str(report), "--print-plan")
    assert derived.returncode == 0, derived.stderr
    assert (
        f"pools: method {pools.size['method']}, planned {pools.size['planned']}, "
        f"temp {pools.size['temp']} bytes, from the program"
    ) in derived.stderr
    # The arena in SRAM is the temporary pool now, not 2 MiB.
    sram = re.search(r"SRAM (\d+) KiB of", derived.stderr)
    assert sram and int(sram.group(1)) * KIB < silero_u85_export.pte_path.stat().st_size + 64 * KIB

    need = pools.need["temp"]
    too_small = _run_build(
        "--report", str(report), "--print-plan", "--", f"-DSILERO_VAD_TEMP_POOL_BYTES={need - 1}"
    )
    assert too_small.returncode == 1
    assert (
        f"SILERO_VAD_TEMP_POOL_BYTES={need - 1} is smaller than the {need} bytes the program "
        "needs for its temp pool"
    ) in too_small.stderr
    exact = _run_build(
        "--report", str(report), "--print-plan", "--", f"-DSILERO_VAD_TEMP_POOL_BYTES={need}"
    )
    assert exact.returncode == 0, exact.stderr
    assert f"temp {need} (given)" in exact.stderr


@pytest.mark.slow
def test_method_pool_bound_covers_the_host_runner_cpu(
    host_runner: Path, silero_cpu_export: ExportResult, validation_wavs: list[Path]
) -> None:
    """What ExecuTorch's Method::init really takes from the method pool (the host runner,
    a 64-bit build: no less than a Cortex-M) stays under pool_sizes.py's need, and close to
    it. The CPU program's 1,400 values and 240 kernel calls exercise every counted kind."""
    pte = silero_cpu_export.pte_path
    result = subprocess.run(
        [str(host_runner), "--model", str(pte), "--wav", str(validation_wavs[0]), "--pool-usage"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if "unknown option '--pool-usage'" in result.stderr:
        pytest.fail(f"{host_runner} predates --pool-usage: rebuild it (run_cpp_tests.sh)")
    assert result.returncode == 0, result.stderr[-2000:]
    match = re.search(r"^POOLS method_used=(\d+) planned=(\d+)$", result.stderr, re.MULTILINE)
    assert match, result.stderr[-2000:]
    used, planned = int(match.group(1)), int(match.group(2))
    pools = size_pools(pte.read_bytes())
    assert pools.need["planned"] == planned
    assert used <= pools.need["method"] <= 1.25 * used


@pytest.mark.slow
def test_footprint_row_of_the_default_export_u85(
    silero_u85_export: ExportResult, tmp_path: Path
) -> None:
    """lab/benchmark_footprint.py: the row of the U85 default adds up (Sram_Only: program and
    temporary pool in SRAM, method and planned pools in DDR) and our code is measured."""
    cross = tmp_path / "cross"
    compiled = subprocess.run(
        [str(REPO_ROOT / "backends/arm/scripts/cross_compile_check.sh"), "--no-gcc"]
        + ["--build-dir", str(cross)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=REPO_ROOT,
    )
    assert compiled.returncode == 0, compiled.stderr[-2000:]
    row = footprint(silero_u85_export.pte_path.parent, cross)
    assert (row.board, row.memory_mode, row.code_objects) == (
        "corstone-320",
        "Sram_Only",
        "clang19-cortex-m85",
    )
    pools = size_pools(silero_u85_export.pte_path.read_bytes())
    assert row.pools.size == pools.size
    program = silero_u85_export.pte_path.stat().st_size
    # The plan's SRAM: program (16-byte aligned) and temporary pool, in whole KiB.
    sram = (program + 15) // 16 * 16 + pools.size["temp"]
    assert row.sram_bytes == (sram + KIB - 1) // KIB * KIB
    assert row.ddr_bytes == pools.size["method"] + pools.size["planned"]
    assert 8 * KIB < row.code.text < 256 * KIB and row.code.data < 16 * KIB
    assert row.cycles > 0
    table = footprint_table([row])
    assert "| ethos-u85-256 | 16 kHz | Sram_Only" in table
