/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Errors of the runtime core, like ExecuTorch's Error/Result but with a
// formatted message in a fixed buffer: "ERROR <message>" must name the values
// that were wrong (the sample rate found, the model's shape).

#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace silero_vad {

enum class ErrorCode : uint8_t {
  kOk = 0,
  kInvalidArgument,  // a parameter or call sequence the API does not accept
  kInvalidWav,       // not a well-formed RIFF/WAVE file
  kUnsupportedWav,   // a well-formed WAV file in a format not taken
  kTruncatedWav,     // WAV bytes ending before the structure they declare
  kModelLoad,        // ExecuTorch cannot load the program or method
  kModelSignature,   // a program without the VAD contract
  kModelExecute,     // Method::execute() or its output failed
  kCapacity,         // a fixed-capacity buffer would overflow
  kIo,               // host file I/O
};

class Status {
 public:
  // Longest message kept, NUL included; longer ones are cut.
  static constexpr size_t kMaxMessage = 200;

  Status() = default;

  static Status Ok() {
    return Status();
  }

  // printf-style; the core uses only integer and string conversions, which
  // newlib-nano's printf has.
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
  // Empty for an OK status.
  const char* message() const {
    return message_;
  }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  char message_[kMaxMessage] = {};
};

// A size for a "%lu" in a message (newlib-nano's printf has no 64-bit or size_t
// conversions).
inline unsigned long ul(uint64_t value) {
  return static_cast<unsigned long>(value);
}

// A value or an error; T is a small default-constructible value type.
template <typename T>
class Result {
 public:
  // Implicit, so `return value;` and `return status;` both work.
  Result(T value) : value_(std::move(value)) {}     // NOLINT
  Result(const Status& status) : status_(status) {  // NOLINT
    if (status_.ok()) {
      // An OK status carries no value: report the misuse.
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
  // The value: only meaningful when ok().
  const T& operator*() const {
    return value_;
  }
  const T* operator->() const {
    return &value_;
  }

 private:
  T value_{};
  Status status_;
};

}  // namespace silero_vad
