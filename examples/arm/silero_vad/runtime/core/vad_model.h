/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The model step on ExecuTorch: one loaded Method of a .pte held in memory.
//
// The recurrent state is not the runner's business: the program keeps it in
// a mutable buffer that ExecuTorch preserves across execute() calls of one
// loaded Method (the export makes it start at zero). So the same runner
// serves any program with the VAD signature (float input (1, 576), float
// output (1, 1)), whatever it does inside, delegated to the Ethos-U or not.
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

#include "model_step.h"
#include "status.h"
#include "vad_constants.h"

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

class VadModel final : public ModelStep {
 public:
  static constexpr const char* kMethodName = "forward";
  // Planned-memory arenas supported (programs use one or two).
  static constexpr size_t kMaxPlannedBuffers = 8;
  // Alignment of every planned arena.
  static constexpr size_t kPlannedAlignment = 64;

  VadModel() = default;
  VadModel(const VadModel&) = delete;
  VadModel& operator=(const VadModel&) = delete;
  ~VadModel();

  // Loads the program in `pte` (which must outlive this object) and checks
  // that its "forward" method has the VAD signature.
  Status open(const void* pte, size_t size);

  // Bytes of planned memory load() needs, alignment included. After open().
  size_t planned_memory_bytes() const;

  // Loads the method into the given pools. `temp_pool` may be empty.
  Status load(ByteSpan method_pool, ByteSpan planned_pool, ByteSpan temp_pool);

  // Runs one frame (kModelInputSamples floats) and returns the probability.
  Result<float> step(const float* input) override;

  // Method-pool bytes in use after load(), to size bare-metal pools.
  size_t method_pool_used() const;

 private:
  Status check_signature();

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

  float input_[kModelInputSamples] = {};
  executorch::aten::SizesType input_sizes_[2] = {
      1, static_cast<executorch::aten::SizesType>(kModelInputSamples)};
  executorch::aten::DimOrderType input_dim_order_[2] = {0, 1};
  std::optional<executorch::aten::TensorImpl> input_impl_;
};

}  // namespace silero_vad
