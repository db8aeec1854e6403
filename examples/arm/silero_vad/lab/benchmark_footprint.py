# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What a board needs to run the VAD: memory and time per target, as one Markdown table.

For each export (by default the release's default program of every family: U85-256 and
U55-128 at 16 and 8 kHz, U65-256), every figure comes from the tool the firmware build uses:
the .pte's size; the pools and the Vela arena from ``runtime/baremetal/pool_sizes.py``
(with a Dedicated_Sram mode also Vela's SRAM cache from the export's report.json); where
``build_baremetal.sh --print-plan`` places them (SRAM, DDR: flash or DRAM on a board); our
own objects' text, data and bss as ``cross_compile_check.sh`` builds them for the board's
CPU (``object_sizes.py``, without ExecuTorch, kernels and driver); Vela's cycles per frame.
Without --export-dir the default programs are exported into --work-dir (about a minute
each) or reused from there; cross_compile_check.sh runs first if --cross-dir lacks them.

    python -m examples.arm.silero_vad.lab.benchmark_footprint [--export-dir out/u85 ...]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from examples.arm.silero_vad.lab import REPO_ROOT, khz
from examples.arm.silero_vad.runtime.baremetal.object_sizes import ObjectSizes, object_sizes
from examples.arm.silero_vad.runtime.baremetal.pool_sizes import KIB, PoolSizes, size_pools
from examples.arm.silero_vad.verification.cli import exit_on_errors
from examples.arm.silero_vad.verification.report_markdown import markdown_table

SCRIPTS = REPO_ROOT / "backends" / "arm" / "scripts"
WORK_DIR = REPO_ROOT / "build" / "footprint"  # the default programs, exported if missing
CROSS_DIR = REPO_ROOT / "build" / "cross"  # cross_compile_check.sh runs if missing
# (target, sample rate) of the release's default program per family.
DEFAULT_PROGRAMS = (
    ("ethos-u85-256", 16000),
    ("ethos-u85-256", 8000),
    ("ethos-u55-128", 16000),
    ("ethos-u55-128", 8000),
    ("ethos-u65-256", 16000),
)
# cross_compile_check.sh's objects for each board's CPU: clang-19 for the Cortex-M85
# (Debian's GCC 12 lacks it), GCC (as Arm's toolchain, which builds the image) for the M55.
OBJECTS_OF_BOARD = {"corstone-320": "clang19-cortex-m85", "corstone-300": "gcc12-cortex-m55"}


@dataclass(frozen=True)
class Footprint:
    target: str
    sample_rate: int
    memory_mode: str
    board: str
    pools: PoolSizes
    fast_scratch_bytes: int
    vela_sram_kib: float
    sram_bytes: int
    ddr_bytes: int
    code: ObjectSizes
    code_objects: str
    cycles: int


def _kib(value: float) -> str:
    return f"{value / KIB:.1f}"


def _plan(report: Path) -> tuple[str, str, str]:
    """(board, pools line, memory line) of ``build_baremetal.sh --print-plan``."""
    command = [str(SCRIPTS / "build_baremetal.sh"), "--report", str(report), "--print-plan"]
    result = subprocess.run(command, capture_output=True, text=True, check=False, cwd=REPO_ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"build_baremetal.sh --print-plan failed:\n{result.stderr}")
    lines = {}
    for key in ("pools", "memory"):
        match = re.search(rf"^\[build_baremetal\.sh\] {key}: (.*)$", result.stderr, re.MULTILINE)
        if match is None:
            raise RuntimeError(f"build_baremetal.sh printed no '{key}:' line:\n{result.stderr}")
        lines[key] = match.group(1)
    board = re.match(r"\S+ on the (corstone-\d+):", lines["memory"])
    if board is None:
        raise RuntimeError(f"no board in {lines['memory']!r}")
    return board.group(1), lines["pools"], lines["memory"]


