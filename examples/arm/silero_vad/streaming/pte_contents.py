# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Which backends a ``.pte``'s ``forward`` delegates to and which operators it calls, read
from the program's flatbuffer with the ``flatbuffers`` package alone.

The runtime needs both before it loads a program (to refuse an Ethos-U program with the way
out, and to load the quantized kernels only for a program that calls them); the export
stack's reader (``executorch.exir``) would pull torchao into a process that only runs
programs, and torchao prints on import.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from flatbuffers.table import Table

METHOD = "forward"
# Field ids of ExecuTorch's schema/program.fbs.
_PROGRAM_EXECUTION_PLAN = 1
_PLAN_NAME, _PLAN_OPERATORS, _PLAN_DELEGATES = 0, 6, 7
_OPERATOR_NAME = 0
_DELEGATE_ID = 0


class PteFormatError(ValueError):
    """Bytes that are not an ExecuTorch program with a ``forward`` method."""


@dataclass(frozen=True)
class PteContents:
    backends: tuple[str, ...]  # one per delegate of ``forward``
    operators: tuple[str, ...]  # the operator names ``forward``'s kernel calls resolve


def _table(data: bytes, position: int) -> Table:
    if not 0 <= position < len(data):
        raise PteFormatError(f"a table at byte {position}, outside the {len(data)}-byte file")
    return Table(data, position)


def _offset(table: Table, field: int) -> int:
    return table.Offset(4 + 2 * field)


def _string(table: Table, field: int) -> str:
    offset = _offset(table, field)
    return table.String(table.Pos + offset).decode() if offset else ""


def _tables(table: Table, field: int) -> list[Table]:
    offset = _offset(table, field)
    if not offset:
        return []
    count, start = table.VectorLen(offset), table.Vector(offset)
    if count > (len(table.Bytes) - start) // 4:
        raise PteFormatError(f"a vector of {count} entries runs past the end of the file")
    return [_table(table.Bytes, table.Indirect(start + 4 * index)) for index in range(count)]


def read_pte_contents(data: bytes) -> PteContents:
    """The backends and operators of ``forward``; PteFormatError if the bytes do not read
    as a program (the runtime's verification at load time has the last word)."""
    try:
        program = _table(data, struct.unpack_from("<I", data, 0)[0])
        plans = {_string(p, _PLAN_NAME): p for p in _tables(program, _PROGRAM_EXECUTION_PLAN)}
        if METHOD not in plans:
            raise PteFormatError(f"no {METHOD!r} method (methods: {sorted(plans)})")
        plan = plans[METHOD]
        backends = tuple(_string(d, _DELEGATE_ID) for d in _tables(plan, _PLAN_DELEGATES))
        operators = tuple(_string(o, _OPERATOR_NAME) for o in _tables(plan, _PLAN_OPERATORS))
    except (struct.error, IndexError, UnicodeDecodeError, OverflowError) as error:
        raise PteFormatError(f"not an ExecuTorch program ({type(error).__name__})") from None
    return PteContents(backends, operators)
