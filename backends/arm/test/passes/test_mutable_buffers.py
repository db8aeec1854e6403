# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Model-owned state through the Arm annotation and lowering pipelines.

The stateful pass manager acts on the unlifted graph of the annotation pipeline, which
the release's ``PassPipeline`` (passes on the edge program) does not reach: it is tested
directly. Lowered programs with state go through the release's ``TosaPipelineINT`` and
``EthosU85PipelineINT`` with the stateful pieces in their stages. The passes have their
own files: ``test_preserve_mutable_buffers_pass.py``,
``test_fold_constants_keep_mutable_state_pass.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from executorch.backends.arm._passes import ConstantFoldingPass
from executorch.backends.arm._passes.arm_pass_manager import ArmPassManager
from executorch.backends.arm.ethosu import EthosUPartitioner
from executorch.backends.arm.quantizer import arm_quantizer, get_symmetric_quantization_config
from executorch.backends.arm.test import common
from executorch.backends.arm.test.tester.test_pipeline import (
    BasePipeline,
    EthosU85PipelineINT,
    TosaPipelineINT,
)
from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower
from torch import nn
from torch.export.graph_signature import InputKind, OutputKind
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from backends.arm._passes import (
    FoldConstantsKeepMutableStatePass,
    PreserveMutableBuffersPass,
    StatefulArmPassManager,
    use_stateful_arm_pass_manager,
)
from backends.arm._passes.pass_provenance import created_by
from backends.arm._passes.stateful_arm_pass_manager import pass_manager_sites
from backends.arm.ethosu.stateful_ethos_u_partitioner import StatefulEthosUPartitioner
from backends.arm.quantizer.stateful_ethos_u_quantizer import StatefulEthosUQuantizer
from backends.arm.test.stateful_test_utils import (
    DELEGATE,
    EDGE_DEQUANTIZE,
    EDGE_OP,
    EDGE_QUANTIZE,
    check_vela_runs_everything_on_npu,
    program_summary,
    run_stateful,
    use_stateful_pieces,
)
from backends.arm.tosa.stateful_tosa_partitioner import mutable_buffer_placeholders
from examples.arm.silero_vad.model_export.lowering import make_compile_spec

_dq = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_q = torch.ops.quantized_decomposed.quantize_per_tensor.default
WIDTH = 8
input_t = tuple[torch.Tensor]  # x, (1, WIDTH)


class TwoBufferState(nn.Module):
    """h and c in two float buffers, both zeros at start, written in a chosen order."""

    def __init__(self, c_first: bool) -> None:
        super().__init__()
        self.c_first = c_first
        self.mix = nn.Linear(WIDTH, 2 * WIDTH)
        self.register_buffer("h", torch.zeros(1, WIDTH))
        self.register_buffer("c", torch.zeros(1, WIDTH))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gates = self.mix(x + self.h)
        c_next = torch.tanh(gates[:, :WIDTH]) + 0.5 * self.c
        h_next = torch.sigmoid(gates[:, WIDTH:]) * torch.tanh(c_next)
        if self.c_first:
            self.c.copy_(c_next)
            self.h.copy_(h_next)
        else:
            self.h.copy_(h_next)
            self.c.copy_(c_next)
        return h_next.mean(dim=-1, keepdim=True)


