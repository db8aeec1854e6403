# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Small seeded recurrent modules, one per cell type the stateful Arm passes lower, that
keep their state in the program (for the tests and ``lab/benchmark_recurrent_cells.py``).

Each is a float ``RecurrentStep`` (one step: ``(x, *state) -> (output, *new_state)``) put
in ``Int16StateModel``: an int16 input and an int16 ``state`` buffer read through
explicit dequantizes and the new state written through an explicit quantize, with fixed
per-tensor scales (from a bound, or from the float module's largest value on the stimulus),
as the example keeps Silero's ``h`` and ``c``. The Arm backend then runs the whole step in
one delegate and leaves the CPU the state's write-back and the output's dequantize.

The weights lie on the a16w8 config's int8 grid (symmetric, per output channel), as
quantization-aware training leaves them: the error against the float module is then what
the lowering, the 16-bit activations and the 16-bit state cost, not the rounding of
float weights (``float_weight_rounding_error`` measures that separately).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines the quantized_decomposed ops)
from torch import nn

INPUT_SIZE = 8
HIDDEN_SIZE = 16
STACKED_LAYERS = 2  # the nn.LSTM and nn.GRU steps, unless told otherwise
STEPPED_FRAMES = 500

STATE_BUFFER = "state"
_INT16 = torch.iinfo(torch.int16)
_INT16_QPARAMS = (0, _INT16.min, _INT16.max, torch.int16)
# The input lies in [-1, 1]: int16 with full scale 1.
INPUT_SCALE = 1.0 / _INT16.max
# tanh and sigmoid * tanh lie in (-1, 1); so does a GRU's convex mix of them.
TANH_BOUND = 1.0

_dequantize = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_quantize = torch.ops.quantized_decomposed.quantize_per_tensor.default


class RecurrentStep(nn.Module):
    """One step of an ``nn.GRUCell``, ``nn.RNNCell``, ``nn.LSTMCell``, ``nn.LSTM`` or
    ``nn.GRU`` as ``forward(x, *state) -> (output, *new_state)``."""

    def __init__(self, recurrent: nn.Module) -> None:
        super().__init__()
        self.recurrent = recurrent

    def forward(self, x: torch.Tensor, *state: torch.Tensor) -> tuple[torch.Tensor, ...]:
        recurrent = self.recurrent
        if isinstance(recurrent, nn.LSTMCell):
            h, c = recurrent(x, state)
            return h, h, c
        if isinstance(recurrent, nn.LSTM):
            output, (h, c) = recurrent(x, state)
            return output, h, c
        if isinstance(recurrent, nn.GRU):
            output, h = recurrent(x, *state)
            return output, h
        h = recurrent(x, *state)
        return h, h


@dataclass(frozen=True)
class CellType:
    """A cell type: how to build its seeded float module and the shapes of one step."""

    name: str
    label: str  # the module, as a table names it
    build: Callable[[], nn.Module]
    input_shape: tuple[int, ...]
    state_shape: tuple[int, ...]  # of each state tensor
    # Per state tensor: its bound, or None for the float module's largest |value| on the
    # stimulus (relu's h and the LSTM's c have no bound).
    state_bounds: tuple[float | None, ...]

    def float_step(self, int8_grid: bool = True) -> RecurrentStep:
        """The seeded float module for inference, its weights on the int8 grid (or not)."""
        torch.manual_seed(0)
        step = RecurrentStep(self.build()).eval()
        if int8_grid:
            round_weights_to_int8_grid(step)
        for parameter in step.parameters():
            parameter.requires_grad_(False)
        return step


def cell_types(layers: int = STACKED_LAYERS) -> dict[str, CellType]:
    """Every cell type by name; the nn.LSTM and nn.GRU steps with ``layers`` layers."""
    cell = ((1, INPUT_SIZE), (1, HIDDEN_SIZE))
    step = ((1, 1, INPUT_SIZE), (layers, 1, HIDDEN_SIZE))
    sizes = (INPUT_SIZE, HIDDEN_SIZE)
    stacked = f"{layers} layer{'s' if layers > 1 else ''}"
    return {
        cell_type.name: cell_type
        for cell_type in (
            CellType("gru_cell", "nn.GRUCell", partial(nn.GRUCell, *sizes), *cell, (TANH_BOUND,)),
            CellType(
                "rnn_tanh_cell",
                "nn.RNNCell tanh",
                partial(nn.RNNCell, *sizes),
                *cell,
                (TANH_BOUND,),
            ),
            CellType(
                "rnn_relu_cell",
                "nn.RNNCell relu",
                partial(nn.RNNCell, *sizes, nonlinearity="relu"),
                *cell,
                (None,),
            ),
            CellType(
                "lstm_cell", "nn.LSTMCell", partial(nn.LSTMCell, *sizes), *cell, (TANH_BOUND, None)
            ),
            # One step of nn.LSTM batch first and of nn.GRU time first.
            CellType(
                "lstm_step",
                f"nn.LSTM step, {stacked}, batch first",
                partial(nn.LSTM, *sizes, num_layers=layers, batch_first=True),
                *step,
                (TANH_BOUND, None),
            ),
            CellType(
                "gru_step",
                f"nn.GRU step, {stacked}",
                partial(nn.GRU, *sizes, num_layers=layers),
                *step,
                (TANH_BOUND,),
            ),
        )
    }


