# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Whether a device runs the exported VAD as exported, and how good it is: the device
twin, references, comparisons, accuracy, recording conditions, report and plots."""
