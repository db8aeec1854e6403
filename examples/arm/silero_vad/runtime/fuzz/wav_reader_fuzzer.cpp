/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// libFuzzer target: the WAV reader in both forms (parse_wav() on a file in
// memory, WavStreamReader on a stream) and the frame assembler behind them,
// on arbitrary bytes, under AddressSanitizer and UndefinedBehaviorSanitizer.
//
// Input: 3 parameter bytes, then the WAV bytes.
//   byte 0  the program's geometry: even 16 kHz, odd 8 kHz
//   byte 1  seed of the stream's piece sizes (1 .. byte + 1 bytes per read,
//           varying from read to read, like a pipe)
//   byte 2  samples asked for per read() of a third stream (1 .. 1021)
// (run_wav_fuzzer.sh prefixes the seed WAV files with such bytes.)
//
// Besides "no crash, no out-of-bounds read, no undefined behaviour" it checks
// what the runtime relies on, and that the two forms agree (wav_reader.h):
//  - an accepted file points inside the buffer with at least one frame;
//  - a file the file path accepts, the stream accepts with the same samples
//    and frames, whatever the piece sizes;
//  - a stream refused is a file refused, with the same code and message,
//    unless the file is refused as truncated (a file knows its size);
//  - a stream accepted whose file is refused: only as truncated;
//  - streams of the same bytes in different pieces give the same answer,
//    also when read without the frame assembler;
//  - every message is non-empty and on one line.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "frame_assembler.h"
#include "frame_geometry.h"
#include "wav_reader.h"

namespace {

using silero_vad::ErrorCode;
using silero_vad::FrameAssembler;
using silero_vad::FrameGeometry;
using silero_vad::Status;

void check(bool condition) {
  if (!condition) {
    __builtin_trap();
  }
}

void check_message(const Status& status) {
  const char* message = status.message();
  check(message[0] != '\0');
  for (const char* c = message; *c != '\0'; ++c) {
    check(*c != '\n' && *c != '\r');
  }
}

// Hands bytes over in pieces whose sizes follow a small PRNG.
class PiecewiseBytes final : public silero_vad::ByteSource {
 public:
  PiecewiseBytes(const uint8_t* data, size_t size, uint8_t seed)
      : bytes_(data, size),
        max_piece_(static_cast<size_t>(seed) + 1),
        state_(0x9E3779B9u ^ seed) {}

  size_t read(uint8_t* out, size_t max_bytes) override {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return bytes_.read(out,
                       std::min<size_t>(max_bytes, 1 + state_ % max_piece_));
  }

