/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Host-only helpers shared by the host tools: command-line parsing of the
// segmenter parameters, whole-file reads, standard input as a byte source,
// and a stdout sink.

#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include "output_sink.h"
#include "speech_segmenter.h"
#include "status.h"
#include "wav_reader.h"

namespace silero_vad {
namespace host {

// Splits "--name=value" or "--name value" (consuming the next argument).
// Returns false if argv[*index] is not an option; sets *value to nullptr for
// an option given without a value.
bool split_option(
    int argc, char** argv, int* index, const char** name, const char** value);

// Applies one silero-vad parameter option (--threshold, --neg-threshold,
// --min-speech-duration-ms, --max-speech-duration-s,
// --min-silence-duration-ms, --speech-pad-ms, --min-silence-at-max-speech,
// --use-max-poss-sil-at-max-speech). Returns false if `name` is none of
// them; otherwise stores the outcome in *status.
bool apply_segmenter_option(const char* name,
                            const char* value,
                            SegmenterParams* params,
                            Status* status);

// Help text for the options above.
const char* segmenter_options_help();

// Parses a whole decimal integer.
Result<int64_t> parse_int64(const char* option, const char* text);

// Reads a whole file (start-up only: this allocates).
Status read_file(const char* path, std::vector<uint8_t>* out);

// Bytes of a file descriptor (standard input), read as they arrive: a read
// returns what the pipe holds instead of waiting for a full buffer, so live
// audio is handed on without delay. No seeking.
class FdByteSource final : public ByteSource {
 public:
  // `name` is for messages ("standard input").
  FdByteSource(int fd, const char* name) : fd_(fd), name_(name) {}

  size_t read(uint8_t* out, size_t max_bytes) override;
  Status status() const override {
    return status_;
  }

 private:
  int fd_;
  const char* name_;
  Status status_;
};

// Writes protocol bytes to stdout, flushed per line.
class StdoutSink final : public OutputSink {
 public:
  void write(const char* data, size_t size) override {
    std::fwrite(data, 1, size, stdout);
  }
  void flush() override {
    std::fflush(stdout);
  }
};

}  // namespace host
}  // namespace silero_vad
