/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Where mono int16 PCM samples come from (micro_speech's "audio provider"),
// at the sample rate of the program. A WAV file in memory, a WAV stream on
// standard input, a microphone driver or a test mock.

#pragma once

#include <cstddef>
#include <cstdint>

#include "status.h"

namespace silero_vad {

class SampleSource {
 public:
  // Copies up to `max_samples` of the next samples to `out` and returns how
  // many were copied. Returns 0 only at the end of the stream; a short,
  // non-zero read is allowed anywhere.
  virtual size_t read(int16_t* out, size_t max_samples) = 0;

  // Why the stream ended, once read() has returned 0: OK for the normal end
  // of the audio, an error when the source found a problem it could only
  // see at the end (a WAV stream shorter than one frame, an I/O error). The
  // samples of the unfinished frame are then not used.
  virtual Status status() const {
    return Status::Ok();
  }

 protected:
  // Not deletable through the interface: nothing in the runtime owns a source
  // on the heap, and this keeps operator delete out of bare-metal images.
  ~SampleSource() = default;
};

}  // namespace silero_vad
