# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

import contextlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any, ClassVar

import executorch.backends.arm._passes as arm_passes
import torch
from executorch.backends.arm._passes.arm_pass_manager import ArmPassManager
from executorch.backends.arm._passes.constant_folding_pass import ConstantFoldingPass
from executorch.backends.arm.quantizer import arm_quantizer
from executorch.backends.arm.tosa import partitioner as tosa_partitioner
from executorch.exir import ExportedProgram

from backends.arm._passes.fold_constants_keep_mutable_state_pass import (
    FoldConstantsKeepMutableStatePass,
)
from backends.arm._passes.preserve_mutable_buffers_pass import PreserveMutableBuffersPass


class StatefulArmPassManager(ArmPassManager):
    """The release's ArmPassManager with every pass inside ``PreserveMutableBuffersPass``
    and ``ConstantFoldingPass`` replaced by ``FoldConstantsKeepMutableStatePass``.

    The lowering pipeline is guarded in ``_transform``, after upstream validated the order
    of the bare passes; the annotation pipeline (run from ``_transform_graph_module`` on
    1.4.1, directly on 1.5.1) is guarded pass by pass as it is built.
    """

    _guard_added_passes = False

    wrapped_passes: ClassVar[int] = 0
    """Passes wrapped so far in this process: lets ``test/pytest_stateful_guard.py`` prove
    the guard was in the way."""

    @staticmethod
    def _guarded(arm_pass: Any) -> PreserveMutableBuffersPass:
        if isinstance(arm_pass, PreserveMutableBuffersPass):
            return arm_pass
        if type(arm_pass) is ConstantFoldingPass:
            arm_pass = FoldConstantsKeepMutableStatePass()
        StatefulArmPassManager.wrapped_passes += 1
        return PreserveMutableBuffersPass(arm_pass)

    def add_pass(self, pipeline_pass: Any) -> None:
        count = len(self.passes)
        super().add_pass(pipeline_pass)  # upstream may skip it (pipeline config)
        if self._guard_added_passes and len(self.passes) > count:
            self.passes[-1] = self._guarded(self.passes[-1])

    def transform_for_annotation_pipeline(self, graph_module: torch.fx.GraphModule):
        self._guard_added_passes = True
        try:
            return super().transform_for_annotation_pipeline(graph_module)
        finally:
            self._guard_added_passes = False

    def _transform_graph_module(self, graph_module: torch.fx.GraphModule):
        # Bare GraphModules: control-flow submodules (and 1.4.1's annotation pipeline).
        self.passes = [self._guarded(p) for p in self.passes]
        return super()._transform_graph_module(graph_module)

    def _transform(
        self, exported_program: ExportedProgram, graph_module: torch.fx.GraphModule
    ) -> torch.fx.GraphModule:
        self.passes = [self._guarded(p) for p in self.passes]
        return super()._transform(exported_program, graph_module)


# Modules that look ArmPassManager up by name when they build a pipeline (the TOSA
# partitioner only from 1.5.1); one that does not hold the release's class is no site.
_CANDIDATE_SITES: tuple[ModuleType, ...] = (arm_quantizer, arm_passes, tosa_partitioner)


def pass_manager_sites() -> list[ModuleType]:
    """The modules ``use_stateful_arm_pass_manager`` patches on the installed release."""
    return [m for m in _CANDIDATE_SITES if getattr(m, "ArmPassManager", None) is ArmPassManager]


@contextlib.contextmanager
def use_stateful_arm_pass_manager() -> Iterator[None]:
    """Makes the Arm backend build its pass pipelines with ``StatefulArmPassManager``.

    No release hook can wrap every pass, so this swaps the name in the modules that
    construct it for the block (a nested block finds no site and changes nothing).
    """
    sites = pass_manager_sites()
    for site in sites:
        site.ArmPassManager = StatefulArmPassManager
    try:
        yield
    finally:
        for site in sites:
            site.ArmPassManager = ArmPassManager
