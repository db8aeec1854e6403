/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "vad_app.h"

#include <cmath>

#include "frame_assembler.h"

namespace silero_vad {
namespace {

// Up to DONE; the first failure is returned for run_vad() to report.
Status run_stream(SampleSource& source,
                  ModelStep& model,
                  const SegmenterParams& params,
                  SerialReporter& reporter,
                  FrameListener* listener) {
  SpeechSegmenter segmenter;
  Status status = segmenter.configure(params, model.geometry().sample_rate);
  FrameAssembler frames(source);
  if (status.ok()) {
    status = frames.configure(model.geometry());
  }
  int16_t frame[kMaxFrameSamples];
  SpeechSegment segment;
  int64_t segments = 0;
  auto report_segments = [&] {
    while (segmenter.pop(&segment)) {
      reporter.segment(segment);
      ++segments;
    }
  };
  while (status.ok() && frames.next(frame)) {
    const int64_t index = frames.frames() - 1;
    Result<float> probability = model.step(frame);
    if (!probability.ok()) {
      return probability.status();
    }
    const float p = *probability;
    // A NaN or infinity means a broken program: the rest would be garbage.
    if (!std::isfinite(p)) {
      return Status::Error(ErrorCode::kModelExecute,
                           "model output at frame %lld is not finite",
                           static_cast<long long>(index));
    }
    reporter.probability(index, p);
    if (listener != nullptr) {
      status = listener->on_frame(index, p);
    }
    if (status.ok()) {
      status = segmenter.push(p);
    }
    if (status.ok()) {
      report_segments();
    }
  }
  // A source that could only refuse its audio at the end.
  if (status.ok()) {
    status = source.status();
  }
  if (status.ok()) {
    status = segmenter.finish(frames.samples());
  }
  if (status.ok()) {
    report_segments();
    reporter.done(frames.frames(), segments);
  }
  return status;
}

}  // namespace

Status run_vad(SampleSource& source,
               ModelStep& model,
               const SegmenterParams& params,
               SerialReporter& reporter,
               FrameListener* listener) {
  reporter.set_geometry(model.geometry());
  const Status status = run_stream(source, model, params, reporter, listener);
  if (!status.ok()) {
    reporter.fail(status);
  }
  return status;
}

}  // namespace silero_vad
