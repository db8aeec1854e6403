/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Host runner: the bare-metal application loop on a PC, against the
// ExecuTorch runtime of the pip package. Prints the serial protocol to stdout
// (PROB/SEGMENT/DONE lines, then 0x04), errors as "ERROR ..." lines with a
// non-zero exit status.
//
// Memory follows the embedded rules: everything is allocated at start-up
// (file buffers, the planned-memory pool sized from the program), nothing
// while frames run.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <executorch/runtime/platform/platform.h>

#include "host_io.h"
#include "serial_reporter.h"
#include "vad_app.h"
#include "vad_constants.h"
#include "vad_model.h"
#include "wav_reader.h"

namespace {

using silero_vad::ErrorCode;
using silero_vad::Result;
using silero_vad::Status;

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

// Static arenas for the method's bookkeeping and for kernels' temporaries.
// Generous for a host; untouched pages cost nothing.
constexpr size_t kMethodPoolBytes = 8u << 20;
constexpr size_t kTempPoolBytes = 1u << 20;
alignas(64) uint8_t g_method_pool[kMethodPoolBytes];
alignas(64) uint8_t g_temp_pool[kTempPoolBytes];

void print_help() {
  std::printf(
      "Usage: silero_vad_runner --model MODEL.pte --wav CLIP.wav [options]\n"
      "\n"
      "Runs a Silero VAD ExecuTorch program frame by frame over a 16 kHz mono\n"
      "16-bit PCM WAV file and prints the serial protocol to stdout:\n"
      "  PROB <time_s> <probability> speech|silence   (one per 32 ms frame)\n"
      "  SEGMENT <start_s> <end_s>                    (as soon as final)\n"
      "  DONE frames=<n> segments=<m>\n"
      "followed by the byte 0x04. Errors print 'ERROR <message>' and exit "
      "non-zero.\n"
      "\n"
      "The program must take one float32 tensor (1, 576) (64 context + 512 "
      "new\n"
      "samples, scaled by 1/32768) and return one float32 tensor (1, 1); any\n"
      "recurrent state stays inside the program (a mutable buffer).\n"
      "\n"
      "Options:\n"
      "  --model PATH        ExecuTorch program (.pte)\n"
      "  --wav PATH          input audio\n"
      "  --probs-out PATH    also write the probabilities, float32 "
      "little-endian,\n"
      "                      one per frame\n"
      "  --timing            print the time per frame of the model step on "
      "stderr\n"
      "  -h, --help          this text\n"
      "\n"
      "%s",
      silero_vad::host::segmenter_options_help());
}

// Ends a run that failed before or outside the application loop: the same
// ERROR line and 0x04 the loop would print.
int fail(silero_vad::SerialReporter& reporter, const Status& status, int code) {
  reporter.fail(status);
  return code;
}

// ExecuTorch's log on stderr, without its Info/Debug chatter (thread pool and
// CPU probing on every start): warnings and errors such as "Missing operator"
// or "Backend ... is not registered" still show.
void log_to_stderr(et_timestamp_t timestamp,
                   et_pal_log_level_t level,
                   const char* filename,
                   const char* function,
                   size_t line,
                   const char* message,
                   size_t length) {
  (void)timestamp;
  (void)function;
  (void)length;
  if (level == kInfo || level == kDebug) {
    return;
  }
  std::fprintf(stderr,
               "executorch %c %s:%zu: %s\n",
               static_cast<char>(level),
               filename,
               line,
               message);
}

// Writes each probability as float32 little-endian.
class ProbabilityFile final : public silero_vad::FrameListener {
 public:
  explicit ProbabilityFile(std::FILE* file) : file_(file) {}

  Status on_frame(int64_t frame_index, float probability) override {
    uint32_t bits = 0;
    std::memcpy(&bits, &probability, sizeof(bits));
    const unsigned char bytes[4] = {static_cast<unsigned char>(bits),
                                    static_cast<unsigned char>(bits >> 8),
                                    static_cast<unsigned char>(bits >> 16),
                                    static_cast<unsigned char>(bits >> 24)};
    if (std::fwrite(bytes, 1, sizeof(bytes), file_) != sizeof(bytes)) {
      return Status::Error(ErrorCode::kIo,
                           "cannot write the probability of frame %lld",
                           static_cast<long long>(frame_index));
    }
    return Status::Ok();
  }

 private:
  std::FILE* file_;
};

// Times the model step only (set_input + execute + output read). The first
// frame also pays one-time costs (thread pool, caches), so it is reported
// apart and the median is the figure to quote.
class TimedModelStep final : public silero_vad::ModelStep {
 public:
  // Reserves room for `frames` timings up front: no allocation per frame.
  TimedModelStep(silero_vad::ModelStep& inner, size_t frames) : inner_(inner) {
    times_us_.reserve(frames);
  }

  Result<float> step(const float* input) override {
    const auto start = std::chrono::steady_clock::now();
    Result<float> result = inner_.step(input);
    const auto stop = std::chrono::steady_clock::now();
    if (times_us_.size() < times_us_.capacity()) {
      times_us_.push_back(
          std::chrono::duration<double, std::micro>(stop - start).count());
    }
    return result;
  }

