# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The example's main job (run through ``examples/arm/silero_vad/run.sh``).

export -> device twin -> accuracy -> report. Exports the stateful quantized Silero VAD for
Ethos-U (or the host CPU) from calibration clips; for Ethos-U targets runs the device
twin (the compiled TOSA graph on the TOSA reference model, see
``runtime/device_twin.py``) on the validation clips; measures the twin against the
quantized program and the float model (``evaluation/accuracy.py``); and writes to the
output directory ``report.json`` (with an ``accuracy`` section), ``report.md`` and one
plot per clip (``plots/<clip>.png``). Prints the accuracy table.
"""

from __future__ import annotations

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

from examples.arm.silero_vad.evaluation.accuracy import (
    NPU,
    QUANTIZED,
    ClipProbabilities,
    accuracy_report,
)
from examples.arm.silero_vad.evaluation.condition_accuracy import (
    DeviceRunner,
    conditions_report,
)
from examples.arm.silero_vad.evaluation.conditions import condition_choices, expand_conditions
from examples.arm.silero_vad.evaluation.plots import plot_clip
from examples.arm.silero_vad.evaluation.report_markdown import (
    accuracy_table,
    conditions_table,
    write_report_markdown,
)
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
from examples.arm.silero_vad.model_export.framed_stft import MAGNITUDES
from examples.arm.silero_vad.model_export.model_config import (
    ACTIVATIONS,
    DEFAULT_CONFIG,
    FRONT_ENDS,
    INT16_MODULES,
    LSTM_GATE_PRODUCTS,
    LSTM_GATE_WEIGHTS,
    SQRT_MAGNITUDE_LEVELS,
    STATE_DTYPES,
    WEIGHT_ROUNDINGS,
    WEIGHTS,
    ModelConfig,
)
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
    all_targets,
)
from examples.arm.silero_vad.progress import FrameProgress
from examples.arm.silero_vad.runtime.compare_vad_probs import (
    DEFAULT_THRESHOLD,
    ComparisonError,
    probability_arg,
)
from examples.arm.silero_vad.runtime.device_twin import DeviceTwin, TwinError, TwinStream, run_twin

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
        "quantized program and the float model (report.json, report.md, plots/).",
    )
    parser.add_argument(
        "--calibration-wav",
        action="append",
        type=Path,
        help="calibration audio (repeatable; default: data/calibration/*.wav)",
    )
    parser.add_argument(
        "--validation-wav",
        action="append",
        type=Path,
        help="validation audio, any format soundfile reads, resampled to --sample-rate mono "
        "(repeatable; default: data/validation/*.wav, or data/validation_8k/*.wav at 8 kHz)",
    )
    parser.add_argument(
        "--sample-rate",
        type=int,
        choices=SAMPLE_RATES,
        default=DEFAULT_SAMPLE_RATE,
        help="which of Silero's two models to export: 16000 (512-sample frames) or 8000 "
        f"(256-sample frames, telephone band) (default: {DEFAULT_SAMPLE_RATE})",
    )
    families = ", ".join(f"{'/'.join(t)}" for t in ETHOS_U_TARGETS.values())
    parser.add_argument(
        "--target",
        default=DEFAULT_NPU_TARGET,
        choices=all_targets(),
        metavar="TARGET",
        help=f"an Ethos-U configuration ({families}), or '{CPU_TARGET}' for the host runtime "
        f"(no device twin then) (default: {DEFAULT_NPU_TARGET})",
    )
    parser.add_argument(
        "--system-config",
        help="Vela system config from Arm/vela.ini (default: the one executorch's "
        "EthosUCompileSpec picks for the target)",
    )
    parser.add_argument(
        "--memory-mode",
        help="Vela memory mode from Arm/vela.ini (default: the one executorch's "
        "EthosUCompileSpec picks for the target)",
    )
    parser.add_argument(
        "--input",
        dest="audio_input",
        choices=AUDIO_INPUTS,
        default=DEFAULT_AUDIO_INPUT,
        help="the program's audio input: int16 PCM frames (default; the NPU rescales them, "
        "the CPU converts nothing) or float32 audio (the CPU quantizes it)",
    )
    parser.add_argument(
        "--threshold",
        type=probability_arg,
        default=DEFAULT_THRESHOLD,
        help="speech decision threshold for counting flips in the accuracy report "
        f"(default: {DEFAULT_THRESHOLD}); segments always use silero-vad's defaults",
    )
    parser.add_argument(
        "--conditions",
        type=_conditions,
        default=expand_conditions(["all"]),
        help="recording conditions to measure the validation clips under, comma-separated: "
        "conditions or sets of them (levels: the -40..+20 dB sweep; recording: quiet, "
        "clipped, noisy, telephone; all), or 'none' (default: all; "
        f"one of {', '.join(condition_choices())})",
    )
    parser.add_argument("--output-dir", type=Path, default=Path("out/silero_vad"))
    model = parser.add_argument_group(
        "model arrangement and precision (defaults: the accurate configuration; "
        "--front-end conv --activations int8 --state-dtype int8 is the plain recipe)"
    )
    model.add_argument("--front-end", choices=FRONT_ENDS, default=DEFAULT_CONFIG.front_end)
    model.add_argument(
        "--magnitude",
        choices=MAGNITUDES,
        help="framed front end's magnitude: 'polygon' (16-gon, within 0.97 %%, default) or "
        "'sqrt' (exact; the conv front end has only this one)",
    )
    model.add_argument(
        "--magnitude-levels",
        type=_levels,
        default=(),
        help="comma-separated clamp levels of the sqrt magnitude, e.g. "
        f"{','.join(map(str, SQRT_MAGNITUDE_LEVELS))} (default: none)",
    )
    model.add_argument(
        "--activations",
        choices=ACTIVATIONS,
        default=DEFAULT_CONFIG.activations,
        help="int16 (a16w8) or int8 (a8w8) activations",
    )
    model.add_argument(
        "--lstm-gate-inputs",
        choices=ACTIVATIONS,
        default=DEFAULT_CONFIG.lstm_gate_inputs,
        help="width of the LSTM gate products' inputs: int8 (default; half the products' "
        "NPU time, measured at the same accuracy) or int16 (as the other activations)",
    )
    model.add_argument(
        "--weights",
        choices=WEIGHTS,
        default=DEFAULT_CONFIG.weights,
        help="int8, or int4: half the weight traffic, but without quantization-aware "
        "training it costs accuracy",
    )
    model.add_argument(
        "--lstm-gate-weights",
        choices=LSTM_GATE_WEIGHTS,
        help="LSTM gate weights, at most as wide as --weights: int8, int6 (-31..31 stored "
        "as int8, which Vela's weight codec streams in about 6 bits), or int4 (with int8 "
        "gate inputs); default: int8 where every weight sits in SRAM (Sram_Only, cpu), "
        "int6 where weights stream from DRAM or flash",
    )
    model.add_argument(
        "--lstm-gate-products",
        choices=LSTM_GATE_PRODUCTS,
        default=DEFAULT_CONFIG.lstm_gate_products,
        help="split (default): one product for the cell input and one for the hidden state; "
        "fused: one over both (fewer NPU cycles; with --activations int8 only)",
    )
    model.add_argument("--state-dtype", choices=STATE_DTYPES, default=DEFAULT_CONFIG.state_dtype)
    model.add_argument(
        "--int16-modules",
        type=_names,
        default=DEFAULT_CONFIG.int16_modules,
        help="with --activations int8: comma-separated submodules kept at a16w8, among "
        f"{','.join(INT16_MODULES)} ('none': none)",
    )
    model.add_argument(
        "--range-overdrive-db",
        type=_overdrive,
        default=DEFAULT_CONFIG.range_overdrive_db,
        help="also calibrate the activation ranges on each calibration clip taken to the "
        "int16 full scale and this many dB further into clipping, so loud input does not "
        f"saturate them; 'none': the clips as recorded only (default: "
        f"{DEFAULT_CONFIG.range_overdrive_db:g})",
    )
    model.add_argument(
        "--weight-rounding",
        choices=WEIGHT_ROUNDINGS,
        default=DEFAULT_CONFIG.weight_rounding,
        help="gptq (default): weights rounded with their layers' inputs at every level in "
        "mind and biases corrected; nearest: each weight to its nearest step",
    )
    args = parser.parse_args(argv)
    try:
        model_config(args)
    except ValueError as error:
        parser.error(str(error))
    return args


def _levels(text: str) -> tuple[float, ...]:
    if text == "none":
        return ()
    try:
        levels = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected numbers like 1.2,0.25") from None
    return levels  # ModelConfig checks them (parse_args reports its errors)


def _conditions(text: str) -> list[str]:
    if text == "none":
        return []
    try:
        return expand_conditions([name for name in text.split(",") if name])
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _overdrive(text: str) -> float | None:
    if text == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected dB (e.g. 10) or 'none'") from None
    if not 0.0 <= value <= 40.0:
        raise argparse.ArgumentTypeError(f"{text} dB: expected 0 to 40")
    return value


def _names(text: str) -> tuple[str, ...]:
    return () if text == "none" else tuple(name for name in text.split(",") if name)


def model_config(args: argparse.Namespace) -> ModelConfig:
    return ModelConfig(
        front_end=args.front_end,
        magnitude=args.magnitude,
        magnitude_levels=args.magnitude_levels,
        activations=args.activations,
        lstm_gate_inputs=args.lstm_gate_inputs,
        weights=args.weights,
        lstm_gate_weights=args.lstm_gate_weights,
        lstm_gate_products=args.lstm_gate_products,
        state_dtype=args.state_dtype,
        int16_modules=args.int16_modules,
        range_overdrive_db=args.range_overdrive_db,
        weight_rounding=args.weight_rounding,
    )


def _vela_sections(prefix: str) -> list[str]:
    ini = importlib.resources.files("ethosu").joinpath("config_files/Arm/vela.ini")
    parser = configparser.ConfigParser()
    parser.read_string(ini.read_text())
    return [name.removeprefix(prefix) for name in parser.sections() if name.startswith(prefix)]


def check_target_options(target: str, system_config: str | None, memory_mode: str | None) -> None:
    """Rejects a system config or memory mode Vela does not know, naming the choices."""
    for what, value, choices in (
        ("--system-config", system_config, _vela_sections("System_Config.")),
        ("--memory-mode", memory_mode, _vela_sections("Memory_Mode.")),
    ):
        if value is None:
            continue
        if target == CPU_TARGET:
            raise UsageError(f"{what} {value}: the {CPU_TARGET} target does not run Vela")
        if value not in choices:
            raise UsageError(f"{what} {value}: not one of {', '.join(choices)}")


def default_clips(kind: str, sample_rate: int) -> list[Path]:
    """The committed ``calibration`` or ``validation`` clips of the model's sample rate."""
    suffix = "" if sample_rate == DEFAULT_SAMPLE_RATE else f"_{sample_rate // 1000}k"
    return wav_files(DATA_DIR / f"{kind}{suffix}")


