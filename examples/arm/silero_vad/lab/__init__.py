# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The lab: benchmarks, studies, soak and clip generators. Nothing a product copies
imports from here."""
