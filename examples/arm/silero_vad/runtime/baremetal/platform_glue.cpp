/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "platform_glue.h"

#include <cstdio>

#include <executorch/runtime/platform/platform.h>

#include "serial_reporter.h"

#ifndef SILERO_VAD_VERBOSE_ET_LOG
#define SILERO_VAD_VERBOSE_ET_LOG 0
#endif

namespace silero_vad {
namespace baremetal {

void halt() {
  while (true) {
    __asm__ volatile("wfi");
  }
}

}  // namespace baremetal
}  // namespace silero_vad

// ExecuTorch platform layer overrides (its defaults are weak symbols).
extern "C" {

// ExecuTorch's log lines to stderr (UART0) as "LOG ...": errors only, as a
// good run prints nothing but the protocol, unless SILERO_VAD_VERBOSE_ET_LOG.
// newlib-nano's printf has no %zu.
void et_pal_emit_log_message(et_timestamp_t /*timestamp*/,
                             et_pal_log_level_t level,
                             const char* filename,
                             const char* /*function*/,
                             size_t line,
                             const char* message,
                             size_t /*length*/) {
#if !SILERO_VAD_VERBOSE_ET_LOG
  if (level != kError && level != kFatal) {
    return;
  }
#endif
  std::fprintf(stderr,
               "LOG %c %s:%lu %s\n",
               static_cast<char>(level),
               filename,
               static_cast<unsigned long>(line),
               message);
  std::fflush(stderr);
}

// Ends the protocol, so the FVP stops on the 0x04, not at its time limit.
void et_pal_abort(void) {
  std::fputs("ERROR ExecuTorch aborted (see the LOG lines above)\n", stdout);
  std::fputc(silero_vad::kEndOfTransmission, stdout);
  std::fflush(stdout);
  silero_vad::baremetal::halt();
}

}  // extern "C"
