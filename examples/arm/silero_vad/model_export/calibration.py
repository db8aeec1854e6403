# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Calibration on real audio, streamed frame by frame from a zero state as on the device:
a VAD's state carries across frames, so observers must see the ranges of streaming."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager

import numpy as np
import torch
from torch import nn
from torchao.quantization.pt2e import MinMaxObserver, ObserverBase

from examples.arm.silero_vad.model_export.audio import AudioStream, float_to_pcm16
from examples.arm.silero_vad.model_export.frame_geometry import PCM16_FULL_SCALE
from examples.arm.silero_vad.model_export.progress import FrameProgress
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
    twin reports the frames on which the state hit its rail.
    """
    c_bound = 0.0
    progress = FrameProgress("state range", sum(stream.num_frames for stream in streams))
    for stream in streams:
        progress.start_clip(stream.name)
        state = zero_state()
        for frame in torch.from_numpy(stream.float_frames):
            _, state = model(frame.unsqueeze(0), state)
            c_bound = max(c_bound, state[1].abs().max().item())
            progress.advance()
        progress.finish_clip()
    return StateQuantization.from_bounds(H_BOUND, c_bound)


def _constant_observers(prepared: nn.Module) -> list[nn.Module]:
    """The observers of weights, biases and other constants: one look is enough."""
    if not isinstance(prepared, torch.fx.GraphModule):
        return []
    return [
        prepared.get_submodule(str(node.target))
        for node in prepared.graph.find_nodes(op="call_module")
        if node.args
        and isinstance(node.args[0], torch.fx.Node)
        and node.args[0].op == "get_attr"
        and isinstance(prepared.get_submodule(str(node.target)), ObserverBase)
    ]


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


def _recording_min_max(observer: MinMaxObserver) -> Callable[[torch.Tensor], torch.Tensor]:
    low, high = observer.min_val, observer.max_val

    def record(value: torch.Tensor) -> torch.Tensor:
        value_low, value_high = torch.aminmax(value)
        torch.minimum(low, value_low, out=low)
        torch.maximum(high, value_high, out=high)
        return value

    return record


@torch.no_grad()
def calibrate_observers(
    prepared: torch.fx.GraphModule, streams: Sequence[AudioStream], audio_input: str
) -> None:
    """Feeds every stream, frame by frame from a zero state, through a PT2E-prepared
    stateful model taking ``audio_input`` frames."""
    progress = FrameProgress("calibration", sum(stream.num_frames for stream in streams))
    constants = _constant_observers(prepared)
    # Activation min/max observers record the same range in three tensor calls (a fifth off
    # the time); constant observers, once they saw their constant, pass it through (a quarter).
    lean = {
        m: _recording_min_max(m)
        for m in prepared.modules()
        if type(m) is MinMaxObserver and m not in constants
    }
    with _forwards_replaced(lean), ExitStack() as after_first_frame:
        for stream in streams:
            progress.start_clip(stream.name)
            reset_state(prepared)
            for frame in torch.from_numpy(program_frames(stream, audio_input)):
                prepared(frame.unsqueeze(0))
                progress.advance()
                if progress.done == 1:
                    pass_through = {m: lambda value: value for m in constants}
                    after_first_frame.enter_context(_forwards_replaced(pass_through))
            progress.finish_clip()
    reset_state(prepared)
