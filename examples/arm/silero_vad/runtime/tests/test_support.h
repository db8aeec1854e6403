/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Fakes shared by the unit tests: a sample source over a vector, a byte
// source that hands over bytes in pieces, a sink that captures bytes, and a
// WAV byte builder.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sample_source.h"
#include "serial_reporter.h"
#include "wav_reader.h"

namespace silero_vad {
namespace testing {

// Serves samples from a vector in reads of at most `chunk` samples, so tests
// can mimic a driver that hands over audio in small pieces.
class VectorSource final : public SampleSource {
 public:
  explicit VectorSource(std::vector<int16_t> samples, size_t chunk = 1u << 30)
      : samples_(std::move(samples)), chunk_(chunk) {}

  size_t read(int16_t* out, size_t max_samples) override {
    size_t count = samples_.size() - position_;
    if (count > max_samples) {
      count = max_samples;
    }
    if (count > chunk_) {
      count = chunk_;
    }
    for (size_t i = 0; i < count; ++i) {
      out[i] = samples_[position_ + i];
    }
    position_ += count;
    ++reads_;
    return count;
  }

  size_t reads() const {
    return reads_;
  }

 private:
  std::vector<int16_t> samples_;
  size_t chunk_;
  size_t position_ = 0;
  size_t reads_ = 0;
};

// Serves bytes from a vector in reads of at most `chunk` bytes, like a pipe
// that hands over whatever it holds; `fail_at` (if set) makes the read at
// that byte fail like an I/O error.
class ChunkedByteSource final : public ByteSource {
 public:
  explicit ChunkedByteSource(std::vector<uint8_t> bytes,
                             size_t chunk = 1u << 30)
      : bytes_(std::move(bytes)), chunk_(chunk) {}

  size_t read(uint8_t* out, size_t max_bytes) override {
    size_t count = bytes_.size() - position_;
    if (count > max_bytes) {
      count = max_bytes;
    }
    if (count > chunk_) {
      count = chunk_;
    }
    if (position_ + count > fail_at) {
      count = fail_at > position_ ? fail_at - position_ : 0;
      if (count == 0) {
        status_ = Status::Error(ErrorCode::kIo, "reading test input failed");
        return 0;
      }
    }
    for (size_t i = 0; i < count; ++i) {
      out[i] = bytes_[position_ + i];
    }
    position_ += count;
    ++reads_;
    return count;
  }
  Status status() const override {
    return status_;
  }

  size_t position() const {
    return position_;
  }
  size_t reads() const {
    return reads_;
  }
  size_t fail_at = static_cast<size_t>(-1);

 private:
  std::vector<uint8_t> bytes_;
  size_t chunk_;
  size_t position_ = 0;
  size_t reads_ = 0;
  Status status_;
};

// A sample source that ends with an error after its samples.
class FailingSource final : public SampleSource {
 public:
  FailingSource(std::vector<int16_t> samples, Status error)
      : inner_(std::move(samples)), error_(error) {}
  size_t read(int16_t* out, size_t max_samples) override {
    return inner_.read(out, max_samples);
  }
  Status status() const override {
    return error_;
  }

 private:
  VectorSource inner_;
  Status error_;
};

class CaptureSink final : public OutputSink {
 public:
  void write(const char* data, size_t size) override {
    text.append(data, size);
  }
  void flush() override {
    ++flushes;
  }

  std::string text;
  int flushes = 0;
};

// Little-endian RIFF/WAVE bytes, including deliberately broken ones.
class WavBuilder {
 public:
  static std::vector<uint8_t> u16(uint32_t value) {
    return {static_cast<uint8_t>(value), static_cast<uint8_t>(value >> 8)};
  }
  static std::vector<uint8_t> u32(uint32_t value) {
    return {static_cast<uint8_t>(value),
            static_cast<uint8_t>(value >> 8),
            static_cast<uint8_t>(value >> 16),
            static_cast<uint8_t>(value >> 24)};
  }
  static void append(std::vector<uint8_t>& out,
                     const std::vector<uint8_t>& bytes) {
    out.insert(out.end(), bytes.begin(), bytes.end());
  }

  static std::vector<uint8_t> fmt(uint16_t tag,
                                  uint16_t channels,
                                  uint32_t rate,
                                  uint16_t bits) {
    const uint16_t align = static_cast<uint16_t>(channels * bits / 8);
    std::vector<uint8_t> body;
    append(body, u16(tag));
    append(body, u16(channels));
    append(body, u32(rate));
    append(body, u32(rate * align));
    append(body, u16(align));
    append(body, u16(bits));
    return body;
  }

  static std::vector<uint8_t> pcm16(const std::vector<int16_t>& samples) {
    std::vector<uint8_t> out;
    for (int16_t s : samples) {
      append(out, u16(static_cast<uint16_t>(s)));
    }
    return out;
  }

  // A chunk with a size field of `declared` (the body size by default) and
  // the pad byte after odd bodies when `pad`.
  WavBuilder& chunk(const char* id,
                    const std::vector<uint8_t>& body,
                    int64_t declared = -1,
                    bool pad = true) {
    body_.insert(body_.end(), id, id + 4);
    append(body_,
           u32(declared < 0 ? static_cast<uint32_t>(body.size())
                            : static_cast<uint32_t>(declared)));
    append(body_, body);
    if (pad && body.size() % 2 == 1) {
      body_.push_back(0);
    }
    return *this;
  }

  // The file; `riff_size` overrides the RIFF size field.
  std::vector<uint8_t> build(int64_t riff_size = -1) const {
    std::vector<uint8_t> out = {'R', 'I', 'F', 'F'};
    append(out,
           u32(riff_size < 0 ? static_cast<uint32_t>(body_.size() + 4)
                             : static_cast<uint32_t>(riff_size)));
    out.insert(out.end(), {'W', 'A', 'V', 'E'});
    append(out, body_);
    return out;
  }

 private:
  std::vector<uint8_t> body_;
};

}  // namespace testing
}  // namespace silero_vad
