# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""The bare-metal image's memory pools, sized from the program it bakes in.

main.cpp hands VadModel::load() three static pools (runtime/core/vad_model.h):

  planned  the program's memory plan: one arena per planned buffer
           (MethodMeta::memory_planned_buffer_size), each rounded up to 64
           bytes, plus 64 to align the first, as VadModel::planned_memory_bytes()
           computes it. Exact.
  temp     the temporary allocator. ExecuTorch resets it before every
           instruction; the Ethos-U delegate takes its Vela scratch (the NPU's
           arena: activations, the delegate's inputs and outputs) from it, 16-byte
           aligned, on every execute(), and Method::init borrows it to resolve
           each kernel call (a TensorMeta and a dim order per tensor argument).
           The portable CPU kernels take nothing from it. Need: the largest of
           these.
  method   ExecuTorch's bookkeeping of the loaded method (Method::init in
           runtime/executor/method.cpp, parseTensor in tensor_parser_portable.cpp):
           the EValue table, a TensorImpl and strides per tensor, the boxed lists,
           per delegate its state, compile specs and what its init() allocates, per
           instruction its kernel and argument list. Need: a bound counted from the
           program with the sizes of a 64-bit host (EValue 16 bytes, TensorImpl 64,
           pointers 8), which are no smaller than the Cortex-M's (16, 32, 4), and
           8 bytes of alignment per allocation. The host runner's measurement
           (silero_vad_runner --pool-usage) stays below it: test_silero_vad_pools.py.

Margins: the planned pool gets none (the plan is the program's own layout, and
VadModel::load() refuses a smaller pool with the size it needs). The method and
temporary pools get 25 %: their need is counted from ExecuTorch's and the
delegate's code, which the program does not carry, and a newer release may
allocate a little more (1.5 added one byte per input, for example). Every pool
is then rounded up to whole KiB. For the Silero programs that is a few KiB each,
against the 1 to 2 MiB the image used to reserve.

The program is read with a small bounds-checked flatbuffer reader of ExecuTorch's
schema (schema/program.fbs), so that the firmware build needs no torch import;
the tests check it against executorch's own loader.

    pool_sizes.py --pte silero_vad_ethos-u85-256.pte            # a table
    pool_sizes.py --pte model.pte --format cmake                # for the build