def round_weights_to_int8_grid(module: nn.Module) -> None:
    """Rounds every weight matrix as the a16w8 config quantizes it: symmetric int8
    (-127..127), one scale per output channel."""
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            if name.rpartition(".")[2].startswith("weight"):
                scale = parameter.abs().amax(dim=1, keepdim=True) / 127
                parameter.copy_(torch.round(parameter / scale.clamp_min(1e-12)) * scale)


def stimulus(cell: CellType, frames: int = STEPPED_FRAMES, seed: int = 1) -> torch.Tensor:
    """``frames`` int16 inputs, uniform over [-1, 1] (independent frames: the state is what
    carries the past)."""
    generator = torch.Generator().manual_seed(seed)
    values = torch.rand(frames, *cell.input_shape, generator=generator) * 2 - 1
    return torch.round(values / INPUT_SCALE).to(torch.int16)


@torch.no_grad()
def run_float(
    step: RecurrentStep, cell: CellType, inputs: torch.Tensor
) -> tuple[torch.Tensor, ...]:
    """The float module stepped over ``inputs`` (int16, read with ``INPUT_SCALE``) from a
    zero state carried in float: the outputs, then each state tensor, stacked over frames."""
    state = tuple(torch.zeros(cell.state_shape) for _ in cell.state_bounds)
    outputs, states = [], []
    for frame in inputs:
        output, *state = step(frame.float() * INPUT_SCALE, *state)
        outputs.append(output)
        states.append(state)
    return torch.stack(outputs), *(torch.stack(s) for s in zip(*states, strict=True))


def state_scales(step: RecurrentStep, cell: CellType, inputs: torch.Tensor) -> tuple[float, ...]:
    """Each state tensor's int16 scale: its bound, or the float module's largest |value|
    over ``inputs``."""
    _, *states = run_float(step, cell, inputs)
    bounds = (
        bound if bound is not None else float(values.abs().max())
        for bound, values in zip(cell.state_bounds, states, strict=True)
    )
    return tuple(bound / _INT16.max for bound in bounds)


class Int16StateModel(nn.Module):
    """``step`` with an int16 input and its state in the int16 buffer ``state`` (one row
    per state tensor, each with its own scale): ``forward(x) -> output``."""

    def __init__(self, step: RecurrentStep, cell: CellType, scales: tuple[float, ...]) -> None:
        super().__init__()
        self.step = step
        self.scales = scales
        self.register_buffer(
            STATE_BUFFER, torch.zeros(len(scales), *cell.state_shape, dtype=torch.int16)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        state = (
            _dequantize(self.state[row], scale, *_INT16_QPARAMS)
            for row, scale in enumerate(self.scales)
        )
        output, *new_state = self.step(_dequantize(x, INPUT_SCALE, *_INT16_QPARAMS), *state)
        self.state.copy_(
            torch.stack(
                [
                    _quantize(value, scale, *_INT16_QPARAMS)
                    for value, scale in zip(new_state, self.scales, strict=True)
                ]
            )
        )
        return output


def int16_state_model(cell: CellType, inputs: torch.Tensor) -> Int16StateModel:
    """The seeded module of ``cell`` with its state scales taken on ``inputs``."""
    step = cell.float_step()
    return Int16StateModel(step, cell, state_scales(step, cell, inputs)).eval()


def float_weight_rounding_error(cell: CellType, inputs: torch.Tensor) -> float:
    """Mean |output| difference, over ``inputs``, between the seeded float module before
    and after its weights are put on the int8 grid: what 8-bit weights would cost a model
    trained without quantization (float arithmetic, no lowering)."""
    rounded, unrounded = (
        run_float(cell.float_step(grid), cell, inputs)[0] for grid in (True, False)
    )
    return float((rounded - unrounded).abs().mean())


WINDOW_FRAMES = 100


@dataclass(frozen=True)
class SteppedError:
    """|program - float| over a stepped sequence, in the output's quantization steps."""

    max_steps: float
    mean_steps: float
    window_mean_steps: tuple[float, ...]  # per WINDOW_FRAMES frames
    trend_steps: float  # the least-squares line's rise over the sequence

    @classmethod
    def of(cls, outputs: torch.Tensor, reference: torch.Tensor, step: float) -> SteppedError:
        """``outputs`` and ``reference``: (frames, ...); ``step``: the output's scale."""
        per_frame = (outputs - reference).abs().flatten(1).double() / step
        frame_means = per_frame.mean(dim=1)
        frames = torch.arange(len(frame_means), dtype=torch.float64)
        centred = frames - frames.mean()
        slope = (centred * (frame_means - frame_means.mean())).sum() / (centred**2).sum()
        return cls(
            max_steps=float(per_frame.max()),
            mean_steps=float(per_frame.mean()),
            window_mean_steps=tuple(float(w.mean()) for w in frame_means.split(WINDOW_FRAMES)),
            trend_steps=float(slope * (len(frame_means) - 1)),
        )
