/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The program and the clip baked into the image by bake_arrays.py: unlike
// semihosting, the image then runs the same on the FVP and on silicon, at
// full speed, at the price of a rebuild per model or clip.

#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
// 16-byte aligned, in "network_model_sec" (SRAM or DDR by memory mode).
extern const uint8_t silero_vad_model_pte[];
extern const size_t silero_vad_model_pte_size;
// In section "input_data_sec" (DDR).
extern const uint8_t silero_vad_input_wav[];
extern const size_t silero_vad_input_wav_size;
}
