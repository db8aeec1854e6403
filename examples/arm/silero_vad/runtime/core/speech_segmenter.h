/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Streaming speech segmentation (micro_speech's "recognize commands"): turns
// one speech probability per frame (hop_samples: 512 samples at 16 kHz, 256
// at 8 kHz) into speech segments.
//
// The result is sample-exact with silero-vad 6.2.3's
// get_speech_timestamps_from_probs() at the same sampling_rate (same
// parameters, same defaults, same arithmetic: sample thresholds are doubles
// as Python's floats are, positions are int64, probabilities are compared as
// doubles), but the segments come out online instead of after the whole
// clip:
//
//  - A segment is final once its padded boundaries cannot change. Its end
//    padding depends on the gap to the next *retained* segment: a gap under
//    2 * speech_pad shares the gap between the two, otherwise each gets
//    speech_pad. So a segment is held while a speech candidate that starts
//    within 2 * speech_pad of its end is still undecided (it may yet be
//    dropped as too short), and released as soon as that is settled.
//  - With the default parameters that means a segment is released on the
//    frame where min_silence_duration_ms of silence closes it.
//  - finish(audio_length_samples) flushes what is left.
//
// No heap. Bound on the queue: after every push at most one segment is
// pending (only the newest can wait for a successor, since any segment with a
// known successor is final), and one frame can append at most two (a
// max-speech cut, then a silence close when min_silence_duration_ms is 0).
// With pop() drained after each push, at most 3 segments are ever queued;
// kMaxQueuedSegments leaves margin and push() reports kCapacity rather than
// overwrite anything if a caller does not drain.

#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "frame_geometry.h"
#include "status.h"

namespace silero_vad {

// Names and defaults of silero-vad's get_speech_timestamps(). Its
// sampling_rate (and with it the window, silero-vad's window_size_samples)
// is the program's, given to SpeechSegmenter::configure().
struct SegmenterParams {
  // Probabilities >= threshold are speech.
  double threshold = 0.5;
  // While in speech, probabilities < neg_threshold are silence. When not
  // set: max(threshold - 0.15, 0.01), as silero-vad computes it.
  bool has_neg_threshold = false;
  double neg_threshold = 0.0;
  // Segments not longer than this are dropped.
  double min_speech_duration_ms = 250.0;
  // Longer segments are split (at the longest silence seen, if any).
  double max_speech_duration_s = std::numeric_limits<double>::infinity();
  // Silence needed to close a segment.
  double min_silence_duration_ms = 100.0;
  // Padding added on each side of a segment.
  double speech_pad_ms = 30.0;
  // Silences longer than this are split candidates at max_speech_duration_s.
  double min_silence_at_max_speech = 98.0;
  // Split at the longest candidate silence (true) or the last one (false).
  bool use_max_poss_sil_at_max_speech = true;
};

// Checks that parameters are usable: finite, non-negative durations, a
// positive max_speech_duration_s (infinity allowed).
Status validate(const SegmenterParams& params);

// A speech segment in samples: [start_sample, end_sample).
struct SpeechSegment {
  int64_t start_sample = 0;
  int64_t end_sample = 0;
};

class SpeechSegmenter {
 public:
  static constexpr size_t kMaxQueuedSegments = 8;

  // Default parameters at 16 kHz (silero-vad's defaults); call configure()
  // to change them.
  SpeechSegmenter();

  // Validates `params` and `sample_rate` (16000 or 8000: the window is
  // Silero's hop_samples for it) and restarts the stream with them.
  Status configure(const SegmenterParams& params, uint32_t sample_rate);

  // Restarts the stream with the current parameters.
  void reset();

  // Consumes the probability of the next frame.
  Status push(float probability);

  // Ends the stream. `audio_length_samples` is the real length of the clip
  // (ceil(audio_length_samples / window) must equal the number of frames
  // pushed)
  // and bounds the padding of the last segment, as in silero-vad.
  Status finish(int64_t audio_length_samples);

  // Takes the next final segment, in order. Returns false when none is ready.
  bool pop(SpeechSegment* segment);

  int64_t frames() const {
    return frames_;
  }
  bool finished() const {
    return finished_;
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
  struct Entry {
    int64_t start = 0;
    int64_t end = 0;
  };

  void step(double probability, int64_t cur_sample);
  void close_state();
  Status append_raw(int64_t start, int64_t end);
  // Finalizes queued segments whose padding is settled. `audio_length` < 0
  // means the stream is still open.
  void settle(int64_t audio_length);
  bool end_padding(int64_t raw_end,
                   int64_t audio_length,
                   int64_t* padded_end) const;
  Entry& at(size_t index) {
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

  // State of silero-vad's loop. 0 means "unset" for temp_end_, prev_end_ and
  // next_start_, exactly as Python's truthiness tests treat them.
  bool triggered_ = false;
  int64_t current_start_ = 0;
  int64_t temp_end_ = 0;
  int64_t prev_end_ = 0;
  int64_t next_start_ = 0;
  // Only the first longest candidate silence is ever used (Python's max()
  // keeps the first of equal maxima), so the list reduces to one entry.
  bool has_possible_end_ = false;
  int64_t best_possible_end_ = 0;
  int64_t best_possible_dur_ = 0;

  // Retained segments not yet popped, oldest first. Entries [0, final_count_)
  // are final; the rest await their end padding. The start of the oldest
  // pending entry is already padded, the others still hold raw starts.
  Entry queue_[kMaxQueuedSegments];
  size_t head_ = 0;
  size_t count_ = 0;
  size_t final_count_ = 0;
  // Sticky: set when a push would have overflowed the queue.
  Status overflow_;

  int64_t frames_ = 0;
  bool finished_ = false;
};

}  // namespace silero_vad
