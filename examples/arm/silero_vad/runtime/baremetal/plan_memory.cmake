# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# The build's pool sizes and memory placement without a toolchain or checkout, so
# build_baremetal.sh can refuse early:
#
#   cmake -DSILERO_VAD_BOARD=corstone-300 -DETHOSU_TARGET_NPU_CONFIG=ethos-u65-256 \
#     -DMEMORY_MODE=Dedicated_Sram_384KB -DSILERO_VAD_PTE=model.pte \
#     [-DSILERO_VAD_{METHOD,PLANNED,TEMP}_POOL_BYTES=N] [-DSILERO_VAD_NPU_SRAM_BYTES=N] \
#     [-DPython3_EXECUTABLE=python] -P plan_memory.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/boards.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/memory_placement.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/program_pools.cmake")

foreach(_required SILERO_VAD_BOARD ETHOSU_TARGET_NPU_CONFIG MEMORY_MODE SILERO_VAD_PTE)
  if("${${_required}}" STREQUAL "")
    message(FATAL_ERROR "plan_memory.cmake: pass -D${_required}=...")
  endif()
endforeach()
if(NOT EXISTS "${SILERO_VAD_PTE}")
  message(FATAL_ERROR "plan_memory.cmake: no program ${SILERO_VAD_PTE}")
endif()
silero_vad_load_board("${SILERO_VAD_BOARD}" "${ETHOSU_TARGET_NPU_CONFIG}")
if(NOT Python3_EXECUTABLE)
  find_program(Python3_EXECUTABLE NAMES python3 python REQUIRED)
endif()
silero_vad_size_pools(PTE "${SILERO_VAD_PTE}" PYTHON "${Python3_EXECUTABLE}")
message(STATUS "${SILERO_VAD_POOLS_SUMMARY}")
file(SIZE "${SILERO_VAD_PTE}" _program_bytes)
silero_vad_plan_memory(
  BOARD ${SILERO_VAD_BOARD} SRAM_BYTES ${SILERO_VAD_BOARD_SRAM_BYTES} NPU ${SILERO_VAD_NPU}
  MEMORY_MODE ${MEMORY_MODE} PROGRAM_BYTES ${_program_bytes}
  TEMP_POOL_BYTES ${SILERO_VAD_TEMP_POOL_BYTES} NPU_SRAM_BYTES ${SILERO_VAD_NPU_SRAM_BYTES}
)
message(STATUS "${SILERO_VAD_MEMORY_PLAN}")
