# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import contextlib
from collections.abc import Iterator

import executorch.backends.arm._passes as arm_passes
import torch
from executorch.backends.arm._passes.arm_pass_manager import ArmPassManager
from executorch.backends.arm._passes.constant_folding_pass import ConstantFoldingPass
from executorch.backends.arm.quantizer import arm_quantizer
from executorch.exir import ExportedProgram

from backends.arm._passes.fold_constants_keep_mutable_state_pass import (
    FoldConstantsKeepMutableStatePass,
)
from backends.arm._passes.preserve_mutable_buffers_pass import PreserveMutableBuffersPass


class StatefulArmPassManager(ArmPassManager):
    """The release's ArmPassManager, made safe for models that own mutable state.

    It builds exactly the upstream pipelines; just before they run, it swaps the
    annotation pipeline's ``ConstantFoldingPass`` for
    ``FoldConstantsKeepMutableStatePass`` and wraps every pass in
    ``PreserveMutableBuffersPass``, so buffer names and storage survive each transform.
    """

    def _guarded_passes(self) -> list:
        guarded = []
        for arm_pass in self.passes:
            if isinstance(arm_pass, PreserveMutableBuffersPass):
                guarded.append(arm_pass)
                continue
            if type(arm_pass) is ConstantFoldingPass:
                arm_pass = FoldConstantsKeepMutableStatePass()
            guarded.append(PreserveMutableBuffersPass(arm_pass))
        return guarded

    def _transform_graph_module(self, graph_module: torch.fx.GraphModule):
        # Annotation pipeline (and control-flow submodules): bare GraphModules.
        self.passes = self._guarded_passes()
        return super()._transform_graph_module(graph_module)

    def _transform(
        self, exported_program: ExportedProgram, graph_module: torch.fx.GraphModule
    ) -> torch.fx.GraphModule:
        # Lowering pipeline, after upstream validated the pass order on the bare passes.
        self.passes = self._guarded_passes()
        return super()._transform(exported_program, graph_module)


# Where the release looks ArmPassManager up by name: the quantizer module (annotation
# pipeline, imported at module load) and the _passes package (the TOSA backend imports
# it from there when it lowers).
_PASS_MANAGER_SITES = (arm_quantizer, arm_passes)


@contextlib.contextmanager
def use_stateful_arm_pass_manager() -> Iterator[None]:
    """Makes the Arm backend build its pass pipelines with ``StatefulArmPassManager``.

    The release offers no hook that wraps every pass (pass insertions add passes, they
    cannot replace or surround them), so this swaps the ``ArmPassManager`` name in the
    two modules that construct it, for the duration of the block, and always restores it.
    """
    originals = [site.ArmPassManager for site in _PASS_MANAGER_SITES]
    for site in _PASS_MANAGER_SITES:
        site.ArmPassManager = StatefulArmPassManager
    try:
        yield
    finally:
        for site, original in zip(_PASS_MANAGER_SITES, originals, strict=True):
            site.ArmPassManager = original
