/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Host runner: the application loop on a PC against the pip package's
// ExecuTorch, audio from a WAV file or (--wav -) a WAV stream on standard
// input, the serial protocol on stdout. Everything is allocated at start-up,
// so a stream of any length runs in constant memory.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <executorch/runtime/platform/platform.h>
#if SILERO_VAD_HOST_THREADPOOL
#include <executorch/extension/threadpool/threadpool_guard.h>
#endif

#include "host_io.h"
#include "serial_reporter.h"
#include "vad_app.h"
#include "vad_model.h"
#include "wav_reader.h"

namespace {

using silero_vad::ErrorCode;
using silero_vad::Result;
using silero_vad::Status;

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

// Generous for a host; untouched pages cost nothing.
constexpr size_t kMethodPoolBytes = 8u << 20;
constexpr size_t kTempPoolBytes = 1u << 20;
alignas(64) uint8_t g_method_pool[kMethodPoolBytes];
alignas(64) uint8_t g_temp_pool[kTempPoolBytes];
// Planned memory is sized by the program, up to this.
constexpr size_t kMaxPlannedBytes = 256u << 20;

void print_help() {
  std::printf(
      "Usage: silero_vad_runner --model MODEL.pte --wav CLIP.wav|- [options]\n"
      "\n"
      "Runs a Silero VAD host program frame by frame over a mono 16-bit PCM\n"
      "WAV at the program's sample rate and prints the serial protocol\n"
      "(runtime/README.md) on stdout, each line as soon as it is known;\n"
      "errors print 'ERROR <message>', exit non-zero. Programs: run.sh\n"
      "--target xnnpack (float Silero on XNNPACK, for Linux products) or\n"
      "--target cpu (the NPU's quantized arithmetic, its host reference).\n"
      "The model runs on one thread.\n"
      "\n"
      "Options:\n"
      "  --model PATH        ExecuTorch program (.pte)\n"
      "  --wav PATH|-        input audio; '-' streams a WAV from stdin\n"
      "                      (arecord -f S16_LE -r 16000 -c 1 | ... --wav -)\n"
      "  --probs-out PATH    also write the probabilities, float32 LE\n"
      "  --timing            print the model step's time per frame on stderr\n"
      "  --pool-usage        print the bytes the method takes from its pools\n"
      "                      on stderr (baremetal/pool_sizes.py)\n"
      "  -h, --help          this text\n"
      "\n"
      "%s",
      silero_vad::host::segmenter_options_help());
}

// ExecuTorch's log on stderr, without its Info/Debug start-up chatter.
void log_to_stderr(et_timestamp_t /*timestamp*/,
                   et_pal_log_level_t level,
                   const char* filename,
                   const char* /*function*/,
                   size_t line,
                   const char* message,
                   size_t /*length*/) {
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

// Installs the log above. The 1.4 package's Python extension registers a PAL
// of its own when it loads, so ExecuTorch warns on stderr that this one
// replaces it; the warning is the only thing register_pal() prints, and not
// the runner's to print, so stderr is closed to it for that one call.
void install_log() {
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int null = open("/dev/null", O_WRONLY);
  const bool redirected =
      saved >= 0 && null >= 0 && dup2(null, STDERR_FILENO) >= 0;
  executorch::runtime::register_pal(
      executorch::runtime::PalImpl::create(log_to_stderr, __FILE__));
  if (redirected) {
    std::fflush(stderr);
    dup2(saved, STDERR_FILENO);
  }
  for (const int fd : {saved, null}) {
    if (fd >= 0) {
      close(fd);
    }
  }
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

// Times the model step (set_input + execute + output read). The first frame
// pays one-time costs, so it is reported apart and the median is the figure
// to quote, from a histogram of 1 us bins up to 1 s allocated at start-up.
class TimedModelStep final : public silero_vad::ModelStep {
 public:
  static constexpr size_t kBins = 1000000;

  explicit TimedModelStep(silero_vad::ModelStep& inner)
      : inner_(inner), bins_(kBins + 1, 0) {}

  const silero_vad::FrameGeometry& geometry() const override {
    return inner_.geometry();
  }

  Result<float> step(const int16_t* frame) override {
    const auto start = std::chrono::steady_clock::now();
    Result<float> result = inner_.step(frame);
    const auto stop = std::chrono::steady_clock::now();
    const double us =
        std::chrono::duration<double, std::micro>(stop - start).count();
    first_ = frames_ == 0 ? us : first_;
    min_ = frames_ == 0 ? us : std::min(min_, us);
    max_ = frames_ == 0 ? us : std::max(max_, us);
    total_ += us;
    ++frames_;
    // The last bin collects everything from 1 s up.
    ++bins_[us < kBins ? static_cast<size_t>(std::max(us, 0.0)) : kBins];
    return result;
  }

  void report() const {
    if (frames_ == 0) {
      std::fprintf(stderr, "TIMING frames=0\n");
      return;
    }
    std::fprintf(stderr,
                 "TIMING frames=%llu model_step_us median=%.2f mean=%.2f "
                 "min=%.2f max=%.2f first=%.2f total_ms=%.3f (real time per "
                 "frame: 32 ms)\n",
                 static_cast<unsigned long long>(frames_),
                 median(),
                 total_ / static_cast<double>(frames_),
                 min_,
                 max_,
                 first_,
                 total_ / 1000.0);
  }

 private:
  // The middle of the bin of the median frame (the lower middle one for an
  // even count), or the maximum from 1 s up.
  double median() const {
    const uint64_t rank = (frames_ - 1) / 2;
    uint64_t seen = 0;
    for (size_t bin = 0; bin < kBins; ++bin) {
      seen += bins_[bin];
      if (seen > rank) {
        return static_cast<double>(bin) + 0.5;
      }
    }
    return max_;
  }

  silero_vad::ModelStep& inner_;
  std::vector<uint32_t> bins_;
  uint64_t frames_ = 0;
  double first_ = 0.0;
  double min_ = 0.0;
  double max_ = 0.0;
  double total_ = 0.0;
};

}  // namespace

int main(int argc, char** argv) {
  install_log();
#if SILERO_VAD_HOST_THREADPOOL
  // One thread for everything this thread runs: a 32 ms frame is too small to
  // share (XNNPACK on two threads measured twice as slow as on one), and the
  // XNNPACK delegate takes no thread pool when it is created under this guard.
  const executorch::extension::threadpool::NoThreadPoolGuard one_thread;
#endif
  silero_vad::StdoutSink sink;
  silero_vad::SegmenterParams params;
  const char* model_path = nullptr;
  const char* wav_path = nullptr;
  const char* probs_path = nullptr;
  bool timing = false;
  bool pool_usage = false;

  // Parse everything first; the reporter needs the final threshold.
  Status usage;
  for (int i = 1; i < argc && usage.ok(); ++i) {
    const char* name = nullptr;
    const char* value = nullptr;
    const char** path = nullptr;
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
    } else if (std::strcmp(name, "--pool-usage") == 0) {
      pool_usage = true;
    } else if (std::strcmp(name, "--model") == 0) {
      path = &model_path;
    } else if (std::strcmp(name, "--wav") == 0) {
      path = &wav_path;
    } else if (std::strcmp(name, "--probs-out") == 0) {
      path = &probs_path;
    } else if (!silero_vad::host::apply_segmenter_option(
                   name, value, &params, &usage)) {
      usage = Status::Error(ErrorCode::kInvalidArgument,
                            "unknown option '%s' (see --help)",
                            name);
    }
    if (path != nullptr && (*path = value) == nullptr) {
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
  // A terminal on standard input means the pipe was forgotten.
  if (usage.ok() && std::strcmp(wav_path, "-") == 0 && isatty(STDIN_FILENO)) {
    usage = Status::Error(ErrorCode::kInvalidArgument,
                          "--wav -: standard input is a terminal; pipe a WAV "
                          "stream into it (e.g. arecord -f S16_LE -r 16000 -c "
                          "1 | silero_vad_runner ... --wav -)");
  }
  silero_vad::SerialReporter reporter(sink, params.threshold);
  if (!usage.ok()) {
    reporter.fail(usage);
    return kExitUsage;
  }

  // The program first: it gives the audio's sample rate. The buffers outlive
  // the Method that points into them.
  std::vector<uint8_t> model_bytes;
  std::vector<uint8_t> planned;
  silero_vad::VadModel model;
  Status status = silero_vad::host::read_file(model_path, &model_bytes);
  if (status.ok()) {
    status = model.open(model_bytes.data(), model_bytes.size());
  }
  // The size comes from the file: refuse an absurd one.
  if (status.ok() && model.planned_memory_bytes() > kMaxPlannedBytes) {
    status = Status::Error(ErrorCode::kCapacity,
                           "the program needs %zu bytes of planned memory, "
                           "more than the %zu this runner allows",
                           model.planned_memory_bytes(),
                           kMaxPlannedBytes);
  }
  if (status.ok()) {
    planned.resize(model.planned_memory_bytes());
    status = model.load({g_method_pool, sizeof(g_method_pool)},
                        {planned.data(), planned.size()},
                        {g_temp_pool, sizeof(g_temp_pool)});
  }
  if (status.ok() && pool_usage) {
    std::fprintf(stderr,
                 "POOLS method_used=%zu planned=%zu\n",
                 model.method_pool_used(),
                 model.planned_memory_bytes());
  }

  // The audio: a whole file in memory, or a stream decoded as it arrives.
  const bool from_stdin = std::strcmp(wav_path, "-") == 0;
  std::vector<uint8_t> wav_bytes;
  silero_vad::WavAudio audio;
  silero_vad::host::FdByteSource stdin_bytes(STDIN_FILENO, "standard input");
  silero_vad::WavStreamReader stream(stdin_bytes);
  if (status.ok() && from_stdin) {
    status = stream.open(model.geometry());
  } else if (status.ok()) {
    status = silero_vad::host::read_file(wav_path, &wav_bytes);
    if (status.ok()) {
      Result<silero_vad::WavAudio> parsed = silero_vad::parse_wav(
          wav_bytes.data(), wav_bytes.size(), model.geometry());
      status = parsed.status();
      audio = *parsed;
    }
  }
  std::FILE* probs_file = nullptr;
  if (status.ok() && probs_path != nullptr) {
    probs_file = std::fopen(probs_path, "wb");
    if (probs_file == nullptr) {
      status = Status::Error(ErrorCode::kIo,
                             "cannot create %s: %s",
                             probs_path,
                             std::strerror(errno));
    }
  }
  if (!status.ok()) {
    reporter.fail(status);
    return kExitError;
  }
  silero_vad::WavSampleSource file(audio);
  silero_vad::SampleSource& source =
      from_stdin ? static_cast<silero_vad::SampleSource&>(stream) : file;

  ProbabilityFile probs_writer(probs_file);
  std::optional<TimedModelStep> timed;
  if (timing) {
    timed.emplace(model);
  }
  silero_vad::ModelStep& step =
      timed ? static_cast<silero_vad::ModelStep&>(*timed) : model;

  status = silero_vad::run_vad(source,
                               step,
                               params,
                               reporter,
                               probs_file != nullptr ? &probs_writer : nullptr);
  int exit_code = status.ok() ? 0 : kExitError;
  if (probs_file != nullptr && std::fclose(probs_file) != 0) {
    std::fprintf(stderr, "ERROR cannot finish writing %s\n", probs_path);
    exit_code = kExitError;
  }
  if (timed) {
    timed->report();
  }
  return exit_code;
}
