# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The example's main job (``run.sh``): export -> device twin -> accuracy -> report.

The device twin runs for Ethos-U targets only; the host targets' programs run on
ExecuTorch's Python runtime instead (``xnnpack``) or are measured through the PyTorch
quantized program (``cpu``). Accuracy is also measured under recording conditions. Writes
``report.json``, ``report.md`` and ``plots/<clip>.png``.
"""

from __future__ import annotations

if __name__ == "__main__":  # a command hides known third-party noise before torch loads
    from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

    silence_known_third_party_noise()

import argparse
import configparser
import contextlib
import ctypes
import importlib.resources
import logging
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from examples.arm.silero_vad.model_export.audio import AudioError, AudioStream, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import (
    ExportOptions,
    ExportResult,
    export_silero_vad,
    read_probabilities,
    reference_path,
    tosa_path,
    write_report,
)
from examples.arm.silero_vad.model_export.frame_geometry import DEFAULT_SAMPLE_RATE, SAMPLE_RATES
from examples.arm.silero_vad.model_export.progress import FrameProgress
from examples.arm.silero_vad.model_export.reproducible_statistics import NotReproducibleError
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    AUDIO_INPUTS,
    DEFAULT_AUDIO_INPUT,
    program_frames,
    stream_probabilities,
)
from examples.arm.silero_vad.model_export.targets import (
    CPU_TARGET,
    DEFAULT_NPU_TARGET,
    ETHOS_U_TARGETS,
    HOST_TARGETS,
    XNNPACK_TARGET,
    all_targets,
)
from examples.arm.silero_vad.model_export.xnnpack_program import (
    PROGRAM_REFERENCE,
    program_stream_probabilities,
)
from examples.arm.silero_vad.verification.accuracy import (
    NPU,
    QUANTIZED,
    XNNPACK,
    ClipProbabilities,
    accuracy_report,
)
from examples.arm.silero_vad.verification.cli import exit_on_errors
from examples.arm.silero_vad.verification.compare_vad_probs import (
    DEFAULT_THRESHOLD,
    ComparisonError,
    probability_arg,
)
from examples.arm.silero_vad.verification.condition_accuracy import (
    DeviceRunner,
    conditions_report,
)
from examples.arm.silero_vad.verification.conditions import condition_choices, expand_conditions
from examples.arm.silero_vad.verification.device_twin import (
    DeviceTwin,
    TwinError,
    TwinStream,
    run_twin,
)
from examples.arm.silero_vad.verification.plots import plot_clip
from examples.arm.silero_vad.verification.report_markdown import (
    accuracy_table,
    conditions_table,
    write_report_markdown,
)

DATA_DIR = Path(__file__).resolve().parent / "data"
PLOTS_DIR = "plots"
# What the TOSA reference model prints on the process's stdout (one line per frame).
TOSA_REFERENCE_OUTPUT = "tosa_reference_model.txt"


class UsageError(ValueError):
    """An option that cannot work; reported before the export spends its time."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="run.sh",
        description="Export Silero VAD as a stateful quantized ExecuTorch program for Ethos-U, "
        "run the device twin on the validation clips and report its accuracy against the "
        "quantized program and the float model (report.json, report.md, plots/). A host "
        "target (xnnpack, cpu) exports a program for the host and reports it the same way.",
    )
    add = parser.add_argument
    for kind in ("calibration", "validation"):
        where = f"data/{kind}/*.wav, data/{kind}_8k/*.wav at 8 kHz"
        add(f"--{kind}-wav", action="append", type=Path, help=f"repeatable (default: {where})")
    add(
        "--sample-rate",
        type=int,
        choices=SAMPLE_RATES,
        default=DEFAULT_SAMPLE_RATE,
        help="16000 (512-sample frames) or 8000 (256, telephone band) (default: %(default)s)",
    )
    families = ", ".join(f"{'/'.join(t)}" for t in ETHOS_U_TARGETS.values())
    hosts = "; ".join(f"{target}: {role}" for target, role in HOST_TARGETS.items())
    add(
        "--target",
        default=DEFAULT_NPU_TARGET,
        choices=all_targets(),
        metavar="TARGET",
        help=f"Ethos-U ({families}), or a host program without device twin ({hosts}) "
        "(default: %(default)s)",
    )
    for option in ("--system-config", "--memory-mode"):
        add(option, help="from Arm/vela.ini (default: EthosUCompileSpec's for the target)")
    add(
        "--input",
        dest="audio_input",
        choices=AUDIO_INPUTS,
        default=DEFAULT_AUDIO_INPUT,
        help="the program's audio input: int16 PCM frames or float32 audio (default: %(default)s)",
    )
    add(
        "--threshold",
        type=probability_arg,
        default=DEFAULT_THRESHOLD,
        help="speech threshold for flips; segments use silero-vad's own (default: %(default)s)",
    )
    add(
        "--conditions",
        type=_conditions,
        default=expand_conditions(["all"]),
        help="comma-separated recording conditions or sets, or 'none' (default: all; one of "
        f"{', '.join(condition_choices())})",
    )
    add("--output-dir", type=Path, default=Path("out/silero_vad"))
    return parser.parse_args(argv)


