# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The example's main job (run through ``examples/arm/silero_vad/run.sh``).

export -> device twin -> accuracy -> report. Exports the stateful int8 Silero VAD for
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

import numpy as np
from ethosu.vela.architecture_features import Accelerator

from examples.arm.silero_vad.evaluation.accuracy import ClipProbabilities, accuracy_report
from examples.arm.silero_vad.evaluation.plots import plot_clip
from examples.arm.silero_vad.evaluation.report_markdown import (
    accuracy_table,
    write_report_markdown,
)
from examples.arm.silero_vad.model_export.audio import AudioError, AudioStream, wav_files
from examples.arm.silero_vad.model_export.export_silero_vad import (
    DEFAULT_MEMORY_MODE,
    DEFAULT_SYSTEM_CONFIG,
    ExportOptions,
    ExportResult,
    export_silero_vad,
    read_probabilities,
    reference_path,
    tosa_path,
    write_report,
)
from examples.arm.silero_vad.model_export.framed_stft import MAGNITUDES
from examples.arm.silero_vad.model_export.lowering import CPU_TARGET, DEFAULT_NPU_TARGET
from examples.arm.silero_vad.model_export.model_config import (
    ACTIVATIONS,
    DEFAULT_CONFIG,
    ENCODERS,
    FRONT_ENDS,
    LSTM_GATE_PRODUCTS,
    LSTM_GATE_WEIGHTS,
    SQRT_MAGNITUDE_LEVELS,
    STATE_DTYPES,
    WEIGHTS,
    ModelConfig,
)
from examples.arm.silero_vad.runtime.compare_vad_probs import (
    DEFAULT_THRESHOLD,
    ComparisonError,
    probability_arg,
)
from examples.arm.silero_vad.runtime.device_twin import TwinError, run_twin

DATA_DIR = Path(__file__).resolve().parent / "data"
PLOTS_DIR = "plots"
# What the TOSA reference model prints on the process's stdout (one line per frame).
TOSA_REFERENCE_OUTPUT = "tosa_reference_model.txt"


