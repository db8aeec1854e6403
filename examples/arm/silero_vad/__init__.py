# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Silero VAD on Arm Ethos-U with ExecuTorch: export, runtime, evaluation. Importing it
installs no logging or warning filter (the commands do, see ``third_party_noise``)."""
