/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "status.h"

#include <cstdarg>
#include <cstdio>

namespace silero_vad {

Status Status::Error(ErrorCode code, const char* format, ...) {
  Status status;
  // An error must never read as OK, whatever the caller passed.
  status.code_ = code == ErrorCode::kOk ? ErrorCode::kInvalidArgument : code;
  va_list args;
  va_start(args, format);
  if (std::vsnprintf(status.message_, sizeof(status.message_), format, args) <
      0) {
    status.message_[0] = '\0';
  }
  va_end(args);
  // A newline would break the one-line-per-event serial protocol.
  for (char* c = status.message_; *c != '\0'; ++c) {
    if (*c == '\n' || *c == '\r') {
      *c = ' ';
    }
  }
  return status;
}

}  // namespace silero_vad
