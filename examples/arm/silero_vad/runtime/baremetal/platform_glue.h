/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The little the application needs from the board, kept apart from main.cpp.
// Everything here is plain C/C++: the Ethos-U platform library
// (ethosu_target_init) does the board bring-up before main() and retargets
// stdout/stderr to UART0, so no SDK header is needed and the cross-compile
// check covers this file too.

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

// Stops the core after the run. The FVP has already shut down on the 0x04
// byte when configured with uart0.shutdown_on_eot=1; on hardware the core
// waits for interrupts forever.
[[noreturn]] void halt();

}  // namespace baremetal
}  // namespace silero_vad
