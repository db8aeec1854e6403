# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Marks the nodes our passes create (in ``node.meta["custom"]``, which survives re-export),
so the quantizer finds our gate products and tests can tell our passes from a release's."""

import torch

PROVENANCE_KEY = "created_by_stateful_arm_pass"


def mark_created_by(node: torch.fx.Node, creator: object) -> None:
    """Records the class name of ``creator`` on ``node`` (a copy: the dict may be shared)."""
    custom = dict(node.meta.get("custom", {}))
    custom[PROVENANCE_KEY] = type(creator).__name__
    node.meta["custom"] = custom


def created_by(node: torch.fx.Node) -> str | None:
    """The pass that created ``node``, or None."""
    return node.meta.get("custom", {}).get(PROVENANCE_KEY)
