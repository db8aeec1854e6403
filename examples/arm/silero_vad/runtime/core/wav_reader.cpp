/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

#include "wav_reader.h"

#include <algorithm>
#include <cstring>

namespace silero_vad {
namespace {

// The size of a stream or of a RIFF chunk that does not say.
constexpr uint64_t kUnknownSize = UINT64_MAX;

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
constexpr char kSubformatGuidTail[] =
    "\x00\x00\x00\x00\x10\x00\x80\x00\x00\xAA\x00\x38\x9B\x71";

uint16_t read_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

uint32_t read_u32(const uint8_t* p) {
  return read_u16(p) | (static_cast<uint32_t>(read_u16(p + 2)) << 16);
}

bool tag_is(const uint8_t* p, const char* tag) {
  return std::memcmp(p, tag, 4) == 0;
}

// A RIFF or data size that a writer left for "unknown".
bool unknown_size(uint32_t size) {
  return size == 0 || size == 0xFFFFFFFFu;
}

// A chunk id for messages, with '?' for bytes outside printable ASCII.
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

const char* format_name(uint16_t tag) {
  static const struct {
    uint16_t tag;
    const char* name;
  } kNames[] = {{0x0002, "Microsoft ADPCM"},
                {0x0006, "A-law"},
                {0x0007, "mu-law"},
                {0x0011, "IMA ADPCM"},
                {0x0031, "GSM 6.10"},
                {0x0050, "MPEG"},
                {0x0055, "MP3"}};
  for (const auto& entry : kNames) {
    if (entry.tag == tag) {
      return entry.name;
    }
  }
  return "unknown";
}

// Reads `size` bytes into `out`, or discards them if `out` is null, unless
// the input ends first; returns how many.
uint64_t read_fully(ByteSource& source, uint8_t* out, uint64_t size) {
  uint8_t scratch[64];
  uint64_t done = 0;
  while (done < size) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(
        size - done, out != nullptr ? size : sizeof(scratch)));
    const size_t got = source.read(out != nullptr ? out + done : scratch, want);
    if (got == 0) {
      break;
    }
    done += got;
  }
  return done;
}

// `body` holds the first min(size, kFmtExtensibleBytes) bytes of a fmt chunk
// of `size` bytes (size >= kFmtMinBytes).
Status check_fmt(const uint8_t* body,
                 uint32_t size,
                 const FrameGeometry& geometry) {
  const uint16_t format_tag = read_u16(body);
  const uint16_t channels = read_u16(body + 2);
  const uint32_t sample_rate = read_u32(body + 4);  // then the byte rate
  const uint16_t block_align = read_u16(body + 12);
  const uint16_t bits_per_sample = read_u16(body + 14);
  uint16_t format = format_tag;
  uint16_t valid_bits = kRequiredBits;
  if (format_tag == kFormatExtensible) {
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
    if (std::memcmp(body + 26, kSubformatGuidTail, 14) != 0) {
      return Status::Error(
          ErrorCode::kUnsupportedWav,
          "WAVE_FORMAT_EXTENSIBLE with an unknown sub-format GUID: need PCM");
    }
    valid_bits = read_u16(body + 18);  // then the channel mask, not needed
    format = read_u16(body + 24);
  }
  if (format == kFormatIeeeFloat) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u-bit IEEE float samples are not supported: need "
                         "16-bit integer PCM",
                         static_cast<unsigned>(bits_per_sample));
  }
  if (format != kFormatPcm) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "format tag 0x%04x (%s) is not supported: need PCM "
                         "(format tag 1)",
                         static_cast<unsigned>(format),
                         format_name(format));
  }
  if (channels == 0) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "fmt chunk declares 0 channels");
  }
  if (channels != 1) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u channels (%s) found: need mono",
                         static_cast<unsigned>(channels),
                         channels == 2 ? "stereo" : "multi-channel");
  }
  if (bits_per_sample != kRequiredBits) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u-bit samples found: need 16-bit PCM",
                         static_cast<unsigned>(bits_per_sample));
  }
  if (valid_bits != kRequiredBits) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "%u valid bits in 16-bit containers found: need all "
                         "16 bits valid",
                         static_cast<unsigned>(valid_bits));
  }
  if (sample_rate != geometry.sample_rate) {
    // Name the other Silero model if the audio is at its rate.
    const bool other_model = frame_geometry(sample_rate).ok();
    return Status::Error(
        ErrorCode::kUnsupportedWav,
        "sample rate %lu Hz found: the program takes %lu Hz (resample "
        "first%s%s)",
        ul(sample_rate),
        ul(geometry.sample_rate),
        other_model ? ", or use the model exported with run.sh --sample-rate "
                    : "",
        other_model
            ? (sample_rate == kGeometry8k.sample_rate ? "8000" : "16000")
            : "");
  }
  if (block_align != kRequiredBlockAlign) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "block align %u does not match 16-bit mono (need %u)",
                         static_cast<unsigned>(block_align),
                         static_cast<unsigned>(kRequiredBlockAlign));
  }
  return Status::Ok();
}

