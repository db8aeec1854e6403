#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Builds the host side of the C++ runtime (runner, tools, unit tests and their data)
# against the project venv's executorch package.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

build_dir="${CPP_REPO_ROOT}/build/host" build_type="Release" executorch_version=""
executorch_dir="" tests="ON" clean=0

usage() {
  cat <<EOF
Usage: $(basename "$0") [options]

Builds build/host/examples/arm/silero_vad/runtime/silero_vad_runner and the tests.

  --build-dir DIR            build tree (default: build/host)
  --build-type TYPE          CMake build type (default: Release)
  --executorch-version V     venv of this executorch release (see requirements/)
  --executorch-dir DIR       this executorch package instead (with share/cmake/)
  --no-tests                 skip the unit tests and their test data
  --clean                    delete the build tree first
  -h, --help                 this text

The tests need libgtest-dev (apt-get when root).
EOF
}

mapfile -d '' -t args < <(cpp_split_options "$@")
set -- "${args[@]}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --build-type) build_type="${2:?--build-type needs a value}"; shift 2 ;;
    --executorch-version) executorch_version="${2:?--executorch-version needs a value}"; shift 2 ;;
    --executorch-dir) executorch_dir="${2:?--executorch-dir needs a value}"; shift 2 ;;
    --no-tests) tests="OFF"; shift ;;
    --clean) clean=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

[[ "${tests}" == "OFF" ]] || cpp_ensure_packages libgtest-dev
cpp_activate_venv ${executorch_version:+"${executorch_version}"}
[[ -n "${executorch_dir}" ]] || executorch_dir="$(cpp_executorch_package_dir)"
[[ -f "${executorch_dir}/share/cmake/executorch-config.cmake" ]] ||
  cpp_die "${executorch_dir} holds no share/cmake/executorch-config.cmake"

# --clean, or a tree of another generator (which cannot be reused): start afresh.
if [[ ${clean} -eq 1 ]] || { [[ -f "${build_dir}/CMakeCache.txt" ]] &&
  ! grep -q "CMAKE_GENERATOR:INTERNAL=$(cpp_generator)" "${build_dir}/CMakeCache.txt"; }; then
  rm -rf "${build_dir}"
fi
mkdir -p "$(dirname "${build_dir}")"

cpp_log "configuring ${build_dir} ($(cmake --version | head -1), executorch at ${executorch_dir})"
cpp_configure "${CPP_REPO_ROOT}" "${build_dir}" -DCMAKE_BUILD_TYPE="${build_type}" \
  -Dexecutorch_DIR="${executorch_dir}/share/cmake" \
  -DPython3_EXECUTABLE="$(command -v python)" \
  -DSILERO_VAD_BUILD_TESTS="${tests}" >"${build_dir}.configure.log" 2>&1 ||
  { cat "${build_dir}.configure.log" >&2; cpp_die "CMake configure failed (log above)"; }
mv "${build_dir}.configure.log" "${build_dir}/configure.log"
cpp_log "building"
cmake --build "${build_dir}" -j "$(nproc)"
cpp_log "runner: ${build_dir}/examples/arm/silero_vad/runtime/silero_vad_runner"
