/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "test_support.h"
#include "vad_app.h"

namespace silero_vad {
namespace {

using testing::CaptureSink;
using testing::FailingSource;
using testing::VectorSource;

// Returns scripted probabilities, records the inputs it saw, and can fail on
// a chosen frame.
class FakeModel final : public ModelStep {
 public:
  explicit FakeModel(std::vector<float> probs,
                     const FrameGeometry& geometry = kGeometry16k)
      : probs_(std::move(probs)), geometry_(geometry) {}

  const FrameGeometry& geometry() const override {
    return geometry_;
  }

  Result<float> step(const int16_t* frame) override {
    inputs.emplace_back(frame, frame + geometry_.frame_samples());
    const size_t index = inputs.size() - 1;
    if (static_cast<int64_t>(index) == fail_at) {
      return Status::Error(ErrorCode::kModelExecute,
                           "fake failure at %d",
                           static_cast<int>(index));
    }
    return index < probs_.size() ? probs_[index] : 0.0f;
  }

  std::vector<std::vector<int16_t>> inputs;
  int64_t fail_at = -1;

 private:
  std::vector<float> probs_;
  FrameGeometry geometry_;
};

class CountingListener final : public FrameListener {
 public:
  Status on_frame(int64_t frame_index, float probability) override {
    frames.push_back(frame_index);
    probs.push_back(probability);
    return Status::Ok();
  }
  std::vector<int64_t> frames;
  std::vector<float> probs;
};

std::vector<int16_t> samples(size_t count, int16_t value = 1000) {
  return std::vector<int16_t>(count, value);
}

TEST(VadApp, PrintsProbabilitiesSegmentsAndDone) {
  // 20 speech frames, then silence: the segment is printed right after the
  // PROB line of the frame whose silence closes it (frame 24).
  std::vector<float> probs(30, 0.05f);
  for (int i = 0; i < 20; ++i) {
    probs[i] = 0.9f;
  }
  FakeModel model(probs);
  VectorSource source(samples(30 * 512 - 12));
  CaptureSink sink;
  SegmenterParams params;
  SerialReporter reporter(sink, params.threshold);
  CountingListener listener;
  const Status status = run_vad(source, model, params, reporter, &listener);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(model.inputs.size(), 30u);
  EXPECT_EQ(listener.frames.size(), 30u);
  EXPECT_EQ(listener.frames.back(), 29);

  const std::string& out = sink.text;
  const size_t frame24 = out.find("PROB 0.768 0.050000 silence\n");
  const size_t segment = out.find("SEGMENT 0.000 0.670\n");
  const size_t frame25 = out.find("PROB 0.800 ");
  ASSERT_NE(frame24, std::string::npos);
  ASSERT_NE(segment, std::string::npos);
  EXPECT_LT(frame24, segment);
  EXPECT_LT(segment, frame25);
  const std::string tail = "DONE frames=30 segments=1\n\x04";
  ASSERT_GE(out.size(), tail.size());
  EXPECT_EQ(out.substr(out.size() - tail.size()), tail);
  EXPECT_EQ(out.find("PROB 0.000 0.900000 speech\n"), 0u);
}

// The model gets int16 PCM frames of its own geometry, unchanged.
TEST(VadApp, FeedsTheModelPcmFramesOfItsGeometry) {
  std::vector<int16_t> audio(1024);
  for (size_t i = 0; i < audio.size(); ++i) {
    audio[i] = static_cast<int16_t>(i * 31 - 16000);
  }
  for (const FrameGeometry& g : {kGeometry16k, kGeometry8k}) {
    FakeModel model({}, g);
    VectorSource source(audio, /*chunk=*/100);
    CaptureSink sink;
    SerialReporter reporter(sink, 0.5);
    ASSERT_TRUE(
        run_vad(source, model, SegmenterParams(), reporter, nullptr).ok());
    const size_t hop = g.hop_samples;
    const size_t context = g.context_samples;
    ASSERT_EQ(model.inputs.size(), 1024 / hop);
    EXPECT_EQ(model.inputs[0].size(), context + hop);
    EXPECT_EQ(model.inputs[0][0], 0);
    EXPECT_EQ(model.inputs[0][context + 5], audio[5]);
    // The second frame's context is the tail of the first frame.
    EXPECT_EQ(model.inputs[1][0], audio[hop - context]);
    EXPECT_EQ(model.inputs[1][context], audio[hop]);
  }
}

// The 8 kHz model: 256-sample frames, times from its own rate.
TEST(VadApp, EightKilohertzTimesAndSegments) {
  std::vector<float> probs(40, 0.8f);
  FakeModel model(probs, kGeometry8k);
  const size_t samples_count = 40 * 256 - 100;  // 10140: ends mid-frame
  VectorSource source(samples(samples_count));
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  ASSERT_TRUE(
      run_vad(source, model, SegmenterParams(), reporter, nullptr).ok());
  EXPECT_EQ(reporter.geometry(), kGeometry8k);
  EXPECT_EQ(sink.text.find("PROB 0.000 0.800000 speech\nPROB 0.032 "), 0u);
  EXPECT_NE(sink.text.find("PROB 1.248 0.800000 speech\n"), std::string::npos);
  // One segment to the end of the audio: 10140 / 8000 s as printf rounds it.
  char expected[64];
  std::snprintf(expected,
                sizeof(expected),
                "SEGMENT 0.000 %.3f\nDONE frames=40 segments=1\n\x04",
                10140.0 / 8000.0);
  EXPECT_NE(sink.text.find(expected), std::string::npos) << sink.text;
}

// A source that refuses its audio at the end (a WAV stream shorter than one
// frame): no DONE, its ERROR line.
TEST(VadApp, SourceErrorAtTheEndIsReported) {
  FakeModel model({});
  FailingSource source(samples(300),
                       Status::Error(ErrorCode::kUnsupportedWav,
                                     "clip has 300 samples, shorter than one "
                                     "frame"));
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  const Status status =
      run_vad(source, model, SegmenterParams(), reporter, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::kUnsupportedWav);
  EXPECT_EQ(sink.text,
            "ERROR clip has 300 samples, shorter than one frame\n\x04");
  EXPECT_TRUE(model.inputs.empty());
}

TEST(VadApp, ModelWithAGeometrySileroDoesNotHaveIsRefused) {
  FakeModel model({}, FrameGeometry{44100, 512, 64});
  VectorSource source(samples(2048));
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  const Status status =
      run_vad(source, model, SegmenterParams(), reporter, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(sink.text.find("ERROR sample rate 44100 Hz"), std::string::npos)
      << sink.text;
  EXPECT_TRUE(model.inputs.empty());
}

TEST(VadApp, SpeechUntilTheEndIsFlushed) {
  FakeModel model(std::vector<float>(40, 0.8f));
  VectorSource source(samples(40 * 512));
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  ASSERT_TRUE(
      run_vad(source, model, SegmenterParams(), reporter, nullptr).ok());
  EXPECT_NE(sink.text.find("SEGMENT 0.000 1.280\nDONE frames=40 segments=1\n"
                           "\x04"),
            std::string::npos);
}

TEST(VadApp, ModelFailureEndsWithErrorAndEndOfTransmission) {
  FakeModel model(std::vector<float>(10, 0.1f));
  model.fail_at = 3;
  VectorSource source(samples(10 * 512));
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  const Status status =
      run_vad(source, model, SegmenterParams(), reporter, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::kModelExecute);
  const std::string tail =
      "PROB 0.064 0.100000 silence\n"
      "ERROR fake failure at 3\n\x04";
  ASSERT_GE(sink.text.size(), tail.size());
  EXPECT_EQ(sink.text.substr(sink.text.size() - tail.size()), tail);
  EXPECT_EQ(sink.text.find("DONE"), std::string::npos);
}

TEST(VadApp, NonFiniteProbabilityIsAnError) {
  FakeModel model({0.1f, std::nanf(""), 0.1f});
  VectorSource source(samples(3 * 512));
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  const Status status =
      run_vad(source, model, SegmenterParams(), reporter, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::kModelExecute);
  EXPECT_NE(sink.text.find("ERROR model output at frame 1 is not finite\n\x04"),
            std::string::npos);
  EXPECT_EQ(model.inputs.size(), 2u);
}

TEST(VadApp, InvalidParametersAreReported) {
  FakeModel model({});
  VectorSource source(samples(512));
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  SegmenterParams params;
  params.speech_pad_ms = -5;
  const Status status = run_vad(source, model, params, reporter, nullptr);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(sink.text, "ERROR speech_pad_ms must be finite and >= 0\n\x04");
  EXPECT_TRUE(model.inputs.empty());
}

TEST(VadApp, EmptySourceIsDoneWithZeroFrames) {
  FakeModel model({});
  VectorSource source({});
  CaptureSink sink;
  SerialReporter reporter(sink, 0.5);
  ASSERT_TRUE(
      run_vad(source, model, SegmenterParams(), reporter, nullptr).ok());
  EXPECT_EQ(sink.text, "DONE frames=0 segments=0\n\x04");
}

}  // namespace
}  // namespace silero_vad