@contextlib.contextmanager
def native_stdout_to(path: Path) -> Iterator[None]:
    """Sends what native code prints on file descriptor 1 to ``path`` while the block runs.

    The TOSA reference model prints a serializer-version warning on every run, one line
    per frame; that would bury the job's own output.
    """
    sys.stdout.flush()
    path.parent.mkdir(parents=True, exist_ok=True)
    libc = ctypes.CDLL(None)
    saved = os.dup(1)
    try:
        with path.open("wb") as sink:
            os.dup2(sink.fileno(), 1)
            try:
                yield
            finally:
                libc.fflush(None)  # C stdio may still hold lines meant for the file
                os.dup2(saved, 1)
    finally:
        os.close(saved)


def run_device_twin(result: ExportResult, output_dir: Path) -> tuple[dict[str, TwinStream], float]:
    """What the twin saw per clip (also written to ``twin/``) and the seconds it took."""
    start = time.monotonic()
    twin_dir = output_dir / "twin"
    twin_dir.mkdir(parents=True, exist_ok=True)
    with native_stdout_to(twin_dir / TOSA_REFERENCE_OUTPUT):
        streams = run_twin(
            tosa_path(output_dir), result.pte_path, result.validation_streams, output_dir
        )
    return streams, time.monotonic() - start


