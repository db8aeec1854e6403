# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""PreserveMutableBuffersPass: a pass that retraces the graph keeps the model's buffers.

The pass guards one other pass on the unlifted graph of the annotation pipeline, which
the release's ``PassPipeline`` (passes on the edge program) does not reach, so it is
tested directly, around the release's own ``DecomposeMeanDimPass`` (a retracing pass).
The pipelines that run every pass under it are tested in ``test_mutable_buffers.py``.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest
from executorch.backends.arm._passes import DecomposeLayerNormPass, DecomposeMeanDimPass
from executorch.backends.arm._passes import arm_pass as release_arm_pass
from executorch.backends.arm._passes.arm_pass import ArmPass

from backends.arm._passes import PreserveMutableBuffersPass
from backends.arm._passes.pass_provenance import created_by
from backends.arm._passes.upstream_capabilities import (
    arm_pass_restores_mutable_buffers,
    release_buffer_restore_disabled,
)
from backends.arm.test.passes.test_mutable_buffers import (
    TwoBufferState,
    _buffer_reader,
    _graph_module,
    _written_buffers,
)


def test_preserve_mutable_buffers_stands_for_the_wrapped_pass_tosa() -> None:
    """An ArmPass whose name, ordering constraints and annotation flag are the wrapped
    pass's, so a pipeline of guarded passes reads as the pipeline of the passes."""
    wrapped = DecomposeLayerNormPass(tfa_pass=True)
    guarded = PreserveMutableBuffersPass(wrapped)
    assert isinstance(guarded, ArmPass)
    assert guarded.__name__ == "DecomposeLayerNormPass"
    assert ArmPass.get_required_passes(guarded) == ArmPass.get_required_passes(wrapped) != []
    assert guarded.is_tfa_pass
    assert not PreserveMutableBuffersPass(DecomposeLayerNormPass()).is_tfa_pass


def test_retracing_pass_renames_state_unless_preserved_tosa() -> None:
    module = _graph_module(TwoBufferState(False))
    with release_buffer_restore_disabled():  # 1.5.1's ArmPass would repair it itself
        renamed = DecomposeMeanDimPass(module, None, tfa_pass=True)(module).graph_module
    assert set(_written_buffers(renamed)).isdisjoint({"h", "c"})  # why the guard exists

    module = _graph_module(TwoBufferState(False))
    h_tensor, c_tensor = module.h, module.c
    guarded = PreserveMutableBuffersPass(DecomposeMeanDimPass(module, None, tfa_pass=True))
    kept = guarded(module).graph_module
    assert _written_buffers(kept) == ["h", "c"]
    for name, tensor in (("h", h_tensor), ("c", c_tensor)):
        storage = kept.get_buffer(name).untyped_storage()
        assert storage.data_ptr() == tensor.untyped_storage().data_ptr()
        # Ours repaired it, on every release: the release's restore was off in the guard.
        assert created_by(_buffer_reader(kept, name)) == "PreserveMutableBuffersPass"


def test_release_restore_detection_matches_a_bare_pass_tosa() -> None:
    """A bare release pass keeps the buffer names exactly when the detection says the
    release restores them itself (1.5.1), and renames them otherwise (1.4.1)."""
    module = _graph_module(TwoBufferState(False))
    bare = DecomposeMeanDimPass(module, None, tfa_pass=True)(module).graph_module
    names_kept = _written_buffers(bare) == ["h", "c"]
    assert names_kept == arm_pass_restores_mutable_buffers()


@pytest.mark.skipif(
    not arm_pass_restores_mutable_buffers(),
    reason=f"executorch {version('executorch')}: ArmPass does not restore mutable buffers "
    "itself, so there is no release restore to switch off",
)
def test_release_restore_runs_only_outside_the_guard_tosa(monkeypatch) -> None:
    """Where the release restores buffers in ArmPass (1.5.1), it does so for bare passes
    only: inside PreserveMutableBuffersPass it gets nothing to restore, so the work is
    done once (the guard, an ArmPass itself, does not go through ArmPass.__call__)."""
    handed_to_release: list[dict] = []
    original = release_arm_pass.restore_mutable_buffer_targets

    def spy(graph_module, buffers):
        handed_to_release.append(dict(buffers))
        return original(graph_module, buffers)

    monkeypatch.setattr(release_arm_pass, "restore_mutable_buffer_targets", spy)
    module = _graph_module(TwoBufferState(False))
    PreserveMutableBuffersPass(DecomposeMeanDimPass(module, None, tfa_pass=True))(module)
    assert handed_to_release == [{}]
    DecomposeMeanDimPass(module, None, tfa_pass=True)(module)
    assert sorted(handed_to_release[-1]) == ["c", "h"]
