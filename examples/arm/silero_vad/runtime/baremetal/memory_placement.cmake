# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# The boards, the image's memory pools and where it puts the program, the NPU's arena
# and its fast scratch for the program's Vela memory mode: included by the build, and run
# as a script by build_baremetal.sh to refuse early, without a toolchain or checkout:
#
#   cmake -DSILERO_VAD_BOARD=corstone-300 -DETHOSU_TARGET_NPU_CONFIG=ethos-u65-256 \
#     -DMEMORY_MODE=Dedicated_Sram_384KB -DSILERO_VAD_PTE=model.pte \
#     [-DSILERO_VAD_{METHOD,PLANNED,TEMP}_POOL_BYTES=N] [-DSILERO_VAD_NPU_SRAM_BYTES=N] \
#     [-DPython3_EXECUTABLE=python] -P memory_placement.cmake
#
# On both boards the NPU's AXI0 port reaches the SRAM and AXI1 the DDR:
#
#   mode              constants (the program)  arena     cache (fast scratch)
#   Shared_Sram       AXI1 -> DDR              AXI0 SRAM -
#   Sram_Only         AXI0 -> SRAM             AXI0 SRAM -
#   Dedicated_Sram*   AXI1 -> DDR              AXI1 DDR  AXI0 SRAM
#
# ExecuTorch's Corstone linker scripts place network_model_sec (the program) and
# .bss.tensor_arena (the temporary pool) by ETHOSU_MODEL/ETHOSU_ARENA (0 = SRAM, 1 = DDR);
# .bss.ethosu_scratch (npu_fast_scratch.cpp) is in SRAM.

set(SILERO_VAD_BAREMETAL_DIR "${CMAKE_CURRENT_LIST_DIR}")

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

# silero_vad_size_pools(PYTHON): sets SILERO_VAD_{METHOD,PLANNED,TEMP}_POOL_BYTES
# (decimal) and SILERO_VAD_POOLS_SUMMARY for SILERO_VAD_PTE. Sizes come from pool_sizes.py
# unless given; a given size below the program's need stops, and there is no fallback
# size: an unreadable program needs all three given.
function(silero_vad_size_pools PYTHON)
  execute_process(
    COMMAND "${PYTHON}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/pool_sizes.py"
            --pte "${SILERO_VAD_PTE}" --format cmake
    RESULT_VARIABLE _status OUTPUT_VARIABLE _output ERROR_VARIABLE _error
  )
  # Only pool_sizes.py's own message: torch's import warnings share stderr.
  string(REGEX MATCH "ERROR pool_sizes: [^\n]*" _error "${_error}")
  string(REGEX REPLACE "^ERROR pool_sizes: [^:]*: " "" _error "${_error}")
  set(_parts "")
  set(_missing "")
  foreach(_pool METHOD PLANNED TEMP)
    string(TOLOWER ${_pool} _name)
    set(_variable SILERO_VAD_${_pool}_POOL_BYTES)
    set(_need "")
    set(_derived "")
    if(_status EQUAL 0 AND _output MATCHES "${_name} ([0-9]+) ([0-9]+)")
      set(_need ${CMAKE_MATCH_1})
      set(_derived ${CMAKE_MATCH_2})
    endif()
    set(_size "${${_variable}}")
    if(NOT "${_size}" STREQUAL "")
      math(EXPR _size "${_size}") # may be hexadecimal
      if(NOT "${_need}" STREQUAL "" AND _size LESS _need)
        message(FATAL_ERROR
          "${_variable}=${_size} is smaller than the ${_need} bytes the program needs for "
          "its ${_name} pool (pool_sizes.py --pte ${SILERO_VAD_PTE}): leave it out to size it "
          "from the program (${_derived} bytes with the margin), or pass at least ${_need}.")
      endif()
      list(APPEND _parts "${_name} ${_size} (given)")
    elseif(NOT "${_derived}" STREQUAL "")
      set(_size ${_derived})
      list(APPEND _parts "${_name} ${_size}")
    else()
      list(APPEND _missing ${_variable})
    endif()
    set(${_variable} ${_size} PARENT_SCOPE)
  endforeach()
  if(_missing)
    list(JOIN _missing "=..., -D" _missing_text)
    message(FATAL_ERROR
      "Cannot size the memory pools from ${SILERO_VAD_PTE}: ${_error} Export the program "
      "again, or give the sizes: -D${_missing_text}=... (bytes).")
  endif()
  list(JOIN _parts ", " _summary)
  if(_status EQUAL 0)
    string(APPEND _summary " bytes, from the program")
  else()
    message(WARNING "pool_sizes.py could not read ${SILERO_VAD_PTE} (${_error}): the pool "
                    "sizes given are used unchecked.")
    string(APPEND _summary " bytes, unchecked")
  endif()
  set(SILERO_VAD_POOLS_SUMMARY "pools: ${_summary}" PARENT_SCOPE)
