# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""``report.md``: ``report.json`` as a page the reviewer of a change reads in a minute."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from examples.arm.silero_vad.model_export.targets import XNNPACK_TARGET
from examples.arm.silero_vad.verification.accuracy import NPU, XNNPACK
from examples.arm.silero_vad.verification.compare_vad_probs import CONFIDENCE_MARGIN
from examples.arm.silero_vad.verification.condition_accuracy import condition_summary
from examples.arm.silero_vad.verification.conditions import CONDITION_SETS

CLEAN = "clean (0 dB)"
_AUDIO_INPUTS = {
    "int16": "int16 PCM frames (no CPU conversion)",
    "float": "float32 audio (quantized on the CPU)",
}


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table with padded columns, so it also reads well as plain text."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    return "\n".join(
        [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        + [line(row) for row in rows]
    )


def _accuracy_row(name: str, entry: dict, clips: list[dict], actual: str) -> list[str]:
    """One row; ``clips`` are the entries whose segments it counts (float/device)."""
    vs_float = entry["vs_float"]
    boundary = entry["segments"]["boundary_ms"]
    row = [name, str(entry["frames"])]
    if "vs_quantized" in entry:
        row.append(f"{entry['vs_quantized']['max_abs']:.6f} ({entry['vs_quantized']['flips']})")
    return row + [
        f"{vs_float['max_abs']:.6f}",
        f"{vs_float['mean_abs']:.6f}",
        f"{vs_float['flips']} ({vs_float['flips_pct']:.1f} %)",
        str(vs_float["confident_flips"]),
        "/".join(str(sum(len(c["segments"][side]) for c in clips)) for side in ("float", actual)),
        f"{entry['segments']['f1']:.3f}",
        "-" if boundary is None else f"{boundary:.1f}",
    ]


def accuracy_table(accuracy: dict) -> str:
    """Per clip and overall: errors against the quantized program and the float model."""
    actual = accuracy["actual"]
    who = {NPU: "twin", XNNPACK: "program"}.get(actual, "quantized")
    header = ["clip", "frames"] + (["twin vs quantized: max abs (flips)"] if actual == NPU else [])
    header += [
        f"{who} vs float: max abs",
        "mean abs",
        f"flips @ {accuracy['threshold']:g}",
        "confident flips",
        f"segments float/{actual}",
        "speech F1",
        "boundary ms",
    ]
    clips = accuracy["clips"]
    rows = [_accuracy_row(name, entry, [entry], actual) for name, entry in clips.items()]
    rows.append(_accuracy_row("overall", accuracy["overall"], list(clips.values()), actual))
    return markdown_table(header, rows)


def _condition_order(conditions: Sequence[str]) -> list[str]:
    """The level sweep from quiet to loud with the clips as recorded (0 dB) in place, then
    the other conditions in the order given."""
    levels = [name for name in CONDITION_SETS["levels"] if name in conditions]
    quiet = [name for name in levels if name.startswith("level-")]
    loud = [name for name in levels if name.startswith("level+")]
    return [*quiet, CLEAN, *loud, *(name for name in conditions if name not in levels)]


def conditions_table(accuracy: dict, conditions: dict[str, dict]) -> str:
    """Per condition, pooled over the clips: errors, flips, confident flips and F1."""
    threshold = accuracy["threshold"]
    header = [
        "condition",
        "frames",
        "mean abs",
        f"flips @ {threshold:g}",
        f"confident flips (float > {CONFIDENCE_MARGIN:g} from {threshold:g})",
        "speech F1",
        "lowest clip F1",
        "float ±1 LSB: flips / confident",
    ]
    rows = []
    for name in _condition_order(list(conditions)):
        line = condition_summary(name, accuracy if name == CLEAN else conditions[name])
        row = [name, str(line["frames"]), f"{line['mean_abs']:.4f}"]
        row += [f"{line[key]:.2f} %" for key in ("flips_pct", "confident_flips_pct")]
        row += [f"{line['f1']:.3f}", f"{line['min_f1']:.3f}", "-"]
        if "float_dither_flips_pct" in line:
            row[-1] = (
                f"{line['float_dither_flips_pct']:.2f} % / "
                f"{line['float_dither_confident_flips_pct']:.2f} %"
            )
        rows.append(row)
    return markdown_table(header, rows)


def _seconds(segments: Sequence[Sequence[int]], sample_rate: int) -> str:
    if not segments:
        return "(none)"
    return ", ".join(f"{s / sample_rate:.2f}-{e / sample_rate:.2f}" for s, e in segments)


def _audio_input(report: dict) -> str:
    if report["target"] == XNNPACK_TARGET:  # float Silero: the program scales the PCM
        return "int16 PCM frames (scaled to float32 in the program)"
    return _AUDIO_INPUTS[report["audio_input"]]


