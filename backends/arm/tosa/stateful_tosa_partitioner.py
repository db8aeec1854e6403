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

    ``tag_constant_data`` recognises a mutated buffer only when the buffer placeholder
    itself feeds the mutation. With an explicit ``dequantize(state)`` read and a
    ``quantize(new_state)`` write, the placeholder's users are ordinary ops, so the buffer
    is tagged as constant data: it is copied into the delegate, the Arm pipeline folds
    its reads into constants (``FuseConstantArgsPass``), and the write points at a buffer
    that no longer exists. Untagging it makes the state a delegate input: the delegate
    reads the integer state and returns the new one, and ExecuTorch keeps the buffer
    and performs the write (``copy_``) on the CPU.

    executorch 1.5.1's ``tag_constant_data`` recognises mutated buffers from the graph
    signature and no longer tags them; there this finds nothing to untag and stays as the
    guarantee, whatever a release's partitioner decides.

    This class partitions for the TOSA backend (the TOSA reference model);
    ``StatefulEthosUPartitioner`` is the same for Ethos-U.
    """

    def partition(self, exported_program: ExportedProgram) -> PartitionResult:
        result = super().partition(exported_program)
        for placeholder in mutable_buffer_placeholders(result.tagged_exported_program):
            placeholder.meta.pop("delegation_tag", None)
        return result
