/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "speech_segmenter.h"

#include <algorithm>
#include <cmath>

namespace silero_vad {
namespace {

// Python's `a // 2` on ints (floor, also for negatives).
int64_t floor_half(int64_t a) {
  return a / 2 - (a % 2 < 0 ? 1 : 0);
}

// Python's int(max(0, x)) for a float x.
int64_t clamp_to_zero_trunc(double x) {
  return x > 0.0 ? static_cast<int64_t>(x) : 0;
}

}  // namespace

Status validate(const SegmenterParams& params) {
  if (!std::isfinite(params.threshold)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "threshold must be a finite number");
  }
  if (params.has_neg_threshold && !std::isfinite(params.neg_threshold)) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "neg_threshold must be a finite number");
  }
  // max_speech_duration_s must be positive (inf allowed), the others >= 0.
  const struct {
    const char* name;
    double value;
    bool positive;
  } durations[] = {
      {"min_speech_duration_ms", params.min_speech_duration_ms, false},
      {"max_speech_duration_s", params.max_speech_duration_s, true},
      {"min_silence_duration_ms", params.min_silence_duration_ms, false},
      {"speech_pad_ms", params.speech_pad_ms, false},
      {"min_silence_at_max_speech", params.min_silence_at_max_speech, false},
  };
  for (const auto& duration : durations) {
    const double value = duration.value;
    if (!(duration.positive ? value > 0.0
                            : std::isfinite(value) && value >= 0.0)) {
      return Status::Error(ErrorCode::kInvalidArgument,
                           duration.positive ? "%s must be > 0 (inf allowed)"
                                             : "%s must be finite and >= 0",
                           duration.name);
    }
  }
  return Status::Ok();
}

SpeechSegmenter::SpeechSegmenter() {
  (void)configure(SegmenterParams(), kGeometry16k.sample_rate);
}

Status SpeechSegmenter::configure(const SegmenterParams& params,
                                  uint32_t sample_rate) {
  const Status status = validate(params);
  if (!status.ok()) {
    return status;
  }
  const Result<FrameGeometry> geometry = frame_geometry(sample_rate);
  if (!geometry.ok()) {
    return geometry.status();
  }
  params_ = params;
  sample_rate_ = sample_rate;
  window_ = static_cast<int64_t>(geometry->hop_samples);
  const double rate = static_cast<double>(sample_rate);
  // silero-vad's expressions in its order: bit-identical to Python's floats.
  min_speech_samples_ = rate * params.min_speech_duration_ms / 1000.0;
  speech_pad_samples_ = rate * params.speech_pad_ms / 1000.0;
  max_speech_samples_ = rate * params.max_speech_duration_s -
                        static_cast<double>(window_) -
                        2.0 * speech_pad_samples_;
  min_silence_samples_ = rate * params.min_silence_duration_ms / 1000.0;
  min_silence_samples_at_max_speech_ =
      rate * params.min_silence_at_max_speech / 1000.0;
  neg_threshold_ = params.has_neg_threshold
                       ? params.neg_threshold
                       : std::max(params.threshold - 0.15, 0.01);
  reset();
  return Status::Ok();
}

void SpeechSegmenter::reset() {
  triggered_ = false;
  current_start_ = 0;
  close_state();
  head_ = 0;
  count_ = 0;
  final_count_ = 0;
  overflow_ = Status::Ok();
  frames_ = 0;
  finished_ = false;
}

// silero-vad's `prev_end = next_start = temp_end = 0; possible_ends = []`.
void SpeechSegmenter::close_state() {
  temp_end_ = 0;
  prev_end_ = 0;
  next_start_ = 0;
  best_possible_end_ = 0;
  best_possible_dur_ = 0;
}

Status SpeechSegmenter::push(float probability) {
  if (finished_) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "push() after finish(): call reset() first");
  }
  if (!overflow_.ok()) {
    return overflow_;
  }
  step(static_cast<double>(probability), window_ * frames_);
  ++frames_;
  settle(-1);
  return overflow_;
}

Status SpeechSegmenter::finish(int64_t len) {
  if (finished_) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "finish() called twice: call reset() first");
  }
  if (!overflow_.ok()) {
    return overflow_;
  }
  const bool consistent = frames_ == 0 ? len == 0
                                       : (len > window_ * (frames_ - 1) &&
                                          len <= window_ * frames_);
  if (!consistent) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "audio length %lld samples does not match %lld "
                         "frames of %lld samples",
                         static_cast<long long>(len),
                         static_cast<long long>(frames_),
                         static_cast<long long>(window_));
  }
  if (triggered_ &&
      static_cast<double>(len - current_start_) > min_speech_samples_) {
    append_raw(current_start_, len);
    if (!overflow_.ok()) {
      return overflow_;
    }
  }
  finished_ = true;
  settle(len);
  return Status::Ok();
}

bool SpeechSegmenter::pop(SpeechSegment* segment) {
  if (final_count_ == 0) {
    return false;
  }
  *segment = at(0);
  head_ = (head_ + 1) % kMaxQueuedSegments;
  --count_;
  --final_count_;
  return true;
}

