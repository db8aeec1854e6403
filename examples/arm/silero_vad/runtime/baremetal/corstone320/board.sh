#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Corstone-320 (SSE-320: Cortex-M85 + Ethos-U85),
# for the scripts (board.cmake: for CMake).
# FVP parameter names as in ExecuTorch's own Corstone-320 runs (backends/arm/test/runner_utils.py).

SILERO_VAD_BOARD="corstone-320"
SILERO_VAD_BOARD_TITLE="Corstone-320"
SILERO_VAD_BOARD_CPU="cortex-m85"
SILERO_VAD_BOARD_PLATFORM_TARGET="corstone-320" # core_platform/targets/<this>
SILERO_VAD_BOARD_ELF="silero_vad_corstone320.elf"

# board_fvp_binary NPU: the FVP of this board with that NPU.
board_fvp_binary() {
  case "$1" in
    ethos-u85) echo "FVP_Corstone_SSE-320" ;;
    *) return 1 ;;
  esac
}

# board_fvp_args NUM_MACS [SEMIHOSTING_CWD]: sets SILERO_VAD_FVP_ARGS: UART0 to stdout,
# unbuffered, shutdown on the protocol's closing 0x04, no visualisation or telnet;
# with SEMIHOSTING_CWD, semihosting on in that directory.
board_fvp_args() {
  SILERO_VAD_FVP_ARGS=(
    -C "mps4_board.subsystem.ethosu.num_macs=$1"
    -C "mps4_board.visualisation.disable-visualisation=1"
    -C "vis_hdlcd.disable_visualisation=1"
    -C "mps4_board.telnetterminal0.start_telnet=0"
    -C "mps4_board.uart0.out_file=-"
    -C "mps4_board.uart0.unbuffered_output=1"
    -C "mps4_board.uart0.shutdown_on_eot=1"
  )
  local cpu="mps4_board.subsystem.cpu0"
  [[ -z "${2:-}" ]] ||
    SILERO_VAD_FVP_ARGS+=(-C "${cpu}.semihosting-enable=1" -C "${cpu}.semihosting-cwd=$2")
}
