# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Calibration on real audio, streamed frame by frame from a zero state as on the device:
a VAD's state carries across frames, so observers must see the ranges of streaming."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from operator import attrgetter

import numpy as np
import torch
from torch import nn
from torchao.quantization.pt2e import MinMaxObserver, ObserverBase

from examples.arm.silero_vad.model_export.audio import AudioStream, float_to_pcm16
from examples.arm.silero_vad.model_export.frame_geometry import PCM16_FULL_SCALE
from examples.arm.silero_vad.model_export.progress import FrameProgress
from examples.arm.silero_vad.model_export.reproducible_statistics import (
    ReproducibleHistogramObserver,
    snap_outward,
    statistics_copy,
    statistics_dtype,
    statistics_frames,
)
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, zero_state
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    StateQuantization,
    program_frames,
    reset_state,
)


def overdriven_versions(streams: Sequence[AudioStream], overdrive_db: float) -> list[AudioStream]:
    """Each stream with its peak at int16 full scale and ``overdrive_db`` further, clipped
    as an overdriven converter clips.

    The program takes any int16 PCM: ranges calibrated at the clips' recorded level alone
    saturate on loud or clipped audio, from the spectrum to the LSTM gates (STUDIES.md).
    """
    versions = []
    label = "full_scale" if overdrive_db == 0 else f"overdrive{overdrive_db:+g}dB"
    for stream in streams:
        peak = int(np.abs(stream.pcm.astype(np.int32)).max())
        gain = (PCM16_FULL_SCALE - 1) / max(peak, 1) * 10.0 ** (overdrive_db / 20.0)
        versions.append(_at_gain(stream, gain, label))
    return versions


def _at_gain(stream: AudioStream, gain: float, label: str) -> AudioStream:
    scaled = stream.pcm.astype(np.float64) * gain / PCM16_FULL_SCALE
    return stream.derived(label, float_to_pcm16(scaled))


def level_versions(streams: Sequence[AudioStream], levels_db: Sequence[float]) -> list[AudioStream]:
    """Each stream at each gain of ``levels_db`` (0: the stream itself), clipped."""
    return [
        stream if db == 0 else _at_gain(stream, 10.0 ** (db / 20.0), f"level{db:+g}dB")
        for stream in streams
        for db in levels_db
    ]


# |h| < 1, plus a thousandth for the NPU's tables rounding o * tanh(c) up to 1.
H_BOUND = 1.001


@torch.no_grad()
def calibrate_state_quantization(
    model: SileroVAD, streams: Sequence[AudioStream]
) -> StateQuantization:
    """qparams of the state: h from its bound, c from the float model's largest |c|.

    h = o * tanh(c) lies in (-1, 1) whatever the audio (``H_BOUND``), so no input saturates
    it. c gets no headroom on purpose: beyond |c| ~ 5 tanh(c) is 1, so a saturated c barely
    changes h, while headroom costs c resolution on every frame (STUDIES.md). The device
    twin reports the frames on which the state hit its rail. The model runs in
    ``statistics_dtype()`` and the bound is snapped to its grid (``reproducible_statistics``).
    """
    model = statistics_copy(model)
    c_bound = 0.0
    progress = FrameProgress("state range", sum(stream.num_frames for stream in streams))
    for stream in streams:
        progress.start_clip(stream.name)
        state = zero_state().to(statistics_dtype())
        for frame in statistics_frames(stream.float_frames):
            _, state = model(frame.unsqueeze(0), state)
            c_bound = max(c_bound, state[1].abs().max().item())
            progress.advance()
        progress.finish_clip()
    _, c_bound = snap_outward(0.0, c_bound, "the LSTM cell state c's range")
    return StateQuantization.from_bounds(H_BOUND, c_bound)


def _constant_observers(prepared: nn.Module) -> dict[nn.Module, torch.Tensor]:
    """The observers of weights, biases and other constants, with their constant."""
    if not isinstance(prepared, torch.fx.GraphModule):
        return {}
    return {
        prepared.get_submodule(str(node.target)): attrgetter(str(node.args[0].target))(prepared)
        for node in prepared.graph.find_nodes(op="call_module")
        if node.args
        and isinstance(node.args[0], torch.fx.Node)
        and node.args[0].op == "get_attr"
        and isinstance(prepared.get_submodule(str(node.target)), ObserverBase)
    }


@contextmanager
def _forwards_replaced(forwards: dict[nn.Module, Callable]) -> Iterator[None]:
    """While active, each observer runs its given ``forward`` instead of its own."""
    for observer, forward in forwards.items():
        observer.forward = forward
    try:
        yield
    finally:
        for observer in forwards:
            del observer.forward


