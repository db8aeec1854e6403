/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "text_format.h"

#include <cmath>

#include "frame_geometry.h"

namespace silero_vad {
namespace {

// How printf rounds samples / rate (> 0) when it is exactly halfway between
// two milliseconds: it rounds the nearest double, which for rates of 125 * 2^k
// is above the tie iff the division by 125 of the 53-bit scaled samples rounds
// up (remainder > 62); remainder 0 is the exact tie, rounded half to even, as
// are over 10^17 samples (not real audio).
bool tie_rounds_up(uint64_t samples, uint64_t milliseconds) {
  constexpr uint64_t kLow = 125ull << 52;
  uint64_t scaled = samples;
  while (scaled < kLow) {
    scaled <<= 1;
  }
  const uint64_t remainder = scaled % 125;
  if (samples >= kLow || remainder == 0) {
    return (milliseconds & 1u) != 0;
  }
  return remainder >= 63;
}

}  // namespace

void LineBuilder::append(const char* text) {
  while (*text != '\0') {
    append_char(*text++);
  }
}

void LineBuilder::append_char(char c) {
  if (size_ < kCapacity) {
    buffer_[size_++] = c;
    buffer_[size_] = '\0';
  }
}

void LineBuilder::append_uint(uint64_t value, int min_digits) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 || count < min_digits);
  while (count > 0) {
    append_char(digits[--count]);
  }
}

void LineBuilder::append_int(int64_t value) {
  if (value < 0) {
    append_char('-');
    // Negate in unsigned arithmetic: -INT64_MIN does not fit an int64.
    append_uint(0 - static_cast<uint64_t>(value), 1);
  } else {
    append_uint(static_cast<uint64_t>(value), 1);
  }
}

void LineBuilder::append_fixed6(float value) {
  if (std::isnan(value)) {
    append(std::signbit(value) ? "-nan" : "nan");
    return;
  }
  if (std::isinf(value)) {
    append(value < 0 ? "-inf" : "inf");
    return;
  }
  if (std::signbit(value)) {
    append_char('-');
  }
  const double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude < 16777216.0) {
    // Exact in a double (24 + 14 bits), so this rounds the exact value (to
    // nearest, ties to even: the default rounding mode).
    const uint64_t units =
        static_cast<uint64_t>(std::nearbyint(magnitude * 1e6));
    append_uint(units / 1000000u, 1);
    append_char('.');
    append_uint(units % 1000000u, 6);
    return;
  }
  // From 2^24 up a float is an integer below 2^128: its 24-bit significand
  // doubled in decimal digits (32-bit targets have no 128-bit type).
  int exponent = 0;
  uint32_t significand =
      static_cast<uint32_t>(std::ldexp(std::frexp(magnitude, &exponent), 24));
  char digits[40];  // least significant first
  int count = 0;
  for (; significand != 0; significand /= 10) {
    digits[count++] = static_cast<char>(significand % 10);
  }
  for (int doubled = 24; doubled < exponent; ++doubled) {
    int carry = 0;
    for (int i = 0; i < count; ++i) {
      const int twice = digits[i] * 2 + carry;
      digits[i] = static_cast<char>(twice % 10);
      carry = twice / 10;
    }
    if (carry != 0) {
      digits[count++] = static_cast<char>(carry);
    }
  }
  while (count > 0) {
    append_char(static_cast<char>('0' + digits[--count]));
  }
  append(".000000");
}

void LineBuilder::append_seconds_from_samples(int64_t samples,
                                              uint32_t sample_rate) {
  if (sample_rate != kGeometry16k.sample_rate &&
      sample_rate != kGeometry8k.sample_rate) {
    append_char('?');
    return;
  }
  const uint64_t samples_per_ms = sample_rate / 1000;
  if (samples < 0) {
    append_char('-');
  }
  const uint64_t magnitude = samples < 0 ? 0 - static_cast<uint64_t>(samples)
                                         : static_cast<uint64_t>(samples);
  uint64_t milliseconds = magnitude / samples_per_ms;
  const uint64_t remainder = magnitude % samples_per_ms;
  if (remainder * 2 > samples_per_ms ||
      (remainder * 2 == samples_per_ms &&
       tie_rounds_up(magnitude, milliseconds))) {
    ++milliseconds;
  }
  append_uint(milliseconds / 1000u, 1);
  append_char('.');
  append_uint(milliseconds % 1000u, 3);
}

}  // namespace silero_vad
