/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "frame_assembler.h"

#include <algorithm>
#include <cstring>

namespace silero_vad {

Status FrameAssembler::configure(const FrameGeometry& geometry) {
  const Status status = check_frame_geometry(geometry);
  if (!status.ok()) {
    return status;
  }
  geometry_ = geometry;
  configured_ = true;
  std::memset(context_, 0, sizeof(context_));
  frames_ = 0;
  samples_ = 0;
  exhausted_ = false;
  return Status::Ok();
}

bool FrameAssembler::next(int16_t* frame) {
  if (!configured_ || exhausted_) {
    return false;
  }
  const size_t hop = geometry_.hop_samples;
  const size_t context = geometry_.context_samples;
  // Short reads may come anywhere: fill the frame, so only the last is padded.
  size_t filled = 0;
  while (filled < hop) {
    const size_t got = source_.read(block_ + filled, hop - filled);
    if (got == 0) {
      exhausted_ = true;
      break;
    }
    filled += got;
  }
  if (filled == 0 || (exhausted_ && !source_.status().ok())) {
    return false;
  }
  std::fill(block_ + filled, block_ + hop, 0);
  std::memcpy(frame, context_, context * sizeof(int16_t));
  std::memcpy(frame + context, block_, hop * sizeof(int16_t));
  // The next frame's context is the tail of this one, as in silero-vad.
  std::memcpy(context_, block_ + hop - context, context * sizeof(int16_t));
  ++frames_;
  samples_ += static_cast<int64_t>(filled);
  return true;
}

}  // namespace silero_vad
