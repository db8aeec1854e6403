/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Turns int16 samples into model inputs (micro_speech's "feature provider"):
// each frame is the last context_samples of the previous one (zeros at first)
// then hop_samples new ones, unchanged; the last frame is zero-padded, so N
// samples give ceil(N / hop_samples) frames, as silero-vad frames audio.

#pragma once

#include <cstddef>
#include <cstdint>

#include "frame_geometry.h"
#include "sample_source.h"
#include "status.h"

namespace silero_vad {

class FrameAssembler {
 public:
  explicit FrameAssembler(SampleSource& source) : source_(source) {}

  // Checks `geometry` and restarts; next() produces nothing until then.
  Status configure(const FrameGeometry& geometry);

  // Writes the next frame to `frame`; false at the end of the stream. A
  // stream that ends with an error drops its unfinished frame.
  bool next(int16_t* frame);

  const FrameGeometry& geometry() const {
    return geometry_;
  }
  int64_t frames() const {
    return frames_;
  }
  // Real (not padding) samples so far: the audio length for the segmenter.
  int64_t samples() const {
    return samples_;
  }

 private:
  SampleSource& source_;
  FrameGeometry geometry_;
  bool configured_ = false;
  int16_t context_[kMaxContextSamples] = {};
  int16_t block_[kMaxHopSamples] = {};
  int64_t frames_ = 0;
  int64_t samples_ = 0;
  bool exhausted_ = false;
};

}  // namespace silero_vad
