# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What the installed ExecuTorch release's Arm backend already does for stateful models.

Our passes were written for executorch 1.4.1, whose Arm backend neither lowers
``nn.LSTMCell`` nor keeps model-owned state. Later releases took on parts of that job.
Each job below has exactly one owner on every release, so the pipeline, and with it
the quantized graph and the program's numbers, is the same whichever release runs it:

========================  =====================  ======================  ===============
job                       executorch 1.4.1       executorch 1.5.1        who runs it here
========================  =====================  ======================  ===============
lstm_cell -> gate ops     not done (CPU float)   ``DecomposeLstmPass``   ours, always
buffer names per pass     not done (renamed)     ``ArmPass.__call__``    ours, always
folding around state      freezes state reads    torchao folder          ours, always
state outside delegate    copied in as constant  ``tag_constant_data``   both (idempotent)
========================  =====================  ======================  ===============

Why ours, and not the release's, when both exist:

* ``DecomposeLstmCellPass`` runs before the annotation pipeline, so the release's
  ``DecomposeLstmPass`` finds no cell. Ours slices each gate before adding the input and
  recurrent halves, so every gate pre-activation gets its own observer; the release adds
  the whole ``4H`` vector first and shares one observer across the four gates, which
  quantizes differently. Keeping ours keeps the numbers of 1.4.1.
* ``PreserveMutableBuffersPass`` wraps every pass (``ArmPass`` or not) and also checks
  that no pass drops a write or freezes a read. Where the release's ``ArmPass`` restores
  buffers itself, ours switches that copy off for the passes it wraps
  (:func:`release_buffer_restore_disabled`), so the work is done once, by one rule.
* ``FoldConstantsKeepMutableStatePass`` replaces the release's ``ConstantFoldingPass``
  (a replacement, never a second run); on 1.5.1 both fold with torchao's folder.
* ``StatefulEthosUPartitioner`` untags mutated buffers after the release has tagged; on
  releases that no longer tag them that is a no-op, kept as the guarantee.

Everything here is detected from the release's code, not from its version number; the
tests pin what each known release reports.
"""

import contextlib
from collections.abc import Iterator

import torch
from executorch.backends.arm._passes import arm_pass as _arm_pass_module
from executorch.backends.arm._passes import constant_folding_pass as _constant_folding_module
from executorch.backends.arm._passes.decompose_lstm_pass import DecomposeLstmPass
from torchao.quantization.pt2e.constant_fold import constant_fold as _torchao_constant_fold

# The release's per-pass buffer collector, looked up by ArmPass.__call__ at call time.
_RELEASE_COLLECTOR = "collect_mutable_buffer_infos"


def arm_pass_restores_mutable_buffers() -> bool:
    """True when every ``ArmPass`` of the release puts mutable buffers back after it runs."""
    return hasattr(_arm_pass_module, _RELEASE_COLLECTOR) and (
        _RELEASE_COLLECTOR in _arm_pass_module.ArmPass.__call__.__code__.co_names
    )


def constant_folding_keeps_mutable_state() -> bool:
    """True when the release's ``ConstantFoldingPass`` folds with torchao's state-aware folder."""
    return getattr(_constant_folding_module, "constant_fold", None) is _torchao_constant_fold


def decomposes_lstm_cell() -> bool:
    """True when the release's ``DecomposeLstmPass`` also rewrites ``aten.lstm_cell``."""
    return any(
        value is torch.ops.aten.lstm_cell.default for value in vars(DecomposeLstmPass).values()
    )


def _nothing_to_restore(graph_module: torch.fx.GraphModule) -> dict[str, torch.Tensor]:
    return {}


@contextlib.contextmanager
def release_buffer_restore_disabled() -> Iterator[None]:
    """Switches off the release's own per-pass buffer restore while the block runs.

    ``PreserveMutableBuffersPass`` uses it around the one pass it wraps, so the restore
    happens once, by our rule. An empty collection makes the release's restore return at
    once. Releases without that restore (1.4.1) are left untouched.
    """
    if not arm_pass_restores_mutable_buffers():
        yield
        return
    original = getattr(_arm_pass_module, _RELEASE_COLLECTOR)
    setattr(_arm_pass_module, _RELEASE_COLLECTOR, _nothing_to_restore)
    try:
        yield
    finally:
        setattr(_arm_pass_module, _RELEASE_COLLECTOR, original)
