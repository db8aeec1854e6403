# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The mixed-precision search finds every submodule's activations and moves them reversibly."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.export_silero_vad import quantize_configured
from examples.arm.silero_vad.model_export.lowering import make_compile_spec
from examples.arm.silero_vad.model_export.model_config import DEFAULT_CONFIG, INT16_MODULES
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import stream_probabilities
from examples.arm.silero_vad.precision_search import (
    int16_activation_points,
    move_to_int8,
    restore,
)


@pytest.fixture(scope="module")
def quantized_default_tosa(all_streams: list[AudioStream]) -> torch.fx.GraphModule:
    stream = all_streams[0]
    short = replace(stream, pcm=stream.pcm[: 40 * 512])
    spec = make_compile_spec("ethos-u85-256", None, None, None)
    quantized, _ = quantize_configured(
        DEFAULT_CONFIG.for_memory_mode("Sram_Only"), SileroVAD.from_silero_package(), [short], spec
    )
    return quantized


def test_every_submodule_has_int16_activations_tosa(
    quantized_default_tosa: torch.fx.GraphModule,
) -> None:
    points = int16_activation_points(quantized_default_tosa)
    assert sorted(points) == sorted(INT16_MODULES)


def test_moving_to_int8_changes_the_program_and_restore_undoes_it_tosa(
    quantized_default_tosa: torch.fx.GraphModule, all_streams: list[AudioStream]
) -> None:
    frames = all_streams[1].frames[:30]
    before = stream_probabilities(quantized_default_tosa, frames)
    points = int16_activation_points(quantized_default_tosa)
    saved = move_to_int8(quantized_default_tosa, points["encoder.convs.0"])
    moved = stream_probabilities(quantized_default_tosa, frames)
    restore(quantized_default_tosa, saved)
    np.testing.assert_array_equal(stream_probabilities(quantized_default_tosa, frames), before)
    assert np.abs(moved - before).max() > 0
