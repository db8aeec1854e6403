# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The targets: every Ethos-U configuration Vela knows, and two host programs that must not
be mistaken for each other (``HOST_TARGETS``): ``xnnpack``, float Silero on the release's
XNNPACK backend, the program for Linux-class products; ``cpu``, the NPU's quantized
arithmetic on ExecuTorch's portable kernels, the host reference of the Ethos-U programs.
Ethos-U55 and U65 run the TOSA "+u55" subset without REVERSE, so the framed STFT reverses
with an exchange matrix there; Vela's defaults come from the installed release's
``EthosUCompileSpec``."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from ethosu.vela.architecture_features import Accelerator
from executorch.backends.arm.ethosu import EthosUCompileSpec

CPU_TARGET = "cpu"
XNNPACK_TARGET = "xnnpack"
DEFAULT_NPU_TARGET = "ethos-u85-256"
# What each host program is for, as --help, the READMEs and report.json say it.
HOST_TARGETS = {
    XNNPACK_TARGET: "float Silero on XNNPACK, the program for Linux hosts "
    "(StreamingVad, silero_vad_runner)",
    CPU_TARGET: "the NPU's quantized arithmetic on portable kernels, the NPU's host "
    "reference (slow; not for products)",
}


def _targets_by_family() -> dict[str, tuple[str, ...]]:
    """Vela's accelerator configurations ("ethos-u55-128", ...) by family, in Vela's order."""
    families: dict[str, list[str]] = defaultdict(list)
    for accelerator in Accelerator:
        family, _, _macs = accelerator.value.rpartition("-")
        families[family].append(accelerator.value)
    return {family: tuple(targets) for family, targets in families.items()}


ETHOS_U_TARGETS = _targets_by_family()
_FAMILIES_WITHOUT_REVERSE = ("ethos-u55", "ethos-u65")
_FLAG = re.compile(r"--(system-config|memory-mode)=(\S+)")


def all_targets() -> list[str]:
    ethos_u = [target for targets in ETHOS_U_TARGETS.values() for target in targets]
    return ethos_u + list(HOST_TARGETS)


def target_family(target: str) -> str:
    """``ethos-u55``, ``ethos-u65``, ``ethos-u85``, ``xnnpack`` or ``cpu``; ValueError
    otherwise."""
    if target in HOST_TARGETS:
        return target
    for family, targets in ETHOS_U_TARGETS.items():
        if target in targets:
            return family
    raise ValueError(f"target {target!r}: expected one of {', '.join(all_targets())}")


def program_role(target: str) -> str:
    """What the program of ``target`` is for (report.json's ``program``)."""
    if target_family(target) in HOST_TARGETS:
        return HOST_TARGETS[target]
    return f"quantized Silero (a16w8) for the {target} NPU: the product program for the device"


def reversal_for(target: str) -> str:
    """How the framed STFT reverses samples on ``target``: ``"flip"`` or ``"matmul"``."""
    return "matmul" if target_family(target) in _FAMILIES_WITHOUT_REVERSE else "flip"


@dataclass(frozen=True)
class VelaSettings:
    system_config: str
    memory_mode: str


def default_vela_settings(target: str) -> VelaSettings:
    """``EthosUCompileSpec``'s own default system config and memory mode for ``target``."""
    if target_family(target) in HOST_TARGETS:
        raise ValueError(f"the {target} target has no Vela settings")
    flags = dict(_FLAG.findall(" ".join(EthosUCompileSpec(target=target).compiler_flags)))
    try:
        return VelaSettings(flags["system-config"], flags["memory-mode"])
    except KeyError:
        raise RuntimeError(
            f"EthosUCompileSpec({target!r}) set no --system-config/--memory-mode flags: "
            "an executorch release this example does not know"
        ) from None
