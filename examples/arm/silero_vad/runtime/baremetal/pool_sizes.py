# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""The bare-metal image's memory pools, sized from the program it bakes in.

main.cpp hands VadModel::load() three static pools (runtime/core/vad_model.h):

  planned  the memory plan: each planned buffer rounded up to 64 bytes, plus 64 to align
           the first, as VadModel::planned_memory_bytes() computes it. Exact, no margin.
  temp     the largest of the Ethos-U delegate's Vela scratch (its arena, 16-byte aligned,
           taken on every execute()) and what Method::init borrows to resolve a kernel
           call (a TensorMeta and a dim order per tensor argument).
  method   ExecuTorch's bookkeeping of the loaded method (Method::init, parseTensor): a
           bound counted with 64-bit host sizes, which are no smaller than the
           Cortex-M's; the host runner's --pool-usage stays below it
           (test_silero_vad_pools.py).

Method and temp get 25 %, as a newer ExecuTorch may allocate a little more; every pool
is rounded up to whole KiB. The program is read with executorch's own deserializer.

    pool_sizes.py --pte silero_vad_ethos-u85-256.pte            # a table
    pool_sizes.py --pte model.pte --format cmake                # for the build
"""

from __future__ import annotations

import argparse
import math
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

FORWARD = "forward"
KIB = 1024
PLANNED_ALIGNMENT = 64  # VadModel::kPlannedAlignment
SCRATCH_ALIGNMENT = 16  # the Ethos-U delegate's scratch alignment
MARGIN = {"method": 0.25, "planned": 0.0, "temp": 0.25}
POOLS = ("method", "planned", "temp")

# Bytes of ExecuTorch's runtime objects on a 64-bit host (Cortex-M in brackets).
EVALUE = 16  # (16)
POINTER = 8  # (4)
TENSOR_IMPL = 64  # (32)
STRIDE = SIZE = 4  # StridesType, SizesType: int32
DIM_ORDER = 1  # uint8
INT64 = 8
SPAN = 16  # pointer and length (8)
BOXED_LIST = 24  # a Span and a pointer (12)
OPTIONAL_TENSOR = 16  # (8)
BACKEND_DELEGATE = 56  # a FreeableBuffer, the backend and its handle (40)
COMPILE_SPEC = 24  # key, value pointer and size (12)
CHAIN = 32  # (16)
TENSOR_META = 24  # (12)
DELEGATE_INIT = 128  # the Ethos-U delegate's ExecutionHandle: 72 bytes (36)
ALLOCATION_SLACK = 8  # MemoryAllocator aligns to the type, <= 8
# Per-item cost of the boxed lists: the pointer table and the unboxed items.
LIST_ITEM = {"IntList": INT64, "TensorList": POINTER, "OptionalTensorList": OPTIONAL_TENSOR}


class ProgramError(ValueError):
    """The bytes are not a readable ExecuTorch program."""


@dataclass(frozen=True)
class PoolSizes:
    """Each pool's need (bytes) and the size the image gets (need plus margin, whole KiB)."""

    need: dict[str, int]
    size: dict[str, int]
    vela_scratch_bytes: int
    program_bytes: int
    summary: str


def _allocations(*sizes: int) -> int:
    return sum(size + ALLOCATION_SLACK for size in sizes)


def _round_up(value: int, multiple: int) -> int:
    return (value + multiple - 1) // multiple * multiple


def _value_bytes(value) -> int:
    kind = type(value).__name__
    if kind == "Tensor":
        rank = len(value.sizes)
        cost = _allocations(TENSOR_IMPL, STRIDE * rank)
        if int(value.shape_dynamism) != 0:
            cost += _allocations(SIZE * rank, DIM_ORDER * rank)
        return cost
    if kind in LIST_ITEM:
        items = len(value.items)
        return _allocations(POINTER * items, LIST_ITEM[kind] * items, BOXED_LIST)
    if kind in ("DoubleList", "BoolList", "String"):
        return _allocations(SPAN)
    return 0


def _kernel_temp(call, ranks: dict[int, int]) -> int:
    """What Method::init borrows from the temp pool to resolve one kernel call."""
    orders = [DIM_ORDER * ranks[arg] for arg in call.args if arg in ranks]
    return _allocations(TENSOR_META * len(call.args), *orders)


