# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# The sizes of the image's three memory pools (main.cpp: method, planned,
# temporary), taken from the program it bakes in. Included by CMakeLists.txt
# (the build) and plan_memory.cmake (the build script's early check), so both
# size them the same way.
#
# pool_sizes.py reads the program: its memory plan, the Ethos-U delegate's Vela
# scratch (the NPU's arena, taken from the temporary pool) and what loading the
# method costs ExecuTorch, and adds a stated margin (its docstring says which
# and why). A user may still set a pool with -DSILERO_VAD_<POOL>_POOL_BYTES=N;
# a size below what the program needs stops the configuration with both
# figures. There is no fallback size: a program the tool cannot read must come
# with all three sizes.

# silero_vad_size_pools(PTE <program> PYTHON <interpreter>)
#
# Reads the overrides SILERO_VAD_METHOD_POOL_BYTES, SILERO_VAD_PLANNED_POOL_BYTES
# and SILERO_VAD_TEMP_POOL_BYTES (empty: size from the program) and sets them,
# in decimal, in the caller's scope, with:
#   SILERO_VAD_VELA_SCRATCH_BYTES  the program's Vela scratch (0 if unknown)
#   SILERO_VAD_POOLS_SUMMARY       a one-line description
function(silero_vad_size_pools)
  cmake_parse_arguments(ARG "" "PTE;PYTHON" "" ${ARGN})
  foreach(_required PTE PYTHON)
    if("${ARG_${_required}}" STREQUAL "")
      message(FATAL_ERROR "silero_vad_size_pools: ${_required} is missing")
    endif()
  endforeach()
  execute_process(
    COMMAND "${ARG_PYTHON}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/pool_sizes.py"
            --pte "${ARG_PTE}" --format cmake
    RESULT_VARIABLE _status
    OUTPUT_VARIABLE _output
    ERROR_VARIABLE _error
  )
  string(STRIP "${_error}" _error)
  string(REGEX REPLACE "^ERROR pool_sizes: [^:]*: " "" _error "${_error}")
  set(_scratch 0)
  if(_status EQUAL 0 AND _output MATCHES "vela_scratch ([0-9]+)")
    set(_scratch ${CMAKE_MATCH_1})
  endif()
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
      # Given by the user, maybe in hexadecimal (0x4000).
      math(EXPR _size "${_size}")
      if(NOT "${_need}" STREQUAL "" AND _size LESS _need)
        message(
          FATAL_ERROR
            "${_variable}=${_size} is smaller than the ${_need} bytes the "
            "program needs for its ${_name} pool (pool_sizes.py --pte "
            "${ARG_PTE}): leave it out to size it from the program (${_derived} "
            "bytes with the margin), or pass at least ${_need}."
        )
      endif()
      list(APPEND _parts "${_name} ${_size} (given)")
    elseif(NOT "${_derived}" STREQUAL "")
      set(_size ${_derived})
      list(APPEND _parts "${_name} ${_size}")
    else()
      list(APPEND _missing ${_variable})
    endif()
    set(${_variable}
        ${_size}
        PARENT_SCOPE
    )
  endforeach()
  if(_missing)
    list(JOIN _missing "=..., -D" _missing_text)
    message(
      FATAL_ERROR
        "Cannot size the memory pools from ${ARG_PTE}: ${_error} Export the "
        "program again, or give the sizes: -D${_missing_text}=... (bytes)."
    )
  endif()
  list(JOIN _parts ", " _summary)
  if(NOT _status EQUAL 0)
    message(
      WARNING
        "pool_sizes.py could not read ${ARG_PTE} (${_error}): the pool sizes "
        "given are used unchecked."
    )
    string(APPEND _summary " bytes, unchecked")
  else()
    string(APPEND _summary " bytes, from the program")
  endif()
  set(SILERO_VAD_VELA_SCRATCH_BYTES
      ${_scratch}
      PARENT_SCOPE
  )
  set(SILERO_VAD_POOLS_SUMMARY
      "pools: ${_summary}"
      PARENT_SCOPE
  )
endfunction()
