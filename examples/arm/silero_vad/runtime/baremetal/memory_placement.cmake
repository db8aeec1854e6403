# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# Where the image puts the program, the NPU's arena and its fast scratch for the
# program's Vela memory mode; shared by the build and plan_memory.cmake so both agree.
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

function(_silero_vad_kib OUT BYTES)
  math(EXPR _kib "(${BYTES} + 1023) / 1024")
  set(${OUT} "${_kib} KiB" PARENT_SCOPE)
endfunction()

# silero_vad_plan_memory(BOARD <name> SRAM_BYTES <n> NPU <ethos-uNN> MEMORY_MODE <mode>
#   PROGRAM_BYTES <n> TEMP_POOL_BYTES <n> [NPU_SRAM_BYTES <n>  (report.json's Vela SRAM)])
# Stops saying why when the board cannot place the mode; else sets
# SILERO_VAD_{PROGRAM,ARENA}_REGION (sram|dram), SILERO_VAD_FAST_SCRATCH_BYTES and
# SILERO_VAD_MEMORY_PLAN (one line).
function(silero_vad_plan_memory)
  cmake_parse_arguments(
    ARG "" "BOARD;SRAM_BYTES;NPU;MEMORY_MODE;PROGRAM_BYTES;TEMP_POOL_BYTES;NPU_SRAM_BYTES" ""
    ${ARGN}
  )
  foreach(_size SRAM_BYTES PROGRAM_BYTES TEMP_POOL_BYTES NPU_SRAM_BYTES)
    if(NOT "${ARG_${_size}}" STREQUAL "")
      math(EXPR ARG_${_size} "${ARG_${_size}}") # may be hexadecimal
    endif()
  endforeach()
  set(_mode "${ARG_MEMORY_MODE}")
  set(_fast 0)
  set(_fast_note "")
  if(_mode STREQUAL "Shared_Sram")
    set(_program dram)
    set(_arena sram)
  elseif(_mode STREQUAL "Sram_Only")
    set(_program sram)
    set(_arena sram)
  elseif(_mode MATCHES "^Dedicated_Sram(_([0-9]+)(KB|MB))?$")
    if(ARG_NPU STREQUAL "ethos-u55")
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
    math(EXPR _sram_used "${_sram_used} + (${ARG_PROGRAM_BYTES} + 15) / 16 * 16")
    _silero_vad_kib(_program_kib ${ARG_PROGRAM_BYTES})
    list(APPEND _sram_parts "program ${_program_kib}")
  endif()
  _silero_vad_kib(_temp_kib ${ARG_TEMP_POOL_BYTES})
  if(_arena STREQUAL "sram")
    math(EXPR _sram_used "${_sram_used} + (${ARG_TEMP_POOL_BYTES} + 31) / 32 * 32")
    list(APPEND _sram_parts "temporary pool ${_temp_kib}")
  endif()
  _silero_vad_kib(_sram_total_kib ${ARG_SRAM_BYTES})
  _silero_vad_kib(_sram_used_kib ${_sram_used})
  list(JOIN _sram_parts " + " _sram_parts_text)
  if(_sram_used GREATER ARG_SRAM_BYTES)
    message(FATAL_ERROR
      "Memory mode ${_mode} cannot be placed on the ${ARG_BOARD}: it needs "
      "${_sram_parts_text} = ${_sram_used_kib} in SRAM, which has ${_sram_total_kib}. "
      "Make the temporary pool smaller (-DSILERO_VAD_TEMP_POOL_BYTES=...) or export the "
      "program for Shared_Sram, which keeps it in DDR.")
  endif()

  # Vela's SRAM figure is the cache (Dedicated_Sram) or the arena (the temporary pool).
  if(NOT "${ARG_NPU_SRAM_BYTES}" STREQUAL "")
    _silero_vad_kib(_npu_kib ${ARG_NPU_SRAM_BYTES})
    if(_fast GREATER 0 AND ARG_NPU_SRAM_BYTES GREATER _fast)
      message(FATAL_ERROR
        "The program's Vela plan uses ${_npu_kib} of SRAM cache, more than the "
        "${_fast_kib} fast scratch of ${_mode}${_fast_note}. Export with a sized mode "
        "(Dedicated_Sram_512KB, ...).")
    elseif(_fast EQUAL 0 AND ARG_NPU_SRAM_BYTES GREATER ARG_TEMP_POOL_BYTES)
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

  string(TOUPPER "${_program}" _where_program)
  string(TOUPPER "${_arena}" _where_arena)
  string(REPLACE "DRAM" "DDR" _where_program "${_where_program}")
  string(REPLACE "DRAM" "DDR" _where_arena "${_where_arena}")
  set(_plan "${_mode} on the ${ARG_BOARD}: program and weights in ${_where_program}, arena in ${_where_arena}")
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
