/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The serial protocol (micro_speech's "command responder"), one line per
// event: PROB <time_s> <probability> speech|silence, SEGMENT <start_s>
// <end_s>, DONE frames=<n> segments=<m>, then 0x04; a failure is one
// "ERROR <message>" line, still followed by 0x04 (the simulator stops on it).

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

  // The program's, for the times of PROB and SEGMENT lines (run_vad() sets
  // it); 16 kHz until then.
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
  void end_of_transmission();
  // error() then end_of_transmission().
  void fail(const Status& status);

 private:
  OutputSink& sink_;
  double threshold_;
  FrameGeometry geometry_ = kGeometry16k;
};

}  // namespace silero_vad
