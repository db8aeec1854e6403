#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Checks (or, with --fix, applies) clang-format-19 on every C++ file of the runtime.

set -euo pipefail
# shellcheck source=../scripts/cpp_utils.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/cpp_utils.sh"

fix=0

usage() {
  cat <<EOF
Usage: $(basename "$0") [--fix]

Lists the runtime's C++ files that clang-format-19 would change; exits 1 if any.

  --fix        reformat them in place instead
  -h, --help   this text
Needs clang-format-19 (apt-get when root).
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --fix) fix=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

cpp_ensure_packages clang-format-19
cd "${CPP_REPO_ROOT}"
mapfile -t files < <(find examples/arm/silero_vad/runtime \
  \( -name '*.cpp' -o -name '*.h' \) -not -path '*/build/*' | sort)
[[ ${#files[@]} -gt 0 ]] || cpp_die "no C++ files found"

if [[ ${fix} -eq 1 ]]; then
  clang-format-19 --style=file -i "${files[@]}"
  cpp_log "formatted ${#files[@]} files"
  exit 0
fi

bad=()
for file in "${files[@]}"; do
  clang-format-19 --style=file "${file}" | cmp -s - "${file}" || bad+=("${file}")
done
if [[ ${#bad[@]} -gt 0 ]]; then
  printf '  %s\n' "${bad[@]}" >&2
  cpp_die "${#bad[@]} of ${#files[@]} files are not clang-format-19 clean (fix: $0 --fix)"
fi
cpp_log "${#files[@]} files clang-format-19 clean"
