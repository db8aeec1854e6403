/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"
#include "wav_reader.h"

namespace silero_vad {
namespace {

using testing::WavBuilder;

std::vector<int16_t> ramp(size_t count) {
  std::vector<int16_t> samples(count);
  for (size_t i = 0; i < count; ++i) {
    samples[i] = static_cast<int16_t>(static_cast<int32_t>(i * 37) - 16000);
  }
  return samples;
}

std::vector<uint8_t> good_wav(size_t samples = 1000) {
  return WavBuilder()
      .chunk("fmt ", WavBuilder::fmt(1, 1, 16000, 16))
      .chunk("data", WavBuilder::pcm16(ramp(samples)))
      .build();
}

// Parses `bytes` and expects an error of `code` whose message contains
// `text`.
void expect_error(const std::vector<uint8_t>& bytes,
                  ErrorCode code,
                  const char* text) {
  const Result<WavAudio> result = parse_wav(bytes.data(), bytes.size());
  ASSERT_FALSE(result.ok()) << "accepted, expected: " << text;
  EXPECT_EQ(result.status().code(), code) << result.status().message();
  EXPECT_NE(std::string(result.status().message()).find(text),
            std::string::npos)
      << "message: " << result.status().message() << "\nexpected: " << text;
}

TEST(WavReader, AcceptsPlainPcm16Mono16k) {
  const std::vector<uint8_t> bytes = good_wav(1000);
  const Result<WavAudio> audio = parse_wav(bytes.data(), bytes.size());
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_EQ(audio->num_samples, 1000u);
  const std::vector<int16_t> expected = ramp(1000);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(audio->sample(i), expected[i]) << i;
  }
}

TEST(WavReader, DecodesFullScaleSigned) {
  std::vector<int16_t> samples(512, 0);
  samples[0] = -32768;
  samples[1] = 32767;
  samples[2] = -1;
  const std::vector<uint8_t> bytes =
      WavBuilder()
          .chunk("fmt ", WavBuilder::fmt(1, 1, 16000, 16))
          .chunk("data", WavBuilder::pcm16(samples))
          .build();
  const Result<WavAudio> audio = parse_wav(bytes.data(), bytes.size());
  ASSERT_TRUE(audio.ok());
  EXPECT_EQ(audio->sample(0), -32768);
  EXPECT_EQ(audio->sample(1), 32767);
  EXPECT_EQ(audio->sample(2), -1);
}

TEST(WavReader, SkipsUnknownChunksAndPadBytes) {
  const std::vector<uint8_t> odd = {'o', 'd', 'd'};
  const std::vector<uint8_t> bytes =
      WavBuilder()
          .chunk("LIST", {'I', 'N', 'F', 'O'})
          .chunk("junk", odd)
          .chunk("fmt ", WavBuilder::fmt(1, 1, 16000, 16))
          .chunk("odd1", {7})
          .chunk("data", WavBuilder::pcm16(ramp(600)))
          .chunk("tail", odd)
          .build();
  const Result<WavAudio> audio = parse_wav(bytes.data(), bytes.size());
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_EQ(audio->num_samples, 600u);
  EXPECT_EQ(audio->sample(599), ramp(600)[599]);
}

TEST(WavReader, AcceptsMissingFinalPadByte) {
  const std::vector<uint8_t> bytes =
      WavBuilder()
          .chunk("fmt ", WavBuilder::fmt(1, 1, 16000, 16))
          .chunk("data", WavBuilder::pcm16(ramp(512)))
          .chunk("note", {'x'}, -1, /*pad=*/false)
          .build();
  EXPECT_TRUE(parse_wav(bytes.data(), bytes.size()).ok());
}

TEST(WavReader, AcceptsDataBeforeFmtAndTrailingBytes) {
  std::vector<uint8_t> bytes =
      WavBuilder()
          .chunk("data", WavBuilder::pcm16(ramp(700)))
          .chunk("fmt ", WavBuilder::fmt(1, 1, 16000, 16))
          .build();
  bytes.insert(bytes.end(), {'j', 'u', 'n', 'k'});
  const Result<WavAudio> audio = parse_wav(bytes.data(), bytes.size());
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_EQ(audio->num_samples, 700u);
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
  const Result<WavAudio> audio = parse_wav(bytes.data(), bytes.size());
  ASSERT_TRUE(audio.ok()) << audio.status().message();
  EXPECT_EQ(audio->num_samples, 512u);
}

TEST(WavReader, RefusesExtensibleFloatAndOddValidBits) {
  expect_error(WavBuilder()
                   .chunk("fmt ", extensible_fmt(3, 32, 32))
                   .chunk("data", std::vector<uint8_t>(4096))
                   .build(),
               ErrorCode::kUnsupportedWav,
               "32-bit IEEE float samples are not supported");
  expect_error(WavBuilder()
                   .chunk("fmt ", extensible_fmt(1, 16, 12))
                   .chunk("data", WavBuilder::pcm16(ramp(512)))
                   .build(),
               ErrorCode::kUnsupportedWav,
               "12 valid bits");
  std::vector<uint8_t> guid = extensible_fmt(1, 16, 16);
  guid.back() = 0;
  expect_error(WavBuilder()
                   .chunk("fmt ", guid)
                   .chunk("data", WavBuilder::pcm16(ramp(512)))
                   .build(),
               ErrorCode::kUnsupportedWav,
               "unknown sub-format GUID");
  std::vector<uint8_t> short_ext = extensible_fmt(1, 16, 16);
  short_ext.resize(30);
  expect_error(WavBuilder()
                   .chunk("fmt ", short_ext)
                   .chunk("data", WavBuilder::pcm16(ramp(512)))
                   .build(),
               ErrorCode::kInvalidWav,
               "WAVE_FORMAT_EXTENSIBLE fmt chunk is 30 bytes");
}

TEST(WavReader, RefusesWrongFormats) {
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(1024));
  expect_error(WavBuilder()
                   .chunk("fmt ", WavBuilder::fmt(1, 1, 44100, 16))
                   .chunk("data", pcm)
                   .build(),
               ErrorCode::kUnsupportedWav,
               "sample rate 44100 Hz found: need 16000 Hz");
  expect_error(WavBuilder()
                   .chunk("fmt ", WavBuilder::fmt(1, 2, 16000, 16))
                   .chunk("data", pcm)
                   .build(),
               ErrorCode::kUnsupportedWav,
               "2 channels (stereo) found: need mono");
  expect_error(WavBuilder()
                   .chunk("fmt ", WavBuilder::fmt(1, 4, 16000, 16))
                   .chunk("data", pcm)
                   .build(),
               ErrorCode::kUnsupportedWav,
               "4 channels (multi-channel) found: need mono");
  for (uint16_t bits : {8, 24, 32}) {
    const std::string text =
        std::to_string(bits) + "-bit samples found: need 16-bit PCM";
    expect_error(WavBuilder()
                     .chunk("fmt ", WavBuilder::fmt(1, 1, 16000, bits))
                     .chunk("data", std::vector<uint8_t>(bits * 128))
                     .build(),
                 ErrorCode::kUnsupportedWav,
                 text.c_str());
  }
  expect_error(WavBuilder()
                   .chunk("fmt ", WavBuilder::fmt(3, 1, 16000, 32))
                   .chunk("data", std::vector<uint8_t>(4096))
                   .build(),
               ErrorCode::kUnsupportedWav,
               "32-bit IEEE float samples are not supported");
  expect_error(WavBuilder()
                   .chunk("fmt ", WavBuilder::fmt(7, 1, 16000, 8))
                   .chunk("data", std::vector<uint8_t>(1024))
                   .build(),
               ErrorCode::kUnsupportedWav,
               "format tag 0x0007 (mu-law) is not supported");
}

