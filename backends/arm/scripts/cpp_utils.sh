#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Helpers of the C++ build and test scripts. Sourced:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"
# shellcheck disable=SC2034  # the CPP_* variables are for the scripts that source this

# shellcheck source=python_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/python_env.sh"
# shellcheck source=../../../examples/arm/silero_vad/runtime/baremetal/boards.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../examples/arm/silero_vad/runtime/baremetal/boards.sh"

CPP_REPO_ROOT="${SILERO_VAD_REPO_ROOT}"
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

# cpp_ensure_packages PKG...: installs the missing Debian packages (see silero_vad_apt_install).
cpp_ensure_packages() {
  local missing=() package
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "${package}" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("${package}")
  done
  [[ ${#missing[@]} -eq 0 ]] || silero_vad_apt_install "${missing[@]}" || exit 1
}

# cpp_activate_venv [VERSION]: the project's venv, which also has CMake and executorch.
cpp_activate_venv() {
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

# The CMake generator: Ninja when there is one.
cpp_generator() {
  if command -v ninja >/dev/null 2>&1; then echo Ninja; else echo "Unix Makefiles"; fi
}

# cpp_configure SOURCE BUILD ARGS...: cmake -S SOURCE -B BUILD with cpp_generator's Ninja.
cpp_configure() {
  local generator=()
  [[ "$(cpp_generator)" != Ninja ]] || generator=(-G Ninja)
  cmake -S "$1" -B "$2" "${generator[@]}" "${@:3}"
}

# cpp_split_options ARGS...: the arguments NUL-separated, --name=value (before a lone --)
# as --name and value, so that the scripts parse one form.
cpp_split_options() {
  while [[ $# -gt 0 && "$1" != "--" ]]; do
    if [[ "$1" == --*=* ]]; then
      printf '%s\0%s\0' "${1%%=*}" "${1#*=}"
    else
      printf '%s\0' "$1"
    fi
    shift
  done
  [[ $# -eq 0 ]] || printf '%s\0' "$@"
}
