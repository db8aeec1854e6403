/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// RIFF/WAVE parsing from a memory buffer: a file read into memory on the
// host, or an array baked into the image on bare metal. Nothing is copied:
// the result points into the caller's buffer, which must outlive it.
//
// Accepted: PCM (format tag 1, or WAVE_FORMAT_EXTENSIBLE with the PCM
// sub-format), 16-bit, mono, 16000 Hz, at least one 512-sample frame.
// Unknown chunks (LIST, fact, ...) are skipped, honouring the pad byte of
// odd-sized chunks. Everything else is refused with a message that names what
// was found and what is needed.
//
// Safe on arbitrary bytes: every read is bounds-checked against the buffer
// and against the RIFF size, and sizes are compared by subtraction so no
// addition can overflow, also with a 32-bit size_t.

#pragma once

#include <cstddef>
#include <cstdint>

#include "sample_source.h"
#include "status.h"

namespace silero_vad {

// A validated view of the samples of a WAV file.
struct WavAudio {
  // Little-endian int16 samples inside the caller's buffer. Not necessarily
  // 2-byte aligned, so samples are read bytewise.
  const uint8_t* pcm = nullptr;
  size_t num_samples = 0;

  // The sample at `index` (< num_samples).
  int16_t sample(size_t index) const {
    const int32_t lo = pcm[2 * index];
    const int32_t hi = pcm[2 * index + 1];
    int32_t value = lo | (hi << 8);
    if (value >= 32768) {
      value -= 65536;
    }
    return static_cast<int16_t>(value);
  }
};

// Parses and validates `size` bytes at `data`.
Result<WavAudio> parse_wav(const uint8_t* data, size_t size);

// Streams the samples of a parsed WAV file.
class WavSampleSource final : public SampleSource {
 public:
  explicit WavSampleSource(const WavAudio& audio) : audio_(audio) {}

  size_t read(int16_t* out, size_t max_samples) override;

 private:
  WavAudio audio_;
  size_t position_ = 0;
};

}  // namespace silero_vad
