# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""How good the exported VAD is, and whether a device runs it as exported: the device
twin, the references, the comparison of probability logs, the accuracy metrics, the
recording conditions, the report and its plots, and the checks of the C++ runtime."""
