# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""ExecuTorch's Python runtime, imported alone and run on one thread.

A process that only runs programs imports torch and the release's runtime extension
(``_portable_lib`` in 1.4, ``_C`` in 1.5) and nothing of the export stack:
``executorch.runtime`` imports ``executorch.exir``, which imports torchao, which prints on
import. The quantized kernels are loaded only for a program that calls them.

ExecuTorch's thread pool belongs to the process. A 32 ms frame is too small to share
between threads (XNNPACK on two threads measured twice as slow as on one on a 2-core x86
host), so the pool is set to one thread before the first program loads. It is never reset
later: a loaded XNNPACK method keeps the pool it was created with. Creating the pool logs
what the CPU probe read (``cpuinfo_utils.cpp``) on standard error; those lines, matched by
their text, are dropped, and anything else the runtime prints then still shows.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from types import ModuleType

# The runtime extension of each release, newest first.
_EXTENSIONS = (
    "executorch.extension.pybindings._C",
    "executorch.extension.pybindings._portable_lib",
)
_THREAD_POOL_START_UP = (
    re.compile(r"\[cpuinfo_utils\.cpp:\d+\] "),
    re.compile(r"\[threadpool\.cpp:\d+\] Resetting threadpool to 1 threads\.$"),
)


@contextlib.contextmanager
def _native_stderr_without(patterns: Sequence[re.Pattern[str]]) -> Iterator[None]:
    """Holds back what native code writes to file descriptor 2 while the block runs, then
    passes on every line no pattern matches."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            lines = held.read().decode(errors="replace").splitlines(keepends=True)
            kept = [line for line in lines if not any(p.match(line) for p in patterns)]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()


@functools.cache
def runtime_extension() -> ModuleType:
    """The release's runtime extension, its thread pool set to one thread."""
    import torch  # noqa: F401  (the extension links libtorch, which must be loaded first)

    for name in _EXTENSIONS:
        try:
            extension = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        with _native_stderr_without(_THREAD_POOL_START_UP):
            if extension._threadpool_get_thread_count() != 1:
                extension._unsafe_reset_threadpool(1)
        return extension
    raise RuntimeError(
        f"none of {', '.join(_EXTENSIONS)} is installed: reinstall executorch from pip"
    )


@functools.cache
def load_quantized_kernels() -> None:
    """Registers the quantize/dequantize kernels the cpu target's program calls."""
    runtime_extension()
    import executorch.kernels.quantized  # noqa: F401


def registered_backends() -> list[str]:
    return list(runtime_extension()._get_registered_backend_names())


class Method:
    """One loaded method: ``execute(inputs) -> outputs``; its signature in ``metadata``."""

    def __init__(self, method, program: Program) -> None:
        self._method = method
        self._program = program  # the method points into the program's bytes

    def execute(self, inputs: Sequence, clone_outputs: bool = True) -> list:
        """The outputs; without ``clone_outputs`` they live in the method's memory, valid
        until the next call."""
        return self._method(inputs, clone_outputs)

    @property
    def metadata(self):
        return self._method.method_meta()


class Program:
    """A program loaded from bytes, which it keeps alive for its methods."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        extension = runtime_extension()
        # Full verification: a corrupted file fails here, not in the middle of a stream.
        self._program = extension._load_program_from_buffer(
            data, program_verification=extension.Verification.InternalConsistency
        )

    def load_method(self, name: str) -> Method:
        return Method(self._program.load_method(name), self)
