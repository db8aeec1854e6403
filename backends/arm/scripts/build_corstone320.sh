#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Builds the Corstone-320 (Cortex-M85 + Ethos-U85) image with a program and a
# clip baked in. Needs what ExecuTorch's own Arm examples need, and says which
# piece is missing and how to get it:
#   - an ExecuTorch source checkout, set up with examples/arm/setup.sh (Arm GNU
#     toolchain, Ethos-U SDK, FVP) and built with `cmake --preset
#     arm-baremetal` + `--target install`;
#   - CMake >= 3.24 (the project venv's).

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

executorch_root="${EXECUTORCH_ROOT:-}"
et_build_dir=""
ethos_sdk=""
toolchain_file=""
pte=""
wav=""
build_dir="${CPP_REPO_ROOT}/build/corstone320"
build_type="Release"
memory_mode="Shared_Sram"
system_config="Ethos_U85_SYS_DRAM_Mid"
npu_config="ethos-u85-256"
extra=()

usage() {
  cat <<EOF
Usage: $(basename "$0") --executorch-root DIR --pte MODEL.pte --wav CLIP.wav [options] [-- CMAKE_ARGS...]

Builds build/corstone320/silero_vad_corstone320.elf; run it with run_fvp.sh.

  --executorch-root DIR   ExecuTorch source checkout (or \$EXECUTORCH_ROOT), at
                          the release the .pte was exported with
  --pte FILE              program exported for the Ethos-U85 (e.g. the
                          export's silero_vad_u85.pte)
  --wav FILE              16 kHz mono 16-bit PCM clip to run
  --et-build-dir DIR      ExecuTorch install (default: <root>/cmake-out-arm)
  --ethos-sdk DIR         Ethos-U SDK (default: <root>/examples/arm/arm-scratch/ethos-u)
  --toolchain-file FILE   CMake toolchain (default: ExecuTorch's arm-none-eabi-gcc.cmake)
  --memory-mode MODE      Shared_Sram (default) or Sram_Only, as exported
  --system-config NAME    Vela system config (default: ${system_config})
  --npu-config NAME       NPU of the FVP (default: ${npu_config})
  --build-dir DIR         build tree (default: build/corstone320)
  --build-type TYPE       CMake build type (default: Release)
  -h, --help              this text

After --, arguments go to CMake, e.g. -DSILERO_VAD_THRESHOLD=0.55 or
-DSILERO_VAD_TEMP_POOL_BYTES=0x100000 (see corstone320/app_config.h).

Preparing ExecuTorch (once):
  git clone https://github.com/pytorch/executorch && cd executorch
  git checkout v1.4.1 && git submodule update --init --recursive
  ./examples/arm/setup.sh --i-agree-to-the-contained-eula
  source examples/arm/arm-scratch/setup_path.sh
  cmake --preset arm-baremetal -DCMAKE_BUILD_TYPE=Release -B cmake-out-arm
  cmake --build cmake-out-arm --target install -j\$(nproc)
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --executorch-root) executorch_root="${2:?--executorch-root needs a value}"; shift 2 ;;
    --et-build-dir) et_build_dir="${2:?--et-build-dir needs a value}"; shift 2 ;;
    --ethos-sdk) ethos_sdk="${2:?--ethos-sdk needs a value}"; shift 2 ;;
    --toolchain-file) toolchain_file="${2:?--toolchain-file needs a value}"; shift 2 ;;
    --pte) pte="${2:?--pte needs a value}"; shift 2 ;;
    --wav) wav="${2:?--wav needs a value}"; shift 2 ;;
    --memory-mode) memory_mode="${2:?--memory-mode needs a value}"; shift 2 ;;
    --system-config) system_config="${2:?--system-config needs a value}"; shift 2 ;;
    --npu-config) npu_config="${2:?--npu-config needs a value}"; shift 2 ;;
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --build-type) build_type="${2:?--build-type needs a value}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

# --- What we build ---
[[ -n "${pte}" && -f "${pte}" ]] || cpp_die "--pte: '${pte}' is not a file (export one for the Ethos-U85 first)"
[[ -n "${wav}" && -f "${wav}" ]] || cpp_die "--wav: '${wav}' is not a file"
pte="$(realpath "${pte}")"
wav="$(realpath "${wav}")"

# --- ExecuTorch checkout ---
setup_hint="run examples/arm/setup.sh in your ExecuTorch checkout (see --help)"
[[ -n "${executorch_root}" ]] ||
  cpp_die "no ExecuTorch checkout: pass --executorch-root DIR or set EXECUTORCH_ROOT (see --help for how to prepare one)"
[[ -f "${executorch_root}/runtime/executor/program.h" ]] ||
  cpp_die "${executorch_root} is not an ExecuTorch source checkout (no runtime/executor/program.h)"
executorch_root="$(realpath "${executorch_root}")"

