/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Helpers of the host tools: options, whole-file reads and standard input as
// a byte source.

#pragma once

#include <cstdint>
#include <vector>

#include "speech_segmenter.h"
#include "status.h"
#include "wav_reader.h"

namespace silero_vad {
namespace host {

// Splits "--name=value" or "--name value" (consuming the next argument);
// false if argv[*index] is not an option, *value null if it has no value.
bool split_option(
    int argc, char** argv, int* index, const char** name, const char** value);

// Applies one segmenter option (segmenter_options_help()): false if `name`
// is none of them, else the outcome in *status.
bool apply_segmenter_option(const char* name,
                            const char* value,
                            SegmenterParams* params,
                            Status* status);

const char* segmenter_options_help();

Result<int64_t> parse_int64(const char* option, const char* text);

// Reads a whole file (start-up only: it allocates).
Status read_file(const char* path, std::vector<uint8_t>* out);

// A file descriptor's bytes as they arrive (live audio is not held back).
class FdByteSource final : public ByteSource {
 public:
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

}  // namespace host
}  // namespace silero_vad
