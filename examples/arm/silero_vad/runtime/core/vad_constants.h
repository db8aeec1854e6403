/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The fixed framing of the 16 kHz Silero VAD model. Every unit of the runtime
// agrees on these numbers, so they live in one place.

#pragma once

#include <cstddef>
#include <cstdint>

namespace silero_vad {

constexpr uint32_t kSampleRateHz = 16000;
// New samples per model call (32 ms at 16 kHz).
constexpr size_t kFrameSamples = 512;
// Samples of the previous frame repeated in front of the new ones.
constexpr size_t kContextSamples = 64;
// Length of the model input tensor (1, 576).
constexpr size_t kModelInputSamples = kContextSamples + kFrameSamples;
// int16 full scale: samples are scaled by 1/32768 as soundfile does.
constexpr float kInt16FullScale = 32768.0f;

}  // namespace silero_vad
