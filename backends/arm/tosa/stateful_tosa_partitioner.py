# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""TOSAPartitioner that leaves model-owned mutable buffers to the ExecuTorch runtime."""

from executorch.backends.arm.tosa.partitioner import TOSAPartitioner
from executorch.exir import ExportedProgram
from executorch.exir.backend.partitioner import PartitionResult


def mutable_buffer_placeholders(program: ExportedProgram) -> list:
    """Placeholders of the buffers the program writes back (``buffers_to_mutate``)."""
    signature = program.graph_signature
    mutated = set(signature.buffers_to_mutate.values())
    return [
        node
        for node in program.graph.find_nodes(op="placeholder")
        if signature.inputs_to_buffers.get(node.name) in mutated
    ]


class StatefulTOSAPartitioner(TOSAPartitioner):
    """Delegates the whole stateful model but keeps its mutable buffers outside the delegate.

    1.4.1's ``tag_constant_data`` tags a buffer read through ``dequantize(state)`` as
    constant data: the delegate would fold its reads into constants and the write would
    target a buffer that no longer exists. Untagged, the state is a delegate input and
    ExecuTorch performs the ``copy_`` on the CPU. (1.5.1 no longer tags it: a no-op there.)
    """

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        result = super().partition(exported_program)
        for placeholder in mutable_buffer_placeholders(result.tagged_exported_program):
            placeholder.meta.pop("delegation_tag", None)
        return result
