# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silences the known, harmless third-party messages every run prints, each by its own text.

torchao's ``Failed to load ..._C_*.so`` (optional CUDA kernels), torch pytree's ``Enum
subclass ... natively supported``, torch's ``isinstance(treespec, LeafSpec)`` FutureWarning
and torch.fx's ``erase_node ... already erased`` UserWarning look like failures to a
newcomer; every other message still shows. Only the commands install the filters, before
torch loads: a program importing the example keeps its own settings.
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
