# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

# silero_vad::executorch: the ExecuTorch runtime, CPU kernels, quantized
# kernels, XNNPACK backend and thread pool of the pip package, from executorch
# >= 1.5's imported targets or 1.4's Python extension _portable_lib (which
# needs libpython, carries the XNNPACK backend and the thread pool, and whose
# self-registering quantized kernels are linked with --no-as-needed). A missing
# kernel or backend only shows at load_method() ("Missing operator", "backend
# not registered"): the model tests load a program with quantize/dequantize
# ops, and the runner tests an XNNPACK program (SILERO_VAD_HAS_XNNPACK says
# whether it must run or be refused).

find_package(executorch REQUIRED CONFIG)

add_library(silero_vad_executorch INTERFACE)
add_library(silero_vad::executorch ALIAS silero_vad_executorch)

if(TARGET executorch::runtime)
  message(STATUS "silero_vad: ExecuTorch runtime from executorch::runtime")
  target_link_libraries(silero_vad_executorch INTERFACE executorch::runtime)
  if(TARGET executorch::kernels_optimized)
    target_link_libraries(
      silero_vad_executorch INTERFACE executorch::kernels_optimized
    )
  else()
    message(
      FATAL_ERROR
        "This executorch package has no executorch::kernels_optimized: the "
        "runner would load no model. Install a CPU wheel of executorch."
    )
  endif()
  if(TARGET executorch::kernels_quantized)
    target_link_libraries(
      silero_vad_executorch INTERFACE executorch::kernels_quantized
    )
  else()
    message(
      WARNING
        "executorch::kernels_quantized not found: quantized programs will "
        "fail with 'Missing operator'."
    )
  endif()
  if(TARGET executorch::backend_xnnpack)
    target_link_libraries(
      silero_vad_executorch INTERFACE executorch::backend_xnnpack
    )
    set(SILERO_VAD_HAS_XNNPACK ON)
  else()
    message(
      STATUS
        "silero_vad: this executorch package ships no XNNPACK backend: the "
        "runner refuses xnnpack programs, naming the backend"
    )
    set(SILERO_VAD_HAS_XNNPACK OFF)
  endif()
  if(TARGET executorch::threadpool)
    target_link_libraries(silero_vad_executorch INTERFACE executorch::threadpool)
    target_compile_definitions(
      silero_vad_executorch INTERFACE SILERO_VAD_HOST_THREADPOOL=1
    )
  endif()
elseif(TARGET _portable_lib)
  message(
    STATUS "silero_vad: ExecuTorch runtime from the _portable_lib extension"
  )
  get_filename_component(
    _silero_vad_et_root "${EXECUTORCH_INCLUDE_DIRS}/.." ABSOLUTE
  )
  set(_silero_vad_quantized
      "${_silero_vad_et_root}/kernels/quantized/libquantized_ops_aot_lib.so"
  )
  if(NOT EXISTS "${_silero_vad_quantized}")
    message(
      FATAL_ERROR
        "Quantized kernels not found at ${_silero_vad_quantized}; is the "
        "executorch package complete?"
    )
  endif()
  # The venv's interpreter tells which libpython the extension was built for.
  find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Embed)
  target_include_directories(
    silero_vad_executorch
    INTERFACE "${_silero_vad_et_root}/include"
              "${_silero_vad_et_root}/include/executorch/runtime/core/portable_type/c10"
  )
  target_compile_definitions(
    silero_vad_executorch INTERFACE C10_USING_CUSTOM_GENERATED_MACROS
                                    SILERO_VAD_HOST_THREADPOOL=1
  )
  set(SILERO_VAD_HAS_XNNPACK ON)
  target_link_libraries(
    silero_vad_executorch
    INTERFACE
      _portable_lib
      "-Wl,--push-state,--no-as-needed,${_silero_vad_quantized},--pop-state"
      Python3::Python
  )
  # Their own dependencies resolve through their RUNPATH.
  get_filename_component(_silero_vad_portable_dir "${_portable_lib_LIBRARY}"
                         DIRECTORY
  )
  target_link_options(
    silero_vad_executorch
    INTERFACE
    "LINKER:-rpath,${_silero_vad_portable_dir}"
    "LINKER:-rpath,${_silero_vad_et_root}/kernels/quantized"
  )
else()
  message(
    FATAL_ERROR
      "The executorch package at ${executorch_DIR} offers neither "
      "executorch::runtime (>= 1.5) nor _portable_lib (1.4). Point "
      "executorch_DIR at <site-packages>/executorch/share/cmake of a CPU wheel."
  )
endif()
