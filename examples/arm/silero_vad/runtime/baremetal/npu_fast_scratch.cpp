/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The Ethos-U delegate's fast scratch (Vela's SRAM cache region) for the
// Dedicated_Sram memory modes: the delegate reads the weak C symbols
// ethosu_fast_scratch(_size), which must stay undefined in the other modes,
// so they are defined only when SILERO_VAD_FAST_SCRATCH_BYTES > 0
// (memory_placement.cmake). The linker scripts put .bss.ethosu_scratch in SRAM.

#include <cstddef>

#include "app_config.h"

#if SILERO_VAD_FAST_SCRATCH_BYTES > 0

namespace {

// 16-byte aligned, as the NPU's base addresses must be.
__attribute__((
    section(".bss.ethosu_scratch"),
    aligned(16))) unsigned char g_fast_scratch[SILERO_VAD_FAST_SCRATCH_BYTES];

}  // namespace

extern "C" {
// The delegate's names and types (strong definitions override its weak ones).
unsigned char* ethosu_fast_scratch = g_fast_scratch;
size_t ethosu_fast_scratch_size = sizeof(g_fast_scratch);
}  // extern "C"

#endif  // SILERO_VAD_FAST_SCRATCH_BYTES > 0
