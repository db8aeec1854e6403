#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# The whole test suite of the Silero VAD example: style checks, pytest (passes,
# export, device twin, segmenter) and the C++ runtime tests. Creates or reuses
# the virtualenv and installs what it needs. Extra arguments go to pytest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=../scripts/python_env.sh
source "${repo_root}/backends/arm/scripts/python_env.sh"

usage() {
  cat <<USAGE
Usage: $0 [pytest arguments]
Runs ruff (lint + format check), pytest over backends/arm/test and the C++ tests.
USAGE
}
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  usage
  exit 0
fi

activate_python_env
cd "${repo_root}"
start=${SECONDS}

echo "== ruff (lint, format)"
ruff check .
ruff format --check .

echo "== pytest"
python -m pytest backends/arm/test "$@"

echo "test_silero_vad.sh: PASS in $((SECONDS - start)) s"
