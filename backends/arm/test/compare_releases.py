# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Compares the main job's output on two executorch releases: same model, same numbers?

Each directory is what ``examples/arm/silero_vad/run.sh --executorch VERSION
--output-dir DIR`` wrote. Parity means, between the two:

* the same validation clips, the same operators left to the CPU (the boundary ones: the
  probability's dequantize and the state write) in one delegate, nothing on Vela's CPU
  list;
* per clip, device-twin probabilities within ``--max-abs`` of each other and no
  decision that changes at the threshold.

The default ``--max-abs`` is one step of the program's output quantization (the larger
of the two programs' scales). Both releases quantize the same graph (our passes own the
LSTM cell and the state on both, the same torch and torchao compute the same qparams),
and the delegate is integer arithmetic, so the twins are expected to be equal; a
release may still arrange the integer rescales differently (1.5.1 drops two transposes
and a reshape that 1.4.1 emits), which can move a probability by one output step at
most. More than that, or a changed decision, means the releases run different models.

It also prints the two releases side by side (Vela figures, operators, accuracy against
the float model), as a Markdown table. Exit status 0 at parity, 1 otherwise, 2 when a
directory cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from examples.arm.silero_vad.model_export.program_inspection import inspect_program
from examples.arm.silero_vad.verification.compare_vad_probs import (
    DEFAULT_THRESHOLD,
    Comparison,
    ComparisonError,
    compare_probabilities,
    read_bin,
)


class ReleaseOutputError(ValueError):
    """A directory that is not a complete main-job output."""


@dataclass(frozen=True)
class ReleaseOutput:
    """One release's main-job output: its report, twin probabilities and output step."""

    directory: Path
    report: dict
    twin: dict[str, np.ndarray]
    output_step: float

    @property
    def release(self) -> str:
        return str(self.report["executorch_version"])

    @classmethod
    def read(cls, directory: Path) -> ReleaseOutput:
        report_path = directory / "report.json"
        if not report_path.is_file():
            raise ReleaseOutputError(f"{directory}: no report.json (run the main job first)")
        report = json.loads(report_path.read_text())
        if "accuracy" not in report or "vela" not in report:
            raise ReleaseOutputError(f"{report_path}: not an Ethos-U main-job report")
        twin = {}
        for clip in sorted(report["accuracy"]["clips"]):
            path = directory / "twin" / f"{clip}.bin"
            if not path.is_file():
                raise ReleaseOutputError(f"{path}: missing (the device twin did not run)")
            twin[clip] = read_bin(path)
        pte = directory / str(report["pte"])
        output = inspect_program(pte).output_quantization
        if output is None:
            raise ReleaseOutputError(f"{pte}: the output is not dequantized by the program")
        return cls(directory, report, twin, float(output.scale))


@dataclass(frozen=True)
class Parity:
    failures: list[str]
    clips: dict[str, Comparison]
    limit: float  # the largest twin difference allowed

    @property
    def max_abs(self) -> float | None:
        """The largest twin difference measured over all clips (None without clips)."""
        return max((c.max_abs for c in self.clips.values()), default=None)


