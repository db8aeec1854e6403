/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Error reporting for the runtime core, in the spirit of ExecuTorch's
// Error/Result but carrying a formatted message: the serial protocol prints
// "ERROR <message>" and a user needs the values that were wrong (the sample
// rate found, the shape the model has), not only an error code.
//
// No heap: the message lives in a fixed buffer inside the Status.

#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace silero_vad {

enum class ErrorCode : uint8_t {
  kOk = 0,
  // A parameter or a call sequence the API does not accept.
  kInvalidArgument,
  // Bytes that are not a well-formed RIFF/WAVE file.
  kInvalidWav,
  // A well-formed WAV file in a format the runtime does not take.
  kUnsupportedWav,
  // WAV bytes that end before the RIFF/WAVE structure they declare.
  kTruncatedWav,
  // Bytes that ExecuTorch cannot load as a program or method.
  kModelLoad,
  // A loadable program whose inputs/outputs are not those of the VAD model.
  kModelSignature,
  // Method::execute() or reading its output failed.
  kModelExecute,
  // A fixed-capacity buffer would overflow.
  kCapacity,
  // Host file I/O (never used on bare metal).
  kIo,
};

// Short stable name of an error code, e.g. "invalid_wav".
const char* to_string(ErrorCode code);

class Status {
 public:
  // Longest message kept, including the terminating NUL; longer ones are cut.
  static constexpr size_t kMaxMessage = 200;

  // An OK status.
  Status() = default;

  static Status Ok() {
    return Status();
  }

  // An error with a printf-style message. Only integer and string
  // conversions are used by the core, which keeps this safe with
  // newlib-nano's printf on bare metal.
  static Status Error(ErrorCode code, const char* format, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 2, 3)))
#endif
      ;

  bool ok() const {
    return code_ == ErrorCode::kOk;
  }
  ErrorCode code() const {
    return code_;
  }
  // Empty string for an OK status.
  const char* message() const {
    return message_;
  }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  char message_[kMaxMessage] = {};
};

// A value or an error. T must be default-constructible and copyable/movable;
// the core only returns small value types through it.
template <typename T>
class Result {
 public:
  // Implicit on purpose, so `return value;` and `return status;` both work as
  // they do with ExecuTorch's Result.
  Result(T value) : value_(std::move(value)) {}     // NOLINT
  Result(const Status& status) : status_(status) {  // NOLINT
    if (status_.ok()) {
      // An OK status carries no value: report the misuse instead of
      // returning a default-constructed T as if it were real.
      status_ = Status::Error(ErrorCode::kInvalidArgument,
                              "internal: Result built from an OK status");
    }
  }

  bool ok() const {
    return status_.ok();
  }
  const Status& status() const {
    return status_;
  }
  // Only meaningful when ok().
  T& get() {
    return value_;
  }
  const T& get() const {
    return value_;
  }
  T& operator*() {
    return value_;
  }
  const T& operator*() const {
    return value_;
  }
  T* operator->() {
    return &value_;
  }
  const T* operator->() const {
    return &value_;
  }

 private:
  T value_{};
  Status status_;
};

}  // namespace silero_vad
