# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""FoldConstantsKeepMutableStatePass: constant folding that never freezes a state read.

The pass replaces the release's ``ConstantFoldingPass`` in the annotation pipeline, on
the unlifted graph, which the release's ``PassPipeline`` (passes on the edge program)
does not reach: it is tested directly, beside the release's pass on the same graph. The
replacement inside the pipeline is tested in ``test_mutable_buffers.py``.
"""

from __future__ import annotations

import torch
from executorch.backends.arm._passes import ConstantFoldingPass
from torch import nn

from backends.arm._passes import FoldConstantsKeepMutableStatePass
from backends.arm.test.passes.test_mutable_buffers import WIDTH, _graph_module
from backends.arm.test.passes.test_upstream_capabilities import (
    constant_folding_keeps_mutable_state,
)


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
    # 1.4.1's folder freezes the read; 1.5.1's folds with torchao's folder, like ours.
    assert _state_reads(upstream) == (1 if constant_folding_keeps_mutable_state() else 0)

    ours = FoldConstantsKeepMutableStatePass()(_graph_module(FoldableStateRead())).graph_module
    assert _state_reads(ours) == 1
    x = torch.ones(1, WIDTH)
    first, second = ours(x), ours(x)
    torch.testing.assert_close(first, torch.ones(1, WIDTH))
    torch.testing.assert_close(second, torch.full((1, WIDTH), 2.0))


def test_fold_constants_keep_mutable_state_is_the_release_pass_in_its_place_tosa() -> None:
    """An ArmPass of the release's ConstantFoldingPass kind (same ordering constraints),
    so it can take that pass's place in the pipeline."""
    assert isinstance(FoldConstantsKeepMutableStatePass(), ConstantFoldingPass)
    assert (
        FoldConstantsKeepMutableStatePass._passes_required_after
        == ConstantFoldingPass._passes_required_after
    )
