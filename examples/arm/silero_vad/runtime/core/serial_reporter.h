/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The serial protocol (micro_speech's "command responder"), one line per
// event:
//
//   PROB <time_s %.3f> <probability %.6f> speech|silence
//   SEGMENT <start_s %.3f> <end_s %.3f>
//   DONE frames=<n> segments=<m>
//   <0x04>
//
// time_s = frame index * hop_samples / sample_rate (0.032 s for both of
// Silero's models); speech when probability >= threshold; segment times are
// samples / sample_rate. Errors are "ERROR <message>" lines and
// the stream still ends with 0x04, so a simulator configured to shut down on
// end-of-transmission always stops.

#pragma once

#include <cstdint>

#include "frame_geometry.h"
#include "output_sink.h"
#include "speech_segmenter.h"
#include "status.h"

namespace silero_vad {

constexpr char kEndOfTransmission = 0x04;

class SerialReporter {
 public:
  SerialReporter(OutputSink& sink, double threshold)
      : sink_(sink), threshold_(threshold) {}

  // The frame geometry of the run (the program's), for the times of PROB and
  // SEGMENT lines; run_vad() sets it. Until then: 16 kHz.
  void set_geometry(const FrameGeometry& geometry) {
    geometry_ = geometry;
  }
  const FrameGeometry& geometry() const {
    return geometry_;
  }

  void probability(int64_t frame_index, float probability);
  void segment(const SpeechSegment& segment);
  void done(int64_t frames, int64_t segments);
  void error(const Status& status);
  // The final 0x04 byte.
  void end_of_transmission();
  // error() then end_of_transmission(): how every failed run ends.
  void fail(const Status& status);

 private:
  OutputSink& sink_;
  double threshold_;
  FrameGeometry geometry_ = kGeometry16k;
};

}  // namespace silero_vad
