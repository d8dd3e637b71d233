"""Instructions that set or read the mask registers (docs/semantics.md §1.3, §1.4, §3.5).

* ``set_vector_mask`` / ``reset_mask`` — the vector mask register;
* ``set_mask_count`` / ``set_mask_norm`` — the mask mode;
* ``set_cmp_mask`` / ``get_cmp_mask`` (and the C API's ``asc_set_cmp_mask`` /
  ``asc_get_cmp_mask``) — CMPMASK from / to a 16-byte-aligned UB tensor.

All are registered instructions (pipe S, the scalar unit's register writes; the CMPMASK
moves run on the vector pipe).  A register write's plan holds the value it writes; the
CMPMASK moves are planned relative to their tensor and bound to its address per call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.plan import SelfBinding
from ...engine.registry import Instruction, register
from ...engine.trace import ByteRange
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import is_integer, require_int
from .. import pages
from ..addressing import FULL_WORD, contiguous_mask_words
from ..chips import unsupported_on
from ..core import CMPMASK_BYTES, Core
from ..masking import contiguous_mask_length
from ..tensor import LocalTensor
from ..types import MaskMode
from .common import require_dtype, require_ub_tensor

__all__ = [
    "asc_get_cmp_mask", "asc_set_cmp_mask", "get_cmp_mask", "reset_mask", "set_cmp_mask", "set_mask_count",
    "set_mask_norm", "set_vector_mask",
]

CMPMASK_ALIGN = 16  # SetCmpMask/GetCmpMask tensors: 16-byte aligned (docs/semantics.md §3.5, debug check align16B)
MASK_SOURCE = f"{pages.SET_VECTOR_MASK} 参数说明; {semantics('1.3')}"
CMPMASK_TENSOR_DTYPES = frozenset({"int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32",
                                   "uint32", "float32", "int64", "uint64"})


def _anything(_value) -> bool:
    return True  # checked by the plan step, with the message naming the parameter


# ----------------------------------------------------------- register writes
@dataclass(eq=False)
class RegisterWrite(SelfBinding):
    """A checked write of the mask register and/or the mask mode (no memory touched)."""

    words: tuple[int, ...] | None = None
    mode: MaskMode | None = None

    def __post_init__(self) -> None:
        self.registers_written = (("MASK",) if self.words is not None else ()) + (
            ("MASK_MODE",) if self.mode is not None else ())

    def run(self, core: Core, values: tuple) -> None:
        self._commit(core)

    def _commit(self, core: Core) -> None:
        if self.words is not None:
            core.set_mask_words(*self.words)
        if self.mode is not None:
            core.set_mask_mode(self.mode)


def _compile_set_vector_mask(core: Core, form: str, values: dict) -> RegisterWrite:
    instruction = "set_vector_mask"
    mode, dtype = values["mode"], values["dtype"]
    if not isinstance(mode, MaskMode):
        raise TypeError(f"{instruction}: mode must be asc.MaskMode, got {mode!r}")
    if form == "length":
        if not isinstance(dtype, DType):
            raise TypeError(f"{instruction}: the length form needs dtype=asc.<type>, got {dtype!r}")
        length = contiguous_mask_length(instruction, "length", values["length"])
        words = (length, 0) if mode == MaskMode.COUNTER else contiguous_mask_words(length, dtype.itemsize)
    else:
        high = require_int(instruction, "mask_high", values["mask_high"], 0, FULL_WORD, MASK_SOURCE)
        low = require_int(instruction, "mask_low", values["mask_low"], 0, FULL_WORD, MASK_SOURCE)
        words = (low, high)
    return RegisterWrite(words=words)


def _compile_set_mask_count(core: Core, form: str, values: dict) -> RegisterWrite:
    core.require_counter_mode("set_mask_count")
    return RegisterWrite(mode=MaskMode.COUNTER)


_NO_ARGS = (Form("", ()),)
_MASK_NORM_PAGE = pages.SET_MASK_COUNT.replace("SetMaskCount", "SetMaskNorm")


def _register_write(name: str, forms, compile, summary: str, examples: tuple[str, ...], page: str):
    return register(Instruction(
        name, "ascend", "register", "S", forms, compile, page, support=lambda chip: True, summary=summary,
        examples=examples, fast_context=lambda core: (), doc=summary,
    ))


set_vector_mask = _register_write(
    "set_vector_mask",
    (Form("words", (Param("mask_high", is_integer), Param("mask_low", is_integer), Param("dtype", _anything, None),
                    Param("mode", _anything, MaskMode.NORMAL))),
     Form("length", (Param("length", is_integer), Param("dtype", _anything, None), Param("mode", _anything,
                                                                                        MaskMode.NORMAL)))),
    _compile_set_vector_mask,
    "Set the vector mask register: the first `length` lanes (SetMask<T>(len)), in counter mode an element "
    "count, or the raw words (mask_high, mask_low)",
    ("asc.set_vector_mask(100, dtype=asc.float16)", "asc.set_vector_mask(0xF, 0xFFFF0000FFFF0000)"),
    f"{pages.SET_VECTOR_MASK} 参数说明; {semantics('1.3')}",
)
reset_mask = _register_write("reset_mask", _NO_ARGS, lambda core, form, values: RegisterWrite(
    words=(FULL_WORD, FULL_WORD)), "Vector mask register to all ones (ResetMask)", ("asc.reset_mask()",),
    f"{pages.SET_VECTOR_MASK} 功能说明; {semantics('1.3')}")
set_mask_count = _register_write("set_mask_count", _NO_ARGS, _compile_set_mask_count,
                                 "Counter mode: the register's low word is an element count (SetMaskCount)",
                                 ("asc.set_mask_count()",), f"{pages.SET_MASK_COUNT} 功能说明; {semantics('1.4')}")
set_mask_norm = _register_write("set_mask_norm", _NO_ARGS, lambda core, form, values: RegisterWrite(
    mode=MaskMode.NORMAL), "Normal mode: the register is a per-repeat lane mask (SetMaskNorm)",
    ("asc.set_mask_norm()",), f"{_MASK_NORM_PAGE} 功能说明; {semantics('1.4')}")


# ------------------------------------------------------------ CMPMASK moves
@dataclass(eq=False)
class CmpMaskMove:
    """``SetCmpMask`` (UB -> CMPMASK) or ``GetCmpMask`` (CMPMASK -> UB) of one tensor's first 16 bytes."""

    instruction: str
    load: bool  # True: SetCmpMask
    operands: tuple[str, ...] = ("tensor",)

    def bind(self, core: Core, tensors: list[LocalTensor]) -> CmpMaskBinding:
        (tensor,) = tensors
        _checked_tensor(self.instruction, core, tensor)
        return CmpMaskBinding(self, tensor.addr)


