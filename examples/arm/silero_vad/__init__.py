# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD on Arm Ethos-U with ExecuTorch: the example (export, runtime, evaluation).

Importing the package or its modules installs no logging or warning filter: the
command-line entry points install theirs, for known third-party noise, when they run
(``third_party_noise``).
"""