 private:
  silero_vad::MemoryByteSource bytes_;
  size_t max_piece_;
  uint32_t state_;
};

struct Outcome {
  bool ok = false;
  ErrorCode code = ErrorCode::kOk;
  char message[Status::kMaxMessage] = {};
  std::vector<int16_t> frames;  // every frame, concatenated
  int64_t frame_count = 0;
  int64_t samples = 0;
};

void set_status(Outcome* out, const Status& status) {
  out->ok = status.ok();
  out->code = status.code();
  std::memcpy(out->message, status.message(), sizeof(out->message));
  if (!status.ok()) {
    check_message(status);
  }
}

// Every frame the runtime would make from `source`.
void assemble(silero_vad::SampleSource& source,
              const FrameGeometry& geometry,
              Outcome* out) {
  FrameAssembler frames(source);
  check(frames.configure(geometry).ok());
  int16_t frame[silero_vad::kMaxFrameSamples];
  while (frames.next(frame)) {
    out->frames.insert(
        out->frames.end(), frame, frame + geometry.frame_samples());
  }
  out->frame_count = frames.frames();
  out->samples = frames.samples();
  check(out->frame_count ==
        (out->samples + static_cast<int64_t>(geometry.hop_samples) - 1) /
            static_cast<int64_t>(geometry.hop_samples));
  set_status(out, source.status());
}

Outcome from_file(const uint8_t* data,
                  size_t size,
                  const FrameGeometry& geometry) {
  Outcome out;
  const silero_vad::Result<silero_vad::WavAudio> audio =
      silero_vad::parse_wav(data, size, geometry);
  if (!audio.ok()) {
    set_status(&out, audio.status());
    return out;
  }
  check(audio->num_samples >= geometry.hop_samples);
  check(audio->pcm >= data);
  const size_t offset = static_cast<size_t>(audio->pcm - data);
  check(offset <= size && audio->num_samples <= (size - offset) / 2);
  silero_vad::WavSampleSource source(*audio);
  assemble(source, geometry, &out);
  check(out.ok);
  check(out.samples == static_cast<int64_t>(audio->num_samples));
  return out;
}

Outcome from_stream(const uint8_t* data,
                    size_t size,
                    const FrameGeometry& geometry,
                    uint8_t seed) {
  Outcome out;
  PiecewiseBytes bytes(data, size, seed);
  silero_vad::WavStreamReader reader(bytes);
  const Status opened = reader.open(geometry);
  if (!opened.ok()) {
    set_status(&out, opened);
    return out;
  }
  assemble(reader, geometry, &out);
  check(reader.ended());
  if (out.ok) {
    check(reader.samples_read() == static_cast<uint64_t>(out.samples));
    check(out.samples >= static_cast<int64_t>(geometry.hop_samples));
  }
  return out;
}

// The stream read sample by sample count `request` at a time, without the
// frame assembler: the samples must be those of the assembled frames.
void check_raw_reads(const uint8_t* data,
                     size_t size,
                     const FrameGeometry& geometry,
                     size_t request,
                     const Outcome& assembled) {
  PiecewiseBytes bytes(data, size, 0xFF);
  silero_vad::WavStreamReader reader(bytes);
  const Status opened = reader.open(geometry);
  if (!opened.ok()) {
    check(!assembled.ok);
    check(std::strcmp(opened.message(), assembled.message) == 0);
    return;
  }
  std::vector<int16_t> samples;
  int16_t buffer[1024];
  size_t got = 0;
  while ((got = reader.read(buffer, request)) != 0) {
    check(got <= request);
    samples.insert(samples.end(), buffer, buffer + got);
  }
  check(reader.read(buffer, request) == 0);
  check(reader.status().ok() == assembled.ok);
  if (!assembled.ok) {
    return;
  }
  // The new samples of frame i are at i * frame + context.
  const size_t hop = geometry.hop_samples;
  const size_t frame = geometry.frame_samples();
  check(samples.size() == static_cast<size_t>(assembled.samples));
  for (size_t start = 0; start < samples.size(); start += hop) {
    const size_t count =
        samples.size() - start < hop ? samples.size() - start : hop;
    const int16_t* expected = assembled.frames.data() + (start / hop) * frame +
                              geometry.context_samples;
    check(std::memcmp(samples.data() + start, expected, count * 2) == 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) {
    return 0;
  }
  const FrameGeometry geometry =
      (data[0] & 1) != 0 ? silero_vad::kGeometry8k : silero_vad::kGeometry16k;
  const uint8_t seed = data[1];
  const size_t request = 1 + data[2] * 4u;  // 1 .. 1021 samples
  // An exact-size copy, so that a read past the end is caught.
  const std::vector<uint8_t> wav(data + 3, data + size);
  const uint8_t* bytes = wav.empty() ? nullptr : wav.data();

  const Outcome file = from_file(bytes, wav.size(), geometry);
  const Outcome stream = from_stream(bytes, wav.size(), geometry, seed);
  const Outcome other = from_stream(bytes, wav.size(), geometry, seed ^ 0x5A);

  // The piece sizes change nothing.
  check(stream.ok == other.ok && stream.code == other.code);
  check(std::strcmp(stream.message, other.message) == 0);
  check(stream.frames == other.frames && stream.samples == other.samples);

  if (file.ok) {
    check(stream.ok);
    check(stream.frames == file.frames);
    check(stream.samples == file.samples);
    check(stream.frame_count == file.frame_count);
  } else if (file.code == ErrorCode::kTruncatedWav) {
    // The file knew more; the stream may accept what arrived, or stop.
  } else {
    check(!stream.ok);
    check(stream.code == file.code);
    check(std::strcmp(stream.message, file.message) == 0);
  }
  if (stream.ok && !file.ok) {
    check(file.code == ErrorCode::kTruncatedWav);
  }
  check_raw_reads(bytes, wav.size(), geometry, request, stream);
  return 0;
}