class Int8State(nn.Module):
    """One int8 state buffer read with dequantize and written with quantize (fixed qparams)."""

    SCALE = 1.0 / 127

    def __init__(self) -> None:
        super().__init__()
        self.mix = nn.Linear(2 * WIDTH, WIDTH)
        self.register_buffer("state", torch.zeros(1, WIDTH, dtype=torch.int8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        state = _dq(self.state, self.SCALE, 0, -128, 127, torch.int8)
        new_state = torch.tanh(self.mix(torch.cat([x, state], dim=-1)))
        self.state.copy_(_q(new_state, self.SCALE, 0, -128, 127, torch.int8))
        return torch.sigmoid(new_state.sum(dim=-1, keepdim=True))


def _frames(count: int = 6) -> list[tuple[torch.Tensor]]:
    torch.manual_seed(3)
    return [(torch.randn(1, WIDTH),) for _ in range(count)]


def _graph_module(model: nn.Module) -> torch.fx.GraphModule:
    return torch.export.export(model.eval(), _frames(1)[0]).module(check_guards=False)


def _written_buffers(graph_module: torch.fx.GraphModule) -> list[str]:
    return [
        str(node.args[0].target)
        for node in graph_module.graph.find_nodes(
            op="call_function", target=torch.ops.aten.copy_.default
        )
    ]


def _prepare(model: nn.Module, tmp_path) -> torch.fx.GraphModule:
    spec = make_compile_spec("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", tmp_path)
    quantizer = StatefulEthosUQuantizer(spec).set_global(get_symmetric_quantization_config())
    return prepare_pt2e(_graph_module(model), quantizer)


def quantized_int8_state(tmp_path) -> torch.fx.GraphModule:
    """Int8State prepared with the stateful quantizer, calibrated on ``_frames()``, converted."""
    prepared = _prepare(Int8State(), tmp_path)
    with torch.no_grad():
        for frame in _frames():
            prepared(*frame)
    return convert_pt2e(prepared)


def _buffer_reader(graph_module: torch.fx.GraphModule, name: str) -> torch.fx.Node:
    (reader,) = graph_module.graph.find_nodes(op="get_attr", target=name)
    return reader


write_orders = {"h_then_c": False, "c_then_h": True}


@common.parametrize("c_first", write_orders)
def test_identical_buffers_stay_distinct_through_annotation_tosa(c_first: bool, tmp_path) -> None:
    prepared = _prepare(TwoBufferState(c_first), tmp_path)
    assert sorted(_written_buffers(prepared)) == ["c", "h"]
    h, c = prepared.get_buffer("h"), prepared.get_buffer("c")
    assert h.untyped_storage().data_ptr() != c.untyped_storage().data_ptr()
    with torch.no_grad():
        for frame in _frames():
            prepared(*frame)
    assert h.abs().sum() > 0 and c.abs().sum() > 0 and not torch.equal(h, c)


def _state_program_checks(pipeline: BasePipeline, buffers: int, float_state: bool) -> None:
    """The states stay ExecuTorch buffers, each written once per call outside the
    delegate. The CPU quantizes the input and dequantizes the output; a float state
    crosses the delegate's boundary the same way (quantized when read, dequantized when
    written back), an integer state as it is."""
    crossings = 1 + (buffers if float_state else 0)
    pipeline.change_args(
        "check_count.exir",
        {
            DELEGATE: 1,
            EDGE_OP: 2 * crossings,
            EDGE_QUANTIZE: crossings,
            EDGE_DEQUANTIZE: crossings,
        },
    )
    pipeline.count_program_io_kinds(
        {InputKind.USER_INPUT: 1, InputKind.BUFFER: buffers},
        {OutputKind.USER_OUTPUT: 1, OutputKind.BUFFER_MUTATION: buffers},
    )


@common.parametrize("c_first", write_orders)
def test_both_state_writes_survive_tosa_INT(c_first: bool) -> None:
    """Two zero-initialized buffers written in either order: the program keeps both, and
    on the TOSA reference model follows the quantized model frame after frame (a lost or
    swapped write would show from the second frame on)."""
    frames = _frames()
    pipeline = TosaPipelineINT[input_t](TwoBufferState(c_first).eval(), frames[0], [], [])
    use_stateful_pieces(pipeline, get_symmetric_quantization_config(), frames, ["h", "c"])
    _state_program_checks(pipeline, buffers=2, float_state=True)
    for index, frame in enumerate(frames[1:4], start=1):
        pipeline.add_stage(
            pipeline.tester.run_method_and_compare_outputs,
            inputs=frame,
            qtol=1,
            suffix=f"frame_{index}",
        )
    run_stateful(pipeline)


@common.parametrize("c_first", write_orders)
def test_both_state_writes_survive_u85_INT(c_first: bool, tmp_path: Path) -> None:
    frames = _frames()
    pipeline = EthosU85PipelineINT[input_t](
        TwoBufferState(c_first).eval(), frames[0], [], run_on_fvp=False, custom_path=str(tmp_path)
    )
    use_stateful_pieces(pipeline, get_symmetric_quantization_config(), frames, ["h", "c"])
    _state_program_checks(pipeline, buffers=2, float_state=True)
    check_vela_runs_everything_on_npu(pipeline, tmp_path)

    def two_state_writes() -> None:
        summary = program_summary(pipeline)
        assert len(summary.mutable_buffers) == 2
        assert summary.operator_calls["aten::copy_"] == 2

    pipeline.add_stage_after("to_executorch", two_state_writes)
    run_stateful(pipeline)


def test_quantized_state_stays_int8_end_to_end_u85_INT(tmp_path: Path) -> None:
    frames = _frames()
    pipeline = EthosU85PipelineINT[input_t](
        Int8State().eval(), frames[0], [], run_on_fvp=False, custom_path=str(tmp_path)
    )
    use_stateful_pieces(pipeline, get_symmetric_quantization_config(), frames, ["state"])
    # The state's own dequantize and quantize run inside the delegate.
    _state_program_checks(pipeline, buffers=1, float_state=False)
    check_vela_runs_everything_on_npu(pipeline, tmp_path)

    def int8_state_starting_at_zero() -> None:
        summary = program_summary(pipeline)
        (state,) = summary.mutable_buffers
        assert state.shape == (1, WIDTH) and state.initial_value is not None
        assert state.initial_value.dtype == "int8" and not state.initial_value.any()
        assert summary.operator_calls == {
            "aten::copy_": 1,
            "quantized_decomposed::dequantize_per_tensor.out": 1,
            "quantized_decomposed::quantize_per_tensor.out": 1,
        }

    pipeline.add_stage_after("to_executorch", int8_state_starting_at_zero)
    run_stateful(pipeline)


class NestedState(nn.Module):
    """TwoBufferState one module down, so its buffers are ``cell.h`` and ``cell.c``."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = TwoBufferState(False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.cell(x)


def test_nested_state_keeps_its_module_path_tosa(tmp_path) -> None:
    # A retracing pass flattens the module tree, so the guard must rebuild `cell` to put
    # the buffers back (found by executorch 1.5.1's own test_mutable_buffers.py, run
    # under the guard by run_upstream_arm_tests.sh).
    prepared = _prepare(NestedState(), tmp_path)
    assert sorted(_written_buffers(prepared)) == ["cell.c", "cell.h"]
    h, c = prepared.get_buffer("cell.h"), prepared.get_buffer("cell.c")
    with torch.no_grad():
        for frame in _frames():
            prepared(*frame)
    assert h.abs().sum() > 0 and c.abs().sum() > 0 and not torch.equal(h, c)


def test_stateful_pass_manager_is_active_and_restored_tosa(tmp_path, monkeypatch) -> None:
    sites = pass_manager_sites()
    assert arm_quantizer in sites and len(sites) >= 2  # quantizer and backend, at least
    with use_stateful_arm_pass_manager():
        assert all(site.ArmPassManager is StatefulArmPassManager for site in sites)
        with use_stateful_arm_pass_manager():  # nested: nothing left to patch
            assert all(site.ArmPassManager is StatefulArmPassManager for site in sites)
        assert all(site.ArmPassManager is StatefulArmPassManager for site in sites)
    assert all(site.ArmPassManager is ArmPassManager for site in sites)

    with pytest.raises(ValueError, match="inside"):
        with use_stateful_arm_pass_manager():
            raise ValueError("inside")
    assert all(site.ArmPassManager is ArmPassManager for site in sites)

    managers: list[StatefulArmPassManager] = []
    original_pipeline = StatefulArmPassManager.transform_for_annotation_pipeline

    def spy(self, graph_module):
        managers.append(self)
        return original_pipeline(self, graph_module)

    monkeypatch.setattr(StatefulArmPassManager, "transform_for_annotation_pipeline", spy)
    prepared = _prepare(TwoBufferState(False), tmp_path)
    (manager,) = managers
    assert len(manager.passes) > 20  # the whole annotation pipeline, each pass guarded
    assert all(isinstance(p, PreserveMutableBuffersPass) for p in manager.passes)
    wrapped = [type(p.wrapped) for p in manager.passes]
    assert FoldConstantsKeepMutableStatePass in wrapped and ConstantFoldingPass not in wrapped
    for name in ("h", "c"):
        assert created_by(_buffer_reader(prepared, name)) == "PreserveMutableBuffersPass"
    assert arm_quantizer.ArmPassManager is ArmPassManager


class StateIntoDelegatePartitioner(EthosUPartitioner):
    """What 1.4.1's partitioner does to a state read through dequantize: copies it in."""

    def partition(self, exported_program):
        result = super().partition(exported_program)
        (tag,) = set(result.partition_tags)
        for placeholder in mutable_buffer_placeholders(result.tagged_exported_program):
            placeholder.meta["delegation_tag"] = tag
        return result


def test_lowering_guard_reports_a_frozen_state_u85(tmp_path) -> None:
    spec = make_compile_spec("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", tmp_path)
    quantized = quantized_int8_state(tmp_path)

    def edge_program():
        exported = torch.export.export(quantized, _frames(1)[0])
        return to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))

    # Whatever the release's partitioner does (1.4.1 tags the state, 1.5.1 does not),
    # ours leaves it to ExecuTorch.
    ours = StatefulEthosUPartitioner(spec).partition(edge_program().exported_program())
    (state,) = mutable_buffer_placeholders(ours.tagged_exported_program)
    assert "delegation_tag" not in state.meta

    exported = torch.export.export(quantized, _frames(1)[0])
    with use_stateful_arm_pass_manager(), pytest.raises(Exception) as failure:
        to_edge_transform_and_lower(
            exported,
            partitioner=[StateIntoDelegatePartitioner(spec)],
            compile_config=EdgeCompileConfig(_check_ir_validity=False),
        )
    assert "froze or removed mutable buffer 'state'" in "".join(
        str(e) for e in _exception_chain(failure.value)
    )


def _exception_chain(error: BaseException) -> list[BaseException]:
    chain = []
    while error is not None:
        chain.append(error)
        error = error.__cause__ or error.__context__
    return chain
