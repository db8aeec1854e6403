# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""FoldScalarMulIntoQParamsPass: the same quantized function with fewer operators.

The pass runs where the example calls it, on the PT2E-converted model before it is
exported again: the release's ``PassPipeline`` runs passes on the edge program, after
that export, so here the pass runs as a stage after the quantize stage of the release's
``TosaPipelineINT`` (TOSA INT+int16), with ``check_count`` stages around it, and the
pipeline then lowers the folded model and compares it on the TOSA reference model. What
the stages cannot express (the folded model within one output step of the unfolded one,
no op reading another's integers) is asserted in stages of its own; the products the pass
must leave alone are tested on the converted model directly.
"""

from __future__ import annotations

import pytest
import torch
from executorch.backends.arm.quantizer import get_symmetric_a16w8_quantization_config
from executorch.backends.arm.test.tester.test_pipeline import TosaPipelineINT
from executorch.backends.test.harness.stages import StageType
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from backends.arm._passes.fold_scalar_mul_into_qparams_pass import FoldScalarMulIntoQParamsPass
from backends.arm.quantizer.stateful_ethos_u_quantizer import StatefulEthosUQuantizer
from backends.arm.test.stateful_test_utils import run_stateful, use_stateful_pieces
from examples.arm.silero_vad.model_export.lowering import make_compile_spec
from examples.arm.silero_vad.model_export.targets import DEFAULT_NPU_TARGET

_MUL = torch.ops.aten.mul.Tensor
_DEQUANTIZE = torch.ops.quantized_decomposed.dequantize_per_tensor.default
MUL = "torch.ops.aten.mul.Tensor"

input_t = tuple[torch.Tensor, torch.Tensor]  # a, b


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


def _calibration() -> list[input_t]:
    torch.manual_seed(0)
    return [(torch.randn(4, 16), torch.randn(4, 16)) for _ in range(8)]


def _muls(graph_module: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return list(graph_module.graph.find_nodes(op="call_function", target=_MUL))


def _output_step(graph_module: torch.fx.GraphModule) -> float:
    """The scale of the graph output's dequantize."""
    (output,) = graph_module.graph.find_nodes(op="output")
    dequantize = output.args[0][0]
    assert dequantize.target == _DEQUANTIZE
    return dequantize.args[1]


class FoldStage:
    """The pass as a pipeline stage, on the quantize stage's model (in place), keeping
    that model's output before the fold for the checks after it."""

    def __init__(self, pipeline: TosaPipelineINT, inputs: input_t) -> None:
        self.pipeline = pipeline
        self.inputs = inputs
        self.unfolded_output: torch.Tensor | None = None

    @property
    def quantized(self) -> torch.fx.GraphModule:
        return self.pipeline.tester.get_artifact(StageType.QUANTIZE)

    def fold_scalar_mul_into_qparams(self) -> None:
        self.unfolded_output = self.quantized(*self.inputs)
        assert FoldScalarMulIntoQParamsPass()(self.quantized).modified

    def add_to(self, muls_before: int, muls_after: int) -> None:
        """Adds, after quantize: mul count, the fold, mul count."""
        tester = self.pipeline.tester
        self.pipeline.add_stage_after("quantize", self.fold_scalar_mul_into_qparams)
        self.pipeline.add_stage_after(
            "quantize", tester.check_count, {MUL: muls_before}, suffix="before_fold"
        )
        self.pipeline.add_stage_after(
            "fold_scalar_mul_into_qparams",
            tester.check_count,
            {MUL: muls_after},
            suffix="after_fold",
        )


def _folding_pipeline(model: nn.Module) -> tuple[TosaPipelineINT, FoldStage]:
    """``model`` on TOSA INT+int16, quantized a16w8 by the stateful quantizer, with the
    pass as a stage after quantize (instead of the example's own fold)."""
    calibration = _calibration()
    pipeline = TosaPipelineINT[input_t](
        model.eval(), calibration[0], aten_op=[], exir_op=[], tosa_extensions=["int16"]
    )
    config = get_symmetric_a16w8_quantization_config()
    use_stateful_pieces(pipeline, config, calibration, [], fold_scalar_mul=False)
    return pipeline, FoldStage(pipeline, calibration[0])


def test_fold_scalar_mul_removes_the_products_and_keeps_the_function_tosa_INT() -> None:
    model = WeightedSum(0.37, 2.5)
    pipeline, fold = _folding_pipeline(model)
    fold.add_to(muls_before=2, muls_after=0)

    def one_rounding_less() -> None:
        after = fold.quantized(*fold.inputs)
        step = _output_step(fold.quantized)
        # One output step at most: the products' own rounding is gone.
        torch.testing.assert_close(after, fold.unfolded_output, atol=step * 1.01, rtol=0)
        exact = model(*fold.inputs)
        assert (after - exact).abs().max() <= (
            fold.unfolded_output - exact
        ).abs().max() + step * 0.01

    pipeline.add_stage_after("check_count.after_fold", one_rounding_less)
    run_stateful(pipeline)


def test_fold_scalar_mul_never_makes_two_ops_read_the_same_integers_tosa_INT() -> None:
    """Once the Arm backend folds the dequantize nodes into qparams, two ops reading the
    same integers look identical and are merged whatever their scales: the TOSA reference
    model's comparison with the folded model is what would show it."""
    pipeline, fold = _folding_pipeline(TwoProjections())
    # Three factors fold; the fourth would turn the second sum into another add(a, b).
    fold.add_to(muls_before=4, muls_after=1)

    def adds_read_different_integers() -> None:
        adds = fold.quantized.graph.find_nodes(op="call_function", target=torch.ops.aten.add.Tensor)
        integer_inputs = [
            tuple(arg.args[0] if arg.target == _DEQUANTIZE else arg for arg in add.args)
            for add in adds
        ]
        assert len(set(integer_inputs)) == len(adds) == 2
        step = _output_step(fold.quantized)
        torch.testing.assert_close(
            fold.quantized(*fold.inputs), fold.unfolded_output, atol=step * 1.01, rtol=0
        )

    pipeline.add_stage_after("check_count.after_fold", adds_read_different_integers)
    run_stateful(pipeline)


def _converted(model: nn.Module) -> torch.fx.GraphModule:
    """``model`` quantized a16w8 (q/dq around every op), calibrated on random inputs."""
    calibration = _calibration()
    graph_module = torch.export.export(model.eval(), calibration[0]).module(check_guards=False)
    spec = make_compile_spec(DEFAULT_NPU_TARGET, "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", None)
    quantizer = StatefulEthosUQuantizer(spec).set_global(get_symmetric_a16w8_quantization_config())
    prepared = prepare_pt2e(graph_module, quantizer)
    for inputs in calibration:
        prepared(*inputs)
    return convert_pt2e(prepared)


@pytest.mark.parametrize("factors", [(-0.5, 2.0), (0.0, 2.0)], ids=["negative", "zero"])
def test_fold_scalar_mul_leaves_non_positive_factors_tosa(factors) -> None:
    converted = _converted(WeightedSum(*factors))

    FoldScalarMulIntoQParamsPass()(converted)

    assert len(_muls(converted)) == 1  # only the positive factor folded


def test_fold_scalar_mul_leaves_tensor_products_tosa() -> None:
    class Product(nn.Module):
        def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
            return a * b

    converted = _converted(Product())

    assert not FoldScalarMulIntoQParamsPass()(converted).modified
    assert len(_muls(converted)) == 1


class GainFromBuffer(nn.Module):
    """a * gain + b, with gain a one-element buffer; ``written``: the model updates it."""

    def __init__(self, written: bool) -> None:
        super().__init__()
        self.written = written
        self.register_buffer("gain", torch.full((1,), 0.5))

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        result = a * self.gain + b
        if self.written:
            self.gain.copy_(self.gain * 0.5 + 0.25)
        return result


def test_fold_scalar_mul_reads_each_graph_alone_tosa() -> None:
    """One pass instance, two graphs: the gain the first model writes is state and stays a
    product, the second model's constant gain folds; the instance keeps nothing of a call."""
    fold = FoldScalarMulIntoQParamsPass()
    attributes = dict(vars(fold))

    stateful = _converted(GainFromBuffer(written=True))
    assert fold(stateful).modified  # the update's constant factor 0.5 folds
    assert len(_muls(stateful)) == 1  # a * gain, gain the state

    constant = _converted(GainFromBuffer(written=False))
    assert fold(constant).modified
    assert not _muls(constant)

    assert vars(fold) == attributes
