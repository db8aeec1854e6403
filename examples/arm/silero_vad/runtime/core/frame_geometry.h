/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// How Silero VAD cuts audio into model calls. silero-vad ships two networks:
// 16 kHz audio in calls of 64 context + 512 new samples, and 8 kHz audio in
// calls of 32 context + 256 new samples; both see 32 ms of new audio per
// call. The exported program says which one it is (its constant methods
// sample_rate, hop_samples and context_samples, read by VadModel), and every
// unit of the runtime takes the geometry from there at run time. Buffers are
// sized statically for the largest geometry.
//
// The names are those of model_export/frame_geometry.py.

#pragma once

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace silero_vad {

struct FrameGeometry {
  // Audio samples per second.
  uint32_t sample_rate = 0;
  // New samples per model call.
  size_t hop_samples = 0;
  // Samples of the previous call repeated in front of the new ones.
  size_t context_samples = 0;

  // The model input length: context then new samples (576 at 16 kHz).
  size_t frame_samples() const {
    return context_samples + hop_samples;
  }
};

inline bool operator==(const FrameGeometry& a, const FrameGeometry& b) {
  return a.sample_rate == b.sample_rate && a.hop_samples == b.hop_samples &&
         a.context_samples == b.context_samples;
}
inline bool operator!=(const FrameGeometry& a, const FrameGeometry& b) {
  return !(a == b);
}

// Silero's two models.
constexpr FrameGeometry kGeometry16k{16000, 512, 64};
constexpr FrameGeometry kGeometry8k{8000, 256, 32};

// Static buffer sizes: the largest geometry.
constexpr size_t kMaxHopSamples = 512;
constexpr size_t kMaxContextSamples = 64;
constexpr size_t kMaxFrameSamples = kMaxContextSamples + kMaxHopSamples;

// int16 PCM full scale: sample s is the audio value s / 32768, as soundfile
// reads 16-bit files; also the int16 program input's scale (2^-15).
constexpr float kPcm16FullScale = 32768.0f;

// Silero's geometry for `sample_rate`, or an error naming the rates it has
// models for.
Result<FrameGeometry> frame_geometry(uint32_t sample_rate);

// OK if `geometry` is one of Silero's; otherwise an error that names the
// values found and the ones expected.
Status check_frame_geometry(const FrameGeometry& geometry);

}  // namespace silero_vad
