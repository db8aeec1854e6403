/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// RIFF/WAVE input, the audio source of the runtime, in two forms that share
// one header parser (read_wav_header):
//
//  - parse_wav(): a whole file in memory (read at start-up on the host, an
//    array baked into the image on bare metal). Nothing is copied: the
//    samples are read from the caller's buffer.
//  - WavStreamReader: a stream read front to back through a small fixed
//    buffer, without seeking (standard input on the host: a pipe from
//    arecord or sox, a file piped in with cat).
//
// Accepted: PCM (format tag 1, or WAVE_FORMAT_EXTENSIBLE with the PCM
// sub-format), 16-bit, mono, at the program's sample rate, the fmt chunk
// before the data chunk, at least one frame (hop_samples) of samples.
// Unknown chunks before the data chunk (LIST, fact, ...) are skipped,
// honouring the pad byte of odd-sized chunks; nothing after the data chunk
// is read. A RIFF or data size of 0 or 0xFFFFFFFF means "unknown" (what
// writers put in a header they cannot go back to fix): the samples then run
// to the end of the RIFF chunk, or of the input. Everything else is refused
// with a message that names what was found and what is needed.
//
// The two forms differ only in what they can know:
//  - a file knows its size, so a RIFF or data chunk that claims more bytes
//    than the file has is refused up front ("truncated file", kTruncatedWav);
//  - a stream takes a declared data size as an upper bound: a recorder's
//    header always declares more than it will write (arecord 0x80000000,
//    sox 0x7FFFF000), so the stream ending first is the normal end of the
//    audio, and a stream shorter than one frame is refused at its end.
// Otherwise they accept the same inputs with the same samples and refuse
// the same inputs with the same messages (checked by the fuzzer).
//
// Safe on arbitrary bytes: every read is bounds-checked against the buffer,
// the declared sizes and the fixed buffers, and sizes are compared by
// subtraction so no addition can overflow, also with a 32-bit size_t.

#pragma once

#include <cstddef>
#include <cstdint>

#include "frame_geometry.h"
#include "sample_source.h"
#include "status.h"

namespace silero_vad {

// Bytes read front to back.
class ByteSource {
 public:
  // Copies up to `max_bytes` of the next bytes to `out` and returns how many
  // were copied. Returns 0 only at the end of the input; short reads are
  // allowed anywhere.
  virtual size_t read(uint8_t* out, size_t max_bytes) = 0;

  // Why the input ended once read() has returned 0: OK for the normal end,
  // an error for a failed read (an I/O error on the host).
  virtual Status status() const {
    return Status::Ok();
  }

 protected:
  ~ByteSource() = default;
};

// A ByteSource over bytes in memory.
class MemoryByteSource final : public ByteSource {
 public:
  MemoryByteSource(const uint8_t* data, size_t size)
      : data_(data), size_(data == nullptr ? 0 : size) {}

  size_t read(uint8_t* out, size_t max_bytes) override;

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

// What a valid header says, with the input positioned at the first sample.
struct WavHeader {
  uint32_t sample_rate = 0;
  // Offset of the first sample from the start of the input.
  uint64_t data_offset = 0;
  // The data chunk's declared size in bytes (even), unless unknown.
  bool data_size_known = false;
  uint32_t data_bytes = 0;
  // Where the RIFF chunk ends, from the start of the input, unless unknown.
  bool riff_size_known = false;
  uint64_t riff_end = 0;
};

// Input size for read_wav_header() when it is not known (a stream).
constexpr uint64_t kUnknownInputSize = UINT64_MAX;

// The shared header parser: reads `source` from its first byte up to the
// first sample of the data chunk, validating every chunk on the way and the
// format against `geometry` (its sample rate). `input_size` is the total size
// of the input when known (a file): it adds the file's truncation checks.
Result<WavHeader> read_wav_header(ByteSource& source,
                                  const FrameGeometry& geometry,
                                  uint64_t input_size = kUnknownInputSize);

// The little-endian int16 sample at `bytes` (two's complement, without
// branches or implementation-defined conversions).
inline int16_t decode_pcm16(const uint8_t* bytes) {
  const int32_t lo = bytes[0];
  const int32_t hi = bytes[1];
  return static_cast<int16_t>((lo | (hi << 8)) - ((hi & 0x80) << 9));
}

// A validated view of the samples of a WAV file in memory.
struct WavAudio {
  // Little-endian int16 samples inside the caller's buffer. Not necessarily
  // 2-byte aligned, so samples are read bytewise.
  const uint8_t* pcm = nullptr;
  size_t num_samples = 0;

  // The sample at `index` (< num_samples).
  int16_t sample(size_t index) const {
    return decode_pcm16(pcm + 2 * index);
  }
};

// Parses and validates the `size` bytes of a WAV file at `data` for a
// program of `geometry`.
Result<WavAudio> parse_wav(const uint8_t* data,
                           size_t size,
                           const FrameGeometry& geometry);

// Streams the samples of a parsed WAV file.
class WavSampleSource final : public SampleSource {
 public:
  explicit WavSampleSource(const WavAudio& audio) : audio_(audio) {}

  size_t read(int16_t* out, size_t max_samples) override;

 private:
  WavAudio audio_;
  size_t position_ = 0;
};

// Streams the samples of a WAV stream: open() reads and checks the header,
// read() then decodes samples through a small fixed buffer, as they arrive.
class WavStreamReader final : public SampleSource {
 public:
  // Bytes read from the source per call at most.
  static constexpr size_t kBufferBytes = 1024;

  explicit WavStreamReader(ByteSource& bytes) : bytes_(bytes) {}

  // Reads the header up to the first sample (read_wav_header). Once.
  Status open(const FrameGeometry& geometry);

  size_t read(int16_t* out, size_t max_samples) override;

  // After the end: OK, or why the stream is refused (fewer samples than one
  // frame, an empty data chunk, a failed read of the input).
  Status status() const override {
    return end_status_;
  }

  const WavHeader& header() const {
    return header_;
  }
  uint64_t samples_read() const {
    return samples_read_;
  }
  // True once the input has ended (or the declared data size was read).
  bool ended() const {
    return ended_;
  }

 private:
  void end();

  ByteSource& bytes_;
  FrameGeometry geometry_;
  WavHeader header_;
  bool open_ = false;
  bool ended_ = false;
  Status end_status_;
  // Data bytes still to read when the data size is known.
  uint64_t data_remaining_ = 0;
  uint64_t samples_read_ = 0;
  // buffer_[0] holds the first byte of a sample split across two reads.
  uint8_t buffer_[kBufferBytes] = {};
  size_t carried_ = 0;
};

}  // namespace silero_vad
