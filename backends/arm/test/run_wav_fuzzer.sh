#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Builds and runs the WAV reader's libFuzzer target (clang-19, ASan + UBSan) seeded
# with the tests' WAV corpus; fails on any crash, leaving the reproducer in artifacts/.

set -euo pipefail
# shellcheck source=../scripts/cpp_utils.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/cpp_utils.sh"

seconds="" runs="" build_dir="${CPP_REPO_ROOT}/build/fuzz" fresh=0

usage() {
  cat <<EOF
Usage: $(basename "$0") [SECONDS] [--seconds S] [--runs N] [--fresh-corpus] [--build-dir DIR]

Fuzzes parse_wav(), WavStreamReader and the frame assembler (runtime/fuzz/
wav_reader_fuzzer.cpp) for SECONDS (default 60) or N executions, whichever ends
first, then prints
  FUZZ executions=<n> seconds=<s> corpus=<files> crashes=<0> sanitizers=address,undefined

  --seconds S       time limit (same as the positional SECONDS)
  --runs N          stop after N executions (without a time limit unless --seconds)
  --fresh-corpus    start from the seeds only (default: keep DIR/corpus)
  --build-dir DIR   build tree and corpus (default: build/fuzz)
  -h, --help        this text

Needs clang-19 and libclang-rt-19-dev (apt-get when root). Replay a crash with
  build/fuzz/examples/arm/silero_vad/runtime/fuzz/wav_reader_fuzzer <file>
EOF
}

mapfile -d '' -t args < <(cpp_split_options "$@")
set -- "${args[@]}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --seconds) seconds="${2:?--seconds needs a value}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a value}"; shift 2 ;;
    --fresh-corpus) fresh=1; shift ;;
    -h|--help) usage; exit 0 ;;
    [0-9]*) seconds="$1"; shift ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done
[[ -n "${seconds}${runs}" ]] || seconds=60
[[ -z "${seconds}" || "${seconds}" =~ ^[0-9]*[1-9][0-9]*$ ]] || cpp_die "SECONDS must be a positive integer, got '${seconds}'"
[[ -z "${runs}" || "${runs}" =~ ^[0-9]*[1-9][0-9]*$ ]] || cpp_die "--runs must be a positive integer, got '${runs}'"

cpp_ensure_packages clang-19 libclang-rt-19-dev
cpp_activate_venv

cpp_configure "${CPP_REPO_ROOT}" "${build_dir}" -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSILERO_VAD_BUILD_HOST_RUNNER=OFF -DSILERO_VAD_BUILD_TESTS=OFF \
  -DSILERO_VAD_BUILD_FUZZER=ON >/dev/null ||
  cpp_die "CMake configure of the fuzzer failed"
cmake --build "${build_dir}" --target wav_reader_fuzzer -j "$(nproc)" >/dev/null ||
  cpp_die "building the fuzzer failed"
fuzzer="${build_dir}/examples/arm/silero_vad/runtime/fuzz/wav_reader_fuzzer"

# Seeds: the test corpus behind a few of the target's 3 parameter bytes.
seeds="${build_dir}/seeds"
corpus="${build_dir}/corpus"
artifacts="${build_dir}/artifacts"
[[ ${fresh} -eq 0 ]] || rm -rf "${corpus}"
rm -rf "${seeds}"
mkdir -p "${corpus}" "${artifacts}" "${seeds}"
python "${CPP_CHECKS_DIR}/make_wav_corpus.py" --out-dir "${seeds}/wav" >/dev/null
python - "${seeds}" <<'PY'
import sys
from pathlib import Path

seeds = Path(sys.argv[1])
# (geometry: even 16 kHz / odd 8 kHz, piece-size seed, read size)
prefixes = [b"\x00\xff\x7f", b"\x00\x00\x00", b"\x00\x06\x10", b"\x01\x1f\x3f"]
for wav in sorted((seeds / "wav").glob("*/*.wav")):
    data = wav.read_bytes()
    for index, prefix in enumerate(prefixes):
        (seeds / f"{wav.parent.name}_{wav.stem}_{index}").write_bytes(prefix + data)
PY
rm -rf "${seeds}/wav"

limits=()
what=""
if [[ -n "${seconds}" ]]; then
  limits+=(-max_total_time="${seconds}")
  what="${seconds} s"
fi
if [[ -n "${runs}" ]]; then
  limits+=(-runs="${runs}")
  what="${what:+${what} or }${runs} executions"
fi
cpp_log "fuzzing for ${what} ($(find "${seeds}" -type f | wc -l) seed inputs, $(find "${corpus}" -type f | wc -l) in the corpus)"
log="${build_dir}/fuzz.log"
status=0
start=${SECONDS}
"${fuzzer}" "${limits[@]}" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="${artifacts}/" \
  "${corpus}" "${seeds}" >"${log}" 2>&1 || status=$?
elapsed=$((SECONDS - start))
executions="$(awk '/^stat::number_of_executed_units:/ {print $2}' "${log}")"
crashes="$(find "${artifacts}" -type f -newer "${seeds}" | wc -l)"
if [[ ${status} -ne 0 ]]; then
  tail -40 "${log}" >&2
  cpp_die "the fuzzer found a problem (exit ${status}); reproducer in ${artifacts}/"
fi
[[ -n "${executions}" ]] || { tail -20 "${log}" >&2; cpp_die "no statistics in ${log}"; }
[[ "${crashes}" -eq 0 ]] || cpp_die "${crashes} new file(s) in ${artifacts}/ although the fuzzer exited 0"
echo "FUZZ executions=${executions} seconds=${elapsed} corpus=$(find "${corpus}" -type f | wc -l) crashes=${crashes} sanitizers=address,undefined"
