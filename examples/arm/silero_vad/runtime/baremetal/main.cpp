/*
 * Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
 * This source code is licensed under the BSD-style license found in the
 * LICENSE file in the root directory of this source tree.
 */

// Silero VAD on a Corstone board: the host runner's loop on the baked-in clip
// and program, reporting over UART0 (ethosu_target_init brings the board up
// before main()). Nothing here allocates: the pools are static.
//
//   baked WAV -> parse_wav -> run_vad(FrameAssembler -> VadModel ->
//   SpeechSegmenter -> SerialReporter) -> UART0, ending with 0x04

#include <cstdint>

#include "app_config.h"
#include "baked_data.h"
#include "platform_glue.h"
#include "serial_reporter.h"
#include "vad_app.h"
#include "vad_model.h"
#include "wav_reader.h"

namespace {

using silero_vad::Result;
using silero_vad::Status;

// Bookkeeping and activations in DDR; the delegate's scratch in the tensor
// arena, in SRAM or DDR as the memory mode needs (memory_placement.cmake).
alignas(16) __attribute__((section("input_data_sec"))) uint8_t
    g_method_pool[SILERO_VAD_METHOD_POOL_BYTES];
alignas(64) __attribute__((section("input_data_sec"))) uint8_t
    g_planned_pool[SILERO_VAD_PLANNED_POOL_BYTES];
alignas(16) __attribute__((section(".bss.tensor_arena"))) uint8_t
    g_temp_pool[SILERO_VAD_TEMP_POOL_BYTES];

// Static so that its Method lives for the whole program.
silero_vad::VadModel g_model;

// The -DSILERO_VAD_... settings given (app_config.h) over SegmenterParams'
// defaults; a max speech duration of 0 means no limit (silero-vad's inf).
silero_vad::SegmenterParams configured_params() {
  silero_vad::SegmenterParams params;
#ifdef SILERO_VAD_THRESHOLD
  params.threshold = SILERO_VAD_THRESHOLD;
#endif
#ifdef SILERO_VAD_MIN_SPEECH_DURATION_MS
  params.min_speech_duration_ms = SILERO_VAD_MIN_SPEECH_DURATION_MS;
#endif
#ifdef SILERO_VAD_MIN_SILENCE_DURATION_MS
  params.min_silence_duration_ms = SILERO_VAD_MIN_SILENCE_DURATION_MS;
#endif
#ifdef SILERO_VAD_SPEECH_PAD_MS
  params.speech_pad_ms = SILERO_VAD_SPEECH_PAD_MS;
#endif
#ifdef SILERO_VAD_MAX_SPEECH_DURATION_S
  if (SILERO_VAD_MAX_SPEECH_DURATION_S > 0) {
    params.max_speech_duration_s = SILERO_VAD_MAX_SPEECH_DURATION_S;
  }
#endif
  return params;
}

// Everything before the frame loop. The program first: its metadata gives
// the clip's expected sample rate.
Status prepare(silero_vad::WavAudio* audio) {
  Status status = g_model.open(silero_vad_model_pte, silero_vad_model_pte_size);
  if (!status.ok()) {
    return status;
  }
  Result<silero_vad::WavAudio> parsed = silero_vad::parse_wav(
      silero_vad_input_wav, silero_vad_input_wav_size, g_model.geometry());
  if (!parsed.ok()) {
    return parsed.status();
  }
  *audio = *parsed;
  return g_model.load({g_method_pool, sizeof(g_method_pool)},
                      {g_planned_pool, sizeof(g_planned_pool)},
                      {g_temp_pool, sizeof(g_temp_pool)});
}

}  // namespace

int main() {
  silero_vad::StdoutSink sink;  // UART0
  const silero_vad::SegmenterParams params = configured_params();
  silero_vad::SerialReporter reporter(sink, params.threshold);

  silero_vad::WavAudio audio;
  const Status status = prepare(&audio);
  if (!status.ok()) {
    reporter.fail(status);
    silero_vad::baremetal::halt();
  }
  silero_vad::WavSampleSource source(audio);
  // Prints every line, then DONE or ERROR, then 0x04.
  (void)silero_vad::run_vad(source, g_model, params, reporter, nullptr);
  silero_vad::baremetal::halt();
}
