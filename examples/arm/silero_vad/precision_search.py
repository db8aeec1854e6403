# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Which activations can be int8: a sensitivity-ordered mixed-precision search.

Quantizes the model once in a16w8 (``--config``, default: the default export), then, in
the converted program, moves the activations of one submodule at a time (``stft``, each
encoder convolution's output, the LSTM cell, the head; see ``model_config.INT16_MODULES``)
from int16 to int8 over the same range (scale x 256) and measures the PyTorch quantized
program against the float model on the validation clips. The modules are then moved to
int8 cumulatively, least harmful first, and each step is printed: the Pareto order in
which ``--int16-modules`` can shrink. No re-calibration per step, so the whole search
takes minutes; cycles of a step come from ``benchmark_performance`` on the matching
``ModelConfig(activations="int8", int16_modules=...)``.

    python -m examples.arm.silero_vad.precision_search \\
        --calibration-wav de.wav --validation-wav en_num.wav --condition level-30
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from examples.arm.silero_vad.evaluation.accuracy import ClipProbabilities, accuracy_report
from examples.arm.silero_vad.evaluation.conditions import CONDITIONS, derive_stream
from examples.arm.silero_vad.evaluation.report_markdown import markdown_table
from examples.arm.silero_vad.model_export.audio import (
    AudioError,
    AudioStream,
    load_streams,
)
from examples.arm.silero_vad.model_export.export_silero_vad import (
    QUANTIZATION_TARGET,
    quantize_configured,
)
from examples.arm.silero_vad.model_export.float_reference import float_probabilities
from examples.arm.silero_vad.model_export.lowering import make_compile_spec
from examples.arm.silero_vad.model_export.model_config import (
    INT16_MODULES,
    NAMED_CONFIGS,
    STATEFUL_MODEL_ATTRIBUTE,
)
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import stream_probabilities
from examples.arm.silero_vad.model_export.targets import default_vela_settings
from examples.arm.silero_vad.run_silero_vad import default_clips

_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default
_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_INT16_TO_INT8 = 256.0  # the same range in 8 bits: 256 times the step


def _module_name(node: torch.fx.Node) -> str | None:
    """The INT16_MODULES entry whose submodule produced ``node`` (deepest match)."""
    found = None
    for path, _ in (node.meta.get("nn_module_stack") or {}).values():
        path = path.removeprefix("L['self'].")
        for name in INT16_MODULES:
            qualified = f"{STATEFUL_MODEL_ATTRIBUTE}.{name}"
            if path == qualified or path.startswith(qualified + "."):
                found = name
    return found


def int16_activation_points(graph_module: torch.fx.GraphModule) -> dict[str, list[torch.fx.Node]]:
    """The int16 activation quantize nodes of a converted program, by submodule.

    A quantize node belongs to the submodule of the operator whose output it quantizes;
    the program's audio input belongs to ``stft``. Weights and the model-owned state
    (quantized outside every submodule) are left out.
    """
    points: dict[str, list[torch.fx.Node]] = {}
    for node in graph_module.graph.find_nodes(op="call_function", target=_quantize):
        source, dtype = node.args[0], node.args[5]
        if dtype != torch.int16 or not isinstance(source, torch.fx.Node):
            continue
        if source.op == "get_attr":
            continue
        name = "stft" if source.op == "placeholder" else _module_name(source)
        if name is not None:
            points.setdefault(name, []).append(node)
    return points


def move_to_int8(
    graph_module: torch.fx.GraphModule, quantize_nodes: Sequence[torch.fx.Node]
) -> list[tuple[torch.fx.Node, tuple]]:
    """Requantizes ``quantize_nodes`` (and their dequantize readers) to int8 over the
    same range; returns what ``restore`` needs to undo it."""
    saved = []
    for quantize in quantize_nodes:
        readers = [user for user in quantize.users if user.target == _dequantize]
        for node in (quantize, *readers):
            saved.append((node, node.args))
            args = list(node.args)
            args[1] = float(args[1]) * _INT16_TO_INT8
            args[2] = round(int(args[2]) / _INT16_TO_INT8)
            args[3:6] = [-128, 127, torch.int8]
            node.args = tuple(args)
    graph_module.recompile()
    return saved


def restore(graph_module: torch.fx.GraphModule, saved: list[tuple[torch.fx.Node, tuple]]) -> None:
    for node, args in saved:
        node.args = args
    graph_module.recompile()


class _Evaluator:
    """Quantized program vs float model on fixed streams (float side computed once)."""

    def __init__(self, streams: list[AudioStream]) -> None:
        float_model = SileroVAD.from_silero_package()
        self.streams = streams
        self.references = [float_probabilities(float_model, stream) for stream in streams]

    def __call__(self, quantized: torch.nn.Module) -> dict:
        clips = [
            ClipProbabilities(s.name, s.num_samples, ref, stream_probabilities(quantized, s.frames))
            for s, ref in zip(self.streams, self.references, strict=True)
        ]
        return accuracy_report(clips)


def search(
    config_name: str,
    calibration: list[AudioStream],
    validation: dict[str, list[AudioStream]],
) -> list[list[str]]:
    """Rows: every module alone in int8, then the cumulative steps, least harmful first."""
    config = NAMED_CONFIGS[config_name]
    if config.activations != "int16":
        raise ValueError(f"{config_name}: the search starts from 16-bit activations")
    spec = make_compile_spec(QUANTIZATION_TARGET, None, None, artifacts_dir=None)
    memory_mode = default_vela_settings(QUANTIZATION_TARGET).memory_mode
    quantized, _ = quantize_configured(
        config.for_memory_mode(memory_mode), SileroVAD.from_silero_package(), calibration, spec
    )
    evaluators = {name: _Evaluator(streams) for name, streams in validation.items()}
    points = int16_activation_points(quantized)

    def measure(label: str, in_int8: list[str]) -> tuple[list[str], float]:
        row, harm = [label, ", ".join(in_int8) or "-"], 0.0
        for evaluate in evaluators.values():
            overall = evaluate(quantized)["overall"]
            vs_float = overall["vs_float"]
            harm += vs_float["mean_abs"]
            row.append(
                f"{vs_float['mean_abs']:.4f} / {vs_float['flips_pct']:.2f} % / "
                f"{overall['segments']['f1']:.3f}"
            )
        print(f"  {label}: {row[2:]}", file=sys.stderr, flush=True)
        return row, harm

    rows = [measure("a16w8", [])[0]]
    harms = {}
    for name, nodes in points.items():
        saved = move_to_int8(quantized, nodes)
        row, harms[name] = measure("alone", [name])
        rows.append(row)
        restore(quantized, saved)
    moved: list[str] = []
    for name in sorted(harms, key=harms.get):
        move_to_int8(quantized, points[name])
        moved.append(name)
        rows.append(measure(f"step {len(moved)}", list(moved))[0])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibration-wav", action="append", type=Path)
    parser.add_argument("--validation-wav", action="append", type=Path)
    parser.add_argument(
        "--config",
        default="default",
        choices=sorted(n for n, c in NAMED_CONFIGS.items() if c.activations == "int16"),
    )
    parser.add_argument(
        "--condition",
        action="append",
        choices=sorted(CONDITIONS),
        help="also measure on the validation clips under this condition (repeatable)",
    )
    args = parser.parse_args(argv)
    try:
        calibration = load_streams(args.calibration_wav or default_clips("calibration", 16000))
        clean = load_streams(args.validation_wav or default_clips("validation", 16000))
    except AudioError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 2
    validation = {"clean": clean}
    for condition in args.condition or []:
        validation[condition] = [derive_stream(stream, condition) for stream in clean]
    rows = search(args.config, calibration, validation)
    header = ["step", "activations in int8"]
    header += [f"{name}: MAE / flips / F1" for name in validation]
    print(markdown_table(header, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
