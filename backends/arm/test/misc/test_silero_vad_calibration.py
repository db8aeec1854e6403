# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Calibration streams each clip from the zero state, as the device will run it."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from operator import attrgetter
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn
from torchao.quantization.pt2e import MinMaxObserver

from examples.arm.silero_vad.model_export.audio import AudioStream, load_streams
from examples.arm.silero_vad.model_export.calibration import (
    H_BOUND,
    _constant_observers,
    _forwards_replaced,
    _recording_min_max,
    calibrate_observers,
    calibrate_state_quantization,
    level_versions,
    overdriven_versions,
)
from examples.arm.silero_vad.model_export.frame_geometry import GEOMETRY_16K
from examples.arm.silero_vad.model_export.lowering import (
    example_inputs,
    make_compile_spec,
    quantize,
)
from examples.arm.silero_vad.model_export.model_config import (
    DEFAULT_CONFIG,
    build_float_model,
    lstm_gate_product_spec,
    quantization_config,
)
from examples.arm.silero_vad.model_export.reproducible_statistics import (
    RANGE_BITS,
    ReproducibleHistogramObserver,
    statistics_dtype,
)
from examples.arm.silero_vad.model_export.silero_vad_model import STATE_SHAPE, SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    STATE_BUFFER,
    StatefulSileroVAD,
)


class StateRecorder(nn.Module):
    """Stands in for a prepared stateful model: counts frames in its state and records the
    state each call starts from."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer(STATE_BUFFER, torch.zeros(STATE_SHAPE, dtype=torch.int16))
        self.starts: list[int] = []
        self.inputs: list[torch.Tensor] = []

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        self.starts.append(int(self.state[0, 0, 0]))
        self.inputs.append(frame)
        self.state.add_(1)
        return torch.zeros(1, 1)


def _short(streams: list[AudioStream], frames: int) -> list[AudioStream]:
    return [replace(s, pcm=s.pcm[: frames * s.geometry.hop_samples]) for s in streams]


def test_every_stream_starts_from_the_zero_state(all_streams: list[AudioStream]) -> None:
    streams = _short(all_streams[:3], 5)
    recorder = StateRecorder()
    calibrate_observers(recorder, streams, "int16")
    assert recorder.starts == [0, 1, 2, 3, 4] * 3  # reset at each clip, carried within it
    assert not recorder.state.any()  # and left at zero for the export
    # The program's input format: the PCM frames themselves.
    assert all(frame.dtype == torch.int16 and frame.shape == (1, 576) for frame in recorder.inputs)


def test_float_input_calibration_feeds_float_audio(all_streams: list[AudioStream]) -> None:
    recorder = StateRecorder()
    calibrate_observers(recorder, _short(all_streams[:1], 3), "float")
    # In the statistics' dtype (float64): exact, the frames come from int16 PCM.
    assert all(frame.dtype == statistics_dtype() for frame in recorder.inputs)
    assert max(frame.abs().max().item() for frame in recorder.inputs) < 1.0


def test_state_range_comes_from_streams_started_at_zero(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """A clip's state range does not depend on the clip before it."""
    first, second = _short(all_streams[:2], 40)
    alone = calibrate_state_quantization(eager_silero, [second])
    after_first = calibrate_state_quantization(eager_silero, [first, second])
    both = calibrate_state_quantization(eager_silero, [second, first])
    assert after_first == both  # the maxima of two independent streams, in any order
    assert after_first.c_scale >= alone.c_scale
    assert np.isclose(
        max(alone.c_scale, calibrate_state_quantization(eager_silero, [first]).c_scale),
        after_first.c_scale,
    )


