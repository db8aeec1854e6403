#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Corstone-320 (SSE-320: Cortex-M85 + Ethos-U85) for the shell scripts;
# sourced through boards.sh's silero_vad_load_board. Build facts are in
# board.cmake next to this file.
#
# FVP parameter names: ExecuTorch's own Corstone-320 runs (executorch 1.4.1 and
# 1.5.1, backends/arm/test/runner_utils.py). The SSE-320 FVP names the board
# "mps4_board", the NPU and CPU "mps4_board.subsystem.ethosu" and
# "mps4_board.subsystem.cpu0", and has an HDLCD window of its own.

SILERO_VAD_BOARD="corstone-320"
SILERO_VAD_BOARD_TITLE="Corstone-320"
SILERO_VAD_BOARD_CPU="cortex-m85"
# Ethos-U SDK: core_platform/targets/<this> (startup, MPU, UART retarget, NPU).
SILERO_VAD_BOARD_PLATFORM_TARGET="corstone-320"
SILERO_VAD_BOARD_ELF="silero_vad_corstone320.elf"

# board_fvp_binary NPU: the FVP that models this board with NPU (ethos-u85).
board_fvp_binary() {
  case "$1" in
    ethos-u85) echo "FVP_Corstone_SSE-320" ;;
    *) return 1 ;;
  esac
}

# board_fvp_args NUM_MACS [SEMIHOSTING_CWD]: sets SILERO_VAD_FVP_ARGS to the
# FVP parameters: UART0 to stdout, unbuffered, shutdown on the 0x04 that ends
# the serial protocol, no visualisation or telnet; with SEMIHOSTING_CWD, the
# CPU's semihosting on with that working directory.
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
  if [[ -n "${2:-}" ]]; then
    SILERO_VAD_FVP_ARGS+=(
      -C "mps4_board.subsystem.cpu0.semihosting-enable=1"
      -C "mps4_board.subsystem.cpu0.semihosting-cwd=$2"
    )
  fi
}
