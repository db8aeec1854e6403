/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "wav_reader.h"

#include "vad_constants.h"

namespace silero_vad {
namespace {

constexpr size_t kRiffHeaderBytes = 12;
constexpr size_t kChunkHeaderBytes = 8;
constexpr size_t kFmtMinBytes = 16;
constexpr size_t kFmtExtensibleBytes = 40;
constexpr uint16_t kFormatPcm = 0x0001;
constexpr uint16_t kFormatIeeeFloat = 0x0003;
constexpr uint16_t kFormatExtensible = 0xFFFE;
constexpr uint16_t kRequiredBits = 16;
constexpr uint16_t kRequiredBlockAlign = 2;

// The 14 bytes that follow the format code in a KSDATAFORMAT_SUBTYPE GUID
// (xxxxxxxx-0000-0010-8000-00aa00389b71, little-endian fields).
// clang-format off
constexpr uint8_t kSubformatGuidTail[14] = {
    0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00,
    0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
// clang-format on

uint16_t read_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

uint32_t read_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

bool tag_is(const uint8_t* p, const char* tag) {
  return p[0] == static_cast<uint8_t>(tag[0]) &&
         p[1] == static_cast<uint8_t>(tag[1]) &&
         p[2] == static_cast<uint8_t>(tag[2]) &&
         p[3] == static_cast<uint8_t>(tag[3]);
}

// A chunk id as text for messages; bytes outside printable ASCII become '?'
// so hostile input cannot inject control characters into the output.
struct TagText {
  char text[5];
};

TagText tag_text(const uint8_t* p) {
  TagText out;
  for (int i = 0; i < 4; ++i) {
    const uint8_t c = p[i];
    out.text[i] = (c >= 0x20 && c < 0x7F) ? static_cast<char>(c) : '?';
  }
  out.text[4] = '\0';
  return out;
}

unsigned long ul(size_t value) {
  return static_cast<unsigned long>(value);
}

const char* format_name(uint16_t tag) {
  switch (tag) {
    case 0x0002:
      return "Microsoft ADPCM";
    case 0x0006:
      return "A-law";
    case 0x0007:
      return "mu-law";
    case 0x0011:
      return "IMA ADPCM";
    case 0x0031:
      return "GSM 6.10";
    case 0x0050:
      return "MPEG";
    case 0x0055:
      return "MP3";
    default:
      return "unknown";
  }
}

struct FmtChunk {
  uint16_t format_tag = 0;
  uint16_t channels = 0;
  uint32_t sample_rate = 0;
  uint16_t block_align = 0;
  uint16_t bits_per_sample = 0;
  // WAVE_FORMAT_EXTENSIBLE only.
  uint16_t valid_bits = 0;
  uint16_t subformat = 0;
  bool subformat_known = false;
};

Status parse_fmt(const uint8_t* body, size_t size, FmtChunk* fmt) {
  if (size < kFmtMinBytes) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "fmt chunk is %lu bytes, need at least %lu",
                         ul(size),
                         ul(kFmtMinBytes));
  }
  fmt->format_tag = read_u16(body);
  fmt->channels = read_u16(body + 2);
  fmt->sample_rate = read_u32(body + 4);
  // body + 8 is the byte rate: derived, not needed, not checked.
  fmt->block_align = read_u16(body + 12);
  fmt->bits_per_sample = read_u16(body + 14);
  if (fmt->format_tag != kFormatExtensible) {
    return Status::Ok();
  }
  if (size < kFmtExtensibleBytes) {
    return Status::Error(
        ErrorCode::kInvalidWav,
        "WAVE_FORMAT_EXTENSIBLE fmt chunk is %lu bytes, need %lu",
        ul(size),
        ul(kFmtExtensibleBytes));
  }
  const uint16_t extension_size = read_u16(body + 16);
  if (extension_size < 22) {
    return Status::Error(
        ErrorCode::kInvalidWav,
        "WAVE_FORMAT_EXTENSIBLE extension is %u bytes, need 22",
        static_cast<unsigned>(extension_size));
  }
  fmt->valid_bits = read_u16(body + 18);
  // body + 20 is the channel mask: irrelevant for mono.
  const uint8_t* guid = body + 24;
  fmt->subformat = read_u16(guid);
  fmt->subformat_known = true;
  for (size_t i = 0; i < sizeof(kSubformatGuidTail); ++i) {
    if (guid[2 + i] != kSubformatGuidTail[i]) {
      fmt->subformat_known = false;
    }
  }
  return Status::Ok();
}

Status check_fmt(const FmtChunk& fmt) {
  uint16_t format = fmt.format_tag;
  if (format == kFormatExtensible) {
    if (!fmt.subformat_known) {
      return Status::Error(
          ErrorCode::kUnsupportedWav,
          "WAVE_FORMAT_EXTENSIBLE with an unknown sub-format GUID: need PCM");
    }
    format = fmt.subformat;
  }
  if (format == kFormatIeeeFloat) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u-bit IEEE float samples are not supported: need "
                         "16-bit integer PCM",
                         static_cast<unsigned>(fmt.bits_per_sample));
  }
  if (format != kFormatPcm) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "format tag 0x%04x (%s) is not supported: need PCM "
                         "(format tag 1)",
                         static_cast<unsigned>(format),
                         format_name(format));
  }
  if (fmt.channels == 0) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "fmt chunk declares 0 channels");
  }
  if (fmt.channels != 1) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u channels (%s) found: need mono",
                         static_cast<unsigned>(fmt.channels),
                         fmt.channels == 2 ? "stereo" : "multi-channel");
  }
  if (fmt.bits_per_sample != kRequiredBits) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u-bit samples found: need 16-bit PCM",
                         static_cast<unsigned>(fmt.bits_per_sample));
  }
  if (fmt.format_tag == kFormatExtensible && fmt.valid_bits != kRequiredBits) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u valid bits in 16-bit containers found: need all "
                         "16 bits valid",
                         static_cast<unsigned>(fmt.valid_bits));
  }
  if (fmt.sample_rate != kSampleRateHz) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "sample rate %lu Hz found: need %lu Hz (resample the "
                         "file first)",
                         static_cast<unsigned long>(fmt.sample_rate),
                         static_cast<unsigned long>(kSampleRateHz));
  }
  if (fmt.block_align != kRequiredBlockAlign) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "block align %u does not match 16-bit mono (need %u)",
                         static_cast<unsigned>(fmt.block_align),
                         static_cast<unsigned>(kRequiredBlockAlign));
  }
  return Status::Ok();
}

}  // namespace

