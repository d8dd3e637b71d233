"""Interleave and DeInterleave (数据重排（ISASI）/Interleave.md, DeInterleave.md): the 950's rearranges.

Forms (the pages' 函数原型; count even, "count必须为偶数")::

    interleave(dst0, dst1, src0, src1, count)     # z = src0[0], src1[0], src0[1] ...; dst0, dst1 = z[:count], z[count:]
    de_interleave(dst0, dst1, src0, src1, count)  # z = src0 ++ src1; dst0 = z[0::2], dst1 = z[1::2]
    de_interleave(dst0, dst1, src, src_count)     # dst0 = src[0::2], dst1 = src[1::2] (src_count / 2 each)

Every operand holds ``count`` elements (the one-source DeInterleave: src ``src_count``, each dst half of
it).  The pages draw the orders (figures interleave_memory.png, deinterleave_memory.png); the vendor's
950 implementation (``dav_3510/kernel_operator_vec_duplicate_impl.h``: the first halves of src0 and src1
interleaved into dst0, the second halves into dst1; DeInterleave: src0 then src1 split into even and odd
elements) and the printed examples agree with these formulas.  No source may share a byte with a
destination (约束说明), nor the destinations with each other.  Bit-exact: elements are moved, never
converted.  The plan is the two-destination plan of :mod:`.elementwise_isasi` (as Mull's).
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, Instruction, register
from .. import pages
from ..core import Core
from .elementwise_isasi import TWO_DSTS, PairOp, compile_pair, pair_form

__all__ = ["de_interleave", "interleave"]

INTERLEAVE_PAGE = pages.INTERLEAVE
DEINTERLEAVE_PAGE = pages.DEINTERLEAVE
# 数据类型 of both pages: the 950 only (every other row "不支持")
REARRANGE_DTYPES = {"950": frozenset({"int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32",
                                      "float32", "int64", "uint64"})}


#: the unsigned integer twice an element's width: a pair of neighbouring elements as one integer, the first
#: element its low half (UB is little-endian, as every raw view of it).  64-bit elements have none.
PAIRS = {1: np.dtype("<u2"), 2: np.dtype("<u4"), 4: np.dtype("<u8")}


def _interleaved(dtype: DType, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``z = a[0], b[0], a[1], b[1] ...`` (raw elements), split into its halves.  Each pair ``a[i], b[i]`` is built
    as one wide integer ``b[i] << width | a[i]`` (three vectorised passes instead of two strided stores, which
    numpy runs element by element); 64-bit elements take the strided stores."""
    wide = PAIRS.get(dtype.itemsize)
    if wide is None:
        z = np.empty(2 * a.size, dtype.raw)
        z[0::2], z[1::2] = a, b
    else:
        pairs = b.astype(wide)
        pairs <<= wide.type(8 * dtype.itemsize)
        pairs |= a
        z = pairs.view(dtype.raw)
    return z[:a.size], z[a.size:]


def _split(dtype: DType, *sources: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The even and the odd raw elements of the sources one after the other.  Each source holds whole pairs
    (its count is even): viewed as wide integers, the evens are their low halves (a narrowing cast keeps the
    low bits) and the odds their high halves; 64-bit elements take strided copies."""
    z = np.concatenate(sources)
    wide = PAIRS.get(dtype.itemsize)
    if wide is None:
        return z[0::2].copy(), z[1::2].copy()
    pairs = z.view(wide)
    return pairs.astype(dtype.raw), (pairs >> wide.type(8 * dtype.itemsize)).astype(dtype.raw)


INTERLEAVE = PairOp("interleave", INTERLEAVE_PAGE, TWO_DSTS, "count", lambda n: (n,) * 4, _interleaved,
                    separate=True, even=True)
DEINTERLEAVE = {
    "two_sources": PairOp("de_interleave", DEINTERLEAVE_PAGE, TWO_DSTS, "count", lambda n: (n,) * 4, _split,
                          separate=True, even=True),
    "one_source": PairOp("de_interleave", DEINTERLEAVE_PAGE, ("dst0", "dst1", "src"), "src_count",
                         lambda n: (n // 2, n // 2, n), _split, separate=True, even=True),
}


def _dtypes(chip) -> frozenset[str] | None:
    return REARRANGE_DTYPES.get(chip.name)


def _examples(name: str, sources: int) -> tuple[str, ...]:
    lines = ["a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)",
             "b = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 512)",
             "z0 = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2048, 512)",
             "z1 = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 3072, 512)"]
    call = f"asc.{name}(z0, z1, a, b, 300)" if sources == 2 else f"asc.{name}(z0, z1, a, 500)"
    return ("\n".join([*lines, call]),)


_INTERLEAVE_SUMMARY = "dst0 ++ dst1 = src0[0], src1[0], src0[1], src1[1], ... (count elements each)"
interleave = register(Instruction(
    "interleave", "ascend", "rearrange", "V", (pair_form("src0", "src1"),),
    lambda core, form, bound: compile_pair(INTERLEAVE, core, bound, _dtypes), f"{INTERLEAVE_PAGE} 功能说明",
    support=_dtypes, exactness=BIT_EXACT, summary=_INTERLEAVE_SUMMARY, examples=_examples("interleave", 2),
    fast_context=lambda core: (),
    doc=f"``{_INTERLEAVE_SUMMARY}`` ({INTERLEAVE_PAGE}).\n\nThe 950 only; count even; no operand may overlap "
        "another.",
))


def _compile_de_interleave(core: Core, form: str, bound: dict):
    return compile_pair(DEINTERLEAVE[form], core, bound, _dtypes)


_DEINTERLEAVE_SUMMARY = "dst0 = the even, dst1 = the odd elements of src0 ++ src1 (or of src alone)"
de_interleave = register(Instruction(
    "de_interleave", "ascend", "rearrange", "V",
    (pair_form("src0", "src1", form="two_sources"), pair_form("src", count="src_count", form="one_source")),
    _compile_de_interleave, f"{DEINTERLEAVE_PAGE} 功能说明", support=_dtypes, exactness=BIT_EXACT,
    summary=_DEINTERLEAVE_SUMMARY, examples=_examples("de_interleave", 2) + _examples("de_interleave", 1),
    fast_context=lambda core: (),
    doc=f"``{_DEINTERLEAVE_SUMMARY}`` ({DEINTERLEAVE_PAGE}).\n\nThe 950 only; count and src_count even; no "
        "operand may overlap another.",
))
