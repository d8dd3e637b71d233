"""A plain reference of SoftMax (ND; Atlas A2/A3 and the 310P AI Core), one row at a time, sharing no code with npusim.

Written from the vendor's dav_c220 implementation (asc-devkit @0da921b9,
``impl/adv_api/detail/activation/softmax/``), in the order it combines the elements of a row:

* the row's reduction lanes (``softmax_common_nd_reduce.h`` NewReduce*LastNDImpl): rows of at
  least 512 elements start from the 64 DataBlock results of the first 512 elements (lane
  ``8q + b`` = the tree of elements ``64q + 8b .. 64q + 8b + 7``), rows of 128 to 511 from chunk 0
  op chunk 1, rows of 64 to 127 from chunk 0; every further full 64-element chunk is combined
  lane by lane, then the first ``k mod 64`` lanes with the partial chunk;
* the 64 lanes by the adjacent-pair tree (two BlockReduce passes = one tree of 64,
  ReduceDataBlock.md 关键特性说明); a row shorter than 64 is one tree over 64 lanes, the missing ones +0;
* ``y = x - max`` over the whole row stride (the padding columns too), ``exp``, the sum of the
  first ``k`` elements the same way, ``y / sum``.

Every add, subtraction and division is one numpy float32 operation (IEEE round-to-nearest-even).
Half data (softmax_generic_nd_impl.h L55-121) is computed in float: widened exactly, and the
results (dst; sum and max when they are half) narrowed to half with ties away from zero
(CAST_ROUND, ``FLOAT2HALF_ROUND_MODE`` of membase/v220/softmax_common_impl.h): numpy's RNE
conversion, moved to the neighbour of larger magnitude on an exact tie.
The 310P (dav_m200, ``membase/v200/softmax_common_impl.h``; ``product="310P"``) differs in three places:

* rows of 64 to 127 elements start from chunk 0 plus +0 (FirstBlockCopyImpl is an Adds of 0), and in
  a split of more than one row a row of at least 64 elements gets its max and sum plus +0 on the
  way to their block (the Adds of BasicBlockReduce*Impl): a -0 becomes +0 there, nothing else changes;
* ``y * (1 / sum)``, both roundings IEEE (TransDivToMulImpl: Duplicate 1, Div, Mul);
* half results narrowed to nearest, ties to even (``FLOAT2HALF_ROUND_MODE`` is CAST_NONE there).

``exp`` is npusim's stated accuracy model, rebuilt here: Python's ``math.exp`` in float64, rounded
once to float32.  Rows past the original rows are not computed (the caller leaves them as they were).
"""

from __future__ import annotations

import functools
import math

import numpy as np

F32 = np.float32


def exp_model(value: np.float32) -> np.float32:
    """npusim's Exp accuracy model: float64 ``exp``, rounded to float32 (docs/numerics.md)."""
    return F32(math.exp(float(value)))