def saturation_warnings(twin: dict[str, TwinStream]) -> list[str]:
    """One line per clip on which the twin saw the state on its integer rail."""
    lines = []
    for name, stream in twin.items():
        h_frames, c_frames = stream.saturated_frames
        if h_frames or c_frames:
            lines.append(
                f"{name}: the state saturated (h on {h_frames} frame(s), c on {c_frames}): "
                "this audio drives the LSTM beyond the calibrated range; calibrate with "
                "audio like it"
            )
    return lines


def clip_probabilities(
    stream: AudioStream, output_dir: Path, twin: dict[str, TwinStream] | None
) -> ClipProbabilities:
    """The float/quantized references the export wrote, with the twin's when there is one."""
    float_model = read_probabilities(reference_path(output_dir, stream.name, "float"))
    quantized = read_probabilities(reference_path(output_dir, stream.name, "quantized"))
    if twin is None:
        return ClipProbabilities(
            stream.name, stream.num_samples, float_model, quantized, None, stream.sample_rate
        )
    return ClipProbabilities(
        stream.name,
        stream.num_samples,
        float_model,
        twin[stream.name].probabilities,
        quantized,
        stream.sample_rate,
    )


def write_plots(
    streams: list[AudioStream],
    clips: list[ClipProbabilities],
    accuracy: dict,
    output_dir: Path,
) -> dict[str, Path]:
    """``plots/<clip>.png`` for every clip; returns the paths by clip name."""
    actual = accuracy["actual"]
    label = "NPU twin" if actual == "npu" else "quantized"
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
            actual_label=label,
            sample_rate=stream.sample_rate,
        )
    return paths


