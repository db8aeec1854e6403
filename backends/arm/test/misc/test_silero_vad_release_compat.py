# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""On every supported executorch release, Silero's cell and state go through our passes.

executorch 1.5.1 brought its own LSTM-cell decomposition and mutable-buffer handling.
These tests run under whichever venv is active and check what must hold on all of them:
the quantized graph's cell ops and state reader carry our passes' provenance mark, the
release's own LSTM decomposition finds nothing left to do, and the exported program
runs the same portable operators. The numbers themselves are compared across releases
by ``backends/arm/test/test_silero_vad.sh`` (``compare_releases.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
import torch
from executorch.backends.arm._passes.decompose_lstm_pass import DecomposeLstmPass

from backends.arm._passes.pass_provenance import created_by
from examples.arm.silero_vad.model_export.audio import AudioStream
from examples.arm.silero_vad.model_export.calibration import calibrate_state_quantization
from examples.arm.silero_vad.model_export.lowering import (
    make_compile_spec,
    quantize_silero_vad,
)
from examples.arm.silero_vad.model_export.silero_vad_model import SileroVAD
from examples.arm.silero_vad.model_export.stateful_silero_vad import (
    STATE_BUFFER,
    StatefulSileroVAD,
)
from examples.arm.silero_vad.model_export.targets import DEFAULT_NPU_TARGET

# One LSTMCell as DecomposeLstmCellPass writes it: two linears, a slice of each per gate,
# an add per gate, three sigmoids and two tanh, and c' = f*c + i*g, h' = o*tanh(c').
CELL_OPS = {"linear": 2, "slice": 8, "add": 5, "sigmoid": 3, "tanh": 2, "mul": 3}
CALIBRATION_FRAMES = 24  # enough for every observer to see data; the numbers are not tested


def _op_name(node: torch.fx.Node) -> str:
    return str(node.target).split(".")[-2]  # aten.sigmoid.default -> sigmoid


@pytest.fixture(scope="module")
def quantized_silero(all_streams: list[AudioStream]) -> dict:
    """Silero quantized with the example's flow on a few frames, and what the release's
    own LSTM decomposition did meanwhile."""
    streams = [
        replace(s, pcm=s.pcm[: CALIBRATION_FRAMES * s.geometry.hop_samples])
        for s in all_streams[:2]
    ]
    float_model = SileroVAD.from_silero_package()
    stateful = StatefulSileroVAD(float_model, calibrate_state_quantization(float_model, streams))
    spec = make_compile_spec(DEFAULT_NPU_TARGET, "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", None)

    release_results: list[bool] = []
    original_call = DecomposeLstmPass.call

    def spy(self, graph_module):
        result = original_call(self, graph_module)
        release_results.append(result.modified)
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DecomposeLstmPass, "call", spy)
        quantized = quantize_silero_vad(stateful, streams, spec)
    return {"graph": quantized, "release_lstm_pass_modified": release_results}


def test_silero_lstm_cell_is_decomposed_by_our_pass_u85(quantized_silero: dict) -> None:
    graph_module: torch.fx.GraphModule = quantized_silero["graph"]
    calls = [n for n in graph_module.graph.nodes if n.op == "call_function"]
    assert not [n for n in calls if n.target is torch.ops.aten.lstm_cell.default]
    ours = Counter(_op_name(n) for n in calls if created_by(n) == "DecomposeLstmCellPass")
    assert ours == CELL_OPS
    # The release's DecomposeLstmPass (it rewrites lstm_cell from 1.5.1 on) ran in the
    # annotation pipeline and found no cell: one implementation, ours, on every release.
    assert quantized_silero["release_lstm_pass_modified"]
    assert not any(quantized_silero["release_lstm_pass_modified"])
    # Every sigmoid/tanh of the graph but the output head's sigmoid is the cell's.
    activations = [n for n in calls if _op_name(n) in ("sigmoid", "tanh")]
    assert sum(created_by(n) is None for n in activations) == 1


def test_silero_state_reader_is_restored_by_our_pass_u85(quantized_silero: dict) -> None:
    graph_module: torch.fx.GraphModule = quantized_silero["graph"]
    (reader,) = graph_module.graph.find_nodes(op="get_attr", target=STATE_BUFFER)
    assert created_by(reader) == "PreserveMutableBuffersPass"
    writes = [u for u in reader.users if u.target is torch.ops.aten.copy_.default]
    assert len(writes) == 1 and len(reader.users) > 1  # read and written, not frozen
