/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Streaming speech segmentation (micro_speech's "recognize commands"): one
// probability per frame in, speech segments out, sample-exact with silero-vad
// 6.2.3's get_speech_timestamps_from_probs() (same parameters, defaults and
// double arithmetic) but online: a segment is released as soon as its padded
// ends cannot change (its end padding waits for the next retained segment
// within 2 * speech_pad), and finish() flushes the rest. No heap: with pop()
// drained after each push at most 3 segments are ever queued (one pending,
// two appended by one frame); a fuller queue is a kCapacity error.

#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "frame_geometry.h"
#include "status.h"

namespace silero_vad {

// Names and defaults of silero-vad's get_speech_timestamps(); its
// sampling_rate is the program's, given to SpeechSegmenter::configure().
struct SegmenterParams {
  double threshold = 0.5;
  // Unless set: max(threshold - 0.15, 0.01), as silero-vad computes it.
  bool has_neg_threshold = false;
  double neg_threshold = 0.0;
  double min_speech_duration_ms = 250.0;
  double max_speech_duration_s = std::numeric_limits<double>::infinity();
  double min_silence_duration_ms = 100.0;
  double speech_pad_ms = 30.0;
  double min_silence_at_max_speech = 98.0;
  bool use_max_poss_sil_at_max_speech = true;
};

// Finite, non-negative durations and a positive max_speech_duration_s.
Status validate(const SegmenterParams& params);

// A speech segment in samples: [start_sample, end_sample).
struct SpeechSegment {
  int64_t start_sample = 0;
  int64_t end_sample = 0;
};

class SpeechSegmenter {
 public:
  static constexpr size_t kMaxQueuedSegments = 8;

  // silero-vad's defaults at 16 kHz.
  SpeechSegmenter();

  // Validates `params` and `sample_rate` (16000 or 8000) and restarts.
  Status configure(const SegmenterParams& params, uint32_t sample_rate);

  // Restarts the stream with the current parameters.
  void reset();

  Status push(float probability);

  // Ends the stream; the clip's length in samples must fit the frames pushed
  // (ceil(length / window) of them) and bounds the last segment's padding.
  Status finish(int64_t audio_length_samples);

  // The next final segment, in order; false when none is ready.
  bool pop(SpeechSegment* segment);

  int64_t frames() const {
    return frames_;
  }
  const SegmenterParams& params() const {
    return params_;
  }
  uint32_t sample_rate() const {
    return sample_rate_;
  }
  // Samples per frame (silero-vad's window_size_samples).
  int64_t window_samples() const {
    return window_;
  }

 private:
  void step(double probability, int64_t cur_sample);
  void close_state();
  void append_raw(int64_t start, int64_t end);
  // Finalizes the queued segments whose padding is settled; `audio_length`
  // < 0 while the stream is open.
  void settle(int64_t audio_length);
  bool end_padding(int64_t raw_end,
                   int64_t audio_length,
                   int64_t* padded_end) const;
  SpeechSegment& at(size_t index) {
    return queue_[(head_ + index) % kMaxQueuedSegments];
  }

  SegmenterParams params_;
  uint32_t sample_rate_ = kGeometry16k.sample_rate;
  int64_t window_ = static_cast<int64_t>(kGeometry16k.hop_samples);
  // Derived thresholds, in samples, as doubles (Python floats).
  double neg_threshold_ = 0.0;
  double min_speech_samples_ = 0.0;
  double speech_pad_samples_ = 0.0;
  double max_speech_samples_ = 0.0;
  double min_silence_samples_ = 0.0;
  double min_silence_samples_at_max_speech_ = 0.0;

  // silero-vad's loop; 0 is "unset" for temp_end_, prev_end_ and
  // next_start_, as Python's truthiness tests treat them.
  bool triggered_ = false;
  int64_t current_start_ = 0;
  int64_t temp_end_ = 0;
  int64_t prev_end_ = 0;
  int64_t next_start_ = 0;
  // silero-vad's possible_ends reduced to its first longest entry (dur 0:
  // empty).
  int64_t best_possible_end_ = 0;
  int64_t best_possible_dur_ = 0;

  // Retained segments, oldest first: [0, final_count_) are final, the rest
  // await their end padding (only the oldest pending one has a padded start).
  SpeechSegment queue_[kMaxQueuedSegments];
  size_t head_ = 0;
  size_t count_ = 0;
  size_t final_count_ = 0;
  Status overflow_;  // sticky

  int64_t frames_ = 0;
  bool finished_ = false;
};

}  // namespace silero_vad