  void report() {
    if (times_us_.empty()) {
      std::fprintf(stderr, "TIMING frames=0\n");
      return;
    }
    const double first = times_us_.front();
    double total = 0.0;
    for (double us : times_us_) {
      total += us;
    }
    std::sort(times_us_.begin(), times_us_.end());
    const size_t n = times_us_.size();
    const double median = n % 2 == 1
                              ? times_us_[n / 2]
                              : (times_us_[n / 2 - 1] + times_us_[n / 2]) / 2;
    std::fprintf(stderr,
                 "TIMING frames=%zu model_step_us median=%.2f mean=%.2f "
                 "min=%.2f max=%.2f first=%.2f total_ms=%.3f (real time per "
                 "frame: 32 ms)\n",
                 n,
                 median,
                 total / static_cast<double>(n),
                 times_us_.front(),
                 times_us_.back(),
                 first,
                 total / 1000.0);
  }

 private:
  silero_vad::ModelStep& inner_;
  std::vector<double> times_us_;
};

}  // namespace

int main(int argc, char** argv) {
  executorch::runtime::register_pal(
      executorch::runtime::PalImpl::create(log_to_stderr, __FILE__));
  silero_vad::host::StdoutSink sink;
  silero_vad::SegmenterParams params;
  const char* model_path = nullptr;
  const char* wav_path = nullptr;
  const char* probs_path = nullptr;
  bool timing = false;

  // Parse everything first; the reporter needs the final threshold.
  Status usage;
  for (int i = 1; i < argc && usage.ok(); ++i) {
    const char* name = nullptr;
    const char* value = nullptr;
    if (!silero_vad::host::split_option(argc, argv, &i, &name, &value)) {
      usage = Status::Error(ErrorCode::kInvalidArgument,
                            "unexpected argument '%s' (see --help)",
                            argv[i]);
    } else if (std::strcmp(name, "--help") == 0 ||
               std::strcmp(name, "-h") == 0) {
      print_help();
      return 0;
    } else if (std::strcmp(name, "--timing") == 0) {
      timing = true;
    } else if (std::strcmp(name, "--model") == 0) {
      model_path = value;
    } else if (std::strcmp(name, "--wav") == 0) {
      wav_path = value;
    } else if (std::strcmp(name, "--probs-out") == 0) {
      probs_path = value;
    } else if (!silero_vad::host::apply_segmenter_option(
                   name, value, &params, &usage)) {
      usage = Status::Error(ErrorCode::kInvalidArgument,
                            "unknown option '%s' (see --help)",
                            name);
    }
    if (usage.ok() && value == nullptr &&
        (std::strcmp(name, "--model") == 0 || std::strcmp(name, "--wav") == 0 ||
         std::strcmp(name, "--probs-out") == 0)) {
      usage =
          Status::Error(ErrorCode::kInvalidArgument, "%s needs a path", name);
    }
  }
  if (usage.ok()) {
    usage = silero_vad::validate(params);
  }
  if (usage.ok() && (model_path == nullptr || wav_path == nullptr)) {
    usage = Status::Error(ErrorCode::kInvalidArgument,
                          "--model and --wav are required (see --help)");
  }
  silero_vad::SerialReporter reporter(sink, params.threshold);
  if (!usage.ok()) {
    return fail(reporter, usage, kExitUsage);
  }

  // Audio first: it is cheap, and a bad clip is the most common mistake.
  std::vector<uint8_t> wav_bytes;
  Status status = silero_vad::host::read_file(wav_path, &wav_bytes);
  if (!status.ok()) {
    return fail(reporter, status, kExitError);
  }
  Result<silero_vad::WavAudio> audio =
      silero_vad::parse_wav(wav_bytes.data(), wav_bytes.size());
  if (!audio.ok()) {
    return fail(reporter, audio.status(), kExitError);
  }

  // Declared before the model, so they outlive the Method that points into
  // them.
  std::vector<uint8_t> model_bytes;
  std::vector<uint8_t> planned;
  status = silero_vad::host::read_file(model_path, &model_bytes);
  if (!status.ok()) {
    return fail(reporter, status, kExitError);
  }
  silero_vad::VadModel model;
  status = model.open(model_bytes.data(), model_bytes.size());
  if (!status.ok()) {
    return fail(reporter, status, kExitError);
  }
  planned.resize(model.planned_memory_bytes());
  status = model.load({g_method_pool, sizeof(g_method_pool)},
                      {planned.data(), planned.size()},
                      {g_temp_pool, sizeof(g_temp_pool)});
  if (!status.ok()) {
    return fail(reporter, status, kExitError);
  }

  std::FILE* probs_file = nullptr;
  if (probs_path != nullptr) {
    probs_file = std::fopen(probs_path, "wb");
    if (probs_file == nullptr) {
      return fail(reporter,
                  Status::Error(ErrorCode::kIo,
                                "cannot create %s: %s",
                                probs_path,
                                std::strerror(errno)),
                  kExitError);
    }
  }
  ProbabilityFile probs_writer(probs_file);
  TimedModelStep timed(model,
                       (audio->num_samples + silero_vad::kFrameSamples - 1) /
                           silero_vad::kFrameSamples);
  silero_vad::ModelStep& step =
      timing ? static_cast<silero_vad::ModelStep&>(timed) : model;

  silero_vad::WavSampleSource source(*audio);
  silero_vad::VadRunStats stats;
  status = silero_vad::run_vad(source,
                               step,
                               params,
                               reporter,
                               probs_file != nullptr ? &probs_writer : nullptr,
                               &stats);
  int exit_code = status.ok() ? 0 : kExitError;
  if (probs_file != nullptr && std::fclose(probs_file) != 0) {
    std::fprintf(stderr, "ERROR cannot finish writing %s\n", probs_path);
    exit_code = kExitError;
  }
  if (timing) {
    timed.report();
  }
  return exit_code;
}
