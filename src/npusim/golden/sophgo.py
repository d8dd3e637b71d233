"""Sophgo golden cases: operands live in the lane-major local memory (or global memory) of one core.

A case (see ``docs/golden.md``)::

    {
      "instruction": "tpu_bdc_greater_select",
      "chip": "BM1684X",
      "shape": [1, 100, 2, 8],
      "dtypes": {"src0_src1_dtype": "DT_FP32", "dst_dtype": "DT_FP32"},
      "operands": {
        "dst_addr": {"addr": "0x20000"},
        "src0": {"kind": "TENSOR", "addr": 0, "init": {"random": {"seed": 1, "low": -4, "high": 4}}},
        "src1": {"kind": "SCALAR", "scalar": {"f32": 0}},
        "src2": {"kind": "TENSOR", "addr": "0x10000", "init": {"fill": 1.5}},
        "src3": {"kind": "SCALAR", "scalar": {"u32": 0}}
      }
    }

Operands are named like the C API parameters.  Each instruction registers which memory an
operand is in, which dtype parameter types it, whether it is an input or an output and how
it is passed (:class:`Operand`).  Every dump holds the valid elements only, in NCHW order,
read through the operand's layout, so the files do not depend on padding or on lanes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .. import sophgo as tpu
from ..dtypes import by_name
from ..engine.registry import instructions
from ..sophgo.ops.gdma import null_local_stride
from ..sophgo.types import storage_dtype
from . import CaseError, GoldenInstruction, GoldenResult, as_dump, register
from .values import initial_values, number

__all__ = ["Operand", "SophgoCall", "run_sophgo_case", "sophgo_instruction"]

CASE_KEYS = frozenset({"instruction", "chip", "strict", "shape", "dtypes", "operands", "global_mem_bytes", "comment"})
OPERAND_KEYS = frozenset({"kind", "addr", "stride", "init", "scalar"})


@dataclass(frozen=True)
class Operand:
    """One parameter of a Sophgo call that is not a shape or a dtype.

    Attributes:
        name: the C parameter name (``"dst_addr"``, ``"src0"``, ``"C"``).
        dtype: the dtype parameter that types it (``"dst_dtype"``).
        passed_as: ``"address"`` (a local or global address), ``"variable"`` (a ``variable_t``:
            TENSOR, VECTOR or SCALAR) or ``"scalar"`` (a ``scalar_t``).
        memory: ``"local"`` or ``"global"`` (addresses and TENSOR/VECTOR variables).
        output: the call writes it (its elements after the call are a golden output).
        stride: the parameter carrying its stride (``"dst_stride"``), if the API has one.
        null_layout: what a missing stride means on the local side: ``"aligned"`` (the aligned
            layout of the operand's own start lane, as BDC instructions use) or ``"gdma"``
            (the GDMA default, computed for start lane 0).
    """

    name: str
    dtype: str
    passed_as: Literal["address", "variable", "scalar"] = "address"
    memory: Literal["local", "global"] = "local"
    output: bool = False
    stride: str | None = None
    null_layout: Literal["aligned", "gdma"] = "aligned"

    @property
    def dump_name(self) -> str:
        return self.name.removesuffix("_addr")


@dataclass(frozen=True)
class SophgoCall:
    """How to call one Sophgo instruction from a case: the function, its operands and dtype parameters."""

    function: Callable
    operands: tuple[Operand, ...]
    dtypes: tuple[str, ...]


def sophgo_instruction(name: str, call: SophgoCall, summary: str = "") -> GoldenInstruction:
    """Register a Sophgo instruction for golden cases."""
    return register(GoldenInstruction(name, "sophgo", functools.partial(run_sophgo_case, call), summary))


# ------------------------------------------------------------------ parsing
def _address(path: str, value) -> int:
    addr = number(path, value)
    if not isinstance(addr, int) or addr < 0:
        raise CaseError(f"{path}: a non-negative integer address, got {value!r}")
    return addr


def _dim4(path: str, value) -> tpu.dim4:
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                 for v in value):
        raise CaseError(f"{path}: four integers [n, c, h, w], got {value!r}")
    return tpu.dim4(*value)


def _data_type(path: str, value) -> tpu.data_type_t:
    try:
        return tpu.data_type_t[value] if isinstance(value, str) else tpu.data_type_t(value)
    except (KeyError, ValueError):
        raise CaseError(f"{path}: one of {', '.join(d.name for d in tpu.data_type_t)}, got {value!r}") from None


def _scalar(path: str, spec) -> tpu.scalar_t:
    if not isinstance(spec, dict) or len(spec) != 1:
        raise CaseError(f'{path}: one view and its value, e.g. {{"f32": 1.5}} or {{"u32": "0x3c00"}}')
    (view, value), = spec.items()
    try:
        return tpu.scalar_t(**{view: number(f"{path}.{view}", value)})
    except (TypeError, ValueError) as err:
        raise CaseError(f"{path}: {err}") from None


# ------------------------------------------------------------------ driver
@dataclass
class _Placed:
    """An operand as the case placed it: what to pass, and how to read its elements back."""

    argument: object
    read: Callable[[], np.ndarray] | None = None


def run_sophgo_case(call: SophgoCall, case: dict) -> GoldenResult:
    """Place the operands on a fresh core, call the instruction, collect inputs and outputs."""
    unknown = case.keys() - CASE_KEYS
    if unknown:
        raise CaseError(f"unknown keys {sorted(unknown)}; a case has {sorted(CASE_KEYS)}")
    shape = _dim4("shape", case.get("shape"))
    dtype_specs = case.get("dtypes", {})
    if not isinstance(dtype_specs, dict) or set(dtype_specs) != set(call.dtypes):
        raise CaseError(f"dtypes: an object with exactly the keys {list(call.dtypes)}")
    dtypes = {key: _data_type(f"dtypes.{key}", value) for key, value in dtype_specs.items()}
    specs = case.get("operands")
    expected = {op.name for op in call.operands}
    if not isinstance(specs, dict) or set(specs) != expected:
        raise CaseError(f"operands: an object with exactly the keys {sorted(expected)}")
    core_args = {"strict": bool(case.get("strict"))}
    if "global_mem_bytes" in case:
        core_args["global_mem_bytes"] = _address("global_mem_bytes", case["global_mem_bytes"])
    with tpu.Core(case.get("chip"), **core_args) as core:
        result = GoldenResult(case["instruction"], core.chip.name)
        kwargs: dict[str, object] = {"shape": shape, **dtypes}
        readers: list[tuple[Operand, Callable[[], np.ndarray], str]] = []
        for op in call.operands:
            placed, stride = _place(core, op, specs[op.name], shape, dtypes[op.dtype], result)
            kwargs[op.name] = placed.argument
            if op.stride is not None:
                kwargs[op.stride] = stride
            if op.output:
                readers.append((op, placed.read, _storage_name(dtypes[op.dtype])))
        call.function(**kwargs)
        for op, read, dtype_name in readers:
            result.outputs.append(as_dump(op.dump_name, read(), dtype_name))
    return result


def _storage_name(dtype: tpu.data_type_t) -> str:
    return storage_dtype(dtype, "golden", "dtype").name


def _place(core: tpu.Core, op: Operand, spec, shape: tpu.dim4, dtype: tpu.data_type_t,
           result: GoldenResult) -> tuple[_Placed, tpu.dim4 | None]:
    """Write the operand's ``init`` (recording it as an input) and say how to pass and read it."""
    path = f"operands.{op.name}"
    if not isinstance(spec, dict) or not spec.keys() <= OPERAND_KEYS:
        raise CaseError(f"{path}: an object with keys from {sorted(OPERAND_KEYS)}")
    kind = spec.get("kind", "SCALAR" if op.passed_as == "scalar" else "TENSOR")
    if kind not in ("TENSOR", "VECTOR", "SCALAR") or (kind != "TENSOR" and op.passed_as == "address") or (
            op.passed_as == "scalar" and kind != "SCALAR"):
        raise CaseError(f"{path}.kind: {kind!r} is not a kind this operand takes")
    if kind == "SCALAR":
        scalar = _scalar(f"{path}.scalar", spec.get("scalar"))
        argument = scalar if op.passed_as == "scalar" else tpu.variable_t(type=tpu.SCALAR, scalar=scalar)
        return _Placed(argument), None
    addr = _address(f"{path}.addr", spec.get("addr"))
    stride = _dim4(f"{path}.stride", spec["stride"]) if spec.get("stride") is not None else None
    if stride is not None and op.stride is None:
        raise CaseError(f"{path}.stride: this operand has no stride parameter")
    dims = tpu.dim4(1, min(shape.c, core.chip.npu_num), 1, 1) if kind == "VECTOR" else shape
    storage = storage_dtype(dtype, "golden", op.dtype)
    element_stride = stride
    if kind == "VECTOR" and op.memory == "local":
        element_stride = tpu.dim4(1, 0, 1, 1)  # one value per lane, each at the vector's own offset (§8.2)
    write, read = _accessors(core, op, addr, dims, dtype, element_stride, storage.bits)
    if "init" in spec:
        count = dims.n * dims.c * dims.h * dims.w
        values = initial_values(f"{path}.init", spec["init"], by_name(storage.name), count).reshape(dims.as_tuple())
        write(values)
        result.inputs.append(as_dump(op.dump_name, values, storage.name))
    argument = addr if op.passed_as == "address" else tpu.variable_t(type=getattr(tpu, kind), addr=addr)
    return _Placed(argument, read), stride


def _accessors(core: tpu.Core, op: Operand, addr: int, dims: tpu.dim4, dtype: tpu.data_type_t,
               stride: tpu.dim4 | None, bits: int):
    """Host write and read of the operand's elements through its layout."""
    if op.memory == "global":
        return (lambda values: core.write_global(addr, values, dtype, stride=stride),
                lambda: core.read_global(addr, dims.as_tuple(), dtype, stride=stride))
    if stride is not None:
        layout = stride
    elif op.null_layout == "gdma":
        layout = null_local_stride(dims, bits, core.chip)
    else:
        layout = "aligned"
    return (lambda values: core.write_local(addr, values, dtype, layout=layout),
            lambda: core.read_local(addr, dims.as_tuple(), dtype, layout=layout))


# ------------------------------------------------------------ registrations
def _select_operands(compare: str, value: str, dsts: tuple[str, ...]) -> tuple[Operand, ...]:
    dst_types = (compare, value) if len(dsts) == 2 else (value,)
    return (
        *(Operand(name, dt, output=True) for name, dt in zip(dsts, dst_types, strict=True)),
        Operand("src0", compare, "variable"), Operand("src1", compare, "variable"),
        Operand("src2", value, "variable"), Operand("src3", value, "variable"),
    )


def _select_call(entry) -> SophgoCall:
    """A BDC select: one dst (typed by dst_dtype) or two (dst0 typed like src0/src1, dst1 like src2/src3)."""
    names = entry.forms[0].names
    if "dst0_addr" in names:
        return SophgoCall(entry.function, _select_operands("dst0_dtype", "dst1_dtype", ("dst0_addr", "dst1_addr")),
                          ("dst0_dtype", "dst1_dtype"))
    return SophgoCall(entry.function, _select_operands("src0_src1_dtype", "dst_dtype", ("dst_addr",)),
                      ("src0_src1_dtype", "dst_dtype"))


def _set_call(entry) -> SophgoCall:
    return SophgoCall(entry.function, (Operand("dst_addr", "dtype", output=True, stride="dst_stride"),
                                       Operand("C", "dtype", "scalar")), ("dtype",))


def _copy_call(entry) -> SophgoCall:
    """A GDMA copy: ``..._S2L`` reads global memory into local memory, ``..._L2S`` the other way."""
    to_local = entry.name.endswith("S2L")
    local, far = {"null_layout": "gdma"}, {"memory": "global"}
    dst = Operand("dst_addr", "dtype", output=True, stride="dst_stride", **(local if to_local else far))
    src = Operand("src_addr", "dtype", stride="src_stride", **(far if to_local else local))
    return SophgoCall(entry.function, (dst, src), ("dtype",))


#: how a case describes the operands of each family's instructions
CALLS_BY_FAMILY = {"select": _select_call, "set": _set_call, "data_movement": _copy_call}


def _registered_instructions() -> None:
    """One golden entry per Sophgo instruction of the registry; a family with no case vocabulary is an error."""
    for entry in instructions("sophgo"):
        if entry.family not in CALLS_BY_FAMILY:
            raise KeyError(f"golden data has no case vocabulary for Sophgo family {entry.family!r} "
                           f"({entry.name}): add one to CALLS_BY_FAMILY")
        sophgo_instruction(entry.name, CALLS_BY_FAMILY[entry.family](entry), entry.summary)


_registered_instructions()
