/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The model step on ExecuTorch: one loaded Method of a .pte held in memory,
// checked at open() against the program contract (model_export/
// program_contract.py) and run frame by frame on caller-owned pools.
// Use: open() -> size the pools -> load() -> step() per frame; the object
// must not move once loaded (the Method points into it).

#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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

using ByteSpan = executorch::runtime::Span<uint8_t>;

// A read-only, bounds-checked DataLoader over bytes in memory (a file read at
// start-up, or an array in flash).
class MemoryDataLoader final : public executorch::runtime::DataLoader {
 public:
  MemoryDataLoader() = default;
  MemoryDataLoader(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}

  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, const SegmentInfo&) const override {
    if (!contains(offset, size)) {
      return executorch::runtime::Error::InvalidArgument;
    }
    return executorch::runtime::FreeableBuffer(data_ + offset, size, nullptr);
  }
  executorch::runtime::Error load_into(size_t offset,
                                       size_t size,
                                       const SegmentInfo&,
                                       void* buffer) const override {
    if (buffer == nullptr || !contains(offset, size)) {
      return executorch::runtime::Error::InvalidArgument;
    }
    std::memcpy(buffer, data_ + offset, size);
    return executorch::runtime::Error::Ok;
  }
  executorch::runtime::Result<size_t> size() const override {
    return size_;
  }

 private:
  // Subtracts rather than adds: offset + size could wrap.
  bool contains(size_t offset, size_t size) const {
    return offset <= size_ && size <= size_ - offset;
  }

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// The audio input of a program, as run.sh --input names it: int16 PCM passed
// as it comes, or float32 audio (sample / 32768).
enum class AudioInput : uint8_t { kInt16, kFloat };

class VadModel final : public ModelStep {
 public:
  static constexpr const char* kMethodName = "forward";
  // Planned-memory arenas supported (programs use one or two).
  static constexpr size_t kMaxPlannedBuffers = 8;
  static constexpr size_t kPlannedAlignment = 64;

  VadModel() = default;
  VadModel(const VadModel&) = delete;
  VadModel& operator=(const VadModel&) = delete;

  // Loads and checks the program in `pte`, which must outlive this object.
  Status open(const void* pte, size_t size);

  // After a successful open().
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

  Result<float> step(const int16_t* frame) override;

  // Method-pool bytes in use after load(), to size bare-metal pools.
  size_t method_pool_used() const;

 private:
  Status check_signature();
  Result<int64_t> read_metadata(const char* name);
  Status read_geometry();

  // Destroyed in reverse order: the Method before what it points into.
  MemoryDataLoader loader_;
  std::optional<executorch::runtime::Program> program_;
  size_t planned_sizes_[kMaxPlannedBuffers] = {};
  size_t num_planned_ = 0;

  std::optional<executorch::runtime::MemoryAllocator> method_allocator_;
  std::optional<executorch::runtime::MemoryAllocator> temp_allocator_;
  ByteSpan planned_spans_[kMaxPlannedBuffers];
  std::optional<executorch::runtime::HierarchicalAllocator> planned_allocator_;
  std::optional<executorch::runtime::MemoryManager> memory_manager_;
  std::optional<executorch::runtime::Method> method_;

  FrameGeometry geometry_;
  AudioInput audio_input_ = AudioInput::kInt16;
  // Bookkeeping of one loaded metadata method (a single constant value).
  alignas(16) uint8_t metadata_pool_[2048] = {};

  // The input tensor's data: int16 or float32 samples.
  alignas(16) uint8_t input_[kMaxFrameSamples * sizeof(float)] = {};
  executorch::aten::SizesType input_sizes_[2] = {1, 0};
  executorch::aten::DimOrderType input_dim_order_[2] = {0, 1};
  std::optional<executorch::aten::TensorImpl> input_impl_;
};

}  // namespace silero_vad
