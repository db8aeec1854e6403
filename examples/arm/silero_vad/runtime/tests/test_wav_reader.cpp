/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// The WAV reader in both forms: parse_wav() on a file in memory and
// WavStreamReader on a stream handed over in pieces. Most cases run through
// both and require the same answer: the same samples, or the same error
// code and message.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"
#include "wav_reader.h"

namespace silero_vad {
namespace {

using testing::ChunkedByteSource;
using testing::WavBuilder;

std::vector<int16_t> ramp(size_t count) {
  std::vector<int16_t> samples(count);
  for (size_t i = 0; i < count; ++i) {
    samples[i] = static_cast<int16_t>(static_cast<int32_t>(i * 37) - 16000);
  }
  return samples;
}

std::vector<uint8_t> fmt16k() {
  return WavBuilder::fmt(1, 1, 16000, 16);
}

std::vector<uint8_t> good_wav(size_t samples = 1000) {
  return WavBuilder()
      .chunk("fmt ", fmt16k())
      .chunk("data", WavBuilder::pcm16(ramp(samples)))
      .build();
}

// What one path made of some bytes.
struct Outcome {
  bool ok = false;
  ErrorCode code = ErrorCode::kOk;
  std::string message;
  std::vector<int16_t> samples;
};

Outcome from_file(const std::vector<uint8_t>& bytes,
                  const FrameGeometry& geometry = kGeometry16k) {
  Outcome out;
  // An exact-size copy, so a read past the end is a sanitizer error.
  const std::vector<uint8_t> copy(bytes);
  const Result<WavAudio> audio = parse_wav(copy.data(), copy.size(), geometry);
  out.ok = audio.ok();
  out.code = audio.status().code();
  out.message = audio.status().message();
  if (audio.ok()) {
    EXPECT_GE(audio->pcm, copy.data());
    EXPECT_LE(audio->pcm + 2 * audio->num_samples, copy.data() + copy.size());
    for (size_t i = 0; i < audio->num_samples; ++i) {
      out.samples.push_back(audio->sample(i));
    }
  }
  return out;
}

// Reads the stream to its end in reads of `request` samples, the bytes
// arriving in pieces of at most `chunk`.
Outcome from_stream(const std::vector<uint8_t>& bytes,
                    size_t chunk,
                    const FrameGeometry& geometry = kGeometry16k,
                    size_t request = 333) {
  Outcome out;
  ChunkedByteSource source(bytes, chunk);
  WavStreamReader reader(source);
  Status status = reader.open(geometry);
  if (status.ok()) {
    std::vector<int16_t> buffer(request);
    size_t got = 0;
    while ((got = reader.read(buffer.data(), request)) != 0) {
      EXPECT_LE(got, request);
      out.samples.insert(
          out.samples.end(), buffer.begin(), buffer.begin() + got);
    }
    EXPECT_TRUE(reader.ended());
    EXPECT_EQ(reader.samples_read(), out.samples.size());
    status = reader.status();
  }
  out.ok = status.ok();
  out.code = status.code();
  out.message = status.message();
  return out;
}

// The file and the stream (whole, and one byte at a time) accept `bytes`
// with the same samples; returns them.
std::vector<int16_t> expect_accepted(
    const std::vector<uint8_t>& bytes,
    const FrameGeometry& geometry = kGeometry16k) {
  const Outcome file = from_file(bytes, geometry);
  EXPECT_TRUE(file.ok) << file.message;
  for (size_t chunk : {size_t{1} << 30, size_t{1}, size_t{7}}) {
    const Outcome stream = from_stream(bytes, chunk, geometry);
    EXPECT_TRUE(stream.ok) << "chunk " << chunk << ": " << stream.message;
    EXPECT_EQ(stream.samples, file.samples) << "chunk " << chunk;
  }
  return file.samples;
}

// Both paths refuse `bytes` with `code` and the same message, containing
// `text`.
void expect_refused(const std::vector<uint8_t>& bytes,
                    ErrorCode code,
                    const char* text,
                    const FrameGeometry& geometry = kGeometry16k) {
  const Outcome file = from_file(bytes, geometry);
  ASSERT_FALSE(file.ok) << "file accepted, expected: " << text;
  EXPECT_EQ(file.code, code) << file.message;
  EXPECT_NE(file.message.find(text), std::string::npos)
      << "message: " << file.message << "\nexpected: " << text;
  for (size_t chunk : {size_t{1} << 30, size_t{1}}) {
    const Outcome stream = from_stream(bytes, chunk, geometry);
    EXPECT_FALSE(stream.ok) << "stream accepted, expected: " << text;
    EXPECT_EQ(stream.code, file.code) << stream.message;
    EXPECT_EQ(stream.message, file.message) << "chunk " << chunk;
  }
}

TEST(WavReader, AcceptsPlainPcm16MonoAtTheProgramsRate) {
  const std::vector<int16_t> samples = expect_accepted(good_wav(1000));
  EXPECT_EQ(samples, ramp(1000));
  const std::vector<uint8_t> eight =
      WavBuilder()
          .chunk("fmt ", WavBuilder::fmt(1, 1, 8000, 16))
          .chunk("data", WavBuilder::pcm16(ramp(300)))
          .build();
  EXPECT_EQ(expect_accepted(eight, kGeometry8k), ramp(300));
}

TEST(WavReader, DecodesFullScaleSigned) {
  std::vector<int16_t> samples(512, 0);
  samples[0] = -32768;
  samples[1] = 32767;
  samples[2] = -1;
  const std::vector<uint8_t> bytes =
      WavBuilder()
          .chunk("fmt ", fmt16k())
          .chunk("data", WavBuilder::pcm16(samples))
          .build();
  EXPECT_EQ(expect_accepted(bytes), samples);
}

TEST(WavReader, SkipsUnknownChunksAndPadBytes) {
  const std::vector<uint8_t> odd = {'o', 'd', 'd'};
  const std::vector<uint8_t> bytes =
      WavBuilder()
          .chunk("LIST", {'I', 'N', 'F', 'O'})
          .chunk("junk", odd)
          .chunk("fmt ", fmt16k())
          .chunk("odd1", {7})
          .chunk("data", WavBuilder::pcm16(ramp(600)))
          .chunk("tail", odd)
          .build();
  EXPECT_EQ(expect_accepted(bytes), ramp(600));
}

TEST(WavReader, AcceptsAFmtChunkLongerThanNeeded) {
  std::vector<uint8_t> fmt18 = fmt16k();
  fmt18.insert(fmt18.end(), {0, 0});
  std::vector<uint8_t> fmt17 = fmt16k();
  fmt17.push_back(0);  // odd: followed by a pad byte
  for (const auto& fmt : {fmt18, fmt17}) {
    const std::vector<uint8_t> bytes =
        WavBuilder()
            .chunk("fmt ", fmt)
            .chunk("data", WavBuilder::pcm16(ramp(512)))
            .build();
    EXPECT_EQ(expect_accepted(bytes), ramp(512));
  }
}

// The audio ends with the data chunk: nothing after it is read, so trailing
// chunks (a second data chunk, an odd chunk without its pad byte, a broken
// chunk header) and bytes after the RIFF chunk do not matter.
TEST(WavReader, ReadsNothingAfterTheDataChunk) {
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(512));
  std::vector<uint8_t> stray = WavBuilder()
                                   .chunk("fmt ", fmt16k())
                                   .chunk("data", pcm)
                                   .chunk("data", pcm)
                                   .chunk("note", {'x'}, -1, /*pad=*/false)
                                   .build();
  stray.insert(stray.end(), {'L', 'I'});
  const std::vector<uint8_t> size =
      WavBuilder::u32(static_cast<uint32_t>(stray.size() - 8));
  std::copy(size.begin(), size.end(), stray.begin() + 4);
  stray.insert(stray.end(), {'j', 'u', 'n', 'k'});  // after the RIFF chunk
  EXPECT_EQ(expect_accepted(stray), ramp(512));
}

std::vector<uint8_t> extensible_fmt(uint16_t subformat,
                                    uint16_t bits,
                                    uint16_t valid_bits) {
  std::vector<uint8_t> body = WavBuilder::fmt(0xFFFE, 1, 16000, bits);
  WavBuilder::append(body, WavBuilder::u16(22));
  WavBuilder::append(body, WavBuilder::u16(valid_bits));
  WavBuilder::append(body, WavBuilder::u32(4));
  WavBuilder::append(body, WavBuilder::u16(subformat));
  // clang-format off
  WavBuilder::append(body, {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00,
                            0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71});
  // clang-format on
  return body;
}

TEST(WavReader, AcceptsExtensiblePcm) {
  const std::vector<uint8_t> bytes =
      WavBuilder()
          .chunk("fmt ", extensible_fmt(1, 16, 16))
          .chunk("data", WavBuilder::pcm16(ramp(512)))
          .build();
  EXPECT_EQ(expect_accepted(bytes), ramp(512));
}

TEST(WavReader, RefusesExtensibleFloatAndOddValidBits) {
  expect_refused(WavBuilder()
                     .chunk("fmt ", extensible_fmt(3, 32, 32))
                     .chunk("data", std::vector<uint8_t>(4096))
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "32-bit IEEE float samples are not supported");
  expect_refused(WavBuilder()
                     .chunk("fmt ", extensible_fmt(1, 16, 12))
                     .chunk("data", WavBuilder::pcm16(ramp(512)))
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "12 valid bits");
  std::vector<uint8_t> guid = extensible_fmt(1, 16, 16);
  guid.back() = 0;
  expect_refused(WavBuilder()
                     .chunk("fmt ", guid)
                     .chunk("data", WavBuilder::pcm16(ramp(512)))
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "unknown sub-format GUID");
  std::vector<uint8_t> short_ext = extensible_fmt(1, 16, 16);
  short_ext.resize(30);
  expect_refused(WavBuilder()
                     .chunk("fmt ", short_ext)
                     .chunk("data", WavBuilder::pcm16(ramp(512)))
                     .build(),
                 ErrorCode::kInvalidWav,
                 "WAVE_FORMAT_EXTENSIBLE fmt chunk is 30 bytes");
}

TEST(WavReader, RefusesWrongFormats) {
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(1024));
  expect_refused(WavBuilder()
                     .chunk("fmt ", WavBuilder::fmt(1, 1, 44100, 16))
                     .chunk("data", pcm)
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "sample rate 44100 Hz found: the program takes 16000 Hz "
                 "(resample first)");
  expect_refused(WavBuilder()
                     .chunk("fmt ", WavBuilder::fmt(1, 2, 16000, 16))
                     .chunk("data", pcm)
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "2 channels (stereo) found: need mono");
  expect_refused(WavBuilder()
                     .chunk("fmt ", WavBuilder::fmt(1, 4, 16000, 16))
                     .chunk("data", pcm)
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "4 channels (multi-channel) found: need mono");
  for (uint16_t bits : {8, 24, 32}) {
    const std::string text =
        std::to_string(bits) + "-bit samples found: need 16-bit PCM";
    expect_refused(WavBuilder()
                       .chunk("fmt ", WavBuilder::fmt(1, 1, 16000, bits))
                       .chunk("data", std::vector<uint8_t>(bits * 128))
                       .build(),
                   ErrorCode::kUnsupportedWav,
                   text.c_str());
  }
  expect_refused(WavBuilder()
                     .chunk("fmt ", WavBuilder::fmt(3, 1, 16000, 32))
                     .chunk("data", std::vector<uint8_t>(4096))
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "32-bit IEEE float samples are not supported");
  expect_refused(WavBuilder()
                     .chunk("fmt ", WavBuilder::fmt(7, 1, 16000, 8))
                     .chunk("data", std::vector<uint8_t>(1024))
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "format tag 0x0007 (mu-law) is not supported");
}

