# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What each supported executorch release does by itself, as our detection reports it.

The passes decide from the release's code, not its version number; this pins, for the
releases we support, that the detection sees what we read in their sources. Every
release the project supports (``requirements/executorch-*.txt``) must have a row, and on
a release without one these tests fail, naming what to do: nothing passes or skips
here without having checked the installed release.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import pytest
import torch
from executorch.backends.arm._passes import constant_folding_pass
from executorch.backends.arm._passes.decompose_lstm_pass import DecomposeLstmPass
from executorch.backends.arm.ethosu import EthosUPartitioner
from executorch.exir import EdgeCompileConfig, to_edge
from torchao.quantization.pt2e.constant_fold import constant_fold

from backends.arm._passes import upstream_capabilities
from backends.arm._passes.stateful_arm_pass_manager import pass_manager_sites
from backends.arm.test.passes.test_mutable_buffers import _frames, quantized_int8_state
from backends.arm.tosa.stateful_tosa_partitioner import mutable_buffer_placeholders
from examples.arm.silero_vad.model_export.lowering import make_compile_spec


@dataclass(frozen=True)
class ReleaseFacts:
    arm_pass_restores_mutable_buffers: bool
    constant_folding_keeps_mutable_state: bool
    decomposes_lstm_cell: bool
    partitioner_copies_state_into_delegate: bool
    pass_manager_sites: int


KNOWN_RELEASES = {
    "1.4.1": ReleaseFacts(False, False, False, True, 2),
    "1.5.1": ReleaseFacts(True, True, True, False, 3),
}
RELEASE = version("executorch")
REQUIREMENTS = Path(__file__).resolve().parents[4] / "requirements"


def constant_folding_keeps_mutable_state() -> bool:
    """True when the release's ``ConstantFoldingPass`` folds with torchao's state-aware folder."""
    return getattr(constant_folding_pass, "constant_fold", None) is constant_fold


def decomposes_lstm_cell() -> bool:
    """True when the release's ``DecomposeLstmPass`` also rewrites ``aten.lstm_cell``."""
    return any(
        value is torch.ops.aten.lstm_cell.default for value in vars(DecomposeLstmPass).values()
    )


def _supported_releases() -> list[str]:
    """The releases the project installs: one ``requirements/executorch-VERSION.txt`` each."""
    files = REQUIREMENTS.glob("executorch-*.txt")
    return sorted(path.stem.removeprefix("executorch-") for path in files)


def _release_facts() -> ReleaseFacts:
    """The installed release's row; a release without one fails the test that asks."""
    facts = KNOWN_RELEASES.get(RELEASE)
    if facts is None:
        pytest.fail(
            f"executorch {RELEASE}: no facts recorded. Read its Arm backend (what "
            "backends/arm/_passes/upstream_capabilities.py detects) and add its row to "
            "KNOWN_RELEASES.",
            pytrace=False,
        )
    return facts


def test_every_supported_release_has_recorded_facts_tosa() -> None:
    supported = _supported_releases()
    assert RELEASE in supported, f"executorch {RELEASE} is installed but not supported"
    assert sorted(KNOWN_RELEASES) == supported


def test_detected_capabilities_match_the_release_tosa() -> None:
    facts = _release_facts()
    assert upstream_capabilities.arm_pass_restores_mutable_buffers() == (
        facts.arm_pass_restores_mutable_buffers
    )
    assert constant_folding_keeps_mutable_state() == facts.constant_folding_keeps_mutable_state
    assert decomposes_lstm_cell() == facts.decomposes_lstm_cell
    assert len(pass_manager_sites()) == facts.pass_manager_sites


def test_release_partitioner_and_quantized_state_u85(tmp_path: Path) -> None:
    """Why StatefulEthosUPartitioner exists (1.4.1), and that it is a no-op on 1.5.1."""
    facts = _release_facts()
    spec = make_compile_spec("ethos-u85-256", "Ethos_U85_SYS_DRAM_Mid", "Shared_Sram", tmp_path)
    exported = torch.export.export(quantized_int8_state(tmp_path), _frames(1)[0])
    edge = to_edge(exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    tagged = EthosUPartitioner(spec).partition(edge.exported_program())
    (state,) = mutable_buffer_placeholders(tagged.tagged_exported_program)
    assert ("delegation_tag" in state.meta) == facts.partitioner_copies_state_into_delegate
