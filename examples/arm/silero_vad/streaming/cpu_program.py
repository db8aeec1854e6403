# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""A host program on ExecuTorch's Python runtime, loaded and checked against the program
contract (one int16 or float32 frame in, one probability out, the frame geometry in its
metadata methods), or refused with the file and the reason. The host programs are
``run.sh --target xnnpack`` (float Silero on XNNPACK, the product program) and ``--target
cpu`` (the NPU's quantized arithmetic on the portable kernels, its host reference); an
Ethos-U program needs the NPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from examples.arm.silero_vad.model_export.frame_geometry import FrameGeometry, frame_geometry
from examples.arm.silero_vad.streaming.host_runtime import (
    Method,
    Program,
    load_quantized_kernels,
    registered_backends,
)
from examples.arm.silero_vad.streaming.pte_contents import PteFormatError, read_pte_contents

METHOD = "forward"
OUTPUT_SHAPE = (1, 1)
# ScalarType codes of the runtime's TensorInfo.dtype(): the two audio inputs a program has.
_INPUT_DTYPES = {2: np.int16, 6: np.float32}
ETHOS_U_BACKEND = "EthosUBackend"
XNNPACK_BACKEND = "XnnpackBackend"
# The operators of the quantized program that need executorch.kernels.quantized.
_QUANTIZED_OPERATORS = "quantized_decomposed::"


class CpuProgramError(ValueError):
    """A program (or clip) the host cannot run; the message names the file and the reason."""


def read_cpu_program(path: Path) -> bytes:
    """The bytes of a ``.pte`` the host runtime can run, or an error saying why not."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise CpuProgramError(f"{path}: cannot read the program ({error.strerror})") from None
    if not data:
        raise CpuProgramError(f"{path}: empty file, not an ExecuTorch program")
    try:
        contents = read_pte_contents(data)
    except PteFormatError as error:
        raise CpuProgramError(f"{path}: not a readable ExecuTorch program ({error})") from None
    backends = set(contents.backends)
    if ETHOS_U_BACKEND in backends:
        raise CpuProgramError(
            f"{path}: delegated to the Ethos-U NPU ({ETHOS_U_BACKEND}); it needs the Ethos-U "
            "backend, which only the Corstone-320 image has (FVP or hardware: "
            "backends/arm/test/test_arm_ootb.sh run_silero_vad_e2e_ethos_u). For the host, "
            "export with examples/arm/silero_vad/run.sh --target xnnpack."
        )
    if backends - {XNNPACK_BACKEND}:
        raise CpuProgramError(
            f"{path}: delegated to {', '.join(sorted(backends))}; this tool runs the host "
            "programs (export with examples/arm/silero_vad/run.sh --target xnnpack, or cpu)"
        )
    if backends and XNNPACK_BACKEND not in registered_backends():
        raise CpuProgramError(
            f"{path}: delegated to {XNNPACK_BACKEND}, which this executorch's runtime lacks "
            f"(it has {', '.join(registered_backends()) or 'no backend'})"
        )
    return data


def load_program(pte: bytes) -> Program:
    """The program on the runtime, with the quantized kernels registered first if it calls
    them (unreadable bytes are left to the runtime's own verification)."""
    try:
        operators = read_pte_contents(pte).operators
    except PteFormatError:
        operators = ()
    if any(name.startswith(_QUANTIZED_OPERATORS) for name in operators):
        load_quantized_kernels()
    return Program(pte)


def program_geometry(program, name: str) -> FrameGeometry:
    """The frame geometry from the program's metadata methods (run, as the C++ runtime does)."""
    try:
        values = {
            key: int(program.load_method(key).execute([])[0])
            for key in ("sample_rate", "hop_samples", "context_samples")
        }
        geometry = frame_geometry(values["sample_rate"])
    except (RuntimeError, KeyError, ValueError) as error:
        raise CpuProgramError(
            f"{name}: no frame geometry in the program's metadata methods ({error}); export it "
            "with this version of run.sh"
        ) from None
    if geometry.metadata() != values:
        raise CpuProgramError(f"{name}: metadata {values}, expected {geometry.metadata()}")
    return geometry


def load_forward(pte: bytes, name: str) -> tuple[Method, FrameGeometry, type]:
    """A new load of the program (methods of one load share its state), so the method
    starts from the initial state: ``forward``, the frame geometry, the input dtype."""
    program = load_program(pte)
    geometry = program_geometry(program, name)
    try:
        method = program.load_method(METHOD)
    except RuntimeError as error:
        raise CpuProgramError(
            f"{name}: cannot load {METHOD!r} ({error}); a 'Missing operator' means the "
            "program needs a kernel the Python runtime lacks"
        ) from None
    return method, geometry, program_input_dtype(method, name, geometry)


def program_input_dtype(method, path: str, geometry: FrameGeometry) -> type:
    """Checks ``forward``'s signature; returns the audio input's numpy dtype."""
    meta = method.metadata
    input_shape = (1, geometry.frame_samples)
    if meta.num_inputs() != 1 or meta.num_outputs() != 1:
        raise CpuProgramError(
            f"{path}: {METHOD} has {meta.num_inputs()} input(s) and {meta.num_outputs()} "
            f"output(s): expected 1 and 1 (frame {input_shape} -> probability {OUTPUT_SHAPE})"
        )
    for what, info, shape in (
        ("input", meta.input_tensor_meta(0), input_shape),
        ("output", meta.output_tensor_meta(0), OUTPUT_SHAPE),
    ):
        if tuple(info.sizes()) != shape:
            raise CpuProgramError(
                f"{path}: {METHOD} {what} has shape {tuple(info.sizes())}: expected {shape}"
            )
    dtype = _INPUT_DTYPES.get(int(meta.input_tensor_meta(0).dtype()))
    if dtype is None:
        raise CpuProgramError(f"{path}: {METHOD} input is neither int16 nor float32")
    return dtype
