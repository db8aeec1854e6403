/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Where mono int16 PCM samples at the program's rate come from (micro_speech's
// "audio provider"): a WAV file or stream, a microphone, a test mock.

#pragma once

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace silero_vad {

class SampleSource {
 public:
  // Copies up to `max_samples` samples to `out`; returns how many, 0 only at
  // the end (short reads are allowed anywhere).
  virtual size_t read(int16_t* out, size_t max_samples) = 0;

  // After the end: OK, or a problem only seen at the end (a stream shorter
  // than one frame, an I/O error); the unfinished frame is then dropped.
  virtual Status status() const {
    return Status::Ok();
  }

 protected:
  // Keeps operator delete out of bare-metal images.
  ~SampleSource() = default;
};

}  // namespace silero_vad
