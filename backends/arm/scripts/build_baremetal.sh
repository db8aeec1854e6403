#!/usr/bin/env bash
# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
#
# Builds the bare-metal image of an Ethos-U program with a clip baked in, for the board
# of its NPU, placing memory as the program's Vela memory mode needs (a mode the board
# cannot place is refused before anything slow); says which prerequisite is missing.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cpp_utils.sh"

executorch_root="${EXECUTORCH_ROOT:-}"
et_build_dir="" ethos_sdk="" toolchain_file="" pte="" wav="" report="" target=""
memory_mode="" system_config="" build_dir="" build_type="Release" print_plan=0
extra=()

usage() {
  cat <<EOF
Usage: $(basename "$0") (--pte MODEL.pte | --report report.json) --wav CLIP.wav
                          --executorch-root DIR [options] [-- CMAKE_ARGS...]

Builds build/<board>/silero_vad_<board>.elf (corstone300 for ethos-u55/u65-*,
corstone320 for ethos-u85-*); run it with run_fvp.sh.

  --pte FILE              program exported for an Ethos-U
  --report FILE           the export's report.json (its program, target, system
                          config, memory mode and Vela SRAM use)
  --wav FILE              16 kHz mono 16-bit PCM clip to run
  --executorch-root DIR   ExecuTorch checkout at the .pte's release (or \$EXECUTORCH_ROOT)
  --target T              Ethos-U target (${SILERO_VAD_TARGETS_HELP})
  --memory-mode MODE      Vela memory mode (Shared_Sram, Sram_Only, Dedicated_Sram_384KB, ...)
  --system-config NAME    Vela system config; these three are read from the program,
                          and --report or the options must agree with it
  --et-build-dir DIR      ExecuTorch install (default: <root>/cmake-out-arm)
  --ethos-sdk DIR         Ethos-U SDK (default: <root>/examples/arm/arm-scratch/ethos-u)
  --toolchain-file FILE   CMake toolchain (default: ExecuTorch's arm-none-eabi-gcc.cmake)
  --build-dir DIR         build tree (default: build/<board>)
  --build-type TYPE       CMake build type (default: Release)
  --print-plan            print board, pools and memory placement, then stop (no
                          toolchain or checkout needed)
  -h, --help              this text

After --, arguments go to CMake, e.g. -DSILERO_VAD_THRESHOLD=0.55 (app_config.h) or
-DSILERO_VAD_TEMP_POOL_BYTES=N (pools: runtime/README.md).

Preparing ExecuTorch (once):
  git clone https://github.com/pytorch/executorch && cd executorch
  git checkout v1.4.1 && git submodule update --init --recursive
  ./examples/arm/setup.sh --i-agree-to-the-contained-eula
  source examples/arm/arm-scratch/setup_path.sh
  cmake --preset arm-baremetal -DCMAKE_BUILD_TYPE=Release -B cmake-out-arm
  cmake --build cmake-out-arm --target install -j\$(nproc)
EOF
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --executorch-root) executorch_root="${2:?--executorch-root needs a value}"; shift 2 ;;
    --et-build-dir) et_build_dir="${2:?--et-build-dir needs a value}"; shift 2 ;;
    --ethos-sdk) ethos_sdk="${2:?--ethos-sdk needs a value}"; shift 2 ;;
    --toolchain-file) toolchain_file="${2:?--toolchain-file needs a value}"; shift 2 ;;
    --pte) pte="${2:?--pte needs a value}"; shift 2 ;;
    --wav) wav="${2:?--wav needs a value}"; shift 2 ;;
    --report) report="${2:?--report needs a value}"; shift 2 ;;
    --target) target="${2:?--target needs a value}"; shift 2 ;;
    --memory-mode) memory_mode="${2:?--memory-mode needs a value}"; shift 2 ;;
    --system-config) system_config="${2:?--system-config needs a value}"; shift 2 ;;
    --build-dir) build_dir="${2:?--build-dir needs a value}"; shift 2 ;;
    --build-type) build_type="${2:?--build-type needs a value}"; shift 2 ;;
    --print-plan) print_plan=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) usage >&2; cpp_die "unknown argument $1" ;;
  esac