TEST(WavReader, RefusesBrokenStructure) {
  const std::vector<uint8_t> fmt = WavBuilder::fmt(1, 1, 16000, 16);
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(1024));
  expect_error({}, ErrorCode::kInvalidWav, "0 bytes, need at least 12");
  expect_error({'R', 'I', 'F', 'F', 1, 0, 0, 0},
               ErrorCode::kInvalidWav,
               "file too short for a RIFF/WAVE header: 8 bytes");
  std::vector<uint8_t> text(64, 'x');
  text[0] = 0x01;  // A control character must not reach the message.
  expect_error(
      text, ErrorCode::kInvalidWav, "not a RIFF/WAVE file: starts with '?xxx'");
  std::vector<uint8_t> rifx = good_wav();
  std::memcpy(rifx.data(), "RIFX", 4);
  expect_error(rifx, ErrorCode::kUnsupportedWav, "big-endian RIFX");
  std::vector<uint8_t> rf64 = good_wav();
  std::memcpy(rf64.data(), "RF64", 4);
  expect_error(rf64, ErrorCode::kUnsupportedWav, "RF64");
  std::vector<uint8_t> avi = good_wav();
  std::memcpy(avi.data() + 8, "AVI ", 4);
  expect_error(avi, ErrorCode::kInvalidWav, "type 'AVI ', expected 'WAVE'");

  expect_error(WavBuilder().chunk("data", pcm).build(),
               ErrorCode::kInvalidWav,
               "missing fmt");
  expect_error(WavBuilder().chunk("fmt ", fmt).build(),
               ErrorCode::kInvalidWav,
               "missing data");
  expect_error(WavBuilder().chunk("fmt ", fmt).chunk("data", {}).build(),
               ErrorCode::kInvalidWav,
               "data chunk is empty");
  std::vector<uint8_t> odd = pcm;
  odd.push_back(1);
  expect_error(WavBuilder().chunk("fmt ", fmt).chunk("data", odd).build(),
               ErrorCode::kInvalidWav,
               "data size 2049 bytes is not a multiple of the block align");
  expect_error(WavBuilder()
                   .chunk("fmt ", fmt)
                   .chunk("data", WavBuilder::pcm16(ramp(511)))
                   .build(),
               ErrorCode::kUnsupportedWav,
               "clip has 511 samples, shorter than one frame");
  std::vector<uint8_t> short_fmt = fmt;
  short_fmt.resize(14);
  expect_error(WavBuilder().chunk("fmt ", short_fmt).chunk("data", pcm).build(),
               ErrorCode::kInvalidWav,
               "fmt chunk is 14 bytes, need at least 16");
  expect_error(WavBuilder()
                   .chunk("fmt ", fmt)
                   .chunk("fmt ", fmt)
                   .chunk("data", pcm)
                   .build(),
               ErrorCode::kInvalidWav,
               "more than one fmt chunk");
  expect_error(WavBuilder()
                   .chunk("fmt ", fmt)
                   .chunk("data", pcm)
                   .chunk("data", pcm)
                   .build(),
               ErrorCode::kInvalidWav,
               "more than one data chunk");
  std::vector<uint8_t> zero_channels = fmt;
  zero_channels[2] = 0;
  expect_error(
      WavBuilder().chunk("fmt ", zero_channels).chunk("data", pcm).build(),
      ErrorCode::kInvalidWav,
      "0 channels");
  std::vector<uint8_t> bad_align = fmt;
  bad_align[12] = 4;
  expect_error(WavBuilder().chunk("fmt ", bad_align).chunk("data", pcm).build(),
               ErrorCode::kInvalidWav,
               "block align 4 does not match");
}