// The rate must be the program's; between Silero's two rates the message
// points at the other model.
TEST(WavReader, NamesBothRatesWhenTheyDiffer) {
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(1024));
  const std::vector<uint8_t> at8k =
      WavBuilder()
          .chunk("fmt ", WavBuilder::fmt(1, 1, 8000, 16))
          .chunk("data", pcm)
          .build();
  expect_refused(at8k,
                 ErrorCode::kUnsupportedWav,
                 "sample rate 8000 Hz found: the program takes 16000 Hz "
                 "(resample first, or use the model exported with run.sh "
                 "--sample-rate 8000)");
  expect_refused(good_wav(),
                 ErrorCode::kUnsupportedWav,
                 "sample rate 16000 Hz found: the program takes 8000 Hz "
                 "(resample first, or use the model exported with run.sh "
                 "--sample-rate 16000)",
                 kGeometry8k);
}

TEST(WavReader, RefusesBrokenStructure) {
  const std::vector<uint8_t> fmt = fmt16k();
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(1024));
  expect_refused({},
                 ErrorCode::kInvalidWav,
                 "too short for a RIFF/WAVE header: 0 bytes, need at least 12");
  expect_refused({'R', 'I', 'F', 'F', 1, 0, 0, 0},
                 ErrorCode::kInvalidWav,
                 "too short for a RIFF/WAVE header: 8 bytes");
  std::vector<uint8_t> text(64, 'x');
  text[0] = 0x01;  // A control character must not reach the message.
  expect_refused(
      text, ErrorCode::kInvalidWav, "not a RIFF/WAVE file: starts with '?xxx'");
  std::vector<uint8_t> rifx = good_wav();
  std::memcpy(rifx.data(), "RIFX", 4);
  expect_refused(rifx, ErrorCode::kUnsupportedWav, "big-endian RIFX");
  std::vector<uint8_t> rf64 = good_wav();
  std::memcpy(rf64.data(), "RF64", 4);
  expect_refused(rf64, ErrorCode::kUnsupportedWav, "RF64");
  std::vector<uint8_t> avi = good_wav();
  std::memcpy(avi.data() + 8, "AVI ", 4);
  expect_refused(avi, ErrorCode::kInvalidWav, "type 'AVI ', expected 'WAVE'");

  expect_refused(WavBuilder().chunk("data", pcm).chunk("fmt ", fmt).build(),
                 ErrorCode::kInvalidWav,
                 "data chunk before the fmt chunk: the fmt chunk must come "
                 "first");
  expect_refused(WavBuilder().chunk("LIST", {'I', 'N', 'F', 'O'}).build(),
                 ErrorCode::kInvalidWav,
                 "missing fmt chunk");
  expect_refused(WavBuilder().chunk("fmt ", fmt).build(),
                 ErrorCode::kInvalidWav,
                 "missing data chunk");
  std::vector<uint8_t> odd = pcm;
  odd.push_back(1);
  expect_refused(WavBuilder().chunk("fmt ", fmt).chunk("data", odd).build(),
                 ErrorCode::kInvalidWav,
                 "data size 2049 bytes is not a multiple of the block align");
  expect_refused(WavBuilder()
                     .chunk("fmt ", fmt)
                     .chunk("data", WavBuilder::pcm16(ramp(511)))
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 "clip has 511 samples, shorter than one frame (512 samples "
                 "= 32 ms at 16000 Hz)");
  expect_refused(
      WavBuilder()
          .chunk("fmt ", WavBuilder::fmt(1, 1, 8000, 16))
          .chunk("data", WavBuilder::pcm16(ramp(255)))
          .build(),
      ErrorCode::kUnsupportedWav,
      "clip has 255 samples, shorter than one frame (256 samples = 32 ms at "
      "8000 Hz)",
      kGeometry8k);
  std::vector<uint8_t> short_fmt = fmt;
  short_fmt.resize(14);
  expect_refused(
      WavBuilder().chunk("fmt ", short_fmt).chunk("data", pcm).build(),
      ErrorCode::kInvalidWav,
      "fmt chunk is 14 bytes, need at least 16");
  expect_refused(WavBuilder()
                     .chunk("fmt ", fmt)
                     .chunk("fmt ", fmt)
                     .chunk("data", pcm)
                     .build(),
                 ErrorCode::kInvalidWav,
                 "more than one fmt chunk");
  std::vector<uint8_t> zero_channels = fmt;
  zero_channels[2] = 0;
  expect_refused(
      WavBuilder().chunk("fmt ", zero_channels).chunk("data", pcm).build(),
      ErrorCode::kInvalidWav,
      "0 channels");
  std::vector<uint8_t> bad_align = fmt;
  bad_align[12] = 4;
  expect_refused(
      WavBuilder().chunk("fmt ", bad_align).chunk("data", pcm).build(),
      ErrorCode::kInvalidWav,
      "block align 4 does not match");
  expect_refused(
      WavBuilder().build(2), ErrorCode::kInvalidWav, "cannot even hold");
}

