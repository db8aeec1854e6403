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

#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "frame_geometry.h"
#include "speech_segmenter.h"
#include "status.h"

namespace silero_vad {

constexpr char kEndOfTransmission = 0x04;

// Where protocol bytes go: stdout, the UART, or a string in tests.
class OutputSink {
 public:
  virtual void write(const char* data, size_t size) = 0;
  // Called after every line, so a crash never loses a finished one.
  virtual void flush() {}

 protected:
  ~OutputSink() = default;
};

// Protocol bytes to stdout: the host's, or UART0 on the boards (the Ethos-U
// platform library retargets stdout to it).
class StdoutSink final : public OutputSink {
 public:
  void write(const char* data, size_t size) override {
    std::fwrite(data, 1, size, stdout);
  }
  void flush() override {
    std::fflush(stdout);
  }
};

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
  // DONE or ERROR, then 0x04.
  void done(int64_t frames, int64_t segments);
  void fail(const Status& status);

 private:
  void end_of_transmission();

  OutputSink& sink_;
  double threshold_;
  FrameGeometry geometry_ = kGeometry16k;
};

}  // namespace silero_vad
