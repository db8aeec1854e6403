/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Silero's two frame geometries (16 kHz: 64 context + 512 new samples per
// call, 8 kHz: 32 + 256, both 32 ms). The program names its own (VadModel
// reads it), every unit takes it from there, and buffers are sized for the
// largest. Names as in model_export/frame_geometry.py.

#pragma once

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace silero_vad {

struct FrameGeometry {
  uint32_t sample_rate = 0;
  size_t hop_samples = 0;      // new samples per model call
  size_t context_samples = 0;  // previous samples repeated in front

  // The model input length (576 at 16 kHz).
  size_t frame_samples() const {
    return context_samples + hop_samples;
  }
};

inline bool operator==(const FrameGeometry& a, const FrameGeometry& b) {
  return a.sample_rate == b.sample_rate && a.hop_samples == b.hop_samples &&
         a.context_samples == b.context_samples;
}

constexpr FrameGeometry kGeometry16k{16000, 512, 64};
constexpr FrameGeometry kGeometry8k{8000, 256, 32};

constexpr size_t kMaxHopSamples = kGeometry16k.hop_samples;
constexpr size_t kMaxContextSamples = kGeometry16k.context_samples;
constexpr size_t kMaxFrameSamples = kMaxContextSamples + kMaxHopSamples;
static_assert(kGeometry8k.hop_samples <= kMaxHopSamples &&
                  kGeometry8k.context_samples <= kMaxContextSamples,
              "the static buffers hold every geometry");

// Sample s is the audio value s / 32768, as soundfile reads 16-bit files.
constexpr float kPcm16FullScale = 32768.0f;

// Silero's geometry for `sample_rate`, or an error naming the rates.
Result<FrameGeometry> frame_geometry(uint32_t sample_rate);

// OK if `geometry` is one of Silero's; else the values found and expected.
Status check_frame_geometry(const FrameGeometry& geometry);

}  // namespace silero_vad