// Chunks that claim more than the RIFF chunk holds: the same refusal for
// the file and the stream, both knowing the RIFF size.
TEST(WavReader, RefusesChunksBeyondTheRiffChunk) {
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(1024));
  expect_refused(
      WavBuilder()
          .chunk("fmt ", fmt16k())
          .chunk("data", pcm, 2048 + 10)
          .build(),
      ErrorCode::kInvalidWav,
      "data chunk declares 2058 bytes but only 2048 remain in the RIFF chunk");
  expect_refused(WavBuilder()
                     .chunk("LIST", {'I', 'N', 'F', 'O'}, 0xFFFFFFF8)
                     .chunk("fmt ", fmt16k())
                     .chunk("data", pcm)
                     .build(),
                 ErrorCode::kInvalidWav,
                 "'LIST' chunk at byte 12 declares 4294967288 bytes");
  std::vector<uint8_t> stray =
      WavBuilder().chunk("fmt ", fmt16k()).chunk("LIST", {}).build();
  stray.insert(stray.end(), {'d', 'a'});
  const std::vector<uint8_t> size =
      WavBuilder::u32(static_cast<uint32_t>(stray.size() - 8));
  std::copy(size.begin(), size.end(), stray.begin() + 4);
  expect_refused(
      stray, ErrorCode::kInvalidWav, "truncated chunk header at byte 44");
}

