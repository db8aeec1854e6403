/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The model step on ExecuTorch: one loaded Method of a .pte held in memory.
//
// The program contract (model_export/program_contract.py):
//  - method "forward": input 0 is the audio frame, shape
//    (1, context_samples + hop_samples), int16 PCM samples (the default
//    export; the program rescales them) or float32 audio (sample / 32768, an
//    export with run.sh --input float); output 0 is the float32 speech
//    probability, shape (1, 1);
//  - constant methods "sample_rate", "hop_samples", "context_samples"
//    (int64): the frame geometry, one of Silero's two (16 kHz: 512 + 64,
//    8 kHz: 256 + 32), read at open() and handed to the rest of the runtime
//    through geometry().
// The frames come in as int16 PCM; an int16 program gets them unchanged, a
// float program gets them divided by 32768. Anything else is refused at
// open() with what was found and what is needed.
//
// The recurrent state is not the runner's business: the program keeps it in
// a mutable buffer that ExecuTorch preserves across execute() calls of one
// loaded Method (the export makes it start at zero). So the same runner
// serves any program with the VAD contract, whatever it does inside,
// delegated to the Ethos-U or not, 16 or 8 kHz.
//
// Memory is the caller's: a pool for the method's bookkeeping, one for the
// planned activations (sized by planned_memory_bytes() after open()), and
// an optional temporary pool for kernels and delegates. No heap is used.
//
// Use: open() -> size the pools -> load() -> step() per frame. The object
// must stay where it is once loaded (the Method points into it).

#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include "frame_geometry.h"
#include "model_step.h"
#include "status.h"

namespace silero_vad {

struct ByteSpan {
  uint8_t* data = nullptr;
  size_t size = 0;
};

// A read-only ExecuTorch DataLoader over bytes already in memory (a file read
// at start-up, or an array in flash). Every request is bounds-checked, so a
// truncated program fails to load instead of reading past the buffer.
class MemoryDataLoader final : public executorch::runtime::DataLoader {
 public:
  MemoryDataLoader() = default;
  MemoryDataLoader(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}

  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset,
      size_t size,
      const SegmentInfo& segment_info) const override;
  executorch::runtime::Error load_into(size_t offset,
                                       size_t size,
                                       const SegmentInfo& segment_info,
                                       void* buffer) const override;
  executorch::runtime::Result<size_t> size() const override;

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// The audio input of a program, as run.sh --input names it.
enum class AudioInput : uint8_t {
  // int16 PCM samples, passed as they come.
  kInt16,
  // float32 audio: sample / 32768.
  kFloat,
};

class VadModel final : public ModelStep {
 public:
  static constexpr const char* kMethodName = "forward";
  // The metadata methods, in model_export/frame_geometry.py's order.
  static constexpr const char* kSampleRateMethod = "sample_rate";
  static constexpr const char* kHopSamplesMethod = "hop_samples";
  static constexpr const char* kContextSamplesMethod = "context_samples";
  // Bookkeeping of one loaded metadata method (a single constant value).
  static constexpr size_t kMetadataPoolBytes = 2048;
  // Planned-memory arenas supported (programs use one or two).
  static constexpr size_t kMaxPlannedBuffers = 8;
  // Alignment of every planned arena.
  static constexpr size_t kPlannedAlignment = 64;

  VadModel() = default;
  VadModel(const VadModel&) = delete;
  VadModel& operator=(const VadModel&) = delete;
  ~VadModel();

  // Loads the program in `pte` (which must outlive this object), checks
  // that its "forward" method has the VAD signature and reads the frame
  // geometry from its metadata methods.
  Status open(const void* pte, size_t size);

  // The program's frame geometry and audio input. After a successful open().
  const FrameGeometry& geometry() const override {
    return geometry_;
  }
  AudioInput audio_input() const {
    return audio_input_;
  }

  // Bytes of planned memory load() needs, alignment included. After open().
  size_t planned_memory_bytes() const;

  // Loads the method into the given pools. `temp_pool` may be empty.
  Status load(ByteSpan method_pool, ByteSpan planned_pool, ByteSpan temp_pool);

  // Runs one frame (geometry().frame_samples() int16 PCM samples) and
  // returns the probability.
  Result<float> step(const int16_t* frame) override;

  // Method-pool bytes in use after load(), to size bare-metal pools.
  size_t method_pool_used() const;

 private:
  Status check_signature();
  Result<int64_t> read_metadata(const char* name);
  Status read_geometry();

  MemoryDataLoader loader_;
  std::optional<executorch::runtime::Program> program_;
  size_t planned_sizes_[kMaxPlannedBuffers] = {};
  size_t num_planned_ = 0;

  std::optional<executorch::runtime::MemoryAllocator> method_allocator_;
  std::optional<executorch::runtime::MemoryAllocator> temp_allocator_;
  executorch::runtime::Span<uint8_t> planned_spans_[kMaxPlannedBuffers];
  std::optional<executorch::runtime::HierarchicalAllocator> planned_allocator_;
  std::optional<executorch::runtime::MemoryManager> memory_manager_;
  std::optional<executorch::runtime::Method> method_;

  FrameGeometry geometry_;
  AudioInput audio_input_ = AudioInput::kInt16;
  alignas(16) uint8_t metadata_pool_[kMetadataPoolBytes] = {};

  // The input tensor's data: int16 or float32 samples.
  alignas(16) uint8_t input_[kMaxFrameSamples * sizeof(float)] = {};
  executorch::aten::SizesType input_sizes_[2] = {1, 0};
  executorch::aten::DimOrderType input_dim_order_[2] = {0, 1};
  std::optional<executorch::aten::TensorImpl> input_impl_;
};

}  // namespace silero_vad