def _configuration(report: dict) -> str:
    model = report["model"]
    rows = [
        ["target", report["target"]],
        ["program", str(report.get("program") or "-")],
        ["system config", str(report.get("system_config") or "-")],
        ["memory mode", str(report.get("memory_mode") or "-")],
        ["model", f"Silero VAD {report['sample_rate'] // 1000} kHz"],
        ["audio input", _audio_input(report)],
        [
            "arithmetic",
            f"{model['activations']} activations, {model['weights']} weights, "
            f"{model['state_dtype']} state",
        ],
        ["executorch", report["executorch_version"]],
        ["file", f"{report['pte']} ({report['pte_bytes']:,} bytes)"],
        ["file sha256", f"`{report['pte_sha256']}`"],
        ["export time", f"{report['export_seconds']} s"],
        [
            "calibration clips",
            ", ".join(Path(p).name for p in report["calibration_clips"]) or "none (float)",
        ],
        ["validation clips", ", ".join(Path(p).name for p in report["validation_clips"])],
    ]
    return markdown_table(["setting", "value"], rows)


def _vela(report: dict) -> str:
    vela = report.get("vela")
    if not vela:
        return "No NPU target: Vela did not run."
    rows = [
        ["operators on the NPU / CPU", f"{vela['npu_ops']} / {vela['cpu_ops']}"],
        ["cycles per frame (total / NPU)", f"{vela['cycles_total']:,} / {vela['cycles_npu']:,}"],
        [
            "cycles on memory (SRAM / DRAM)",
            f"{vela['cycles_sram_access']:,} / {vela['cycles_dram_access']:,}",
        ],
        ["SRAM / DRAM used", f"{vela['sram_kib']} KiB / {vela['dram_kib']} KiB"],
        ["MACs per frame", f"{vela['nn_macs']:,}"],
    ]
    return markdown_table(["Vela estimate", "value"], rows)


def _portable_ops(report: dict) -> str:
    ops = report.get("portable_ops") or {}
    intro = (
        f"{report.get('delegates', 0)} delegate(s); the operators the ExecuTorch runtime runs "
        "itself (its kernels must be linked into the application):"
    )
    if not ops:
        return intro + "\n\n(none)"
    rows = [[f"`{op}`", str(count)] for op, count in sorted(ops.items())]
    return intro + "\n\n" + markdown_table(["operator", "calls per frame"], rows)


def _accuracy(report: dict, plots: dict[str, str]) -> str:
    accuracy = report["accuracy"]
    actual = accuracy["actual"]
    if actual == NPU:
        intro = (
            "The device twin (Vela's TOSA file on the TOSA reference model, frame by frame, "
            f"with the {report['model']['state_dtype']} state fed back) against the quantized "
            "program on the host (small but not 0: the NPU interpolates 16-bit sigmoid and "
            "tanh from tables) and against the float model (the cost of quantization)."
        )
    elif actual == XNNPACK:
        intro = (
            "xnnpack target: float Silero on XNNPACK. The program on ExecuTorch's Python "
            "runtime (as StreamingVad runs it) against the eager float model: the same model, "
            "so only float rounding differs."
        )
    else:
        intro = (
            "cpu target: no device twin. The quantized program (what the host runtime runs) "
            "against the float model."
        )
    text = [
        intro,
        f"Flips: frames whose decision (probability >= {accuracy['threshold']:g}) differs. "
        "Segments: silero-vad's segmenter (default parameters) on each side; speech F1: their "
        "sample-level overlap; boundary ms: from each float start (end) to the nearest one.",
        accuracy_table(accuracy),
        "### Segments (seconds)",
    ]
    rate = accuracy["sample_rate"]
    for name, entry in accuracy["clips"].items():
        segments = entry["segments"]
        text.append(
            f"**{name}**: float {_seconds(segments['float'], rate)}; "
            f"{actual} {_seconds(segments[actual], rate)}"
        )
        if name in plots:
            text.append(f"![{name}]({plots[name]})")
    return "\n\n".join(text)


def _conditions(report: dict) -> str:
    conditions = report.get("conditions")
    if not conditions:
        return "Not measured (`--conditions none`)."
    actual = report["accuracy"]["actual"]
    who = {NPU: "device twin", XNNPACK: "XNNPACK program"}.get(actual, "quantized program")
    intro = (
        "The validation clips under each condition of `verification/conditions.py` (levels: a "
        f"gain, clipped at full scale), the {who} against float Silero on the same audio. A "
        f"confident flip is one where float is more than {CONFIDENCE_MARGIN:g} from the "
        "threshold: near it float itself tips under a 1-LSB dither, the last column's floor."
    )
    return intro + "\n\n" + conditions_table(report["accuracy"], conditions)


def render_report(report: dict, plots: dict[str, str] | None = None) -> str:
    """The Markdown text; ``plots`` maps clip names to image paths relative to the report."""
    sections = [
        "# Silero VAD on Ethos-U: export report",
        "## Configuration\n\n" + _configuration(report),
        "## Vela\n\n" + _vela(report),
        "## Operators outside the delegate\n\n" + _portable_ops(report),
        "## Accuracy\n\n" + _accuracy(report, plots or {}),
        "## Recording conditions\n\n" + _conditions(report),
    ]
    return "\n\n".join(sections) + "\n"


def write_report_markdown(output_dir: Path, report: dict, plots: dict[str, Path]) -> Path:
    """Writes ``<output_dir>/report.md``; the plots (under it) are linked relative to it."""
    relative = {
        name: quote(path.relative_to(output_dir).as_posix()) for name, path in plots.items()
    }
    path = output_dir / "report.md"
    path.write_text(render_report(report, relative))
    return path
