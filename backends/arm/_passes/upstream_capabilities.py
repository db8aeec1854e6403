# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What the installed ExecuTorch release's Arm backend already does for stateful models.

Our passes were written for 1.4.1; 1.5.1 took on parts of the job. Each job has one owner
on every release, so the quantized graph and the program's numbers do not depend on it:

* lstm_cell -> gate ops: ours (``DecomposeLstmCellPass`` runs before the release's
  ``DecomposeLstmPass``, which then finds no cell; ours gives each gate its own observer).
* one-direction lstm.input (``nn.LSTM``) -> lstm_cell: ours (``ConvertLstmToCellsPass``,
  before the release's ``DecomposeLstmPass``, whose one sum of the four gates shares an
  observer); bidirectional or projected LSTMs: the release's.
* gru_cell, rnn_tanh_cell, rnn_relu_cell -> gate ops: ours (``DecomposeGruCellPass``,
  ``DecomposeRnnCellPass``; neither release has a pass: they stayed on the CPU in float).
* gru.input, rnn_tanh.input, rnn_relu.input (``nn.GRU``, ``nn.RNN``) -> gate ops: the
  release's (``DecomposeGruPass``, ``DecomposeRnnPass``, alike on both: their gates have
  their own sums already).
* buffer names per pass: ours (``PreserveMutableBuffersPass`` switches the release's
  restore off around the pass it wraps: ``release_buffer_restore_disabled``).
* folding around state: ours (``FoldConstantsKeepMutableStatePass`` replaces, never
  follows, the release's ``ConstantFoldingPass``).
* state outside the delegate: both (``StatefulEthosUPartitioner`` untags after the
  release; a no-op where the release no longer tags).

Everything is detected from the release's code, not its version; tests pin each release
(``test_upstream_capabilities.py`` also detects the jobs only the tests need to know of).
"""

import contextlib
from unittest import mock

from executorch.backends.arm._passes import arm_pass as _arm_pass_module

# The release's per-pass buffer collector, looked up by ArmPass.__call__ at call time.
_RELEASE_COLLECTOR = "collect_mutable_buffer_infos"


def arm_pass_restores_mutable_buffers() -> bool:
    """True when every ``ArmPass`` of the release puts mutable buffers back after it runs."""
    return hasattr(_arm_pass_module, _RELEASE_COLLECTOR) and (
        _RELEASE_COLLECTOR in _arm_pass_module.ArmPass.__call__.__code__.co_names
    )


def release_buffer_restore_disabled() -> contextlib.AbstractContextManager:
    """Switches off the release's per-pass buffer restore (if any) while the block runs:
    an empty collection makes it return at once."""
    if not arm_pass_restores_mutable_buffers():
        return contextlib.nullcontext()
    return mock.patch.object(_arm_pass_module, _RELEASE_COLLECTOR, lambda graph_module: {})
