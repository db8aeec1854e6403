#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Corstone-300 (SSE-300: Cortex-M55 + Ethos-U55 or Ethos-U65) for the shell
# scripts; sourced through boards.sh's silero_vad_load_board. Build facts are
# in board.cmake next to this file.
#
# FVP parameter names: ExecuTorch's own Corstone-300 runs (executorch 1.4.1 and
# 1.5.1, backends/arm/test/runner_utils.py; backends/arm/scripts/run_fvp.sh for
# uart0.shutdown_on_eot), unbuffered_output as the Ethos-U core_platform's
# corstone-300 target passes it. The SSE-300 FVPs name the board "mps3_board"
# and the NPU "ethosu" at the top level, the CPU "cpu0".

SILERO_VAD_BOARD="corstone-300"
SILERO_VAD_BOARD_TITLE="Corstone-300"
SILERO_VAD_BOARD_CPU="cortex-m55"
# Ethos-U SDK: core_platform/targets/<this> (startup, MPU, UART retarget, NPU).
SILERO_VAD_BOARD_PLATFORM_TARGET="corstone-300"
SILERO_VAD_BOARD_ELF="silero_vad_corstone300.elf"

# board_fvp_binary NPU: the FVP that models this board with NPU (ethos-u55 or
# ethos-u65). An image built for one NPU does not run on the other's FVP.
board_fvp_binary() {
  case "$1" in
    ethos-u55) echo "FVP_Corstone_SSE-300_Ethos-U55" ;;
    ethos-u65) echo "FVP_Corstone_SSE-300_Ethos-U65" ;;
    *) return 1 ;;
  esac
}

# board_fvp_args NUM_MACS [SEMIHOSTING_CWD]: sets SILERO_VAD_FVP_ARGS to the
# FVP parameters: UART0 to stdout, unbuffered, shutdown on the 0x04 that ends
# the serial protocol, no visualisation or telnet; with SEMIHOSTING_CWD, the
# CPU's semihosting on with that working directory.
board_fvp_args() {
  SILERO_VAD_FVP_ARGS=(
    -C "ethosu.num_macs=$1"
    -C "mps3_board.visualisation.disable-visualisation=1"
    -C "mps3_board.telnetterminal0.start_telnet=0"
    -C "mps3_board.uart0.out_file=-"
    -C "mps3_board.uart0.unbuffered_output=1"
    -C "mps3_board.uart0.shutdown_on_eot=1"
  )
  if [[ -n "${2:-}" ]]; then
    SILERO_VAD_FVP_ARGS+=(
      -C "cpu0.semihosting-enable=1"
      -C "cpu0.semihosting-cwd=$2"
    )
  fi
}