def tree(lanes: list[np.float32]) -> np.float32:
    """The adjacent-pair tree sum, each add rounded to float32."""
    level = list(lanes)
    while len(level) > 1:
        level = [F32(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def _combine(op, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([op(F32(x), F32(y)) for x, y in zip(a, b, strict=True)], dtype=F32)


def _add(x, y):
    return F32(x + y)


def _max(x, y):
    """The larger, with -0 below +0 (docs/numerics.md: max orders -0 below +0)."""
    if x == y == 0:
        return y if np.signbit(x) else x
    return x if x >= y else y


def row_reduce(row: np.ndarray, k: int, kind: str, product: str = "A2", several_rows: bool = True) -> np.float32:
    """Sum or max of ``row[:k]`` in the vendor's order (``several_rows``: the row's split has more than one)."""
    op = _add if kind == "sum" else _max
    finish = tree if kind == "sum" else (lambda lanes: F32(functools.reduce(_max, lanes)))
    values = row[:k].astype(F32)
    chunks, tail = divmod(k, 64)
    if k < 64:
        padding = [F32(0)] * (64 - k) if kind == "sum" else []
        return finish(list(values) + padding)
    if k >= 512:
        lanes = np.array([finish(list(values[8 * lane: 8 * lane + 8])) for lane in range(64)], dtype=F32)
        first = 8
    elif k >= 128:
        lanes, first = _combine(op, values[0:64], values[64:128]), 2
    elif product == "310P":
        lanes, first = np.array([F32(v + F32(0)) for v in values[0:64]], dtype=F32), 1
    else:
        lanes, first = values[0:64].copy(), 1
    for chunk in range(first, chunks):
        lanes = _combine(op, lanes, values[64 * chunk: 64 * chunk + 64])
    if tail:
        lanes[:tail] = _combine(op, lanes[:tail], values[64 * chunks: 64 * chunks + tail])
    result = finish(list(lanes))
    return F32(result + F32(0)) if product == "310P" and several_rows else result


def half_round_away(value: np.float32) -> np.float16:
    """float32 -> float16, to nearest, ties away from zero (CAST_ROUND)."""
    nearest = np.float16(value)
    if not np.isfinite(nearest) or float(nearest) == float(value):
        return nearest
    toward = np.float16(np.inf) if float(value) > float(nearest) else np.float16(-np.inf)
    other = np.nextafter(nearest, toward)
    if abs(float(value) - float(nearest)) == abs(float(other) - float(value)):
        return nearest if abs(float(nearest)) > abs(float(other)) else other
    return nearest


def _narrow(values: np.ndarray, product: str) -> np.ndarray:
    if product == "310P":  # to nearest, ties to even: numpy's own conversion (beyond the half range: inf)
        with np.errstate(over="ignore"):
            return values.astype(F32).astype(np.float16)
    return np.array([half_round_away(F32(v)) for v in values.ravel()], dtype=np.float16).reshape(values.shape)


def softmax_rows(x: np.ndarray, k: int, exp=exp_model, half_data: bool = False, half_stats: bool = False,
                 product: str = "A2", split_rows: list[int] | None = None):
    """(dst, max, sum) of the rows ``x`` (each row its full stride), reducing the first ``k`` elements.

    ``x`` holds float32 values (half values when ``half_data``); dst comes back as half when
    ``half_data``, max and sum as half when ``half_stats``, each as one 32-byte block per row
    (8 floats or 16 halves of the same value), as the API stores them.  ``split_rows``: the rows
    of each split in order (default: one split); it matters on the 310P only, for a -0 max.
    """
    split_rows = split_rows or [len(x)]
    several = [count > 1 for count in split_rows for _ in range(count)]
    dst, maxima, sums = _float_rows(x.astype(F32), k, exp, product, several)
    if half_stats:
        maxima = _narrow(np.repeat(maxima[:, :1], 16, 1), product)
        sums = _narrow(np.repeat(sums[:, :1], 16, 1), product)
    return (_narrow(dst, product) if half_data else dst), maxima, sums


def _float_rows(x: np.ndarray, k: int, exp, product: str, several: list[bool]):
    rows, stride = x.shape
    dst = np.empty_like(x, dtype=F32)
    maxima, sums = np.empty((rows, 8), F32), np.empty((rows, 8), F32)
    for r in range(rows):
        peak = row_reduce(x[r], k, "max", product, several[r])
        shifted = np.array([exp(F32(F32(v) - peak)) for v in x[r]], dtype=F32)
        total = row_reduce(shifted, k, "sum", product, several[r])
        if product == "310P":
            inverse = F32(F32(1) / total)
            dst[r] = np.array([F32(v * inverse) for v in shifted], dtype=F32)
        else:
            dst[r] = np.array([F32(v / total) for v in shifted], dtype=F32)
        maxima[r], sums[r] = peak, total
    return dst, maxima, sums