def check_parity(
    a: ReleaseOutput,
    b: ReleaseOutput,
    max_abs: float | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> Parity:
    """Everything that must agree between the two releases, as a list of failures."""
    limit = max(a.output_step, b.output_step) if max_abs is None else max_abs
    failures = []
    for key in ("portable_ops", "delegates"):
        if a.report[key] != b.report[key]:
            failures.append(
                f"{key}: {a.report[key]} on {a.release}, {b.report[key]} on {b.release}"
            )
    for output in (a, b):
        if output.report["cpu_ops"] != 0:
            failures.append(
                f"{output.release}: {output.report['cpu_ops']} op(s) on Vela's CPU list"
            )
    if sorted(a.twin) != sorted(b.twin):
        failures.append(f"clips differ: {sorted(a.twin)} on {a.release}, {sorted(b.twin)}")
        return Parity(failures, {}, limit)
    clips = {}
    for clip in a.twin:
        comparison = compare_probabilities(
            b.twin[clip], a.twin[clip], threshold, b.release, a.release
        )
        clips[clip] = comparison
        if comparison.max_abs > limit:
            failures.append(
                f"{clip}: twins differ by {comparison.max_abs:.6g} > {limit:.6g} "
                f"(frame {comparison.worst_frame})"
            )
        if comparison.flips:
            failures.append(
                f"{clip}: {comparison.flips} decision(s) differ at {threshold:g} "
                f"(first at frame {comparison.first_flip})"
            )
    return Parity(failures, clips, limit)


def _rows(output: ReleaseOutput) -> dict[str, str]:
    report, vela = output.report, output.report["vela"]
    overall = report["accuracy"]["overall"]
    vs_float = overall["vs_float"]
    ops = ", ".join(
        f"{name.split('::')[-1]} x{n}" for name, n in sorted(report["portable_ops"].items())
    )
    return {
        "NPU cycles per frame (Vela)": f"{vela['cycles_npu']:,}",
        "total cycles per frame (Vela)": f"{vela['cycles_total']:,}",
        "NPU / CPU ops (Vela)": f"{vela['npu_ops']} / {vela['cpu_ops']}",
        "MACs per frame": f"{vela['nn_macs']:,}",
        "SRAM / DRAM KiB": f"{vela['sram_kib']} / {vela['dram_kib']}",
        ".pte bytes": f"{report['pte_bytes']:,}",
        "delegates; portable ops": f"{report['delegates']}; {ops}",
        "twin vs float: MAE / max": f"{vs_float['mean_abs']:.4f} / {vs_float['max_abs']:.4f}",
        f"twin vs float: flips at {report['accuracy']['threshold']:g}": (
            f"{vs_float['flips']} of {overall['frames']} ({vs_float['flips_pct']:.1f} %)"
        ),
        "speech segments F1 vs float": f"{overall['segments']['f1']:.3f}",
        "export seconds": f"{report['export_seconds']}",
    }


def side_by_side(a: ReleaseOutput, b: ReleaseOutput, parity: Parity) -> str:
    """The Markdown table of the two releases, and how far apart their twins are."""
    rows_a, rows_b = _rows(a), _rows(b)
    lines = [
        f"| executorch | {a.release} | {b.release} |",
        "|---|---:|---:|",
        *(f"| {name} | {rows_a[name]} | {rows_b[name]} |" for name in rows_a),
    ]
    if parity.clips:
        worst = parity.max_abs
        flips = sum(c.flips for c in parity.clips.values())
        frames = sum(c.frames for c in parity.clips.values())
        lines.append(
            f"| twin {b.release} vs {a.release} (limit {parity.limit:.6g}) | "
            f"max abs {worst:.6g}, {flips} flips over {frames} frames | |"
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Check that two executorch releases export the same Silero VAD "
        "(main-job output directories) and print them side by side."
    )
    parser.add_argument("reference", type=Path, help="output directory of the first release")
    parser.add_argument("candidate", type=Path, help="output directory of the second release")
    parser.add_argument(
        "--max-abs",
        type=float,
        default=None,
        help="largest accepted difference between the twins (default: one step of the "
        "program's output quantization)",
    )
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        a, b = ReleaseOutput.read(args.reference), ReleaseOutput.read(args.candidate)
        parity = check_parity(a, b, args.max_abs, args.threshold)
    except (ReleaseOutputError, ComparisonError, OSError) as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    table = side_by_side(a, b, parity)
    print(table)
    if args.markdown:
        args.markdown.write_text(table + "\n")
    if parity.failures:
        for failure in parity.failures:
            print(f"ERROR release parity: {failure}", file=sys.stderr)
        return 1
    print(f"release parity: {a.release} and {b.release} export the same model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
