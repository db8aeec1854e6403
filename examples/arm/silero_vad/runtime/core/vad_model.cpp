/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "vad_model.h"

#include <cstdio>
#include <cstring>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/executor/method_meta.h>
#include <executorch/runtime/platform/runtime.h>

namespace silero_vad {

namespace et = executorch::runtime;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;

namespace {

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
  ShapeText out = {"("};
  size_t used = 1;
  for (size_t i = 0; i < sizes.size() && used + 16 < sizeof(out.text); ++i) {
    used += static_cast<size_t>(std::snprintf(out.text + used,
                                              sizeof(out.text) - used,
                                              i > 0 ? ", %ld" : "%ld",
                                              static_cast<long>(sizes[i])));
  }
  std::snprintf(
      out.text + used, sizeof(out.text) - used, sizes.size() == 1 ? ",)" : ")");
  return out;
}

bool has_shape(et::Span<const int32_t> sizes, int32_t rows, int32_t columns) {
  return sizes.size() == 2 && sizes[0] == rows && sizes[1] == columns;
}

// What the contract expects, for messages.
constexpr const char* kExpectedInput =
    "an int16 PCM (or float32) tensor of shape (1, context_samples + "
    "hop_samples)";
constexpr const char* kExpectedOutput = "a float32 tensor of shape (1, 1)";

// The method's one input or output, which the contract wants a tensor.
Status tensor_meta(const et::MethodMeta& meta,
                   bool is_input,
                   std::optional<et::TensorInfo>* info) {
  const char* what = is_input ? "input" : "output";
  const char* expected = is_input ? kExpectedInput : kExpectedOutput;
  const size_t count = is_input ? meta.num_inputs() : meta.num_outputs();
  if (count != 1) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model has %lu %ss: expected 1, %s",
                         ul(count),
                         what,
                         expected);
  }
  et::Result<et::Tag> tag = is_input ? meta.input_tag(0) : meta.output_tag(0);
  if (!tag.ok() || *tag != et::Tag::Tensor) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model %s 0 is not a tensor: expected %s",
                         what,
                         expected);
  }
  et::Result<et::TensorInfo> result =
      is_input ? meta.input_tensor_meta(0) : meta.output_tensor_meta(0);
  if (!result.ok()) {
    return Status::Error(ErrorCode::kModelSignature,
                         "cannot read the metadata of model %s 0 (error 0x%x)",
                         what,
                         error_value(result.error()));
  }
  info->emplace(*result);
  return Status::Ok();
}

