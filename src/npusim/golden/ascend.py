"""Ascend golden cases: the operands are UB tensors of one emulated core.

A case (see ``docs/golden.md``)::

    {
      "instruction": "add",
      "chip": "A2",
      "tensors": {
        "dst":  {"dtype": "float16", "size": 256, "init": {"fill": 0}},
        "src0": {"dtype": "float16", "size": 256, "init": {"random": {"seed": 1, "low": -8, "high": 8}}},
        "src1": {"dtype": "float16", "size": 256, "init": {"values": [1, 2.5, "nan", "-inf"], "fill": 0}}
      },
      "args": {"mask": 128, "repeat_times": 2, "repeat_params": {"dst_rep_stride": 8}}
    }

Every tensor is passed to the instruction as the keyword of its name, every ``args``
entry likewise, so the vocabulary is the Python API's (pyasc parameter names).  An
instruction of the registry (``npusim.ascend.instructions()``) that writes memory has a
case; its outputs are what its access record says it wrote, and ``args`` values map to
parameter classes and enums through one vocabulary (:data:`PARAM_CLASSES`, :data:`ENUMS`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from enum import Enum

import numpy as np

from .. import ascend as asc
from ..engine.registry import instructions
from . import CaseError, GoldenInstruction, GoldenResult, as_dump, register
from .values import dtype_named as _dtype
from .values import initial_values as _initial_values
from .values import number as _number

__all__ = ["AscendCall", "ascend_instruction", "run_ascend_case"]

CASE_KEYS = frozenset({"instruction", "chip", "strict", "tensors", "args", "registers", "comment"})
TENSOR_KEYS = frozenset({"dtype", "size", "addr", "position", "init"})


@dataclass(frozen=True)
class AscendCall:
    """How to call one Ascend instruction from a case.

    Attributes:
        function: the ``npusim.ascend`` function (the registry's, or a case-vocabulary wrapper).
        params: ``args`` keys whose JSON object (or list) becomes a parameter class, with the
            classes it may be (told apart by the object's keys, or the list's length).
        enums: ``args`` keys whose name (or number) becomes an enum member.
        forms: the instruction's call forms: of several classes for one key, the one its forms
            take there.

    The outputs are what the call's access record says it wrote: every case tensor whose bytes
    it wrote, ``dst`` first, then in the case's order; CMPMASK if it wrote no tensor.
    """

    function: Callable
    params: dict[str, tuple[type, ...]] = field(default_factory=dict)
    enums: dict[str, type[Enum]] = field(default_factory=dict)
    forms: tuple = ()


def written_outputs(record, tensors: dict) -> list[str]:
    """The case tensors (or ``"cmpmask"``) whose bytes ``record`` wrote: ``dst`` first, then case order."""
    written = [name for name, tensor in tensors.items()
               if any(r.space == "UB" and r.start < tensor.end and tensor.addr < r.stop for r in record.writes)]
    written.sort(key=lambda name: name != "dst")
    if not written and "CMPMASK" in record.registers_written:
        return ["cmpmask"]
    return written


def ascend_instruction(name: str, call: AscendCall, summary: str = "") -> GoldenInstruction:
    """Register an Ascend instruction for golden cases."""
    return register(GoldenInstruction(name, "ascend", functools.partial(run_ascend_case, call), summary))


def _tensor(core: asc.Core, name: str, spec: dict, next_addr: int) -> tuple[asc.LocalTensor, np.ndarray | None]:
    path = f"tensors.{name}"
    if not isinstance(spec, dict) or not spec.keys() <= TENSOR_KEYS or "dtype" not in spec or "size" not in spec:
        raise CaseError(f"{path}: a tensor is {{\"dtype\", \"size\"[, \"addr\", \"position\", \"init\"]}}")
    dtype = _dtype(f"{path}.dtype", spec["dtype"])
    size = spec["size"]
    if not isinstance(size, int) or size <= 0:
        raise CaseError(f"{path}.size: a positive number of elements, got {size!r}")
    addr = _number(f"{path}.addr", spec.get("addr", next_addr))
    try:
        position = asc.TPosition[spec.get("position", "VECCALC")]
    except KeyError:
        raise CaseError(f"{path}.position: one of VECIN, VECOUT, VECCALC") from None
    tensor = asc.LocalTensor(dtype, position, addr, size)
    init = spec.get("init")
    values = None if init is None else _initial_values(f"{path}.init", init, dtype, size)
    if values is not None:
        tensor.write(values)
    return tensor, values


def _arg(path: str, key: str, value, call: AscendCall, tensors: dict):
    if isinstance(value, dict) and value.keys() == {"tensor"}:
        return _lookup(path, value["tensor"], tensors)
    if isinstance(value, dict) and value.keys() == {"tensors"}:
        return [_lookup(path, name, tensors) for name in value["tensors"]]
    if key in call.params and isinstance(value, (dict, list)):
        cls = _param_class(path, key, call, value)
        try:
            return cls(**value) if isinstance(value, dict) else cls(*value)
        except TypeError as err:
            raise CaseError(f"{path}: {cls.__name__}: {err}") from None
    if key in call.enums:
        enum = call.enums[key]
        try:
            return enum[value] if isinstance(value, str) else enum(value)
        except (KeyError, ValueError):
            raise CaseError(f"{path}: one of {[m.name for m in enum]}") from None
    if isinstance(value, list):
        return [_number(f"{path}[{i}]", v) for i, v in enumerate(value)]
    if isinstance(value, bool):
        return value
    return _number(path, value)


def _param_class(path: str, key: str, call: AscendCall, value: dict | list) -> type:
    """The class of ``call.params[key]`` that the instruction's forms take as ``key``."""
    classes = call.params[key]
    taken = [cls for cls in classes
             if any(p.name == key and p.accepts(cls.__new__(cls)) for form in call.forms for p in form.params)]
    if len(taken) != 1:  # no form says (or several do): the object's keys must
        taken = [cls for cls in taken or classes
                 if isinstance(value, list) or value.keys() <= {f.name for f in fields(cls)}]
    if len(taken) != 1:
        names = " or ".join(cls.__name__ for cls in classes)
        raise CaseError(f"{path}: the fields of one of {names} (name the fields to tell them apart)")
    return taken[0]


def _lookup(path: str, name, tensors: dict):
    if name not in tensors:
        raise CaseError(f"{path}: no tensor named {name!r}")
    return tensors[name]


def _registers(core: asc.Core, spec) -> None:
    """Optional initial register state: ``{"cmpmask": hex, "vector_mask": [high, low], "mask_mode": "COUNTER"}``."""
    if not isinstance(spec, dict) or not spec.keys() <= {"cmpmask", "vector_mask", "mask_mode"}:
        raise CaseError("registers: an object with keys from cmpmask, vector_mask, mask_mode")
    if "cmpmask" in spec:
        core.cmpmask = bytes.fromhex(spec["cmpmask"])
    if "vector_mask" in spec:
        high, low = (_number(f"registers.vector_mask[{i}]", v) for i, v in enumerate(spec["vector_mask"]))
        core.set_mask_words(low, high)
    if "mask_mode" in spec:
        core.mask_mode = asc.MaskMode[spec["mask_mode"]]


# ------------------------------------------------------------------ driver
def run_ascend_case(call: AscendCall, case: dict) -> GoldenResult:
    """Create the tensors on a fresh core, call the instruction, collect inputs and outputs."""
    unknown = case.keys() - CASE_KEYS
    if unknown:
        raise CaseError(f"unknown keys {sorted(unknown)}; a case has {sorted(CASE_KEYS)}")
    specs = case.get("tensors")
    if not isinstance(specs, dict) or not specs:
        raise CaseError("tensors: an object mapping operand names to tensors")
    args = case.get("args", {})
    if not isinstance(args, dict):
        raise CaseError("args: an object mapping parameter names to values")
    with asc.Core(case.get("chip"), strict=bool(case.get("strict", False)), trace=True) as core:
        result = GoldenResult(case["instruction"], core.chip.name)
        tensors: dict[str, asc.LocalTensor] = {}
        next_addr = 0
        for name, spec in specs.items():
            tensor, values = _tensor(core, name, spec, next_addr)
            tensors[name] = tensor
            next_addr = max(next_addr, -(-tensor.end // 32) * 32)
            if values is not None:
                result.inputs.append(as_dump(name, values, tensor.dtype.name))
        if "registers" in case:
            _registers(core, case["registers"])
        kwargs = dict(tensors)
        kwargs.update({key: _arg(f"args.{key}", key, value, call, tensors) for key, value in args.items()})
        call.function(**kwargs)
        for name in written_outputs(core.trace[-1], tensors):
            if name == "cmpmask":
                result.outputs.append(as_dump("cmpmask", np.frombuffer(core.cmpmask, np.uint8), "uint8"))
            else:
                tensor = _lookup("outputs", name, tensors)
                result.outputs.append(as_dump(name, tensor.read(), tensor.dtype.name))
    return result


# ------------------------------------------------------------ registrations
#: ``args`` keys whose JSON object (or list) becomes a parameter class; where one key names
#: several classes, the object's keys (or the list's length) tell which
PARAM_CLASSES: dict[str, tuple[type, ...]] = {
    "repeat_params": (asc.BinaryRepeatParams, asc.UnaryRepeatParams),
    "params": (asc.TransDataTo5HDParams,),
}
#: ``args`` keys whose name (or number) becomes an enum member
ENUMS: dict[str, type[Enum]] = {"sel_mode": asc.SelMode, "cmp_mode": asc.CMPMODE}
#: the instructions whose case vocabulary differs from their Python call, by name
SPECIAL: dict[str, Callable] = {}


def _registered_instructions() -> None:
    """One golden entry per instruction of the registry that writes memory or CMPMASK."""
    for entry in instructions("ascend"):
        if entry.family in NO_GOLDEN_FAMILIES:
            continue
        function = SPECIAL.get(entry.name, entry.function)
        ascend_instruction(entry.name, AscendCall(function, PARAM_CLASSES, ENUMS, entry.forms), entry.summary)


#: families whose instructions set or read registers only: a case has no output to dump
NO_GOLDEN_FAMILIES = frozenset({"register", "control", "sync"})


def _trans_data_to_5hd(dst: asc.LocalTensor, src: asc.LocalTensor, dst_list, src_list,
                       params: asc.TransDataTo5HDParams) -> None:
    """TransDataTo5HD in its address-list form, the lists given as element offsets into ``dst`` / ``src``."""
    if dst.dtype != src.dtype:
        raise CaseError(f"tensors: dst ({dst.dtype}) and src ({src.dtype}) must have the same dtype T")
    for name, offsets in (("dst_list", dst_list), ("src_list", src_list)):
        if not isinstance(offsets, list) or not all(isinstance(o, int) for o in offsets):
            raise CaseError(f"args.{name}: a list of element offsets (integers)")
    asc.trans_data_to_5hd([dst.addr + o * dst.dtype.itemsize for o in dst_list],
                          [src.addr + o * src.dtype.itemsize for o in src_list], params, dtype=dst.dtype)


SPECIAL["trans_data_to_5hd"] = _trans_data_to_5hd
_registered_instructions()