def device_runner(result: ExportResult, output_dir: Path, on_npu: bool) -> DeviceRunner:
    """What runs the derived streams: the device twin, or the quantized program (cpu)."""
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
            frames = program_frames(stream, audio_input)
            outputs.append((stream_probabilities(result.quantized, frames), None))
            progress.advance(stream.num_frames)
            progress.finish_clip()
        return outputs

    return run


def _export_summary(result: ExportResult) -> str:
    report = result.report
    line = (
        f"export: {result.pte_path.name} ({report['pte_bytes']:,} bytes) "
        f"in {report['export_seconds']} s"
    )
    vela = report.get("vela")
    if vela:
        line += (
            f"; Vela: {vela['npu_ops']} NPU / {vela['cpu_ops']} CPU ops, "
            f"{vela['cycles_total']:,} cycles per frame, SRAM {vela['sram_kib']} KiB, "
            f"DRAM {vela['dram_kib']} KiB"
        )
    return line


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    output_dir: Path = args.output_dir
    on_npu = args.target != CPU_TARGET
    try:
        check_target_options(args.target, args.system_config, args.memory_mode)
        options = ExportOptions(
            calibration_wavs=args.calibration_wav or default_clips("calibration", args.sample_rate),
            validation_wavs=args.validation_wav or default_clips("validation", args.sample_rate),
            output_dir=output_dir,
            target=args.target,
            system_config=args.system_config,
            memory_mode=args.memory_mode,
            model=model_config(args),
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

        twin = None
        if on_npu:
            frames = sum(stream.num_frames for stream in result.validation_streams)
            print(f"device twin: {frames} frames on the TOSA reference model ...", flush=True)
            twin, seconds = run_device_twin(result, output_dir)
            print(f"device twin: done in {seconds:.1f} s -> {output_dir / 'twin'}")
            for line in saturation_warnings(twin):
                print(f"WARNING {line}", flush=True)
        else:
            print(
                f"target {CPU_TARGET}: no device twin (it emulates the NPU delegate); "
                "accuracy is the quantized program's against the float model"
            )

        streams = result.validation_streams
        clips = [clip_probabilities(stream, output_dir, twin) for stream in streams]
        accuracy = accuracy_report(clips, threshold=args.threshold)
        conditions = {}
        if args.conditions:
            frames = sum(stream.num_frames for stream in streams) * len(args.conditions)
            print(
                f"recording conditions: {', '.join(args.conditions)} ({frames} frames) ...",
                flush=True,
            )
            conditions = conditions_report(
                args.conditions,
                streams,
                result.float_model,
                device_runner(result, output_dir, on_npu),
                NPU if on_npu else QUANTIZED,
                args.threshold,
            )
    except (UsageError, AudioError, TwinError, ComparisonError) as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2

    report = result.report | {"accuracy": accuracy}
    if conditions:
        report["conditions"] = conditions
    if twin is not None:
        report["state_saturation"] = {
            name: {"h_frames": stream.saturated_frames[0], "c_frames": stream.saturated_frames[1]}
            for name, stream in twin.items()
        }
    write_report(output_dir, report)
    plots = write_plots(streams, clips, accuracy, output_dir)
    markdown = write_report_markdown(output_dir, report, plots)
    print()
    print(accuracy_table(accuracy))
    if conditions:
        print()
        print(conditions_table(accuracy, conditions))
    print()
    print(
        f"wrote {result.pte_path}, {output_dir / 'report.json'}, {markdown} "
        f"and {len(plots)} plot(s) in {output_dir / PLOTS_DIR}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
