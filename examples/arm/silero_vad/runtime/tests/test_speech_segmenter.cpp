/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "speech_segmenter.h"

namespace silero_vad {
namespace {

using Segments = std::vector<std::pair<int64_t, int64_t>>;

std::pair<int64_t, int64_t> seg(int64_t start, int64_t end) {
  return {start, end};
}

// Path of data/segmenter_golden.txt, given by CTest.
std::string g_golden_path;

// Segments with the frame count at which each was released (-1 = finish()).
struct Released {
  Segments segments;
  std::vector<int64_t> at_frame;
};

Released run(const std::vector<float>& probs,
             int64_t audio_length,
             const SegmenterParams& params = SegmenterParams(),
             uint32_t sample_rate = 16000) {
  Released out;
  SpeechSegmenter segmenter;
  EXPECT_TRUE(segmenter.configure(params, sample_rate).ok());
  SpeechSegment segment;
  for (float p : probs) {
    const Status status = segmenter.push(p);
    EXPECT_TRUE(status.ok()) << status.message();
    while (segmenter.pop(&segment)) {
      out.segments.emplace_back(segment.start_sample, segment.end_sample);
      out.at_frame.push_back(segmenter.frames());
    }
  }
  const Status status = segmenter.finish(audio_length);
  EXPECT_TRUE(status.ok()) << status.message();
  while (segmenter.pop(&segment)) {
    out.segments.emplace_back(segment.start_sample, segment.end_sample);
    out.at_frame.push_back(-1);
  }
  return out;
}

std::vector<float> repeat(float value, size_t count) {
  return std::vector<float>(count, value);
}

std::vector<float> concat(std::initializer_list<std::vector<float>> parts) {
  std::vector<float> out;
  for (const auto& part : parts) {
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// ---------------------------------------------------------------------------
// Golden cases from silero-vad's get_speech_timestamps_from_probs().

struct GoldenCase {
  std::string name;
  uint32_t sample_rate = 16000;
  SegmenterParams params;
  int64_t audio_length = 0;
  std::vector<float> probs;
  Segments expected;
};

bool apply_param(const std::string& key,
                 const std::string& value,
                 SegmenterParams* params) {
  const double number = std::strtod(value.c_str(), nullptr);
  if (key == "threshold") {
    params->threshold = number;
  } else if (key == "neg_threshold") {
    params->has_neg_threshold = true;
    params->neg_threshold = number;
  } else if (key == "min_speech_duration_ms") {
    params->min_speech_duration_ms = number;
  } else if (key == "max_speech_duration_s") {
    params->max_speech_duration_s = number;
  } else if (key == "min_silence_duration_ms") {
    params->min_silence_duration_ms = number;
  } else if (key == "speech_pad_ms") {
    params->speech_pad_ms = number;
  } else if (key == "min_silence_at_max_speech") {
    params->min_silence_at_max_speech = number;
  } else if (key == "use_max_poss_sil_at_max_speech") {
    params->use_max_poss_sil_at_max_speech = value == "1";
  } else {
    return false;
  }
  return true;
}

std::vector<GoldenCase> load_golden(const std::string& path) {
  std::vector<GoldenCase> cases;
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << "cannot open " << path;
  std::string line;
  GoldenCase current;
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    std::istringstream in(line);
    std::string word;
    in >> word;
    if (word == "case") {
      current = GoldenCase();
      in >> current.name;
    } else if (word == "sample_rate") {
      in >> current.sample_rate;
    } else if (word == "param") {
      std::string key;
      std::string value;
      in >> key >> value;
      EXPECT_TRUE(apply_param(key, value, &current.params)) << key;
    } else if (word == "audio_length_samples") {
      in >> current.audio_length;
    } else if (word == "probs") {
      size_t count = 0;
      in >> count;
      for (size_t i = 0; i < count; ++i) {
        std::string hex;
        in >> hex;
        const uint32_t bits =
            static_cast<uint32_t>(std::strtoul(hex.c_str(), nullptr, 16));
        float value = 0.0f;
        std::memcpy(&value, &bits, sizeof(value));
        current.probs.push_back(value);
      }
    } else if (word == "segments") {
      size_t count = 0;
      in >> count;
      for (size_t i = 0; i < count; ++i) {
        int64_t start = 0;
        int64_t end = 0;
        in >> start >> end;
        current.expected.emplace_back(start, end);
      }
    } else if (word == "end") {
      cases.push_back(current);
    } else {
      ADD_FAILURE() << "bad golden line: " << line;
    }
  }
  return cases;
}

TEST(SpeechSegmenterGolden, MatchesSileroVadSampleExactly) {
  ASSERT_FALSE(g_golden_path.empty()) << "pass --golden PATH";
  const std::vector<GoldenCase> cases = load_golden(g_golden_path);
  // Both sampling rates, each with enough cases and segments to matter.
  size_t cases_at[2] = {0, 0};
  size_t segments_at[2] = {0, 0};
  for (const GoldenCase& c : cases) {
    const Released got = run(c.probs, c.audio_length, c.params, c.sample_rate);
    EXPECT_EQ(got.segments, c.expected)
        << "case " << c.name << " at " << c.sample_rate << " Hz";
    const size_t at = c.sample_rate == 8000 ? 1 : 0;
    ++cases_at[at];
    segments_at[at] += c.expected.size();
  }
  EXPECT_GE(cases_at[0], 30u);
  EXPECT_GE(cases_at[1], 30u);
  EXPECT_GT(segments_at[0], 50u);
  EXPECT_GT(segments_at[1], 50u);
}

// ---------------------------------------------------------------------------
// Streaming behaviour.

constexpr float kSpeech = 0.9f;
constexpr float kSilence = 0.05f;

// With default parameters a segment comes out on the frame where 100 ms of
// silence closes it: silence starts at frame 20 (sample 10240) and
// 11840 - 10240 >= 1600 first holds at frame 24, the 25th push.
TEST(SpeechSegmenter, DefaultReleasesWhenSilenceClosesTheSegment) {
  const Released got =
      run(concat({repeat(kSpeech, 20), repeat(kSilence, 40)}), 60 * 512);
  ASSERT_EQ(got.segments.size(), 1u);
  EXPECT_EQ(got.segments[0], seg(0, 10240 + 480));
  EXPECT_EQ(got.at_frame[0], 25);
}

// At 8 kHz the window is 256 samples and the thresholds are in 8 kHz
// samples: silence starts at frame 20 (sample 5120), 100 ms is 800 samples,
// and 6144 - 5120 >= 800 first holds at frame 24 again; the end is padded by
// 30 ms = 240 samples.
TEST(SpeechSegmenter, EightKilohertzWindowAndThresholds) {
  const Released got = run(concat({repeat(kSpeech, 20), repeat(kSilence, 40)}),
                           60 * 256,
                           SegmenterParams(),
                           8000);
  ASSERT_EQ(got.segments.size(), 1u);
  EXPECT_EQ(got.segments[0], seg(0, 5120 + 240));
  EXPECT_EQ(got.at_frame[0], 25);
}

TEST(SpeechSegmenter, OpenSegmentIsFlushedByFinish) {
  const Released got =
      run(concat({repeat(kSilence, 5), repeat(kSpeech, 30)}), 35 * 512 - 100);
  ASSERT_EQ(got.segments.size(), 1u);
  EXPECT_EQ(got.segments[0].first, 5 * 512 - 480);
  EXPECT_EQ(got.segments[0].second, 35 * 512 - 100);  // clamped to the clip
  EXPECT_EQ(got.at_frame[0], -1);
}

// Short silences and a pad wider than the gap: segment A must wait for the
// next candidate; once that candidate is retained, both share the gap.
TEST(SpeechSegmenter, WaitsForACloseCandidateThatIsKept) {
  SegmenterParams params;
  params.min_silence_duration_ms = 30;  // 480 samples: one silent frame
  params.speech_pad_ms = 100;           // 1600 samples, 2 * pad = 3200
  params.min_speech_duration_ms = 100;
  // A: frames 0-9, silence 10-11 (closes at frame 11), B: frames 12-29,
  // silence from frame 30 (closes B at frame 31).
  const std::vector<float> probs = concat({repeat(kSpeech, 10),
                                           repeat(kSilence, 2),
                                           repeat(kSpeech, 18),
                                           repeat(kSilence, 20)});
  const Released got =
      run(probs, static_cast<int64_t>(probs.size()) * 512, params);
  ASSERT_EQ(got.segments.size(), 2u);
  // Raw A = [0, 5120), raw B = [6144, 15360): the gap 1024 < 3200 is shared.
  EXPECT_EQ(got.segments[0], seg(0, 5632));
  EXPECT_EQ(got.segments[1], seg(5632, 16960));
  // A cannot go before B is known to be kept (B closes on the 32nd push).
  EXPECT_EQ(got.at_frame[0], 32);
  // B waits until no new speech could start within 3200 samples of 15360:
  // the next frame must start at >= 18560, i.e. after the 37th push.
  EXPECT_EQ(got.at_frame[1], 37);
}

TEST(SpeechSegmenter, ReleasesWhenTheCloseCandidateIsDropped) {
  SegmenterParams params;
  params.min_silence_duration_ms = 30;
  params.speech_pad_ms = 100;
  params.min_speech_duration_ms = 100;  // 1600 samples: 3 frames or fewer drop
  const std::vector<float> probs = concat({repeat(kSpeech, 10),
                                           repeat(kSilence, 2),
                                           repeat(kSpeech, 2),
                                           repeat(kSilence, 20)});
  const Released got =
      run(probs, static_cast<int64_t>(probs.size()) * 512, params);
  ASSERT_EQ(got.segments.size(), 1u);
  // No retained successor: A gets the full pad.
  EXPECT_EQ(got.segments[0], seg(0, 5120 + 1600));
  // The candidate (frames 12-13) is dropped when its silence closes it on
  // the 16th push; one more frame rules out a new start within 3200 samples.
  EXPECT_EQ(got.at_frame[0], 17);
}

// A short pad (under one frame) with zero minimum silence: the segment closes
// on the frame of its end, and its padded end (raw end + 160) lies past the
// samples known to exist, so it waits for one more frame or for finish().
TEST(SpeechSegmenter, WaitsUntilTheEndPaddingIsInsideTheClip) {
  SegmenterParams params;
  params.min_silence_duration_ms = 0;
  params.min_speech_duration_ms = 0;
  params.speech_pad_ms = 10;  // 160 samples
  const std::vector<float> closing = concat({repeat(kSpeech, 10), {kSilence}});
  // The clip continues: released on the next push with the full pad.
  const Released more =
      run(concat({closing, repeat(kSilence, 3)}), 14 * 512, params);
  ASSERT_EQ(more.segments.size(), 1u);
  EXPECT_EQ(more.segments[0], seg(0, 5280));
  EXPECT_EQ(more.at_frame[0], 12);
  // The clip ends 80 samples into the last frame: the pad is clamped to it.
  const Released cut = run(closing, 10 * 512 + 80, params);
  ASSERT_EQ(cut.segments.size(), 1u);
  EXPECT_EQ(cut.segments[0], seg(0, 5200));
  EXPECT_EQ(cut.at_frame[0], -1);
}

TEST(SpeechSegmenter, MaxSpeechSplitsAndReleasesOnline) {
  SegmenterParams params;
  params.max_speech_duration_s = 1.0;
  const std::vector<float> probs =
      concat({repeat(kSpeech, 200), repeat(kSilence, 10)});
  const Released got = run(probs, 210 * 512, params);
  ASSERT_GE(got.segments.size(), 5u);
  EXPECT_GT(got.at_frame[0], 0);  // The first cut is out before finish().
  for (size_t i = 1; i < got.segments.size(); ++i) {
    EXPECT_LE(got.segments[i - 1].second, got.segments[i].first + 1);
  }
}

TEST(SpeechSegmenter, NoSpeechNoSegments) {
  EXPECT_TRUE(run(repeat(kSilence, 100), 100 * 512).segments.empty());
  EXPECT_TRUE(run({}, 0).segments.empty());
}

TEST(SpeechSegmenter, ThresholdsAreComparedInDouble) {
  // neg_threshold = 0.5 - 0.15 computed in double (about 0.35). The float
  // 0.35f is 0.3499999940..., below it: silence, which closes the segment.
  // A float32 comparison (0.35f < 0.35f) would keep the speech going.
  SegmenterParams params;
  params.min_speech_duration_ms = 0;
  params.min_silence_duration_ms = 0;
  params.speech_pad_ms = 0;
  const Released got =
      run(concat({repeat(kSpeech, 4), repeat(0.35f, 2)}), 6 * 512, params);
  ASSERT_EQ(got.segments.size(), 1u);
  EXPECT_EQ(got.segments[0], seg(0, 2048));
}

TEST(SpeechSegmenter, QueueOverflowIsReportedNotOverwritten) {
  SegmenterParams params;
  params.min_speech_duration_ms = 0;
  params.min_silence_duration_ms = 0;
  params.speech_pad_ms = 0;
  SpeechSegmenter segmenter;
  ASSERT_TRUE(segmenter.configure(params, 16000).ok());
  Status status;
  int pushes = 0;
  // One segment every two frames, never popped.
  while (status.ok() && pushes < 100) {
    status = segmenter.push(pushes % 2 == 0 ? kSpeech : kSilence);
    ++pushes;
  }
  EXPECT_EQ(status.code(), ErrorCode::kCapacity);
  EXPECT_NE(std::strstr(status.message(), "pop()"), nullptr);
  EXPECT_LT(pushes, 100);
  // The segments that fit are intact and in order.
  SpeechSegment segment;
  int64_t previous_end = -1;
  size_t popped = 0;
  while (segmenter.pop(&segment)) {
    EXPECT_GT(segment.start_sample, previous_end);
    previous_end = segment.end_sample;
    ++popped;
  }
  EXPECT_EQ(popped, SpeechSegmenter::kMaxQueuedSegments);
}

TEST(SpeechSegmenter, RejectsInconsistentAudioLength) {
  SpeechSegmenter eight;
  ASSERT_TRUE(eight.configure(SegmenterParams(), 8000).ok());
  EXPECT_EQ(eight.window_samples(), 256);
  ASSERT_TRUE(eight.push(kSilence).ok());
  ASSERT_TRUE(eight.push(kSilence).ok());
  EXPECT_EQ(eight.finish(513).code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(eight.finish(512).ok());
  SpeechSegmenter segmenter;
  EXPECT_EQ(segmenter.sample_rate(), 16000u);
  EXPECT_EQ(segmenter.window_samples(), 512);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(segmenter.push(kSilence).ok());
  }
  EXPECT_EQ(segmenter.finish(1024).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(segmenter.finish(1537).code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(segmenter.finish(1025).ok());
  EXPECT_EQ(segmenter.finish(1025).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(segmenter.push(kSpeech).code(), ErrorCode::kInvalidArgument);
  segmenter.reset();
  EXPECT_TRUE(segmenter.push(kSpeech).ok());
  EXPECT_EQ(segmenter.frames(), 1);
  SpeechSegmenter empty;
  EXPECT_EQ(empty.finish(5).code(), ErrorCode::kInvalidArgument);
}

TEST(SpeechSegmenter, RejectsUnusableParameters) {
  SpeechSegmenter segmenter;
  SegmenterParams bad;
  bad.threshold = std::nan("");
  EXPECT_EQ(segmenter.configure(bad, 16000).code(),
            ErrorCode::kInvalidArgument);
  bad = SegmenterParams();
  bad.speech_pad_ms = -1;
  EXPECT_EQ(segmenter.configure(bad, 16000).code(),
            ErrorCode::kInvalidArgument);
  bad = SegmenterParams();
  bad.max_speech_duration_s = 0;
  EXPECT_EQ(segmenter.configure(bad, 16000).code(),
            ErrorCode::kInvalidArgument);
  bad = SegmenterParams();
  bad.min_silence_duration_ms = INFINITY;
  EXPECT_EQ(segmenter.configure(bad, 16000).code(),
            ErrorCode::kInvalidArgument);
  bad = SegmenterParams();
  bad.has_neg_threshold = true;
  bad.neg_threshold = INFINITY;
  EXPECT_EQ(segmenter.configure(bad, 16000).code(),
            ErrorCode::kInvalidArgument);
  // Only Silero's rates: the window depends on it.
  const Status rate = segmenter.configure(SegmenterParams(), 44100);
  EXPECT_EQ(rate.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::strstr(rate.message(), "44100"), nullptr);
  // A failed configure keeps the previous parameters.
  EXPECT_EQ(segmenter.params().threshold, 0.5);
  EXPECT_EQ(segmenter.sample_rate(), 16000u);
}

}  // namespace
}  // namespace silero_vad

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--golden") == 0) {
      silero_vad::g_golden_path = argv[i + 1];
    }
  }
  return RUN_ALL_TESTS();
}