done

# --- The program and what it was compiled for ---
report_target="" report_system_config="" report_memory_mode="" report_pte="" npu_sram_bytes=""
if [[ -n "${report}" ]]; then
  [[ -f "${report}" ]] || cpp_die "--report: '${report}' is not a file"
  report_fields="$(python3 - "${report}" <<'PY'
import json, sys
try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError) as error:
    sys.exit(f"cannot read {sys.argv[1]}: {error}")
kib = (report.get("vela") or {}).get("sram_kib")
for key in ("target", "system_config", "memory_mode", "pte"):
    print(report.get(key) or "")
print("" if kib is None else round(float(kib) * 1024))
PY
)" || cpp_die "--report: ${report} is not a readable report.json"
  mapfile -t fields <<<"${report_fields}"
  report_target="${fields[0]:-}" report_system_config="${fields[1]:-}"
  report_memory_mode="${fields[2]:-}" report_pte="${fields[3]:-}" npu_sram_bytes="${fields[4]:-}"
  [[ -n "${pte}" || -z "${report_pte}" ]] || pte="$(dirname "${report}")/${report_pte}"
fi
[[ -n "${pte}" ]] || cpp_die "no program: pass --pte MODEL.pte or --report report.json (see --help)"
[[ -f "${pte}" ]] || cpp_die "--pte: '${pte}' is not a file (export one for an Ethos-U target first)"
pte="$(realpath "${pte}")"

# program_flag NAME: Vela's --NAME in the delegates' compile spec; stops if they differ.
program_flag() {
  local values
  values="$(grep -aoE -- "--$1=[A-Za-z0-9_.-]+" "${pte}" | sed "s/^--$1=//" | sort -u || true)"
  if [[ $(printf '%s' "${values}" | grep -c .) -gt 1 ]]; then
    cpp_die "${pte}: its delegates were compiled with different --$1 values: $(echo "${values}" | tr '\n' ' ')"
  fi
  echo "${values}"
}
program_target="$(program_flag accelerator-config)"
program_system_config="$(program_flag system-config)"
program_memory_mode="$(program_flag memory-mode)"
[[ -n "${program_target}${program_system_config}${program_memory_mode}" ]] ||
  cpp_log "${pte} stores no Vela compile flags (not an Ethos-U program?); using --report and the options"

# agree WHAT OPTION PROGRAM_VALUE REPORT_VALUE OPTION_VALUE: the agreed value, else stops.
agree() {
  local what="$1" option="$2" from_program="$3" from_report="$4" from_option="$5"
  local value="${from_program:-${from_report:-${from_option}}}"
  [[ -n "${value}" ]] || cpp_die "the ${what} is unknown: the program does not store it; pass ${option} (or --report)"
  if [[ -n "${from_report}" && "${from_report}" != "${value}" ]]; then
    cpp_die "the ${what} of ${pte} is ${value}, but ${report} says ${from_report}: the report belongs to another export"
  fi
  if [[ -n "${from_option}" && "${from_option}" != "${value}" ]]; then
    cpp_die "${option} ${from_option}, but ${pte} was compiled for ${value}: an image must use the program's ${what}; export again for ${from_option} (run.sh ${option} ${from_option})"
  fi
  echo "${value}"
}
target="$(agree "target" --target "${program_target}" "${report_target}" "${target}")"
system_config="$(agree "Vela system config" --system-config "${program_system_config}" "${report_system_config}" "${system_config}")"
memory_mode="$(agree "Vela memory mode" --memory-mode "${program_memory_mode}" "${report_memory_mode}" "${memory_mode}")"

board="$(silero_vad_board_for_target "${target}")" ||
  cpp_die "target ${target} runs on no board here: ${SILERO_VAD_TARGETS_HELP}"