"""

from __future__ import annotations

import argparse
import json
import math
import struct
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

FORWARD = "forward"
KIB = 1024
# VadModel::kPlannedAlignment.
PLANNED_ALIGNMENT = 64
# The Ethos-U delegate allocates its scratch 16-byte aligned.
SCRATCH_ALIGNMENT = 16
# Margins on the counted needs (see the module docstring).
MARGIN = {"method": 0.25, "planned": 0.0, "temp": 0.25}
POOLS = ("method", "planned", "temp")

# Bytes of ExecuTorch's runtime objects on a 64-bit host, the same in executorch 1.4 and
# 1.5, and no smaller than on the 32-bit Cortex-M (in brackets).
EVALUE = 16  # (16)
POINTER = 8  # (4)
TENSOR_IMPL = 64  # (32)
STRIDE = 4  # StridesType, int32 (4)
SIZE = 4  # SizesType, int32 (4)
DIM_ORDER = 1  # DimOrderType, uint8 (1)
INT64 = 8  # (8)
SPAN = 16  # Span / ArrayRef: pointer and length (8)
BOXED_LIST = 24  # BoxedEvalueList: a Span and a pointer (12)
OPTIONAL_TENSOR = 16  # std::optional<Tensor> (8)
BACKEND_DELEGATE = 56  # a FreeableBuffer (40), the backend and its handle (40)
COMPILE_SPEC = 24  # key, value pointer and size (12)
CHAIN = 32  # (16)
TENSOR_META = 24  # (12)
# What a delegate's init() keeps in the method pool. The Ethos-U delegate allocates one
# ExecutionHandle: a platform pointer and the handles of its command stream, weights,
# scratch and I/O descriptors, 72 bytes on a 64-bit host, 36 on the Cortex-M.
DELEGATE_INIT = 128
# Alignment padding an allocation may cost (MemoryAllocator aligns to the type, <= 8).
ALLOCATION_SLACK = 8

# Union tags of schema/program.fbs (0 is NONE).
_VALUE_TYPES = {
    1: "Null",
    2: "Int",
    3: "Bool",
    4: "Double",
    5: "Tensor",
    6: "String",
    7: "IntList",
    8: "DoubleList",
    9: "BoolList",
    10: "TensorList",
    11: "OptionalTensorList",
}
_KERNEL_CALL, _DELEGATE_CALL = 1, 2


class ProgramError(ValueError):
    """The bytes are not a readable ExecuTorch program."""


class _Flatbuffer:
    """Bounds-checked reads of a flatbuffer: every offset is checked against the bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def _unpack(self, fmt: str, pos: int) -> int:
        size = struct.calcsize(fmt)
        if pos < 0 or pos + size > len(self.data):
            raise ProgramError(f"offset {pos} is outside the {len(self.data)}-byte file")
        return struct.unpack_from(fmt, self.data, pos)[0]

    def u8(self, pos: int) -> int:
        return self._unpack("<B", pos)

    def u32(self, pos: int) -> int:
        return self._unpack("<I", pos)

    def i32(self, pos: int) -> int:
        return self._unpack("<i", pos)

    def i64(self, pos: int) -> int:
        return self._unpack("<q", pos)

    def u64(self, pos: int) -> int:
        return self._unpack("<Q", pos)

    def follow(self, pos: int) -> int:
        """The target of the unsigned offset stored at ``pos``."""
        return pos + self.u32(pos)

    def field(self, table: int, index: int) -> int | None:
        """Where field ``index`` of the table at ``table`` is stored, None when absent."""
        vtable = table - self._unpack("<i", table)
        vtable_size = self._unpack("<H", vtable)
        entry = 4 + 2 * index
        if entry + 2 > vtable_size:
            return None
        offset = self._unpack("<H", vtable + entry)
        return table + offset if offset else None

    def scalar(self, table: int, index: int, fmt: str, default: int = 0) -> int:
        pos = self.field(table, index)
        return default if pos is None else self._unpack(fmt, pos)

    def ref(self, table: int, index: int) -> int | None:
        """The table, vector or string field ``index`` refers to, None when absent."""
        pos = self.field(table, index)
        return None if pos is None else self.follow(pos)

    def length(self, vector: int | None) -> int:
        return 0 if vector is None else self.u32(vector)

    def tables(self, vector: int | None) -> list[int]:
        return [self.follow(vector + 4 + 4 * i) for i in range(self.length(vector))]

    def string(self, pos: int | None) -> str:
        if pos is None:
            return ""
        size = self.u32(pos)
        if pos + 4 + size > len(self.data):
            raise ProgramError(f"string at {pos} runs past the end of the file")
        return self.data[pos + 4 : pos + 4 + size].decode("utf-8", "replace")

    def vector_bytes(self, vector: int | None) -> bytes:
        if vector is None:
            return b""
        size = self.u32(vector)
        if vector + 4 + size > len(self.data):
            raise ProgramError(f"byte vector at {vector} runs past the end of the file")
        return self.data[vector + 4 : vector + 4 + size]


@dataclass(frozen=True)
class DelegateInfo:
    backend: str
    compile_specs: int
    # The Ethos-U delegate's Vela scratch (its arena), None for other backends.
    vela_scratch_bytes: int | None


@dataclass(frozen=True)
class MethodLayout:
    """What a method's load costs, as counted from the program (see the module docstring)."""

    name: str
    planned_buffer_bytes: list[int]
    values: dict[str, int]
    inputs: int
    delegates: list[DelegateInfo]
    instructions: int
    # Bound on the method allocator's use (bytes) and on the temporary allocator's use
    # while operators are resolved at load.
    method_bytes: int
    resolve_temp_bytes: int


def _vela_scratch(blob: bytes) -> int | None:
    """The scratch size in an Ethos-U delegate's Vela binary stream, None if it is not one.

    The stream (executorch/backends/arm/arm_vela.py) is a list of blocks: a 16-byte
    NUL-padded name, the block's length (int32) and 12 zero bytes, the data padded to 16
    bytes; it starts with "vela_bin_stream" and ends with "vela_end_stream". The
    "scratch_size" block holds the scratch size as a uint32.
    """
    offset, scratch = 0, None
    while offset + 32 <= len(blob):
        name = blob[offset : offset + 16].split(b"\0", 1)[0]
        (size,) = struct.unpack_from("<i", blob, offset + 16)
        if size < 0 or offset + 32 + size > len(blob):
            return None
        if offset == 0 and name != b"vela_bin_stream":
            return None
        if name == b"scratch_size" and size >= 4:
            (scratch,) = struct.unpack_from("<I", blob, offset + 32)
        if name == b"vela_end_stream":
            return scratch
        offset += 32 + (size + 15) // 16 * 16
    return None


def _allocations(*sizes: int) -> int:
    """Bytes of allocations of these sizes, each with its alignment slack."""
    return sum(size + ALLOCATION_SLACK for size in sizes)


