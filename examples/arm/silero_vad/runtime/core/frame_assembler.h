/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Turns a stream of int16 samples into model inputs (micro_speech's "feature
// provider"). Each frame is geometry.frame_samples() int16 PCM samples, passed
// on unchanged: the last context_samples of the previous frame (zeros before
// the first frame), then hop_samples new samples. The last, partial frame is
// zero-padded, so a clip of N samples gives ceil(N / hop_samples) frames,
// exactly as silero-vad frames audio (576 = 64 + 512 at 16 kHz, 288 = 32 +
// 256 at 8 kHz).

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

  // Checks that `geometry` is one of Silero's and restarts the stream with
  // it. Until it succeeds, next() produces nothing.
  Status configure(const FrameGeometry& geometry);

  // Writes the next frame (geometry().frame_samples() samples) to `frame`
  // and returns true, or returns false at the end of the stream. A stream
  // that ends with an error (source.status()) drops its unfinished frame.
  bool next(int16_t* frame);

  const FrameGeometry& geometry() const {
    return geometry_;
  }
  // Frames produced so far.
  int64_t frames() const {
    return frames_;
  }
  // Real (not padding) samples consumed so far: the audio length that the
  // segmenter needs at the end of the stream.
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