silero_vad_load_board "${board}"
build_dir="${build_dir:-${CPP_REPO_ROOT}/build/${board//-/}}"

# --- Pools and memory placement, decided as the build does (before anything slow) ---
cpp_activate_venv
plan_args=(-DSILERO_VAD_BOARD="${board}" -DETHOSU_TARGET_NPU_CONFIG="${target}"
  -DMEMORY_MODE="${memory_mode}" -DSILERO_VAD_PTE="${pte}"
  -DPython3_EXECUTABLE="$(command -v python)")
[[ -z "${npu_sram_bytes}" ]] || plan_args+=(-DSILERO_VAD_NPU_SRAM_BYTES="${npu_sram_bytes}")
for arg in "${extra[@]}"; do
  [[ ! "${arg}" =~ ^-DSILERO_VAD_(METHOD|PLANNED|TEMP)_POOL_BYTES(:[A-Z]+)?= ]] || plan_args+=("${arg}")
done
plan_status=0
plan_output="$(cmake "${plan_args[@]}" -P "${CPP_RUNTIME_DIR}/baremetal/memory_placement.cmake" 2>&1)" ||
  plan_status=$?
# CMake's "CMake Error/Warning at FILE:LINE (message):" blocks, as one line each.
cmake_messages() {
  echo "${plan_output}" | awk -v kind="$1" '
    function flush() { if (on) { gsub(/ +/, " ", text); sub(/^ /, "", text); print text; on = 0 } }
    /^Call Stack/ || /^CMake / || /^-- / { flush() }
    $0 ~ "^CMake " kind { on = 1; text = ""; next }
    on { text = text " " $0 }
    END { flush() }'
}
while IFS= read -r warning; do
  [[ -z "${warning}" ]] || cpp_log "WARNING ${warning}"
done < <(cmake_messages Warning)
[[ ${plan_status} -eq 0 ]] || cpp_die "$(cmake_messages Error | head -n 1)"
plan="$(echo "${plan_output}" | sed -n 's/^-- //p' | tail -n 1)"
pools="$(echo "${plan_output}" | sed -n 's/^-- pools: //p' | tail -n 1)"
cpp_log "${target} on the ${SILERO_VAD_BOARD_TITLE} (${SILERO_VAD_BOARD_CPU}), ${system_config}"
cpp_log "pools: ${pools}"
cpp_log "memory: ${plan}"
[[ ${print_plan} -eq 0 ]] || exit 0

[[ -n "${wav}" && -f "${wav}" ]] || cpp_die "--wav: '${wav}' is not a file"
wav="$(realpath "${wav}")"

# --- ExecuTorch checkout, Arm GNU toolchain that knows the board's CPU ---
setup_hint="run examples/arm/setup.sh in your ExecuTorch checkout (see --help)"
[[ -n "${executorch_root}" ]] ||
  cpp_die "no ExecuTorch checkout: pass --executorch-root DIR or set EXECUTORCH_ROOT (see --help for how to prepare one)"
[[ -f "${executorch_root}/runtime/executor/program.h" ]] ||
  cpp_die "${executorch_root} is not an ExecuTorch source checkout (no runtime/executor/program.h)"
executorch_root="$(realpath "${executorch_root}")"
cpu="${SILERO_VAD_BOARD_CPU}"
knows_cpu() {
  command -v arm-none-eabi-gcc >/dev/null 2>&1 &&
    echo "" | arm-none-eabi-gcc -mcpu="${cpu}" -x c -c -o /dev/null - 2>/dev/null
}
if ! knows_cpu; then
  for scratch in arm-scratch ethos-u-scratch; do
    setup_path="${executorch_root}/examples/arm/${scratch}/setup_path.sh"
    if [[ -f "${setup_path}" ]]; then
      cpp_log "sourcing ${setup_path}"
      set +u
      # shellcheck disable=SC1090
      source "${setup_path}"
      set -u
      break
    fi
  done