def test_h_takes_its_bound_not_a_calibrated_maximum(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """h = o * tanh(c) never leaves (-1, 1): its range is that bound for any audio, so a
    louder clip than the calibration's cannot put h on its rail."""
    quiet, loud = _short(all_streams[:1], 40), overdriven_versions(_short(all_streams[:1], 40), 20)
    for streams in (quiet, loud):
        state = calibrate_state_quantization(eager_silero, streams)
        assert state.h_scale * 32767 == pytest.approx(H_BOUND) and H_BOUND > 1.0
    # c keeps its calibrated range: louder audio drives it further.
    quiet_c = calibrate_state_quantization(eager_silero, quiet).c_scale
    assert calibrate_state_quantization(eager_silero, loud).c_scale > quiet_c


def test_full_scale_versions_reach_the_int16_rails(validation_wavs: list[Path]) -> None:
    """At 0 dB of overdrive every calibration clip reaches the top of the int16 range (a
    loud talker), shaped as recorded: scaled, not clipped."""
    streams = load_streams(validation_wavs[:2], GEOMETRY_16K)
    versions = overdriven_versions(streams, 0)
    assert [v.name for v in versions] == [f"{s.name}.full_scale" for s in streams]
    for stream, version in zip(streams, versions, strict=True):
        assert int(np.abs(version.pcm.astype(np.int32)).max()) == 32767
        assert version.num_samples == stream.num_samples
        gain = 32767 / np.abs(stream.pcm.astype(np.int32)).max()
        assert gain > 1.5, "a committed clip already at full scale tests nothing"
        expected = np.round(stream.pcm.astype(np.float64) * gain)
        assert np.abs(version.pcm - expected).max() <= 1


def test_overdriven_versions_clip_like_a_converter(validation_wavs: list[Path]) -> None:
    """10 dB past full scale: the waveform is the full-scale one x3.16, clipped at the
    rails; the default export calibrates its activation ranges on it."""
    (stream,) = load_streams(validation_wavs[:1], GEOMETRY_16K)
    (full,) = overdriven_versions([stream], 0)
    (loud,) = overdriven_versions([stream], 10)
    assert loud.name == f"{stream.name}.overdrive+10dB"
    railed = np.abs(loud.pcm.astype(np.int32)) >= 32767
    assert 0.001 < railed.mean() < 0.2  # clipped peaks, not a square wave
    inside = ~railed
    expected = full.pcm.astype(np.float64)[inside] * 10 ** (10 / 20)
    assert np.abs(loud.pcm[inside] - expected).max() <= 3
    assert DEFAULT_CONFIG.range_overdrive_db == 10


def test_level_versions_are_gains_on_the_clip_as_recorded(validation_wavs: list[Path]) -> None:
    (stream,) = load_streams(validation_wavs[:1], GEOMETRY_16K)
    quiet, same = level_versions([stream], (-20, 0))
    assert same is stream
    assert quiet.name == f"{stream.name}.level-20dB"
    expected = np.round(stream.pcm.astype(np.float64) / 10)
    assert np.abs(quiet.pcm - expected).max() <= 1


def _quantize_default_u85(
    eager_silero: SileroVAD,
    streams: list[AudioStream],
    calibrate: Callable[[torch.fx.GraphModule], None],
) -> torch.fx.GraphModule:
    """Quantizes the default arrangement for Ethos-U85, ``calibrate`` in place of the
    export's calibration; returns the converted graph."""
    stateful = StatefulSileroVAD(
        build_float_model(), calibrate_state_quantization(eager_silero, streams)
    )
    return quantize(
        stateful,
        example_inputs(),
        calibrate,
        make_compile_spec("ethos-u85-256", None, None, None),
        quantization_config(),
        lstm_gate_product_spec(DEFAULT_CONFIG.for_memory_mode("Sram_Only")),
    )


def test_constant_observers_look_once(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """Weight observers see their weight on the first frame only (it never changes), then
    are restored; the calibration still ends with every weight's range."""
    streams = _short(all_streams[:1], 4)
    seen: dict[str, int] = {}

    def calibrate(prepared: torch.fx.GraphModule) -> None:
        constants = _constant_observers(prepared)
        assert len(constants) >= 9  # the STFT's two products, 4 convs, 2 gate products, head
        for observer in constants:
            key, original = str(id(observer)), observer.forward
            seen[key] = 0

            def counted(value: torch.Tensor, key: str = key, original=original) -> torch.Tensor:
                seen[key] += 1
                return original(value)

            observer.forward = counted
        calibrate_observers(prepared, streams, "int16")
        assert all("forward" not in vars(observer) for observer in constants)  # restored
        ranged = [observer for observer in constants if hasattr(observer, "min_val")]
        assert len(ranged) >= 9 and all(observer.min_val.numel() > 0 for observer in ranged)

    _quantize_default_u85(eager_silero, streams, calibrate)
    assert seen and set(seen.values()) == {1}


def test_lean_min_max_recording_keeps_the_observers_range() -> None:
    """The lean recording ends with the minimum and maximum MinMaxObserver itself keeps,
    and gives the observers their own forward back."""
    lean, reference = MinMaxObserver(dtype=torch.int16), MinMaxObserver(dtype=torch.int16)
    low, high = torch.tensor(float("inf")), torch.tensor(float("-inf"))
    values = [torch.randn(1, 64) * scale for scale in (0.01, 3.0, 0.5, 40.0, 1e-4)]
    with _forwards_replaced({lean: _recording_min_max(low, high)}):
        assert "forward" in vars(lean)
        for value in values:
            assert lean(value) is value
    for value in values:
        reference(value)
    assert "forward" not in vars(lean)
    assert torch.equal(low, reference.min_val)
    assert torch.equal(high, reference.max_val)


def test_gate_product_biases_take_the_searched_input_scale(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """Each LSTM gate product's int32 bias steps by its int8 input's scale (from the searched
    range) times its weight's: the biases' derived specs hold the observer object itself, so
    the search must live in that object (a replaced observer left them the default scale 1,
    and the NPU's biases 20-128 times too small)."""
    streams = _short(all_streams[:1], 6)
    quantized = _quantize_default_u85(
        eager_silero, streams, lambda prepared: calibrate_observers(prepared, streams, "int16")
    )
    checked = 0
    for node in quantized.graph.nodes:
        if node.target != torch.ops.aten.linear.default or len(node.args) < 3:
            continue
        activation, weight, bias = (arg.args for arg in node.args)
        if activation[-1] != torch.int8:
            continue
        weight_scale = attrgetter(weight[1].target)(quantized)
        bias_scale = attrgetter(bias[1].target)(quantized)
        torch.testing.assert_close(bias_scale, activation[1] * weight_scale)
        checked += 1
    assert checked == 2


def test_calibrated_ranges_sit_on_the_grid_and_the_model_is_restored(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    """After calibration every activation range (not the constants') is on the reproducible
    grid (RANGE_BITS significant bits), the int8 gate inputs' searched ranges included, and
    the prepared model is float32 again."""
    streams = _short(all_streams[:1], 6)
    checked: list[tuple[float, float]] = []

    def calibrate(prepared: torch.fx.GraphModule) -> None:
        before = {name: t.dtype for name, t in prepared.state_dict().items()}
        code = prepared.code
        calibrate_observers(prepared, streams, "int16")
        assert {name: t.dtype for name, t in prepared.state_dict().items()} == before
        assert prepared.code == code
        constants = _constant_observers(prepared)
        for module in prepared.modules():
            if type(module) is MinMaxObserver and module not in constants:
                checked.append((module.min_val.item(), module.max_val.item()))
            elif isinstance(module, ReproducibleHistogramObserver):
                gate_inputs.append(module.searched_range())
                checked.append(gate_inputs[-1])

    gate_inputs: list[tuple[float, float]] = []
    _quantize_default_u85(eager_silero, streams, calibrate)
    assert len(checked) > 32
    # The LSTM input (the encoder's ReLU output) and h, as the release's search clips them.
    lstm_input, h = sorted(gate_inputs, key=lambda searched: searched[1], reverse=True)
    assert lstm_input[0] == 0.0 and lstm_input[1] > 1.0
    assert -1.0 <= h[0] < 0.0 < h[1] <= 1.0
    for low, high in checked:
        for value in (low, high):
            mantissa, _ = math.frexp(value)
            assert (mantissa * 2**RANGE_BITS).is_integer(), value
