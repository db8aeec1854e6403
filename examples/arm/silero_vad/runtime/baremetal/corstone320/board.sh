#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Corstone-320 (SSE-320: Cortex-M85 + Ethos-U85),
# for the scripts (board.cmake: for CMake).
# FVP parameter names as in ExecuTorch's own Corstone-320 runs (backends/arm/test/runner_utils.py).

SILERO_VAD_BOARD_TITLE="Corstone-320"
SILERO_VAD_BOARD_CPU="cortex-m85"
SILERO_VAD_BOARD_PLATFORM_TARGET="corstone-320" # core_platform/targets/<this>
SILERO_VAD_BOARD_ELF="silero_vad_corstone320.elf"
# For silero_vad_fvp_args (boards.sh).
SILERO_VAD_BOARD_FVP_MACS="mps4_board.subsystem.ethosu.num_macs"
SILERO_VAD_BOARD_FVP_QUIET=(
  mps4_board.visualisation.disable-visualisation=1
  vis_hdlcd.disable_visualisation=1
  mps4_board.telnetterminal0.start_telnet=0
)
SILERO_VAD_BOARD_FVP_UART="mps4_board.uart0"

# board_fvp_binary NPU: the FVP of this board with that NPU.
board_fvp_binary() {
  case "$1" in
    ethos-u85) echo "FVP_Corstone_SSE-320" ;;
    *) return 1 ;;
  esac
}
