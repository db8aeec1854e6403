#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Helpers shared by the C++ build and test scripts. Sourced, not run:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

CPP_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
CPP_RUNTIME_DIR="${CPP_REPO_ROOT}/examples/arm/silero_vad/runtime"
# The Python that generates the C++ tests' inputs and checks the runner.
CPP_CHECKS_DIR="${CPP_REPO_ROOT}/examples/arm/silero_vad/verification/runtime_checks"

cpp_die() {
  echo "ERROR $(basename "$0"): $*" >&2
  exit 1
}

cpp_log() {
  echo "[$(basename "$0")] $*" >&2
}

# cpp_ensure_packages PKG...: installs missing Debian packages when running as
# root with apt-get, otherwise stops and prints the command to run.
cpp_ensure_packages() {
  local missing=()
  local package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "${package}" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("${package}")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
    cpp_log "installing ${missing[*]} with apt-get"
    # Update the package lists once if an install fails on stale lists.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 ||
      { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null; } ||
      cpp_die "apt-get install ${missing[*]} failed"
  else
    cpp_die "missing Debian packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}"
  fi
}

# cpp_activate_venv [VERSION]: the project's Python venv (creates it if needed),
# which also provides CMake >= 3.28 and the executorch package.
cpp_activate_venv() {
  # shellcheck source=python_env.sh
  source "${CPP_REPO_ROOT}/backends/arm/scripts/python_env.sh"
  # python_env.sh is written for interactive shells; keep this script strict.
  set +u
  activate_python_env "$@" || { set -u; cpp_die "could not activate the Python environment"; }
  set -u
  command -v cmake >/dev/null 2>&1 || cpp_die "cmake not found in the venv"
}

# Prints <site-packages>/executorch of the active venv.
cpp_executorch_package_dir() {
  local purelib
  purelib="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" ||
    cpp_die "python failed"
  [[ -f "${purelib}/executorch/share/cmake/executorch-config.cmake" ]] ||
    cpp_die "no executorch package in ${purelib} (is the venv complete?)"
  echo "${purelib}/executorch"
}

# Number of parallel build jobs.
cpp_jobs() {
  nproc 2>/dev/null || echo 2
}

# Boards and targets of the bare-metal application (silero_vad_board_for_target,
# silero_vad_load_board).
# shellcheck source=../../../examples/arm/silero_vad/runtime/baremetal/boards.sh
source "${CPP_RUNTIME_DIR}/baremetal/boards.sh"
