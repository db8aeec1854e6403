/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "vad_model.h"

#include <cstring>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/platform/runtime.h>

namespace silero_vad {

namespace et = executorch::runtime;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;

namespace {

unsigned long ul(size_t value) {
  return static_cast<unsigned long>(value);
}

unsigned error_value(et::Error error) {
  return static_cast<unsigned>(error);
}

size_t round_up(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// "(1, 576)" for messages.
struct ShapeText {
  char text[96];
};

ShapeText shape_text(et::Span<const int32_t> sizes) {
  ShapeText out;
  size_t used = 0;
  out.text[used++] = '(';
  for (size_t i = 0; i < sizes.size() && used + 16 < sizeof(out.text); ++i) {
    int32_t value = sizes[i];
    if (i > 0) {
      out.text[used++] = ',';
      out.text[used++] = ' ';
    }
    if (value < 0) {
      out.text[used++] = '-';
      value = -value;
    }
    char digits[12];
    int count = 0;
    do {
      digits[count++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (count > 0) {
      out.text[used++] = digits[--count];
    }
  }
  if (sizes.size() == 1) {
    out.text[used++] = ',';
  }
  out.text[used++] = ')';
  out.text[used] = '\0';
  return out;
}

bool has_shape(et::Span<const int32_t> sizes, int32_t rows, int32_t columns) {
  return sizes.size() == 2 && sizes[0] == rows && sizes[1] == columns;
}

Status check_tensor(const et::MethodMeta& meta,
                    bool is_input,
                    int32_t columns,
                    const char* expected) {
  const char* kind = is_input ? "input" : "output";
  et::Result<et::Tag> tag = is_input ? meta.input_tag(0) : meta.output_tag(0);
  if (!tag.ok() || *tag != et::Tag::Tensor) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model %s 0 is not a tensor: expected %s",
                         kind,
                         expected);
  }
  et::Result<et::TensorInfo> info =
      is_input ? meta.input_tensor_meta(0) : meta.output_tensor_meta(0);
  if (!info.ok()) {
    return Status::Error(ErrorCode::kModelSignature,
                         "cannot read the metadata of model %s 0 (error "
                         "0x%x)",
                         kind,
                         error_value(info.error()));
  }
  if (info->scalar_type() != ScalarType::Float) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model %s is %s: expected %s",
                         kind,
                         executorch::runtime::toString(info->scalar_type()),
                         expected);
  }
  if (!has_shape(info->sizes(), 1, columns)) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model %s has shape %s: expected %s",
                         kind,
                         shape_text(info->sizes()).text,
                         expected);
  }
  return Status::Ok();
}

}  // namespace

et::Result<et::FreeableBuffer> MemoryDataLoader::load(
    size_t offset, size_t size, const SegmentInfo& segment_info) const {
  (void)segment_info;
  // Subtract rather than add: offset + size could wrap.
  if (offset > size_ || size > size_ - offset) {
    return et::Error::InvalidArgument;
  }
  return et::FreeableBuffer(data_ + offset, size, nullptr);
}

et::Error MemoryDataLoader::load_into(size_t offset,
                                      size_t size,
                                      const SegmentInfo& segment_info,
                                      void* buffer) const {
  (void)segment_info;
  if (buffer == nullptr || offset > size_ || size > size_ - offset) {
    return et::Error::InvalidArgument;
  }
  std::memcpy(buffer, data_ + offset, size);
  return et::Error::Ok;
}

et::Result<size_t> MemoryDataLoader::size() const {
  return size_;
}

VadModel::~VadModel() {
  // The Method refers to the program and the allocators: destroy it first.
  method_.reset();
  input_impl_.reset();
  program_.reset();
}

Status VadModel::open(const void* pte, size_t size) {
  if (program_.has_value()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "VadModel::open() called twice");
  }
  if (pte == nullptr || size == 0) {
    return Status::Error(ErrorCode::kModelLoad, "model file is empty");
  }
  // Idempotent: sets up ExecuTorch's platform layer (logging, clock).
  et::runtime_init();
  loader_ = MemoryDataLoader(pte, size);
  // Full verification: a corrupted or truncated file must fail here with an
  // error, never crash later.
  et::Result<et::Program> program = et::Program::load(
      &loader_, et::Program::Verification::InternalConsistency);
  if (!program.ok()) {
    return Status::Error(ErrorCode::kModelLoad,
                         "not a loadable ExecuTorch program (%lu bytes): %s "
                         "(0x%x); is the .pte complete and exported by a "
                         "compatible ExecuTorch?",
                         ul(size),
                         et::to_string(program.error()),
                         error_value(program.error()));
  }
  program_.emplace(std::move(program.get()));
  const Status status = check_signature();
  if (!status.ok()) {
    program_.reset();
  }
  return status;
}

