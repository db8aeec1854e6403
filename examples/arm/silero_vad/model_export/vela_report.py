# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Vela's figures for a lowered model: operator placement, cycles and memory.

The lowering leaves the exact TOSA file that Vela compiled; running the ``vela`` CLI on
it again takes under a second and prints what the summary CSV lacks (how many operators
run on the NPU and how many fall back to the CPU).
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path


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

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


def _operator_count(output: str, kind: str) -> int:
    match = re.search(rf"^{kind} operators = (\d+)", output, flags=re.MULTILINE)
    if match is None:
        raise RuntimeError(f"vela printed no '{kind} operators' line:\n{output}")
    return int(match.group(1))


def read_summary_csv(path: Path) -> dict[str, str]:
    """The single row of a Vela ``out_summary_<system_config>.csv``."""
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    if len(rows) != 1:
        raise RuntimeError(f"{path}: expected one summary row, found {len(rows)}")
    return rows[0]


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
        summaries = list(Path(output_dir).glob("*_summary_*.csv"))
        if len(summaries) != 1:
            raise RuntimeError(f"vela wrote {len(summaries)} summary files for {tosa_path}")
        row = read_summary_csv(summaries[0])
    return VelaReport(
        npu_ops=_operator_count(stdout, "NPU"),
        cpu_ops=_operator_count(stdout, "CPU"),
        cycles_total=int(float(row["cycles_total"])),
        cycles_npu=int(float(row["cycles_npu"])),
        cycles_sram_access=int(float(row["cycles_sram_access"])),
        cycles_dram_access=int(float(row["cycles_dram_access"])),
        sram_kib=round(float(row["sram_memory_used"]), 2),
        dram_kib=round(float(row["dram_memory_used"]), 2),
        nn_macs=int(float(row["nn_macs"])),
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


def run_vela_on_delegates(artifacts_dir: Path, compiler_flags: list[str]) -> VelaReport:
    """Vela's figures summed over every delegate the lowering dumped (``output_tag*.tosa``).

    A model split into several delegates (for example the release's own flow on 1.4.1,
    which leaves the LSTM cell on the CPU between two of them) runs them all per frame.
    """
    tosa_files = sorted(artifacts_dir.glob("output_tag*.tosa")) or [artifacts_dir / "out.tosa"]
    reports = [run_vela(path, compiler_flags) for path in tosa_files]
    return VelaReport(
        **{
            name: sum(getattr(report, name) for report in reports)
            for name in VelaReport.__dataclass_fields__
        }
    )