// A bounds-checked reader of flatbuffer tables, vectors and strings: safe on
// any bytes, although Program::load() has verified them already. A read out of
// bounds returns 0 and clears ok().
class FlatbufferView {
 public:
  FlatbufferView(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool ok() const {
    return ok_;
  }
  // The little-endian unsigned integer of `bytes` (1, 2 or 4) bytes at `pos`.
  uint32_t uint(size_t pos, size_t bytes) {
    if (pos > size_ || size_ - pos < bytes) {
      return fail();
    }
    uint32_t value = 0;
    for (size_t i = bytes; i-- > 0;) {
      value = (value << 8) | data_[pos + i];
    }
    return value;
  }
  // The target of the unsigned offset stored at `pos`.
  size_t follow(size_t pos) {
    const uint32_t offset = uint(pos, 4);
    return ok_ && offset <= size_ - pos ? pos + offset : fail();
  }
  // Where field `id` of the table at `table` is stored; 0 when absent.
  size_t field(size_t table, unsigned id) {
    // The vtable lies at table - soffset (a signed 32-bit value).
    const int64_t vtable =
        static_cast<int64_t>(table) - static_cast<int32_t>(uint(table, 4));
    if (!ok_ || vtable < 0 || static_cast<uint64_t>(vtable) >= size_) {
      return fail();
    }
    // A field beyond the vtable was added after this table was written.
    const size_t entry = 4 + 2 * static_cast<size_t>(id);
    const uint32_t offset = entry + 2 <= uint(static_cast<size_t>(vtable), 2)
                                ? uint(static_cast<size_t>(vtable) + entry, 2)
                                : 0;
    return ok_ && offset != 0 ? table + offset : 0;
  }
  // The table or string that field `id` refers to; 0 when absent.
  size_t field_target(size_t table, unsigned id) {
    const size_t pos = field(table, id);
    return pos == 0 ? 0 : follow(pos);
  }
  // The vector that field `id` refers to and its length; 0 and 0 when absent.
  size_t vector(size_t table, unsigned id, uint32_t* count) {
    const size_t vec = field_target(table, id);
    *count = vec == 0 ? 0 : uint(vec, 4);
    if (ok_ && vec != 0 && *count > (size_ - vec - 4) / 4) {
      *count = 0;
      return fail();
    }
    return vec;
  }
  // Element `index` of a vector of tables.
  size_t element(size_t vec, uint32_t index) {
    return follow(vec + 4 + 4 * static_cast<size_t>(index));
  }

 private:
  size_t fail() {
    ok_ = false;
    return 0;
  }

  const uint8_t* data_;
  size_t size_;
  bool ok_ = true;
};

// ExecuTorch's Method::init (1.4 and 1.5) keeps only the last operator
// resolution error that is not "missing operator": a nameless or
// out-of-range operator followed by a good one loads "fine" with a null
// kernel and crashes at execute(). Refused here, before any method loads.
Status check_kernel_calls(const uint8_t* data, size_t size) {
  // Field ids of ExecuTorch's schema/program.fbs: Program.execution_plan (1);
  // ExecutionPlan.chains (5), .operators (6); Chain.instructions (2);
  // Instruction.instr_args type (0) and value (1); KernelCall.op_index (0);
  // Operator.name (0), .overload (1).
  constexpr uint32_t kKernelCall = 1;
  constexpr uint32_t kMaxOperatorName = 100;  // ExecuTorch's name buffer
  FlatbufferView fb(data, size);
  const Status malformed = Status::Error(
      ErrorCode::kModelLoad,
      "not a loadable ExecuTorch program: its method tables are malformed");
  uint32_t plan_count = 0;
  const size_t plans = fb.vector(fb.follow(0), 1, &plan_count);
  if (!fb.ok() || plans == 0) {
    return malformed;
  }
  for (uint32_t p = 0; p < plan_count; ++p) {
    const size_t plan = fb.element(plans, p);
    uint32_t operator_count = 0;
    const size_t operators = fb.vector(plan, 6, &operator_count);
    if (!fb.ok()) {
      return malformed;
    }
    for (uint32_t o = 0; o < operator_count; ++o) {
      const size_t op = fb.element(operators, o);
      const size_t name = fb.field_target(op, 0);
      const size_t overload = fb.field_target(op, 1);
      if (!fb.ok()) {
        return malformed;
      }
      const uint32_t name_length = name == 0 ? 0 : fb.uint(name, 4);
      const uint32_t overload_length = overload == 0 ? 0 : fb.uint(overload, 4);
      if (!fb.ok() || name == 0 || name_length >= kMaxOperatorName ||
          overload_length >= kMaxOperatorName - name_length - 1) {
        return Status::Error(ErrorCode::kModelLoad,
                             "not a loadable ExecuTorch program: operator %lu "
                             "has no usable name",
                             ul(o));
      }
    }
    uint32_t chain_count = 0;
    const size_t chains = fb.vector(plan, 5, &chain_count);
    for (uint32_t c = 0; fb.ok() && c < chain_count; ++c) {
      uint32_t instruction_count = 0;
      const size_t instructions =
          fb.vector(fb.element(chains, c), 2, &instruction_count);
      for (uint32_t i = 0; fb.ok() && i < instruction_count; ++i) {
        const size_t instruction = fb.element(instructions, i);
        const size_t type_pos = fb.field(instruction, 0);
        if (type_pos == 0 || fb.uint(type_pos, 1) != kKernelCall) {
          continue;
        }
        const size_t call = fb.field_target(instruction, 1);
        const size_t index_pos = call == 0 ? 0 : fb.field(call, 0);
        // 0, the default, when absent.
        const uint32_t op_index = index_pos == 0 ? 0 : fb.uint(index_pos, 4);
        if (!fb.ok() || call == 0) {
          return malformed;
        }
        if (op_index >= operator_count) {
          return Status::Error(
              ErrorCode::kModelLoad,
              "not a loadable ExecuTorch program: kernel "
              "call %lu names operator %ld of %lu",
              ul(i),
              static_cast<long>(static_cast<int32_t>(op_index)),
              ul(operator_count));
        }
      }
    }
    if (!fb.ok()) {
      return malformed;
    }
  }
  return Status::Ok();
}

}  // namespace