def _recording_min_max(
    low: torch.Tensor, high: torch.Tensor
) -> Callable[[torch.Tensor], torch.Tensor]:
    """A forward that widens ``[low, high]`` (in place) to every value it sees."""

    def record(value: torch.Tensor) -> torch.Tensor:
        value_low, value_high = torch.aminmax(value)
        torch.minimum(low, value_low, out=low)
        torch.maximum(high, value_high, out=high)
        return value

    return record


def _observed_in_float32(observer: nn.Module) -> Callable[[torch.Tensor], torch.Tensor]:
    """A forward that hands the observer its input as float32 (histograms keep float32)."""
    own_forward = type(observer).forward

    def observe(value: torch.Tensor) -> torch.Tensor:
        own_forward(observer, value.to(torch.float32))
        return value

    return observe


def _quantize_per_tensor(
    value: torch.Tensor, scale: float, zero_point: int, low: int, high: int, dtype: torch.dtype
) -> torch.Tensor:
    """``quantized_decomposed.quantize_per_tensor`` for any float dtype (it takes float32)."""
    codes = torch.round(value * (1.0 / scale)) + zero_point
    return torch.clamp(codes, low, high).to(dtype)


@contextmanager
def _computing_in(prepared: nn.Module, dtype: torch.dtype) -> Iterator[None]:
    """While active, a prepared GraphModule computes in ``dtype``: its float constants (not
    the observers' own tensors) are converted and its explicit (de)quantize nodes follow."""
    if dtype == torch.float32 or not isinstance(prepared, torch.fx.GraphModule):
        yield
        return
    tensors = [
        tensor
        for module in prepared.modules()
        if not isinstance(module, ObserverBase)
        for tensor in (*module._parameters.values(), *module._buffers.values())
        if tensor is not None and tensor.dtype == torch.float32
    ]
    originals = [tensor.data for tensor in tensors]
    nodes = {
        node: (node.target, node.kwargs)
        for node in prepared.graph.find_nodes(op="call_function", target=_QUANTIZE)
        + prepared.graph.find_nodes(op="call_function", target=_DEQUANTIZE)
    }
    for tensor in tensors:
        tensor.data = tensor.data.to(dtype)
    for node in nodes:
        if node.target == _QUANTIZE:
            node.target = _quantize_per_tensor
        else:
            node.kwargs = {**node.kwargs, "out_dtype": dtype}
    prepared.recompile()
    try:
        yield
    finally:
        for tensor, original in zip(tensors, originals, strict=True):
            tensor.data = original
        for node, (target, kwargs) in nodes.items():
            node.target, node.kwargs = target, kwargs
        prepared.recompile()


_QUANTIZE = torch.ops.quantized_decomposed.quantize_per_tensor.default
_DEQUANTIZE = torch.ops.quantized_decomposed.dequantize_per_tensor.default


@torch.no_grad()
def calibrate_observers(
    prepared: torch.fx.GraphModule, streams: Sequence[AudioStream], audio_input: str
) -> None:
    """Feeds every stream, frame by frame from a zero state, through a PT2E-prepared
    stateful model taking ``audio_input`` frames.

    Constant observers look at their constant once, in float32 (their scales must match
    the weights' grid). The frames then run in ``statistics_dtype()``; min/max observers
    record in it and end on their range snapped outward, and reproducible histograms keep
    the values as they are (``reproducible_statistics``); other observers (the release's
    histograms) see the values as float32.
    """
    dtype = statistics_dtype()
    progress = FrameProgress("calibration", sum(stream.num_frames for stream in streams))
    constants = _constant_observers(prepared)
    for observer, constant in constants.items():
        observer(constant)
    ranges = {
        name: (torch.tensor(math.inf, dtype=dtype), torch.tensor(-math.inf, dtype=dtype))
        for name, module in prepared.named_modules()
        if type(module) is MinMaxObserver and module not in constants
    }
    forwards = {module: lambda value: value for module in constants}
    for name, module in prepared.named_modules():
        if name in ranges:
            forwards[module] = _recording_min_max(*ranges[name])
        elif isinstance(module, ReproducibleHistogramObserver):
            continue  # its own forward keeps the values in the statistics dtype
        elif isinstance(module, ObserverBase) and module not in forwards:
            forwards[module] = _observed_in_float32(module)
    with _computing_in(prepared, dtype), _forwards_replaced(forwards):
        for stream in streams:
            progress.start_clip(stream.name)
            reset_state(prepared)
            frames = program_frames(stream, audio_input)
            inputs = torch.from_numpy(frames)
            if inputs.is_floating_point():
                inputs = inputs.to(dtype)
            for frame in inputs:
                prepared(frame.unsqueeze(0))
                progress.advance()
            progress.finish_clip()
    reset_state(prepared)
    for name, (low, high) in ranges.items():
        if low <= high:  # an observer no frame reached keeps its empty range
            observer = prepared.get_submodule(name)
            snapped = snap_outward(low.item(), high.item(), f"the range of {name}")
            observer.min_val.fill_(snapped[0])
            observer.max_val.fill_(snapped[1])
