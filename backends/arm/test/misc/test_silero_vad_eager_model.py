# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The eager Silero VAD equals the official TorchScript model, frame by frame."""

from __future__ import annotations

import numpy as np
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.float_reference import float_probabilities
from examples.arm.silero_vad.model_export.silero_vad_model import (
    HOP_SAMPLES,
    SAMPLE_RATE,
    STATE_SHAPE,
    SileroVAD,
    load_official_jit,
    zero_state,
)


def _official_probabilities(stream: AudioStream) -> np.ndarray:
    """The official model as silero-vad drives it: 512 new samples per call, padded last."""
    official = load_official_jit()
    official.reset_states()
    samples = torch.from_numpy(stream.samples)
    probabilities = []
    with torch.no_grad():
        for start in range(0, stream.num_samples, HOP_SAMPLES):
            chunk = samples[start : start + HOP_SAMPLES]
            chunk = torch.nn.functional.pad(chunk, (0, HOP_SAMPLES - chunk.shape[0]))
            probabilities.append(official(chunk.unsqueeze(0), SAMPLE_RATE).item())
    return np.asarray(probabilities, dtype=np.float32)


def test_eager_equals_official_jit_on_every_committed_clip(
    all_streams: list[AudioStream], eager_silero: SileroVAD
) -> None:
    assert len(all_streams) >= 6
    for stream in all_streams:
        ours = float_probabilities(eager_silero, stream)
        official = _official_probabilities(stream)
        assert ours.shape == official.shape == (stream.num_frames,)
        max_abs = float(np.max(np.abs(ours - official)))
        assert max_abs <= 1e-5, f"{stream.name}: max abs diff {max_abs}"
        # The clips hold speech and silence: both decisions must occur.
        assert (official >= 0.5).any() and (official < 0.5).any(), stream.name


def test_state_is_carried_between_frames(eager_silero: SileroVAD) -> None:
    frame = torch.linspace(-0.3, 0.3, 576).unsqueeze(0)
    with torch.no_grad():
        first, state = eager_silero(frame, zero_state())
        second, next_state = eager_silero(frame, state)
    assert state.shape == next_state.shape == STATE_SHAPE
    assert not torch.equal(state, next_state)
    assert first.shape == (1, 1)
    assert first.item() != second.item()


def test_weights_come_from_the_silero_package(eager_silero: SileroVAD) -> None:
    official = load_official_jit()._model.state_dict()
    assert torch.equal(eager_silero.decoder.rnn.weight_ih, official["decoder.rnn.weight_ih"])
    assert torch.equal(eager_silero.stft.forward_basis, official["stft.forward_basis_buffer"])
    assert isinstance(eager_silero.decoder.rnn, torch.nn.LSTMCell)
