"""``GetReduceRepeatMaxMinSpr`` (归约计算/寄存器辅助接口/GetReduceRepeatMaxMinSpr(ISASI).md) and the C API's
``asc_get_reduce_max_cnt`` / ``asc_get_reduce_min_cnt``: read the extremum, and its index, that the last
ReduceRepeat<MAX/MIN> or ReduceMax/ReduceMin left in the MAX_MIN_CNT special register.

Forms (pyasc has none; the names follow :func:`.reduce_spr.get_reduce_repeat_sum_spr`)::

    get_reduce_repeat_max_min_spr(dtype) -> (value, index)     # A2/A3: GetReduceRepeatMaxMinSpr(T&, T&)
    get_reduce_repeat_max_min_spr(dtype) -> value              # 310P:  GetReduceRepeatMaxMinSpr(T&)
    asc_get_reduce_max_cnt(dtype) -> (value, index: int)       # A2/A3, after a max
    asc_get_reduce_min_cnt(dtype) -> (value, index: int)       # A2/A3, after a min

The register (``get_max_min_cnt()``, dav_c220 / dav_m200 ``GetReduceMaxMinCountImpl``, the 2201
``asc_get_reduce_max_cnt_impl``) is 64 bits: the value's bits in the low 16 (half) or 32 (float) bits, a
uint32 index in the high 32.  ``GetReduceRepeatMaxMinSpr(T&, T&)`` returns the index's low bits as T (the
page: read it back through ``reinterpret_cast<uint16_t*>`` / ``<uint32_t*>``), so npusim returns the
index as a numpy scalar of T holding the integer's bits; the C API returns it as an int.

What writes it, and what it then holds (docs/semantics.md §5.18):

* ``whole_reduce_max`` / ``whole_reduce_min`` (ReduceRepeat<MAX/MIN>, every order) and their C API
  forms ``asc_repeat_reduce_{max,min}_*``: the extremum over every active lane of every repeat and the
  index ``r * E + lane`` of its first occurrence (asc_get_reduce_max_cnt.md: "第一个最大值时的索引";
  its example, 256 halves in 2 repeats, gives index 255);
* ``reduce_max`` / ``reduce_min`` with ``cal_index=True`` (ReduceMax/ReduceMin): the extremum only —
  "此时获取的索引不准确", so the index read back is ``None``.

The register is *undefined* (a read raises :class:`~npusim.errors.UnsupportedError`) after such a call
that is not contiguous (约束说明: srcBlkStride = 1, srcRepStride = 8), that ran in counter mode over a
partial repeat (约束说明: "不支持 ... Mask Counter模式"; the C API example runs its count form over whole
repeats, which is the normal mode's full mask), or a ReduceMax/ReduceMin without ``cal_index`` (the
pages show it only with ``calIndex = true``).  The index alone is unknown (``None``) after several
repeats under a partial normal-mode mask (the pages do not say whether it counts masked-off lanes).
A read before any writer ran is a :class:`~npusim.errors.RuntimeMisuseError`; a read as another type
than the writer's dst is rejected (约束说明: "需要与 ... 目的操作数数据类型一致").  Which other
instructions change the register is not documented: in npusim only these do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...dtypes import DType
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import RuntimeMisuseError, UnsupportedError
from ...overloads import Form, Param
from ...sources import semantics
from .. import pages
from ..addressing import ActiveLanes
from ..chips import unsupported_on
from ..core import Core
from .common import c_api_page, require_c_api, require_register_dtype

__all__ = ["MaxMinCnt", "MaxMinCntWrite", "asc_get_reduce_max_cnt", "asc_get_reduce_min_cnt",
           "get_reduce_repeat_max_min_spr", "max_min_cnt_write"]

NAME = "get_reduce_repeat_max_min_spr"
PAGE = pages.GET_REDUCE_REPEAT_MAX_MIN_SPR
RULES = semantics("5.18")
REGISTER = "MAX_MIN_CNT"
SPR_DTYPES = frozenset({"float16", "float32"})  # 数据类型: half, float
#: which prototype each product has (函数原型): the value and index (A2/A3) or the value alone (310P AI Core)
PROTOTYPES: dict[str, str] = {"A2": "value_index", "A3": "value_index", "310P": "value"}


class MaxMinCnt(NamedTuple):
    """What MAX_MIN_CNT holds (``Core.max_min_cnt``).

    Attributes:
        operation: ``"max"`` or ``"min"``, the reduction that wrote it.
        dtype: that reduction's element type (its name).
        value_bits: the extremum's raw bits.
        index: the element index of its first occurrence, or ``None`` where the documents leave it open.
        undefined: why the register is undefined after that call, or ``None``.
    """

    operation: str
    dtype: str
    value_bits: int
    index: int | None
    undefined: str | None


@dataclass(frozen=True)
class MaxMinCntWrite:
    """How one planned reduction writes MAX_MIN_CNT: the reduction, its type, whether the index it
    leaves is known, and why the register is undefined afterwards (``None``: it is defined)."""

    operation: str
    dtype: str
    index_known: bool
    undefined: str | None

    def state(self, value_bits: int, index: int) -> MaxMinCnt:
        """The register after the call, given the extremum's bits and its first element index."""
        return MaxMinCnt(self.operation, self.dtype, int(value_bits), int(index) if self.index_known else None,
                         self.undefined)