endfunction()

function(_silero_vad_kib OUT BYTES)
  math(EXPR _kib "(${BYTES} + 1023) / 1024")
  set(${OUT} "${_kib} KiB" PARENT_SCOPE)
endfunction()

# silero_vad_plan_memory(): places SILERO_VAD_PTE and the sized pools for MEMORY_MODE on
# the loaded board, checking SILERO_VAD_NPU_SRAM_BYTES (report.json's Vela SRAM) if set.
# Stops saying why when the board cannot place the mode; else sets
# SILERO_VAD_{PROGRAM,ARENA}_REGION (sram|dram), SILERO_VAD_FAST_SCRATCH_BYTES and
# SILERO_VAD_MEMORY_PLAN (one line).
function(silero_vad_plan_memory)
  file(SIZE "${SILERO_VAD_PTE}" _program_bytes)
  math(EXPR _sram_bytes "${SILERO_VAD_BOARD_SRAM_BYTES}") # may be hexadecimal
  set(_npu_sram_bytes "${SILERO_VAD_NPU_SRAM_BYTES}")
  if(NOT _npu_sram_bytes STREQUAL "")
    math(EXPR _npu_sram_bytes "${_npu_sram_bytes}")
  endif()
  set(_mode "${MEMORY_MODE}")
  set(_fast 0)
  set(_fast_note "")
  if(_mode STREQUAL "Shared_Sram")
    set(_program dram)
    set(_arena sram)
  elseif(_mode STREQUAL "Sram_Only")
    set(_program sram)
    set(_arena sram)
  elseif(_mode MATCHES "^Dedicated_Sram(_([0-9]+)(KB|MB))?$")
    if(SILERO_VAD_NPU STREQUAL "ethos-u55")
      message(FATAL_ERROR
        "Memory mode ${_mode} cannot be placed for the Ethos-U55: it has no cache region "
        "(Vela's Dedicated_Sram modes are for the Ethos-U65 and Ethos-U85). Export the "
        "program for Shared_Sram (the Ethos-U55's default) or Sram_Only.")
    endif()
    set(_program dram)
    set(_arena dram)
    if(CMAKE_MATCH_3 STREQUAL "KB")
      math(EXPR _fast "${CMAKE_MATCH_2} * 1024")
    elseif(CMAKE_MATCH_3 STREQUAL "MB")
      math(EXPR _fast "${CMAKE_MATCH_2} * 1024 * 1024")
    else()
      # Vela sets plain Dedicated_Sram no cache limit: ExecuTorch's runner's 384 KiB.
      set(_fast 393216)
      set(_fast_note " (Vela sets no limit for plain Dedicated_Sram: 384 KiB as ExecuTorch's executor_runner)")
    endif()
  else()
    message(FATAL_ERROR
      "Memory mode '${_mode}' is not one this application can place: Shared_Sram, "
      "Sram_Only, Dedicated_Sram or Dedicated_Sram_<N>KB (Vela's Arm/vela.ini modes).")
  endif()

  # What goes to SRAM, with the linker scripts' alignments.
  set(_sram_used ${_fast})
  set(_sram_parts "")
  if(_fast GREATER 0)
    _silero_vad_kib(_fast_kib ${_fast})
    list(APPEND _sram_parts "fast scratch ${_fast_kib}")
  endif()
  if(_program STREQUAL "sram")
    math(EXPR _sram_used "${_sram_used} + (${_program_bytes} + 15) / 16 * 16")
    _silero_vad_kib(_program_kib ${_program_bytes})
    list(APPEND _sram_parts "program ${_program_kib}")
  endif()
  _silero_vad_kib(_temp_kib ${SILERO_VAD_TEMP_POOL_BYTES})
  if(_arena STREQUAL "sram")
    math(EXPR _sram_used "${_sram_used} + (${SILERO_VAD_TEMP_POOL_BYTES} + 31) / 32 * 32")
    list(APPEND _sram_parts "temporary pool ${_temp_kib}")
  endif()
  _silero_vad_kib(_sram_total_kib ${_sram_bytes})
  _silero_vad_kib(_sram_used_kib ${_sram_used})
  list(JOIN _sram_parts " + " _sram_parts_text)
  if(_sram_used GREATER _sram_bytes)
    message(FATAL_ERROR
      "Memory mode ${_mode} cannot be placed on the ${SILERO_VAD_BOARD}: it needs "
      "${_sram_parts_text} = ${_sram_used_kib} in SRAM, which has ${_sram_total_kib}. "
      "Make the temporary pool smaller (-DSILERO_VAD_TEMP_POOL_BYTES=...) or export the "
      "program for Shared_Sram, which keeps it in DDR.")
  endif()

  # Vela's SRAM figure is the cache (Dedicated_Sram) or the arena (the temporary pool).
  if(NOT "${_npu_sram_bytes}" STREQUAL "")
    _silero_vad_kib(_npu_kib ${_npu_sram_bytes})
    if(_fast GREATER 0 AND _npu_sram_bytes GREATER _fast)
      message(FATAL_ERROR
        "The program's Vela plan uses ${_npu_kib} of SRAM cache, more than the "
        "${_fast_kib} fast scratch of ${_mode}${_fast_note}. Export with a sized mode "
        "(Dedicated_Sram_512KB, ...).")
    elseif(_fast EQUAL 0 AND _npu_sram_bytes GREATER SILERO_VAD_TEMP_POOL_BYTES)
      message(FATAL_ERROR
        "The program's Vela arena needs ${_npu_kib}, more than the temporary pool "
        "(${_temp_kib}): pass a larger -DSILERO_VAD_TEMP_POOL_BYTES.")
    endif()
  elseif(_fast_note)
    message(WARNING
      "${_mode}: Vela sets no cache limit for it, the fast scratch is 384 KiB as in "
      "ExecuTorch's executor_runner, and without the export's report.json the program's "
      "cache use is not checked.")
  endif()

  set(_region_sram SRAM)
  set(_region_dram DDR)
  set(_plan "${_mode} on the ${SILERO_VAD_BOARD}: program and weights in ${_region_${_program}}, arena in ${_region_${_arena}}")
  if(_fast GREATER 0)
    string(APPEND _plan ", fast scratch ${_fast_kib} in SRAM${_fast_note}")
  else()
    string(APPEND _plan ", no fast scratch")
  endif()
  string(APPEND _plan "; SRAM ${_sram_used_kib} of ${_sram_total_kib}")
  set(SILERO_VAD_PROGRAM_REGION ${_program} PARENT_SCOPE)
  set(SILERO_VAD_ARENA_REGION ${_arena} PARENT_SCOPE)
  set(SILERO_VAD_FAST_SCRATCH_BYTES ${_fast} PARENT_SCOPE)
  set(SILERO_VAD_MEMORY_PLAN "${_plan}" PARENT_SCOPE)
endfunction()

# As a script (cmake -P, above): the plan alone, for build_baremetal.sh.
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  cmake_minimum_required(VERSION 3.20)
  foreach(_required SILERO_VAD_BOARD ETHOSU_TARGET_NPU_CONFIG MEMORY_MODE SILERO_VAD_PTE)
    if("${${_required}}" STREQUAL "")
      message(FATAL_ERROR "memory_placement.cmake: pass -D${_required}=...")
    endif()
  endforeach()
  if(NOT EXISTS "${SILERO_VAD_PTE}")
    message(FATAL_ERROR "memory_placement.cmake: no program ${SILERO_VAD_PTE}")
  endif()
  silero_vad_load_board("${SILERO_VAD_BOARD}" "${ETHOSU_TARGET_NPU_CONFIG}")
  if(NOT Python3_EXECUTABLE)
    find_program(Python3_EXECUTABLE NAMES python3 python REQUIRED)
  endif()
  silero_vad_size_pools("${Python3_EXECUTABLE}")
  message(STATUS "${SILERO_VAD_POOLS_SUMMARY}")
  silero_vad_plan_memory()
  message(STATUS "${SILERO_VAD_MEMORY_PLAN}")
endif()
