/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "host_io.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace silero_vad {
namespace host {
namespace {

// Over nine hours of 16 kHz audio.
constexpr long kMaxFileBytes = 1L << 30;

// `text` as a T read by `parse` (strtod or strtoll); `kind` names T in the
// messages.
template <typename T, typename Parse>
Result<T> parse_number(const char* option,
                       const char* text,
                       const char* kind,
                       Parse parse) {
  if (text == nullptr || *text == '\0') {
    return Status::Error(
        ErrorCode::kInvalidArgument, "%s needs %s", option, kind);
  }
  errno = 0;
  char* end = nullptr;
  const T value = parse(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || std::isnan(value)) {
    return Status::Error(
        ErrorCode::kInvalidArgument, "%s: '%s' is not %s", option, text, kind);
  }
  return value;
}

bool is(const char* text, const char* expected) {
  return text != nullptr && std::strcmp(text, expected) == 0;
}

}  // namespace

bool split_option(
    int argc, char** argv, int* index, const char** name, const char** value) {
  static char buffer[128];  // the name of "--name=value"
  const char* arg = argv[*index];
  if (std::strncmp(arg, "--", 2) != 0 && !is(arg, "-h")) {
    return false;
  }
  const char* equals = std::strchr(arg, '=');
  if (equals != nullptr) {
    std::snprintf(
        buffer, sizeof(buffer), "%.*s", static_cast<int>(equals - arg), arg);
    *name = buffer;
    *value = equals + 1;
    return true;
  }
  *name = arg;
  *value = nullptr;
  // Flags take no value; everything else takes the next argument.
  if (is(arg, "--timing") || is(arg, "--help") || is(arg, "-h") ||
      is(arg, "--show-release") || is(arg, "--pool-usage")) {
    return true;
  }
  if (*index + 1 < argc) {
    *value = argv[++*index];
  }
  return true;
}

bool apply_segmenter_option(const char* name,
                            const char* value,
                            SegmenterParams* params,
                            Status* status) {
  if (is(name, "--use-max-poss-sil-at-max-speech")) {
    const bool yes = is(value, "true") || is(value, "1");
    *status =
        yes || is(value, "false") || is(value, "0")
            ? Status::Ok()
            : Status::Error(
                  ErrorCode::kInvalidArgument, "%s needs true or false", name);
    params->use_max_poss_sil_at_max_speech =
        status->ok() ? yes : params->use_max_poss_sil_at_max_speech;
    return true;
  }
  const struct {
    const char* name;
    double* target;
  } numbers[] = {
      {"--threshold", &params->threshold},
      {"--neg-threshold", &params->neg_threshold},
      {"--min-speech-duration-ms", &params->min_speech_duration_ms},
      {"--max-speech-duration-s", &params->max_speech_duration_s},
      {"--min-silence-duration-ms", &params->min_silence_duration_ms},
      {"--speech-pad-ms", &params->speech_pad_ms},
      {"--min-silence-at-max-speech", &params->min_silence_at_max_speech},
  };
  for (const auto& number : numbers) {
    if (is(name, number.name)) {
      params->has_neg_threshold |= number.target == &params->neg_threshold;
      const Result<double> parsed = parse_number<double>(
          name, value, "a number", [](const char* from, char** end) {
            return std::strtod(from, end);
          });
      *status = parsed.status();
      *number.target = parsed.ok() ? *parsed : *number.target;
      return true;
    }
  }
  return false;
}

const char* segmenter_options_help() {
  return "Segmentation (names and defaults of silero-vad's "
         "get_speech_timestamps):\n"
         "  --threshold X                  speech when probability >= X (0.5)\n"
         "  --neg-threshold X              silence when probability < X "
         "(max(threshold - 0.15, 0.01))\n"
         "  --min-speech-duration-ms X     drop shorter segments (250)\n"
         "  --max-speech-duration-s X      split longer segments (inf)\n"
         "  --min-silence-duration-ms X    silence that ends a segment (100)\n"
         "  --speech-pad-ms X              padding on each side (30)\n"
         "  --min-silence-at-max-speech X  split candidates, in ms (98)\n"
         "  --use-max-poss-sil-at-max-speech true|false\n"
         "                                 split at the longest silence "
         "(true)\n";
}

Result<int64_t> parse_int64(const char* option, const char* text) {
  return parse_number<int64_t>(
      option, text, "an integer", [](const char* from, char** end) {
        return std::strtoll(from, end, 10);
      });
}

Status read_file(const char* path, std::vector<uint8_t>* out) {
  std::FILE* file = std::fopen(path, "rb");
  if (file == nullptr) {
    return Status::Error(
        ErrorCode::kIo, "cannot open %s: %s", path, std::strerror(errno));
  }
  Status status;
  struct stat info = {};
  // The size of anything but a regular file is no byte count (a directory
  // "is" LONG_MAX bytes to fseek/ftell).
  const bool sized = fstat(fileno(file), &info) == 0;
  const long size = sized ? static_cast<long>(info.st_size) : -1;
  if (!sized) {
    status = Status::Error(
        ErrorCode::kIo, "cannot size %s: %s", path, std::strerror(errno));
  } else if (S_ISDIR(info.st_mode)) {
    status =
        Status::Error(ErrorCode::kIo, "%s is a directory, not a file", path);
  } else if (!S_ISREG(info.st_mode)) {
    status = Status::Error(ErrorCode::kIo,
                           "%s is not a regular file (a pipe or a device); "
                           "stream audio through standard input: --wav -",
                           path);
  } else if (size > kMaxFileBytes) {
    status = Status::Error(ErrorCode::kIo,
                           "%s is %ld bytes, more than the %ld supported",
                           path,
                           size,
                           kMaxFileBytes);
  } else {
    out->resize(static_cast<size_t>(size));
    if (size > 0 &&
        std::fread(out->data(), 1, out->size(), file) != out->size()) {
      status = Status::Error(ErrorCode::kIo, "cannot read %s", path);
    }
  }
  std::fclose(file);
  return status;
}

size_t FdByteSource::read(uint8_t* out, size_t max_bytes) {
  if (!status_.ok() || max_bytes == 0) {
    return 0;
  }
  while (true) {
    const ssize_t got = ::read(fd_, out, max_bytes);
    if (got >= 0) {
      return static_cast<size_t>(got);
    }
    if (errno != EINTR) {
      status_ = Status::Error(
          ErrorCode::kIo, "reading %s failed: %s", name_, std::strerror(errno));
      return 0;
    }
  }
}

}  // namespace host
}  // namespace silero_vad