def _conditions(text: str) -> list[str]:
    if text == "none":
        return []
    try:
        return expand_conditions([name for name in text.split(",") if name])
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def check_target_options(target: str, system_config: str | None, memory_mode: str | None) -> None:
    """Rejects a system config or memory mode Vela does not know, naming the choices."""
    ini = importlib.resources.files("ethosu").joinpath("config_files/Arm/vela.ini")
    sections = configparser.ConfigParser()
    sections.read_string(ini.read_text())
    for what, value, prefix in (
        ("--system-config", system_config, "System_Config."),
        ("--memory-mode", memory_mode, "Memory_Mode."),
    ):
        choices = [s.removeprefix(prefix) for s in sections.sections() if s.startswith(prefix)]
        if value is None:
            continue
        if target in HOST_TARGETS:
            raise UsageError(f"{what} {value}: the {target} target does not run Vela")
        if value not in choices:
            raise UsageError(f"{what} {value}: not one of {', '.join(choices)}")


def default_clips(kind: str, sample_rate: int) -> list[Path]:
    """The committed ``calibration`` or ``validation`` clips of the model's sample rate."""
    suffix = "" if sample_rate == DEFAULT_SAMPLE_RATE else f"_{sample_rate // 1000}k"
    return wav_files(DATA_DIR / f"{kind}{suffix}")


@contextlib.contextmanager
def native_stdout_to(path: Path) -> Iterator[None]:
    """Sends what native code prints on file descriptor 1 to ``path`` while the block runs:
    the TOSA reference model's per-frame warning would bury the job's own output."""
    sys.stdout.flush()
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = os.dup(1)
    try:
        with path.open("wb") as sink:
            os.dup2(sink.fileno(), 1)
            yield
    finally:
        ctypes.CDLL(None).fflush(None)  # C stdio may still hold lines meant for the file
        os.dup2(saved, 1)
        os.close(saved)


def clip_probabilities(
    stream: AudioStream, output_dir: Path, twin: dict[str, TwinStream] | None, kind: str
) -> ClipProbabilities:
    """The references the export wrote (float and ``kind``: ``quantized``, or ``program`` for
    the xnnpack target), with the twin's when there is one."""
    float_model = read_probabilities(reference_path(output_dir, stream.name, "float"))
    quantized = read_probabilities(reference_path(output_dir, stream.name, kind))
    if twin is None:
        actual, quantized = quantized, None
    else:
        actual = twin[stream.name].probabilities
    return ClipProbabilities(
        stream.name, stream.num_samples, float_model, actual, quantized, stream.sample_rate
    )


def write_plots(
    streams: list[AudioStream], clips: list[ClipProbabilities], accuracy: dict, output_dir: Path
) -> dict[str, Path]:
    """``plots/<clip>.png`` for every clip; returns the paths by clip name."""
    actual = accuracy["actual"]
    paths = {}
    for stream, clip in zip(streams, clips, strict=True):
        entry = accuracy["clips"][clip.name]
        segments = entry["segments"]
        title = (
            f"{clip.name}: speech F1 {segments['f1']:.3f}, "
            f"{entry['vs_float']['flips']} flips vs float at {accuracy['threshold']:g}"
        )
        paths[clip.name] = plot_clip(
            output_dir / PLOTS_DIR / f"{clip.name}.png",
            title,
            stream.samples,
            clip.float_model,
            clip.actual,
            segments["float"],
            segments[actual],
            accuracy["threshold"],
            actual_label={NPU: "NPU twin", XNNPACK: "XNNPACK program"}.get(actual, "quantized"),
            sample_rate=stream.sample_rate,
        )
    return paths


def device_runner(result: ExportResult, output_dir: Path, on_npu: bool) -> DeviceRunner:
    """What runs the derived streams: the device twin, the quantized program (cpu) or the
    program on ExecuTorch's Python runtime (xnnpack)."""
    audio_input = result.report["audio_input"]

    def run(streams: list[AudioStream]) -> list[tuple]:
        progress = FrameProgress("conditions", sum(stream.num_frames for stream in streams))
        if on_npu:
            twin = DeviceTwin(tosa_path(output_dir), result.pte_path)
            with native_stdout_to(output_dir / "twin" / TOSA_REFERENCE_OUTPUT):
                outputs = twin.run_streams(streams, progress)
            return [(output.probabilities, output.saturated_frames) for output in outputs]
        outputs = []
        for stream in streams:
            progress.start_clip(stream.name)
            if result.quantized is None:
                probabilities = program_stream_probabilities(result.pte_path, stream)
            else:
                frames = program_frames(stream, audio_input)
                probabilities = stream_probabilities(result.quantized, frames)
            outputs.append((probabilities, None))
            progress.advance(stream.num_frames)
            progress.finish_clip()
        return outputs

    return run


