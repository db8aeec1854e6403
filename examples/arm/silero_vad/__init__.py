# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD on Arm Ethos-U with ExecuTorch: the example (export, runtime, evaluation)."""

from examples.arm.silero_vad.third_party_noise import silence_known_third_party_noise

# Before any submodule imports torch: the noise is printed at import time.
silence_known_third_party_noise()
