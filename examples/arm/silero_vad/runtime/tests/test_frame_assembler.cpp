/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include <gtest/gtest.h>

#include <vector>

#include "frame_assembler.h"
#include "test_support.h"
#include "vad_constants.h"

namespace silero_vad {
namespace {

using testing::VectorSource;

std::vector<int16_t> numbered(size_t count) {
  std::vector<int16_t> samples(count);
  for (size_t i = 0; i < count; ++i) {
    samples[i] = static_cast<int16_t>(i % 30000 + 1);
  }
  return samples;
}

float scaled(int32_t sample) {
  return static_cast<float>(sample) / 32768.0f;
}

std::vector<std::vector<float>> all_frames(FrameAssembler& frames) {
  std::vector<std::vector<float>> out;
  std::vector<float> input(kModelInputSamples);
  while (frames.next(input.data())) {
    out.push_back(input);
  }
  return out;
}

TEST(FrameAssembler, ContextThenNewSamplesScaled) {
  const std::vector<int16_t> samples = numbered(1024);
  VectorSource source(samples);
  FrameAssembler frames(source);
  const auto out = all_frames(frames);
  ASSERT_EQ(out.size(), 2u);
  // First frame: zero context.
  for (size_t i = 0; i < kContextSamples; ++i) {
    EXPECT_EQ(out[0][i], 0.0f) << i;
  }
  for (size_t i = 0; i < kFrameSamples; ++i) {
    EXPECT_EQ(out[0][kContextSamples + i], scaled(samples[i])) << i;
  }
  // Second frame: the last 64 samples of the first frame, then its own.
  for (size_t i = 0; i < kContextSamples; ++i) {
    EXPECT_EQ(out[1][i], scaled(samples[kFrameSamples - kContextSamples + i]));
  }
  for (size_t i = 0; i < kFrameSamples; ++i) {
    EXPECT_EQ(out[1][kContextSamples + i], scaled(samples[kFrameSamples + i]));
  }
  EXPECT_EQ(frames.frames(), 2);
  EXPECT_EQ(frames.samples(), 1024);
}

TEST(FrameAssembler, FullScaleIsExact) {
  VectorSource source({-32768, 32767, 0, -1});
  FrameAssembler frames(source);
  std::vector<float> input(kModelInputSamples);
  ASSERT_TRUE(frames.next(input.data()));
  EXPECT_EQ(input[kContextSamples + 0], -1.0f);
  EXPECT_EQ(input[kContextSamples + 1], 32767.0f / 32768.0f);
  EXPECT_EQ(input[kContextSamples + 2], 0.0f);
  EXPECT_EQ(input[kContextSamples + 3], -1.0f / 32768.0f);
}

TEST(FrameAssembler, PadsTheLastPartialFrameWithZeros) {
  const std::vector<int16_t> samples = numbered(1100);
  VectorSource source(samples);
  FrameAssembler frames(source);
  const auto out = all_frames(frames);
  ASSERT_EQ(out.size(), 3u);  // ceil(1100 / 512)
  const std::vector<float>& last = out[2];
  for (size_t i = 0; i < 76; ++i) {
    EXPECT_EQ(last[kContextSamples + i], scaled(samples[1024 + i]));
  }
  for (size_t i = 76; i < kFrameSamples; ++i) {
    EXPECT_EQ(last[kContextSamples + i], 0.0f) << i;
  }
  EXPECT_EQ(frames.frames(), 3);
  EXPECT_EQ(frames.samples(), 1100);
}

TEST(FrameAssembler, FrameCountIsCeilOfSamplesOver512) {
  for (size_t count : {0u, 1u, 511u, 512u, 513u, 1023u, 1024u, 5000u}) {
    VectorSource source(numbered(count));
    FrameAssembler frames(source);
    const auto out = all_frames(frames);
    EXPECT_EQ(out.size(), (count + 511) / 512) << count;
    EXPECT_EQ(frames.samples(), static_cast<int64_t>(count));
  }
}

// A source that hands over audio in odd pieces gives the same frames, and
// only the very last frame is padded.
TEST(FrameAssembler, ShortReadsDoNotChangeFrames) {
  const std::vector<int16_t> samples = numbered(3000);
  VectorSource whole(samples);
  VectorSource pieces(samples, /*chunk=*/37);
  FrameAssembler a(whole);
  FrameAssembler b(pieces);
  EXPECT_EQ(all_frames(a), all_frames(b));
  EXPECT_GT(pieces.reads(), whole.reads());
}

TEST(FrameAssembler, StopsAfterTheEnd) {
  VectorSource source(numbered(600));
  FrameAssembler frames(source);
  std::vector<float> input(kModelInputSamples);
  EXPECT_TRUE(frames.next(input.data()));
  EXPECT_TRUE(frames.next(input.data()));
  EXPECT_FALSE(frames.next(input.data()));
  const size_t reads = source.reads();
  EXPECT_FALSE(frames.next(input.data()));
  EXPECT_EQ(source.reads(), reads);  // The source is not asked again.
}

}  // namespace
}  // namespace silero_vad
