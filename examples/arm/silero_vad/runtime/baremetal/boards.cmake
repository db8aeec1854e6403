# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# The boards and their Ethos-U targets, for CMake (boards.sh says the same for the scripts).

set(SILERO_VAD_BAREMETAL_DIR "${CMAKE_CURRENT_LIST_DIR}")

# silero_vad_board_of_target(OUT TARGET): the board of an Ethos-U target, or "".
function(silero_vad_board_of_target OUT TARGET)
  set(_board "")
  if("${TARGET}" MATCHES "^ethos-u(55|65)-")
    set(_board corstone-300)
  elseif("${TARGET}" MATCHES "^ethos-u85-")
    set(_board corstone-320)
  endif()
  set(${OUT} "${_board}" PARENT_SCOPE)
endfunction()

# silero_vad_load_board(BOARD TARGET): includes the board's board.cmake
# (SILERO_VAD_BOARD_*), checks that TARGET is one of its NPUs and sets SILERO_VAD_NPU.
macro(silero_vad_load_board BOARD TARGET)
  if(NOT "${BOARD}" MATCHES "^corstone-3[02]0$")
    message(FATAL_ERROR
      "Board '${BOARD}' is not corstone-300 or corstone-320 (-DSILERO_VAD_BOARD=...).")
  endif()
  string(REPLACE "-" "" _silero_vad_board_folder "${BOARD}")
  include("${SILERO_VAD_BAREMETAL_DIR}/${_silero_vad_board_folder}/board.cmake")
  if(NOT "${TARGET}" MATCHES "^(ethos-u[0-9]+)-[0-9]+$")
    message(FATAL_ERROR
      "'${TARGET}' is not an Ethos-U target such as ethos-u55-128 "
      "(-DETHOSU_TARGET_NPU_CONFIG=...).")
  endif()
  set(SILERO_VAD_NPU "${CMAKE_MATCH_1}")
  if(NOT SILERO_VAD_NPU IN_LIST SILERO_VAD_BOARD_NPUS)
    list(JOIN SILERO_VAD_BOARD_NPUS " or " _silero_vad_npus)
    message(FATAL_ERROR
      "The ${BOARD} has no ${SILERO_VAD_NPU} (it has ${_silero_vad_npus}): ethos-u55/u65 "
      "programs run on the corstone-300, ethos-u85 programs on the corstone-320.")
  endif()
endmacro()
