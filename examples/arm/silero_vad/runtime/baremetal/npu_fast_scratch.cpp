/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The Ethos-U delegate's fast scratch, for programs compiled for one of
// Vela's Dedicated_Sram memory modes (the Ethos-U65's default).
//
// In those modes the program and the arena stay in DDR and the NPU uses a
// part of the SRAM as a cache (Vela's third region). ExecuTorch's Ethos-U
// delegate (backends/arm/runtime/EthosUBackend.cpp) hands that region to the
// driver from two weak C symbols, ethosu_fast_scratch and
// ethosu_fast_scratch_size, which are null and 0 unless the application
// defines them; ExecuTorch's own executor_runner defines them the same way.
// In Shared_Sram and Sram_Only they must stay null, so this file defines them
// only when the build gives SILERO_VAD_FAST_SCRATCH_BYTES (the cache size of
// the memory mode, memory_placement.cmake). The linker scripts put section
// .bss.ethosu_scratch in SRAM.

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
