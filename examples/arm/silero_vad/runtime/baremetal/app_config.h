/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Build-time settings of the bare-metal application, set from CMake
// (-DSILERO_VAD_...=value). The segmentation defaults are silero-vad's; the
// pool sizes come from the board (<board>/board.cmake) and the memory mode
// (memory_placement.cmake), the values here are fallbacks.

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

// Memory pools. The method pool holds ExecuTorch's bookkeeping of the loaded
// method; the planned pool its activations and state (sized by the program:
// a too-small pool is reported with the size needed); the temp pool is the
// scratch of kernels and of the Ethos-U delegate.
#ifndef SILERO_VAD_METHOD_POOL_BYTES
#define SILERO_VAD_METHOD_POOL_BYTES (1024 * 1024)
#endif
#ifndef SILERO_VAD_PLANNED_POOL_BYTES
#define SILERO_VAD_PLANNED_POOL_BYTES (1024 * 1024)
#endif
#ifndef SILERO_VAD_TEMP_POOL_BYTES
#define SILERO_VAD_TEMP_POOL_BYTES (2 * 1024 * 1024)
#endif
// The NPU's fast scratch (Vela's cache region) in the Dedicated_Sram memory
// modes; 0 in the others (npu_fast_scratch.cpp).
#ifndef SILERO_VAD_FAST_SCRATCH_BYTES
#define SILERO_VAD_FAST_SCRATCH_BYTES 0
#endif
