# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from executorch.backends.arm._passes.arm_pass import ArmPass
from executorch.exir.pass_base import ExportPass
from torch.export import ExportedProgram
from torch.fx.passes.infra.pass_base import PassResult

from backends.arm._passes.pass_provenance import mark_created_by
from backends.arm._passes.upstream_capabilities import release_buffer_restore_disabled

GraphPass = Callable[[torch.fx.GraphModule], PassResult | None]

_COPY = torch.ops.aten.copy_.default


@dataclass(frozen=True)
class MutableBuffer:
    """A buffer the model writes with ``copy_``: its attribute name and its tensor."""

    name: str
    tensor: torch.Tensor

    def is_storage_of(self, value: Any) -> bool:
        """True when ``value`` is this buffer's memory (the same storage and view)."""
        return (
            isinstance(value, torch.Tensor)
            and value.untyped_storage().data_ptr() == self.tensor.untyped_storage().data_ptr()
            and value.storage_offset() == self.tensor.storage_offset()
            and value.shape == self.tensor.shape
            and value.dtype == self.tensor.dtype
        )


def _attr(graph_module: torch.fx.GraphModule, target: str) -> Any:
    value: Any = graph_module
    for atom in target.split("."):
        value = getattr(value, atom, None)
    return value


def register_buffer(graph_module: torch.fx.GraphModule, name: str, tensor: torch.Tensor) -> None:
    """Registers ``tensor`` as the buffer ``name`` (dotted), on its owner submodule."""
    owner_path, _, leaf = name.rpartition(".")
    if owner_path and not isinstance(_attr(graph_module, owner_path), torch.nn.Module):
        # Retracing flattens the module tree: a nested buffer (``cell.h``) needs its
        # owner rebuilt, or the name the program writes would have nothing behind it.
        if not graph_module.add_submodule(owner_path, torch.nn.Module()):
            raise RuntimeError(f"cannot rebuild module '{owner_path}' for buffer '{name}'")
    owner = graph_module.get_submodule(owner_path) if owner_path else graph_module
    owner.register_buffer(leaf, tensor)


def mutable_buffers(graph_module: torch.fx.GraphModule) -> list[MutableBuffer]:
    """The buffers written by ``copy_`` in an (unlifted) graph module, in graph order."""
    found: dict[str, MutableBuffer] = {}
    for node in graph_module.graph.find_nodes(op="call_function", target=_COPY):
        destination = node.args[0]
        if isinstance(destination, torch.fx.Node) and destination.op == "get_attr":
            name = str(destination.target)
            found.setdefault(name, MutableBuffer(name, _attr(graph_module, name)))
    return list(found.values())


def _writes_and_reads(graph_module: torch.fx.GraphModule, name: str) -> tuple[int, int]:
    writes = reads = 0
    for node in graph_module.graph.find_nodes(op="get_attr", target=name):
        for user in node.users:
            if user.target is _COPY and user.args[0] is node:
                writes += 1
            else:
                reads += 1
    return writes, reads


