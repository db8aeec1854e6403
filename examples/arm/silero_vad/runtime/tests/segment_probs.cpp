/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Test tool: runs the SpeechSegmenter over stored probabilities so Python can
// compare it with silero-vad's get_speech_timestamps_from_probs() (--help).

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "host_io.h"
#include "speech_segmenter.h"

namespace {

using silero_vad::ErrorCode;
using silero_vad::Status;

void print_help() {
  std::printf(
      "Usage: segment_probs --probs PROBS.bin --audio-length-samples N "
      "[options]\n"
      "\n"
      "Streams float32 little-endian probabilities (one per frame: 512 "
      "samples\n"
      "at 16 kHz, 256 at 8 kHz) through the speech segmenter and prints\n"
      "SEGMENT <start_sample> <end_sample>.\n"
      "\n"
      "  --probs PATH                   probabilities\n"
      "  --audio-length-samples N       clip length; ceil(N / frame) must "
      "equal\n"
      "                                 the number of probabilities\n"
      "  --sample-rate R                16000 (default) or 8000, as\n"
      "                                 get_speech_timestamps' "
      "sampling_rate\n"
      "  --show-release                 add when each segment was released\n"
      "  -h, --help                     this text\n"
      "\n"
      "%s",
      silero_vad::host::segmenter_options_help());
}

int fail(const Status& status) {
  std::fprintf(stderr, "ERROR %s\n", status.message());
  return 1;
}

// `release` says when the segment was released, with --show-release.
void print_segment(const silero_vad::SpeechSegment& segment,
                   bool show_release,
                   const char* release) {
  std::printf("SEGMENT %lld %lld%s%s\n",
              static_cast<long long>(segment.start_sample),
              static_cast<long long>(segment.end_sample),
              show_release ? " " : "",
              show_release ? release : "");
}

}  // namespace

int main(int argc, char** argv) {
  silero_vad::SegmenterParams params;
  const char* probs_path = nullptr;
  const char* length_text = nullptr;
  const char* rate_text = "16000";
  bool show_release = false;
  Status status;
  for (int i = 1; i < argc && status.ok(); ++i) {
    const char* name = nullptr;
    const char* value = nullptr;
    if (!silero_vad::host::split_option(argc, argv, &i, &name, &value)) {
      status = Status::Error(
          ErrorCode::kInvalidArgument, "unexpected argument '%s'", argv[i]);
    } else if (std::strcmp(name, "--help") == 0 ||
               std::strcmp(name, "-h") == 0) {
      print_help();
      return 0;
    } else if (std::strcmp(name, "--probs") == 0) {
      probs_path = value;
    } else if (std::strcmp(name, "--audio-length-samples") == 0) {
      length_text = value;
    } else if (std::strcmp(name, "--sample-rate") == 0) {
      rate_text = value;
    } else if (std::strcmp(name, "--show-release") == 0) {
      show_release = true;
    } else if (!silero_vad::host::apply_segmenter_option(
                   name, value, &params, &status)) {
      status = Status::Error(
          ErrorCode::kInvalidArgument, "unknown option '%s'", name);
    }
  }
  if (!status.ok()) {
    return fail(status);
  }
  if (probs_path == nullptr || length_text == nullptr) {
    return fail(Status::Error(ErrorCode::kInvalidArgument,
                              "--probs and --audio-length-samples are "
                              "required (see --help)"));
  }
  silero_vad::Result<int64_t> length =
      silero_vad::host::parse_int64("--audio-length-samples", length_text);
  if (!length.ok()) {
    return fail(length.status());
  }
  silero_vad::Result<int64_t> rate =
      silero_vad::host::parse_int64("--sample-rate", rate_text);
  if (!rate.ok()) {
    return fail(rate.status());
  }
  if (*rate < 0 || *rate > UINT32_MAX) {
    return fail(Status::Error(ErrorCode::kInvalidArgument,
                              "--sample-rate %lld is not a sample rate",
                              static_cast<long long>(*rate)));
  }
  std::vector<uint8_t> bytes;
  status = silero_vad::host::read_file(probs_path, &bytes);
  if (!status.ok()) {
    return fail(status);
  }
  if (bytes.size() % 4 != 0) {
    return fail(Status::Error(ErrorCode::kInvalidArgument,
                              "%s: %lu bytes is not a whole number of "
                              "float32 values",
                              probs_path,
                              static_cast<unsigned long>(bytes.size())));
  }

  silero_vad::SpeechSegmenter segmenter;
  status = segmenter.configure(params, static_cast<uint32_t>(*rate));
  if (!status.ok()) {
    return fail(status);
  }
  silero_vad::SpeechSegment segment;
  char release[32];
  for (size_t offset = 0; offset < bytes.size(); offset += 4) {
    uint32_t bits = 0;
    for (size_t i = 4; i-- > 0;) {
      bits = (bits << 8) | bytes[offset + i];  // little-endian
    }
    float probability = 0.0f;
    std::memcpy(&probability, &bits, sizeof(probability));
    status = segmenter.push(probability);
    if (!status.ok()) {
      return fail(status);
    }
    std::snprintf(release,
                  sizeof(release),
                  "frame=%lld",
                  static_cast<long long>(segmenter.frames()));
    while (segmenter.pop(&segment)) {
      print_segment(segment, show_release, release);
    }
  }
  status = segmenter.finish(*length);
  if (!status.ok()) {
    return fail(status);
  }
  while (segmenter.pop(&segment)) {
    print_segment(segment, show_release, "finish");
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
