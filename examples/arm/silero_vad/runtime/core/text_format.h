/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Number formatting for the serial protocol without printf: newlib-nano
// prints no floats or 64-bit integers, and C libraries round differently.
// The bytes match glibc's "%.6f" / "%.3f" on every target (tested against it).

#pragma once

#include <cstddef>
#include <cstdint>

namespace silero_vad {

// One protocol line in a fixed buffer; appends beyond it are cut.
class LineBuilder {
 public:
  static constexpr size_t kCapacity = 256;

  void append(const char* text);
  void append_char(char c);
  void append_int(int64_t value);
  // "%.6f" of the float promoted to double; "nan", "inf", "-inf".
  void append_fixed6(float value);
  // "%.3f" of the double samples / sample_rate (16000 or 8000; else "?").
  void append_seconds_from_samples(int64_t samples, uint32_t sample_rate);

  const char* data() const {
    return buffer_;
  }
  size_t size() const {
    return size_;
  }

 private:
  void append_uint(uint64_t value, int min_digits);

  char buffer_[kCapacity + 1] = {};
  size_t size_ = 0;
};

}  // namespace silero_vad
