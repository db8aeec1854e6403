# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""EthosUPartitioner that leaves model-owned mutable buffers to the ExecuTorch runtime."""

from executorch.backends.arm.ethosu import EthosUPartitioner

from backends.arm.tosa.stateful_tosa_partitioner import StatefulTOSAPartitioner


class StatefulEthosUPartitioner(StatefulTOSAPartitioner, EthosUPartitioner):
    """Delegates the whole stateful model to Ethos-U but keeps its mutable buffers outside
    the delegate: ``StatefulTOSAPartitioner``'s partitioning with ``EthosUPartitioner``'s
    compile spec and backend (``EthosUPartitioner`` only sets those up; it partitions as
    ``TOSAPartitioner`` does).
    """
