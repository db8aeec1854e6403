# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silences the third-party messages every run prints that are not about this run.

With the pinned torch, torchao and executorch, each import and export prints lines that
look like failures to a newcomer but are known and harmless:

- torchao logs ``Failed to load .../torchao/_C_mxfp8...so`` (and ``_C_cutlass...``): its
  optional CUDA kernels, which a CPU machine cannot load and this example never uses;
- torch's pytree logs ``<enum ...> is an Enum subclass and is now natively supported``
  when torchao registers its enums;
- torch warns ``isinstance(treespec, LeafSpec) is deprecated`` (FutureWarning) from
  inside export and pickling;
- torch.fx warns ``erase_node(...) on an already erased node`` (UserWarning) from inside
  the Arm backend's passes.

Each is matched by its own message (a logging filter or a warnings filter), so every
other warning of the same libraries still shows. The command-line entry points install
them when run as a command (``if __name__ == "__main__"`` at their top, before anything
imports torch): a program that imports the example's modules keeps its own logging and
warning settings.
"""

from __future__ import annotations

import logging
import re
import warnings

_LOG_MESSAGES = {
    "torchao": re.compile(r"Failed to load .*torchao[/\\]_C_\w*[^ ]*\.so"),
    "torch.utils._pytree": re.compile(r"is an Enum subclass and is now natively supported"),
}
_WARNINGS = (
    (FutureWarning, r"`isinstance\(treespec, LeafSpec\)` is deprecated"),
    (UserWarning, r"erase_node\(.*\) on an already erased node"),
)


class _DropMessages(logging.Filter):
    """Drops the records of one logger whose message matches ``pattern``."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        super().__init__()
        self.pattern = pattern

    def filter(self, record: logging.LogRecord) -> bool:
        return not self.pattern.search(record.getMessage())


def silence_known_third_party_noise() -> None:
    """Installs the filters (idempotent)."""
    for logger_name, pattern in _LOG_MESSAGES.items():
        logger = logging.getLogger(logger_name)
        if not any(isinstance(f, _DropMessages) for f in logger.filters):
            logger.addFilter(_DropMessages(pattern))
    for category, message in _WARNINGS:
        warnings.filterwarnings("ignore", message=message, category=category)
