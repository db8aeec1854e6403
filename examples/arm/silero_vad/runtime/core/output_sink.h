/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Where protocol bytes go: stdout, the UART, or a string in tests.

#pragma once

#include <cstddef>

namespace silero_vad {

class OutputSink {
 public:
  virtual void write(const char* data, size_t size) = 0;
  // Called after every line, so a crash never loses a finished one.
  virtual void flush() {}

 protected:
  ~OutputSink() = default;
};

}  // namespace silero_vad
