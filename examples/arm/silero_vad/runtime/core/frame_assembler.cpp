/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "frame_assembler.h"

namespace silero_vad {

bool FrameAssembler::next(float* input) {
  if (exhausted_) {
    return false;
  }
  // A source may return short reads mid-stream (a driver handing over what
  // it has): keep reading until the frame is full or the stream ends, so only
  // the very last frame is ever padded.
  size_t filled = 0;
  while (filled < kFrameSamples) {
    const size_t got = source_.read(block_ + filled, kFrameSamples - filled);
    if (got == 0) {
      exhausted_ = true;
      break;
    }
    filled += got;
  }
  if (filled == 0) {
    return false;
  }
  for (size_t i = filled; i < kFrameSamples; ++i) {
    block_[i] = 0;
  }

  for (size_t i = 0; i < kContextSamples; ++i) {
    input[i] = static_cast<float>(context_[i]) / kInt16FullScale;
  }
  for (size_t i = 0; i < kFrameSamples; ++i) {
    input[kContextSamples + i] =
        static_cast<float>(block_[i]) / kInt16FullScale;
  }
  // The next frame's context is the tail of this frame, as in silero-vad's
  // streaming wrapper (the last 64 samples of the model input).
  for (size_t i = 0; i < kContextSamples; ++i) {
    context_[i] = block_[kFrameSamples - kContextSamples + i];
  }
  ++frames_;
  samples_ += static_cast<int64_t>(filled);
  return true;
}

}  // namespace silero_vad
