#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Says whether a change kept the device twin's probabilities: runs the main job
# (--conditions none) at REVISION (a git worktree) and at the working tree, with this
# virtualenv, per TARGET:RATE case, and compares every clip's twin/<clip>.bin byte for byte
# (compare_vad_probs says how a differing one differs).
#
#   examples/arm/silero_vad/verification/compare_twin_revisions.sh REVISION \
#       [--case TARGET:RATE ...] [--work-dir DIR]
#
# Default cases: ethos-u85-256:16000 ethos-u55-128:16000 ethos-u65-256:16000
# ethos-u85-256:8000 ethos-u55-128:8000. Exit 0: identical everywhere; 1: a clip differs;
# 2: usage or a failed export.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
# shellcheck source=../../../../backends/arm/scripts/python_env.sh
source "${repo_root}/backends/arm/scripts/python_env.sh"

usage() { sed -n '6,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
[[ $# -ge 1 && "$1" != -h && "$1" != --help ]] || { usage; [[ $# -ge 1 ]]; exit $?; }
revision="$1"
shift
cases=()
work_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --case) cases+=("$2"); shift 2 ;;
    --work-dir) work_dir="$2"; shift 2 ;;
    *) echo "ERROR compare_twin_revisions.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ ${#cases[@]} -gt 0 ]] || cases=(ethos-u85-256:16000 ethos-u55-128:16000 ethos-u65-256:16000
  ethos-u85-256:8000 ethos-u55-128:8000)
git -C "${repo_root}" rev-parse --verify --quiet "${revision}^{commit}" > /dev/null ||
  { echo "ERROR compare_twin_revisions.sh: ${revision} is not a commit of ${repo_root}" >&2; exit 2; }
work_dir="${work_dir:-$(mktemp -d)}"
mkdir -p "${work_dir}"
worktree="${work_dir}/worktree"
git -C "${repo_root}" worktree add --force --detach "${worktree}" "${revision}" > /dev/null
trap 'git -C "${repo_root}" worktree remove --force "${worktree}" 2> /dev/null || true' EXIT

activate_python_env
status=0
for case in "${cases[@]}"; do
  target="${case%%:*}"
  rate="${case##*:}"
  for side in before after; do
    tree="${repo_root}"
    [[ "${side}" == after ]] || tree="${worktree}"
    out="${work_dir}/${target}_${rate}/${side}"
    mkdir -p "${out}"
    echo "== ${target} ${rate} Hz, ${side} (${tree})" >&2
    (cd "${tree}" && python -m examples.arm.silero_vad.run_silero_vad --target "${target}" \
      --sample-rate "${rate}" --conditions none --output-dir "${out}" > "${out}.log" 2>&1) ||
      { echo "ERROR compare_twin_revisions.sh: the ${side} export failed: ${out}.log" >&2; exit 2; }
  done
  root="${work_dir}/${target}_${rate}"
  clips="$(cd "${root}/before/twin" && ls -- *.bin 2> /dev/null || true)"
  if [[ -z "${clips}" || "${clips}" != "$(cd "${root}/after/twin" && ls -- *.bin 2> /dev/null || true)" ]]; then
    echo "${case}: different clips in ${root}/before/twin and ${root}/after/twin" >&2
    status=1
    continue
  fi
  for clip in ${clips}; do
    before="${root}/before/twin/${clip}"
    after="${root}/after/twin/${clip}"
    if cmp -s "${before}" "${after}"; then
      echo "${case} ${clip%.bin}: identical ($(($(stat -c %s "${before}") / 4)) frames)"
    else
      status=1
      detail="$(cd "${repo_root}" && python -m examples.arm.silero_vad.verification.compare_vad_probs \
        "${after}" "${before}" 2>&1 | head -n 1 || true)"
      echo "${case} ${clip%.bin}: DIFFERENT (${detail})"
    fi
  done
done
[[ ${status} -eq 0 ]] && echo "identical: every clip of every case" || echo "DIFFERENT: see above"
exit "${status}"
