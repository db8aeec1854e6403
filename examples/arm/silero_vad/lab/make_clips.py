# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Makes the example's small, deterministic test clips with espeak-ng.

Each clip alternates varied silences with synthesized sentences, mixed with seeded white,
pink or brown noise at a chosen SNR. Calibration and validation use different sentences,
voices and languages, so the model is never validated on the audio it was calibrated on.
The 8 kHz sets are telephone-band speech (300-3400 Hz before the noise, like a phone line).
The WAVs are committed (mono PCM16, < 3 MB) so users need no espeak-ng; espeak-ng 1.51
reproduces them byte for byte:

    python -m examples.arm.silero_vad.lab.make_clips [--set validation_8k ...]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import butter, resample_poly, sosfilt

ESPEAK_RATE = 22050
TELEPHONE_BAND_HZ = (300.0, 3400.0)
SPEECH_RMS_DBFS = -22.0
DATA_DIR = Path(__file__).resolve().parents[1] / "data"


# One clip per paragraph. First line: the set (the 8 kHz sets, ``_8k``, are telephone-band),
# the clip's name, the espeak-ng voice (language+variant, words per minute, pitch 0-99), the
# noise (white, pink or brown), its SNR below the speech in dB and its seed, and the speech
# level in dB relative to SPEECH_RMS_DBFS. Then each sentence after its pause in seconds,
# and the trailing pause.
CLIPS = """
calibration cal_en_us_male_pink20 en-us+m3 150 45 pink 20 11 0
0.6 The library opens at nine, but the reading room stays closed until noon.
0.35 Please leave the parcel by the back door.
0.9 Thanks.
0.7

calibration cal_de_female_white10 de+f2 140 60 white 10 12 -6
1.0 Der Zug nach Hamburg hat heute zwanzig Minuten Verspätung.
0.2 Kannst du mir bitte das Salz reichen?
1.5

calibration cal_es_male_brown5 es+m1 165 40 brown 5 13 3
0.4 Mañana por la mañana vamos al mercado a comprar fruta.
0.8 No, gracias.
0.3 El concierto empezó tarde porque llovía mucho en la ciudad.
0.8

validation val_en_gb_female_white15 en-gb+f3 160 65 white 15 21 -3
0.8 Could you check whether the kettle is still switched on?
0.3 Seven, eight, nine.
1.0 The meeting moved to Thursday afternoon, right after lunch.
0.7

validation val_fr_male_pink8 fr+m4 145 35 pink 8 22 0
0.5 Il fait beau aujourd'hui, allons nous promener dans le parc.
1.0 Oui.
0.45 Le boulanger ouvre très tôt le dimanche matin.
0.9

validation val_it_female_brown12 it+f4 170 55 brown 12 23 -9
0.9 La cena è pronta, venite a tavola prima che si raffreddi.
0.6 Domani partiamo presto per la montagna.
1.0

calibration_8k cal8k_pt_female_pink12 pt-br+f1 150 55 pink 12 31 -2
0.7 Bom dia, gostaria de marcar uma consulta para a próxima semana.
0.4 Pode ser na quinta-feira?
1.1

calibration_8k cal8k_en_us_male_white18 en-us+m2 165 40 white 18 32 2
0.5 Your call is important to us, please stay on the line.
0.8 Press one for billing.
0.3 Okay, thank you very much.
0.9

calibration_8k cal8k_nl_female_brown6 nl+f3 140 65 brown 6 33 -8
1.0 Ik bel over de bestelling van gisteren.
0.6 Die is nog steeds niet aangekomen, helaas.
0.8

validation_8k val8k_en_gb_male_pink10 en-gb+m1 155 45 pink 10 41 0
0.6 I am calling about the broken heater in flat twelve.
0.9 Yes.
0.4 Could someone come round tomorrow morning?
1.0

validation_8k val8k_de_male_white14 de+m3 150 38 white 14 42 -4
0.8 Guten Tag, hier spricht der Kundendienst.
0.5 Wie kann ich Ihnen heute helfen?
1.2

validation_8k val8k_es_female_brown9 es+f2 170 60 brown 9 43 3
0.5 El técnico llegará entre las diez y las doce.
0.7 Muchas gracias, hasta luego.
0.9
"""