def _export_summary(result: ExportResult) -> str:
    report, vela = result.report, result.report.get("vela")
    line = (
        f"export: {result.pte_path.name} ({report['pte_bytes']:,} bytes) "
        f"in {report['export_seconds']} s"
    )
    if vela:
        line += (
            f"; Vela: {vela['npu_ops']} NPU / {vela['cpu_ops']} CPU ops, "
            f"{vela['cycles_total']:,} cycles per frame, SRAM {vela['sram_kib']} KiB, "
            f"DRAM {vela['dram_kib']} KiB"
        )
    same = "the same from these sources on any build machine; RESULTS.md lists the defaults"
    return f"{line}\nexport: sha256 {report['pte_sha256']} ({same})"


@exit_on_errors(UsageError, AudioError, NotReproducibleError, TwinError, ComparisonError)
def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    output_dir: Path = args.output_dir
    on_npu = args.target not in HOST_TARGETS
    check_target_options(args.target, args.system_config, args.memory_mode)
    if args.target == XNNPACK_TARGET and args.audio_input != DEFAULT_AUDIO_INPUT:
        raise UsageError(f"--input {args.audio_input}: the {XNNPACK_TARGET} program takes int16")
    options = ExportOptions(
        calibration_wavs=args.calibration_wav or default_clips("calibration", args.sample_rate),
        validation_wavs=args.validation_wav or default_clips("validation", args.sample_rate),
        output_dir=output_dir,
        target=args.target,
        system_config=args.system_config,
        memory_mode=args.memory_mode,
        sample_rate=args.sample_rate,
        audio_input=args.audio_input,
    )
    vela = options.vela_settings()
    where = f", {vela.system_config}, {vela.memory_mode}" if vela else ""
    print(
        f"exporting the {args.sample_rate} Hz model for {args.target}{where} "
        f"(calibration: {len(options.calibration_wavs)} clip(s), validation: "
        f"{len(options.validation_wavs)}) ...",
        flush=True,
    )
    result = export_silero_vad(options)
    print(_export_summary(result), flush=True)
    streams = result.validation_streams
    frames = sum(stream.num_frames for stream in streams)

    twin = None
    if on_npu:
        print(f"device twin: {frames} frames on the TOSA reference model ...", flush=True)
        start = time.monotonic()
        with native_stdout_to(output_dir / "twin" / TOSA_REFERENCE_OUTPUT):
            twin = run_twin(tosa_path(output_dir), result.pte_path, streams, output_dir)
        print(f"device twin: done in {time.monotonic() - start:.1f} s -> {output_dir / 'twin'}")
        for name, stream in twin.items():
            h_frames, c_frames = stream.saturated_frames
            if h_frames or c_frames:
                print(
                    f"WARNING {name}: the state saturated (h on {h_frames} frame(s), c on "
                    f"{c_frames}): this audio drives the LSTM beyond the calibrated range; "
                    "calibrate with audio like it",
                    flush=True,
                )
    elif args.target == CPU_TARGET:
        print(
            f"target {CPU_TARGET}: no device twin (it emulates the NPU delegate); "
            "accuracy is the quantized program's against the float model"
        )
    else:
        print(
            f"target {XNNPACK_TARGET}: float Silero on XNNPACK; accuracy is the program's on "
            "ExecuTorch's Python runtime against the eager float model"
        )

    kind = PROGRAM_REFERENCE if args.target == XNNPACK_TARGET else "quantized"
    clips = [clip_probabilities(stream, output_dir, twin, kind) for stream in streams]
    side = NPU if on_npu else XNNPACK if args.target == XNNPACK_TARGET else QUANTIZED
    accuracy = accuracy_report(clips, threshold=args.threshold, actual=side)
    report = result.report | {"accuracy": accuracy}
    if args.conditions:
        print(
            f"recording conditions: {', '.join(args.conditions)} "
            f"({frames * len(args.conditions)} frames) ...",
            flush=True,
        )
        run = device_runner(result, output_dir, on_npu)
        report["conditions"] = conditions_report(
            args.conditions, streams, result.float_model, run, side, args.threshold
        )
    if twin is not None:
        report["state_saturation"] = {
            name: {"h_frames": stream.saturated_frames[0], "c_frames": stream.saturated_frames[1]}
            for name, stream in twin.items()
        }
    write_report(output_dir, report)
    plots = write_plots(streams, clips, accuracy, output_dir)
    markdown = write_report_markdown(output_dir, report, plots)
    print(f"\n{accuracy_table(accuracy)}")
    if "conditions" in report:
        print(f"\n{conditions_table(accuracy, report['conditions'])}")
    print(
        f"\nwrote {result.pte_path}, {output_dir / 'report.json'}, {markdown} "
        f"and {len(plots)} plot(s) in {output_dir / PLOTS_DIR}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
