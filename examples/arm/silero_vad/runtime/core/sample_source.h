/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Where 16 kHz mono int16 samples come from (micro_speech's "audio
// provider"). The WAV reader is one source; a microphone driver or a test
// mock is another.

#pragma once

#include <cstddef>
#include <cstdint>

namespace silero_vad {

class SampleSource {
 public:
  // Copies up to `max_samples` of the next samples to `out` and returns how
  // many were copied. Returns 0 only at the end of the stream; a short,
  // non-zero read is allowed anywhere.
  virtual size_t read(int16_t* out, size_t max_samples) = 0;

 protected:
  // Not deletable through the interface: nothing in the runtime owns a source
  // on the heap, and this keeps operator delete out of bare-metal images.
  ~SampleSource() = default;
};

}  // namespace silero_vad