PARAGRAPHS = CLIPS.strip().split("\n\n")
CLIP_SETS = list(dict.fromkeys(paragraph.split()[0] for paragraph in PARAGRAPHS))


def synthesize(text: str, voice: list[str], espeak: str, rate: int) -> np.ndarray:
    """One sentence from espeak-ng (``voice``: its options), resampled to ``rate`` (float)."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "sentence.wav"
        subprocess.run([espeak, *voice, "-w", str(wav), text], check=True)
        speech, espeak_rate = soundfile.read(str(wav), dtype="float64")
    if espeak_rate != ESPEAK_RATE:
        raise RuntimeError(f"espeak-ng wrote {espeak_rate} Hz, expected {ESPEAK_RATE} Hz")
    return resample_poly(speech, rate, ESPEAK_RATE)


def colored_noise(kind: str, length: int, rng: np.random.Generator, rate: int) -> np.ndarray:
    """Unit-RMS white, pink (1/f power) or brown (1/f^2 power) noise."""
    noise = rng.standard_normal(length)
    if kind != "white":
        freqs = np.fft.rfftfreq(length, d=1.0 / rate)
        freqs[0] = freqs[1]
        exponent = {"pink": 0.5, "brown": 1.0}[kind]
        noise = np.fft.irfft(np.fft.rfft(noise) / freqs**exponent, n=length)
    return noise / np.sqrt(np.mean(noise**2))


def make_clip(paragraph: str, espeak: str, rate: int) -> np.ndarray:
    """A paragraph of CLIPS: pauses and sentences at its level, plus noise at its SNR, as
    int16; at 8 kHz the speech is band-passed to the telephone band (4th-order Butterworth)."""
    header, *lines, trailing = paragraph.splitlines()
    _, _, voice, speed, pitch, noise, snr_db, seed, level_db = header.split()
    telephone = butter(4, TELEPHONE_BAND_HZ, btype="bandpass", fs=rate, output="sos")
    parts: list[np.ndarray] = []
    sentences: list[np.ndarray] = []
    for line in lines:
        pause, text = line.split(" ", 1)
        speech = synthesize(text, ["-v", voice, "-s", speed, "-p", pitch], espeak, rate)
        if rate == 8000:
            speech = sosfilt(telephone, speech)
        parts += [np.zeros(int(float(pause) * rate)), speech]
        sentences.append(speech)
    parts.append(np.zeros(int(float(trailing) * rate)))
    audio = np.concatenate(parts)

    voiced = np.concatenate(sentences)
    voiced = voiced[np.abs(voiced) > 1e-3]
    target_rms = 10 ** ((SPEECH_RMS_DBFS + float(level_db)) / 20)
    audio *= target_rms / np.sqrt(np.mean(voiced**2))
    noise_rms = target_rms / 10 ** (float(snr_db) / 20)
    rng = np.random.default_rng(int(seed))
    audio += noise_rms * colored_noise(noise, audio.shape[0], rng, rate)
    return np.clip(np.round(audio * 32767), -32768, 32767).astype(np.int16)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--output-dir", type=Path, default=DATA_DIR)
    add("--set", dest="sets", action="append", choices=sorted(CLIP_SETS), help="default: all")
    args = parser.parse_args(argv)

    espeak = shutil.which("espeak-ng")
    if espeak is None:
        print("ERROR make_clips: espeak-ng not found; apt-get install espeak-ng", file=sys.stderr)
        return 1
    for split in args.sets or CLIP_SETS:
        rate = 8000 if split.endswith("_8k") else 16000
        out_dir = args.output_dir / split
        out_dir.mkdir(parents=True, exist_ok=True)
        for paragraph in (p for p in PARAGRAPHS if p.split()[0] == split):
            audio = make_clip(paragraph, espeak, rate)
            path = out_dir / f"{paragraph.split()[1]}.wav"
            soundfile.write(str(path), audio, rate, subtype="PCM_16")
            print(f"{path}: {audio.shape[0] / rate:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
