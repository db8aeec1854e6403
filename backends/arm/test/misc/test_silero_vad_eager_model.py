# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The eager Silero VAD equals the official TorchScript model, frame by frame."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.silero_vad_model import (
    STATE_SHAPE,
    SileroVAD,
    float_probabilities,
    load_official_jit,
    zero_state,
)


def _official_probabilities(stream: AudioStream) -> np.ndarray:
    """The official model as silero-vad drives it: one hop of new samples per call (512 at
    16 kHz, 256 at 8 kHz), the last one padded, with the stream's sample rate."""
    official = load_official_jit()
    official.reset_states()
    samples = torch.from_numpy(stream.samples)
    hop = stream.geometry.hop_samples
    probabilities = []
    with torch.no_grad():
        for start in range(0, stream.num_samples, hop):
            chunk = samples[start : start + hop]
            chunk = torch.nn.functional.pad(chunk, (0, hop - chunk.shape[0]))
            probabilities.append(official(chunk.unsqueeze(0), stream.sample_rate).item())
    return np.asarray(probabilities, dtype=np.float32)


@pytest.mark.parametrize("sample_rate", [16000, 8000])
def test_eager_equals_official_jit_on_every_committed_clip(
    sample_rate: int, committed_streams: Callable[[int], list[AudioStream]]
) -> None:
    streams = committed_streams(sample_rate)
    eager = SileroVAD.from_silero_package(sample_rate)
    assert len(streams) >= 6
    for stream in streams:
        ours = float_probabilities(eager, stream)
        official = _official_probabilities(stream)
        assert ours.shape == official.shape == (stream.num_frames,)
        max_abs = float(np.max(np.abs(ours - official)))
        assert max_abs <= 1e-5, f"{stream.name}: max abs diff {max_abs}"
        # The clips hold speech and silence: both decisions must occur.
        assert (official >= 0.5).any() and (official < 0.5).any(), stream.name


def test_state_is_carried_between_frames(eager_silero: SileroVAD) -> None:
    frame = torch.linspace(-0.3, 0.3, eager_silero.geometry.frame_samples).unsqueeze(0)
    with torch.no_grad():
        first, state = eager_silero(frame, zero_state())
        second, next_state = eager_silero(frame, state)
    assert state.shape == next_state.shape == STATE_SHAPE
    assert not torch.equal(state, next_state)
    assert first.shape == (1, 1)
    assert first.item() != second.item()


@pytest.mark.parametrize("sample_rate, network", [(16000, "_model"), (8000, "_model_8k")])
def test_weights_come_from_the_silero_package(sample_rate: int, network: str) -> None:
    eager = SileroVAD.from_silero_package(sample_rate)
    official = getattr(load_official_jit(), network).state_dict()
    assert torch.equal(eager.decoder.rnn.weight_ih, official["decoder.rnn.weight_ih"])
    assert torch.equal(eager.stft.forward_basis, official["stft.forward_basis_buffer"])
    assert isinstance(eager.decoder.rnn, torch.nn.LSTMCell)


def test_other_sample_rates_are_refused() -> None:
    with pytest.raises(
        ValueError, match="sample rate 44100: Silero VAD has models for 16000, 8000"
    ):
        SileroVAD.from_silero_package(44100)
