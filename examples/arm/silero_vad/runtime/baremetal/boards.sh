#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# The boards of the Ethos-U targets, for the scripts (CMake: memory_placement.cmake). Sourced:
#
#   board="$(silero_vad_board_for_target ethos-u55-128)"   # corstone-300
#   silero_vad_load_board "${board}"                       # its <board>/board.sh

SILERO_VAD_BAREMETAL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The Ethos-U targets (Vela accelerator configurations) the boards' FVPs model.
SILERO_VAD_TARGETS_HELP="ethos-u55-32/64/128/256 or ethos-u65-256/512 (Corstone-300, Cortex-M55), ethos-u85-128/256/512/1024/2048 (Corstone-320, Cortex-M85)"

# silero_vad_board_for_target TARGET: prints the board of an Ethos-U target, else fails.
silero_vad_board_for_target() {
  case "$1" in
    ethos-u55-32 | ethos-u55-64 | ethos-u55-128 | ethos-u55-256 | ethos-u65-256 | ethos-u65-512)
      echo corstone-300 ;;
    ethos-u85-128 | ethos-u85-256 | ethos-u85-512 | ethos-u85-1024 | ethos-u85-2048) echo corstone-320 ;;
    *) return 1 ;;
  esac
}

# silero_vad_load_board BOARD: sources its board.sh (SILERO_VAD_BOARD_*, board_fvp_binary).
silero_vad_load_board() {
  local file="${SILERO_VAD_BAREMETAL_DIR}/${1//-/}/board.sh"
  [[ -f "${file}" ]] || { echo "ERROR boards.sh: no board '$1' (${file} missing)" >&2; return 1; }
  # shellcheck disable=SC1090
  source "${file}"
}

# silero_vad_fvp_args NUM_MACS: sets SILERO_VAD_FVP_ARGS for the loaded board: UART0 to
# stdout, unbuffered, shutdown on the protocol's closing 0x04, no visualisation or telnet.
silero_vad_fvp_args() {
  local uart="${SILERO_VAD_BOARD_FVP_UART}" parameter
  SILERO_VAD_FVP_ARGS=()
  for parameter in "${SILERO_VAD_BOARD_FVP_MACS}=$1" "${SILERO_VAD_BOARD_FVP_QUIET[@]}" \
    "${uart}.out_file=-" "${uart}.unbuffered_output=1" "${uart}.shutdown_on_eot=1"; do
    SILERO_VAD_FVP_ARGS+=(-C "${parameter}")
  done
}