// A file knows its size: declared sizes beyond it are refused up front. A
// stream cannot know: it reads what arrives, as a live recording ends.
TEST(WavReader, TruncatedFileIsRefusedTheStreamEndsEarly) {
  std::vector<uint8_t> cut = good_wav(1000);
  cut.resize(cut.size() - 3);  // 998 whole samples and a half
  const Outcome file = from_file(cut);
  EXPECT_EQ(file.code, ErrorCode::kTruncatedWav);
  EXPECT_EQ(file.message,
            "truncated file: the RIFF header declares 2036 bytes but only "
            "2033 follow it");
  for (size_t chunk : {size_t{1}, size_t{1} << 30}) {
    const Outcome stream = from_stream(cut, chunk);
    ASSERT_TRUE(stream.ok) << stream.message;
    const std::vector<int16_t> expected = ramp(998);
    EXPECT_EQ(stream.samples, expected);
  }
  // Unknown RIFF size, data size beyond the file.
  std::vector<uint8_t> riff_unknown = good_wav(1000);
  const std::vector<uint8_t> unknown = WavBuilder::u32(0xFFFFFFFF);
  std::copy(unknown.begin(), unknown.end(), riff_unknown.begin() + 4);
  riff_unknown.resize(riff_unknown.size() - 100);
  const Outcome file2 = from_file(riff_unknown);
  EXPECT_EQ(file2.code, ErrorCode::kTruncatedWav);
  EXPECT_EQ(file2.message,
            "truncated file: the data chunk declares 2000 bytes but only 1900 "
            "follow it");
  EXPECT_EQ(from_stream(riff_unknown, 5).samples, ramp(950));
}