// The input ended before the end of a chunk body.
Status ended_inside(const uint8_t* tag,
                    uint64_t position,
                    uint64_t got,
                    uint32_t size) {
  return Status::Error(ErrorCode::kTruncatedWav,
                       "input ends inside the '%s' chunk at byte %lu: %lu of "
                       "its %lu bytes",
                       tag_text(tag).text,
                       ul(position),
                       ul(got),
                       ul(size));
}

// The samples of a validated clip: at least one frame.
Status check_sample_count(uint64_t samples, const FrameGeometry& geometry) {
  if (samples == 0) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "data chunk is empty (0 samples)");
  }
  if (samples < geometry.hop_samples) {
    return Status::Error(ErrorCode::kUnsupportedWav,
                         "clip has %lu samples, shorter than one frame (%lu "
                         "samples = 32 ms at %lu Hz)",
                         ul(samples),
                         ul(geometry.hop_samples),
                         ul(geometry.sample_rate));
  }
  return Status::Ok();
}

// Where the samples start (from the start of the input) and how many bytes
// of them there are at most (the rest of the input when the size is unknown).
struct WavHeader {
  uint64_t data_offset = 0;
  uint64_t data_bytes = 0;
};

// Reads and validates `source` up to the first sample of the data chunk. A
// known `input_size` (a file) adds the truncation checks.
Result<WavHeader> read_wav_header(ByteSource& source,
                                  const FrameGeometry& geometry,
                                  uint64_t input_size = kUnknownSize) {
  uint8_t riff[kRiffHeaderBytes];
  const uint64_t got = read_fully(source, riff, sizeof(riff));
  if (got < kRiffHeaderBytes) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "too short for a RIFF/WAVE header: %lu bytes, need "
                         "at least %lu",
                         ul(got),
                         ul(kRiffHeaderBytes));
  }
  if (!tag_is(riff, "RIFF")) {
    if (tag_is(riff, "RIFX")) {
      return Status::Error(
          ErrorCode::kUnsupportedWav,
          "big-endian RIFX file: need little-endian RIFF/WAVE");
    }
    if (tag_is(riff, "RF64")) {
      return Status::Error(ErrorCode::kUnsupportedWav,
                           "RF64 file: need RIFF/WAVE");
    }
    return Status::Error(ErrorCode::kInvalidWav,
                         "not a RIFF/WAVE file: starts with '%s', expected "
                         "'RIFF'",
                         tag_text(riff).text);
  }
  if (!tag_is(riff + 8, "WAVE")) {
    return Status::Error(ErrorCode::kInvalidWav,
                         "RIFF file of type '%s', expected 'WAVE'",
                         tag_text(riff + 8).text);
  }
  uint64_t riff_end = kUnknownSize;
  const uint32_t riff_size = read_u32(riff + 4);
  if (!unknown_size(riff_size)) {
    if (riff_size < 4) {
      return Status::Error(ErrorCode::kInvalidWav,
                           "RIFF size %lu cannot even hold the 'WAVE' tag",
                           ul(riff_size));
    }
    riff_end = static_cast<uint64_t>(riff_size) + 8;
    if (riff_end > input_size) {
      return Status::Error(ErrorCode::kTruncatedWav,
                           "truncated file: the RIFF header declares %lu "
                           "bytes but only %lu follow it",
                           ul(riff_size),
                           ul(input_size - 8));
    }
  }

  bool have_fmt = false;
  uint64_t pos = kRiffHeaderBytes;
  while (pos < riff_end) {
    if (riff_end - pos < kChunkHeaderBytes) {
      return Status::Error(ErrorCode::kInvalidWav,
                           "truncated chunk header at byte %lu: %lu bytes "
                           "left, need %lu",
                           ul(pos),
                           ul(riff_end - pos),
                           ul(kChunkHeaderBytes));
    }
    uint8_t chunk[kChunkHeaderBytes];
    const uint64_t header_got = read_fully(source, chunk, sizeof(chunk));
    if (header_got == 0 && riff_end == kUnknownSize) {
      break;  // the input ends between chunks: the end of the RIFF chunk
    }
    if (header_got == 0) {
      return Status::Error(ErrorCode::kTruncatedWav,
                           "input ends at byte %lu, inside the RIFF chunk "
                           "that ends at byte %lu",
                           ul(pos),
                           ul(riff_end));
    }
    if (header_got < kChunkHeaderBytes) {
      return Status::Error(ErrorCode::kTruncatedWav,
                           "input ends inside the chunk header at byte %lu "
                           "(%lu of %lu bytes)",
                           ul(pos),
                           ul(header_got),
                           ul(kChunkHeaderBytes));
    }
    const uint32_t chunk_size = read_u32(chunk + 4);
    const uint64_t body = pos + kChunkHeaderBytes;
    const bool is_data = tag_is(chunk, "data");
    if (chunk_size > riff_end - body &&
        !(is_data && unknown_size(chunk_size))) {
      if (is_data) {
        return Status::Error(ErrorCode::kInvalidWav,
                             "data chunk declares %lu bytes but only %lu "
                             "remain in the RIFF chunk",
                             ul(chunk_size),
                             ul(riff_end - body));
      }
      return Status::Error(ErrorCode::kInvalidWav,
                           "'%s' chunk at byte %lu declares %lu bytes but only "
                           "%lu remain in the RIFF chunk",
                           tag_text(chunk).text,
                           ul(pos),
                           ul(chunk_size),
                           ul(riff_end - body));
    }

    if (is_data) {
      if (!have_fmt) {
        return Status::Error(ErrorCode::kInvalidWav,
                             "data chunk before the fmt chunk: the fmt chunk "
                             "must come first");
      }
      WavHeader header{body, std::min(riff_end, input_size) - body};
      if (!unknown_size(chunk_size)) {
        if (chunk_size % kRequiredBlockAlign != 0) {
          return Status::Error(ErrorCode::kInvalidWav,
                               "data size %lu bytes is not a multiple of the "
                               "block align (%u bytes)",
                               ul(chunk_size),
                               static_cast<unsigned>(kRequiredBlockAlign));
        }
        header.data_bytes = chunk_size;
        // Inside the file if inside its RIFF chunk (checked above).
        if (chunk_size > input_size - body) {
          return Status::Error(ErrorCode::kTruncatedWav,
                               "truncated file: the data chunk declares %lu "
                               "bytes but only %lu follow it",
                               ul(chunk_size),
                               ul(input_size - body));
        }
      }
      return header;
    }

    uint64_t consumed = 0;
    if (tag_is(chunk, "fmt ")) {
      if (have_fmt) {
        return Status::Error(ErrorCode::kInvalidWav, "more than one fmt chunk");
      }
      if (chunk_size < kFmtMinBytes) {
        return Status::Error(ErrorCode::kInvalidWav,
                             "fmt chunk is %lu bytes, need at least %lu",
                             ul(chunk_size),
                             ul(kFmtMinBytes));
      }
      uint8_t fmt_body[kFmtExtensibleBytes];
      const size_t want = std::min<size_t>(chunk_size, sizeof(fmt_body));
      consumed = read_fully(source, fmt_body, want);
      if (consumed < want) {
        return ended_inside(chunk, pos, consumed, chunk_size);
      }
      const Status status = check_fmt(fmt_body, chunk_size, geometry);
      if (!status.ok()) {
        return status;
      }
      have_fmt = true;
    }
    consumed += read_fully(source, nullptr, chunk_size - consumed);
    if (consumed < chunk_size) {
      return ended_inside(chunk, pos, consumed, chunk_size);
    }
    pos = body + chunk_size;
    // Odd-sized chunks are followed by a pad byte. Writers often drop it
    // after the last chunk, so a missing final pad byte is accepted.
    if ((chunk_size & 1u) != 0 && pos < riff_end) {
      pos += read_fully(source, nullptr, 1);
    }
  }
  return Status::Error(
      ErrorCode::kInvalidWav, "missing %s chunk", have_fmt ? "data" : "fmt");
}

}  // namespace

