# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Model-owned state through the Arm annotation and lowering pipelines."""

from __future__ import annotations

import executorch.backends.arm._passes as upstream_passes
import pytest
import torch
from executorch.backends.arm._passes import ConstantFoldingPass, DecomposeMeanDimPass
from executorch.backends.arm.ethosu import EthosUPartitioner
from executorch.backends.arm.quantizer import arm_quantizer, get_symmetric_quantization_config
from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from backends.arm._passes import (
    FoldConstantsKeepMutableStatePass,
    PreserveMutableBuffersPass,
    StatefulArmPassManager,
    use_stateful_arm_pass_manager,
)
from backends.arm.ethosu.stateful_ethos_u_partitioner import (
    StatefulEthosUPartitioner,
    mutable_buffer_placeholders,
)
from backends.arm.quantizer.stateful_ethos_u_quantizer import StatefulEthosUQuantizer
from backends.arm.test.stateful_test_utils import lower_to_u85, ops_outside_delegate
from examples.arm.silero_vad.model_export.lowering import make_compile_spec
from examples.arm.silero_vad.model_export.program_inspection import inspect_program

_dq = torch.ops.quantized_decomposed.dequantize_per_tensor.default
_q = torch.ops.quantized_decomposed.quantize_per_tensor.default
WIDTH = 8


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


def test_retracing_pass_renames_state_unless_preserved_tosa() -> None:
    bare = DecomposeMeanDimPass(_graph_module(TwoBufferState(False)), None, tfa_pass=True)
    renamed = bare(_graph_module(TwoBufferState(False))).graph_module
    assert set(_written_buffers(renamed)).isdisjoint({"h", "c"})  # why the guard exists

    module = _graph_module(TwoBufferState(False))
    h_tensor, c_tensor = module.h, module.c
    guarded = PreserveMutableBuffersPass(DecomposeMeanDimPass(module, None, tfa_pass=True))
    kept = guarded(module).graph_module
    assert _written_buffers(kept) == ["h", "c"]
    for name, tensor in (("h", h_tensor), ("c", c_tensor)):
        storage = kept.get_buffer(name).untyped_storage()
        assert storage.data_ptr() == tensor.untyped_storage().data_ptr()


@pytest.mark.parametrize("c_first", [False, True], ids=["h_then_c", "c_then_h"])
def test_identical_buffers_stay_distinct_and_both_writes_survive_tosa(c_first, tmp_path) -> None:
    prepared = _prepare(TwoBufferState(c_first), tmp_path)
    assert sorted(_written_buffers(prepared)) == ["c", "h"]
    h, c = prepared.get_buffer("h"), prepared.get_buffer("c")
    assert h.untyped_storage().data_ptr() != c.untyped_storage().data_ptr()
    with torch.no_grad():
        for frame in _frames():
            prepared(*frame)
    assert h.abs().sum() > 0 and c.abs().sum() > 0 and not torch.equal(h, c)

    lowered = lower_to_u85(TwoBufferState(c_first), _frames(), tmp_path / "lowered")
    summary = inspect_program(lowered.program.buffer)
    assert len(summary.mutable_buffers) == 2
    assert summary.operator_calls["aten::copy_"] == 2
    assert lowered.report.cpu_ops == 0


def test_quantized_state_stays_int8_end_to_end_u85(tmp_path) -> None:
    lowered = lower_to_u85(Int8State(), _frames(), tmp_path)
    summary = inspect_program(lowered.program.buffer)
    (state,) = summary.mutable_buffers
    assert state.shape == (1, WIDTH) and state.initial_value is not None
    assert state.initial_value.dtype == "int8" and not state.initial_value.any()
    # The CPU only quantizes the input, dequantizes the output and writes the int8 state:
    # the state's own dequantize and quantize run inside the delegate.
    assert ops_outside_delegate(lowered) == {
        "aten::copy_": 1,
        "quantized_decomposed::dequantize_per_tensor.out": 1,
        "quantized_decomposed::quantize_per_tensor.out": 1,
    }
    assert lowered.report.cpu_ops == 0


class FoldableStateRead(nn.Module):
    """Reads its state through ops a constant folder could evaluate ahead of time."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.zeros(1, WIDTH))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        decayed = self.state * 0.5 + 1.0
        self.state.copy_(decayed + x)
        return decayed


def _state_reads(graph_module: torch.fx.GraphModule) -> int:
    return sum(
        1
        for node in graph_module.graph.find_nodes(op="get_attr", target="state")
        for user in node.users
        if user.target is not torch.ops.aten.copy_.default
    )


def test_constant_folding_never_freezes_state_read_tosa() -> None:
    upstream = ConstantFoldingPass()(_graph_module(FoldableStateRead())).graph_module
    assert _state_reads(upstream) == 0  # the release's folder freezes the read

    ours = FoldConstantsKeepMutableStatePass()(_graph_module(FoldableStateRead())).graph_module
    assert _state_reads(ours) == 1
    x = torch.ones(1, WIDTH)
    first, second = ours(x), ours(x)
    torch.testing.assert_close(first, torch.ones(1, WIDTH))
    torch.testing.assert_close(second, torch.full((1, WIDTH), 2.0))


def test_stateful_pass_manager_is_active_and_restored_tosa(tmp_path, monkeypatch) -> None:
    original_quantizer_site = arm_quantizer.ArmPassManager
    original_backend_site = upstream_passes.ArmPassManager
    with use_stateful_arm_pass_manager():
        assert arm_quantizer.ArmPassManager is StatefulArmPassManager
        assert upstream_passes.ArmPassManager is StatefulArmPassManager
    assert arm_quantizer.ArmPassManager is original_quantizer_site
    assert upstream_passes.ArmPassManager is original_backend_site

    with pytest.raises(ValueError, match="inside"):
        with use_stateful_arm_pass_manager():
            raise ValueError("inside")
    assert arm_quantizer.ArmPassManager is original_quantizer_site

    guarded_runs = []
    original_guard = StatefulArmPassManager._guarded_passes

    def spy(self):
        passes = original_guard(self)
        guarded_runs.append(len(passes))
        return passes

    monkeypatch.setattr(StatefulArmPassManager, "_guarded_passes", spy)
    _prepare(TwoBufferState(False), tmp_path)
    assert guarded_runs and guarded_runs[0] > 20  # the whole annotation pipeline
    assert arm_quantizer.ArmPassManager is original_quantizer_site


def test_lowering_guard_reports_a_frozen_state_u85(tmp_path) -> None:
    spec = make_compile_spec("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", tmp_path)
    quantizer = StatefulEthosUQuantizer(spec).set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(_graph_module(Int8State()), quantizer)
    with torch.no_grad():
        for frame in _frames():
            prepared(*frame)
    quantized = convert_pt2e(prepared)

    def edge_program():
        exported = torch.export.export(quantized, _frames(1)[0])
        return to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))

    # The release's partitioner copies the state into the delegate as constant data.
    upstream_tags = EthosUPartitioner(spec).partition(edge_program().exported_program())
    (state,) = mutable_buffer_placeholders(upstream_tags.tagged_exported_program)
    assert "delegation_tag" in state.meta
    ours = StatefulEthosUPartitioner(spec).partition(edge_program().exported_program())
    (state,) = mutable_buffer_placeholders(ours.tagged_exported_program)
    assert "delegation_tag" not in state.meta

    exported = torch.export.export(quantized, _frames(1)[0])
    with use_stateful_arm_pass_manager(), pytest.raises(Exception) as failure:
        to_edge_transform_and_lower(
            exported,
            partitioner=[EthosUPartitioner(spec)],
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
