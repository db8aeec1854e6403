#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Builds the libFuzzer target of the WAV reader (clang-19, ASan + UBSan) and
# runs it for a bounded time, seeded with the good and bad WAV corpus of the
# tests. Exits non-zero on any crash, sanitizer report or invariant failure,
# leaving the reproducer in build/fuzz/artifacts/.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

seconds=60
build_dir="${CPP_REPO_ROOT}/build/fuzz"

usage() {
  cat <<EOF
Usage: $(basename "$0") [SECONDS] [--build-dir DIR]

Fuzzes parse_wav() + the frame assembler for SECONDS (default ${seconds}).
Prints "FUZZ executions=<n> seconds=<s> corpus=<files>" at the end.

  --build-dir DIR   build tree and corpus (default: build/fuzz)
  -h, --help        this text

Needs clang-19 and libclang-rt-19-dev (libFuzzer, sanitizers), installed with
apt-get when run as root. Replay a crash input with:
  build/fuzz/examples/arm/silero_vad/runtime/fuzz/wav_reader_fuzzer <file>
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --build-dir=*) build_dir="${1#*=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    [0-9]*) seconds="$1"; shift ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done
[[ "${seconds}" =~ ^[0-9]+$ && "${seconds}" -gt 0 ]] || cpp_die "SECONDS must be a positive integer"

cpp_ensure_packages clang-19 libclang-rt-19-dev
cpp_activate_venv

generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
cmake -S "${CPP_REPO_ROOT}" -B "${build_dir}" "${generator[@]}" \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSILERO_VAD_BUILD_HOST_RUNNER=OFF -DSILERO_VAD_BUILD_TESTS=OFF \
  -DSILERO_VAD_BUILD_FUZZER=ON >/dev/null ||
  cpp_die "CMake configure of the fuzzer failed"
cmake --build "${build_dir}" --target wav_reader_fuzzer -j "$(cpp_jobs)" >/dev/null ||
  cpp_die "building the fuzzer failed"
fuzzer="${build_dir}/examples/arm/silero_vad/runtime/fuzz/wav_reader_fuzzer"

# Seeds: the accepted and refused files of the test corpus. The working
# corpus keeps what the fuzzer finds across runs.
seeds="${build_dir}/seeds"
corpus="${build_dir}/corpus"
artifacts="${build_dir}/artifacts"
mkdir -p "${corpus}" "${artifacts}"
python "${CPP_RUNTIME_DIR}/tests/make_wav_corpus.py" --out-dir "${seeds}" >/dev/null
rm -f "${seeds}"/*/expected.tsv

cpp_log "fuzzing for ${seconds} s ($(find "${seeds}" -name '*.wav' | wc -l) seed files)"
log="${build_dir}/fuzz.log"
status=0
"${fuzzer}" -max_total_time="${seconds}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="${artifacts}/" \
  "${corpus}" "${seeds}/good" "${seeds}/bad" >"${log}" 2>&1 || status=$?
executions="$(awk '/^stat::number_of_executed_units:/ {print $2}' "${log}")"
if [[ ${status} -ne 0 ]]; then
  tail -40 "${log}" >&2
  cpp_die "the fuzzer found a problem (exit ${status}); reproducer in ${artifacts}/"
fi
[[ -n "${executions}" ]] || { tail -20 "${log}" >&2; cpp_die "no statistics in ${log}"; }
echo "FUZZ executions=${executions} seconds=${seconds} corpus=$(find "${corpus}" -type f | wc -l)"
