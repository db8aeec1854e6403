/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// One model call per frame. VadModel implements it with ExecuTorch; tests use
// fakes, so the application loop is tested without a .pte.

#pragma once

#include "status.h"

namespace silero_vad {

class ModelStep {
 public:
  // `input` holds kModelInputSamples floats (64 context + 512 new samples).
  // Returns the speech probability of the frame. Any recurrent state is the
  // implementation's business and carries over to the next call.
  virtual Result<float> step(const float* input) = 0;

 protected:
  ~ModelStep() = default;
};

}  // namespace silero_vad