size_t MemoryByteSource::read(uint8_t* out, size_t max_bytes) {
  const size_t count = std::min(size_ - position_, max_bytes);
  if (count > 0) {
    std::memcpy(out, data_ + position_, count);
  }
  position_ += count;
  return count;
}

Result<WavAudio> parse_wav(const uint8_t* data,
                           size_t size,
                           const FrameGeometry& geometry) {
  if (data == nullptr && size > 0) {
    return Status::Error(ErrorCode::kInvalidArgument, "no WAV data");
  }
  MemoryByteSource source(data, size);
  const Result<WavHeader> header = read_wav_header(source, geometry, size);
  if (!header.ok()) {
    return header.status();
  }
  // The header parser checked that the data chunk lies inside the file.
  const uint64_t num_samples = header->data_bytes / kRequiredBlockAlign;
  const Status status = check_sample_count(num_samples, geometry);
  if (!status.ok()) {
    return status;
  }
  WavAudio audio;
  audio.pcm = data + header->data_offset;
  audio.num_samples = static_cast<size_t>(num_samples);
  return audio;
}

size_t WavSampleSource::read(int16_t* out, size_t max_samples) {
  const size_t count = std::min(audio_.num_samples - position_, max_samples);
  for (size_t i = 0; i < count; ++i) {
    out[i] = audio_.sample(position_ + i);
  }
  position_ += count;
  return count;
}

