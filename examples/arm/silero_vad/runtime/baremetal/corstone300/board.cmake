# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# Corstone-300 (SSE-300): Cortex-M55 with an Ethos-U55 or an Ethos-U65.
set(SILERO_VAD_BOARD_CPU cortex-m55)
set(SILERO_VAD_BOARD_NPUS ethos-u55 ethos-u65)
set(SILERO_VAD_BOARD_PLATFORM_TARGET corstone-300) # core_platform/targets/<this>
set(SILERO_VAD_BOARD_LINKER_SCRIPT Corstone-300.ld)
# SRAM behind the NPU's AXI0 port: 2 MiB at 0x31000000 (ExecuTorch's Corstone-300.ld).
set(SILERO_VAD_BOARD_SRAM_BYTES 0x200000)
