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
instruction registers here with :func:`ascend_instruction`: the function, which
operands are outputs, and how ``args`` values map to parameter classes and enums.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from .. import ascend as asc
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
        function: the ``npusim.ascend`` function.
        outputs: names of the tensors (or ``"cmpmask"``) the call writes, first = golden.bin.
            ``"dst|cmpmask"`` means the ``dst`` tensor when the case has one, else CMPMASK
            (the compare forms that write the register instead of a bitmask).
        params: ``args`` keys whose JSON object (or list) becomes a parameter class.
        enums: ``args`` keys whose name (or number) becomes an enum member.
    """

    function: Callable
    outputs: tuple[str, ...] = ("dst",)
    params: dict[str, type] = field(default_factory=dict)
    enums: dict[str, type[Enum]] = field(default_factory=dict)

    def output_names(self, tensors: dict) -> list[str]:
        """The outputs of a case with these tensors, alternatives resolved."""
        names = []
        for output in self.outputs:
            options = output.split("|")
            names.append(next((o for o in options if o in tensors), options[-1]))
        return names


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
    if key in call.params:
        cls = call.params[key]
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
    with asc.Core(case.get("chip"), strict=bool(case.get("strict", False))) as core:
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
        for name in call.output_names(tensors):
            if name == "cmpmask":
                result.outputs.append(as_dump("cmpmask", np.frombuffer(core.cmpmask, np.uint8), "uint8"))
            else:
                tensor = _lookup("outputs", name, tensors)
                result.outputs.append(as_dump(name, tensor.read(), tensor.dtype.name))
    return result


# ------------------------------------------------------------ registrations
_BINARY_PARAMS = {"repeat_params": asc.BinaryRepeatParams}
_UNARY_PARAMS = {"repeat_params": asc.UnaryRepeatParams}

ascend_instruction("select", AscendCall(asc.select, params=_BINARY_PARAMS, enums={"sel_mode": asc.SelMode}),
                   "Select, every form (Select.md)")
for _name, _function in (("add", asc.add), ("sub", asc.sub), ("mul", asc.mul), ("max", asc.max), ("min", asc.min)):
    ascend_instruction(_name, AscendCall(_function, params=_BINARY_PARAMS), f"{_name}: dst = src0 op src1")
ascend_instruction("abs", AscendCall(asc.abs, params=_UNARY_PARAMS), "abs: dst = |src|")
ascend_instruction("adds", AscendCall(asc.adds, params=_UNARY_PARAMS), "adds: dst = src + scalar")
ascend_instruction("muls", AscendCall(asc.muls, params=_UNARY_PARAMS), "muls: dst = src * scalar")
ascend_instruction("duplicate", AscendCall(asc.duplicate), "duplicate: dst = scalar")

_CMP = {"cmp_mode": asc.CMPMODE}
ascend_instruction("compare", AscendCall(asc.compare, outputs=("dst|cmpmask",), params=_BINARY_PARAMS, enums=_CMP),
                   "Compare: bitmask (or CMPMASK) of src0 <cmp_mode> src1")
ascend_instruction("compare_scalar", AscendCall(asc.compare_scalar, params=_UNARY_PARAMS, enums=_CMP),
                   "Compares: bitmask of src0 <cmp_mode> src1_scalar")
for _mode in ("eq", "ne", "lt", "le", "gt", "ge"):
    ascend_instruction(f"asc_{_mode}", AscendCall(getattr(asc, f"asc_{_mode}"), outputs=("dst|cmpmask",)),
                       f"C API asc_{_mode}: bitmask (or CMPMASK) of src0 {_mode} src1")
    ascend_instruction(f"asc_{_mode}_scalar", AscendCall(getattr(asc, f"asc_{_mode}_scalar")),
                       f"C API asc_{_mode}_scalar: bitmask of src {_mode} value")


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


ascend_instruction("trans_data_to_5hd", AscendCall(_trans_data_to_5hd,
                                                   params={"params": asc.TransDataTo5HDParams}),
                   "TransDataTo5HD, address-list form (TransDataTo5HD.md)")
