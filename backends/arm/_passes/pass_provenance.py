# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Marks the nodes our passes create, so the quantizer and tests can tell which ran.

ExecuTorch releases after 1.4.1 bring their own LSTM-cell and mutable-state handling;
the mark (kept in ``node.meta["custom"]``, which torch.export carries through
re-export) shows that the nodes of the lowered program came from these passes, and
lets ``StatefulTOSAQuantizer`` find the gate products that ``DecomposeLstmCellPass``
created.
"""

import torch

PROVENANCE_KEY = "created_by_stateful_arm_pass"
"""The ``node.meta["custom"]`` key: the class name of the stateful Arm pass that made the node."""


def mark_created_by(node: torch.fx.Node, creator: object) -> None:
    """Records the class name of ``creator`` on ``node`` (copying the shared meta dict)."""
    custom = dict(node.meta.get("custom", {}))
    custom[PROVENANCE_KEY] = type(creator).__name__
    node.meta["custom"] = custom


def created_by(node: torch.fx.Node) -> str | None:
    """The pass that created ``node``, or None."""
    return node.meta.get("custom", {}).get(PROVENANCE_KEY)
