#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# The example's main job: run_silero_vad.py (--help lists its options) in the virtualenv of
# the executorch release --executorch VERSION names (requirements/executorch-VERSION.txt).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=../../../backends/arm/scripts/python_env.sh
source "${repo_root}/backends/arm/scripts/python_env.sh"

executorch="" # empty: the release of a calling script's venv, else the project default
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --executorch)
      [[ $# -ge 2 && -n "$2" ]] || { echo "ERROR run.sh: --executorch needs a version (e.g. 1.5.1)" >&2; exit 2; }
      executorch="$2"; shift 2 ;;
    --executorch=*) executorch="${1#*=}"; shift ;;
    -h | --help)
      cat <<USAGE
run.sh option (anywhere among the options of the job below):
  --executorch VERSION  executorch release to run with, in its own venv
                        .venv/executorch-VERSION (default: ${SILERO_VAD_DEFAULT_EXECUTORCH};
                        releases with a requirements/executorch-VERSION.txt;
                        called from a script that chose a release: that one)

USAGE
      args+=("$1"); shift ;;
    --) args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done

activate_python_env ${executorch:+"${executorch}"}
cd "${repo_root}"
exec python -m examples.arm.silero_vad.run_silero_vad "${args[@]}"
