# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Vela's figures for a lowered model: operator placement, cycles and memory.

``read_vela_report`` reads them from the lowering's own Vela run (the summary CSV, and the
NPU and CPU operator counts the CSV lacks from what Vela printed); ``run_vela`` runs the
``vela`` CLI again on a TOSA file, for studies that vary Vela's settings (under a second)."""

from __future__ import annotations

import csv
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

# What Vela printed while the lowering compiled the program (operator counts, summary).
VELA_LOG = "vela.log"


@dataclass(frozen=True)
class VelaReport:
    npu_ops: int
    cpu_ops: int
    cycles_total: int
    cycles_npu: int
    cycles_sram_access: int
    cycles_dram_access: int
    sram_kib: float
    dram_kib: float
    nn_macs: int


def _operator_count(output: str, kind: str) -> int:
    match = re.search(rf"^{kind} operators = (\d+)", output, flags=re.MULTILINE)
    if match is None:
        raise RuntimeError(f"vela printed no '{kind} operators' line:\n{output}")
    return int(match.group(1))


def _run_vela_cli(
    tosa_path: Path, compiler_flags: list[str], output_dir: str, *extra_flags: str
) -> str:
    """Runs the ``vela`` CLI with the lowering's own flags; returns what it printed."""
    flags = [flag for flag in compiler_flags if not flag.startswith("--output-dir")]
    command = [
        str(Path(sys.executable).with_name("vela")),
        *flags,
        *extra_flags,
        f"--output-dir={output_dir}",
        str(tosa_path),
    ]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise RuntimeError(
            f"vela failed on {tosa_path} ({completed.returncode}):\n{completed.stderr}"
        )
    return completed.stdout


def run_vela(tosa_path: Path, compiler_flags: list[str]) -> VelaReport:
    """Compiles ``tosa_path`` with the lowering's own Vela flags and reads the result."""
    with tempfile.TemporaryDirectory() as output_dir:
        stdout = _run_vela_cli(tosa_path, compiler_flags, output_dir)
        return _report(stdout, Path(output_dir), str(tosa_path))


def read_vela_report(artifacts_dir: Path) -> VelaReport:
    """The figures of the lowering's own Vela run: its summary in ``artifacts_dir/output``
    and what it printed (``VELA_LOG``)."""
    log = artifacts_dir / VELA_LOG
    if not log.is_file():
        raise RuntimeError(f"{log}: missing; was the program lowered with these artifacts?")
    return _report(log.read_text(), artifacts_dir / "output", str(artifacts_dir))


def _report(stdout: str, output_dir: Path, source: str) -> VelaReport:
    summaries = list(output_dir.glob("*_summary_*.csv"))
    if len(summaries) != 1:
        raise RuntimeError(f"vela wrote {len(summaries)} summary files for {source}")
    with summaries[0].open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if len(rows) != 1:
        raise RuntimeError(f"{summaries[0]}: expected one summary row, found {len(rows)}")
    row = rows[0]
    counts = ("cycles_total", "cycles_npu", "cycles_sram_access", "cycles_dram_access", "nn_macs")
    return VelaReport(
        npu_ops=_operator_count(stdout, "NPU"),
        cpu_ops=_operator_count(stdout, "CPU"),
        sram_kib=round(float(row["sram_memory_used"]), 2),
        dram_kib=round(float(row["dram_memory_used"]), 2),
        **{name: int(float(row[name])) for name in counts},
    )


def operator_performance(tosa_path: Path, compiler_flags: list[str]) -> str:
    """Vela's per-operator table (cycles, memory access, MACs) for ``tosa_path``."""
    with tempfile.TemporaryDirectory() as output_dir:
        stdout = _run_vela_cli(tosa_path, compiler_flags, output_dir, "--verbose-performance")
    start = stdout.find("Original Operator")
    end = stdout.find("Network summary", start)
    if start < 0 or end < 0:
        raise RuntimeError(f"vela printed no per-operator performance for {tosa_path}")
    return stdout[start:end].rstrip()