Status VadModel::open(const void* pte, size_t size) {
  if (program_.has_value()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "VadModel::open() called twice");
  }
  if (pte == nullptr || size == 0) {
    return Status::Error(ErrorCode::kModelLoad, "model file is empty");
  }
  et::runtime_init();  // idempotent: ExecuTorch's logging and clock
  loader_ = MemoryDataLoader(pte, size);
  // Full verification: a corrupted file must fail here, not crash later.
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
  Status status = check_kernel_calls(static_cast<const uint8_t*>(pte), size);
  if (status.ok()) {
    status = check_signature();
  }
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
  std::optional<et::TensorInfo> input;
  std::optional<et::TensorInfo> output;
  Status status = tensor_meta(*meta, /*is_input=*/true, &input);
  if (status.ok()) {
    status = tensor_meta(*meta, /*is_input=*/false, &output);
  }
  if (!status.ok()) {
    return status;
  }
  if (output->scalar_type() != ScalarType::Float) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model output is %s: expected %s",
                         et::toString(output->scalar_type()),
                         kExpectedOutput);
  }
  if (!has_shape(output->sizes(), 1, 1)) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model output has shape %s: expected %s",
                         shape_text(output->sizes()).text,
                         kExpectedOutput);
  }
  if (input->scalar_type() == ScalarType::Short) {
    audio_input_ = AudioInput::kInt16;
  } else if (input->scalar_type() == ScalarType::Float) {
    audio_input_ = AudioInput::kFloat;
  } else {
    return Status::Error(ErrorCode::kModelSignature,
                         "model input is %s: expected int16 PCM samples (or "
                         "float32 audio, run.sh --input float)",
                         et::toString(input->scalar_type()));
  }
  status = read_geometry();  // it decides the input shape
  if (!status.ok()) {
    return status;
  }
  const int32_t frame = static_cast<int32_t>(geometry_.frame_samples());
  if (!has_shape(input->sizes(), 1, frame)) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model input has shape %s: expected (1, %ld), "
                         "context_samples %lu + hop_samples %lu of the "
                         "program's metadata",
                         shape_text(input->sizes()).text,
                         static_cast<long>(frame),
                         ul(geometry_.context_samples),
                         ul(geometry_.hop_samples));
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

// Runs one constant method of the program in metadata_pool_.
Result<int64_t> VadModel::read_metadata(const char* name) {
  et::Result<et::MethodMeta> meta = program_->method_meta(name);
  if (!meta.ok()) {
    return Status::Error(ErrorCode::kModelSignature,
                         "program has no '%s' method: it was exported without "
                         "the frame geometry (sample_rate, hop_samples, "
                         "context_samples); re-export it with "
                         "examples/arm/silero_vad/run.sh",
                         name);
  }
  et::Result<et::Tag> tag = meta->output_tag(0);
  if (meta->num_inputs() != 0 || meta->num_outputs() != 1 || !tag.ok() ||
      *tag != et::Tag::Int) {
    return Status::Error(ErrorCode::kModelSignature,
                         "program metadata method '%s' does not return one "
                         "integer (%lu inputs, %lu outputs); re-export the "
                         "program with examples/arm/silero_vad/run.sh",
                         name,
                         ul(meta->num_inputs()),
                         ul(meta->num_outputs()));
  }
  et::MemoryAllocator allocator(static_cast<uint32_t>(sizeof(metadata_pool_)),
                                metadata_pool_);
  et::HierarchicalAllocator no_planned_memory({});
  et::MemoryManager memory(&allocator, &no_planned_memory);
  et::Result<et::Method> method = program_->load_method(name, &memory);
  if (!method.ok()) {
    return Status::Error(ErrorCode::kModelLoad,
                         "loading metadata method '%s' failed: %s (error "
                         "0x%x)",
                         name,
                         et::to_string(method.error()),
                         error_value(method.error()));
  }
  const et::Error error = method->execute();
  if (error != et::Error::Ok || method->outputs_size() != 1 ||
      !method->get_output(0).isInt()) {
    return Status::Error(ErrorCode::kModelLoad,
                         "running metadata method '%s' failed: %s (error "
                         "0x%x)",
                         name,
                         et::to_string(error),
                         error_value(error));
  }
  return method->get_output(0).toInt();
}

