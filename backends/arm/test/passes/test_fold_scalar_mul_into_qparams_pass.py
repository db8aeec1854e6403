# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""FoldScalarMulIntoQParamsPass: the same quantized function with fewer operators."""

from __future__ import annotations

import pytest
import torch
from executorch.backends.arm.quantizer import get_symmetric_a16w8_quantization_config
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from backends.arm._passes.fold_scalar_mul_into_qparams_pass import FoldScalarMulIntoQParamsPass
from backends.arm.quantizer.stateful_ethos_u_quantizer import StatefulEthosUQuantizer
from examples.arm.silero_vad.model_export.lowering import make_compile_spec
from examples.arm.silero_vad.model_export.targets import DEFAULT_NPU_TARGET

_MUL = torch.ops.aten.mul.Tensor
_DEQUANTIZE = torch.ops.quantized_decomposed.dequantize_per_tensor.default


class WeightedSum(nn.Module):
    """a * c_a + b * c_b."""

    def __init__(self, c_a: float, c_b: float) -> None:
        super().__init__()
        self.c_a, self.c_b = c_a, c_b

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a * self.c_a + b * self.c_b


class TwoProjections(nn.Module):
    """max(a c0 + b s0, a c1 + b s1): folding all four factors would give two add(a, b)."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.maximum(a * 0.98 + b * 0.2, a * 0.83 + b * 0.56)


def _converted(model: nn.Module) -> tuple[torch.fx.GraphModule, tuple[torch.Tensor, ...]]:
    """``model`` quantized a16w8 (q/dq around every op), calibrated on random inputs."""
    torch.manual_seed(0)
    calibration = [(torch.randn(4, 16), torch.randn(4, 16)) for _ in range(8)]
    graph_module = torch.export.export(model.eval(), calibration[0]).module(check_guards=False)
    spec = make_compile_spec(DEFAULT_NPU_TARGET, "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", None)
    quantizer = StatefulEthosUQuantizer(spec).set_global(get_symmetric_a16w8_quantization_config())
    prepared = prepare_pt2e(graph_module, quantizer)
    for inputs in calibration:
        prepared(*inputs)
    return convert_pt2e(prepared), calibration[0]


def _muls(graph_module: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return list(graph_module.graph.find_nodes(op="call_function", target=_MUL))


def _output_step(graph_module: torch.fx.GraphModule) -> float:
    """The scale of the graph output's dequantize."""
    (output,) = graph_module.graph.find_nodes(op="output")
    dequantize = output.args[0][0]
    assert dequantize.target == _DEQUANTIZE
    return dequantize.args[1]


def test_fold_scalar_mul_removes_the_products_and_keeps_the_function_tosa() -> None:
    model = WeightedSum(0.37, 2.5)
    converted, inputs = _converted(model)
    before = converted(*inputs)
    assert len(_muls(converted)) == 2

    result = FoldScalarMulIntoQParamsPass()(converted)

    assert result.modified
    assert _muls(result.graph_module) == []
    after = result.graph_module(*inputs)
    step = _output_step(result.graph_module)
    # One output step at most: the products' own rounding is gone.
    torch.testing.assert_close(after, before, atol=step * 1.01, rtol=0)
    exact = model(*inputs)
    assert (after - exact).abs().max() <= (before - exact).abs().max() + step * 0.01


def test_fold_scalar_mul_never_makes_two_ops_read_the_same_integers_tosa() -> None:
    converted, inputs = _converted(TwoProjections())
    assert len(_muls(converted)) == 4

    folded = FoldScalarMulIntoQParamsPass()(converted).graph_module

    # Three factors fold; the fourth would turn the second sum into another add(a, b).
    assert len(_muls(folded)) == 1
    adds = folded.graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor)
    integer_inputs = [
        tuple(arg.args[0] if arg.target == _DEQUANTIZE else arg for arg in add.args) for add in adds
    ]
    assert len(set(integer_inputs)) == len(adds) == 2
    torch.testing.assert_close(
        folded(*inputs), converted(*inputs), atol=_output_step(folded) * 1.01, rtol=0
    )


@pytest.mark.parametrize("factors", [(-0.5, 2.0), (0.0, 2.0)], ids=["negative", "zero"])
def test_fold_scalar_mul_leaves_non_positive_factors_tosa(factors) -> None:
    converted, _ = _converted(WeightedSum(*factors))

    FoldScalarMulIntoQParamsPass()(converted)

    assert len(_muls(converted)) == 1  # only the positive factor folded


def test_fold_scalar_mul_leaves_tensor_products_tosa() -> None:
    class Product(nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return a * b

    converted, _ = _converted(Product())

    assert not FoldScalarMulIntoQParamsPass()(converted).modified
    assert len(_muls(converted)) == 1
