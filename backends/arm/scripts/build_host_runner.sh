#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Configures and builds the host side of the C++ runtime (top-level
# CMakeLists.txt) against the executorch pip package of the project venv:
# silero_vad_runner, segment_probs, the unit tests and their test data.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

build_dir="${CPP_REPO_ROOT}/build/host"
build_type="Release"
executorch_version=""
executorch_dir=""
tests="ON"
clean=0

usage() {
  cat <<EOF
Usage: $(basename "$0") [options]

Builds build/host/examples/arm/silero_vad/runtime/silero_vad_runner (and the
tests) with the venv's CMake, against <venv site-packages>/executorch.

  --build-dir DIR            build tree (default: build/host)
  --build-type TYPE          CMake build type (default: Release)
  --executorch-version V     venv of this executorch release (default: the
                             project default, see requirements/)
  --executorch-dir DIR       use this executorch package instead (a directory
                             holding share/cmake/executorch-config.cmake)
  --no-tests                 skip the unit tests and their test data
  --clean                    delete the build tree first
  -h, --help                 this text

The tests need GoogleTest (Debian: libgtest-dev), installed with apt-get when
run as root.
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --build-dir=*) build_dir="${1#*=}"; shift ;;
    --build-type) build_type="${2:?--build-type needs a value}"; shift 2 ;;
    --build-type=*) build_type="${1#*=}"; shift ;;
    --executorch-version) executorch_version="${2:?--executorch-version needs a value}"; shift 2 ;;
    --executorch-version=*) executorch_version="${1#*=}"; shift ;;
    --executorch-dir) executorch_dir="${2:?--executorch-dir needs a value}"; shift 2 ;;
    --executorch-dir=*) executorch_dir="${1#*=}"; shift ;;
    --no-tests) tests="OFF"; shift ;;
    --clean) clean=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

if [[ "${tests}" == "ON" ]]; then
  cpp_ensure_packages libgtest-dev
fi
cpp_activate_venv ${executorch_version:+"${executorch_version}"}
if [[ -z "${executorch_dir}" ]]; then
  executorch_dir="$(cpp_executorch_package_dir)"
fi
[[ -f "${executorch_dir}/share/cmake/executorch-config.cmake" ]] ||
  cpp_die "${executorch_dir} holds no share/cmake/executorch-config.cmake"

generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
if [[ ${clean} -eq 1 ]]; then
  rm -rf "${build_dir}"
fi
mkdir -p "$(dirname "${build_dir}")"
# A build tree made by another generator cannot be reused.
if [[ -f "${build_dir}/CMakeCache.txt" ]] &&
  ! grep -q "CMAKE_GENERATOR:INTERNAL=${generator[1]:-Unix Makefiles}" "${build_dir}/CMakeCache.txt"; then
  rm -rf "${build_dir}"
fi

cpp_log "configuring ${build_dir} ($(cmake --version | head -1), executorch at ${executorch_dir})"
cmake -S "${CPP_REPO_ROOT}" -B "${build_dir}" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE="${build_type}" \
  -Dexecutorch_DIR="${executorch_dir}/share/cmake" \
  -DPython3_EXECUTABLE="$(command -v python)" \
  -DSILERO_VAD_BUILD_TESTS="${tests}" >"${build_dir}.configure.log" 2>&1 ||
  { cat "${build_dir}.configure.log" >&2; cpp_die "CMake configure failed (log above)"; }
mv "${build_dir}.configure.log" "${build_dir}/configure.log"
cpp_log "building"
cmake --build "${build_dir}" -j "$(cpp_jobs)"
cpp_log "runner: ${build_dir}/examples/arm/silero_vad/runtime/silero_vad_runner"
