# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.
"""Write the WAV corpus of the runtime tests: files the runner must accept and
files it must refuse, each with the part of the ERROR line it must print, for
the file path (``--wav FILE``) and the stream path (``--wav -``).

Layout written under --out-dir::

    good/*.wav          accepted by both paths (speech-like tone bursts, odd
                        chunk layouts, unknown sizes); 16 kHz unless *_8k.wav
    good/expected.tsv   <file name> TAB <number of samples> TAB <sample rate>
    bad/*.wav           refused by the file path
    bad/expected.tsv    <file name> TAB <text the file's ERROR line must contain>
                        TAB <the stream's outcome: "=" the same ERROR line,
                        "accept <samples>" (a header that declares more than
                        the stream delivers: the stream ends early), or a text
                        its ERROR line must contain>

The same files seed the WAV reader fuzzer. Files are built byte by byte
(not with the ``wave`` module) so that broken headers can be expressed.
"""

from __future__ import annotations

import argparse
import math
import random
import struct
import sys
from pathlib import Path

RATE = 16000
FORMAT_PCM = 1
FORMAT_FLOAT = 3
FORMAT_ALAW = 6
FORMAT_EXTENSIBLE = 0xFFFE
GUID_TAIL = bytes(
    [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
)


def chunk(tag: bytes, body: bytes, declared: int | None = None, pad: bool = True) -> bytes:
    """A RIFF chunk; `declared` overrides the size field, `pad` adds the odd-size pad byte."""
    size = len(body) if declared is None else declared
    data = tag + struct.pack("<I", size) + body
    if pad and len(body) % 2 == 1:
        data += b"\x00"
    return data


def fmt_body(
    tag: int = FORMAT_PCM,
    channels: int = 1,
    rate: int = RATE,
    bits: int = 16,
    block_align: int | None = None,
) -> bytes:
    align = channels * bits // 8 if block_align is None else block_align
    return struct.pack("<HHIIHH", tag, channels, rate, rate * align, align, bits)


def fmt_extensible(subformat: int, bits: int = 16, valid_bits: int = 16) -> bytes:
    base = fmt_body(FORMAT_EXTENSIBLE, 1, RATE, bits)
    extension = struct.pack("<HHI", 22, valid_bits, 0x4) + struct.pack("<H", subformat) + GUID_TAIL
    return base + extension


def with_sizes(data: bytes, riff_size: int, data_size: int) -> bytes:
    """A canonical 44-byte-header file with its RIFF and data size fields replaced."""
    return (
        data[:4]
        + struct.pack("<I", riff_size)
        + data[8:40]
        + struct.pack("<I", data_size)
        + data[44:]
    )


def riff(*chunks: bytes, declared: int | None = None) -> bytes:
    body = b"WAVE" + b"".join(chunks)
    size = len(body) if declared is None else declared
    return b"RIFF" + struct.pack("<I", size) + body


def speech_like(seconds: float, seed: int = 7, rate: int = RATE) -> list[int]:
    """Tone bursts over faint noise: clear 'speech' and 'silence' for an energy detector."""
    rng = random.Random(seed)
    bursts = [(0.40, 1.10), (1.60, 1.75), (2.20, 3.30)]
    samples = []
    for i in range(int(seconds * rate)):
        t = i / rate
        loud = any(start <= t < end for start, end in bursts)
        amplitude = 0.4 if loud else 0.0
        value = (
            amplitude
            * math.sin(2 * math.pi * 230 * t)
            * (0.8 + 0.2 * math.sin(2 * math.pi * 3 * t))
        )
        value += rng.gauss(0.0, 0.002)
        samples.append(max(-32768, min(32767, round(value * 32767))))
    return samples


def pcm16(samples: list[int]) -> bytes:
    return struct.pack(f"<{len(samples)}h", *samples)


def good_files() -> dict[str, tuple[bytes, int, int]]:
    """Accepted files: name -> (bytes, samples, sample rate)."""
    speech = speech_like(4.0)
    speech_8k = speech_like(4.0, rate=8000)
    short = speech_like(0.5, seed=3)
    info = chunk(b"LIST", b"INFOISFT" + struct.pack("<I", 5) + b"test\x00")
    odd = chunk(b"junk", b"odd")  # 3 bytes + pad byte
    fmt = chunk(b"fmt ", fmt_body())
    s = pcm16(short)
    plain = riff(fmt, chunk(b"data", s))
    n = len(short)
    return {
        "speech_like.wav": (riff(fmt, chunk(b"data", pcm16(speech))), len(speech), RATE),
        "speech_like_8k.wav": (
            riff(chunk(b"fmt ", fmt_body(rate=8000)), chunk(b"data", pcm16(speech_8k))),
            len(speech_8k),
            8000,
        ),
        "list_chunk_first.wav": (riff(info, fmt, chunk(b"data", s)), n, RATE),
        "odd_chunk_padding.wav": (riff(fmt, odd, chunk(b"data", s), odd), n, RATE),
        "extensible_pcm.wav": (
            riff(chunk(b"fmt ", fmt_extensible(FORMAT_PCM)), chunk(b"data", s)),
            n,
            RATE,
        ),
        "fmt_18_bytes.wav": (
            riff(chunk(b"fmt ", fmt_body() + b"\x00\x00"), chunk(b"data", s)),
            n,
            RATE,
        ),
        "trailing_garbage.wav": (plain + b"GARBAGE!", n, RATE),
        "exactly_one_frame.wav": (riff(fmt, chunk(b"data", pcm16([1000] * 512))), 512, RATE),
        "partial_last_frame.wav": (riff(fmt, chunk(b"data", pcm16([-1000] * 1500))), 1500, RATE),
        # Nothing after the data chunk is read: a final odd chunk whose pad byte the
        # writer left out, a second data chunk.
        "missing_final_pad.wav": (
            riff(fmt, chunk(b"data", s), chunk(b"note", b"x", pad=False)),
            n,
            RATE,
        ),
        "two_data_chunks.wav": (
            riff(fmt, chunk(b"data", s), chunk(b"data", pcm16([0] * 600))),
            n,
            RATE,
        ),
        # What a writer that cannot seek back leaves: sizes 0 or 0xFFFFFFFF are
        # "unknown", the samples run to the end of the input (or of a known RIFF chunk).
        "unknown_sizes_ffffffff.wav": (with_sizes(plain, 0xFFFFFFFF, 0xFFFFFFFF), n, RATE),
        "unknown_sizes_zero.wav": (with_sizes(plain, 0, 0), n, RATE),
        "unknown_data_size_in_known_riff.wav": (
            with_sizes(plain, len(plain) - 8, 0xFFFFFFFF) + b"after the RIFF chunk",
            n,
            RATE,
        ),
        "unknown_sizes_dangling_byte.wav": (with_sizes(plain, 0, 0) + b"\x55", n, RATE),
    }


def bad_files() -> dict[str, tuple[bytes, str, str]]:
    """Refused files: name -> (bytes, the file's ERROR text, the stream's outcome)."""
    short = pcm16([0] * 1024)
    fmt = chunk(b"fmt ", fmt_body())
    data = chunk(b"data", short)
    full = riff(fmt, data)
    stereo = pcm16([0] * 2048)
    same = "="
    return {
        "empty.wav": (b"", "too short for a RIFF/WAVE header: 0 bytes, need at least 12", same),
        "truncated_riff_header.wav": (
            full[:10],
            "too short for a RIFF/WAVE header: 10 bytes",
            same,
        ),
        "truncated_in_fmt.wav": (
            full[:30],
            "truncated file: the RIFF header declares 2084 bytes but only 22 follow it",
            "input ends inside the 'fmt ' chunk at byte 12: 10 of its 16 bytes",
        ),
        "truncated_in_data.wav": (
            full[:-100],
            "truncated file: the RIFF header declares 2084 bytes but only 1984 follow it",
            "accept 974",
        ),
        "cut_header_unknown_riff.wav": (
            with_sizes(full, 0xFFFFFFFF, len(short))[:30],
            "input ends inside the 'fmt ' chunk at byte 12: 10 of its 16 bytes",
            same,
        ),
        "text_file.wav": (
            b"hello, this is not audio at all\n" * 4,
            "not a RIFF/WAVE file: starts with 'hell'",
            same,
        ),
        "garbage.wav": (
            bytes((i * 2654435761 >> 11) & 0xFF for i in range(3000)),
            "not a RIFF/WAVE file: starts with",
            same,
        ),
        "rifx_big_endian.wav": (b"RIFX" + full[4:], "big-endian RIFX file", same),
        "riff_avi.wav": (
            b"RIFF" + full[4:8] + b"AVI " + full[12:],
            "RIFF file of type 'AVI ', expected 'WAVE'",
            same,
        ),
        "stereo.wav": (
            riff(chunk(b"fmt ", fmt_body(channels=2)), chunk(b"data", stereo)),
            "2 channels (stereo) found: need mono",
            same,
        ),
        "six_channels.wav": (
            riff(chunk(b"fmt ", fmt_body(channels=6)), chunk(b"data", pcm16([0] * 6 * 600))),
            "6 channels (multi-channel) found: need mono",
            same,
        ),
        "zero_channels.wav": (
            riff(chunk(b"fmt ", fmt_body(channels=0, block_align=2)), data),
            "fmt chunk declares 0 channels",
            same,
        ),
        "pcm8.wav": (
            riff(chunk(b"fmt ", fmt_body(bits=8)), chunk(b"data", bytes([128]) * 1024)),
            "8-bit samples found: need 16-bit PCM",
            same,
        ),
        "pcm24.wav": (
            riff(chunk(b"fmt ", fmt_body(bits=24)), chunk(b"data", bytes(3 * 1024))),
            "24-bit samples found: need 16-bit PCM",
            same,
        ),
        "pcm32.wav": (
            riff(chunk(b"fmt ", fmt_body(bits=32)), chunk(b"data", bytes(4 * 1024))),
            "32-bit samples found: need 16-bit PCM",
            same,
        ),
        "float32.wav": (
            riff(
                chunk(b"fmt ", fmt_body(tag=FORMAT_FLOAT, bits=32)), chunk(b"data", bytes(4 * 1024))
            ),
            "32-bit IEEE float samples are not supported",
            same,
        ),
        "extensible_float.wav": (
            riff(
                chunk(b"fmt ", fmt_extensible(FORMAT_FLOAT, bits=32, valid_bits=32)),
                chunk(b"data", bytes(4 * 1024)),
            ),
            "32-bit IEEE float samples are not supported",
            same,
        ),
        "extensible_unknown_guid.wav": (
            riff(chunk(b"fmt ", fmt_extensible(FORMAT_PCM)[:-1] + b"\x00"), data),
            "unknown sub-format GUID",
            same,
        ),
        "extensible_12_valid_bits.wav": (
            riff(chunk(b"fmt ", fmt_extensible(FORMAT_PCM, valid_bits=12)), data),
            "12 valid bits in 16-bit containers",
            same,
        ),
        "alaw.wav": (
            riff(chunk(b"fmt ", fmt_body(tag=FORMAT_ALAW, bits=8)), chunk(b"data", bytes(1024))),
            "format tag 0x0006 (A-law) is not supported",
            same,
        ),
        "rate_44100.wav": (
            riff(chunk(b"fmt ", fmt_body(rate=44100)), data),
            "sample rate 44100 Hz found: the program takes 16000 Hz (resample first)",
            same,
        ),
        "rate_8000.wav": (
            riff(chunk(b"fmt ", fmt_body(rate=8000)), data),
            "sample rate 8000 Hz found: the program takes 16000 Hz (resample first, or use "
            "the model exported with run.sh --sample-rate 8000)",
            same,
        ),
        "block_align_4.wav": (
            riff(chunk(b"fmt ", fmt_body(block_align=4)), data),
            "block align 4 does not match 16-bit mono",
            same,
        ),
        "short_fmt.wav": (
            riff(chunk(b"fmt ", fmt_body()[:14]), data),
            "fmt chunk is 14 bytes, need at least 16",
            same,
        ),
        "two_fmt_chunks.wav": (riff(fmt, fmt, data), "more than one fmt chunk", same),
        "data_before_fmt.wav": (
            riff(data, fmt),
            "data chunk before the fmt chunk: the fmt chunk must come first",
            same,
        ),
        "missing_fmt.wav": (riff(chunk(b"LIST", b"INFO")), "missing fmt chunk", same),
        "missing_data.wav": (riff(fmt), "missing data chunk", same),
        "zero_length_data.wav": (riff(fmt, chunk(b"data", b"")), "data chunk is empty", same),
        "odd_data_size.wav": (
            riff(fmt, chunk(b"data", short + b"\x01")),
            "is not a multiple of the block align",
            same,
        ),
        "data_size_beyond_riff.wav": (
            riff(fmt, chunk(b"data", short, declared=len(short) + 4096)),
            "data chunk declares 6144 bytes but only 2048 remain in the RIFF chunk",
            same,
        ),
        "huge_data_size.wav": (
            riff(fmt, chunk(b"data", short, declared=0xFFFFFFF0)),
            "data chunk declares 4294967280 bytes but only 2048 remain in the RIFF chunk",
            same,
        ),
        # A RIFF size far beyond the file: a file is truncated; a stream takes it as
        # an upper bound (a recorder's header) and ends with the data it has.
        "huge_riff_size.wav": (
            riff(fmt, data, declared=0xFFFFFFF0),
            "truncated file: the RIFF header declares 4294967280 bytes",
            "accept 1024",
        ),
        "arecord_header.wav": (
            with_sizes(full, 0x80000024, 0x80000000),
            "truncated file: the RIFF header declares 2147483684 bytes",
            "accept 1024",
        ),
        "sox_header.wav": (
            with_sizes(full, 0x7FFFF024, 0x7FFFF000),
            "truncated file: the RIFF header declares 2147479588 bytes",
            "accept 1024",
        ),
        "huge_list_chunk.wav": (
            riff(chunk(b"LIST", b"INFO", declared=0xFFFFFFF0), fmt, data),
            "'LIST' chunk at byte 12 declares 4294967280 bytes",
            same,
        ),
        # The RIFF size covers 2 stray bytes after the fmt chunk: a cut chunk header.
        "truncated_chunk_header.wav": (
            _cut_chunk_header(fmt),
            "truncated chunk header at byte 36: 2 bytes left, need 8",
            same,
        ),
        "riff_size_too_small.wav": (
            b"RIFF" + struct.pack("<I", 2) + b"WAVE",
            "cannot even hold the 'WAVE' tag",
            same,
        ),
        "shorter_than_a_frame.wav": (
            riff(fmt, chunk(b"data", pcm16([0] * 511))),
            "clip has 511 samples, shorter than one frame (512 samples = 32 ms at 16000 Hz)",
            same,
        ),
    }


def _cut_chunk_header(fmt: bytes) -> bytes:
    """RIFF/WAVE with the fmt chunk, then 2 bytes the RIFF size covers."""
    body = b"WAVE" + fmt + b"LI"
    return b"RIFF" + struct.pack("<I", len(body)) + body


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, required=True, help="where to write good/ and bad/")
    args = parser.parse_args()
    good_dir = args.out_dir / "good"
    bad_dir = args.out_dir / "bad"
    good_dir.mkdir(parents=True, exist_ok=True)
    bad_dir.mkdir(parents=True, exist_ok=True)
    good = good_files()
    for name, (data, _, _) in good.items():
        (good_dir / name).write_bytes(data)
    (good_dir / "expected.tsv").write_text(
        "".join(f"{n}\t{count}\t{rate}\n" for n, (_, count, rate) in sorted(good.items()))
    )
    bad = bad_files()
    lines = []
    for name, (data, message, stream) in sorted(bad.items()):
        (bad_dir / name).write_bytes(data)
        lines.append(f"{name}\t{message}\t{stream}\n")
    (bad_dir / "expected.tsv").write_text("".join(lines))
    print(f"make_wav_corpus: {len(good)} good and {len(bad)} bad files in {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
