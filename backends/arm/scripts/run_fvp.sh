#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Runs a bare-metal image on the fixed virtual platform of its board:
# FVP_Corstone_SSE-300_Ethos-U55 / -U65 (Corstone-300) or FVP_Corstone_SSE-320
# (Corstone-320), each with its own parameter names (the board's board.sh):
# UART0 to stdout (and a log file), unbuffered, shutdown on the 0x04 byte that
# ends the serial protocol, no visualisation or telnet, the NPU's MAC count of
# the target, a time limit as a safety net. Exits 0 when the log has a DONE
# line and no ERROR line.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

elf=""
target=""
fvp="${FVP:-}"
timelimit=600
log=""
semihosting_cwd=""
extra=()

usage() {
  cat <<EOF
Usage: $(basename "$0") [--elf FILE] [--target T] [options] [-- FVP_ARGS...]

  --elf FILE        image (default: build/<board>/silero_vad_<board>.elf of --target)
  --target T        Ethos-U target the image was built for; picks the FVP, its
                    parameters and MAC count (default: the <image>.target file
                    build_baremetal.sh writes next to the image). One of
                    ${SILERO_VAD_TARGETS_HELP}
  --fvp PATH        FVP binary (default: \$FVP, else the target's FVP on PATH:
                    FVP_Corstone_SSE-300_Ethos-U55, FVP_Corstone_SSE-300_Ethos-U65
                    or FVP_Corstone_SSE-320)
  --timelimit S     stop the simulation after S seconds of host time (default: ${timelimit})
  --log FILE        copy of the FVP's output (default: <elf dir>/fvp_uart.log);
                    the protocol lines alone go to fvp_protocol.log next to it
  --semihosting-cwd DIR
                    turn the CPU's semihosting on, with DIR as its working
                    directory (for images that read host files, such as
                    ExecuTorch's semihosting executor_runner; this application
                    bakes its inputs in and does not need it)
  -h, --help        this text

The FVPs come with ExecuTorch's examples/arm/setup.sh (then source
examples/arm/arm-scratch/setup_path.sh), or from developer.arm.com
(Arm Ecosystem FVPs: Corstone-300, Corstone-320).
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --elf) elf="${2:?--elf needs a value}"; shift 2 ;;
    --target) target="${2:?--target needs a value}"; shift 2 ;;
    --fvp) fvp="${2:?--fvp needs a value}"; shift 2 ;;
    --timelimit) timelimit="${2:?--timelimit needs a value}"; shift 2 ;;
    --log) log="${2:?--log needs a value}"; shift 2 ;;
    --semihosting-cwd) semihosting_cwd="${2:?--semihosting-cwd needs a value}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

[[ "${timelimit}" =~ ^[0-9]+$ ]] || cpp_die "--timelimit must be a number of seconds"
[[ -n "${elf}" || -n "${target}" ]] ||
  cpp_die "pass --elf IMAGE (built by build_baremetal.sh) or --target T (for its default image)"

# The target: the option, else the one build_baremetal.sh recorded next to the image.
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
npu="${target%-*}"
num_macs="${target##*-}"
fvp_name="$(board_fvp_binary "${npu}")"

elf="${elf:-${CPP_REPO_ROOT}/build/${board//-/}/${SILERO_VAD_BOARD_ELF}}"
[[ -f "${elf}" ]] || cpp_die "no image ${elf}: build one with backends/arm/scripts/build_baremetal.sh"
if [[ -z "${fvp}" ]]; then
  fvp="$(command -v "${fvp_name}" || true)"
fi
[[ -n "${fvp}" && -x "${fvp}" ]] ||
  cpp_die "${fvp_name} not found (the ${SILERO_VAD_BOARD_TITLE} FVP for ${target}): run examples/arm/setup.sh in an ExecuTorch checkout and source examples/arm/arm-scratch/setup_path.sh, or install it from developer.arm.com (Arm Ecosystem FVPs); or pass --fvp PATH"
[[ -z "${semihosting_cwd}" || -d "${semihosting_cwd}" ]] ||
  cpp_die "--semihosting-cwd: ${semihosting_cwd} is not a directory"
out_dir="$(dirname "${log:-${elf}}")"
log="${log:-${out_dir}/fvp_uart.log}"
protocol_log="${out_dir}/fvp_protocol.log"

board_fvp_args "${num_macs}" "${semihosting_cwd}"
cpp_log "running ${elf} on $(basename "${fvp}") (${target}, time limit ${timelimit} s)"
status=0
"${fvp}" \
  "${SILERO_VAD_FVP_ARGS[@]}" \
  -a "${elf}" \
  --timelimit "${timelimit}" \
  "${extra[@]}" | tee "${log}" || status=$?

# The simulator's own messages share stdout with the UART. Keep only the
# protocol (and 0x04) for the compare tool:
#   python -m examples.arm.silero_vad.verification.compare_vad_probs fvp_protocol.log REF.bin
grep -a -E '^(PROB|SEGMENT|DONE|ERROR) ' "${log}" >"${protocol_log}" || true
if grep -aq $'\x04' "${log}"; then
  printf '\x04' >>"${protocol_log}"
fi

if grep -q '^ERROR ' "${protocol_log}"; then
  cpp_die "the application reported an error: $(grep -m1 '^ERROR ' "${protocol_log}")"
fi
grep -q '^DONE frames=' "${protocol_log}" ||
  cpp_die "no DONE line in ${log} (FVP exit ${status}; time limit reached or the image crashed)"
cpp_log "$(grep -m1 '^DONE ' "${protocol_log}") (UART: ${log}, protocol only: ${protocol_log})"
