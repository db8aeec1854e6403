/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "frame_assembler.h"
#include "test_support.h"

namespace silero_vad {
namespace {

using testing::FailingSource;
using testing::VectorSource;

std::vector<int16_t> numbered(size_t count) {
  std::vector<int16_t> samples(count);
  for (size_t i = 0; i < count; ++i) {
    samples[i] = static_cast<int16_t>(i % 30000 + 1);
  }
  return samples;
}

std::vector<std::vector<int16_t>> all_frames(FrameAssembler& frames) {
  std::vector<std::vector<int16_t>> out;
  // Larger than any frame, with a guard value after the frame: the
  // assembler must write exactly frame_samples() samples.
  std::vector<int16_t> frame(kMaxFrameSamples + 8, 12345);
  const size_t size = frames.geometry().frame_samples();
  while (frames.next(frame.data())) {
    out.emplace_back(frame.begin(), frame.begin() + size);
    EXPECT_EQ(frame[size], 12345);
  }
  return out;
}

class FrameAssemblerGeometry : public ::testing::TestWithParam<FrameGeometry> {
};

// Context of the previous frame, then the new samples, unchanged (int16
// PCM, no scaling), for both of Silero's geometries.
TEST_P(FrameAssemblerGeometry, ContextThenNewSamplesUnchanged) {
  const FrameGeometry g = GetParam();
  const size_t hop = g.hop_samples;
  const size_t context = g.context_samples;
  const std::vector<int16_t> samples = numbered(2 * hop);
  VectorSource source(samples);
  FrameAssembler frames(source);
  ASSERT_TRUE(frames.configure(g).ok());
  const auto out = all_frames(frames);
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].size(), context + hop);
  for (size_t i = 0; i < context; ++i) {
    EXPECT_EQ(out[0][i], 0) << i;  // zero context before the first frame
  }
  for (size_t i = 0; i < hop; ++i) {
    EXPECT_EQ(out[0][context + i], samples[i]) << i;
  }
  for (size_t i = 0; i < context; ++i) {
    EXPECT_EQ(out[1][i], samples[hop - context + i]) << i;
  }
  for (size_t i = 0; i < hop; ++i) {
    EXPECT_EQ(out[1][context + i], samples[hop + i]) << i;
  }
  EXPECT_EQ(frames.frames(), 2);
  EXPECT_EQ(frames.samples(), static_cast<int64_t>(2 * hop));
}

TEST_P(FrameAssemblerGeometry, PadsTheLastPartialFrameWithZeros) {
  const FrameGeometry g = GetParam();
  const size_t hop = g.hop_samples;
  const size_t context = g.context_samples;
  const size_t count = 2 * hop + 76;
  const std::vector<int16_t> samples = numbered(count);
  VectorSource source(samples);
  FrameAssembler frames(source);
  ASSERT_TRUE(frames.configure(g).ok());
  const auto out = all_frames(frames);
  ASSERT_EQ(out.size(), 3u);
  const std::vector<int16_t>& last = out[2];
  for (size_t i = 0; i < 76; ++i) {
    EXPECT_EQ(last[context + i], samples[2 * hop + i]);
  }
  for (size_t i = 76; i < hop; ++i) {
    EXPECT_EQ(last[context + i], 0) << i;
  }
  EXPECT_EQ(frames.samples(), static_cast<int64_t>(count));
}

TEST_P(FrameAssemblerGeometry, FrameCountIsCeilOfSamplesOverHop) {
  const FrameGeometry g = GetParam();
  const size_t hop = g.hop_samples;
  for (size_t count :
       {size_t{0}, size_t{1}, hop - 1, hop, hop + 1, 2 * hop, size_t{5000}}) {
    VectorSource source(numbered(count));
    FrameAssembler frames(source);
    ASSERT_TRUE(frames.configure(g).ok());
    const auto out = all_frames(frames);
    EXPECT_EQ(out.size(), (count + hop - 1) / hop) << count;
    EXPECT_EQ(frames.samples(), static_cast<int64_t>(count));
  }
}

// A source that hands over audio in odd pieces gives the same frames, and
// only the very last frame is padded.
TEST_P(FrameAssemblerGeometry, ShortReadsDoNotChangeFrames) {
  const std::vector<int16_t> samples = numbered(3000);
  VectorSource whole(samples);
  VectorSource pieces(samples, /*chunk=*/37);
  FrameAssembler a(whole);
  FrameAssembler b(pieces);
  ASSERT_TRUE(a.configure(GetParam()).ok());
  ASSERT_TRUE(b.configure(GetParam()).ok());
  EXPECT_EQ(all_frames(a), all_frames(b));
  EXPECT_GT(pieces.reads(), whole.reads());
}

INSTANTIATE_TEST_SUITE_P(Silero,
                         FrameAssemblerGeometry,
                         ::testing::Values(kGeometry16k, kGeometry8k));

TEST(FrameAssembler, StopsAfterTheEnd) {
  VectorSource source(numbered(600));
  FrameAssembler frames(source);
  ASSERT_TRUE(frames.configure(kGeometry16k).ok());
  std::vector<int16_t> frame(kMaxFrameSamples);
  EXPECT_TRUE(frames.next(frame.data()));
  EXPECT_TRUE(frames.next(frame.data()));
  EXPECT_FALSE(frames.next(frame.data()));
  const size_t reads = source.reads();
  EXPECT_FALSE(frames.next(frame.data()));
  EXPECT_EQ(source.reads(), reads);  // The source is not asked again.
}

// A source that ends with an error: its unfinished frame is not a frame.
TEST(FrameAssembler, DropsThePartialFrameOfAFailedStream) {
  FailingSource source(numbered(700),
                       Status::Error(ErrorCode::kIo, "broken pipe"));
  FrameAssembler frames(source);
  ASSERT_TRUE(frames.configure(kGeometry16k).ok());
  std::vector<int16_t> frame(kMaxFrameSamples);
  EXPECT_TRUE(frames.next(frame.data()));   // 512 samples, a full frame
  EXPECT_FALSE(frames.next(frame.data()));  // 188 samples, then the error
  EXPECT_EQ(frames.frames(), 1);
  EXPECT_EQ(frames.samples(), 512);
}

TEST(FrameAssembler, RefusesGeometriesSileroDoesNotHave) {
  VectorSource source(numbered(2000));
  FrameAssembler frames(source);
  std::vector<int16_t> frame(kMaxFrameSamples);
  EXPECT_FALSE(frames.next(frame.data()));  // not configured: no frames
  const Status rate = frames.configure({44100, 512, 64});
  EXPECT_EQ(rate.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::strstr(rate.message(), "44100 Hz"), nullptr);
  const Status mixed = frames.configure({16000, 256, 32});
  EXPECT_EQ(mixed.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::strstr(mixed.message(), "hop_samples 512"), nullptr)
      << mixed.message();
  EXPECT_FALSE(frames.next(frame.data()));
  EXPECT_EQ(source.reads(), 0u);
  // A later valid configure works and restarts the stream.
  ASSERT_TRUE(frames.configure(kGeometry8k).ok());
  EXPECT_TRUE(frames.next(frame.data()));
  EXPECT_EQ(frames.frames(), 1);
}

}  // namespace
}  // namespace silero_vad
