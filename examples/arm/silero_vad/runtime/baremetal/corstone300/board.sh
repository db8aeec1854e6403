#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Corstone-300 (SSE-300: Cortex-M55 + Ethos-U55 or Ethos-U65),
# for the scripts (board.cmake: for CMake).
# FVP parameter names as in ExecuTorch's own Corstone-300 runs (backends/arm/test/runner_utils.py).

SILERO_VAD_BOARD_TITLE="Corstone-300"
SILERO_VAD_BOARD_CPU="cortex-m55"
SILERO_VAD_BOARD_PLATFORM_TARGET="corstone-300" # core_platform/targets/<this>
SILERO_VAD_BOARD_ELF="silero_vad_corstone300.elf"
# For silero_vad_fvp_args (boards.sh).
SILERO_VAD_BOARD_FVP_MACS="ethosu.num_macs"
SILERO_VAD_BOARD_FVP_QUIET=(
  mps3_board.visualisation.disable-visualisation=1
  mps3_board.telnetterminal0.start_telnet=0
)
SILERO_VAD_BOARD_FVP_UART="mps3_board.uart0"

# board_fvp_binary NPU: the FVP of this board with that NPU (an image runs on its own only).
board_fvp_binary() {
  case "$1" in
    ethos-u55) echo "FVP_Corstone_SSE-300_Ethos-U55" ;;
    ethos-u65) echo "FVP_Corstone_SSE-300_Ethos-U65" ;;
    *) return 1 ;;
  esac
}
