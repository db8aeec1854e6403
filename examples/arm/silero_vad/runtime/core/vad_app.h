/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The application loop (micro_speech's "main functions"): audio source ->
// frame assembler -> model step -> segmenter -> reporter, at the model's
// frame geometry; the same loop on the host and on the boards.

#pragma once

#include <cstdint>

#include "model_step.h"
#include "sample_source.h"
#include "serial_reporter.h"
#include "speech_segmenter.h"
#include "status.h"

namespace silero_vad {

// Per-frame hook for host extras (writing probabilities to a file).
class FrameListener {
 public:
  virtual Status on_frame(int64_t frame_index, float probability) = 0;

 protected:
  ~FrameListener() = default;
};

// Runs and reports the whole stream, ending with DONE or, on the first
// failure (returned), ERROR, then 0x04. `listener` may be null.
Status run_vad(SampleSource& source,
               ModelStep& model,
               const SegmenterParams& params,
               SerialReporter& reporter,
               FrameListener* listener);

}  // namespace silero_vad
