/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// VadModel against programs exported by make_toy_model.py (directory given
// with --models). The toy's output is a closed formula of its inputs, so the
// expected probability of every frame is known, including the effect of the
// state carried over from the previous frames.

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <executorch/runtime/platform/platform.h>

#include "vad_model.h"

namespace silero_vad {
namespace {

std::string g_models_dir;

// ExecuTorch's log, muted while the byte-flipping test tries thousands of
// broken programs.
bool g_quiet = false;

void test_log(et_timestamp_t,
              et_pal_log_level_t level,
              const char* filename,
              const char*,
              size_t line,
              const char* message,
              size_t) {
  if (!g_quiet) {
    std::fprintf(stderr,
                 "executorch %c %s:%zu: %s\n",
                 static_cast<char>(level),
                 filename,
                 line,
                 message);
  }
}

// Same constants as make_toy_model.py.
constexpr float kDecay = 0.5f;
constexpr float kGain = 200.0f;
constexpr float kBias = 0.01f;
constexpr float kInt16Scale = 1.0f / 32768.0f;

std::vector<uint8_t> read(const std::string& name) {
  const std::string path = g_models_dir + "/" + name;
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << "missing " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

// Pools for one model; heap-allocated here only because tests create many.
struct Pools {
  explicit Pools(size_t planned_bytes, size_t method_bytes = 1 << 20)
      : method(method_bytes), planned(planned_bytes), temp(1 << 16) {}
  std::vector<uint8_t> method;
  std::vector<uint8_t> planned;
  std::vector<uint8_t> temp;
};

Status open_and_load(VadModel& model,
                     const uint8_t* pte,
                     size_t size,
                     std::unique_ptr<Pools>& pools) {
  Status status = model.open(pte, size);
  if (!status.ok()) {
    return status;
  }
  // As the host runner does: a corrupted size must not become an allocation.
  if (model.planned_memory_bytes() > (64u << 20)) {
    return Status::Error(ErrorCode::kCapacity, "planned memory too large");
  }
  pools = std::make_unique<Pools>(model.planned_memory_bytes());
  return model.load({pools->method.data(), pools->method.size()},
                    {pools->planned.data(), pools->planned.size()},
                    {pools->temp.data(), pools->temp.size()});
}

Status open_and_load(VadModel& model,
                     const std::vector<uint8_t>& pte,
                     std::unique_ptr<Pools>& pools) {
  return open_and_load(model, pte.data(), pte.size(), pools);
}

// An alternating-sign frame: every new sample has magnitude `amplitude`,
// the context samples are a different value, which the toy must ignore.
std::vector<int16_t> frame_of(const FrameGeometry& geometry,
                              int16_t amplitude) {
  std::vector<int16_t> frame(geometry.frame_samples(), 0);
  for (size_t i = 0; i < geometry.context_samples; ++i) {
    frame[i] = 12345;
  }
  for (size_t i = geometry.context_samples; i < frame.size(); ++i) {
    frame[i] = static_cast<int16_t>((i % 2 == 0) ? amplitude : -amplitude);
  }
  return frame;
}

float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

float energy_of(int16_t amplitude) {
  const float audio = static_cast<float>(amplitude) / 32768.0f;
  return audio * audio;
}

struct ToyCase {
  const char* file;
  FrameGeometry geometry;
  AudioInput input;
};

class ToyPrograms : public ::testing::TestWithParam<ToyCase> {};

// The geometry and the input format come from the program; the
// probabilities follow the toy's formula frame after frame, with the state
// carried over inside the program.
TEST_P(ToyPrograms, GeometryInputAndStateFromTheProgram) {
  const ToyCase& toy = GetParam();
  const std::vector<uint8_t> pte = read(toy.file);
  VadModel model;
  std::unique_ptr<Pools> pools;
  const Status status = open_and_load(model, pte, pools);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(model.geometry(), toy.geometry);
  EXPECT_EQ(model.audio_input(), toy.input);
  EXPECT_GT(model.method_pool_used(), 0u);

  // Loud frames then quiet ones: the state (and the output) rises and
  // decays; a model without state would repeat the same value.
  const int16_t amplitudes[] = {6554, 6554, 6554, 6554, 0, 0, 0, 9830};
  float state = 0.0f;  // InitializedMutableBufferPass: starts at zero
  float previous = -1.0f;
  for (int16_t amplitude : amplitudes) {
    const std::vector<int16_t> frame = frame_of(toy.geometry, amplitude);
    const Result<float> p = model.step(frame.data());
    ASSERT_TRUE(p.ok()) << p.status().message();
    state = kDecay * state + (1.0f - kDecay) * energy_of(amplitude);
    EXPECT_NEAR(*p, sigmoid(kGain * (state - kBias)), 1e-5f);
    EXPECT_NE(*p, previous);
    previous = *p;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Contract,
    ToyPrograms,
    ::testing::Values(
        ToyCase{"toy_state.pte", kGeometry16k, AudioInput::kInt16},
        ToyCase{"toy_float_input.pte", kGeometry16k, AudioInput::kFloat},
        ToyCase{"toy_8k.pte", kGeometry8k, AudioInput::kInt16}),
    [](const ::testing::TestParamInfo<ToyCase>& param_info) {
      std::string name = param_info.param.file;
      return name.substr(0, name.find('.'));
    });

// Full-scale PCM reaches an int16 program unchanged and a float program as
// sample / 32768: both give the same probability for the same frame.
TEST(VadModel, Int16AndFloatProgramsAgreeAtFullScale) {
  for (int16_t amplitude : {int16_t{-32768}, int16_t{32767}, int16_t{1}}) {
    float probabilities[2] = {0, 0};
    const char* files[2] = {"toy_state.pte", "toy_float_input.pte"};
    for (int i = 0; i < 2; ++i) {
      const std::vector<uint8_t> pte = read(files[i]);
      VadModel model;
      std::unique_ptr<Pools> pools;
      ASSERT_TRUE(open_and_load(model, pte, pools).ok());
      std::vector<int16_t> frame(576, amplitude);
      const Result<float> p = model.step(frame.data());
      ASSERT_TRUE(p.ok()) << p.status().message();
      probabilities[i] = *p;
    }
    EXPECT_EQ(probabilities[0], probabilities[1]) << amplitude;
    EXPECT_NEAR(probabilities[0],
                sigmoid(kGain * (0.5f * energy_of(amplitude) - kBias)),
                1e-5f);
  }
}

// A second load of the same program starts from the initial state again:
// the state belongs to the loaded Method, not to the bytes.
TEST(VadModel, EachLoadStartsFromTheInitialState) {
  const std::vector<uint8_t> pte = read("toy_state.pte");
  const std::vector<int16_t> loud = frame_of(kGeometry16k, 6554);
  float first_outputs[2] = {0, 0};
  for (float& first : first_outputs) {
    VadModel model;
    std::unique_ptr<Pools> pools;
    ASSERT_TRUE(open_and_load(model, pte, pools).ok());
    first = *model.step(loud.data());
    const float second = *model.step(loud.data());
    EXPECT_GT(second, first);
  }
  EXPECT_EQ(first_outputs[0], first_outputs[1]);
}

// The int16 state goes through quantize/dequantize kernels: this fails with
// "Missing operator" if the runner lacks the quantized kernels.
TEST(VadModel, QuantizedStateProgramRuns) {
  const std::vector<uint8_t> pte = read("toy_int16_state.pte");
  VadModel model;
  std::unique_ptr<Pools> pools;
  const Status status = open_and_load(model, pte, pools);
  ASSERT_TRUE(status.ok()) << status.message();
  int state_q = 0;
  for (int16_t amplitude : {8192, 8192, 3277, 0, 0}) {
    const std::vector<int16_t> frame = frame_of(kGeometry16k, amplitude);
    const Result<float> p = model.step(frame.data());
    ASSERT_TRUE(p.ok()) << p.status().message();
    const float previous = static_cast<float>(state_q) * kInt16Scale;
    const float state =
        kDecay * previous + (1.0f - kDecay) * energy_of(amplitude);
    EXPECT_NEAR(*p, sigmoid(kGain * (state - kBias)), 1e-5f);
    const float q = std::nearbyint(state / kInt16Scale);
    state_q = static_cast<int>(std::fmin(std::fmax(q, -32768.0f), 32767.0f));
  }
}

void expect_open_error(const std::string& name,
                       ErrorCode code,
                       const char* text) {
  const std::vector<uint8_t> pte = read(name);
  VadModel model;
  const Status status = model.open(pte.data(), pte.size());
  ASSERT_FALSE(status.ok()) << name;
  EXPECT_EQ(status.code(), code) << name << ": " << status.message();
  EXPECT_NE(std::strstr(status.message(), text), nullptr)
      << name << ": " << status.message();
}

TEST(VadModel, RefusesForeignPrograms) {
  expect_open_error("foreign_two_inputs.pte",
                    ErrorCode::kModelSignature,
                    "model has 2 inputs: expected 1, an int16 PCM (or "
                    "float32) tensor of shape (1, context_samples + "
                    "hop_samples)");
  expect_open_error("foreign_input_shape.pte",
                    ErrorCode::kModelSignature,
                    "model input has shape (1, 512): expected (1, 576), "
                    "context_samples 64 + hop_samples 512 of the program's "
                    "metadata");
  expect_open_error("input_shape_16k_metadata_8k.pte",
                    ErrorCode::kModelSignature,
                    "model input has shape (1, 576): expected (1, 288)");
  expect_open_error("foreign_output_shape.pte",
                    ErrorCode::kModelSignature,
                    "model output has shape (1, 2): expected a float32 "
                    "tensor of shape (1, 1)");
  expect_open_error("input_int32.pte",
                    ErrorCode::kModelSignature,
                    "model input is Int: expected int16 PCM samples (or "
                    "float32 audio, run.sh --input float)");
}

// The frame geometry must come from the program, complete and one of
// Silero's; an older program is told to be re-exported.
TEST(VadModel, RefusesMissingOrWrongMetadata) {
  expect_open_error("no_metadata.pte",
                    ErrorCode::kModelSignature,
                    "program has no 'sample_rate' method: it was exported "
                    "without the frame geometry (sample_rate, hop_samples, "
                    "context_samples); re-export it with "
                    "examples/arm/silero_vad/run.sh");
  expect_open_error("partial_metadata.pte",
                    ErrorCode::kModelSignature,
                    "program has no 'hop_samples' method");
  expect_open_error("inconsistent_metadata.pte",
                    ErrorCode::kModelSignature,
                    "program metadata: 16000 Hz with hop_samples 256 and "
                    "context_samples 32: Silero's 16000 Hz model takes "
                    "hop_samples 512 and context_samples 64");
  expect_open_error("metadata_rate_44100.pte",
                    ErrorCode::kModelSignature,
                    "program metadata: sample rate 44100 Hz: Silero VAD has "
                    "models for 16000 and 8000 Hz");
  expect_open_error("metadata_not_integer.pte",
                    ErrorCode::kModelSignature,
                    "program metadata method 'sample_rate' does not return "
                    "one integer");
}

// The signature is right but the delegate's backend is not in the runner:
// open() accepts it, load() explains (ExecuTorch's log names the backend).
TEST(VadModel, ExplainsAMissingBackend) {
  const std::vector<uint8_t> pte = read("foreign_delegated.pte");
  VadModel model;
  ASSERT_TRUE(model.open(pte.data(), pte.size()).ok());
  std::unique_ptr<Pools> pools =
      std::make_unique<Pools>(model.planned_memory_bytes());
  const Status status =
      model.load({pools->method.data(), pools->method.size()},
                 {pools->planned.data(), pools->planned.size()},
                 {pools->temp.data(), pools->temp.size()});
  EXPECT_EQ(status.code(), ErrorCode::kModelLoad);
  EXPECT_NE(std::strstr(status.message(), "not in this runner"), nullptr)
      << status.message();
}

TEST(VadModel, RefusesBrokenFiles) {
  for (const char* name : {"truncated.pte",
                           "header_only.pte",
                           "not_a_program.pte",
                           "random_bytes.pte"}) {
    expect_open_error(
        name, ErrorCode::kModelLoad, "not a loadable ExecuTorch program");
  }
  expect_open_error("empty.pte", ErrorCode::kModelLoad, "model file is empty");
}

// Every prefix of a valid program is refused cleanly.
TEST(VadModel, RefusesEveryTruncation) {
  const std::vector<uint8_t> pte = read("toy_state.pte");
  for (size_t length = 1; length < pte.size(); length += 7) {
    // A fresh copy of exactly `length` bytes, so reading past it would be
    // caught by a sanitizer.
    std::vector<uint8_t> prefix(pte.begin(), pte.begin() + length);
    VadModel model;
    EXPECT_FALSE(model.open(prefix.data(), prefix.size()).ok()) << length;
  }
}

// Bytes that end right before an inaccessible page: any read past the end,
// by our code or by ExecuTorch's (which the sanitizers do not instrument),
// faults at once. The size is a multiple of 16 so that the start keeps the
// alignment ExecuTorch requires of a program.
class GuardedBytes {
 public:
  explicit GuardedBytes(size_t size) : size_(size) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    data_pages_ = (size + page - 1) / page * page;
    mapped_ = data_pages_ + page;
    void* base = mmap(nullptr,
                      mapped_,
                      PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS,
                      -1,
                      0);
    if (base == MAP_FAILED) {
      base_ = nullptr;
      return;
    }
    base_ = static_cast<uint8_t*>(base);
    guard_ok_ = mprotect(base_ + data_pages_, page, PROT_NONE) == 0;
  }
  ~GuardedBytes() {
    if (base_ != nullptr) {
      munmap(base_, mapped_);
    }
  }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;

  bool ok() const {
    return base_ != nullptr && guard_ok_;
  }
  uint8_t* data() {
    return base_ + data_pages_ - size_;
  }

 private:
  size_t size_;
  size_t data_pages_ = 0;
  size_t mapped_ = 0;
  uint8_t* base_ = nullptr;
  bool guard_ok_ = false;
};

// A flipped byte anywhere in a valid program: open() (which also runs the
// metadata methods) and load() either refuse it with an error or accept it,
// never crash or read outside its bytes. Run under ASan/UBSan by
// run_cpp_tests.sh; the guard page catches over-reads in the uninstrumented
// ExecuTorch library too.
//
// Not tested: running the frames of an accepted corrupted program.
// ExecuTorch verifies a program's structure, not its meaning: a flipped
// tensor size or argument index that still verifies can make a kernel
// abort (ET_CHECK) or write out of bounds at execute() (seen here in
// _to_dim_order_copy). Integrity of a deployed .pte is the deployment's
// business (a checksum), not something a runtime can check.
TEST(VadModel, FlippedBytesGiveAnErrorOrACleanLoad) {
  for (const char* name : {"toy_state.pte", "toy_int16_state.pte"}) {
    const std::vector<uint8_t> pte = read(name);
    ASSERT_FALSE(pte.empty());
    // Zeros after the program up to a multiple of 16 bytes (a .pte may
    // have trailing bytes); the untouched program loads from the guarded
    // buffer, so the flips below test loading, not the buffer.
    std::vector<uint8_t> padded(pte);
    padded.resize((pte.size() + 15) / 16 * 16, 0);
    GuardedBytes bytes(padded.size());
    ASSERT_TRUE(bytes.ok());
    std::memcpy(bytes.data(), padded.data(), padded.size());
    {
      VadModel model;
      std::unique_ptr<Pools> pools;
      const Status status =
          open_and_load(model, bytes.data(), padded.size(), pools);
      ASSERT_TRUE(status.ok()) << name << ": " << status.message();
    }
    std::mt19937 rng(2026);
    size_t refused = 0;
    size_t refused_kernel_calls = 0;
    size_t loaded = 0;
    Pools pools(1 << 20);
    g_quiet = true;
    for (size_t position = 0; position < pte.size(); ++position) {
      for (uint8_t mask :
           {uint8_t{0xFF}, static_cast<uint8_t>(1u << (rng() % 8))}) {
        std::memcpy(bytes.data(), padded.data(), padded.size());
        bytes.data()[position] ^= mask;
        VadModel model;
        Status status = model.open(bytes.data(), padded.size());
        if (status.ok()) {
          // One set of pools for every variant keeps the test fast under
          // ASan (no allocation per variant).
          status = model.load({pools.method.data(), pools.method.size()},
                              {pools.planned.data(), pools.planned.size()},
                              {pools.temp.data(), pools.temp.size()});
        }
        if (!status.ok()) {
          ASSERT_NE(status.message()[0], '\0');
          ++refused;
          if (std::strstr(status.message(), "kernel call") != nullptr ||
              std::strstr(status.message(), "no usable name") != nullptr) {
            ++refused_kernel_calls;
          }
          continue;
        }
        ++loaded;
        ASSERT_TRUE(check_frame_geometry(model.geometry()).ok());
      }
    }
    g_quiet = false;
    // Every outcome happens: flips in padding or data load, flips in the
    // structure are refused, among them kernel calls that ExecuTorch itself
    // would load with a null kernel (see check_kernel_calls in
    // vad_model.cpp).
    EXPECT_GT(refused, 0u) << name;
    EXPECT_GT(refused_kernel_calls, 0u) << name;
    EXPECT_GT(loaded, 0u) << name;
    std::printf(
        "%s: %zu variants, %zu refused (%zu for their kernel calls), "
        "%zu loaded\n",
        name,
        2 * pte.size(),
        refused,
        refused_kernel_calls,
        loaded);
  }
}

TEST(VadModel, ReportsPoolsThatAreTooSmall) {
  const std::vector<uint8_t> pte = read("toy_state.pte");
  {
    VadModel model;
    ASSERT_TRUE(model.open(pte.data(), pte.size()).ok());
    std::vector<uint8_t> method(1 << 20);
    std::vector<uint8_t> planned(model.planned_memory_bytes() - 65);
    const Status status = model.load(
        {method.data(), method.size()}, {planned.data(), planned.size()}, {});
    EXPECT_EQ(status.code(), ErrorCode::kCapacity);
    EXPECT_NE(std::strstr(status.message(), "planned memory pool"), nullptr);
  }
  {
    VadModel model;
    ASSERT_TRUE(model.open(pte.data(), pte.size()).ok());
    std::vector<uint8_t> method(256);
    std::vector<uint8_t> planned(model.planned_memory_bytes());
    const Status status = model.load(
        {method.data(), method.size()}, {planned.data(), planned.size()}, {});
    EXPECT_EQ(status.code(), ErrorCode::kModelLoad);
    EXPECT_NE(std::strstr(status.message(), "method pool is too small"),
              nullptr)
        << status.message();
  }
}

TEST(VadModel, RefusesMisuse) {
  VadModel model;
  const std::vector<int16_t> frame(kMaxFrameSamples, 0);
  EXPECT_EQ(model.step(frame.data()).status().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(model.load({}, {}, {}).code(), ErrorCode::kInvalidArgument);
  const std::vector<uint8_t> pte = read("toy_state.pte");
  ASSERT_TRUE(model.open(pte.data(), pte.size()).ok());
  EXPECT_EQ(model.open(pte.data(), pte.size()).code(),
            ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace silero_vad

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  executorch::runtime::register_pal(
      executorch::runtime::PalImpl::create(silero_vad::test_log, __FILE__));
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--models") == 0) {
      silero_vad::g_models_dir = argv[i + 1];
    }
  }
  if (silero_vad::g_models_dir.empty()) {
    std::fprintf(stderr, "usage: test_vad_model --models DIR\n");
    return 2;
  }
  return RUN_ALL_TESTS();
}
