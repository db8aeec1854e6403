# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What the example's commands share: a user error is one ``ERROR`` line, not a traceback."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TypeVar

Main = TypeVar("Main", bound=Callable[..., int])


def exit_on_errors(*errors: type[Exception], status: int = 2) -> Callable[[Main], Main]:
    """Decorates a command's ``main``: one of ``errors`` prints ``ERROR <message>`` on
    stderr and returns ``status``; the messages name the file and the problem."""

    def decorate(main: Main) -> Main:
        @functools.wraps(main)
        def guarded(*args, **kwargs) -> int:
            try:
                return main(*args, **kwargs)
            except errors as error:
                print(f"ERROR {error}", file=sys.stderr)
                return status

        return guarded  # type: ignore[return-value]

    return decorate