Result<WavAudio> parse_wav(const uint8_t* data, size_t size) {
  if (size < kRiffHeaderBytes) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "file too short for a RIFF/WAVE header: %lu bytes, "
                         "need at least %lu",
                         ul(size),
                         ul(kRiffHeaderBytes));
  }
  if (data == nullptr) {
    return Status::Error(ErrorCode::kInvalidArgument, "no WAV data");
  }
  if (!tag_is(data, "RIFF")) {
    if (tag_is(data, "RIFX")) {
      return Status::Error(
          ErrorCode::kUnsupportedWav,
          "big-endian RIFX file: need little-endian RIFF/WAVE");
    }
    if (tag_is(data, "RF64")) {
      return Status::Error(ErrorCode::kUnsupportedWav,
                           "RF64 file: need RIFF/WAVE");
    }
    return Status::Error(ErrorCode::kInvalidWav,
                         "not a RIFF/WAVE file: starts with '%s', expected "
                         "'RIFF'",
                         tag_text(data).text);
  }
  if (!tag_is(data + 8, "WAVE")) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "RIFF file of type '%s', expected 'WAVE'",
                         tag_text(data + 8).text);
  }
  const uint32_t riff_size = read_u32(data + 4);
  if (riff_size < 4) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "RIFF size %lu cannot even hold the 'WAVE' tag",
                         static_cast<unsigned long>(riff_size));
  }
  // Compare before adding: riff_size + 8 could wrap a 32-bit size_t.
  if (riff_size > size - 8) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "truncated file: the RIFF header declares %lu bytes "
                         "but only %lu follow it",
                         static_cast<unsigned long>(riff_size),
                         ul(size - 8));
  }
  // Trailing bytes after the RIFF chunk are ignored.
  const size_t end = static_cast<size_t>(riff_size) + 8;

  FmtChunk fmt;
  bool have_fmt = false;
  bool have_data = false;
  size_t data_offset = 0;
  size_t data_size = 0;

  size_t pos = kRiffHeaderBytes;
  while (pos < end) {
    const size_t remaining = end - pos;
    if (remaining < kChunkHeaderBytes) {
      return Status::Error(ErrorCode::kInvalidWav,
                           "truncated chunk header at byte %lu: %lu bytes "
                           "left, need %lu",
                           ul(pos),
                           ul(remaining),
                           ul(kChunkHeaderBytes));
    }
    const uint8_t* header = data + pos;
    const uint32_t chunk_size = read_u32(header + 4);
    const size_t body = pos + kChunkHeaderBytes;
    const size_t body_available = remaining - kChunkHeaderBytes;
    if (chunk_size > body_available) {
      if (tag_is(header, "data")) {
        return Status::Error(ErrorCode::kInvalidWav,
                             "data chunk declares %lu bytes but only %lu "
                             "remain in the file",
                             static_cast<unsigned long>(chunk_size),
                             ul(body_available));
      }
      return Status::Error(ErrorCode::kInvalidWav,
                           "'%s' chunk at byte %lu declares %lu bytes but only "
                           "%lu remain in the file",
                           tag_text(header).text,
                           ul(pos),
                           static_cast<unsigned long>(chunk_size),
                           ul(body_available));
    }
    if (tag_is(header, "fmt ")) {
      if (have_fmt) {
        return Status::Error(ErrorCode::kInvalidWav, "more than one fmt chunk");
      }
      const Status status = parse_fmt(data + body, chunk_size, &fmt);
      if (!status.ok()) {
        return status;
      }
      have_fmt = true;
    } else if (tag_is(header, "data")) {
      if (have_data) {
        return Status::Error(ErrorCode::kInvalidWav,
                             "more than one data chunk");
      }
      have_data = true;
      data_offset = body;
      data_size = chunk_size;
    }
    pos = body + chunk_size;
    // Odd-sized chunks are followed by a pad byte. Writers often drop it
    // after the last chunk, so a missing final pad byte is accepted.
    if ((chunk_size & 1u) != 0 && pos < end) {
      ++pos;
    }
  }

  if (!have_fmt) {
    return Status::Error(ErrorCode::kInvalidWav, "missing fmt chunk");
  }
  const Status fmt_status = check_fmt(fmt);
  if (!fmt_status.ok()) {
    return fmt_status;
  }
  if (!have_data) {
    return Status::Error(ErrorCode::kInvalidWav, "missing data chunk");
  }
  if (data_size == 0) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "data chunk is empty (0 samples)");
  }
  if (data_size % kRequiredBlockAlign != 0) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "data size %lu bytes is not a multiple of the block "
                         "align (%u bytes)",
                         ul(data_size),
                         static_cast<unsigned>(kRequiredBlockAlign));
  }
  const size_t num_samples = data_size / kRequiredBlockAlign;
  if (num_samples < kFrameSamples) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "clip has %lu samples, shorter than one frame (%lu "
                         "samples = 32 ms at 16 kHz)",
                         ul(num_samples),
                         ul(kFrameSamples));
  }
  WavAudio audio;
  audio.pcm = data + data_offset;
  audio.num_samples = num_samples;
  return audio;
}

size_t WavSampleSource::read(int16_t* out, size_t max_samples) {
  size_t count = audio_.num_samples - position_;
  if (count > max_samples) {
    count = max_samples;
  }
  for (size_t i = 0; i < count; ++i) {
    out[i] = audio_.sample(position_ + i);
  }
  position_ += count;
  return count;
}

}  // namespace silero_vad
