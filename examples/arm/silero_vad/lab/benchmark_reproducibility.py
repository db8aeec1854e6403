# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The same program from any build machine: each default program exported under several
CPU kernel sets, thread counts and output folders, one table of their sha256.

A kernel set is picked when torch starts, so every export is its own process (the main
job's, without recording conditions):

    python -m examples.arm.silero_vad.lab.benchmark_reproducibility --jobs 2

``--lever-off`` exports with the statistics in float32 and unrounded, as before
``model_export/reproducible_statistics.py``.
"""

from __future__ import annotations

if __name__ == "__main__":
    # As a command: hide known third-party noise before torch loads (not on import).
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from examples.arm.silero_vad.lab import REPO_ROOT, khz
from examples.arm.silero_vad.verification.report_markdown import markdown_table

# The default program of each Ethos-U family (its release default memory mode) and the two
# host programs.
TARGETS = ("ethos-u85-256", "ethos-u55-128", "ethos-u65-256", "cpu", "xnnpack")
SAMPLE_RATES = (16000, 8000)


@dataclass(frozen=True)
class BuildMachine:
    """How one export runs: its CPU kernels, threads and output folder."""

    name: str
    environment: dict[str, str]
    folder: str


BUILD_MACHINES = (
    BuildMachine("native kernels", {}, "a"),
    BuildMachine("AVX2", {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}, "b/deeper"),
    BuildMachine(
        "baseline (SSE4.1)",
        {"ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41"},
        "c",
    ),
    BuildMachine("native, 1 thread", {"OMP_NUM_THREADS": "1"}, "other/folder/d"),
)


def export_sha256(
    target: str, sample_rate: int, machine: BuildMachine, work_dir: Path, lever_off: bool
) -> str:
    """The sha256 of the program one export writes (the main job without conditions; the
    program does not depend on the validation clips, so one short clip is given)."""
    output_dir = work_dir / f"{target}-{sample_rate}" / machine.folder
    suffix = "" if sample_rate == 16000 else "_8k"
    validation = sorted((REPO_ROOT / f"examples/arm/silero_vad/data/validation{suffix}").glob("*"))
    arguments = [
        *("--target", target, "--sample-rate", str(sample_rate), "--conditions", "none"),
        *("--validation-wav", str(validation[0]), "--output-dir", str(output_dir)),
    ]
    lever = "import examples.arm.silero_vad.model_export.reproducible_statistics as r; "
    code = (lever + "r.REPRODUCIBLE = False; " if lever_off else "") + (
        f"from examples.arm.silero_vad.run_silero_vad import main; main({arguments!r})"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env={**os.environ, **machine.environment},
        capture_output=True,
        text=True,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"export {target} {sample_rate} ({machine.name}):\n{completed.stderr}")
    report = json.loads((output_dir / "report.json").read_text())
    digest = hashlib.sha256((output_dir / report["pte"]).read_bytes()).hexdigest()
    if digest != report["pte_sha256"]:
        raise RuntimeError(f"{output_dir}: report.json names another program than it wrote")
    return digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--target", action="append", choices=TARGETS, help="repeatable (default: all)")
    add("--sample-rate", action="append", type=int, choices=SAMPLE_RATES)
    add("--jobs", type=int, default=1, help="exports at a time (default: %(default)s)")
    add("--lever-off", action="store_true", help="float32, unrounded statistics (as before)")
    add("--work-dir", type=Path, default=Path("out/benchmark_reproducibility"))
    args = parser.parse_args(argv)
    programs = [
        (target, rate)
        for rate in args.sample_rate or SAMPLE_RATES
        for target in args.target or TARGETS
    ]
    with ThreadPoolExecutor(args.jobs) as pool:
        digests = {
            (program, machine.name): pool.submit(
                export_sha256, *program, machine, args.work_dir, args.lever_off
            )
            for program in programs
            for machine in BUILD_MACHINES
        }
        rows = []
        for target, rate in programs:
            found = [digests[(target, rate), m.name].result() for m in BUILD_MACHINES]
            same = "yes" if len(set(found)) == 1 else f"no: {len(set(found))} programs"
            rows.append([target, khz(rate), *(d[:16] for d in found), same, found[0]])
    import torch  # only to name the host's kernels

    print(
        f"native kernels: {torch.backends.cpu.get_cpu_capability()}, {os.cpu_count()} CPUs; "
        f"statistics: {'float32, unrounded (lever off)' if args.lever_off else 'reproducible'}"
    )
    names = [machine.name for machine in BUILD_MACHINES]
    print(markdown_table(["target", "rate", *names, "identical", "sha256"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