fi
command -v arm-none-eabi-gcc >/dev/null 2>&1 ||
  cpp_die "arm-none-eabi-gcc not found: ${setup_hint}, or install the Arm GNU Toolchain (13.3 or newer) from developer.arm.com and put its bin/ on PATH"
knows_cpu ||
  cpp_die "$(command -v arm-none-eabi-gcc) ($(arm-none-eabi-gcc -dumpversion)) does not know -mcpu=${cpu} (the ${SILERO_VAD_BOARD_TITLE} CPU): use the Arm GNU Toolchain 13.3 or newer (${setup_hint})"

# --- Toolchain file, ExecuTorch build, Ethos-U SDK ---
if [[ -z "${toolchain_file}" ]]; then
  for candidate in examples/arm/ethos-u-setup backends/arm/cmake; do
    candidate="${executorch_root}/${candidate}/arm-none-eabi-gcc.cmake"
    [[ -f "${candidate}" ]] && { toolchain_file="${candidate}"; break; }
  done
fi
[[ -n "${toolchain_file}" && -f "${toolchain_file}" ]] ||
  cpp_die "no arm-none-eabi-gcc.cmake toolchain file in ${executorch_root}; pass --toolchain-file FILE"

# The CMake project finds (or refuses) the ExecuTorch install and the Ethos-U SDK.
et_build_dir="${et_build_dir:-${executorch_root}/cmake-out-arm}"
# Libraries for the Cortex-M55 (the toolchain file's default) run on both boards.
et_cpu="$(sed -n 's/^TARGET_CPU:[A-Z]*=//p' "${et_build_dir}/CMakeCache.txt" 2>/dev/null | head -n 1 || true)"
if [[ -n "${et_cpu}" && "${et_cpu}" != "${cpu}" && "${et_cpu}" != "cortex-m55" ]]; then
  cpp_die "ExecuTorch in ${et_build_dir} was built for ${et_cpu}, which the ${SILERO_VAD_BOARD_TITLE} cannot run: build it for ${cpu} (cmake --preset arm-baremetal -DTARGET_CPU=${cpu} -B cmake-out-arm-${cpu}, --target install) and pass --et-build-dir"
fi

cpp_log "configuring ${build_dir}"
cmake -S "${CPP_RUNTIME_DIR}/baremetal" -B "${build_dir}" -DCMAKE_TOOLCHAIN_FILE="${toolchain_file}" \
  -DCMAKE_BUILD_TYPE="${build_type}" -DSILERO_VAD_BOARD="${board}" -DTARGET_CPU="${cpu}" \
  -DETHOSU_TARGET_NPU_CONFIG="${target}" -DSYSTEM_CONFIG="${system_config}" \
  -DMEMORY_MODE="${memory_mode}" -DSILERO_VAD_NPU_SRAM_BYTES="${npu_sram_bytes}" \
  -DEXECUTORCH_ROOT="${executorch_root}" -DET_BUILD_DIR="${et_build_dir}" \
  -DETHOS_SDK_PATH="${ethos_sdk}" -DPython3_EXECUTABLE="$(command -v python)" \
  -DSILERO_VAD_PTE="${pte}" -DSILERO_VAD_WAV="${wav}" "${extra[@]}" ||
  cpp_die "CMake configure failed (see above)"
cpp_log "building"
cmake --build "${build_dir}" -j "$(nproc)" || cpp_die "build failed (see above)"
elf="${build_dir}/${SILERO_VAD_BOARD_ELF}"
[[ -f "${elf}" ]] || cpp_die "no ${elf} after the build"
# run_fvp.sh reads the target next to the image to pick the FVP and its MACs.
echo "${target}" >"${elf%.elf}.target"
arm-none-eabi-size "${elf}" >&2 || true
cpp_log "image: ${elf} (${target}; run: backends/arm/scripts/run_fvp.sh --elf ${elf})"
