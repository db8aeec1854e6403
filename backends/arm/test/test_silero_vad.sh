#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# The whole test suite of the Silero VAD example: style checks, the C++ runtime
# tests (backends/arm/scripts/run_cpp_tests.sh) and pytest (passes, export,
# device twin, segmenter, the host end-to-end OOTB test). Creates or reuses the
# virtualenv and installs what it needs; Debian packages are installed with
# apt-get when run as root, otherwise it stops and prints the apt-get command.
# Arguments it does not know go to pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=../scripts/python_env.sh
source "${repo_root}/backends/arm/scripts/python_env.sh"

usage() {
  cat <<USAGE
Usage: $0 [--skip-cpp] [--] [pytest arguments]

Runs, in order, stopping at the first failure:
  1. ruff (lint + format check)
  2. backends/arm/scripts/run_cpp_tests.sh: host build, CTest, ASan/UBSan unit tests,
     clang-format, Cortex-M85 cross-compile, 60 s of WAV reader fuzzing
  3. pytest over backends/arm/test (reuses the host build of step 2)

  --skip-cpp   skip step 2 (the pytest OOTB test then builds the host runner alone)
  -h, --help   this text

Debian packages (installed with apt-get when run as root, else the command to run is
printed): libgtest-dev clang-19 libclang-rt-19-dev clang-format-19 gcc-arm-none-eabi
libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib (and python3-venv when the
interpreter lacks venv).
USAGE
}

skip_cpp=0
pytest_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --skip-cpp) skip_cpp=1; shift ;;
    --) shift; pytest_args+=("$@"); break ;;
    *) pytest_args+=("$1"); shift ;;
  esac
done

activate_python_env
cd "${repo_root}"
start=${SECONDS}
stage() {
  echo "== $* ($((SECONDS - start)) s)"
}

stage "ruff (lint, format)"
ruff check .
ruff format --check .

if [[ ${skip_cpp} -eq 0 ]]; then
  stage "C++ runtime: backends/arm/scripts/run_cpp_tests.sh"
  backends/arm/scripts/run_cpp_tests.sh
else
  stage "C++ runtime skipped (--skip-cpp)"
fi

stage "pytest"
python -m pytest backends/arm/test "${pytest_args[@]}"

echo "test_silero_vad.sh: PASS in $((SECONDS - start)) s"
