# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""16-bit PCM from a byte stream read front to back (a pipe, a file): a RIFF/WAVE stream as
``arecord`` writes it, or headerless S16_LE.

The rules are the C++ runtime's stream reader's (``runtime/core/wav_reader.h``): PCM16 (or
WAVE_FORMAT_EXTENSIBLE PCM) mono at the program's rate, ``fmt`` before ``data``, other
chunks skipped, a RIFF or data size of 0 or 0xFFFFFFFF meaning "unknown", a declared data
size an upper bound (recorders declare more than they write).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator

_UNKNOWN_SIZES = (0, 0xFFFFFFFF)
_FORMAT_PCM, _FORMAT_FLOAT, _FORMAT_EXTENSIBLE = 0x0001, 0x0003, 0xFFFE
_SUBFORMAT_GUID_TAIL = bytes.fromhex("000000001000800000aa00389b71")

# Reads up to n bytes; b"" only at the end of the input.
ReadBytes = Callable[[int], bytes]


class PcmFormatError(ValueError):
    """Input that is not mono 16-bit PCM at the program's rate; the message says why."""


def _read_exactly(read: ReadBytes, size: int) -> bytes:
    """``size`` bytes, fewer only if the input ends first."""
    parts, got = [], 0
    while got < size:
        part = read(size - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _check_fmt(body: bytes, sample_rate: int) -> None:
    if len(body) < 16:
        raise PcmFormatError(f"fmt chunk is {len(body)} bytes, need at least 16")
    tag, channels, rate, _, block_align, bits = struct.unpack_from("<HHIIHH", body)
    valid_bits = 16
    if tag == _FORMAT_EXTENSIBLE:
        if len(body) < 40 or body[26:40] != _SUBFORMAT_GUID_TAIL:
            raise PcmFormatError("WAVE_FORMAT_EXTENSIBLE without the PCM sub-format")
        extension, valid_bits = struct.unpack_from("<HH", body, 16)
        if extension < 22:
            raise PcmFormatError(f"WAVE_FORMAT_EXTENSIBLE extension is {extension} bytes, need 22")
        tag = struct.unpack_from("<H", body, 24)[0]
    if tag != _FORMAT_PCM:
        kind = f"{bits}-bit IEEE float" if tag == _FORMAT_FLOAT else f"format tag 0x{tag:04x}"
        raise PcmFormatError(f"{kind} samples are not supported: need 16-bit integer PCM")
    if channels != 1:
        raise PcmFormatError(f"{channels} channels found: need mono")
    if bits != 16 or block_align != 2 or valid_bits != 16:
        raise PcmFormatError(
            f"{bits}-bit samples ({valid_bits} valid, {block_align} bytes a frame) found: "
            "need 16-bit PCM"
        )
    if rate != sample_rate:
        raise PcmFormatError(
            f"sample rate {rate} Hz found: the program takes {sample_rate} Hz (resample first)"
        )


def wav_data_bytes(read: ReadBytes, sample_rate: int) -> int | None:
    """Reads a RIFF/WAVE header up to the first sample; returns how many bytes of samples
    there are at most (None: unknown, read to the end of the input)."""
    riff = _read_exactly(read, 12)
    if len(riff) < 12:
        raise PcmFormatError(f"too short for a RIFF/WAVE header: {len(riff)} bytes, need 12")
    if riff[:4] != b"RIFF" or riff[8:12] != b"WAVE":
        raise PcmFormatError(
            f"not a RIFF/WAVE stream (it starts with {riff[:4]!r}); for headerless S16_LE use --raw"
        )
    riff_size = struct.unpack_from("<I", riff, 4)[0]
    riff_end = None if riff_size in _UNKNOWN_SIZES else riff_size + 8
    have_fmt, position = False, 12
    while riff_end is None or position < riff_end:
        header = _read_exactly(read, 8)
        if not header and riff_end is None:
            break  # the input ends between chunks: the end of the RIFF chunk
        if len(header) < 8:
            raise PcmFormatError(f"the input ends inside the chunk header at byte {position}")
        tag, size = header[:4], struct.unpack_from("<I", header, 4)[0]
        body = position + 8
        unknown_data = tag == b"data" and size in _UNKNOWN_SIZES
        if riff_end is not None and size > riff_end - body and not unknown_data:
            raise PcmFormatError(f"{tag!r} chunk declares {size} bytes, beyond the RIFF chunk")
        if tag == b"data":
            if not have_fmt:
                raise PcmFormatError("data chunk before the fmt chunk")
            if unknown_data:
                return None if riff_end is None else riff_end - body
            if size % 2:
                raise PcmFormatError(f"data size {size} bytes is not a multiple of 2")
            return size
        content = _read_exactly(read, size)
        if len(content) < size:
            raise PcmFormatError(f"the input ends inside the {tag!r} chunk")
        if tag == b"fmt ":
            if have_fmt:
                raise PcmFormatError("more than one fmt chunk")
            _check_fmt(content, sample_rate)
            have_fmt = True
        position = body + size
        if size % 2 and (riff_end is None or position < riff_end):
            position += len(read(1))  # the pad byte after an odd-sized chunk
    raise PcmFormatError(f"missing {'data' if have_fmt else 'fmt'} chunk")


def pcm_chunks(read: ReadBytes, sample_rate: int, raw: bool, chunk_bytes: int) -> Iterator[bytes]:
    """The PCM bytes of the input (after its WAV header unless ``raw``) as they arrive,
    at most ``chunk_bytes`` at a time; an odd trailing byte is dropped."""
    remaining = None if raw else wav_data_bytes(read, sample_rate)
    carry = b""
    while remaining is None or remaining > 0:
        want = chunk_bytes if remaining is None else min(chunk_bytes, remaining)
        data = read(want)
        if not data:
            return
        if remaining is not None:
            remaining -= len(data)
        data = carry + data
        even = len(data) - len(data) % 2
        carry = data[even:]
        if even:
            yield data[:even]
