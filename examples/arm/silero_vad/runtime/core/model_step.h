/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// One model call per frame. VadModel implements it with ExecuTorch; tests use
// fakes, so the application loop is tested without a .pte.

#pragma once

#include <cstdint>

#include "frame_geometry.h"
#include "status.h"

namespace silero_vad {

class ModelStep {
 public:
  // The frame geometry the model takes (for VadModel: the program's
  // metadata). The application loop frames the audio with it.
  virtual const FrameGeometry& geometry() const = 0;

  // `frame` holds geometry().frame_samples() int16 PCM samples (context,
  // then new samples), as they came from the audio source. Returns the
  // speech probability of the frame. Any recurrent state is the
  // implementation's business and carries over to the next call.
  virtual Result<float> step(const int16_t* frame) = 0;

 protected:
  ~ModelStep() = default;
};

}  // namespace silero_vad
