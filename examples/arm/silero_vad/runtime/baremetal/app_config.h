/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Build-time settings of the bare-metal application (-DSILERO_VAD_...=value);
// main.cpp applies the segmentation ones over silero-vad's defaults.

#pragma once

// Memory pools in bytes (method: ExecuTorch's bookkeeping; planned: the memory
// plan; temp: kernel and Vela scratch), with no default: the build sizes them
// from the program (pool_sizes.py).
#if !defined(SILERO_VAD_METHOD_POOL_BYTES) ||  \
    !defined(SILERO_VAD_PLANNED_POOL_BYTES) || \
    !defined(SILERO_VAD_TEMP_POOL_BYTES)
#error \
    "Pool sizes not set: build with runtime/baremetal/CMakeLists.txt (sizes from the program, pool_sizes.py) or pass -DSILERO_VAD_{METHOD,PLANNED,TEMP}_POOL_BYTES=<bytes>"
#endif

// The NPU's fast scratch in the Dedicated_Sram modes (npu_fast_scratch.cpp).
#ifndef SILERO_VAD_FAST_SCRATCH_BYTES
#define SILERO_VAD_FAST_SCRATCH_BYTES 0
#endif
