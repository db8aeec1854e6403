# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""What a serialized ``.pte`` contains, read back from its bytes: for tests, for the
export's contract check (``program_contract.py``) and for the device twin, which takes the
boundary quantization from the program rather than from numbers written elsewhere."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.schema import Int, KernelCall, ScalarType, Tensor

FORWARD = "forward"
_QUANTIZE = "quantized_decomposed::quantize_per_tensor"
_DEQUANTIZE = "quantized_decomposed::dequantize_per_tensor"
_COPY = "aten::copy_"
_NUMPY_DTYPES = {ScalarType.CHAR: np.int8, ScalarType.SHORT: np.int16, ScalarType.FLOAT: np.float32}


@dataclass(frozen=True)
class TensorQuantization:
    """Per-tensor affine quantization: real = (q - zero_point) * scale."""

    scale: float
    zero_point: int
    qmin: int
    qmax: int
    dtype: type = np.int8  # the quantized side: np.int8 or np.int16

    @property
    def torch_dtype(self) -> torch.dtype:
        return torch.int16 if self.dtype == np.int16 else torch.int8


@dataclass(frozen=True)
class MutableBufferInfo:
    dtype: type
    shape: tuple[int, ...]
    initial_value: np.ndarray | None  # None when the program does not serialize it


@dataclass(frozen=True)
class TensorSpec:
    dtype: type | None  # numpy dtype, None for a type this module does not map
    shape: tuple[int, ...]


@dataclass(frozen=True)
class ProgramSummary:
    delegates: int
    operator_calls: dict[str, int]
    mutable_buffers: list[MutableBufferInfo]
    input_quantization: TensorQuantization | None
    output_quantization: TensorQuantization | None
    inputs: list[TensorSpec | None]  # None for an input that is not a tensor
    outputs: list[TensorSpec | None]
    metadata: dict[str, int]  # the program's integer constant methods
    backends: tuple[str, ...] = ()  # the backend of each delegate of ``forward``


def _quantization(values, args: list[int]) -> TensorQuantization:
    scale, zero_point, qmin, qmax, dtype = (values[i].val for i in args[1:6])
    return TensorQuantization(
        scale=scale.double_val,
        zero_point=zero_point.int_val,
        qmin=qmin.int_val,
        qmax=qmax.int_val,
        dtype=_NUMPY_DTYPES[ScalarType(dtype.int_val)],
    )


def _instructions(plan) -> list:
    return [instruction for chain in plan.chains for instruction in chain.instructions]


def _tensor_spec(value) -> TensorSpec | None:
    if not isinstance(value, Tensor):
        return None
    return TensorSpec(_NUMPY_DTYPES.get(value.scalar_type), tuple(value.sizes))


def inspect_program(pte: bytes | Path) -> ProgramSummary:
    """Summarizes the ``forward`` method of a ``.pte`` (bytes or path), and its metadata."""
    data = pte.read_bytes() if isinstance(pte, Path) else pte
    pte_file = deserialize_pte_binary(data)
    plans = {plan.name: plan for plan in pte_file.program.execution_plan}
    if FORWARD not in plans:
        raise ValueError(f"the program has no {FORWARD!r} method (methods: {sorted(plans)})")
    plan, values = plans[FORWARD], plans[FORWARD].values
    metadata = {
        name: method.values[method.outputs[0]].val.int_val
        for name, method in plans.items()
        if name != FORWARD
        and not _instructions(method)
        and len(method.outputs) == 1
        and isinstance(method.values[method.outputs[0]].val, Int)
    }

    buffers: list[MutableBufferInfo] = []  # the tensors copy_ calls write into
    calls: Counter[str] = Counter()
    input_q = output_q = None
    for instruction in _instructions(plan):
        args = instruction.instr_args
        if not isinstance(args, KernelCall):
            continue
        operator = plan.operators[args.op_index]
        name = operator.name
        calls[f"{name}.{operator.overload}" if operator.overload else name] += 1
        if name == _QUANTIZE and args.args[0] in plan.inputs:
            input_q = _quantization(values, args.args)
        elif name == _DEQUANTIZE and args.args[-1] in plan.outputs:
            output_q = _quantization(values, args.args)
        elif name == _COPY:
            tensor = values[args.args[0]].val
            dtype = _NUMPY_DTYPES.get(tensor.scalar_type)
            initial = None
            if tensor.data_buffer_idx and dtype is not None:
                storage = pte_file.mutable_data[tensor.data_buffer_idx].storage
                initial = np.frombuffer(storage, dtype=dtype).reshape(tensor.sizes)
            buffers.append(MutableBufferInfo(dtype, tuple(tensor.sizes), initial))
    return ProgramSummary(
        delegates=len(plan.delegates),
        operator_calls=dict(sorted(calls.items())),
        mutable_buffers=buffers,
        input_quantization=input_q,
        output_quantization=output_q,
        inputs=[_tensor_spec(values[index].val) for index in plan.inputs],
        outputs=[_tensor_spec(values[index].val) for index in plan.outputs],
        metadata=metadata,
        backends=tuple(delegate.id for delegate in plan.delegates),
    )