class UsageError(ValueError):
    """An option that cannot work; reported before the export spends its time."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="run.sh",
        description="Export Silero VAD as a stateful quantized ExecuTorch program for Ethos-U85, "
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
        help="validation audio, any format soundfile reads, resampled to 16 kHz mono "
        "(repeatable; default: data/validation/*.wav)",
    )
    parser.add_argument(
        "--target",
        default=DEFAULT_NPU_TARGET,
        help=f"ethos-u85-128/256/512/1024/2048, ethos-u55-*, or '{CPU_TARGET}' for the host "
        f"runtime (no device twin then) (default: {DEFAULT_NPU_TARGET})",
    )
    parser.add_argument(
        "--system-config",
        default=DEFAULT_SYSTEM_CONFIG,
        help=f"Vela system config from Arm/vela.ini (default: {DEFAULT_SYSTEM_CONFIG})",
    )
    parser.add_argument(
        "--memory-mode",
        default=DEFAULT_MEMORY_MODE,
        help=f"Vela memory mode from Arm/vela.ini (default: {DEFAULT_MEMORY_MODE})",
    )
    parser.add_argument(
        "--threshold",
        type=probability_arg,
        default=DEFAULT_THRESHOLD,
        help="speech decision threshold for counting flips in the accuracy report "
        f"(default: {DEFAULT_THRESHOLD}); segments always use silero-vad's defaults",
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
        help="LSTM gate weights, at most as wide as --weights: int6 (default with int8 "
        "weights; -31..31 stored as int8, which Vela's weight codec streams in about 6 "
        "bits), int8, or int4 (with int8 gate inputs)",
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
        "--encoder",
        choices=ENCODERS,
        default=DEFAULT_CONFIG.encoder,
        help="conv: Silero's convolutions; pointwise: each as one product over the columns "
        "its outputs read (the same function, fewer NPU cycles); framed front end only",
    )
    model.add_argument(
        "--int16-modules",
        type=_names,
        default=DEFAULT_CONFIG.int16_modules,
        help="with --activations int8: comma-separated submodules kept at a16w8, e.g. "
        "stft,encoder.convs.0,decoder.rnn ('none': none)",
    )
    model.add_argument(
        "--channel-equalization",
        type=float,
        default=DEFAULT_CONFIG.channel_equalization,
        help="cross-layer equalisation strength in [0, 1] (0: off): spectral bins and "
        "encoder channels rescaled between layers, the same float function",
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
        encoder=args.encoder,
        int16_modules=args.int16_modules,
        channel_equalization=args.channel_equalization,
    )


def _vela_sections(prefix: str) -> list[str]:
    ini = importlib.resources.files("ethosu").joinpath("config_files/Arm/vela.ini")
    parser = configparser.ConfigParser()
    parser.read_string(ini.read_text())
    return [name.removeprefix(prefix) for name in parser.sections() if name.startswith(prefix)]


def check_target_options(target: str, system_config: str, memory_mode: str) -> None:
    """Rejects a target, system config or memory mode Vela does not know, naming the choices."""
    if target == CPU_TARGET:
        return
    for what, value, choices in (
        ("--target", target, [a.value for a in Accelerator] + [CPU_TARGET]),
        ("--system-config", system_config, _vela_sections("System_Config.")),
        ("--memory-mode", memory_mode, _vela_sections("Memory_Mode.")),
    ):
        if value not in choices:
            raise UsageError(f"{what} {value}: not one of {', '.join(choices)}")


@contextlib.contextmanager
def native_stdout_to(path: Path) -> Iterator[None]:
    """Sends what native code prints on file descriptor 1 to ``path`` while the block runs.

    The TOSA reference model prints a serializer-version warning on every run, one line
    per frame; that would bury the job's own output.
    """
    sys.stdout.flush()
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


def run_device_twin(result: ExportResult, output_dir: Path) -> tuple[dict[str, np.ndarray], float]:
    """The twin's probabilities per clip (also written to ``twin/``) and the seconds it took."""
    start = time.monotonic()
    twin_dir = output_dir / "twin"
    twin_dir.mkdir(parents=True, exist_ok=True)
    with native_stdout_to(twin_dir / TOSA_REFERENCE_OUTPUT):
        probabilities = run_twin(
            tosa_path(output_dir), result.pte_path, result.validation_streams, output_dir
        )
    return probabilities, time.monotonic() - start


def clip_probabilities(
    stream: AudioStream, output_dir: Path, twin: dict[str, np.ndarray] | None
) -> ClipProbabilities:
    """The float/quantized references the export wrote, with the twin's when there is one."""
    float_model = read_probabilities(reference_path(output_dir, stream.name, "float"))
    quantized = read_probabilities(reference_path(output_dir, stream.name, "quantized"))
    if twin is None:
        return ClipProbabilities(stream.name, stream.num_samples, float_model, quantized)
    return ClipProbabilities(
        stream.name, stream.num_samples, float_model, twin[stream.name], quantized
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
        )
    return paths


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
            calibration_wavs=args.calibration_wav or wav_files(DATA_DIR / "calibration"),
            validation_wavs=args.validation_wav or wav_files(DATA_DIR / "validation"),
            output_dir=output_dir,
            target=args.target,
            system_config=args.system_config,
            memory_mode=args.memory_mode,
            model=model_config(args),
        )
        print(
            f"exporting for {args.target} (calibration: {len(options.calibration_wavs)} "
            f"clip(s), validation: {len(options.validation_wavs)}) ...",
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
        else:
            print(
                f"target {CPU_TARGET}: no device twin (it emulates the NPU delegate); "
                "accuracy is the quantized program's against the float model"
            )

        streams = result.validation_streams
        clips = [clip_probabilities(stream, output_dir, twin) for stream in streams]
        accuracy = accuracy_report(clips, threshold=args.threshold)
    except (UsageError, AudioError, TwinError, ComparisonError) as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2

    report = result.report | {"accuracy": accuracy}
    write_report(output_dir, report)
    plots = write_plots(streams, clips, accuracy, output_dir)
    markdown = write_report_markdown(output_dir, report, plots)
    print()
    print(accuracy_table(accuracy))
    print()
    print(
        f"wrote {result.pte_path}, {output_dir / 'report.json'}, {markdown} "
        f"and {len(plots)} plot(s) in {output_dir / PLOTS_DIR}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
