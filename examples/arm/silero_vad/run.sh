#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# The example's main job. Creates or reuses the virtualenv, then runs
# examples/arm/silero_vad/run_silero_vad.py with the given options (--help).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=../../../backends/arm/scripts/python_env.sh
source "${repo_root}/backends/arm/scripts/python_env.sh"
activate_python_env
cd "${repo_root}"
exec python -m examples.arm.silero_vad.run_silero_vad "$@"
