# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# silero_vad_size_pools(PTE <program> PYTHON <interpreter>): sets
# SILERO_VAD_{METHOD,PLANNED,TEMP}_POOL_BYTES (decimal) and SILERO_VAD_POOLS_SUMMARY.
# Sizes come from pool_sizes.py unless given; a given size below the program's need
# stops, and there is no fallback size: an unreadable program needs all three given.
function(silero_vad_size_pools)
  cmake_parse_arguments(ARG "" "PTE;PYTHON" "" ${ARGN})
  execute_process(
    COMMAND "${ARG_PYTHON}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/pool_sizes.py"
            --pte "${ARG_PTE}" --format cmake
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
          "its ${_name} pool (pool_sizes.py --pte ${ARG_PTE}): leave it out to size it "
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
      "Cannot size the memory pools from ${ARG_PTE}: ${_error} Export the program "
      "again, or give the sizes: -D${_missing_text}=... (bytes).")
  endif()
  list(JOIN _parts ", " _summary)
  if(_status EQUAL 0)
    string(APPEND _summary " bytes, from the program")
  else()
    message(WARNING "pool_sizes.py could not read ${ARG_PTE} (${_error}): the pool "
                    "sizes given are used unchecked.")
    string(APPEND _summary " bytes, unchecked")
  endif()
  set(SILERO_VAD_POOLS_SUMMARY "pools: ${_summary}" PARENT_SCOPE)
endfunction()