TEST(WavReader, RefusesSizesBeyondTheBuffer) {
  const std::vector<uint8_t> fmt = WavBuilder::fmt(1, 1, 16000, 16);
  const std::vector<uint8_t> pcm = WavBuilder::pcm16(ramp(1024));
  expect_error(
      WavBuilder().chunk("fmt ", fmt).chunk("data", pcm, 2048 + 10).build(),
      ErrorCode::kInvalidWav,
      "data chunk declares 2058 bytes but only 2048 remain in the file");
  expect_error(
      WavBuilder().chunk("fmt ", fmt).chunk("data", pcm, 0xFFFFFFFF).build(),
      ErrorCode::kInvalidWav,
      "data chunk declares 4294967295 bytes");
  expect_error(WavBuilder()
                   .chunk("LIST", {'I', 'N', 'F', 'O'}, 0xFFFFFFF8)
                   .chunk("fmt ", fmt)
                   .chunk("data", pcm)
                   .build(),
               ErrorCode::kInvalidWav,
               "'LIST' chunk at byte 12 declares 4294967288 bytes");
  expect_error(
      WavBuilder().chunk("fmt ", fmt).chunk("data", pcm).build(0xFFFFFFFF),
      ErrorCode::kInvalidWav,
      "the RIFF header declares 4294967295 bytes");
  std::vector<uint8_t> cut = good_wav();
  cut.resize(cut.size() - 3);
  expect_error(cut, ErrorCode::kInvalidWav, "truncated file");
  std::vector<uint8_t> stray =
      WavBuilder().chunk("fmt ", fmt).chunk("data", pcm).build();
  stray.push_back('L');
  stray.push_back('I');
  const std::vector<uint8_t> size =
      WavBuilder::u32(static_cast<uint32_t>(stray.size() - 8));
  std::copy(size.begin(), size.end(), stray.begin() + 4);
  expect_error(stray, ErrorCode::kInvalidWav, "truncated chunk header at byte");
  expect_error(
      WavBuilder().build(2), ErrorCode::kInvalidWav, "cannot even hold");
}

// Every prefix of a valid file and every single-byte corruption must come
// back as a result (the fuzzer covers far more; this runs everywhere).
TEST(WavReader, SurvivesPrefixesAndCorruptions) {
  const std::vector<uint8_t> good = good_wav(600);
  for (size_t length = 0; length < good.size(); ++length) {
    const std::vector<uint8_t> prefix(good.begin(), good.begin() + length);
    const Result<WavAudio> result = parse_wav(prefix.data(), prefix.size());
    EXPECT_FALSE(result.ok()) << length;
    EXPECT_NE(result.status().message()[0], '\0');
  }
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> bytes = good;
    const size_t at = rng() % 64;
    bytes[at] = static_cast<uint8_t>(rng());
    const Result<WavAudio> result = parse_wav(bytes.data(), bytes.size());
    if (result.ok()) {
      ASSERT_GE(result->pcm, bytes.data());
      ASSERT_LE(result->pcm + 2 * result->num_samples,
                bytes.data() + bytes.size());
    }
  }
}

TEST(WavReader, RefusesNullData) {
  EXPECT_EQ(parse_wav(nullptr, 100).status().code(),
            ErrorCode::kInvalidArgument);
}

TEST(WavSampleSource, StreamsAllSamplesInPieces) {
  const std::vector<uint8_t> bytes = good_wav(1000);
  const Result<WavAudio> audio = parse_wav(bytes.data(), bytes.size());
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
}

}  // namespace
}  // namespace silero_vad