class CmpMaskBinding:
    def __init__(self, move: CmpMaskMove, addr: int) -> None:
        self.move, self.addr = move, addr
        span = (ByteRange("UB", addr, addr + CMPMASK_BYTES),)
        self.reads, self.writes = (span, ()) if move.load else ((), span)
        self.registers_read, self.registers_written = ((), ("CMPMASK",)) if move.load else (("CMPMASK",), ())

    def run(self, core: Core, values: tuple) -> None:
        instruction, ub, addr = self.move.instruction, core.ub, self.addr
        if self.move.load:
            ub.check_initialized_span(instruction, "src", addr, addr + CMPMASK_BYTES)
            self._commit(core, ub.data[addr : addr + CMPMASK_BYTES].tobytes())
        else:
            core.report_unset_cmpmask(instruction)
            self._commit(core, core.cmpmask)

    def _commit(self, core: Core, raw: bytes) -> None:
        if self.move.load:
            core.load_cmpmask(raw)
        else:
            core.ub.write_bytes(self.addr, np.frombuffer(raw, dtype=np.uint8), who=self.move.instruction)


def _checked_tensor(instruction: str, core: Core, tensor) -> LocalTensor:
    """The product has the API, and the tensor is a 16-byte aligned UB tensor of 16 bytes or more."""
    page = pages.GET_CMP_MASK if "get" in instruction else pages.SET_CMP_MASK
    if not core.chip.cmpmask_api:
        raise unsupported_on(core.chip, instruction, "SetCmpMask/GetCmpMask", lambda c: c.cmpmask_api,
                             f"{page} 产品支持情况; {semantics('3.5')}")
    tensor = require_ub_tensor(instruction, "tensor", tensor, core, CMPMASK_ALIGN,
                               f"{page} 约束说明; {semantics('1.5', '3.5')}")
    require_dtype(instruction, "tensor", tensor.dtype, CMPMASK_TENSOR_DTYPES, "CMPMASK tensors are 8-64 bit",
                  f"{page} 数据类型; {semantics('3.5')}")
    tensor.check_span(instruction, "tensor", tensor.addr, tensor.addr + CMPMASK_BYTES)
    return tensor


def _cmpmask_move(name: str, load: bool, c_api: bool):
    def compile(core: Core, form: str, values: dict) -> CmpMaskMove:
        if c_api and not core.chip.c_api:
            raise unsupported_on(core.chip, name, "the asc_* C API", lambda c: c.c_api,
                                 f"{pages.C_API}/{name}.md 产品支持情况; {semantics('2.6', '3.6')}")
        _checked_tensor(name, core, values["tensor"])
        return CmpMaskMove(name, load)

    page = pages.SET_CMP_MASK if load else pages.GET_CMP_MASK
    what = "Load CMPMASK from the first 16 bytes of a UB tensor" if load else \
        "Store CMPMASK into the first 16 bytes of a UB tensor"
    setup = "t = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 32)\n"
    call = f"asc.{name}(t)"
    if not load:
        setup += "core.cmpmask = bytes(range(16))\n"
    support = (lambda chip: chip.c_api and chip.cmpmask_api) if c_api else (lambda chip: chip.cmpmask_api)
    return register(Instruction(
        name, "ascend", "register", "V", (Form("", (Param("tensor", _anything),)),), compile,
        f"{page} 参数说明" if not c_api else f"{pages.C_API}/{name}.md 参数说明",
        support=support, summary=what, examples=(setup + call,), fast_context=lambda core: (),
        alias_of=("set_cmp_mask" if load else "get_cmp_mask") if c_api else None, doc=what,
    ))


set_cmp_mask = _cmpmask_move("set_cmp_mask", True, False)
get_cmp_mask = _cmpmask_move("get_cmp_mask", False, False)
asc_set_cmp_mask = _cmpmask_move("asc_set_cmp_mask", True, True)
asc_get_cmp_mask = _cmpmask_move("asc_get_cmp_mask", False, True)
