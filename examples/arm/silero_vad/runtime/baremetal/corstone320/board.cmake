# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# Corstone-320 (SSE-320): Cortex-M85 with an Ethos-U85.
# Included by ../CMakeLists.txt (before project(), so TARGET_CPU reaches the
# toolchain file) and by ../plan_memory.cmake.

set(SILERO_VAD_BOARD_CPU cortex-m85)
set(SILERO_VAD_BOARD_NPUS ethos-u85)
# Ethos-U SDK: core_platform/targets/<this> gives ethosu_target_init.
set(SILERO_VAD_BOARD_PLATFORM_TARGET corstone-320)
# ExecuTorch's linker script for the board.
set(SILERO_VAD_BOARD_LINKER_SCRIPT Corstone-320.ld)
# SRAM behind the NPU's SRAM port: 4 MiB at 0x31000000 (ExecuTorch's
# Corstone-320.ld). Code and data run from BRAM (2 MiB), DDR at 0x70000000.
set(SILERO_VAD_BOARD_SRAM_BYTES 0x400000)
# The pools are sized from the program (../program_pools.cmake), not per board.
