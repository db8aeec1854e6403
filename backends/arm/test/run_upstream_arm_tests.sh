#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Is our Arm pass-manager guard transparent for models that own no state? Runs a
# selection of the installed executorch release's own Arm backend tests (shipped in the
# wheel under executorch/backends/arm/test/) twice, at the same time: plain, and with
# use_stateful_arm_pass_manager() around every test (the pytest plugin
# backends/arm/test/pytest_stateful_guard.py, which also counts the passes the guard
# wrapped). backends/arm/test/compare_test_outcomes.py then compares the two runs test
# by test. Fails when an outcome differs, when the guard wrapped no pass, or when a test
# fails in both runs without an exclusion (backends/arm/test/upstream_arm_test_exclusions.txt).
#
#   backends/arm/test/run_upstream_arm_tests.sh [--executorch VERSION] [--output-dir DIR]
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
# shellcheck source=../scripts/python_env.sh
source "${repo_root}/backends/arm/scripts/python_env.sh"

exclusions="${repo_root}/backends/arm/test/upstream_arm_test_exclusions.txt"

# The selection, relative to the wheel's executorch/backends/arm/test/, chosen for the
# guard's coverage per minute on 2 cores. All of passes/ (executorch 1.4.1: 526 tests, 6
# of them excluded; 104 run the release's pass manager, which the guard wrapped 13,181
# times; the rest test one pass alone and show that the guard leaves them be). The models
# with recurrent or convolutional parts and the ops samples tried beside it
# (models/test_lstm_arm.py, test_ds_cnn.py, test_deep_autoencoder.py, ops/test_conv1d.py,
# test_sigmoid.py, test_tanh.py) lower whole networks per test: 3 tests in 9 minutes on
# this 2-core machine while other jobs ran, which two releases in the CI budget cannot
# afford.
selection=(
  passes
)

usage() {
  cat <<USAGE
Usage: $0 [--executorch VERSION] [--output-dir DIR]

Runs the installed release's own Arm tests (${selection[*]}) plain and under
use_stateful_arm_pass_manager(), two pytest processes at the same time, and compares
every test's outcome. Tests of upstream_arm_test_exclusions.txt are left out, each with
its reason.

  --executorch VERSION  the release's venv (default: the active one, else ${SILERO_VAD_DEFAULT_EXECUTORCH})
  --output-dir DIR      logs and outcome reports (default: build/upstream_arm_tests/VERSION)
  -h, --help            this text
USAGE
}

executorch=""
output_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --executorch)
      [[ $# -ge 2 && -n "$2" ]] || { echo "ERROR $(basename "$0"): --executorch needs a version" >&2; exit 2; }
      executorch="$2"
      shift 2
      ;;
    --output-dir)
      [[ $# -ge 2 && -n "$2" ]] || { echo "ERROR $(basename "$0"): --output-dir needs a directory" >&2; exit 2; }
      output_dir="$2"
      shift 2
      ;;
    *) echo "ERROR $(basename "$0"): unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

cd "${repo_root}"
activate_python_env ${executorch:+"${executorch}"}
version="${SILERO_VAD_EXECUTORCH_VERSION}"
output_dir="${output_dir:-build/upstream_arm_tests/${version}}"
# find_spec locates the package without importing it (and torch's import-time noise).
tests_dir="$(python -c 'import importlib.util, pathlib; spec = importlib.util.find_spec("executorch"); print(pathlib.Path(list(spec.submodule_search_locations)[0]) / "backends" / "arm" / "test")')"
[[ -f "${tests_dir}/conftest.py" ]] ||
  { echo "ERROR $(basename "$0"): executorch ${version} ships no Arm tests (${tests_dir}/conftest.py)" >&2; exit 1; }
rm -rf "${output_dir}"
mkdir -p "${output_dir}"

# The wheel's tests are run as they are in the release: their own conftest.py (rootdir
# = their directory) and none of our pytest settings (-c /dev/null, as the release's
# conftest suggests). Nothing is written into the venv: no .pytest_cache, no bytecode.
run_tests() {
  local name="$1"
  shift
  PYTHONDONTWRITEBYTECODE=1 python -m pytest -c /dev/null --rootdir "${tests_dir}" \
    -p no:cacheprovider -p backends.arm.test.pytest_stateful_guard \
    --exclusions "${exclusions}" --outcomes-json "${output_dir}/${name}.json" \
    -q -rfE --disable-warnings --durations=20 "$@" "${selection[@]/#/${tests_dir}/}" \
    >"${output_dir}/${name}.log" 2>&1
}

# pytest exits 1 when a test failed: the comparison judges that. Anything else (2
# interrupted, 3 internal error, 4 usage error, 5 no test) means the run did not happen.
check_run() {
  local name="$1" status="$2"
  if [[ ${status} -gt 1 ]]; then
    tail -n 30 "${output_dir}/${name}.log" >&2
    echo "ERROR $(basename "$0"): the ${name} run did not complete (pytest exit ${status}; log: ${output_dir}/${name}.log)" >&2
    exit 1
  fi
  echo "${name}: $(tail -n 1 "${output_dir}/${name}.log")"
}

start=${SECONDS}
echo "executorch ${version}: the release's Arm tests from ${tests_dir}, plain and guarded (logs: ${output_dir})"
run_tests plain &
plain_pid=$!
run_tests guarded --stateful-guard &
guarded_pid=$!
plain_status=0
guarded_status=0
wait "${plain_pid}" || plain_status=$?
wait "${guarded_pid}" || guarded_status=$?
check_run plain "${plain_status}"
check_run guarded "${guarded_status}"

python -m backends.arm.test.compare_test_outcomes "${output_dir}/plain.json" "${output_dir}/guarded.json" 2>&1 |
  tee "${output_dir}/comparison.txt"
echo "run_upstream_arm_tests.sh: PASS on executorch ${version} in $((SECONDS - start)) s"
