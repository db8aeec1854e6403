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
        # Retracing flattens the module tree: rebuild a nested buffer's owner.
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
    uses = [
        (u, n) for n in graph_module.graph.find_nodes(op="get_attr", target=name) for u in n.users
    ]
    writes = sum(user.target is _COPY and user.args[0] is node for user, node in uses)
    return writes, len(uses) - writes


class PreserveMutableBuffersPass(ArmPass):
    """Runs one pass, then gives every mutable buffer back its name and its tensor.

    Retracing re-registers each ``get_attr`` tensor under a generated name, and
    ``DeduplicateGetAttrPass`` aliases second readers: the ``copy_`` then writes a name the
    program does not own and the state becomes a constant. This records the written
    buffers before the pass and afterwards points every ``get_attr`` reading their storage
    (storage, not contents: equal zero buffers stay apart) back at the original name,
    removing the aliases and marking what it repaired. A dropped write or frozen reads are
    reported, not repaired. The release's own per-pass restore (after 1.4.1) is switched
    off around the wrapped pass, so one rule runs on every release.

    In a pipeline it stands for the wrapped pass (name, required passes, ``tfa_pass`` flag,
    other attributes), and it replaces ``__call__`` so the wrapped pass runs through its
    own ``__call__`` and no restore runs twice.
    """

    def __init__(self, wrapped: Callable[[torch.fx.GraphModule], PassResult | None]) -> None:
        super().__init__(tfa_pass=getattr(wrapped, "is_tfa_pass", False))
        self.wrapped = wrapped
        self.__name__ = ArmPass.get_name(wrapped)
        self._program: ExportedProgram | None = None

    @property
    def _passes_required_after(self) -> set[type[ExportPass]]:
        return set(getattr(self.wrapped, "_passes_required_after", set()))

    # The lowering pipeline sets it on passes that have it: it tells buffers from inputs.
    @property
    def exported_program(self) -> Any:
        return self._program

    @exported_program.setter
    def exported_program(self, value: Any) -> None:
        self._program = value
        if hasattr(self.wrapped, "exported_program"):
            self.wrapped.exported_program = value

    def __getattr__(self, name: str) -> Any:
        # What ArmPass does not define is the wrapped pass's.
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
        """Lifted graph (lowering pipeline): placeholder names survive retracing, so this
        only checks that each mutated buffer keeps its placeholder, readers and tensor."""
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
            # One get_attr per buffer: torchao's folder deletes the attribute behind a
            # get_attr without users, even when another node still reads it.
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
            # copy_ into a retraced tensor that requires grad fails; detach() keeps storage.
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
