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
                       ul(sample_rate),
                       ul(kGeometry16k.sample_rate),
                       ul(kGeometry8k.sample_rate));
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
        ul(geometry.sample_rate),
        ul(geometry.hop_samples),
        ul(geometry.context_samples),
        ul(expected->sample_rate),
        ul(expected->hop_samples),
        ul(expected->context_samples));
  }
  return Status::Ok();
}

}  // namespace silero_vad
