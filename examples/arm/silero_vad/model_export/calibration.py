# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Calibration on real audio, one stream at a time, state reset at every stream start.

A VAD's state carries across frames, so observers must see the ranges that occur while
it streams, not on independent frames: each clip is fed frame by frame from a zero state,
exactly as the device will run it.
"""

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
    """Each stream with its peak taken to the int16 full scale and ``overdrive_db`` further,
    clipped where it exceeds full scale, as a converter driven too hard does.

    The program takes raw int16 PCM, so a product meets everything up to a talker who
    clips the converter; activation ranges calibrated on the clips' recorded level alone
    saturate on loud audio, from the front end (a clipped frame drives the spectrum's
    DC and low bins up to 6x the full-scale speech range) to the LSTM's gates. Measured
    with the default's other levers (GPTQ, int8 LSTM gate weights, Ethos-U85), PyTorch
    quantized program against float on the committed clips, flips / confident flips:
    ranges at full scale (0 dB), clipped audio 3.60 % / 1.48 %, +20 dB of gain 1.48 % /
    0.53 %; at +10 dB 1.48 % / 0 and 0.42 % / 0, clean 0.21 % -> 0.11 %. The range is
    bought with resolution: quiet speech at -30 dB went from 1.27 % to 2.54 % flips (no
    confident one), at -40 dB from 0.53 % to 1.38 % confident flips (float Silero's own
    under a 1-LSB dither: 0.53 %). PyTorch quantized program on 3.3 minutes of other speech
    (Debian's asterisk prompts in five voices and silero-vad's two example files): clipped
    audio 2.87 % confident flips at 0 dB, 1.40 % at +3, 0.65 % at +6, 0.15 % at +10,
    0 at +20 dB; at -40 dB 0.11 %, 0.42 %, 0.71 %, 0.44 %, 0.88 %. Each part of the
    network needs the headroom: ranges overdriven only up to the encoder left 1.3 %
    confident flips on that speech clipped.
    """
    versions = []
    label = "full_scale" if overdrive_db == 0 else f"overdrive{overdrive_db:+g}dB"
    for stream in streams:
        peak = int(np.abs(stream.pcm.astype(np.int32)).max())
        gain = (PCM16_FULL_SCALE - 1) / max(peak, 1) * 10.0 ** (overdrive_db / 20.0)
        loud = float_to_pcm16(stream.pcm.astype(np.float64) * gain / PCM16_FULL_SCALE)
        versions.append(stream.derived(label, loud))
    return versions


def level_versions(streams: Sequence[AudioStream], levels_db: Sequence[float]) -> list[AudioStream]:
    """Each stream at each gain of ``levels_db`` (dB on the level as recorded; 0 is the
    stream itself), clipped at full scale."""
    versions = []
    for stream in streams:
        for db in levels_db:
            if db == 0:
                versions.append(stream)
                continue
            scaled = stream.pcm.astype(np.float64) * 10.0 ** (db / 20.0) / PCM16_FULL_SCALE
            versions.append(stream.derived(f"level{db:+g}dB", float_to_pcm16(scaled)))
    return versions


# |h| < 1 (h = o * tanh(c)); the NPU's sigmoid and tanh tables may round o * tanh(c) up
# to 1, so the range keeps a thousandth above it and the rail stays a sign of trouble.
H_BOUND = 1.001


def _frames(streams: Sequence[AudioStream]) -> int:
    return sum(stream.num_frames for stream in streams)


@torch.no_grad()
def calibrate_state_quantization(
    model: SileroVAD, streams: Sequence[AudioStream]
) -> StateQuantization:
    """qparams of the state: h from its bound, c from the float model's largest |c| over
    the streams.

    h = o * tanh(c) lies in (-1, 1) whatever the audio, so its range is that bound (with
    room for the NPU's table rounding, ``H_BOUND``): no input can saturate it. A
    calibrated largest |h| (0.998 on the 8 kHz clips) let a loud clip put h on its rail.

    No headroom above the largest |c|, on purpose. Louder or stranger audio than the
    calibration's drives c further (measured on the float model: 34 on the committed
    clips, 161 on speech clipped at +20 dB, 290 on a steady tone), and the int16 state
    then saturates; but wherever |c| exceeds ~5, tanh(c) is 1 to float precision, so a
    saturated c changes h not at all and only shortens the memory of a long loud sound.
    Headroom costs c's resolution on every frame instead. Float model with only the state
    quantized, validation clips and real speech each clean, clipped at +20 dB, with a
    tone and at 0 dB SNR (5,276 frames), decision flips against float: c bound 34 (the
    calibration max): 3 flips, max abs 0.014; 2x: 4, 0.034; 4x: 12, 0.115; 8x: 24, 0.23.
    The device twin reports the frames on which the state hit its rail.
    """
    c_bound = 0.0
    progress = FrameProgress("state range", _frames(streams))
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
def _constants_observed_once(prepared: nn.Module) -> Iterator[None]:
    """While active, constant observers pass their input through (they saw it already).

    A constant's observer sees the same tensor on every frame; skipping it after the
    first frame takes a quarter off the calibration's time (nine per-channel weight
    observers and the folded constants' ones, of about 90 per frame)."""
    observers = _constant_observers(prepared)
    for observer in observers:
        observer.forward = _pass_through
    try:
        yield
    finally:
        for observer in observers:
            del observer.forward


def _pass_through(value: torch.Tensor) -> torch.Tensor:
    return value


@contextmanager
def _lean_min_max_observers(prepared: nn.Module) -> Iterator[None]:
    """While active, activation min/max observers record their range in three tensor calls.

    The same minimum and maximum as ``MinMaxObserver.forward``, without its per-call
    copies and conversions: about 70 of them run on every frame, and this takes about a
    fifth off the calibration's time.
    """
    constants = {id(m) for m in _constant_observers(prepared)}
    observers = [
        m for m in prepared.modules() if type(m) is MinMaxObserver and id(m) not in constants
    ]
    for observer in observers:
        observer.forward = _recording_min_max(observer)
    try:
        yield
    finally:
        for observer in observers:
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
    """Feeds every stream, frame by frame, through a PT2E-prepared stateful model whose
    audio input is ``audio_input`` (see StatefulSileroVAD)."""
    progress = FrameProgress("calibration", _frames(streams))
    with _lean_min_max_observers(prepared), ExitStack() as after_first_frame:
        for stream in streams:
            progress.start_clip(stream.name)
            reset_state(prepared)
            for frame in torch.from_numpy(program_frames(stream, audio_input)):
                prepared(frame.unsqueeze(0))
                progress.advance()
                if progress.done == 1:
                    after_first_frame.enter_context(_constants_observed_once(prepared))
            progress.finish_clip()
    reset_state(prepared)
