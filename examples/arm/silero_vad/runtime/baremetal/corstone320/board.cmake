# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# Corstone-320 (SSE-320): Cortex-M85 with an Ethos-U85.
set(SILERO_VAD_BOARD_CPU cortex-m85)
set(SILERO_VAD_BOARD_NPUS ethos-u85)
set(SILERO_VAD_BOARD_PLATFORM_TARGET corstone-320) # core_platform/targets/<this>
set(SILERO_VAD_BOARD_LINKER_SCRIPT Corstone-320.ld)
# SRAM behind the NPU's AXI0 port: 4 MiB at 0x31000000 (ExecuTorch's Corstone-320.ld).
set(SILERO_VAD_BOARD_SRAM_BYTES 0x400000)
