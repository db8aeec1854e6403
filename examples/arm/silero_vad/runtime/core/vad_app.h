/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The application loop (micro_speech's "main functions"):
//
//   audio source -> frame assembler -> model step -> segmenter
//                                          \-------------\-> reporter
//
// The frame geometry (sample rate, hop, context) is the model step's: the
// program's metadata. The same loop runs in the host runner and on the
// Corstone-320.

#pragma once

#include <cstdint>

#include "model_step.h"
#include "sample_source.h"
#include "serial_reporter.h"
#include "speech_segmenter.h"
#include "status.h"

namespace silero_vad {

// Optional per-frame hook for host extras (writing probabilities to a file).
class FrameListener {
 public:
  virtual Status on_frame(int64_t frame_index, float probability) = 0;

 protected:
  ~FrameListener() = default;
};

struct VadRunStats {
  int64_t frames = 0;
  int64_t segments = 0;
  int64_t samples = 0;
};

// Runs the whole stream and reports it, ending with DONE and 0x04, or with an
// ERROR line and 0x04 on the first failure (whose status is returned): a
// model failure, a non-finite probability, or a source that ends with an
// error (SampleSource::status()). `source` delivers samples at
// model.geometry().sample_rate. `listener` may be null.
Status run_vad(SampleSource& source,
               ModelStep& model,
               const SegmenterParams& params,
               SerialReporter& reporter,
               FrameListener* listener,
               VadRunStats* stats);

}  // namespace silero_vad