def _value_bytes(fb: _Flatbuffer, kind: str, value: int) -> tuple[int, int]:
    """(method-pool bytes, rank) of one value; rank only for tensors."""
    if kind == "Tensor":
        sizes = fb.ref(value, 2)
        rank = fb.length(sizes)
        dynamic = fb.scalar(value, 8, "<b") != 0
        cost = _allocations(TENSOR_IMPL, STRIDE * rank)
        if dynamic:
            cost += _allocations(SIZE * rank, DIM_ORDER * rank)
        return cost, rank
    if kind == "IntList":
        items = fb.length(fb.ref(value, 0))
        return _allocations(POINTER * items, INT64 * items, BOXED_LIST), 0
    if kind == "TensorList":
        items = fb.length(fb.ref(value, 0))
        return _allocations(POINTER * items, POINTER * items, BOXED_LIST), 0
    if kind == "OptionalTensorList":
        items = fb.length(fb.ref(value, 0))
        return _allocations(POINTER * items, OPTIONAL_TENSOR * items, BOXED_LIST), 0
    if kind in ("DoubleList", "BoolList", "String"):
        return _allocations(SPAN), 0
    return 0, 0


def _method_layout(fb: _Flatbuffer, plan: int, delegate_data: list[bytes]) -> MethodLayout:
    name = fb.string(fb.ref(plan, 0))
    planned = fb.ref(plan, 8)
    planned_bytes = [fb.i64(planned + 4 + 8 * i) for i in range(fb.length(planned))]
    inputs = fb.length(fb.ref(plan, 3))

    values = fb.tables(fb.ref(plan, 2))
    kinds: dict[str, int] = {}
    ranks: list[int] = []
    method = _allocations(EVALUE * len(values), inputs)
    for value in values:
        kind = _VALUE_TYPES.get(fb.scalar(value, 0, "<B"), "unknown")
        kinds[kind] = kinds.get(kind, 0) + 1
        target = fb.ref(value, 1)
        cost, rank = (0, 0) if target is None else _value_bytes(fb, kind, target)
        method += cost
        ranks.append(rank)

    delegates = []
    for delegate in fb.tables(fb.ref(plan, 7)):
        backend = fb.string(fb.ref(delegate, 0))
        specs = fb.length(fb.ref(delegate, 2))
        processed = fb.ref(delegate, 1)
        index = None if processed is None else fb.scalar(processed, 1, "<I")
        location = 0 if processed is None else fb.scalar(processed, 0, "<B")
        blob = b""
        if index is not None and location == 0 and index < len(delegate_data):
            blob = delegate_data[index]
        elif index is not None and location == 1:
            blob = _segment(fb, index)
        delegates.append(DelegateInfo(backend, specs, _vela_scratch(blob)))
        method += _allocations(BACKEND_DELEGATE, COMPILE_SPEC * specs, DELEGATE_INIT)

    chains = fb.tables(fb.ref(plan, 5))
    method += _allocations(CHAIN * len(chains))
    instructions = 0
    resolve_temp = 0
    for chain in chains:
        chain_instructions = fb.tables(fb.ref(chain, 2))
        instructions += len(chain_instructions)
        method += _allocations(POINTER * len(chain_instructions), SPAN * len(chain_instructions))
        for instruction in chain_instructions:
            kind = fb.scalar(instruction, 0, "<B")
            if kind not in (_KERNEL_CALL, _DELEGATE_CALL):
                continue
            call = fb.ref(instruction, 1)
            args_vector = None if call is None else fb.ref(call, 1)
            args = [fb.i32(args_vector + 4 + 4 * i) for i in range(fb.length(args_vector))]
            method += _allocations(POINTER * len(args))
            if kind == _KERNEL_CALL:
                tensor_ranks = [ranks[a] for a in args if 0 <= a < len(ranks) and ranks[a] > 0]
                resolve_temp = max(
                    resolve_temp,
                    _allocations(TENSOR_META * len(args), *[DIM_ORDER * r for r in tensor_ranks]),
                )
    return MethodLayout(
        name=name,
        # Entry 0 is the constant buffer: the memory plan is the rest.
        planned_buffer_bytes=planned_bytes[1:],
        values=dict(sorted(kinds.items())),
        inputs=inputs,
        delegates=delegates,
        instructions=instructions,
        method_bytes=method,
        resolve_temp_bytes=resolve_temp,
    )


def _segment(fb: _Flatbuffer, index: int) -> bytes:
    """The bytes of data segment ``index`` (delegate data stored after the flatbuffer)."""
    data = fb.data
    if data[8:12] != b"eh00":
        raise ProgramError("a delegate's data lies in a segment, but the file has no header")
    base = struct.unpack_from("<Q", data, 24)[0]
    segments = fb.tables(fb.ref(fb.follow(0), 4))
    if index >= len(segments):
        raise ProgramError(f"delegate data segment {index} does not exist")
    offset = fb.scalar(segments[index], 0, "<Q")
    size = fb.scalar(segments[index], 1, "<Q")
    if base + offset + size > len(data):
        raise ProgramError(f"delegate data segment {index} runs past the end of the file")
    return data[base + offset : base + offset + size]


