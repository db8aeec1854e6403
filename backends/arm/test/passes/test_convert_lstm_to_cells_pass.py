# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""ConvertLstmToCellsPass: nn.LSTM as LSTM cells, then gates, equal to nn.LSTM.

Run before quantization annotation, on the ATen graph (see
``test_decompose_gru_cell_pass.py`` for why not on ``PassPipeline``), followed by
``DecomposeLstmCellPass`` as the stateful quantizer runs them; lowered with its state in
the program on every target in ``test_recurrent_cell_state.py``.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from backends.arm._passes import ConvertLstmToCellsPass, DecomposeLstmCellPass

INPUT, HIDDEN = 6, 4
_LSTM = torch.ops.aten.lstm.input
_LSTM_CELL = torch.ops.aten.lstm_cell.default


class Lstm(nn.Module):
    def __init__(self, **options) -> None:
        super().__init__()
        self.lstm = nn.LSTM(INPUT, HIDDEN, **options)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor):
        output, (h_n, c_n) = self.lstm(x, (h, c))
        return output, h_n, c_n


# name: (nn.LSTM options, steps, batch (None: unbatched))
test_cases = {
    "one_step_one_layer": ({}, 1, 1),
    "one_step_stacked_batch_first": ({"num_layers": 2, "batch_first": True}, 1, 1),
    "one_step_stacked_time_first": ({"num_layers": 2}, 1, 3),
    "sequence_three_layers_no_bias": ({"num_layers": 3, "bias": False}, 3, 2),
    "sequence_batch_first": ({"batch_first": True}, 4, 2),
    "unbatched": ({"num_layers": 2}, 2, None),
}


def _inputs(options: dict, steps: int, batch: int | None) -> tuple[torch.Tensor, ...]:
    layers = options.get("num_layers", 1)
    if batch is None:
        x, state = torch.randn(steps, INPUT), (layers, HIDDEN)
    elif options.get("batch_first"):
        x, state = torch.randn(batch, steps, INPUT), (layers, batch, HIDDEN)
    else:
        x, state = torch.randn(steps, batch, INPUT), (layers, batch, HIDDEN)
    return x, torch.randn(*state), torch.randn(*state)


def _converted(model: nn.Module, inputs: tuple[torch.Tensor, ...]) -> torch.fx.GraphModule:
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    assert graph_module.graph.find_nodes(op="call_function", target=_LSTM)
    result = ConvertLstmToCellsPass(tfa_pass=True)(graph_module)
    assert result.modified
    return result.graph_module


@pytest.mark.parametrize("case", test_cases.values(), ids=test_cases.keys())
def test_convert_lstm_to_cells_equals_nn_lstm_tosa(case) -> None:
    options, steps, batch = case
    torch.manual_seed(0)
    model = Lstm(**options).eval()
    inputs = _inputs(options, steps, batch)
    converted = _converted(model, inputs)

    cells = converted.graph.find_nodes(op="call_function", target=_LSTM_CELL)
    assert len(cells) == steps * options.get("num_layers", 1)
    assert not converted.graph.find_nodes(op="call_function", target=_LSTM)
    decomposed = DecomposeLstmCellPass(tfa_pass=True)(converted).graph_module
    assert not decomposed.graph.find_nodes(op="call_function", target=_LSTM_CELL)
    for module in (converted, decomposed):
        for want, got in zip(model(*inputs), module(*inputs), strict=True):
            assert got.shape == want.shape
            torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)


left_to_the_release = {
    "bidirectional": {"bidirectional": True},
    "projection": {"proj_size": 2},
}


@pytest.mark.parametrize("options", left_to_the_release.values(), ids=left_to_the_release.keys())
def test_convert_lstm_to_cells_leaves_other_lstms_tosa(options: dict) -> None:
    """Bidirectional LSTMs and LSTMs with projections stay for the release's pass."""
    torch.manual_seed(0)
    model = Lstm(**options).eval()
    directions = 2 if options.get("bidirectional") else 1
    hidden = options.get("proj_size", HIDDEN)
    inputs = (
        torch.randn(2, 1, INPUT),
        torch.randn(directions, 1, hidden),
        torch.randn(directions, 1, HIDDEN),
    )
    graph_module = torch.export.export(model, inputs).module(check_guards=False)
    result = ConvertLstmToCellsPass(tfa_pass=True)(graph_module)
    assert not result.modified
    assert result.graph_module.graph.find_nodes(op="call_function", target=_LSTM)
