/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Number formatting for the serial protocol, without printf.
//
// Why not printf: newlib-nano (the usual bare-metal C library) prints
// neither floats (without -u _printf_float) nor 64-bit integers, and
// different C libraries may round differently. These functions give the same
// bytes on every target and match glibc's "%.6f" / "%.3f" exactly (the unit
// tests use glibc's snprintf as the oracle).

#pragma once

#include <cstddef>
#include <cstdint>

namespace silero_vad {

// Accumulates one protocol line in a fixed buffer. Appends that do not fit
// are cut at the capacity (lines are far shorter; nothing overflows).
class LineBuilder {
 public:
  static constexpr size_t kCapacity = 256;

  void append(const char* text);
  void append_char(char c);
  // Decimal integer, like "%lld".
  void append_int(int64_t value);
  // Like "%.6f" applied to the float promoted to double (round half to
  // even on exact ties, as glibc does). Non-finite values print as "nan",
  // "inf" or "-inf".
  void append_fixed6(float value);
  // `samples` / `sample_rate` like "%.3f" applied to the double quotient,
  // i.e. the seconds of a sample position. `sample_rate` is one of Silero's
  // (16000 or 8000); any other rate prints "?".
  void append_seconds_from_samples(int64_t samples, uint32_t sample_rate);

  const char* data() const {
    return buffer_;
  }
  size_t size() const {
    return size_;
  }
  void clear() {
    size_ = 0;
    buffer_[0] = '\0';
  }

 private:
  void append_uint(uint64_t value, int min_digits);

  char buffer_[kCapacity + 1] = {};
  size_t size_ = 0;
};

}  // namespace silero_vad
