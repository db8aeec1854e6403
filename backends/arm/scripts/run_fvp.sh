#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Runs a bare-metal image on its board's FVP (parameters from the board's board.sh) with
# UART0 to stdout and a log; exits 0 when the log has a DONE line and no ERROR line.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

elf="" target="" fvp="${FVP:-}" timelimit=600 log=""
extra=()

usage() {
  cat <<EOF
Usage: $(basename "$0") [--elf FILE] [--target T] [options] [-- FVP_ARGS...]

  --elf FILE        image (default: build/<board>/silero_vad_<board>.elf of --target)
  --target T        the image's Ethos-U target: picks the FVP and MAC count (default:
                    the <image>.target build_baremetal.sh writes); ${SILERO_VAD_TARGETS_HELP}
  --fvp PATH        FVP binary (default: \$FVP, else the target's FVP on PATH)
  --timelimit S     host seconds before the simulation stops (default: ${timelimit})
  --log FILE        the FVP's output (default: <elf dir>/fvp_uart.log); the protocol
                    lines alone go to fvp_protocol.log next to it
  -h, --help        this text

The FVPs come with ExecuTorch's examples/arm/setup.sh or from developer.arm.com.
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --elf) elf="${2:?--elf needs a value}"; shift 2 ;;
    --target) target="${2:?--target needs a value}"; shift 2 ;;
    --fvp) fvp="${2:?--fvp needs a value}"; shift 2 ;;
    --timelimit) timelimit="${2:?--timelimit needs a value}"; shift 2 ;;
    --log) log="${2:?--log needs a value}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

[[ "${timelimit}" =~ ^[0-9]+$ ]] || cpp_die "--timelimit must be a number of seconds"
[[ -n "${elf}" || -n "${target}" ]] ||
  cpp_die "pass --elf IMAGE (built by build_baremetal.sh) or --target T (for its default image)"

if [[ -n "${elf}" && -f "${elf%.elf}.target" ]]; then
  built_for="$(head -n 1 "${elf%.elf}.target")"
  if [[ -z "${target}" ]]; then
    target="${built_for}"
  elif [[ "${target}" != "${built_for}" ]]; then
    cpp_die "--target ${target}, but ${elf} was built for ${built_for} (${elf%.elf}.target); an image runs only on its own NPU's FVP"
  fi
fi
[[ -n "${target}" ]] ||
  cpp_die "the target of ${elf} is unknown (no ${elf%.elf}.target): pass --target T"
board="$(silero_vad_board_for_target "${target}")" ||
  cpp_die "--target ${target} runs on no board here: ${SILERO_VAD_TARGETS_HELP}"
silero_vad_load_board "${board}"
fvp_name="$(board_fvp_binary "${target%-*}")"

elf="${elf:-${CPP_REPO_ROOT}/build/${board//-/}/${SILERO_VAD_BOARD_ELF}}"
[[ -f "${elf}" ]] || cpp_die "no image ${elf}: build one with backends/arm/scripts/build_baremetal.sh"
[[ -n "${fvp}" ]] || fvp="$(command -v "${fvp_name}" || true)"
[[ -n "${fvp}" && -x "${fvp}" ]] ||
  cpp_die "${fvp_name} not found (the ${SILERO_VAD_BOARD_TITLE} FVP for ${target}): run examples/arm/setup.sh in an ExecuTorch checkout and source examples/arm/arm-scratch/setup_path.sh, or install it from developer.arm.com (Arm Ecosystem FVPs); or pass --fvp PATH"
out_dir="$(dirname "${log:-${elf}}")"
log="${log:-${out_dir}/fvp_uart.log}"
protocol_log="${out_dir}/fvp_protocol.log"

silero_vad_fvp_args "${target##*-}"
cpp_log "running ${elf} on $(basename "${fvp}") (${target}, time limit ${timelimit} s)"
status=0
"${fvp}" "${SILERO_VAD_FVP_ARGS[@]}" -a "${elf}" --timelimit "${timelimit}" "${extra[@]}" |
  tee "${log}" || status=$?

# The protocol (and 0x04) without the simulator's messages, for compare_vad_probs.
grep -a -E '^(PROB|SEGMENT|DONE|ERROR) ' "${log}" >"${protocol_log}" || true
! grep -aq $'\x04' "${log}" || printf '\x04' >>"${protocol_log}"

! grep -q '^ERROR ' "${protocol_log}" ||
  cpp_die "the application reported an error: $(grep -m1 '^ERROR ' "${protocol_log}")"
grep -q '^DONE frames=' "${protocol_log}" ||
  cpp_die "no DONE line in ${log} (FVP exit ${status}; time limit reached or the image crashed)"
cpp_log "$(grep -m1 '^DONE ' "${protocol_log}") (UART: ${log}, protocol only: ${protocol_log})"