# --- Arm GNU toolchain (Debian's GCC 12 predates the Cortex-M85) ---
if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 ||
  ! echo "" | arm-none-eabi-gcc -mcpu=cortex-m85 -x c -c -o /dev/null - 2>/dev/null; then
  for setup_path in "${executorch_root}/examples/arm/arm-scratch/setup_path.sh" \
    "${executorch_root}/examples/arm/ethos-u-scratch/setup_path.sh"; do
    if [[ -f "${setup_path}" ]]; then
      cpp_log "sourcing ${setup_path}"
      set +u
      # shellcheck disable=SC1090
      source "${setup_path}"
      set -u
      break
    fi
  done
fi
command -v arm-none-eabi-gcc >/dev/null 2>&1 ||
  cpp_die "arm-none-eabi-gcc not found: ${setup_hint}, or install the Arm GNU Toolchain (13.3 or newer) from developer.arm.com and put its bin/ on PATH"
echo "" | arm-none-eabi-gcc -mcpu=cortex-m85 -x c -c -o /dev/null - 2>/dev/null ||
  cpp_die "$(command -v arm-none-eabi-gcc) ($(arm-none-eabi-gcc -dumpversion)) does not know -mcpu=cortex-m85: use the Arm GNU Toolchain 13.3 or newer (${setup_hint})"

# --- Toolchain file, ExecuTorch build, Ethos-U SDK ---
if [[ -z "${toolchain_file}" ]]; then
  for candidate in "${executorch_root}/examples/arm/ethos-u-setup/arm-none-eabi-gcc.cmake" \
    "${executorch_root}/backends/arm/cmake/arm-none-eabi-gcc.cmake"; do
    [[ -f "${candidate}" ]] && { toolchain_file="${candidate}"; break; }
  done
fi
[[ -n "${toolchain_file}" && -f "${toolchain_file}" ]] ||
  cpp_die "no arm-none-eabi-gcc.cmake toolchain file in ${executorch_root}; pass --toolchain-file FILE"

et_build_dir="${et_build_dir:-${executorch_root}/cmake-out-arm}"
if [[ ! -f "${et_build_dir}/lib/libexecutorch.a" || ! -f "${et_build_dir}/lib/libexecutorch_delegate_ethos_u.a" ]]; then
  cpp_die "ExecuTorch for bare metal is not built in ${et_build_dir}. In ${executorch_root}, run:
  cmake --preset arm-baremetal -DCMAKE_BUILD_TYPE=Release -B cmake-out-arm
  cmake --build cmake-out-arm --target install -j\$(nproc)
(or pass --et-build-dir DIR if it is installed elsewhere)"
fi

if [[ -z "${ethos_sdk}" ]]; then
  for candidate in "${executorch_root}/examples/arm/arm-scratch/ethos-u" \
    "${executorch_root}/examples/arm/ethos-u-scratch/ethos-u"; do
    [[ -d "${candidate}/core_platform" ]] && { ethos_sdk="${candidate}"; break; }
  done
fi
[[ -n "${ethos_sdk}" && -d "${ethos_sdk}/core_platform/targets/corstone-320" ]] ||
  cpp_die "Ethos-U SDK (core_platform with the corstone-320 target) not found: ${setup_hint}, or pass --ethos-sdk DIR"

# --- CMake >= 3.24 from the venv ---
cpp_activate_venv

cpp_log "configuring ${build_dir}"
cmake -S "${CPP_RUNTIME_DIR}/baremetal" -B "${build_dir}" \
  -DCMAKE_TOOLCHAIN_FILE="${toolchain_file}" \
  -DCMAKE_BUILD_TYPE="${build_type}" \
  -DTARGET_CPU=cortex-m85 \
  -DEXECUTORCH_ROOT="${executorch_root}" \
  -DET_BUILD_DIR="${et_build_dir}" \
  -DETHOS_SDK_PATH="${ethos_sdk}" \
  -DSYSTEM_CONFIG="${system_config}" \
  -DMEMORY_MODE="${memory_mode}" \
  -DETHOSU_TARGET_NPU_CONFIG="${npu_config}" \
  -DPython3_EXECUTABLE="$(command -v python)" \
  -DSILERO_VAD_PTE="${pte}" \
  -DSILERO_VAD_WAV="${wav}" \
  "${extra[@]}" || cpp_die "CMake configure failed (see above)"
cpp_log "building"
cmake --build "${build_dir}" -j "$(cpp_jobs)" || cpp_die "build failed (see above)"
elf="${build_dir}/silero_vad_corstone320.elf"
[[ -f "${elf}" ]] || cpp_die "no ${elf} after the build"
arm-none-eabi-size "${elf}" >&2 || true
cpp_log "image: ${elf} (run: backends/arm/scripts/run_fvp.sh --elf ${elf})"