def read_methods(data: bytes) -> dict[str, MethodLayout]:
    """Every method of a .pte, as its load costs them. Raises ProgramError."""
    if len(data) < 8 or data[4:6] != b"ET":
        raise ProgramError("not an ExecuTorch program (no ET file identifier)")
    fb = _Flatbuffer(data)
    try:
        root = fb.follow(0)
        delegate_data = [fb.vector_bytes(fb.ref(d, 0)) for d in fb.tables(fb.ref(root, 3))]
        plans = fb.tables(fb.ref(root, 1))
        methods = {}
        for plan in plans:
            layout = _method_layout(fb, plan, delegate_data)
            methods[layout.name] = layout
    except (ProgramError, struct.error) as error:
        raise ProgramError(f"not a readable ExecuTorch program: {error}") from None
    if not methods:
        raise ProgramError("not a readable ExecuTorch program: it has no methods")
    if FORWARD not in methods:
        raise ProgramError(f"the program has no {FORWARD!r} method (methods: {sorted(methods)})")
    return methods


def _round_up(value: int, multiple: int) -> int:
    return (value + multiple - 1) // multiple * multiple


@dataclass(frozen=True)
class PoolSizes:
    """Each pool's need (bytes) and the size the image gets (need plus margin, whole KiB)."""

    need: dict[str, int]
    size: dict[str, int]
    vela_scratch_bytes: int
    program_bytes: int
    method: MethodLayout = field(repr=False)

    def to_dict(self) -> dict:
        result = asdict(self)
        result["margin_percent"] = {pool: round(100 * MARGIN[pool]) for pool in POOLS}
        return result


def size_pools(data: bytes) -> PoolSizes:
    """The pools the image needs for the program in ``data`` (the bytes of a .pte)."""
    forward = read_methods(data)[FORWARD]
    planned = PLANNED_ALIGNMENT + sum(
        _round_up(size, PLANNED_ALIGNMENT) for size in forward.planned_buffer_bytes
    )
    scratch = max((d.vela_scratch_bytes or 0 for d in forward.delegates), default=0)
    temp = max(forward.resolve_temp_bytes, scratch + SCRATCH_ALIGNMENT if scratch else 0)
    need = {"method": forward.method_bytes, "planned": planned, "temp": temp}
    size = {pool: _round_up(math.ceil(need[pool] * (1 + MARGIN[pool])), KIB) for pool in POOLS}
    return PoolSizes(need, size, scratch, len(data), forward)


def _kib(value: int) -> str:
    return f"{value / KIB:.1f} KiB"


def _text(pools: PoolSizes, pte: Path) -> str:
    forward = pools.method
    lines = [
        f"{pte.name}: {pools.program_bytes} bytes, method '{forward.name}': "
        f"{sum(forward.values.values())} values, {forward.instructions} instructions, "
        f"{len(forward.delegates)} delegate(s)",
    ]
    for delegate in forward.delegates:
        scratch = delegate.vela_scratch_bytes
        arena = "" if scratch is None else f", Vela scratch (arena) {scratch} bytes"
        lines.append(f"  {delegate.backend}: {delegate.compile_specs} compile specs{arena}")
    lines.append(f"  memory plan: {forward.planned_buffer_bytes} bytes")
    lines.append(f"  {'pool':<8} {'need':>12} {'margin':>7} {'size':>12}")
    for pool in POOLS:
        lines.append(
            f"  {pool:<8} {pools.need[pool]:>12} {round(100 * MARGIN[pool]):>6}% "
            f"{pools.size[pool]:>12}  ({_kib(pools.size[pool])})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pte", type=Path, required=True, help="ExecuTorch program (.pte)")
    parser.add_argument(
        "--format",
        choices=("text", "json", "cmake"),
        default="text",
        help="text: a table (default); json; cmake: one line '<pool> <need> <size>' per "
        "pool, for runtime/baremetal/program_pools.cmake",
    )
    args = parser.parse_args(argv)
    try:
        pools = size_pools(args.pte.read_bytes())
    except OSError as error:
        print(f"ERROR pool_sizes: cannot read {args.pte}: {error.strerror}", file=sys.stderr)
        return 1
    except ProgramError as error:
        print(f"ERROR pool_sizes: {args.pte}: {error}", file=sys.stderr)
        return 1
    if args.format == "json":
        print(json.dumps(pools.to_dict(), indent=2))
    elif args.format == "cmake":
        for pool in POOLS:
            print(f"{pool} {pools.need[pool]} {pools.size[pool]}")
        print(f"vela_scratch {pools.vela_scratch_bytes}")
    else:
        print(_text(pools, args.pte))
    return 0


if __name__ == "__main__":
    sys.exit(main())