def max_min_cnt_write(core: Core, operation: str, dtype: DType, lanes: ActiveLanes, *, contiguous: bool,
                      counter: bool, exact_index: bool, cal_index: bool = True) -> MaxMinCntWrite | None:
    """How a planned max/min reduction of ``lanes`` writes MAX_MIN_CNT on this core (``None``: the product
    has no such register, or T is not half/float).

    ``contiguous``: srcBlkStride = 1 and srcRepStride = 8; ``counter``: it runs in counter mode;
    ``exact_index``: a ReduceRepeat (its index is the first occurrence's), not a ReduceMax/ReduceMin."""
    if core.chip.name not in PROTOTYPES or dtype.name not in SPR_DTYPES:
        return None
    undefined = None
    if not contiguous:
        undefined = "the reduction before it was not contiguous (srcBlkStride = 1, srcRepStride = 8)"
    elif counter and not lanes.all_active:
        undefined = "the reduction before it ran in counter mode over a partial repeat"
    elif not cal_index:
        undefined = "the ReduceMax/ReduceMin before it ran without cal_index (the pages show calIndex = true only)"
    index_known = exact_index and (lanes.repeats == 1 or lanes.all_active)
    return MaxMinCntWrite(operation, dtype.name, index_known, undefined)


# ---------------------------------------------------------------- the reads
@dataclass(eq=False)
class MaxMinRead(SelfBinding):
    """A checked read of MAX_MIN_CNT as ``dtype``.

    ``returns``: ``"value_index"`` (value and index as T), ``"value"`` (the 310P's one output) or
    ``"c_api"`` (value as T, index as an int); ``operation``: the reduction a C API read pairs with."""

    name: str
    page: str
    dtype: DType
    returns: str
    operation: str | None = None
    registers_read: tuple[str, ...] = (REGISTER,)
    pipe: str = "S"

    def run(self, core: Core, values: tuple):
        state = self._checked_state(core)
        value = np.array([state.value_bits], dtype=self.dtype.raw).view(self.dtype.np_dtype)[0].copy()
        if self.returns == "value":
            return value
        if state.index is None:
            return value, None
        if self.returns == "c_api":
            return value, state.index
        return value, np.array([state.index], dtype=self.dtype.raw).view(self.dtype.np_dtype)[0].copy()

    def _checked_state(self, core: Core) -> MaxMinCnt:
        state: MaxMinCnt | None = core.max_min_cnt
        source = f"{self.page} 约束说明; {RULES}"
        if state is None:
            raise RuntimeMisuseError(self.name, REGISTER, "never written", "no ReduceRepeat<MAX/MIN> or "
                                     "ReduceMax/ReduceMin of half or float has run on this core",
                                     "a whole_reduce_max/min (or reduce_max/min) before the read", source)
        if state.undefined is not None:
            raise UnsupportedError(self.name, REGISTER, "undefined", state.undefined, "a contiguous reduction "
                                   "in normal mode (or over whole repeats) before the read", source)
        if state.dtype != self.dtype.name:
            raise UnsupportedError(self.name, "T", self.dtype.name, f"the last max/min reduction was of "
                                   f"{state.dtype}; reading it as another type is not documented", state.dtype,
                                   source)
        if self.operation is not None and state.operation != self.operation:
            raise RuntimeMisuseError(self.name, REGISTER, f"left by a {state.operation} reduction",
                                     f"{self.name} pairs with a {self.operation} reduction",
                                     f"asc_repeat_reduce_{self.operation}_* before the read", source)
        return state