std::vector<uint8_t> with_sizes(uint32_t riff_size, uint32_t data_size) {
  std::vector<uint8_t> bytes = good_wav(700);
  const std::vector<uint8_t> riff = WavBuilder::u32(riff_size);
  const std::vector<uint8_t> data = WavBuilder::u32(data_size);
  std::copy(riff.begin(), riff.end(), bytes.begin() + 4);
  std::copy(data.begin(), data.end(), bytes.begin() + 40);
  return bytes;
}

// What writers that cannot seek put in the header: 0 or 0xFFFFFFFF means
// "unknown", the samples run to the end (of the RIFF chunk, or the input).
TEST(WavReader, UnknownSizesRunToTheEnd) {
  for (uint32_t riff : {0u, 0xFFFFFFFFu}) {
    for (uint32_t data : {0u, 0xFFFFFFFFu}) {
      EXPECT_EQ(expect_accepted(with_sizes(riff, data)), ramp(700))
          << riff << " " << data;
    }
  }
  // Known RIFF size, unknown data size: to the end of the RIFF chunk.
  std::vector<uint8_t> bytes = with_sizes(36 + 1400, 0xFFFFFFFF);
  bytes.insert(bytes.end(), {9, 9, 9, 9});  // after the RIFF chunk
  EXPECT_EQ(expect_accepted(bytes), ramp(700));
  // An odd byte at the end (a recorder stopped mid-sample) is dropped.
  std::vector<uint8_t> dangling = with_sizes(0, 0);
  dangling.push_back(0x55);
  EXPECT_EQ(expect_accepted(dangling), ramp(700));
  // No samples at all.
  std::vector<uint8_t> empty = with_sizes(0, 0);
  empty.resize(44);
  expect_refused(
      empty, ErrorCode::kInvalidWav, "data chunk is empty (0 samples)");
}

