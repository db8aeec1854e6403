/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// What the application needs from the board besides stdout, which the Ethos-U
// platform library retargets to UART0: plain C++, so no SDK header is needed
// and the cross-compile check covers this unit.

#pragma once

namespace silero_vad {
namespace baremetal {

// Stops the core after the run (the FVP shuts down on the 0x04 already).
[[noreturn]] void halt();

}  // namespace baremetal
}  // namespace silero_vad
