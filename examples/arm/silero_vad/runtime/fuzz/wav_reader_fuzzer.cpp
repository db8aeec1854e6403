/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// libFuzzer target: the WAV reader and the frame assembler on arbitrary
// bytes, under AddressSanitizer and UndefinedBehaviorSanitizer. Besides "no
// crash, no out-of-bounds read, no undefined behaviour" it checks what the
// rest of the runtime relies on: an accepted file points inside the buffer
// with at least one frame of samples, and an error always has a printable,
// single-line message.

#include <cstddef>
#include <cstdint>

#include "frame_assembler.h"
#include "vad_constants.h"
#include "wav_reader.h"

namespace {

void check(bool condition) {
  if (!condition) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using silero_vad::kFrameSamples;
  using silero_vad::kModelInputSamples;

  const silero_vad::Result<silero_vad::WavAudio> audio =
      silero_vad::parse_wav(data, size);
  if (!audio.ok()) {
    const char* message = audio.status().message();
    check(message[0] != '\0');
    for (const char* c = message; *c != '\0'; ++c) {
      check(*c != '\n' && *c != '\r');
    }
    return 0;
  }
  check(audio->num_samples >= kFrameSamples);
  check(audio->pcm >= data);
  const size_t offset = static_cast<size_t>(audio->pcm - data);
  check(offset <= size && audio->num_samples <= (size - offset) / 2);

  // Read every sample through the frame assembler, as the runtime does.
  silero_vad::WavSampleSource source(*audio);
  silero_vad::FrameAssembler frames(source);
  float input[kModelInputSamples];
  float sum = 0.0f;
  while (frames.next(input)) {
    for (float value : input) {
      check(value >= -1.0f && value < 1.0f);
      sum += value;
    }
  }
  check(frames.samples() == static_cast<int64_t>(audio->num_samples));
  check(frames.frames() ==
        static_cast<int64_t>((audio->num_samples + kFrameSamples - 1) /
                             kFrameSamples));
  // Keep the loop from being optimized away.
  check(sum == sum);
  return 0;
}
