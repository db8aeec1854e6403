/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Turns a stream of int16 samples into model inputs (micro_speech's "feature
// provider"). Each input is 576 floats: the last 64 samples of the previous
// frame (zeros before the first frame), then 512 new samples, all scaled by
// 1/32768. The last, partial frame is zero-padded, so a clip of N samples
// gives ceil(N / 512) frames, exactly as silero-vad frames audio.

#pragma once

#include <cstddef>
#include <cstdint>

#include "sample_source.h"
#include "vad_constants.h"

namespace silero_vad {

class FrameAssembler {
 public:
  explicit FrameAssembler(SampleSource& source) : source_(source) {}

  // Writes the next model input (kModelInputSamples floats) to `input` and
  // returns true, or returns false once the source has no more samples.
  bool next(float* input);

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
  int16_t context_[kContextSamples] = {};
  int16_t block_[kFrameSamples] = {};
  int64_t frames_ = 0;
  int64_t samples_ = 0;
  bool exhausted_ = false;
};

}  // namespace silero_vad
