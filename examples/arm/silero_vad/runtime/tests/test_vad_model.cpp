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

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "vad_constants.h"
#include "vad_model.h"

namespace silero_vad {
namespace {

std::string g_models_dir;

// Same constants as make_toy_model.py.
constexpr float kDecay = 0.5f;
constexpr float kGain = 200.0f;
constexpr float kBias = 0.01f;
constexpr float kInt8Scale = 1.0f / 256.0f;
constexpr int kInt8ZeroPoint = -128;

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
                     const std::vector<uint8_t>& pte,
                     std::unique_ptr<Pools>& pools) {
  Status status = model.open(pte.data(), pte.size());
  if (!status.ok()) {
    return status;
  }
  pools = std::make_unique<Pools>(model.planned_memory_bytes());
  return model.load({pools->method.data(), pools->method.size()},
                    {pools->planned.data(), pools->planned.size()},
                    {pools->temp.data(), pools->temp.size()});
}

std::vector<float> frame_of(float amplitude) {
  std::vector<float> input(kModelInputSamples, 0.0f);
  for (size_t i = kContextSamples; i < kModelInputSamples; ++i) {
    input[i] = (i % 2 == 0) ? amplitude : -amplitude;
  }
  return input;
}

float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

TEST(VadModel, StatePersistsAcrossFrames) {
  const std::vector<uint8_t> pte = read("toy_state.pte");
  VadModel model;
  std::unique_ptr<Pools> pools;
  const Status status = open_and_load(model, pte, pools);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_GT(model.method_pool_used(), 0u);

  // Loud frames then quiet ones: the state (and the output) rises and
  // decays; a model without state would repeat the same value.
  const float amplitudes[] = {0.2f, 0.2f, 0.2f, 0.2f, 0.0f, 0.0f, 0.0f, 0.3f};
  float state = 0.0f;  // InitializedMutableBufferPass: starts at zero
  float previous = -1.0f;
  for (float amplitude : amplitudes) {
    const std::vector<float> input = frame_of(amplitude);
    const Result<float> p = model.step(input.data());
    ASSERT_TRUE(p.ok()) << p.status().message();
    const float energy = amplitude * amplitude;
    state = kDecay * state + (1.0f - kDecay) * energy;
    EXPECT_NEAR(*p, sigmoid(kGain * (state - kBias)), 1e-5f);
    EXPECT_NE(*p, previous);
    previous = *p;
  }
}

// A second load of the same program starts from the initial state again:
// the state belongs to the loaded Method, not to the bytes.
TEST(VadModel, EachLoadStartsFromTheInitialState) {
  const std::vector<uint8_t> pte = read("toy_state.pte");
  const std::vector<float> loud = frame_of(0.2f);
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

// The int8 state goes through quantize/dequantize kernels: this fails with
// "Missing operator" if the runner lacks the quantized kernels.
TEST(VadModel, QuantizedStateProgramRuns) {
  const std::vector<uint8_t> pte = read("toy_int8_state.pte");
  VadModel model;
  std::unique_ptr<Pools> pools;
  const Status status = open_and_load(model, pte, pools);
  ASSERT_TRUE(status.ok()) << status.message();
  int state_q = kInt8ZeroPoint;
  for (float amplitude : {0.25f, 0.25f, 0.1f, 0.0f, 0.0f}) {
    const std::vector<float> input = frame_of(amplitude);
    const Result<float> p = model.step(input.data());
    ASSERT_TRUE(p.ok()) << p.status().message();
    const float previous =
        static_cast<float>(state_q - kInt8ZeroPoint) * kInt8Scale;
    const float state =
        kDecay * previous + (1.0f - kDecay) * amplitude * amplitude;
    EXPECT_NEAR(*p, sigmoid(kGain * (state - kBias)), 1e-5f);
    const float q = std::nearbyint(state / kInt8Scale) + kInt8ZeroPoint;
    state_q = static_cast<int>(std::fmin(std::fmax(q, -128.0f), 127.0f));
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
                    "model has 2 inputs: expected 1, a float32 tensor of "
                    "shape (1, 576)");
  expect_open_error("foreign_input_shape.pte",
                    ErrorCode::kModelSignature,
                    "model input has shape (1, 512): expected");
  expect_open_error("foreign_output_shape.pte",
                    ErrorCode::kModelSignature,
                    "model output has shape (1, 2): expected a float32 "
                    "tensor of shape (1, 1)");
}

// The signature is right but the delegate's backend is not in the runner:
// open() accepts it, load() explains.
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
  const std::vector<float> input(kModelInputSamples, 0.0f);
  EXPECT_EQ(model.step(input.data()).status().code(),
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