Status VadModel::check_signature() {
  et::Result<et::MethodMeta> meta = program_->method_meta(kMethodName);
  if (!meta.ok()) {
    et::Result<const char*> first = program_->get_method_name(0);
    return Status::Error(ErrorCode::kModelSignature,
                         "program has no '%s' method (first method: '%s')",
                         kMethodName,
                         first.ok() ? *first : "none");
  }
  constexpr const char* kExpectedInput = "a float32 tensor of shape (1, 576)";
  constexpr const char* kExpectedOutput = "a float32 tensor of shape (1, 1)";
  if (meta->num_inputs() != 1) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model has %lu inputs: expected 1, %s",
                         ul(meta->num_inputs()),
                         kExpectedInput);
  }
  if (meta->num_outputs() != 1) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model has %lu outputs: expected 1, %s",
                         ul(meta->num_outputs()),
                         kExpectedOutput);
  }
  Status status = check_tensor(*meta,
                               /*is_input=*/true,
                               static_cast<int32_t>(kModelInputSamples),
                               kExpectedInput);
  if (!status.ok()) {
    return status;
  }
  status = check_tensor(*meta, /*is_input=*/false, 1, kExpectedOutput);
  if (!status.ok()) {
    return status;
  }
  num_planned_ = meta->num_memory_planned_buffers();
  if (num_planned_ > kMaxPlannedBuffers) {
    return Status::Error(ErrorCode::kCapacity,
                         "model uses %lu planned memory arenas, the runner "
                         "supports %lu",
                         ul(num_planned_),
                         ul(kMaxPlannedBuffers));
  }
  for (size_t i = 0; i < num_planned_; ++i) {
    et::Result<int64_t> bytes = meta->memory_planned_buffer_size(i);
    if (!bytes.ok() || *bytes < 0) {
      return Status::Error(ErrorCode::kModelLoad,
                           "cannot read the size of planned arena %lu",
                           ul(i));
    }
    planned_sizes_[i] = static_cast<size_t>(*bytes);
  }
  return Status::Ok();
}

size_t VadModel::planned_memory_bytes() const {
  size_t total = kPlannedAlignment;  // Room to align the pool's start.
  for (size_t i = 0; i < num_planned_; ++i) {
    total += round_up(planned_sizes_[i], kPlannedAlignment);
  }
  return total;
}

Status VadModel::load(ByteSpan method_pool,
                      ByteSpan planned_pool,
                      ByteSpan temp_pool) {
  if (!program_.has_value()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "VadModel::load() before a successful open()");
  }
  if (method_.has_value()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "VadModel::load() called twice");
  }
  if (method_pool.data == nullptr || method_pool.size == 0 ||
      method_pool.size > UINT32_MAX || temp_pool.size > UINT32_MAX) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "method pool must be non-empty and below 4 GiB");
  }
  const size_t needed = planned_memory_bytes();
  if (planned_pool.data == nullptr ? needed > kPlannedAlignment
                                   : planned_pool.size < needed) {
    return Status::Error(
        ErrorCode::kCapacity,
        "planned memory pool has %lu bytes, the model needs "
        "%lu",
        ul(planned_pool.data == nullptr ? 0 : planned_pool.size),
        ul(needed));
  }
  // Carve one aligned arena per planned buffer out of the pool.
  if (num_planned_ > 0) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(planned_pool.data);
    size_t offset = round_up(base, kPlannedAlignment) - base;
    for (size_t i = 0; i < num_planned_; ++i) {
      planned_spans_[i] =
          et::Span<uint8_t>(planned_pool.data + offset, planned_sizes_[i]);
      offset += round_up(planned_sizes_[i], kPlannedAlignment);
    }
  }
  method_allocator_.emplace(static_cast<uint32_t>(method_pool.size),
                            method_pool.data);
  planned_allocator_.emplace(
      et::Span<et::Span<uint8_t>>(planned_spans_, num_planned_));
  et::MemoryAllocator* temp = nullptr;
  if (temp_pool.data != nullptr && temp_pool.size > 0) {
    temp_allocator_.emplace(static_cast<uint32_t>(temp_pool.size),
                            temp_pool.data);
    temp = &*temp_allocator_;
  }
  memory_manager_.emplace(&*method_allocator_, &*planned_allocator_, temp);

  et::Result<et::Method> method =
      program_->load_method(kMethodName, &*memory_manager_);
  if (!method.ok()) {
    const et::Error error = method.error();
    const char* hint = "";
    if (error == et::Error::OperatorMissing) {
      hint =
          ": the runner lacks a kernel this program uses (see the log "
          "above for its name)";
    } else if (error == et::Error::MemoryAllocationFailed) {
      hint = ": the method pool is too small";
    } else if (error == et::Error::NotFound) {
      hint =
          ": a backend this program delegates to is not in this runner "
          "(an Ethos-U program runs on the Corstone-320, not on a PC)";
    }
    return Status::Error(ErrorCode::kModelLoad,
                         "loading method '%s' failed: %s (error 0x%x)%s",
                         kMethodName,
                         et::to_string(error),
                         error_value(error),
                         hint);
  }
  method_.emplace(std::move(method.get()));
  input_impl_.emplace(
      ScalarType::Float, 2, input_sizes_, input_, input_dim_order_);
  return Status::Ok();
}

Result<float> VadModel::step(const float* input) {
  if (!method_.has_value()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "VadModel::step() before load()");
  }
  std::memcpy(input_, input, sizeof(input_));
  // Set every frame: a planned input is copied into the arena by
  // set_input(), so the new samples must be handed over each time.
  et::Error error = method_->set_input(et::EValue(Tensor(&*input_impl_)), 0);
  if (error != et::Error::Ok) {
    return Status::Error(ErrorCode::kModelExecute,
                         "setting the model input failed: %s (error 0x%x)",
                         et::to_string(error),
                         error_value(error));
  }
  error = method_->execute();
  if (error != et::Error::Ok) {
    return Status::Error(ErrorCode::kModelExecute,
                         "Method::execute() failed: %s (error 0x%x)",
                         et::to_string(error),
                         error_value(error));
  }
  const et::EValue& output = method_->get_output(0);
  if (!output.isTensor()) {
    return Status::Error(ErrorCode::kModelExecute,
                         "model output is not a tensor");
  }
  const Tensor tensor = output.toTensor();
  if (tensor.scalar_type() != ScalarType::Float || tensor.numel() != 1) {
    return Status::Error(ErrorCode::kModelExecute,
                         "model output is not a single float32 value");
  }
  return tensor.const_data_ptr<float>()[0];
}

size_t VadModel::method_pool_used() const {
  return method_allocator_.has_value() ? method_allocator_->used_size() : 0;
}

}  // namespace silero_vad
