#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Runs the Corstone-320 image on the FVP_Corstone_SSE-320 fixed virtual
# platform: UART0 to stdout (and a log file), shutdown on the 0x04 byte that
# ends the serial protocol, a time limit as a safety net. Exits 0 when the log
# has a DONE line and no ERROR line.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

elf="${CPP_REPO_ROOT}/build/corstone320/silero_vad_corstone320.elf"
fvp="${FVP:-}"
timelimit=600
num_macs=256
log=""
extra=()

usage() {
  cat <<EOF
Usage: $(basename "$0") [--elf FILE] [options] [-- FVP_ARGS...]

  --elf FILE        image (default: build/corstone320/silero_vad_corstone320.elf)
  --fvp PATH        FVP binary (default: \$FVP, else FVP_Corstone_SSE-320 on PATH)
  --timelimit S     stop the simulation after S seconds of host time (default: ${timelimit})
  --num-macs N      Ethos-U85 MACs, as the program was compiled for (default: ${num_macs})
  --log FILE        copy of the FVP's output (default: <elf dir>/fvp_uart.log);
                    the protocol lines alone go to fvp_protocol.log next to it
  -h, --help        this text

The FVP comes with ExecuTorch's examples/arm/setup.sh (then source
examples/arm/arm-scratch/setup_path.sh), or from developer.arm.com
(Arm Ecosystem FVPs, Corstone-320).
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --elf) elf="${2:?--elf needs a value}"; shift 2 ;;
    --fvp) fvp="${2:?--fvp needs a value}"; shift 2 ;;
    --timelimit) timelimit="${2:?--timelimit needs a value}"; shift 2 ;;
    --num-macs) num_macs="${2:?--num-macs needs a value}"; shift 2 ;;
    --log) log="${2:?--log needs a value}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

[[ -f "${elf}" ]] || cpp_die "no image ${elf}: build one with backends/arm/scripts/build_corstone320.sh"
[[ "${timelimit}" =~ ^[0-9]+$ ]] || cpp_die "--timelimit must be a number of seconds"
if [[ -z "${fvp}" ]]; then
  fvp="$(command -v FVP_Corstone_SSE-320 || true)"
fi
[[ -n "${fvp}" && -x "${fvp}" ]] ||
  cpp_die "FVP_Corstone_SSE-320 not found: run examples/arm/setup.sh in an ExecuTorch checkout and source examples/arm/arm-scratch/setup_path.sh, or install the Corstone-320 FVP from developer.arm.com; or pass --fvp PATH"
out_dir="$(dirname "${log:-${elf}}")"
log="${log:-${out_dir}/fvp_uart.log}"
protocol_log="${out_dir}/fvp_protocol.log"

cpp_log "running ${elf} on $(basename "${fvp}") (U85-${num_macs}, time limit ${timelimit} s)"
status=0
"${fvp}" \
  -C mps4_board.subsystem.ethosu.num_macs="${num_macs}" \
  -C mps4_board.visualisation.disable-visualisation=1 \
  -C vis_hdlcd.disable_visualisation=1 \
  -C mps4_board.telnetterminal0.start_telnet=0 \
  -C mps4_board.uart0.out_file=- \
  -C mps4_board.uart0.unbuffered_output=1 \
  -C mps4_board.uart0.shutdown_on_eot=1 \
  -a "${elf}" \
  --timelimit "${timelimit}" \
  "${extra[@]}" | tee "${log}" || status=$?

# The simulator's own messages share stdout with the UART. Keep only the
# protocol (and 0x04) for the compare tool:
#   python -m examples.arm.silero_vad.runtime.compare_vad_probs fvp_protocol.log REF.bin
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
