/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "frame_assembler.h"

#include <cstring>

namespace silero_vad {

Status FrameAssembler::configure(const FrameGeometry& geometry) {
  const Status status = check_frame_geometry(geometry);
  if (!status.ok()) {
    return status;
  }
  // Silero's geometries fit the static buffers; keep that checked here too,
  // since the buffers depend on it.
  if (geometry.hop_samples > kMaxHopSamples ||
      geometry.context_samples > kMaxContextSamples ||
      geometry.context_samples > geometry.hop_samples) {
    return Status::Error(ErrorCode::kCapacity,
                         "frame of %lu + %lu samples does not fit the frame "
                         "assembler (%lu + %lu)",
                         static_cast<unsigned long>(geometry.context_samples),
                         static_cast<unsigned long>(geometry.hop_samples),
                         static_cast<unsigned long>(kMaxContextSamples),
                         static_cast<unsigned long>(kMaxHopSamples));
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
  // A source may return short reads mid-stream (a driver or a pipe handing
  // over what it has): keep reading until the frame is full or the stream
  // ends, so only the very last frame is ever padded.
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
  for (size_t i = filled; i < hop; ++i) {
    block_[i] = 0;
  }
  std::memcpy(frame, context_, context * sizeof(int16_t));
  std::memcpy(frame + context, block_, hop * sizeof(int16_t));
  // The next frame's context is the tail of this one, as in silero-vad's
  // streaming wrapper (the last context_samples of the model input).
  std::memcpy(context_, block_ + hop - context, context * sizeof(int16_t));
  ++frames_;
  samples_ += static_cast<int64_t>(filled);
  return true;
}

}  // namespace silero_vad
