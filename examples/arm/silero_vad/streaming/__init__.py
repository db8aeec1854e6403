# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The Python streaming API: a CPU program on ExecuTorch's Python runtime, PCM in, speech
probabilities and segments out (``streaming_vad.StreamingVad``)."""