def _dtype(name: str, dtype, page: str) -> DType:
    return require_register_dtype(name, dtype, SPR_DTYPES, "the register is read as half or float",
                                  f"{page} 数据类型; {RULES}")


def _compile(core: Core, form: str, values: dict) -> MaxMinRead:
    prototype = PROTOTYPES.get(core.chip.name)
    if prototype is None:
        raise unsupported_on(core.chip, NAME, "GetReduceRepeatMaxMinSpr", lambda c: c.name in PROTOTYPES,
                             f"{PAGE} 产品支持情况; {RULES}")
    return MaxMinRead(NAME, PAGE, _dtype(NAME, values["dtype"], PAGE), prototype)


def _anything(_value) -> bool:
    return True


_FORMS = (Form("", (Param("dtype", _anything),)),)
_SETUP = ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)\n"
          "x.write([float(i % 50) for i in range(128)])\n"
          "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 8)\n")


def _support(chip) -> frozenset[str] | None:
    return SPR_DTYPES if chip.name in PROTOTYPES else None


get_reduce_repeat_max_min_spr = register(Instruction(
    NAME, "ascend", "register", "S", _FORMS, _compile, f"{PAGE} 功能说明, 约束说明; {RULES}", support=_support,
    exactness=BIT_EXACT,
    summary="The extremum (and its index) the last ReduceRepeat<MAX/MIN> or ReduceMax/ReduceMin left in MAX_MIN_CNT",
    examples=(_SETUP + "asc.whole_reduce_max(z, x, 64, 2, 1, 1, 8)\nasc.get_reduce_repeat_max_min_spr(asc.float32)",
              "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
              "x.write([float(256 - i) for i in range(256)])\n"
              "w = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 1024, 128)\n"
              "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2048, 16)\n"
              "asc.reduce_min(z, x, w, 256, True)\n"
              "asc.get_reduce_repeat_max_min_spr(asc.float16)"),
    fast_context=lambda core: (),
    doc="``asc.get_reduce_repeat_max_min_spr(dtype)``: MAX_MIN_CNT as T — ``(value, index)`` on the A2/A3 (the "
        "index's bits as T, ``None`` where unknown), the value alone on the 310P (C++ "
        "``GetReduceRepeatMaxMinSpr<T>``).",
))


def _c_api_entry(operation: str):
    name = f"asc_get_reduce_{operation}_cnt"
    page = c_api_page(name)

    def compile_(core: Core, form: str, values: dict) -> MaxMinRead:
        require_c_api(core, name)
        return MaxMinRead(name, page, _dtype(name, values["dtype"], page), "c_api", operation)

    return register(Instruction(
        name, "ascend", "register", "S", _FORMS, compile_, f"{page} 功能说明, 约束说明; {RULES}",
        support=lambda chip: SPR_DTYPES if chip.c_api else None, exactness=BIT_EXACT,
        summary=f"MAX_MIN_CNT after asc_repeat_reduce_{operation}: the {operation} and its first index",
        examples=(_SETUP +
                  f"asc.asc_repeat_reduce_{operation}_value_index(z, x, 128)\n"
                  f"asc.{name}(asc.float32)",),
        fast_context=lambda core: (), alias_of=NAME,
        doc=f"``{name}(dtype) -> (value, index)``: the {operation} the last asc_repeat_reduce_{operation} left in "
            "MAX_MIN_CNT, and the index of its first occurrence (an int; ``None`` where unknown).",
    ))


asc_get_reduce_max_cnt = _c_api_entry("max")
asc_get_reduce_min_cnt = _c_api_entry("min")
