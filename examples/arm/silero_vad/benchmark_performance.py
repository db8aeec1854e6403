# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Vela's estimate per frame for the straightforward recipe and our export, per Ethos-U85 size.

Each configuration is quantized once (calibrated on the calibration clips) and lowered
for every accelerator size; the table gives cycles (total, NPU, SRAM and DRAM access),
Vela's NPU/CPU operator counts, SRAM/DRAM use, the .pte size and the lowering time:

    python -m examples.arm.silero_vad.benchmark_performance [--target ethos-u85-256 ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from examples.arm.silero_vad.evaluation.report_markdown import markdown_table
from examples.arm.silero_vad.model_export.audio import AudioError, load_streams, wav_files
from examples.arm.silero_vad.model_export.calibration import calibrate_state_quantization
from examples.arm.silero_vad.model_export.export_silero_vad import (
    DEFAULT_MEMORY_MODE,
    DEFAULT_SYSTEM_CONFIG,
)
from examples.arm.silero_vad.model_export.lowering import (
    example_inputs,
    lower,
    make_compile_spec,
    quantize_silero_vad,
)
from examples.arm.silero_vad.model_export.model_config import NAMED_CONFIGS as CONFIGS
from examples.arm.silero_vad.model_export.model_config import (
    build_float_model,
    quantization_config,
)
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import StatefulSileroVAD
from examples.arm.silero_vad.model_export.vela_report import run_vela
from examples.arm.silero_vad.run_silero_vad import DATA_DIR

TARGETS = ("ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024")


def benchmark(
    configs: list[str],
    targets: list[str],
    calibration_wavs: list[Path],
    system_config: str,
    memory_mode: str,
) -> list[list[str]]:
    calibration = load_streams(calibration_wavs)
    float_model = SileroVAD.from_silero_package()
    rows = []
    for name in configs:
        config = CONFIGS[name]
        print(f"== {name}: quantize ...", file=sys.stderr, flush=True)
        state = calibrate_state_quantization(float_model, calibration, config.state_dtype)
        stateful = StatefulSileroVAD(build_float_model(config), state)
        quantizer_spec = make_compile_spec(targets[0], system_config, memory_mode, None)
        quantized = quantize_silero_vad(
            stateful, calibration, quantizer_spec, quantization_config(config)
        )
        for target in targets:
            with tempfile.TemporaryDirectory() as artifacts:
                spec = make_compile_spec(target, system_config, memory_mode, Path(artifacts))
                start = time.monotonic()
                program = lower(quantized, example_inputs(), spec)
                seconds = time.monotonic() - start
                vela = run_vela(Path(artifacts) / "out.tosa", spec.compiler_flags)
            rows.append(
                [
                    name,
                    target,
                    f"{vela.cycles_total:,}",
                    f"{vela.cycles_npu:,}",
                    f"{vela.cycles_sram_access:,}",
                    f"{vela.cycles_dram_access:,}",
                    f"{vela.npu_ops}/{vela.cpu_ops}",
                    f"{vela.sram_kib:.1f}",
                    f"{vela.dram_kib:.1f}",
                    f"{len(program.buffer):,}",
                    f"{seconds:.1f}",
                ]
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibration-wav", action="append", type=Path)
    parser.add_argument("--config", action="append", choices=sorted(CONFIGS))
    parser.add_argument("--target", action="append", help=f"default: {', '.join(TARGETS)}")
    parser.add_argument("--system-config", default=DEFAULT_SYSTEM_CONFIG)
    parser.add_argument("--memory-mode", default=DEFAULT_MEMORY_MODE)
    args = parser.parse_args(argv)
    try:
        rows = benchmark(
            args.config or ["recipe", "default"],
            args.target or list(TARGETS),
            args.calibration_wav or wav_files(DATA_DIR / "calibration"),
            args.system_config,
            args.memory_mode,
        )
    except AudioError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    print(
        f"executorch {version('executorch')}, {args.system_config}, {args.memory_mode}, "
        "Vela estimates per 32 ms frame"
    )
    header = ["config", "target", "cycles", "NPU", "SRAM access", "DRAM access"]
    header += ["NPU/CPU ops", "SRAM KiB", "DRAM KiB", "PTE bytes", "lower s"]
    print(markdown_table(header, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
