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

// What the contract expects, for messages.
constexpr const char* kExpectedInput =
    "an int16 PCM (or float32) tensor of shape (1, context_samples + "
    "hop_samples)";
constexpr const char* kExpectedOutput = "a float32 tensor of shape (1, 1)";

Status check_is_tensor(const et::MethodMeta& meta, bool is_input) {
  const char* kind = is_input ? "input" : "output";
  et::Result<et::Tag> tag = is_input ? meta.input_tag(0) : meta.output_tag(0);
  if (!tag.ok() || *tag != et::Tag::Tensor) {
    return Status::Error(ErrorCode::kModelSignature,
                         "model %s 0 is not a tensor: expected %s",
                         kind,
                         is_input ? kExpectedInput : kExpectedOutput);
  }
  return Status::Ok();
}

// A bounds-checked view of the program's flatbuffer (schema/program.fbs of
// ExecuTorch), used for one check ExecuTorch's loader gets wrong: see
// check_kernel_calls(). Every read is checked against the bytes, so it is
// safe on any input, although Program::load() has verified them already.
class FlatbufferView {
 public:
  FlatbufferView(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool u8(size_t pos, uint8_t* out) const {
    if (pos >= size_) {
      return false;
    }
    *out = data_[pos];
    return true;
  }
  bool u16(size_t pos, uint16_t* out) const {
    if (pos > size_ || size_ - pos < 2) {
      return false;
    }
    *out = static_cast<uint16_t>(data_[pos] | (data_[pos + 1] << 8));
    return true;
  }
  bool u32(size_t pos, uint32_t* out) const {
    if (pos > size_ || size_ - pos < 4) {
      return false;
    }
    *out = static_cast<uint32_t>(data_[pos]) |
           (static_cast<uint32_t>(data_[pos + 1]) << 8) |
           (static_cast<uint32_t>(data_[pos + 2]) << 16) |
           (static_cast<uint32_t>(data_[pos + 3]) << 24);
    return true;
  }
  // The target of the unsigned offset stored at `pos`.
  bool follow(size_t pos, size_t* target) const {
    uint32_t offset = 0;
    if (!u32(pos, &offset) || offset > size_ - pos) {
      return false;
    }
    *target = pos + offset;
    return true;
  }
  // Where field `id` of the table at `table` is stored; 0 when absent.
  bool field(size_t table, unsigned id, size_t* pos) const {
    uint32_t soffset = 0;
    if (!u32(table, &soffset)) {
      return false;
    }
    // The vtable lies at table - soffset (a signed 32-bit value).
    const int64_t vtable =
        static_cast<int64_t>(table) - static_cast<int32_t>(soffset);
    if (vtable < 0 || static_cast<uint64_t>(vtable) >= size_) {
      return false;
    }
    uint16_t vtable_size = 0;
    if (!u16(static_cast<size_t>(vtable), &vtable_size)) {
      return false;
    }
    const size_t entry = 4 + 2 * static_cast<size_t>(id);
    *pos = 0;
    if (entry + 2 > vtable_size) {
      return true;  // a field added after this table was written
    }
    uint16_t offset = 0;
    if (!u16(static_cast<size_t>(vtable) + entry, &offset)) {
      return false;
    }
    if (offset != 0) {
      *pos = table + offset;
    }
    return true;
  }
  // The table, vector or string that field `id` refers to; 0 when absent.
  bool field_target(size_t table, unsigned id, size_t* target) const {
    size_t pos = 0;
    if (!field(table, id, &pos)) {
      return false;
    }
    *target = 0;
    return pos == 0 || follow(pos, target);
  }
  // A vector's length; its elements follow at vector + 4.
  bool length(size_t vector, uint32_t* count) const {
    return u32(vector, count) && *count <= (size_ - vector - 4) / 4;
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

// ExecuTorch's Method::init (1.4 and 1.5) keeps only the last operator
// resolution error of a method that is not "missing operator": a kernel call
// whose operator has no name, or an operator index out of range, followed by
// one that resolves, leaves a null kernel in a method that loads "fine" and
// crashes at execute(). Found by flipping bytes of a program
// (test_vad_model); refused here before any method is loaded.
Status check_kernel_calls(const uint8_t* data, size_t size) {
  // Program.execution_plan (1); ExecutionPlan.chains (5), .operators (6);
  // Chain.instructions (2); Instruction.instr_args type (0) and value (1);
  // KernelCall.op_index (0); Operator.name (0), .overload (1).
  constexpr uint8_t kKernelCall = 1;
  constexpr uint32_t kMaxOperatorName = 100;  // ExecuTorch's name buffer
  const FlatbufferView fb(data, size);
  const Status malformed = Status::Error(
      ErrorCode::kModelLoad,
      "not a loadable ExecuTorch program: its method tables are malformed");
  size_t root = 0;
  size_t plans = 0;
  uint32_t plan_count = 0;
  if (!fb.follow(0, &root) || !fb.field_target(root, 1, &plans) || plans == 0 ||
      !fb.length(plans, &plan_count)) {
    return malformed;
  }
  for (uint32_t p = 0; p < plan_count; ++p) {
    size_t plan = 0;
    size_t operators = 0;
    size_t chains = 0;
    uint32_t operator_count = 0;
    uint32_t chain_count = 0;
    if (!fb.follow(plans + 4 + 4 * p, &plan) ||
        !fb.field_target(plan, 6, &operators) ||
        !fb.field_target(plan, 5, &chains)) {
      return malformed;
    }
    if (operators != 0 && !fb.length(operators, &operator_count)) {
      return malformed;
    }
    for (uint32_t o = 0; o < operator_count; ++o) {
      size_t op = 0;
      size_t name = 0;
      size_t overload = 0;
      uint32_t name_length = 0;
      uint32_t overload_length = 0;
      if (!fb.follow(operators + 4 + 4 * o, &op) ||
          !fb.field_target(op, 0, &name) ||
          !fb.field_target(op, 1, &overload)) {
        return malformed;
      }
      if (name == 0 || !fb.u32(name, &name_length) ||
          (overload != 0 && !fb.u32(overload, &overload_length)) ||
          name_length >= kMaxOperatorName ||
          overload_length >= kMaxOperatorName - name_length - 1) {
        return Status::Error(ErrorCode::kModelLoad,
                             "not a loadable ExecuTorch program: operator %lu "
                             "has no usable name",
                             ul(o));
      }
    }
    if (chains != 0 && !fb.length(chains, &chain_count)) {
      return malformed;
    }
    for (uint32_t c = 0; c < chain_count; ++c) {
      size_t chain = 0;
      size_t instructions = 0;
      uint32_t instruction_count = 0;
      if (!fb.follow(chains + 4 + 4 * c, &chain) ||
          !fb.field_target(chain, 2, &instructions)) {
        return malformed;
      }
      if (instructions != 0 && !fb.length(instructions, &instruction_count)) {
        return malformed;
      }
      for (uint32_t i = 0; i < instruction_count; ++i) {
        size_t instruction = 0;
        size_t type_pos = 0;
        uint8_t type = 0;
        if (!fb.follow(instructions + 4 + 4 * i, &instruction) ||
            !fb.field(instruction, 0, &type_pos) ||
            (type_pos != 0 && !fb.u8(type_pos, &type))) {
          return malformed;
        }
        if (type != kKernelCall) {
          continue;
        }
        size_t call = 0;
        size_t index_pos = 0;
        uint32_t op_index = 0;  // the default when absent
        if (!fb.field_target(instruction, 1, &call) || call == 0 ||
            !fb.field(call, 0, &index_pos) ||
            (index_pos != 0 && !fb.u32(index_pos, &op_index))) {
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
  Status status = check_is_tensor(*meta, /*is_input=*/false);
  if (!status.ok()) {
    return status;
  }
  et::Result<et::TensorInfo> output = meta->output_tensor_meta(0);
  if (!output.ok()) {
    return Status::Error(ErrorCode::kModelSignature,
                         "cannot read the metadata of model output 0 (error "
                         "0x%x)",
                         error_value(output.error()));
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
  status = check_is_tensor(*meta, /*is_input=*/true);
  if (!status.ok()) {
    return status;
  }
  et::Result<et::TensorInfo> input = meta->input_tensor_meta(0);
  if (!input.ok()) {
    return Status::Error(ErrorCode::kModelSignature,
                         "cannot read the metadata of model input 0 (error "
                         "0x%x)",
                         error_value(input.error()));
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
  // The geometry decides the input shape.
  status = read_geometry();
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

// Runs one constant method of the program and returns its integer. The
// method is loaded into metadata_pool_ and destroyed before returning.
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
  const char* const names[3] = {
      kSampleRateMethod, kHopSamplesMethod, kContextSamplesMethod};
  int64_t values[3] = {0, 0, 0};
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
    values[i] = *value;
  }
  FrameGeometry geometry;
  geometry.sample_rate = static_cast<uint32_t>(values[0]);
  geometry.hop_samples = static_cast<size_t>(values[1]);
  geometry.context_samples = static_cast<size_t>(values[2]);
  const Status status = check_frame_geometry(geometry);
  if (!status.ok()) {
    return Status::Error(
        ErrorCode::kModelSignature, "program metadata: %s", status.message());
  }
  geometry_ = geometry;
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
    // PCM as it came: the program rescales it.
    std::memcpy(input_, frame, samples * sizeof(int16_t));
  } else {
    float* audio = reinterpret_cast<float*>(input_);
    for (size_t i = 0; i < samples; ++i) {
      audio[i] = static_cast<float>(frame[i]) / kPcm16FullScale;
    }
  }
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