// One iteration of silero-vad's loop, speeches.append() being append_raw().
void SpeechSegmenter::step(double p, int64_t cur) {
  const bool speech = p >= params_.threshold;

  // Speech after a tentative end: the silence may be a split candidate.
  if (speech && temp_end_ != 0) {
    // sil_dur >= one window > 0, the duration of "no candidate".
    const int64_t sil_dur = cur - temp_end_;
    if (static_cast<double>(sil_dur) > min_silence_samples_at_max_speech_ &&
        sil_dur > best_possible_dur_) {
      best_possible_end_ = temp_end_;
      best_possible_dur_ = sil_dur;
    }
    temp_end_ = 0;
    if (next_start_ < prev_end_) {
      next_start_ = cur;
    }
  }

  if (speech && !triggered_) {
    triggered_ = true;
    current_start_ = cur;
    return;
  }

  // Maximum speech length reached: cut.
  if (triggered_ &&
      static_cast<double>(cur - current_start_) > max_speech_samples_) {
    if (params_.use_max_poss_sil_at_max_speech && best_possible_dur_ > 0) {
      prev_end_ = best_possible_end_;
      append_raw(current_start_, prev_end_);
      next_start_ = prev_end_ + best_possible_dur_;
      if (next_start_ < prev_end_ + cur) {
        current_start_ = next_start_;
      } else {
        triggered_ = false;
      }
    } else if (prev_end_ != 0) {
      append_raw(current_start_, prev_end_);
      if (next_start_ < prev_end_) {
        triggered_ = false;
      } else {
        current_start_ = next_start_;
      }
    } else {
      append_raw(current_start_, cur);
      triggered_ = false;
    }
    close_state();
  }

  // Silence while in speech.
  if (p < neg_threshold_ && triggered_) {
    if (temp_end_ == 0) {
      temp_end_ = cur;
    }
    const int64_t sil_dur_now = cur - temp_end_;
    if (!params_.use_max_poss_sil_at_max_speech &&
        static_cast<double>(sil_dur_now) > min_silence_samples_at_max_speech_) {
      prev_end_ = temp_end_;
    }
    if (static_cast<double>(sil_dur_now) < min_silence_samples_) {
      return;
    }
    if (static_cast<double>(temp_end_ - current_start_) > min_speech_samples_) {
      append_raw(current_start_, temp_end_);
    }
    close_state();
    triggered_ = false;
  }
}

void SpeechSegmenter::append_raw(int64_t start, int64_t end) {
  if (count_ == kMaxQueuedSegments) {
    overflow_ = Status::Error(ErrorCode::kCapacity,
                              "speech segmenter queue full (%lu segments): "
                              "pop() segments after every push()",
                              ul(count_));
    return;
  }
  SpeechSegment& entry = at(count_);
  entry.end_sample = end;
  // Without a pending predecessor the start padding is settled (speech_pad);
  // otherwise the predecessor pads it when it is finalized.
  entry.start_sample = final_count_ == count_
                           ? clamp_to_zero_trunc(static_cast<double>(start) -
                                                 speech_pad_samples_)
                           : start;
  ++count_;
}

// int(min(audio_length, raw_end + pad)); false while the open stream's length
// (> the start of the last frame) cannot decide it.
bool SpeechSegmenter::end_padding(int64_t raw_end,
                                  int64_t audio_length,
                                  int64_t* padded_end) const {
  const double padded = static_cast<double>(raw_end) + speech_pad_samples_;
  if (audio_length >= 0) {
    *padded_end = static_cast<double>(audio_length) <= padded
                      ? audio_length
                      : static_cast<int64_t>(padded);
    return true;
  }
  const int64_t known_min_length = window_ * (frames_ - 1) + 1;
  if (padded > static_cast<double>(known_min_length)) {
    return false;
  }
  *padded_end = static_cast<int64_t>(padded);
  return true;
}

void SpeechSegmenter::settle(int64_t audio_length) {
  const double two_pads = 2.0 * speech_pad_samples_;
  while (final_count_ < count_) {
    SpeechSegment& entry = at(final_count_);
    SpeechSegment* next =
        final_count_ + 1 < count_ ? &at(final_count_ + 1) : nullptr;
    if (next != nullptr &&
        static_cast<double>(next->start_sample - entry.end_sample) < two_pads) {
      // The successor is close: silero-vad's padding rule, verbatim.
      const int64_t half = floor_half(next->start_sample - entry.end_sample);
      entry.end_sample += half;
      const int64_t shifted = next->start_sample - half;
      next->start_sample = shifted > 0 ? shifted : 0;
      ++final_count_;
      continue;
    }
    if (next == nullptr && audio_length < 0) {
      // Newest segment, stream open: the next one starts at the current
      // speech candidate or at the next frame, not before.
      const int64_t earliest_next =
          triggered_ ? current_start_ : window_ * frames_;
      if (static_cast<double>(earliest_next - entry.end_sample) < two_pads) {
        return;
      }
    }
    // A lone end (the successor far, or none): padded, within the clip.
    int64_t padded_end = 0;
    if (!end_padding(entry.end_sample, audio_length, &padded_end)) {
      return;
    }
    entry.end_sample = padded_end;
    if (next != nullptr) {
      next->start_sample = clamp_to_zero_trunc(
          static_cast<double>(next->start_sample) - speech_pad_samples_);
    }
    ++final_count_;
  }
}

}  // namespace silero_vad
