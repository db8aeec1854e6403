#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Says whether a change kept the device twin's probabilities: exports the default at
# REVISION (a git worktree) and at the working tree, for each target and sample rate
# asked for, runs the device twin on the committed validation clips and compares every
# clip's twin/<clip>.bin byte for byte. Both sides run on this machine with this
# virtualenv, so only the code differs.
#
#   examples/arm/silero_vad/verification/compare_twin_revisions.sh REVISION \
#       [--case TARGET:RATE ...] [--work-dir DIR]
#
# Default cases: ethos-u85-256:16000 ethos-u55-128:16000 ethos-u65-256:16000
# ethos-u85-256:8000 ethos-u55-128:8000. Exit 0: identical everywhere; 1: a clip differs
# (named, with its largest difference); 2: usage or a failed export.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
# shellcheck source=../../../../backends/arm/scripts/python_env.sh
source "${repo_root}/backends/arm/scripts/python_env.sh"

usage() { sed -n '6,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
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
  python - "${work_dir}/${target}_${rate}" "${case}" << 'PY' || status=1
import sys
from pathlib import Path

import numpy as np

root, case = Path(sys.argv[1]), sys.argv[2]
before = sorted((root / "before" / "twin").glob("*.bin"))
after = {path.name: path for path in (root / "after" / "twin").glob("*.bin")}
if not before or sorted(after) != [path.name for path in before]:
    sys.exit(f"{case}: different clips: {[p.name for p in before]} vs {sorted(after)}")
differ = 0
for path in before:
    old, new = path.read_bytes(), after[path.name].read_bytes()
    if old == new:
        print(f"{case} {path.stem}: identical ({len(old) // 4} frames)")
        continue
    differ += 1
    a, b = np.frombuffer(old, "<f4"), np.frombuffer(new, "<f4")
    detail = f"max abs {np.abs(a - b).max():.3g}" if a.size == b.size else f"{a.size} vs {b.size} frames"
    print(f"{case} {path.stem}: DIFFERENT ({detail})")
sys.exit(1 if differ else 0)
PY
done
[[ ${status} -eq 0 ]] && echo "identical: every clip of every case" || echo "DIFFERENT: see above"
exit "${status}"
