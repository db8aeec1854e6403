#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Compiles (no link) the runtime core and the bare-metal application for both boards'
# CPUs against the pip package's ExecuTorch headers, with -Werror, where no Cortex-M
# ExecuTorch or Ethos-U SDK exists: only the link needs them.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

build_dir="${CPP_REPO_ROOT}/build/cross"
with_gcc=1

usage() {
  cat <<EOF
Usage: $(basename "$0") [--build-dir DIR] [--no-gcc]

Cross-compiles the runtime core and the bare-metal application with -Werror for the
Cortex-M85 (clang-19) and the Cortex-M55 (clang-19, arm-none-eabi-g++ 12), no link.

  --build-dir DIR   objects go here (default: build/cross)
  --no-gcc          only clang-19 (Cortex-M85 and Cortex-M55)
  -h, --help        this text

Needs (installed with apt-get when run as root): clang-19,
gcc-arm-none-eabi, libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-newlib.
EOF
}

mapfile -d '' -t args < <(cpp_split_options "$@")
set -- "${args[@]}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --no-gcc) with_gcc=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

cpp_ensure_packages clang-19 gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib
cpp_activate_venv
et_dir="$(cpp_executorch_package_dir)"

newlib=/usr/lib/arm-none-eabi/include
cxx_version="$(ls "${newlib}/c++" | sort -V | tail -1)"
[[ -n "${cxx_version}" ]] || cpp_die "no libstdc++ headers under ${newlib}/c++"
cxx_inc="${newlib}/c++/${cxx_version}"
multilib="${cxx_inc}/arm-none-eabi/thumb/v8.1-m.main+mve/hard"
[[ -f "${multilib}/bits/c++config.h" ]] || cpp_die "no hard-float Armv8.1-M multilib in ${cxx_inc}"

mkdir -p "${build_dir}/generated"
# Baked arrays of the host test build's toy program, else of any bytes.
toy_pte="${CPP_REPO_ROOT}/build/host/examples/arm/silero_vad/runtime/tests/data/models/toy_state.pte"
sample_pte="${build_dir}/generated/sample.pte"
cp "${toy_pte}" "${sample_pte}" 2>/dev/null || printf '\0\0\0\0ET12' >"${sample_pte}"
python "${CPP_CHECKS_DIR}/make_wav_corpus.py" --out-dir "${build_dir}/wav" >/dev/null
python "${CPP_RUNTIME_DIR}/baremetal/bake_arrays.py" --pte "${sample_pte}" \
  --wav "${build_dir}/wav/good/exactly_one_frame.wav" --out-dir "${build_dir}/generated" >/dev/null

sources=("${CPP_RUNTIME_DIR}"/core/*.cpp
  "${CPP_RUNTIME_DIR}"/baremetal/{main,npu_fast_scratch,platform_glue}.cpp
  "${build_dir}"/generated/baked_{model,wav}.cpp)

flags=(-std=c++17 -fno-exceptions -fno-rtti -Wall -Wextra -Wshadow -Werror -O2
  -ffunction-sections -fdata-sections -DC10_USING_CUSTOM_GENERATED_MACROS
  -I"${CPP_RUNTIME_DIR}/core" -I"${CPP_RUNTIME_DIR}/baremetal"
  -I"${et_dir}/include" -I"${et_dir}/include/executorch/runtime/core/portable_type/c10")
# With stand-ins for the pool sizes the build derives from the program.
common=("${flags[@]}" -DSILERO_VAD_METHOD_POOL_BYTES=4096 -DSILERO_VAD_PLANNED_POOL_BYTES=4096
  -DSILERO_VAD_TEMP_POOL_BYTES=16384)

# check_fast_scratch NAME DEFAULT_OBJECT DEDICATED_OBJECT: the delegate's weak
# ethosu_fast_scratch(_size) defined, in .bss.ethosu_scratch, for Dedicated_Sram only.
check_fast_scratch() {
  local name="$1" default="$2" dedicated="$3" symbols symbol
  ! grep -q 'ethosu_fast_scratch' <<<"$(arm-none-eabi-nm "${default}")" ||
    cpp_die "${name}: npu_fast_scratch.cpp defines ethosu_fast_scratch without SILERO_VAD_FAST_SCRATCH_BYTES"
  symbols="$(arm-none-eabi-nm "${dedicated}")"
  for symbol in ethosu_fast_scratch ethosu_fast_scratch_size; do
    grep -qE "^[0-9a-f]+ [DdBb] ${symbol}\$" <<<"${symbols}" ||
      cpp_die "${name}: the Dedicated_Sram build of npu_fast_scratch.cpp does not define ${symbol} (found: $(echo "${symbols}" | tr '\n' ' '))"
  done
  arm-none-eabi-objdump -h "${dedicated}" | grep -qE '[[:space:]]\.bss\.ethosu_scratch[[:space:]]+00060000' ||
    cpp_die "${name}: no 0x60000-byte section .bss.ethosu_scratch in the Dedicated_Sram build of npu_fast_scratch.cpp"
}

compile_all() {
  local name="$1" out="${build_dir}/$1" source fast refused
  shift
  mkdir -p "${out}"
  for source in "${sources[@]}"; do
    "$@" "${common[@]}" -c "${source}" -o "${out}/$(basename "${source}" .cpp).o" ||
      cpp_die "${name}: ${source} does not compile"
  done
  # The Dedicated_Sram variant of the fast scratch.
  fast="${out}/npu_fast_scratch_dedicated.o"
  "$@" "${common[@]}" -DSILERO_VAD_FAST_SCRATCH_BYTES=0x60000 \
    -c "${CPP_RUNTIME_DIR}/baremetal/npu_fast_scratch.cpp" -o "${fast}" ||
    cpp_die "${name}: npu_fast_scratch.cpp (Dedicated_Sram) does not compile"
  check_fast_scratch "${name}" "${out}/npu_fast_scratch.o" "${fast}"
  # No pool sizes, no image: app_config.h stops the compile with its message.
  if refused="$("$@" "${flags[@]}" -c "${CPP_RUNTIME_DIR}/baremetal/main.cpp" -o "${out}/no_pools.o" 2>&1)"; then
    cpp_die "${name}: main.cpp compiles without the pool sizes (app_config.h must refuse)"
  fi
  grep -q 'Pool sizes not set' <<<"${refused}" ||
    cpp_die "${name}: main.cpp without pool sizes fails, but not with app_config.h's message: ${refused}"
  cpp_log "${name}: $((${#sources[@]} + 1)) files compiled"
  # Our code and data (object_sizes.py: without the baked program and the pools).
  cpp_log "$(python3 "${CPP_RUNTIME_DIR}/baremetal/object_sizes.py" "${out}")"
}

clang_newlib=(-nostdlibinc -isystem "${cxx_inc}" -isystem "${multilib}" -isystem "${newlib}")
for cpu in cortex-m85 cortex-m55; do
  compile_all "clang19-${cpu}" clang++-19 --target=arm-none-eabi -mcpu="${cpu}" -mfloat-abi=hard -mthumb \
    "${clang_newlib[@]}"
done
compilers="clang-19"
if [[ ${with_gcc} -eq 1 ]]; then
  compile_all gcc12-cortex-m55 arm-none-eabi-g++ -mcpu=cortex-m55 -mfloat-abi=hard -mthumb
  compilers="clang-19 and GCC 12"
fi
cpp_log "OK: the core and the bare-metal application compile for the Cortex-M85 (Corstone-320, clang-19) and the Cortex-M55 (Corstone-300, ${compilers})"
