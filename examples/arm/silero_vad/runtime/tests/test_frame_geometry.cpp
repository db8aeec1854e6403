/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include <gtest/gtest.h>

#include <cstring>

#include "frame_geometry.h"

namespace silero_vad {
namespace {

// The numbers of model_export/frame_geometry.py.
TEST(FrameGeometry, SilerosTwoModels) {
  EXPECT_EQ(kGeometry16k.frame_samples(), 576u);
  EXPECT_EQ(kGeometry8k.frame_samples(), 288u);
  // 32 ms of new audio per call at both rates.
  EXPECT_EQ(kGeometry16k.hop_samples * 1000 / kGeometry16k.sample_rate, 32u);
  EXPECT_EQ(kGeometry8k.hop_samples * 1000 / kGeometry8k.sample_rate, 32u);
  EXPECT_EQ(kMaxFrameSamples, kGeometry16k.frame_samples());
  EXPECT_GE(kMaxHopSamples, kGeometry8k.hop_samples);
  EXPECT_GE(kMaxContextSamples, kGeometry8k.context_samples);
}

TEST(FrameGeometry, ByRate) {
  ASSERT_TRUE(frame_geometry(16000).ok());
  EXPECT_EQ(*frame_geometry(16000), kGeometry16k);
  ASSERT_TRUE(frame_geometry(8000).ok());
  EXPECT_EQ(*frame_geometry(8000), kGeometry8k);
  for (uint32_t rate : {0u, 44100u, 48000u, 32000u, 16001u}) {
    const Result<FrameGeometry> geometry = frame_geometry(rate);
    ASSERT_FALSE(geometry.ok()) << rate;
    EXPECT_NE(std::strstr(geometry.status().message(),
                          "Silero VAD has models for 16000 and 8000 Hz"),
              nullptr)
        << geometry.status().message();
  }
}

TEST(FrameGeometry, ChecksTheWholeGeometry) {
  EXPECT_TRUE(check_frame_geometry(kGeometry16k).ok());
  EXPECT_TRUE(check_frame_geometry(kGeometry8k).ok());
  const Status mixed = check_frame_geometry({8000, 512, 64});
  ASSERT_FALSE(mixed.ok());
  EXPECT_STREQ(mixed.message(),
               "8000 Hz with hop_samples 512 and context_samples 64: Silero's "
               "8000 Hz model takes hop_samples 256 and context_samples 32");
  EXPECT_FALSE(check_frame_geometry({16000, 512, 32}).ok());
  EXPECT_FALSE(check_frame_geometry({}).ok());
}

}  // namespace
}  // namespace silero_vad
