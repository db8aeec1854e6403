/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Build-time settings of the bare-metal application (-DSILERO_VAD_...=value).
// The segmentation defaults are silero-vad's.

#pragma once

// Segmentation parameters (see SegmenterParams).
#ifndef SILERO_VAD_THRESHOLD
#define SILERO_VAD_THRESHOLD 0.5
#endif
#ifndef SILERO_VAD_MIN_SPEECH_DURATION_MS
#define SILERO_VAD_MIN_SPEECH_DURATION_MS 250.0
#endif
#ifndef SILERO_VAD_MIN_SILENCE_DURATION_MS
#define SILERO_VAD_MIN_SILENCE_DURATION_MS 100.0
#endif
#ifndef SILERO_VAD_SPEECH_PAD_MS
#define SILERO_VAD_SPEECH_PAD_MS 30.0
#endif
// 0 means no limit (silero-vad's infinity).
#ifndef SILERO_VAD_MAX_SPEECH_DURATION_S
#define SILERO_VAD_MAX_SPEECH_DURATION_S 0.0
#endif

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