// The headers of arecord and sox writing to a pipe: sizes larger than the
// audio that follows. The stream takes them as upper bounds; a file with
// such a header is truncated.
TEST(WavReader, RecorderHeadersStream) {
  const uint32_t recorders[][2] = {{0x80000024u, 0x80000000u},   // arecord
                                   {0x7FFFF024u, 0x7FFFF000u}};  // sox
  for (const auto& sizes : recorders) {
    const std::vector<uint8_t> bytes = with_sizes(sizes[0], sizes[1]);
    for (size_t chunk : {size_t{1}, size_t{100}, size_t{1} << 30}) {
      const Outcome stream = from_stream(bytes, chunk);
      ASSERT_TRUE(stream.ok) << stream.message;
      EXPECT_EQ(stream.samples, ramp(700));
    }
    EXPECT_EQ(from_file(bytes).code, ErrorCode::kTruncatedWav);
  }
}

// The stream's own ways to end badly: inside the header, before one frame,
// or with a failed read.
TEST(WavStreamReader, ReportsWhereTheInputEnded) {
  const std::vector<uint8_t> bytes = good_wav(1000);
  // With the RIFF size unknown, a cut header is an end of input (a file
  // with a known RIFF size is refused up front instead).
  std::vector<uint8_t> unknown = with_sizes(0xFFFFFFFF, 1400);
  struct Cut {
    size_t length;
    const char* message;
  };
  const Cut cuts[] = {
      {16, "input ends inside the chunk header at byte 12 (4 of 8 bytes)"},
      {30, "input ends inside the 'fmt ' chunk at byte 12: 10 of its 16 bytes"},
  };
  for (const Cut& cut : cuts) {
    const std::vector<uint8_t> prefix(unknown.begin(),
                                      unknown.begin() + cut.length);
    const Outcome stream = from_stream(prefix, 3);
    EXPECT_EQ(stream.code, ErrorCode::kTruncatedWav) << cut.length;
    EXPECT_EQ(stream.message, cut.message);
    EXPECT_EQ(from_file(prefix).message, cut.message);  // same parser
  }
  // A known RIFF size the stream does not reach before the data chunk.
  const std::vector<uint8_t> header_only(bytes.begin(), bytes.begin() + 36);
  const Outcome cut_riff = from_stream(header_only, 4);
  EXPECT_EQ(cut_riff.code, ErrorCode::kTruncatedWav);
  EXPECT_EQ(cut_riff.message,
            "input ends at byte 36, inside the RIFF chunk that ends at byte "
            "2044");
  // Fewer samples than one frame arrive.
  std::vector<uint8_t> short_stream = with_sizes(0, 0);
  short_stream.resize(44 + 2 * 300);
  const Outcome too_short = from_stream(short_stream, 64);
  EXPECT_EQ(too_short.code, ErrorCode::kUnsupportedWav);
  EXPECT_EQ(too_short.message,
            "clip has 300 samples, shorter than one frame (512 samples = 32 "
            "ms at 16000 Hz)");
  // A failed read, in the header and in the samples.
  for (size_t at : {size_t{20}, size_t{900}}) {
    ChunkedByteSource source(bytes, 50);
    source.fail_at = at;
    WavStreamReader reader(source);
    Status status = reader.open(kGeometry16k);
    if (status.ok()) {
      int16_t buffer[512];
      while (reader.read(buffer, 512) != 0) {
      }
      status = reader.status();
    }
    EXPECT_EQ(status.code(), ErrorCode::kIo) << at;
    EXPECT_STREQ(status.message(), "reading test input failed");
  }
}

