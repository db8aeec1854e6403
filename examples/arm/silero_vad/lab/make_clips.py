# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Makes the example's small, deterministic test clips with espeak-ng.

Each clip alternates silences of varied length with synthesized sentences and is then
mixed with seeded noise (white, pink or brown) at a chosen SNR, so the VAD sees clean
and noisy speech, short and long pauses. Calibration and validation clips use different
sentences, voices and languages, so the quantized model is never validated on the audio
it was calibrated on. The 8 kHz sets (for Silero's 8 kHz model) are telephone-band
speech: band-passed to 300-3400 Hz before the noise, like a phone line.

The generated WAVs are committed (mono PCM16: calibration/ and validation/ at 16 kHz,
calibration_8k/ and validation_8k/ at 8 kHz; < 3 MB in all) so users need no espeak-ng;
run this again only to change them (espeak-ng 1.51 reproduces the committed files
byte for byte):

    python -m examples.arm.silero_vad.lab.make_clips [--set validation_8k ...]
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import butter, resample_poly, sosfilt

SAMPLE_RATE = 16000
ESPEAK_RATE = 22050
TELEPHONE_BAND_HZ = (300.0, 3400.0)
SPEECH_RMS_DBFS = -22.0
DATA_DIR = Path(__file__).resolve().parents[1] / "data"


@dataclass(frozen=True)
class Voice:
    """An espeak-ng voice: language+variant, words per minute, pitch (0-99)."""

    name: str
    speed: int
    pitch: int


@dataclass(frozen=True)
class ClipRecipe:
    """Sentences in one voice, separated by the given pauses, mixed with noise."""

    name: str
    voice: Voice
    sentences: tuple[str, ...]
    pauses_s: tuple[float, ...]  # before each sentence, then one trailing pause
    noise: str  # "white", "pink" or "brown"
    snr_db: float
    level_db: float  # speech level relative to SPEECH_RMS_DBFS
    seed: int
    sample_rate: int = SAMPLE_RATE
    telephone_band: bool = False  # band-pass the speech to 300-3400 Hz


CALIBRATION = (
    ClipRecipe(
        name="cal_en_us_male_pink20",
        voice=Voice("en-us+m3", 150, 45),
        sentences=(
            "The library opens at nine, but the reading room stays closed until noon.",
            "Please leave the parcel by the back door.",
            "Thanks.",
        ),
        pauses_s=(0.6, 0.35, 0.9, 0.7),
        noise="pink",
        snr_db=20.0,
        level_db=0.0,
        seed=11,
    ),
    ClipRecipe(
        name="cal_de_female_white10",
        voice=Voice("de+f2", 140, 60),
        sentences=(
            "Der Zug nach Hamburg hat heute zwanzig Minuten Verspätung.",
            "Kannst du mir bitte das Salz reichen?",
        ),
        pauses_s=(1.0, 0.2, 1.5),
        noise="white",
        snr_db=10.0,
        level_db=-6.0,
        seed=12,
    ),
    ClipRecipe(
        name="cal_es_male_brown5",
        voice=Voice("es+m1", 165, 40),
        sentences=(
            "Mañana por la mañana vamos al mercado a comprar fruta.",
            "No, gracias.",
            "El concierto empezó tarde porque llovía mucho en la ciudad.",
        ),
        pauses_s=(0.4, 0.8, 0.3, 0.8),
        noise="brown",
        snr_db=5.0,
        level_db=3.0,
        seed=13,
    ),
)

VALIDATION = (
    ClipRecipe(
        name="val_en_gb_female_white15",
        voice=Voice("en-gb+f3", 160, 65),
        sentences=(
            "Could you check whether the kettle is still switched on?",
            "Seven, eight, nine.",
            "The meeting moved to Thursday afternoon, right after lunch.",
        ),
        pauses_s=(0.8, 0.3, 1.0, 0.7),
        noise="white",
        snr_db=15.0,
        level_db=-3.0,
        seed=21,
    ),
    ClipRecipe(
        name="val_fr_male_pink8",
        voice=Voice("fr+m4", 145, 35),
        sentences=(
            "Il fait beau aujourd'hui, allons nous promener dans le parc.",
            "Oui.",
            "Le boulanger ouvre très tôt le dimanche matin.",
        ),
        pauses_s=(0.5, 1.0, 0.45, 0.9),
        noise="pink",
        snr_db=8.0,
        level_db=0.0,
        seed=22,
    ),
    ClipRecipe(
        name="val_it_female_brown12",
        voice=Voice("it+f4", 170, 55),
        sentences=(
            "La cena è pronta, venite a tavola prima che si raffreddi.",
            "Domani partiamo presto per la montagna.",
        ),
        pauses_s=(0.9, 0.6, 1.0),
        noise="brown",
        snr_db=12.0,
        level_db=-9.0,
        seed=23,
    ),
)


CALIBRATION_8K = (
    ClipRecipe(
        name="cal8k_pt_female_pink12",
        voice=Voice("pt-br+f1", 150, 55),
        sentences=(
            "Bom dia, gostaria de marcar uma consulta para a próxima semana.",
            "Pode ser na quinta-feira?",
        ),
        pauses_s=(0.7, 0.4, 1.1),
        noise="pink",
        snr_db=12.0,
        level_db=-2.0,
        seed=31,
        sample_rate=8000,
        telephone_band=True,
    ),
    ClipRecipe(
        name="cal8k_en_us_male_white18",
        voice=Voice("en-us+m2", 165, 40),
        sentences=(
            "Your call is important to us, please stay on the line.",
            "Press one for billing.",
            "Okay, thank you very much.",
        ),
        pauses_s=(0.5, 0.8, 0.3, 0.9),
        noise="white",
        snr_db=18.0,
        level_db=2.0,
        seed=32,
        sample_rate=8000,
        telephone_band=True,
    ),
    ClipRecipe(
        name="cal8k_nl_female_brown6",
        voice=Voice("nl+f3", 140, 65),
        sentences=(
            "Ik bel over de bestelling van gisteren.",
            "Die is nog steeds niet aangekomen, helaas.",
        ),
        pauses_s=(1.0, 0.6, 0.8),
        noise="brown",
        snr_db=6.0,
        level_db=-8.0,
        seed=33,
        sample_rate=8000,
        telephone_band=True,
    ),
)

VALIDATION_8K = (
    ClipRecipe(
        name="val8k_en_gb_male_pink10",
        voice=Voice("en-gb+m1", 155, 45),
        sentences=(
            "I am calling about the broken heater in flat twelve.",
            "Yes.",
            "Could someone come round tomorrow morning?",
        ),
        pauses_s=(0.6, 0.9, 0.4, 1.0),
        noise="pink",
        snr_db=10.0,
        level_db=0.0,
        seed=41,
        sample_rate=8000,
        telephone_band=True,
    ),
    ClipRecipe(
        name="val8k_de_male_white14",
        voice=Voice("de+m3", 150, 38),
        sentences=(
            "Guten Tag, hier spricht der Kundendienst.",
            "Wie kann ich Ihnen heute helfen?",
        ),
        pauses_s=(0.8, 0.5, 1.2),
        noise="white",
        snr_db=14.0,
        level_db=-4.0,
        seed=42,
        sample_rate=8000,
        telephone_band=True,
    ),
    ClipRecipe(
        name="val8k_es_female_brown9",
        voice=Voice("es+f2", 170, 60),
        sentences=(
            "El técnico llegará entre las diez y las doce.",
            "Muchas gracias, hasta luego.",
        ),
        pauses_s=(0.5, 0.7, 0.9),
        noise="brown",
        snr_db=9.0,
        level_db=3.0,
        seed=43,
        sample_rate=8000,
        telephone_band=True,
    ),
)

CLIP_SETS = {
    "calibration": CALIBRATION,
    "validation": VALIDATION,
    "calibration_8k": CALIBRATION_8K,
    "validation_8k": VALIDATION_8K,
}


def synthesize(voice: Voice, text: str, espeak: str, rate: int = SAMPLE_RATE) -> np.ndarray:
    """One sentence from espeak-ng, resampled to ``rate`` (float)."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "sentence.wav"
        subprocess.run(
            [espeak, "-v", voice.name, "-s", str(voice.speed), "-p", str(voice.pitch)]
            + ["-w", str(wav), text],
            check=True,
        )
        speech, espeak_rate = soundfile.read(str(wav), dtype="float64")
    if espeak_rate != ESPEAK_RATE:
        raise RuntimeError(f"espeak-ng wrote {espeak_rate} Hz, expected {ESPEAK_RATE} Hz")
    divisor = math.gcd(ESPEAK_RATE, rate)
    return resample_poly(speech, rate // divisor, ESPEAK_RATE // divisor)  # 22050 -> rate


def colored_noise(
    kind: str, length: int, rng: np.random.Generator, rate: int = SAMPLE_RATE
) -> np.ndarray:
    """Unit-RMS white, pink (1/f power) or brown (1/f^2 power) noise."""
    white = rng.standard_normal(length)
    if kind == "white":
        noise = white
    else:
        spectrum = np.fft.rfft(white)
        freqs = np.fft.rfftfreq(length, d=1.0 / rate)
        freqs[0] = freqs[1]
        exponent = {"pink": 0.5, "brown": 1.0}[kind]
        noise = np.fft.irfft(spectrum / freqs**exponent, n=length)
    return noise / np.sqrt(np.mean(noise**2))


def telephone_band(speech: np.ndarray, rate: int) -> np.ndarray:
    """Speech as a phone line passes it: 300-3400 Hz (4th-order Butterworth band-pass)."""
    sos = butter(4, TELEPHONE_BAND_HZ, btype="bandpass", fs=rate, output="sos")
    return sosfilt(sos, speech)


def make_clip(recipe: ClipRecipe, espeak: str) -> np.ndarray:
    """Pauses and sentences at the recipe's level, plus noise at its SNR, as int16."""
    rng = np.random.default_rng(recipe.seed)
    rate = recipe.sample_rate
    parts: list[np.ndarray] = []
    speech_mask: list[np.ndarray] = []
    for pause, sentence in zip(recipe.pauses_s, recipe.sentences, strict=False):
        parts.append(np.zeros(int(pause * rate)))
        speech = synthesize(recipe.voice, sentence, espeak, rate)
        if recipe.telephone_band:
            speech = telephone_band(speech, rate)
        parts.append(speech)
        speech_mask.append(speech)
    parts.append(np.zeros(int(recipe.pauses_s[-1] * rate)))
    clip = np.concatenate(parts)

    voiced = np.concatenate(speech_mask)
    voiced = voiced[np.abs(voiced) > 1e-3]
    speech_rms = np.sqrt(np.mean(voiced**2))
    target_rms = 10 ** ((SPEECH_RMS_DBFS + recipe.level_db) / 20)
    clip *= target_rms / speech_rms
    noise_rms = target_rms / 10 ** (recipe.snr_db / 20)
    clip += noise_rms * colored_noise(recipe.noise, clip.shape[0], rng, rate)
    return np.clip(np.round(clip * 32767), -32768, 32767).astype(np.int16)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=DATA_DIR)
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        choices=sorted(CLIP_SETS),
        help="clip set(s) to make (default: all)",
    )
    args = parser.parse_args(argv)

    espeak = shutil.which("espeak-ng")
    if espeak is None:
        print(
            "ERROR make_clips: espeak-ng not found; sudo apt-get install espeak-ng", file=sys.stderr
        )
        return 1
    for split in args.sets or list(CLIP_SETS):
        out_dir = args.output_dir / split
        out_dir.mkdir(parents=True, exist_ok=True)
        for recipe in CLIP_SETS[split]:
            clip = make_clip(recipe, espeak)
            path = out_dir / f"{recipe.name}.wav"
            soundfile.write(str(path), clip, recipe.sample_rate, subtype="PCM_16")
            print(f"{path}: {clip.shape[0] / recipe.sample_rate:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