def _read_forward(data: bytes):
    """(program, forward plan) as executorch's loader reads them. Raises ProgramError."""
    # Cheap checks first: executorch's import takes seconds.
    if len(data) < 8 or data[4:6] != b"ET":
        raise ProgramError("not an ExecuTorch program (no ET file identifier)")
    if not 8 <= struct.unpack_from("<I", data)[0] < len(data):
        raise ProgramError("not a readable ExecuTorch program: bad root offset")
    try:
        from executorch.exir._serialize._program import deserialize_pte_binary

        program = deserialize_pte_binary(data).program
    except ImportError as error:
        raise ProgramError(f"needs the executorch package (the project venv): {error}") from None
    except Exception as error:  # the deserializer raises many kinds
        raise ProgramError(f"not a readable ExecuTorch program: {error}") from None
    methods = {plan.name: plan for plan in program.execution_plan}
    if FORWARD not in methods:
        raise ProgramError(f"the program has no {FORWARD!r} method (methods: {sorted(methods)})")
    return program, methods[FORWARD]


def _vela_scratch(blob: bytes) -> int | None:
    """The scratch size in an Ethos-U delegate's Vela stream, None if it is not one."""
    from executorch.backends.arm.scripts.get_ethosu_scratch_from_pte import (
        get_scratch_size_from_delegate,
    )

    if not blob.startswith(b"vela_bin_stream") or b"vela_end_stream" not in blob:
        return None
    try:
        return get_scratch_size_from_delegate(blob)
    except struct.error:
        return None


def size_pools(data: bytes) -> PoolSizes:
    """The pools the image needs for the program in ``data`` (the bytes of a .pte)."""
    program, forward = _read_forward(data)
    values = [value.val for value in forward.values]
    method = _allocations(EVALUE * len(values), len(forward.inputs))
    method += sum(_value_bytes(value) for value in values)
    ranks = {i: len(v.sizes) for i, v in enumerate(values) if type(v).__name__ == "Tensor"}
    ranks = {i: rank for i, rank in ranks.items() if rank}

    lines = []
    scratch = 0
    for delegate in forward.delegates:
        blob = program.backend_delegate_data[delegate.processed.index].data
        vela = _vela_scratch(blob)
        scratch = max(scratch, vela or 0)
        arena = "" if vela is None else f", Vela scratch (arena) {vela} bytes"
        lines.append(f"  {delegate.id}: {len(delegate.compile_specs)} compile specs{arena}")
        specs = COMPILE_SPEC * len(delegate.compile_specs)
        method += _allocations(BACKEND_DELEGATE, specs, DELEGATE_INIT)

    method += _allocations(CHAIN * len(forward.chains))
    instructions = [i.instr_args for chain in forward.chains for i in chain.instructions]
    for chain in forward.chains:
        method += _allocations(POINTER * len(chain.instructions), SPAN * len(chain.instructions))
    calls = [call for call in instructions if type(call).__name__ in ("KernelCall", "DelegateCall")]
    method += sum(_allocations(POINTER * len(call.args)) for call in calls)
    kernels = [call for call in calls if type(call).__name__ == "KernelCall"]
    resolve_temp = max((_kernel_temp(call, ranks) for call in kernels), default=0)

    # Buffer 0 is the constant buffer: the memory plan is the rest.
    plan = list(forward.non_const_buffer_sizes[1:])
    planned = PLANNED_ALIGNMENT + sum(_round_up(size, PLANNED_ALIGNMENT) for size in plan)
    temp = max(resolve_temp, scratch + SCRATCH_ALIGNMENT if scratch else 0)
    need = {"method": method, "planned": planned, "temp": temp}
    size = {pool: _round_up(math.ceil(need[pool] * (1 + MARGIN[pool])), KIB) for pool in POOLS}
    header = (
        f"{len(data)} bytes, method '{forward.name}': {len(values)} values, "
        f"{len(instructions)} instructions, {len(forward.delegates)} delegate(s)"
    )
    summary = "\n".join([header, *lines, f"  memory plan: {plan} bytes"])
    return PoolSizes(need, size, scratch, len(data), summary)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pte", type=Path, required=True, help="ExecuTorch program (.pte)")
    parser.add_argument(
        "--format",
        choices=("text", "cmake"),
        default="text",
        help="text: a table (default); cmake: '<pool> <need> <size>' lines for the build",
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
    if args.format == "cmake":
        for pool in POOLS:
            print(f"{pool} {pools.need[pool]} {pools.size[pool]}")
        return 0
    print(f"{args.pte.name}: {pools.summary}")
    print(f"  {'pool':<8} {'need':>12} {'margin':>7} {'size':>12}")
    for pool in POOLS:
        size = pools.size[pool]
        margin = round(100 * MARGIN[pool])
        print(f"  {pool:<8} {pools.need[pool]:>12} {margin:>6}% {size:>12}  ({size / KIB:.1f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
