# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The release's own Arm flow on Silero VAD, without any of our passes, for comparison.

h and c are graph inputs and outputs (a model-owned buffer does not lower on 1.4.1), with
the release's ``EthosUQuantizer`` and ``EthosUPartitioner``: on 1.4.1 the LSTM cell stays
on the CPU in float; 1.5.1 lowers it itself.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence

import executorch.kernels.quantized  # noqa: F401  (registers the q/dq out variants)
import torch
from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
from executorch.backends.arm.quantizer import (
    EthosUQuantizer,
    get_symmetric_quantization_config,
)
from executorch.exir import EdgeCompileConfig, ExecutorchProgramManager, to_edge_transform_and_lower
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.silero_vad_model import HIDDEN_SIZE, SileroVAD


class SileroVADWithStateIO(nn.Module):
    """``(frame, h, c) -> (probability, h, c)``: the state crosses the graph boundary."""

    def __init__(self, model: SileroVAD) -> None:
        super().__init__()
        self.model = model

    def forward(self, frame: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        return self.model.step(frame, h, c)


def _inputs(frame_samples: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    # Distinct tensors for h and c: export would merge one tensor passed twice.
    return torch.zeros(1, frame_samples), torch.zeros(1, HIDDEN_SIZE), torch.zeros(1, HIDDEN_SIZE)


def export_upstream_recipe(
    calibration: Sequence[AudioStream], compile_spec: EthosUCompileSpec
) -> ExecutorchProgramManager:
    """The release's flow on Silero at the calibration audio's sample rate (float input)."""
    geometry = calibration[0].geometry
    model = SileroVADWithStateIO(SileroVAD.from_silero_package(geometry.sample_rate)).eval()
    inputs = _inputs(geometry.frame_samples)
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    quantizer = EthosUQuantizer(compile_spec).set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(graph_module, quantizer)
    with torch.no_grad():
        for stream in calibration:
            h, c = torch.zeros(1, HIDDEN_SIZE), torch.zeros(1, HIDDEN_SIZE)
            for frame in torch.from_numpy(stream.float_frames):
                _, h, c = prepared(frame.unsqueeze(0), h, c)
    exported = torch.export.export(convert_pt2e(prepared), inputs)
    with contextlib.redirect_stdout(io.StringIO()):
        edge = to_edge_transform_and_lower(
            exported,
            partitioner=[EthosUPartitioner(compile_spec)],
            compile_config=EdgeCompileConfig(_check_ir_validity=False),
        )
    return edge.to_executorch()
