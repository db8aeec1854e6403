/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "status.h"

#include <cstdarg>
#include <cstdio>

namespace silero_vad {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kInvalidWav:
      return "invalid_wav";
    case ErrorCode::kUnsupportedWav:
      return "unsupported_wav";
    case ErrorCode::kTruncatedWav:
      return "truncated_wav";
    case ErrorCode::kModelLoad:
      return "model_load";
    case ErrorCode::kModelSignature:
      return "model_signature";
    case ErrorCode::kModelExecute:
      return "model_execute";
    case ErrorCode::kCapacity:
      return "capacity";
    case ErrorCode::kIo:
      return "io";
  }
  return "unknown";
}

Status Status::Error(ErrorCode code, const char* format, ...) {
  Status status;
  // An error must never read as OK, whatever the caller passed.
  status.code_ = code == ErrorCode::kOk ? ErrorCode::kInvalidArgument : code;
  va_list args;
  va_start(args, format);
  const int written =
      std::vsnprintf(status.message_, sizeof(status.message_), format, args);
  va_end(args);
  if (written < 0) {
    status.message_[0] = '\0';
  }
  // A newline would break the one-line-per-event serial protocol.
  for (char& c : status.message_) {
    if (c == '\0') {
      break;
    }
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  return status;
}

}  // namespace silero_vad