class PreserveMutableBuffersPass(ArmPass):
    """Runs one pass, then gives every mutable buffer back its name and its tensor.

    Arm passes retrace the graph (``ExportPass``), which re-registers each ``get_attr``
    tensor under a generated name (``_tensor_constant0``), and ``DeduplicateGetAttrPass``
    gives a second reader its own alias attribute. The buffer write then targets a name
    the program does not own, and once re-exported the state is a constant. Before the
    wrapped pass this records the buffers written by ``copy_`` (name -> tensor); after
    it, each ``get_attr`` that reads one of those tensors' memory is pointed back at the
    original name and the aliases are removed. Matching by storage, not by contents or
    position, keeps two buffers with equal contents (zeros) apart and does not depend on
    the order of the writes. A pass that drops a write or freezes every read of a
    buffer is reported, not repaired. Each ``get_attr`` it points back is marked
    (``pass_provenance``).

    Releases after 1.4.1 restore buffers inside ``ArmPass`` too; for the pass it wraps,
    this switches that restore off (``upstream_capabilities``), so the job is done once,
    by the same rule on every release.

    In a pipeline it stands for the pass it wraps: its ``__name__``, the passes it
    requires after it and its annotation flag (``tfa_pass``) are the wrapped pass's, and
    so is any attribute that ``ArmPass`` does not define. It replaces ``ArmPass.__call__``,
    not only ``call``: the wrapped pass runs through its own ``__call__`` (checks,
    retrace), and the release's per-pass restore must not run a second time around it.
    """

    def __init__(self, wrapped: GraphPass) -> None:
        super().__init__(tfa_pass=getattr(wrapped, "is_tfa_pass", False))
        self.wrapped = wrapped
        self.__name__ = ArmPass.get_name(wrapped)
        self._program: ExportedProgram | None = None

    @property
    def _passes_required_after(self) -> set[type[ExportPass]]:
        return set(getattr(self.wrapped, "_passes_required_after", set()))

    # ArmPassManager's lowering pipeline hands the current ExportedProgram to every pass
    # that has this attribute: it tells a lifted graph's buffers apart from its inputs.
    @property
    def exported_program(self) -> Any:
        return self._program

    @exported_program.setter
    def exported_program(self, value: Any) -> None:
        self._program = value
        if hasattr(self.wrapped, "exported_program"):
            self.wrapped.exported_program = value

    def __getattr__(self, name: str) -> Any:
        # Anything else ArmPass does not define (the wrapped pass's settings) is the
        # wrapped pass's.
        if name in ("wrapped", "_program"):
            raise AttributeError(name)
        return getattr(self.wrapped, name)

    def __call__(self, graph_module: torch.fx.GraphModule) -> PassResult | None:
        return self.call(graph_module)

    def call(self, graph_module: torch.fx.GraphModule) -> PassResult | None:
        program = self._program
        if program is not None and graph_module is program.graph_module:
            return self._call_on_program(program, graph_module)
        buffers = mutable_buffers(graph_module)
        before = {b.name: _writes_and_reads(graph_module, b.name) for b in buffers}
        with release_buffer_restore_disabled():
            result = self.wrapped(graph_module)
        if result is None or not buffers:
            return result
        restored = self._restore(result.graph_module, buffers)
        for buffer in buffers:
            writes, reads = _writes_and_reads(result.graph_module, buffer.name)
            writes_before, reads_before = before[buffer.name]
            if writes < writes_before:
                raise RuntimeError(f"{self.__name__} dropped the write to buffer '{buffer.name}'")
            if reads_before and not reads:
                raise RuntimeError(
                    f"{self.__name__} froze the reads of mutable buffer '{buffer.name}'"
                )
        return PassResult(result.graph_module, result.modified or restored)

    def _call_on_program(
        self, program: ExportedProgram, graph_module: torch.fx.GraphModule
    ) -> PassResult | None:
        """Lifted graph (lowering pipeline): buffers are placeholders named by the signature.

        Placeholder names survive retracing, so here the guard checks rather than
        repairs: each mutated buffer keeps its placeholder, its readers and its tensor.
        """
        signature = program.graph_signature
        mutated = set(signature.buffers_to_mutate.values())
        watched = {
            name: (target, program.state_dict.get(target))
            for name, target in signature.inputs_to_buffers.items()
            if target in mutated
        }
        with release_buffer_restore_disabled():
            result = self.wrapped(graph_module)
        if result is None:
            return result
        placeholders = {n.name: n for n in result.graph_module.graph.find_nodes(op="placeholder")}
        for name, (target, tensor) in watched.items():
            node = placeholders.get(name)
            if node is None or not node.users:
                raise RuntimeError(
                    f"{self.__name__} froze or removed mutable buffer '{target}' "
                    f"(placeholder {name}); keep mutable buffers out of the delegate"
                )
            if program.state_dict.get(target) is not tensor:
                raise RuntimeError(f"{self.__name__} replaced the tensor of buffer '{target}'")
        return result

    def _restore(self, graph_module: torch.fx.GraphModule, buffers: list[MutableBuffer]) -> bool:
        aliases: set[str] = set()
        repaired: set[str] = set()
        first_reader: dict[str, torch.fx.Node] = {}
        for node in list(graph_module.graph.find_nodes(op="get_attr")):
            value = _attr(graph_module, str(node.target))
            owner = next((b for b in buffers if b.is_storage_of(value)), None)
            if owner is None:
                continue
            if node.target != owner.name:
                aliases.add(str(node.target))
                node.target = owner.name
                repaired.add(owner.name)
            # One get_attr node per buffer: torchao's folder deletes the attribute behind
            # a get_attr left without users, even when another node still reads it.
            if owner.name in first_reader:
                node.replace_all_uses_with(first_reader[owner.name])
                graph_module.graph.erase_node(node)
                repaired.add(owner.name)
            else:
                first_reader[owner.name] = node
        for name in repaired:
            mark_created_by(first_reader[name], self)
        changed = bool(repaired)
        for buffer in buffers:
            # Retracing can hand back the buffer as a tensor that requires grad, and
            # copy_ into such a tensor fails; detach() keeps the same storage.
            tensor = buffer.tensor.detach() if buffer.tensor.requires_grad else buffer.tensor
            if _attr(graph_module, buffer.name) is not tensor:
                register_buffer(graph_module, buffer.name, tensor)
                changed = True
        still_used = {str(n.target) for n in graph_module.graph.find_nodes(op="get_attr")}
        for alias in aliases - still_used:
            if "." not in alias and hasattr(graph_module, alias):
                delattr(graph_module, alias)
        if changed:
            graph_module.recompile()
        return changed
