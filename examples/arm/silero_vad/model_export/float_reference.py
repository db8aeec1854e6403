# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Float probabilities of the eager model: the accuracy reference for every quantized result."""

from __future__ import annotations

import numpy as np
import torch

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD, zero_state


@torch.no_grad()
def float_probabilities(model: SileroVAD, stream: AudioStream) -> np.ndarray:
    """Streams one file frame by frame, state carried from a zero start; float32 per frame."""
    state = zero_state()
    probabilities = np.empty(stream.num_frames, dtype=np.float32)
    for index, frame in enumerate(torch.from_numpy(stream.float_frames)):
        probability, state = model(frame.unsqueeze(0), state)
        probabilities[index] = probability.item()
    return probabilities
