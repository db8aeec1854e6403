/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "serial_reporter.h"

#include "text_format.h"

namespace silero_vad {
namespace {

void emit(OutputSink& sink, LineBuilder& line) {
  line.append_char('\n');
  sink.write(line.data(), line.size());
  sink.flush();
}

}  // namespace

void SerialReporter::probability(int64_t frame_index, float probability) {
  LineBuilder line;
  line.append("PROB ");
  // The frame's first new sample: frame * 32 ms.
  line.append_seconds_from_samples(
      frame_index * static_cast<int64_t>(geometry_.hop_samples),
      geometry_.sample_rate);
  line.append_char(' ');
  line.append_fixed6(probability);
  // Same comparison as the segmenter: the float promoted to double.
  line.append(static_cast<double>(probability) >= threshold_ ? " speech"
                                                             : " silence");
  emit(sink_, line);
}

void SerialReporter::segment(const SpeechSegment& segment) {
  LineBuilder line;
  line.append("SEGMENT ");
  line.append_seconds_from_samples(segment.start_sample, geometry_.sample_rate);
  line.append_char(' ');
  line.append_seconds_from_samples(segment.end_sample, geometry_.sample_rate);
  emit(sink_, line);
}

void SerialReporter::done(int64_t frames, int64_t segments) {
  LineBuilder line;
  line.append("DONE frames=");
  line.append_int(frames);
  line.append(" segments=");
  line.append_int(segments);
  emit(sink_, line);
  end_of_transmission();
}

void SerialReporter::fail(const Status& status) {
  LineBuilder line;
  line.append("ERROR ");
  line.append(status.ok() ? "internal: error reported with an OK status"
                          : status.message());
  emit(sink_, line);
  end_of_transmission();
}

void SerialReporter::end_of_transmission() {
  const char eot = kEndOfTransmission;
  sink_.write(&eot, 1);
  sink_.flush();
}

}  // namespace silero_vad
