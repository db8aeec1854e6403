# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""EthosUPartitioner that leaves model-owned mutable buffers to the ExecuTorch runtime."""

from executorch.backends.arm.ethosu import EthosUPartitioner

from backends.arm.tosa.stateful_tosa_partitioner import StatefulTOSAPartitioner


class StatefulEthosUPartitioner(StatefulTOSAPartitioner, EthosUPartitioner):
    """``StatefulTOSAPartitioner`` with ``EthosUPartitioner``'s compile spec and backend."""
