#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Every check of the C++ runtime on a development machine, stopping at the first
# failure: host build, CTest, unit and model tests under ASan + UBSan, clang-format,
# Cortex-M cross-compile, bounded fuzzing (the Corstone link and FVP run are not here).

set -euo pipefail
# shellcheck source=../scripts/cpp_utils.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/cpp_utils.sh"

scripts="${CPP_REPO_ROOT}/backends/arm/scripts"
build_dir="${CPP_REPO_ROOT}/build/host"
fuzz_seconds=60 skip_fuzz=0 skip_cross=0 skip_sanitizers=0

usage() {
  cat <<EOF
Usage: $(basename "$0") [--fuzz-seconds N] [--skip-fuzz] [--skip-cross] [--skip-sanitizers] [--build-dir DIR]

Builds and tests the C++ runtime (about 3 minutes on 2 cores from a clean tree).

  --fuzz-seconds N   length of the fuzzing run (default: ${fuzz_seconds})
  --skip-fuzz        no fuzzing
  --skip-cross       no Cortex-M85 / Cortex-M55 cross-compile check
  --skip-sanitizers  no ASan/UBSan run of the unit and model tests
  --build-dir DIR    host build tree (default: build/host)
  -h, --help         this text

Installs the Debian packages it needs with apt-get when root, else names them.
EOF
}

mapfile -d '' -t args < <(cpp_split_options "$@")
set -- "${args[@]}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --fuzz-seconds) fuzz_seconds="${2:?--fuzz-seconds needs a value}"; shift 2 ;;
    --skip-fuzz) skip_fuzz=1; shift ;;
    --skip-cross) skip_cross=1; shift ;;
    --skip-sanitizers) skip_sanitizers=1; shift ;;
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

packages=(libgtest-dev clang-format-19)
[[ ${skip_fuzz} -eq 1 && ${skip_sanitizers} -eq 1 ]] || packages+=(clang-19 libclang-rt-19-dev)
[[ ${skip_cross} -eq 1 ]] || packages+=(clang-19 gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib)
cpp_ensure_packages "${packages[@]}"

start=${SECONDS}
step() { cpp_log "=== $* ($((SECONDS - start)) s)"; }

step "1/6 host build"
"${scripts}/build_host_runner.sh" --build-dir "${build_dir}"

step "2/6 ctest"
cpp_activate_venv
ctest --test-dir "${build_dir}" --output-on-failure -j "$(nproc)" ||
  cpp_die "CTest failed (output above)"
tests="$(ctest --test-dir "${build_dir}" -N | awk '/^Total Tests:/ {print $3}')"

sanitizer_summary="skipped"
if [[ ${skip_sanitizers} -eq 0 ]]; then
  step "3/6 unit and model tests under ASan + UBSan (clang-19)"
  # No vptr checks: the core has no RTTI. No leak checks: the 1.4 runtime's libraries
  # keep their allocations at exit. The pip package's runtime is not instrumented.
  sanitize="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
  sanitize_dir="$(dirname "${build_dir}")/sanitize"
  toy_models="${build_dir}/examples/arm/silero_vad/runtime/tests/data/models"
  [[ -f "${toy_models}/toy_state.pte" ]] || cpp_die "no toy programs in ${toy_models} (the host build makes them)"
  cpp_configure "${CPP_REPO_ROOT}" "${sanitize_dir}" -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSILERO_VAD_BUILD_HOST_RUNNER=ON \
    -Dexecutorch_DIR="$(cpp_executorch_package_dir)/share/cmake" \
    -DSILERO_VAD_TEST_MODELS_DIR="${toy_models}" \
    -DCMAKE_CXX_FLAGS="${sanitize}" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DPython3_EXECUTABLE="$(command -v python)" >/dev/null ||
    cpp_die "CMake configure of the sanitizer build failed"
  cmake --build "${sanitize_dir}" -j "$(nproc)" >/dev/null ||
    cpp_die "the sanitizer build failed (cmake --build ${sanitize_dir} shows why)"
  ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
    ctest --test-dir "${sanitize_dir}" -L "unit|model" --output-on-failure -j "$(nproc)" ||
    cpp_die "unit or model tests failed under ASan/UBSan (output above)"
  sanitizer_summary="ok"
else
  step "3/6 sanitizers skipped"
fi

step "4/6 clang-format"
"$(dirname "${BASH_SOURCE[0]}")/check_cpp_format.sh"

cross_summary="skipped"
if [[ ${skip_cross} -eq 0 ]]; then
  step "5/6 Cortex-M85 and Cortex-M55 cross-compile check"
  "${scripts}/cross_compile_check.sh"
  cross_summary="ok"
else
  step "5/6 cross-compile check skipped"
fi

fuzz_summary="skipped"
if [[ ${skip_fuzz} -eq 0 ]]; then
  step "6/6 WAV reader fuzzing, ${fuzz_seconds} s"
  fuzz_summary="$("${CPP_REPO_ROOT}/backends/arm/test/run_wav_fuzzer.sh" "${fuzz_seconds}")"
  echo "${fuzz_summary}"
else
  step "6/6 fuzzing skipped"
fi

cpp_log "PASS: ${tests} CTest tests, ASan/UBSan unit and model tests ${sanitizer_summary}, format clean, cross-compile ${cross_summary}, ${fuzz_summary} ($((SECONDS - start)) s)"
