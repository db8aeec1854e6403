/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The program (.pte) and the clip (.wav) baked into the image by
// bake_arrays.py, which writes their definitions.
//
// Why baked arrays and not semihosting: the image then runs the same on the
// FVP, on an FPGA and on silicon, needs no host file system or debugger
// connection, and runs at full simulation speed (semihosting traps to the
// host on every access). The price is a rebuild per model or clip, which
// build_baremetal.sh makes a one-liner.

#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
// 16-byte aligned, in section "network_model_sec" (placed by the ExecuTorch
// Corstone linker script in DDR or SRAM according to the memory mode).
extern const uint8_t silero_vad_model_pte[];
extern const size_t silero_vad_model_pte_size;
// In section "input_data_sec" (DDR).
extern const uint8_t silero_vad_input_wav[];
extern const size_t silero_vad_input_wav_size;
}
