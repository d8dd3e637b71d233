"""A plain reference of SoftMax (ND) on the register-ISA products (950, Kirin), one row at a time, sharing no
code with npusim.

Written from ``impl/adv_api/detail/activation/softmax/regbase/3510/softmax_impl.h`` (asc-devkit @0da921b9),
the vector functions SoftMaxGenericNDVFImpl (L338-418), SoftMaxGenericNDWithTailVFImpl (L443-537),
SingleSoftMaxGenericNDVFImpl (L868-940) and SingleSoftMaxGenericNDForBlkVFImpl (L562-659), per row of the
first ``k`` (oriSrcK) elements, in float:

* ``srcK == 8`` (float): max = the adjacent-pair tree of the row's 8 lanes (ReduceMaxWithDataBlock, the lanes
  past ``k`` as -inf); sum = the tree of its 8 exps (ReduceSumWithDataBlock, past ``k`` as +0);
* ``srcK == 16``: max and sum = the trees of the row's two 8-lane DataBlocks (past ``k`` as -inf / +0),
  combined by one Max / Add (SingleSoftMaxGenericNDAlignedWithBlkVFImpl L689-835);
* ``k <= 64``: max = the tree of the 64 lanes of one register (ReduceMax, past ``k`` as -inf), sum = the
  tree of the 64 exps (ReduceSum, past ``k`` as +0);
* otherwise: 64 lanes start at -inf (max) / +0 (sum) and take each 64-element chunk in turn, lane by lane (the
  last chunk's lanes past ``k`` as -inf / +0), then the tree of the 64 lanes;
* ``e = exp(x - max)``, ``dst = e / sum``; exp and the division flush a subnormal result to zero (the
  INTRINSIC Exp and Div, Exp.md / Div.md); a NaN is the quiet NaN 0x7FC00000.

Max orders -0 below +0 (Max.md: max(-0, +0) = +0) and gives NaN if either side is NaN (Reduce.md).  exp is
npusim's stated model, rebuilt: Python's ``math.exp`` in float64 rounded once to float32.  Half data is widened
exactly; half results are narrowed to nearest, ties to even (CAST_RINT).
"""

from __future__ import annotations

import math

import numpy as np

F32 = np.float32
NAN = np.array([0x7FC00000], np.uint32).view(F32)[0]
TINY = np.finfo(F32).tiny


def _canon(value) -> np.float32:
    value = F32(value)
    return NAN if value != value else value


def _max(a, b) -> np.float32:
    if a != a or b != b:
        return NAN
    if a == 0 and b == 0:
        return b if math.copysign(1.0, float(a)) < 0 else a
    return a if a > b else b


def _add(a, b) -> np.float32:
    with np.errstate(all="ignore"):
        return _canon(F32(a) + F32(b))


def _flush(value: np.float32) -> np.float32:
    if value != 0 and abs(value) < TINY:
        return F32(math.copysign(0.0, float(value)))
    return value


def exp_950(value) -> np.float32:
    value = float(value)
    if value != value:
        return NAN
    try:
        result = F32(math.exp(value))
    except OverflowError:
        result = F32(math.inf)
    return _flush(result)


def div_950(a, b) -> np.float32:
    with np.errstate(all="ignore"):
        return _flush(_canon(F32(a) / F32(b)))


def tree(lanes: list, op) -> np.float32:
    level = list(lanes)
    while len(level) > 1:
        level = [op(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def row(values: np.ndarray, k: int, stride: int) -> tuple[np.float32, np.float32, list[np.float32]]:
    """(max, sum, dst) of one row: ``values`` its float32 elements (at least ``k``), ``stride`` srcK."""
    x = [F32(v) for v in values[:k]]
    maximum = _reduce(x, stride, F32(-math.inf), _max)
    with np.errstate(all="ignore"):
        e = [exp_950(_canon(v - maximum)) for v in x]
    total = _reduce(e, stride, F32(0.0), _add)
    return maximum, total, [div_950(v, total) for v in e]


def _reduce(x: list, stride: int, fill, op):
    """One row's max or sum as its vector function reduces ``x`` (the row's first k values), the masked lanes
    ``fill`` (-inf for the max, +0 for the sum): srcK 8 one DataBlock tree; srcK 16 the trees of its two
    DataBlocks combined; k <= 64 the 64-lane tree; longer rows lane-wise over 64-element chunks, then the tree."""
    k = len(x)
    if stride == 8:
        return tree(x + [fill] * (8 - k), op)
    if stride == 16:
        lanes = x + [fill] * (16 - k)
        return op(tree(lanes[:8], op), tree(lanes[8:], op))
    if k <= 64:
        return tree(x + [fill] * (64 - k), op)
    lanes = [fill] * 64
    for i, v in enumerate(x):
        lanes[i % 64] = op(lanes[i % 64], v)
    return tree(lanes, op)


def softmax_rows(x: np.ndarray, k: int, stride: int, half_data: bool = False, half_stats: bool = False):
    """Per row of ``x`` (float32 [rows, >= k]): dst [rows, k] (of src's type), max and sum blocks [rows, 8 or 16]."""
    results = [row(r, k, stride) for r in x]
    dst = np.array([d for _, _, d in results], F32).reshape(len(results), k)
    maxima = np.array([m for m, _, _ in results], F32)
    sums = np.array([s for _, s, _ in results], F32)
    if half_data:
        dst = dst.astype(np.float16)
    block = 16 if half_stats else 8
    stats = [np.repeat(v[:, None], block, axis=1) for v in (maxima, sums)]
    if half_stats:
        stats = [s.astype(np.float16) for s in stats]
    return dst, stats[0], stats[1]