Status VadModel::read_geometry() {
  // In model_export/frame_geometry.py's order.
  const char* const names[3] = {
      "sample_rate", "hop_samples", "context_samples"};
  uint32_t values[3] = {0, 0, 0};
  for (size_t i = 0; i < 3; ++i) {
    Result<int64_t> value = read_metadata(names[i]);
    if (!value.ok()) {
      return value.status();
    }
    if (*value < 0 || *value > INT32_MAX) {
      return Status::Error(ErrorCode::kModelSignature,
                           "program metadata %s is %ld: not a sample count",
                           names[i],
                           static_cast<long>(*value));
    }
    values[i] = static_cast<uint32_t>(*value);
  }
  const FrameGeometry geometry{values[0], values[1], values[2]};
  const Status status = check_frame_geometry(geometry);
  if (!status.ok()) {
    return Status::Error(
        ErrorCode::kModelSignature, "program metadata: %s", status.message());
  }
  geometry_ = geometry;
  return Status::Ok();
}

size_t VadModel::planned_memory_bytes() const {
  size_t total = kPlannedAlignment;  // room to align the pool's start
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
  if (method_pool.data() == nullptr || method_pool.size() == 0 ||
      method_pool.size() > UINT32_MAX || temp_pool.size() > UINT32_MAX) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "method pool must be non-empty and below 4 GiB");
  }
  const size_t needed = planned_memory_bytes();
  if (planned_pool.data() == nullptr ? needed > kPlannedAlignment
                                     : planned_pool.size() < needed) {
    return Status::Error(
        ErrorCode::kCapacity,
        "planned memory pool has %lu bytes, the model needs %lu",
        ul(planned_pool.data() == nullptr ? 0 : planned_pool.size()),
        ul(needed));
  }
  // Carve one aligned arena per planned buffer out of the pool.
  const uintptr_t base = reinterpret_cast<uintptr_t>(planned_pool.data());
  size_t offset = round_up(base, kPlannedAlignment) - base;
  for (size_t i = 0; i < num_planned_; ++i) {
    planned_spans_[i] = {planned_pool.data() + offset, planned_sizes_[i]};
    offset += round_up(planned_sizes_[i], kPlannedAlignment);
  }
  method_allocator_.emplace(static_cast<uint32_t>(method_pool.size()),
                            method_pool.data());
  planned_allocator_.emplace(et::Span<ByteSpan>(planned_spans_, num_planned_));
  et::MemoryAllocator* temp = nullptr;
  if (temp_pool.data() != nullptr && temp_pool.size() > 0) {
    temp_allocator_.emplace(static_cast<uint32_t>(temp_pool.size()),
                            temp_pool.data());
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
          ": a backend it delegates to is not in this runner (named above: "
          "Ethos-U runs on its board; XNNPACK needs a runner built with it)";
    }
    return Status::Error(ErrorCode::kModelLoad,
                         "loading method '%s' failed: %s (error 0x%x)%s",
                         kMethodName,
                         et::to_string(error),
                         error_value(error),
                         hint);
  }
  method_.emplace(std::move(method.get()));
  input_sizes_[1] =
      static_cast<executorch::aten::SizesType>(geometry_.frame_samples());
  input_impl_.emplace(audio_input_ == AudioInput::kInt16 ? ScalarType::Short
                                                         : ScalarType::Float,
                      2,
                      input_sizes_,
                      input_,
                      input_dim_order_);
  return Status::Ok();
}

Result<float> VadModel::step(const int16_t* frame) {
  if (!method_.has_value()) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "VadModel::step() before load()");
  }
  const size_t samples = geometry_.frame_samples();
  if (audio_input_ == AudioInput::kInt16) {
    std::memcpy(input_, frame, samples * sizeof(int16_t));
  } else {
    float* audio = reinterpret_cast<float*>(input_);
    for (size_t i = 0; i < samples; ++i) {
      audio[i] = static_cast<float>(frame[i]) / kPcm16FullScale;
    }
  }
  // Every frame: set_input() copies a planned input into the arena.
  et::Error error = method_->set_input(et::EValue(Tensor(&*input_impl_)), 0);
  const char* failed = "setting the model input";
  if (error == et::Error::Ok) {
    error = method_->execute();
    failed = "Method::execute()";
  }
  if (error != et::Error::Ok) {
    return Status::Error(ErrorCode::kModelExecute,
                         "%s failed: %s (error 0x%x)",
                         failed,
                         et::to_string(error),
                         error_value(error));
  }
  // The signature was checked at open(): the output is a (1, 1) float tensor.
  return method_->get_output(0).toTensor().const_data_ptr<float>()[0];
}

size_t VadModel::method_pool_used() const {
  return method_allocator_.has_value() ? method_allocator_->used_size() : 0;
}

}  // namespace silero_vad