// Samples are handed over as they arrive, and nothing past the declared
// data is read.
TEST(WavStreamReader, HandsOverWhatHasArrived) {
  std::vector<uint8_t> bytes = good_wav(1000);
  bytes.insert(bytes.end(), 64, 0xEE);  // trailing bytes: not read
  // Odd pieces: samples split across reads.
  ChunkedByteSource source(bytes, 101);
  WavStreamReader reader(source);
  ASSERT_TRUE(reader.open(kGeometry16k).ok());
  std::vector<int16_t> samples;
  int16_t buffer[512];
  size_t got = 0;
  size_t reads = 0;
  while ((got = reader.read(buffer, 512)) != 0) {
    EXPECT_LE(got, 51u);  // at most the samples of one piece
    samples.insert(samples.end(), buffer, buffer + got);
    ++reads;
  }
  EXPECT_EQ(samples, ramp(1000));
  EXPECT_GE(reads, 19u);
  EXPECT_TRUE(reader.status().ok());
  EXPECT_EQ(source.position(), 44u + 2000u);
  EXPECT_EQ(reader.read(buffer, 512), 0u);
  EXPECT_EQ(reader.open(kGeometry16k).code(), ErrorCode::kInvalidArgument);
}

// Every prefix of a valid file and random corruptions of its header: the
// file refuses every prefix; the stream agrees with the file wherever the
// file does not know more (see wav_reader.h). The fuzzer covers far more;
// this runs everywhere.
TEST(WavReader, SurvivesPrefixesAndCorruptions) {
  const std::vector<uint8_t> good = good_wav(600);
  for (size_t length = 0; length < good.size(); ++length) {
    const std::vector<uint8_t> prefix(good.begin(), good.begin() + length);
    const Outcome file = from_file(prefix);
    EXPECT_FALSE(file.ok) << length;
    EXPECT_FALSE(file.message.empty());
    const Outcome stream = from_stream(prefix, 1 + length % 5);
    if (!stream.ok && file.code != ErrorCode::kTruncatedWav) {
      EXPECT_EQ(stream.message, file.message) << length;
    }
  }
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> bytes = good;
    const size_t at = rng() % 64;
    bytes[at] = static_cast<uint8_t>(rng());
    const Outcome file = from_file(bytes);
    const Outcome stream = from_stream(bytes, 1 + rng() % 64);
    if (file.ok) {
      ASSERT_TRUE(stream.ok) << stream.message;
      ASSERT_EQ(stream.samples, file.samples);
    } else if (file.code != ErrorCode::kTruncatedWav) {
      ASSERT_FALSE(stream.ok);
      ASSERT_EQ(stream.message, file.message);
    }
  }
}

TEST(WavReader, RefusesNullData) {
  EXPECT_EQ(parse_wav(nullptr, 100, kGeometry16k).status().code(),
            ErrorCode::kInvalidArgument);
}

TEST(WavSampleSource, StreamsAllSamplesInPieces) {
  const std::vector<uint8_t> bytes = good_wav(1000);
  const Result<WavAudio> audio =
      parse_wav(bytes.data(), bytes.size(), kGeometry16k);
  ASSERT_TRUE(audio.ok());
  WavSampleSource source(*audio);
  std::vector<int16_t> out;
  int16_t buffer[300];
  size_t got = 0;
  while ((got = source.read(buffer, 300)) != 0) {
    out.insert(out.end(), buffer, buffer + got);
  }
  EXPECT_EQ(out, ramp(1000));
  EXPECT_EQ(source.read(buffer, 300), 0u);
  EXPECT_TRUE(source.status().ok());
}

}  // namespace
}  // namespace silero_vad
