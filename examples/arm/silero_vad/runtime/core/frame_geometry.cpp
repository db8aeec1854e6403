/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "frame_geometry.h"

namespace silero_vad {

Result<FrameGeometry> frame_geometry(uint32_t sample_rate) {
  for (const FrameGeometry& geometry : {kGeometry16k, kGeometry8k}) {
    if (geometry.sample_rate == sample_rate) {
      return geometry;
    }
  }
  return Status::Error(ErrorCode::kInvalidArgument,
                       "sample rate %lu Hz: Silero VAD has models for %lu "
                       "and %lu Hz",
                       static_cast<unsigned long>(sample_rate),
                       static_cast<unsigned long>(kGeometry16k.sample_rate),
                       static_cast<unsigned long>(kGeometry8k.sample_rate));
}

Status check_frame_geometry(const FrameGeometry& geometry) {
  const Result<FrameGeometry> expected = frame_geometry(geometry.sample_rate);
  if (!expected.ok()) {
    return expected.status();
  }
  if (!(geometry == *expected)) {
    return Status::Error(
        ErrorCode::kInvalidArgument,
        "%lu Hz with hop_samples %lu and context_samples %lu: Silero's %lu Hz "
        "model takes hop_samples %lu and context_samples %lu",
        static_cast<unsigned long>(geometry.sample_rate),
        static_cast<unsigned long>(geometry.hop_samples),
        static_cast<unsigned long>(geometry.context_samples),
        static_cast<unsigned long>(expected->sample_rate),
        static_cast<unsigned long>(expected->hop_samples),
        static_cast<unsigned long>(expected->context_samples));
  }
  return Status::Ok();
}

}  // namespace silero_vad
