"""``GetReduceRepeatSumSpr`` (归约计算/寄存器辅助接口/GetReduceRepeatSumSpr(ISASI).md): read back the
result of the last count-form ``ReduceSum`` (A2/A3, 950; half and float).

The page: "获取ReduceSum接口的计算结果，仅支持tensor前n个数据连续计算接口使用" — the sum the count form
computed, kept as a global value.  On the A2/A3 it is the ACC register the form's ``vcadd`` accumulates
into, read with ``get_acc_val`` and reinterpreted as T (dav_c220 ``GetAccValImpl``); on the 950 a
block-local copy of ``dst[0]`` per type (dav_3510 ``accValHalf`` / ``accValFloat``).  npusim keeps
``Core.acc`` = (type, bytes) of the last such ReduceSum (``ACC`` in access records) and rejects
what the page leaves undefined: reading before any count-form ReduceSum ran on the core, and
reading it as another type than that ReduceSum's (约束说明: only with ReduceSum's count form).
Which other vcadd-based instructions also change the A2's ACC is not documented: npusim changes it
with the count-form ReduceSum only.  docs/semantics.md §5.14.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.plan import SelfBinding
from ...engine.registry import Instruction, register
from ...errors import RuntimeMisuseError, UnsupportedError
from ...overloads import Form, Param
from ...sources import semantics
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from .common import require_register_dtype
from .reduce_all import ACC_DTYPES

__all__ = ["get_reduce_repeat_sum_spr"]

NAME = "get_reduce_repeat_sum_spr"
PAGE = pages.GET_REDUCE_REPEAT_SUM_SPR
RULES = semantics("5.14")


@dataclass(eq=False)
class AccRead(SelfBinding):
    """A checked read of ACC as ``dtype``: the value, as a numpy scalar of that type."""

    dtype: DType
    registers_read: tuple[str, ...] = ("ACC",)
    pipe: str = "S"

    def run(self, core: Core, values: tuple):
        if core.acc is None:
            raise RuntimeMisuseError(NAME, "ACC", "never written", "no count-form ReduceSum of half or float has "
                                     "run on this core", "a reduce_sum(dst, src, work, count) before the read",
                                     f"{PAGE} 约束说明; {RULES}")
        written, raw = core.acc
        if written != self.dtype.name:
            raise UnsupportedError(NAME, "T", self.dtype.name, f"the last count-form ReduceSum was of {written}; "
                                   "reading it as another type is not documented", written,
                                   f"{PAGE} 约束说明; {RULES}")
        return np.frombuffer(raw, dtype=self.dtype.np_dtype)[0].copy()


def _compile(core: Core, form: str, values: dict) -> AccRead:
    if not core.chip.reduce_sum_spr:
        raise unsupported_on(core.chip, NAME, "GetReduceRepeatSumSpr", lambda c: c.reduce_sum_spr,
                             f"{PAGE} 产品支持情况; {RULES}")
    dtype = require_register_dtype(NAME, values["dtype"], ACC_DTYPES, "GetReduceRepeatSumSpr reads half or float",
                                   f"{PAGE} 数据类型; {RULES}")
    return AccRead(dtype)


def _anything(_value) -> bool:
    return True


get_reduce_repeat_sum_spr = register(Instruction(
    NAME, "ascend", "register", "S", (Form("", (Param("dtype", _anything),)),), _compile, f"{PAGE} 功能说明; {RULES}",
    support=lambda chip: chip.reduce_sum_spr or None,
    summary="The result of the last count-form ReduceSum (half/float), as T (GetReduceRepeatSumSpr)",
    examples=("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)\n"
              "x.write([0.5] * 128)\n"
              "w = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 64)\n"
              "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 8)\n"
              "asc.reduce_sum(z, x, w, 128)\n"
              "asc.get_reduce_repeat_sum_spr(asc.float32)",),
    fast_context=lambda core: (),
    doc="``asc.get_reduce_repeat_sum_spr(dtype)``: the value the last ``reduce_sum(dst, src, work, count)`` of "
        "half/float computed (C++ ``GetReduceRepeatSumSpr<T>()``; A2/A3, 950).",
))
