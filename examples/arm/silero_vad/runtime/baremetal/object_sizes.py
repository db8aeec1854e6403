# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Code and data size of the application's own objects, before linking.

Adds up the sections of cross_compile_check.sh's objects for one CPU (``size -A``) as a
linker map would: text (code, read-only data, unwind tables), data, bss. Left out, as
reported on their own: the baked program and clip, the pools, the fast scratch and the
Dedicated_Sram variant of npu_fast_scratch.cpp; ExecuTorch is not ours. Before
--gc-sections, so an upper bound.

    object_sizes.py build/cross/clang19-cortex-m85
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# Sections that hold the pools, the fast scratch and the baked program: not code size.
POOL_SECTIONS = ("input_data_sec", ".bss.tensor_arena", ".bss.ethosu_scratch", "network_model_sec")
# Objects that are not the application's code.
SKIPPED_OBJECTS = ("baked_", "_dedicated", "no_pools")
# Sections that take no target memory.
_METADATA = (".comment", ".ARM.attributes", ".debug", ".note", ".group", ".rel", ".llvm")


@dataclass(frozen=True)
class ObjectSizes:
    text: int
    data: int
    bss: int
    objects: int


def _kind(section: str) -> str | None:
    """text, data, bss, or None for sections that are not the application's memory."""
    if section in POOL_SECTIONS or section == "Total" or section.startswith(_METADATA):
        return None
    if section.startswith((".text", ".rodata", ".ARM.exidx", ".ARM.extab")):
        return "text"
    if section.startswith((".bss", ".tbss", "COMMON")):
        return "bss"
    return "data"


def size_tool() -> str:
    """arm-none-eabi-size, else llvm-size (both read Arm ELF objects)."""
    for name in ("arm-none-eabi-size", "llvm-size-19", "llvm-size"):
        if path := shutil.which(name):
            return path
    raise FileNotFoundError("neither arm-none-eabi-size nor llvm-size is installed")


def object_sizes(directory: Path) -> ObjectSizes:
    """The sizes of the application's objects in ``directory`` (see the module docstring)."""
    objects = sorted(
        path
        for path in directory.glob("*.o")
        if not any(marker in path.name for marker in SKIPPED_OBJECTS)
    )
    if not objects:
        raise FileNotFoundError(
            f"no objects in {directory}: run backends/arm/scripts/cross_compile_check.sh"
        )
    totals = {"text": 0, "data": 0, "bss": 0}
    command = [size_tool(), "-A", *map(str, objects)]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    for line in output.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[1].isdigit() and _kind(fields[0]):
            totals[_kind(fields[0])] += int(fields[1])
    return ObjectSizes(objects=len(objects), **totals)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("directory", type=Path, help="a directory of cross_compile_check.sh")
    args = parser.parse_args(argv)
    try:
        sizes = object_sizes(args.directory)
    except (FileNotFoundError, subprocess.CalledProcessError) as error:
        print(f"ERROR object_sizes: {error}", file=sys.stderr)
        return 1
    print(
        f"{args.directory.name}: text {sizes.text} bytes, data {sizes.data}, bss {sizes.bss} "
        f"({sizes.objects} objects before linking; without the baked program, the pools "
        "and the fast scratch)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