Status WavStreamReader::open(const FrameGeometry& geometry) {
  if (open_ || ended_) {
    return Status::Error(ErrorCode::kInvalidArgument,
                         "WavStreamReader::open() called twice");
  }
  const Result<WavHeader> header = read_wav_header(bytes_, geometry);
  if (!header.ok()) {
    ended_ = true;
    // A failed read of the input explains a truncated header best.
    end_status_ = bytes_.status().ok() ? header.status() : bytes_.status();
    return end_status_;
  }
  geometry_ = geometry;
  data_remaining_ = header->data_bytes;
  open_ = true;
  return Status::Ok();
}

size_t WavStreamReader::read(int16_t* out, size_t max_samples) {
  size_t count = 0;
  // Hand over what has arrived rather than wait for more: the caller asks
  // again if it needs more (live input arrives in small pieces).
  while (open_ && !ended_ && count == 0 && max_samples > 0) {
    // Bytes that complete the samples wanted, at most a buffer.
    const size_t want = static_cast<size_t>(
        std::min({static_cast<uint64_t>(max_samples) * 2 - carried_,
                  data_remaining_,
                  static_cast<uint64_t>(sizeof(buffer_) - carried_)}));
    // min() guards against a misbehaving source.
    const size_t got =
        want == 0 ? 0 : std::min(bytes_.read(buffer_ + carried_, want), want);
    if (got == 0) {
      ended_ = true;
      carried_ = 0;  // a dangling half sample (a recorder stopped mid-write)
      end_status_ = bytes_.status().ok()
                        ? check_sample_count(samples_read_, geometry_)
                        : bytes_.status();
      break;
    }
    data_remaining_ -= got;
    const size_t available = carried_ + got;
    const size_t samples = available / 2;
    for (size_t i = 0; i < samples; ++i) {
      out[i] = decode_pcm16(buffer_ + 2 * i);
    }
    count = samples;
    carried_ = available % 2;
    if (carried_ != 0) {
      buffer_[0] = buffer_[available - 1];
    }
  }
  samples_read_ += count;
  return count;
}

}  // namespace silero_vad
