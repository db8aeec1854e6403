/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "serial_reporter.h"
#include "test_support.h"
#include "text_format.h"

namespace silero_vad {
namespace {

using testing::CaptureSink;

std::string fixed6(float value) {
  LineBuilder line;
  line.append_fixed6(value);
  return std::string(line.data(), line.size());
}

std::string glibc_fixed6(float value) {
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), "%.6f", static_cast<double>(value));
  return buffer;
}

std::string seconds(int64_t samples, uint32_t rate) {
  LineBuilder line;
  line.append_seconds_from_samples(samples, rate);
  return std::string(line.data(), line.size());
}

std::string glibc_seconds(int64_t samples, uint32_t rate) {
  char buffer[64];
  std::snprintf(buffer,
                sizeof(buffer),
                "%.3f",
                static_cast<double>(samples) / static_cast<double>(rate));
  return buffer;
}

// glibc's printf is the oracle: the protocol must read the same whether it
// comes from the host or from newlib on the Corstone.
TEST(TextFormat, Fixed6MatchesPrintfOnProbabilities) {
  for (uint32_t i = 0; i <= 1000000; ++i) {
    const float value = static_cast<float>(i) / 1000000.0f;
    ASSERT_EQ(fixed6(value), glibc_fixed6(value)) << i;
  }
}

TEST(TextFormat, Fixed6MatchesPrintfOnExactTies) {
  // k / 128 for odd k gives ...5 exactly at the 7th decimal: round half to
  // even, as glibc does.
  for (int k = -1001; k <= 1001; k += 2) {
    const float value = static_cast<float>(k) / 128.0f;
    ASSERT_EQ(fixed6(value), glibc_fixed6(value)) << k;
  }
  EXPECT_EQ(fixed6(1.0f / 128.0f), "0.007812");
  EXPECT_EQ(fixed6(3.0f / 128.0f), "0.023438");
}

TEST(TextFormat, Fixed6MatchesPrintfOnAnyFloatBits) {
  std::mt19937 rng(42);
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t bits = rng();
    float value = 0.0f;
    std::memcpy(&value, &bits, sizeof(value));
    if (std::isnan(value)) {
      continue;  // glibc prints the sign of NaNs, covered below.
    }
    ASSERT_EQ(fixed6(value), glibc_fixed6(value)) << std::hex << bits;
  }
  for (float value : {0.0f,
                      -0.0f,
                      1.0f,
                      0.5f,
                      std::numeric_limits<float>::min(),
                      std::numeric_limits<float>::denorm_min(),
                      std::numeric_limits<float>::max(),
                      -std::numeric_limits<float>::max(),
                      16777216.0f,
                      16777215.5f,
                      std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity()}) {
    EXPECT_EQ(fixed6(value), glibc_fixed6(value)) << value;
  }
  EXPECT_EQ(fixed6(std::numeric_limits<float>::quiet_NaN()), "nan");
}

// Both of Silero's rates, every sample position of the first two minutes at
// 16 kHz (four at 8 kHz), then random positions up to 2^40.
TEST(TextFormat, SecondsFromSamplesMatchesPrintf) {
  for (uint32_t rate : {16000u, 8000u}) {
    for (int64_t samples = 0; samples <= 2000000; ++samples) {
      ASSERT_EQ(seconds(samples, rate), glibc_seconds(samples, rate))
          << samples << " at " << rate;
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 1000000; ++i) {
      const int64_t samples = static_cast<int64_t>(rng() >> 24);  // < 2^40
      ASSERT_EQ(seconds(samples, rate), glibc_seconds(samples, rate))
          << samples << " at " << rate;
    }
  }
  EXPECT_EQ(seconds(-8, 16000), glibc_seconds(-8, 16000));
  EXPECT_EQ(seconds(1000, 44100), "?");
}

TEST(TextFormat, Integers) {
  LineBuilder line;
  line.append_int(0);
  line.append_char(' ');
  line.append_int(-42);
  line.append_char(' ');
  line.append_int(std::numeric_limits<int64_t>::min());
  EXPECT_STREQ(line.data(), "0 -42 -9223372036854775808");
}

TEST(TextFormat, LineIsCutNotOverflowed) {
  LineBuilder line;
  for (int i = 0; i < 1000; ++i) {
    line.append("0123456789");
  }
  EXPECT_EQ(line.size(), LineBuilder::kCapacity);
  EXPECT_EQ(std::strlen(line.data()), LineBuilder::kCapacity);
}

TEST(SerialReporter, WritesTheProtocolLines) {
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  reporter.probability(0, 0.25f);
  reporter.probability(1, 0.5f);  // == threshold: speech
  reporter.probability(31, 0.999999f);
  reporter.segment({4640, 15840});
  reporter.done(32, 1);
  EXPECT_EQ(sink.text,
            "PROB 0.000 0.250000 silence\n"
            "PROB 0.032 0.500000 speech\n"
            "PROB 0.992 0.999999 speech\n"
            "SEGMENT 0.290 0.990\n"
            "DONE frames=32 segments=1\n"
            "\x04");
  EXPECT_EQ(sink.flushes, 6);  // Every line and the final byte.
}

// The 8 kHz model: frames of 256 samples are 32 ms too; segment times are
// samples / 8000.
TEST(SerialReporter, EightKilohertzGeometry) {
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  reporter.set_geometry(kGeometry8k);
  reporter.probability(0, 0.25f);
  reporter.probability(31, 0.75f);
  reporter.segment({2320, 7920});
  EXPECT_EQ(sink.text,
            "PROB 0.000 0.250000 silence\n"
            "PROB 0.992 0.750000 speech\n"
            "SEGMENT 0.290 0.990\n");
}

TEST(SerialReporter, SpeechDecisionUsesTheFloatAsDouble) {
  CaptureSink sink;
  SerialReporter reporter(sink, 0.35);
  reporter.probability(0, 0.35f);  // 0.3499999940... < 0.35
  EXPECT_EQ(sink.text, "PROB 0.000 0.350000 silence\n");
}

TEST(SerialReporter, LongRunTimesAreExact) {
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  reporter.probability(1000000, 0.0f);
  EXPECT_EQ(sink.text, "PROB 32000.000 0.000000 silence\n");
}

TEST(SerialReporter, ErrorsEndWithEndOfTransmission) {
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  reporter.fail(Status::Error(ErrorCode::kUnsupportedWav,
                              "sample rate %d Hz found: need 16000 Hz",
                              44100));
  EXPECT_EQ(sink.text, "ERROR sample rate 44100 Hz found: need 16000 Hz\n\x04");
}

TEST(SerialReporter, ErrorMessagesStayOnOneLine) {
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  reporter.fail(Status::Error(ErrorCode::kIo, "first\nsecond\rthird"));
  EXPECT_EQ(sink.text, "ERROR first second third\n\x04");
}

TEST(Status, KeepsCodeAndTruncatesLongMessages) {
  const std::string long_text(1000, 'x');
  const Status status =
      Status::Error(ErrorCode::kCapacity, "%s", long_text.c_str());
  EXPECT_EQ(status.code(), ErrorCode::kCapacity);
  EXPECT_EQ(std::strlen(status.message()), Status::kMaxMessage - 1);
  EXPECT_FALSE(Status::Error(ErrorCode::kOk, "x").ok());
  const Result<int> from_ok = Status::Ok();
  EXPECT_FALSE(from_ok.ok());
}

}  // namespace
}  // namespace silero_vad
