/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// One model call per frame: VadModel on ExecuTorch, fakes in tests.

#pragma once

#include <cstdint>

#include "frame_geometry.h"
#include "status.h"

namespace silero_vad {

class ModelStep {
 public:
  // The frame geometry the model takes (VadModel: the program's metadata).
  virtual const FrameGeometry& geometry() const = 0;

  // The speech probability of geometry().frame_samples() int16 PCM samples;
  // recurrent state is the implementation's business.
  virtual Result<float> step(const int16_t* frame) = 0;

 protected:
  ~ModelStep() = default;
};

}  // namespace silero_vad
