# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Eager Silero VAD (16 kHz or 8 kHz) built from ordinary layers, with an ``nn.LSTMCell``.

The official model ships as TorchScript, which ExecuTorch cannot export: this rebuilds
the network and loads the weights of the installed ``silero-vad`` package (no network
access). One call is one frame (context then new samples); the state ``[h, c]`` is passed
in and returned, so callers decide where it lives.
"""

from __future__ import annotations

import importlib.resources
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.frame_geometry import (
    DEFAULT_SAMPLE_RATE,
    GEOMETRY_16K,
    FrameGeometry,
    frame_geometry,
)

HIDDEN_SIZE = 128
STATE_SHAPE = (2, 1, HIDDEN_SIZE)

# (output channels, stride) of the four encoder convolutions.
_ENCODER_LAYERS = ((128, 1), (64, 2), (64, 2), (128, 1))


def load_official_jit() -> torch.jit.ScriptModule:
    """The official TorchScript Silero VAD, the numerical reference of this example."""
    path = Path(str(importlib.resources.files("silero_vad.data").joinpath("silero_vad.jit")))
    if not path.is_file():
        raise FileNotFoundError(f"{path}: not found; is silero-vad==6.2.3 installed?")
    with warnings.catch_warnings():
        # TorchScript is deprecated, but it is the format silero-vad ships its model in.
        warnings.filterwarnings("ignore", message=".*torch.jit.load.*", category=DeprecationWarning)
        return torch.jit.load(str(path), map_location="cpu")


def zero_state() -> torch.Tensor:
    """A fresh ``[h, c]`` state: the start of every audio stream."""
    return torch.zeros(STATE_SHAPE)


class StftMagnitude(nn.Module):
    """Magnitude spectrum of one frame: reflect pad, strided convolution with the STFT basis."""

    def __init__(self, geometry: FrameGeometry = GEOMETRY_16K) -> None:
        super().__init__()
        self.geometry = geometry
        self.pad = nn.ReflectionPad1d((0, geometry.stft_right_pad))
        basis = torch.zeros(2 * geometry.stft_bins, 1, geometry.stft_filter_length)
        self.register_buffer("forward_basis", basis)

    def forward(self, frame: torch.Tensor) -> torch.Tensor:
        bins = self.geometry.stft_bins
        padded = self.pad(frame).unsqueeze(1)
        spectrum = nn.functional.conv1d(padded, self.forward_basis, stride=self.geometry.stft_hop)
        real, imag = spectrum[:, :bins, :], spectrum[:, bins:, :]
        return torch.sqrt(real * real + imag * imag)


class Encoder(nn.Module):
    """Four 3-tap convolutions with ReLU; strides 1, 2, 2, 1 reduce 4 STFT columns to 1."""

    def __init__(self, input_channels: int = GEOMETRY_16K.stft_bins) -> None:
        super().__init__()
        convs = []
        for out_channels, stride in _ENCODER_LAYERS:
            convs.append(nn.Conv1d(input_channels, out_channels, 3, stride=stride, padding=1))
            input_channels = out_channels
        self.convs = nn.ModuleList(convs)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            features = torch.relu(conv(features))
        return features


class Decoder(nn.Module):
    """LSTMCell over the encoder's single time step, then ReLU, a 1x1 conv and a sigmoid."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.LSTMCell(HIDDEN_SIZE, HIDDEN_SIZE)
        self.head = nn.Conv1d(HIDDEN_SIZE, 1, kernel_size=1)

    def forward(
        self, features: torch.Tensor, h: torch.Tensor, c: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        h_next, c_next = self.rnn(features.squeeze(-1), (h, c))
        logits = self.head(torch.relu(h_next).unsqueeze(-1))
        return torch.sigmoid(logits), h_next, c_next


class SileroVAD(nn.Module):
    """Silero VAD for one sample rate: ``forward(frame (1, frame_samples) float audio,
    state [h, c] (2, 1, 128)) -> (probability (1, 1), new state)``."""

    def __init__(self, geometry: FrameGeometry = GEOMETRY_16K) -> None:
        super().__init__()
        self.geometry = geometry
        self.stft = StftMagnitude(geometry)
        self.encoder = Encoder(geometry.stft_bins)
        self.decoder = Decoder()

    def forward(
        self, frame: torch.Tensor, state: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        probability, h, c = self.step(frame, state[0], state[1])
        return probability, torch.stack([h, c])

    def step(
        self, frame: torch.Tensor, h: torch.Tensor, c: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One frame with h and c as separate tensors (for the stateful wrapper)."""
        features = self.encoder(self.stft(frame))
        frame_probabilities, h_next, c_next = self.decoder(features, h, c)
        # The official model averages the head over time; the encoder leaves one step.
        probability = frame_probabilities.squeeze(1).mean(dim=1, keepdim=True)
        return probability, h_next, c_next

    @classmethod
    def from_silero_package(cls, sample_rate: int = DEFAULT_SAMPLE_RATE) -> SileroVAD:
        """The model for ``sample_rate`` with the weights of the installed ``silero-vad`` (the
        JIT's ``_model`` at 16 kHz, ``_model_8k`` at 8 kHz), its key names mapped to ours."""
        jit, geometry = load_official_jit(), frame_geometry(sample_rate)
        network = jit._model if geometry is GEOMETRY_16K else jit._model_8k
        if network.context_size_samples != geometry.context_samples:
            raise RuntimeError(
                f"silero-vad's {sample_rate} Hz network has {network.context_size_samples} "
                f"context samples, not {geometry.context_samples}: an unsupported silero-vad "
                "release?"
            )
        official = network.state_dict()
        mapped = {"stft.forward_basis": official["stft.forward_basis_buffer"]}
        for kind in ("weight", "bias"):
            for index in range(len(_ENCODER_LAYERS)):
                mapped[f"encoder.convs.{index}.{kind}"] = official[
                    f"encoder.{index}.reparam_conv.{kind}"
                ]
            mapped[f"decoder.head.{kind}"] = official[f"decoder.decoder.2.{kind}"]
        for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            mapped[f"decoder.rnn.{kind}"] = official[f"decoder.rnn.{kind}"]
        model = cls(geometry)
        model.load_state_dict(mapped, strict=True)
        return model.eval()


@torch.no_grad()
def float_probabilities(model: SileroVAD, stream: AudioStream) -> np.ndarray:
    """Streams one file frame by frame, state carried from a zero start; float32 per frame:
    the accuracy reference for every quantized result."""
    state = zero_state()
    probabilities = np.empty(stream.num_frames, dtype=np.float32)
    for index, frame in enumerate(torch.from_numpy(stream.float_frames)):
        probability, state = model(frame.unsqueeze(0), state)
        probabilities[index] = probability.item()
    return probabilities
