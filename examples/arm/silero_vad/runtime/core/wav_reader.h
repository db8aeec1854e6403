/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// RIFF/WAVE input: parse_wav() over a file in memory (zero-copy) and
// WavStreamReader over a stream read front to back, sharing one header parser
// so both accept and refuse the same headers with the same messages.
// Accepted: PCM16 (or WAVE_FORMAT_EXTENSIBLE PCM) mono at the program's rate,
// fmt before data, unknown chunks skipped, at least one frame of samples; a
// RIFF or data size of 0 or 0xFFFFFFFF means "unknown". A file refuses sizes
// beyond its end; a stream takes a declared size as an upper bound (recorders
// declare more than they write). Safe on any bytes: every read is
// bounds-checked and sizes are compared by subtraction, never added.

#pragma once

#include <cstddef>
#include <cstdint>

#include "frame_geometry.h"
#include "sample_source.h"
#include "status.h"

namespace silero_vad {

// Bytes read front to back, like SampleSource: short reads anywhere, 0 only
// at the end, then status() says why it ended.
class ByteSource {
 public:
  virtual size_t read(uint8_t* out, size_t max_bytes) = 0;
  virtual Status status() const {
    return Status::Ok();
  }

 protected:
  ~ByteSource() = default;
};

// The bytes of a buffer, as many as asked for.
class MemoryByteSource final : public ByteSource {
 public:
  MemoryByteSource(const uint8_t* data, size_t size)
      : data_(data), size_(data == nullptr ? 0 : size) {}

  size_t read(uint8_t* out, size_t max_bytes) override;

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// The little-endian int16 at `bytes`, without implementation-defined casts.
inline int16_t decode_pcm16(const uint8_t* bytes) {
  const int32_t lo = bytes[0];
  const int32_t hi = bytes[1];
  return static_cast<int16_t>((lo | (hi << 8)) - ((hi & 0x80) << 9));
}

// The samples of a validated WAV file in memory.
struct WavAudio {
  // Little-endian, inside the caller's buffer, not necessarily aligned.
  const uint8_t* pcm = nullptr;
  size_t num_samples = 0;

  int16_t sample(size_t index) const {
    return decode_pcm16(pcm + 2 * index);
  }
};

Result<WavAudio> parse_wav(const uint8_t* data,
                           size_t size,
                           const FrameGeometry& geometry);

// Streams the samples of a parsed WAV file.
class WavSampleSource final : public SampleSource {
 public:
  explicit WavSampleSource(const WavAudio& audio) : audio_(audio) {}

  size_t read(int16_t* out, size_t max_samples) override;

 private:
  WavAudio audio_;
  size_t position_ = 0;
};

// Samples of a WAV stream: open() checks the header, read() decodes samples
// through a fixed buffer as they arrive.
class WavStreamReader final : public SampleSource {
 public:
  explicit WavStreamReader(ByteSource& bytes) : bytes_(bytes) {}

  // Reads the header up to the first sample. Once.
  Status open(const FrameGeometry& geometry);

  size_t read(int16_t* out, size_t max_samples) override;

  // After the end: OK, or why the stream is refused (shorter than one frame,
  // a failed read).
  Status status() const override {
    return end_status_;
  }

  uint64_t samples_read() const {
    return samples_read_;
  }
  bool ended() const {
    return ended_;
  }

 private:
  ByteSource& bytes_;
  FrameGeometry geometry_;
  bool open_ = false;
  bool ended_ = false;
  Status end_status_;
  uint64_t data_remaining_ = 0;
  uint64_t samples_read_ = 0;
  // buffer_[0] holds the first byte of a sample split across two reads.
  uint8_t buffer_[1024] = {};
  size_t carried_ = 0;
};

}  // namespace silero_vad
