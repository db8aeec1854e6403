/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// What the application needs from the board, in plain C++: the Ethos-U
// platform library retargets stdout/stderr to UART0, so no SDK header is
// needed and the cross-compile check covers this file.

#pragma once

#include "output_sink.h"

namespace silero_vad {
namespace baremetal {

// Protocol bytes to UART0 through the retargeted stdout.
class UartSink final : public OutputSink {
 public:
  void write(const char* data, size_t size) override;
  void flush() override;
};

// Stops the core after the run (the FVP shuts down on the 0x04 already).
[[noreturn]] void halt();

}  // namespace baremetal
}  // namespace silero_vad
