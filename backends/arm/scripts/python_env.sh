#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Creates (or reuses) the venv of one executorch release and activates it. Sourced:
#
#   source backends/arm/scripts/python_env.sh
#   activate_python_env 1.4.1
#
# The venv is .venv/executorch-<version>/ (root: SILERO_VAD_VENV_ROOT), reinstalled when
# its requirement file changes; pip's own settings (PIP_INDEX_URL, pip.conf) are honoured.

SILERO_VAD_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
SILERO_VAD_DEFAULT_EXECUTORCH="1.4.1"

_python_env_die() {
  echo "ERROR python_env: $*" >&2
  return 1
}

# silero_vad_apt_install PKG...: apt-get install as root, else fail printing the command.
silero_vad_apt_install() {
  if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ERROR $(basename "$0"): missing Debian packages: $*; run: sudo apt-get install $*" >&2
    return 1
  fi
  echo "[$(basename "$0")] installing $* with apt-get" >&2
  # Update the package lists once if an install fails on stale lists.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 ||
    { DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; } ||
    { echo "ERROR $(basename "$0"): apt-get install $* failed" >&2; return 1; }
}

# Prints a Python 3.11 interpreter (the executorch wheels' version), or fails.
_find_python311() {
  local candidate
  for candidate in "${PYTHON:-}" python3.11 python3; do
    command -v "${candidate}" >/dev/null 2>&1 || continue
    if "${candidate}" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      command -v "${candidate}"
      return 0
    fi
  done
  _python_env_die "Python 3.11 not found (executorch 1.4.1 wheels are built for it); install python3.11 or set PYTHON=/path/to/python3.11"
}

# remove_interrupted_venv VENV: removes a venv whose python runs but has no pip (its
# creation was interrupted before ensurepip finished), so that it is made again.
remove_interrupted_venv() {
  local venv="$1"
  if [[ -x "${venv}/bin/python" ]] && ! "${venv}/bin/python" -m pip --version >/dev/null 2>&1; then
    echo "python_env: ${venv} has no pip (its setup was interrupted): making it again" >&2
    rm -rf "${venv}"
  fi
}

# activate_python_env [VERSION]: create or reuse the venv of that release and activate it.
# Default: the release a parent script chose (SILERO_VAD_EXECUTORCH_VERSION), else ours.
activate_python_env() {
  local version="${1:-${SILERO_VAD_EXECUTORCH_VERSION:-${SILERO_VAD_DEFAULT_EXECUTORCH}}}"
  local requirements="${SILERO_VAD_REPO_ROOT}/requirements/executorch-${version}.txt"
  [[ -f "${requirements}" ]] ||
    { _python_env_die "no requirement file for executorch ${version} (${requirements}); supported: $(cd "${SILERO_VAD_REPO_ROOT}/requirements" && ls executorch-*.txt | sed 's/executorch-//; s/\.txt//' | tr '\n' ' ')"; return 1; }
  local venv_root="${SILERO_VAD_VENV_ROOT:-${SILERO_VAD_REPO_ROOT}/.venv}"
  local venv="${venv_root}/executorch-${version}"
  local stamp="${venv}/.requirements.sha256"
  local wanted
  wanted="$(sha256sum "${requirements}" | cut -d' ' -f1)"

  remove_interrupted_venv "${venv}"
  if [[ ! -x "${venv}/bin/python" ]]; then
    local python
    python="$(_find_python311)" || return 1
    # Debian splits venv support into python3-venv.
    "${python}" -c 'import ensurepip, venv' 2>/dev/null || silero_vad_apt_install python3-venv || return 1
    echo "python_env: creating ${venv}" >&2
    mkdir -p "${venv_root}"
    "${python}" -m venv "${venv}" || { _python_env_die "could not create ${venv}"; return 1; }
  fi
  if [[ "$(cat "${stamp}" 2>/dev/null)" != "${wanted}" ]]; then
    echo "python_env: installing requirements/executorch-${version}.txt into ${venv} (a few minutes the first time)" >&2
    # (Drop pip's per-package notes about unreachable local index folders.)
    { "${venv}/bin/python" -m pip install --quiet --upgrade pip &&
      "${venv}/bin/python" -m pip install --quiet -r "${requirements}"; } \
      2> >(grep -v "is ignored: it is neither a file nor a directory" >&2) >&2 ||
      { _python_env_die "pip install -r ${requirements} failed (see pip's message above)"; return 1; }
    echo "${wanted}" >"${stamp}"
  fi
  # shellcheck disable=SC1091
  source "${venv}/bin/activate"
  export SILERO_VAD_EXECUTORCH_VERSION="${version}"
  # Imports are backends.arm... and examples.arm... from the repository root.
  export PYTHONPATH="${SILERO_VAD_REPO_ROOT}${PYTHONPATH:+:${PYTHONPATH}}"
}