def footprint(export_dir: Path, cross_dir: Path) -> Footprint:
    """The footprint of the program exported into ``export_dir`` (report.json and .pte)."""
    report_path = export_dir / "report.json"
    report = json.loads(report_path.read_text())
    pte = export_dir / report["pte"]
    pools = size_pools(pte.read_bytes())
    board, pools_line, memory_line = _plan(report_path)
    # The build gives the image exactly what pool_sizes.py says.
    expected = ", ".join(f"{pool} {pools.size[pool]}" for pool in ("method", "planned", "temp"))
    if not pools_line.startswith(expected):
        raise RuntimeError(f"the build sizes the pools '{pools_line}', pool_sizes.py {expected}")
    fast = re.search(r"fast scratch (\d+) KiB in SRAM", memory_line)
    fast_bytes = int(fast.group(1)) * KIB if fast else 0
    sram = re.search(r"SRAM (\d+) KiB of", memory_line)
    if sram is None:
        raise RuntimeError(f"no SRAM figure in {memory_line!r}")
    # DDR: the program unless in SRAM, the method and planned pools (input_data_sec,
    # main.cpp), the temporary pool unless the arena is in SRAM.
    ddr = pools.size["method"] + pools.size["planned"]
    ddr += 0 if "program and weights in SRAM" in memory_line else pools.program_bytes
    ddr += 0 if "arena in SRAM" in memory_line else pools.size["temp"]
    objects = OBJECTS_OF_BOARD[board]
    return Footprint(
        target=report["target"],
        sample_rate=int(report["sample_rate"]),
        memory_mode=report["memory_mode"],
        board=board,
        pools=pools,
        fast_scratch_bytes=fast_bytes,
        vela_sram_kib=float(report["vela"]["sram_kib"]),
        sram_bytes=int(sram.group(1)) * KIB,
        ddr_bytes=ddr,
        code=object_sizes(cross_dir / objects),
        code_objects=objects,
        cycles=int(report["vela"]["cycles_total"]),
    )


def footprint_table(rows: list[Footprint]) -> str:
    header = ["target", "rate", "memory mode", "program", "Vela arena", "method pool"]
    header += ["planned pool", "temp pool", "fast scratch", "SRAM", "DDR"]
    header += ["our code: text / data / bss", "Vela cycles per frame"]
    body = []
    for row in rows:
        arena = _kib(row.pools.vela_scratch_bytes)
        if row.fast_scratch_bytes:
            arena += f" (+ {row.vela_sram_kib:.1f} cache)"
        code = " / ".join(_kib(size) for size in (row.code.text, row.code.data, row.code.bss))
        body.append(
            [row.target, khz(row.sample_rate), row.memory_mode, _kib(row.pools.program_bytes)]
            + [arena, *(_kib(row.pools.size[pool]) for pool in ("method", "planned", "temp"))]
            + [_kib(row.fast_scratch_bytes) if row.fast_scratch_bytes else "-"]
            + [_kib(row.sram_bytes), _kib(row.ddr_bytes)]
            + [f"{code} ({row.code_objects})", f"{row.cycles:,}"]
        )
    notes = (
        "\nSizes in KiB (1024 bytes). Pools: need plus margin (method and temp +25 %, "
        "planned none), whole KiB (runtime/baremetal/pool_sizes.py). SRAM and DDR: the "
        "program, the pools and the fast scratch where build_baremetal.sh places them; our "
        "code and ExecuTorch come on top. Our code: runtime core and bare-metal app before "
        "linking (cross_compile_check.sh objects), without ExecuTorch, kernels and the "
        "Ethos-U driver. Cycles: Vela's estimate for the system config (report.json)."
    )
    return markdown_table(header, body) + "\n" + notes


def _export(work_dir: Path, target: str, sample_rate: int) -> Path:
    """Exports the default program for ``target`` at ``sample_rate`` (or reuses it)."""
    out = work_dir / f"{target}_{sample_rate // 1000}k"
    report = out / "report.json"
    if report.is_file():
        fields = json.loads(report.read_text())
        if fields.get("target") == target and int(fields.get("sample_rate", 0)) == sample_rate:
            return out
    print(f"exporting {target} at {sample_rate} Hz into {out}", file=sys.stderr)
    command = [sys.executable, "-m", "examples.arm.silero_vad.run_silero_vad"]
    command += ["--target", target, "--sample-rate", str(sample_rate)]
    command += ["--conditions", "none", "--output-dir", str(out)]
    subprocess.run(command, check=True, cwd=REPO_ROOT, stdout=subprocess.DEVNULL)
    return out


@exit_on_errors(OSError, KeyError, ValueError, RuntimeError, status=1)
def main(argv: list[str] | None = None) -> int:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    add = parser.add_argument
    add("--export-dir", type=Path, action="append", help="an export's directory (repeatable)")
    add("--work-dir", type=Path, default=WORK_DIR, help="where the default programs are exported")
    add("--cross-dir", type=Path, default=CROSS_DIR, help="cross_compile_check.sh's objects")
    args = parser.parse_args(argv)

    if not all((args.cross_dir / name).is_dir() for name in OBJECTS_OF_BOARD.values()):
        print(f"cross-compiling our objects into {args.cross_dir}", file=sys.stderr)
        command = [str(SCRIPTS / "cross_compile_check.sh"), "--build-dir", str(args.cross_dir)]
        subprocess.run(command, check=True, cwd=REPO_ROOT)
    export_dirs = args.export_dir or [
        _export(args.work_dir, target, rate) for target, rate in DEFAULT_PROGRAMS
    ]
    print(footprint_table([footprint(path, args.cross_dir) for path in export_dirs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
