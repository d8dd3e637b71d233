"""The adjacent-pair tree sum of :mod:`.reduce` for float rows too small to overflow: numpy's own adds in T.

The tree (ReduceDataBlock.md 关键特性说明, :func:`.reduce.tree_sum`) adds neighbours, each add rounded to
T, level by level.  When every source's magnitude is below ``2**(emax - k)`` for rows of ``2**k`` lanes
(half: 2048 for a DataBlock's 16 lanes, 256 for a repeat's 128; float32: ``2**(127 - k)``), every node of
level ``j`` is at most ``2**(emax - k + j)`` (a sum of two children below the bound, rounded: rounding is
monotone and the bound is a number of T), so no node overflows: no infinity, no NaN (the sources are
finite: their magnitude bits lie below the exponent's all-ones), and CTRL[48]'s saturation never acts.
Each node is then the IEEE sum of its children rounded to nearest even T, which numpy's add of two T
arrays computes: float32 natively; half through float32 (``npy_half_add``: the float32 sum, rounded to
half), and float32 has ``24 >= 2 * 11 + 2`` significand bits, so that double rounding is the correct
rounding of the exact sum (checked against the float32 sum's conversion for every finite half times 3000
others, ad hoc).  No node's result is an inexact subnormal either (two halves' sum is a multiple of
``2**-24``; below ``2**-14`` it is a subnormal exactly), so numpy raises no flag on the way and needs no
``np.errstate``.  Sources outside the bound go to :mod:`.reduce`'s other routes.

numpy's half adds and conversions run element by element (some 5 ns each here, against 0.3-1 ns for a
float32 or uint32 operation), so from :data:`SINGLES_FROM` sources a half tree runs in float32 instead
(:func:`_half_tree_in_singles`): the sources widened exactly by their bits, each level a float32 add and its
rounding to half's 11 significant bits on the float32's bits (ties to even), which is the node's half
(the same double rounding; a node below ``2**-14`` is a multiple of ``2**-24`` with at most 10 significant
bits, which the rounding keeps).
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...rounding import float_format

__all__ = ["PairTree", "bounded_running_sum", "bounded_tree_sum", "magnitude_limit"]


def magnitude_limit(dtype: DType, width: int) -> int:
    """Twice the bits of ``2**(emax - k)`` for rows of ``width = 2**k`` lanes: the sources' bits shifted
    left once (the sign dropped) must lie below it (module docstring)."""
    fmt = float_format(dtype)
    k = width.bit_length() - 1
    return ((2 * fmt.bias - k) << fmt.mantissa_bits) << 1


def within(raw: np.ndarray, limit: int) -> bool:
    """Whether every element of ``raw`` (T's bits) has a magnitude below the one ``limit`` stands for."""
    return int(np.maximum.reduce(raw << 1, axis=None)) < limit


SINGLES_FROM = 8192  # half sources from which the float32 route is the quicker (about 50 µs for either)
_HALF = np.dtype(np.float16)
_TO_SINGLE = np.float32(2.0**112)  # 2**(127 - 15): half's exponent bias in float32's
_KEEP_BELOW_HALF_EXPONENT = np.int32(-0x70000001)  # 0x8FFFFFFF: the sign, then float32's bits 27-0
_ROUND_BIT, _BELOW_HALF_ULP, _HALF_SIGNIFICAND = np.uint32(1), np.uint32(0x0FFF), np.uint32(0xFFFFE000)


def bounded_tree_sum(groups: np.ndarray, dtype: DType) -> np.ndarray | None:
    """Each row's tree sum (``dtype.raw`` bits, one per row) by numpy's adds, or ``None`` when some source
    lies outside :func:`magnitude_limit` (module docstring)."""
    if not within(groups, magnitude_limit(dtype, groups.shape[1])):
        return None
    if dtype.np_dtype == _HALF and groups.size >= SINGLES_FROM:
        return _half_tree_in_singles(groups)
    level = groups.view(dtype.np_dtype)
    while level.shape[1] > 1:
        level = level[:, 0::2] + level[:, 1::2]
    return level.view(dtype.raw).reshape(-1)


def bounded_running_sum(values: np.ndarray, dtype: DType) -> int | None:
    """The in-order sum ``((v0 + v1) + v2) + ...`` of a 1-D array of T's bits, each add rounded to T
    (ReduceSum.md 方式一), by numpy's ``np.add.accumulate`` in T, or ``None`` when some value's magnitude
    reaches ``2**(emax - k)`` for ``n <= 2**k`` values.  Below it the partial sum after ``j`` adds is at most
    ``RN(j * 2**(emax - k)) <= 2**emax`` (rounding is monotone), so no add overflows, and each step is the
    IEEE sum of two T rounded to T, as in the tree (module docstring); the accumulation rounds every step
    (only ``np.add.reduce`` keeps half's partial sums in float32)."""
    width = 1 << max(values.size - 1, 1).bit_length()
    if not within(values, magnitude_limit(dtype, width)):
        return None
    return int(np.add.accumulate(values.view(dtype.np_dtype))[-1:].view(dtype.raw)[0])


def _half_tree_in_singles(groups: np.ndarray) -> np.ndarray:
    """The tree sums (uint16 bits) of rows of half bits within the bound, computed in float32.

    A half's bits shifted left 13 into an int32 (sign-extended, then the copies of the sign in bits 30-28
    cleared) are a float32 of the same sign, exponent field and significand: the half's value times
    2**-112, a float32 subnormal for a half subnormal; times 2**112 it is the half's value, exactly.  A
    float32 node ``b`` rounds to 11 significant bits, ties to even, by ``b + 0xFFF + (bit 13 of b)`` with the
    13 low bits then cleared (a carry out of the significand steps the exponent, as it should)."""
    bits = np.left_shift(groups.view(np.int16), 13, dtype=np.int32)
    bits &= _KEEP_BELOW_HALF_EXPONENT
    level = bits.view(np.float32)
    level *= _TO_SINGLE
    while level.shape[1] > 1:
        node = (level[:, 0::2] + level[:, 1::2]).view(np.uint32)
        rounded = node >> 13
        rounded &= _ROUND_BIT
        rounded += node
        rounded += _BELOW_HALF_ULP
        rounded &= _HALF_SIGNIFICAND
        level = rounded.view(np.float32)
    return level.reshape(-1).astype(_HALF).view(np.uint16)


class PairTree:
    """:func:`bounded_tree_sum` of ``rows`` rows of ``width`` lanes into buffers made once (a binding's):
    each level one ``np.add`` of two views made beforehand, the last one possibly into the destination.

    Args:
        rows, width: the groups' shape (``width`` a power of two, at least 2).
        dtype: T (half or float32).
        first: the sources' grid when it is always the same array (a view of UB), so that its pair views
            are made once too.
        root: where the root level goes, ``(rows, 1)`` of T (a view of the destination), or ``None``.
    """

    def __init__(self, rows: int, width: int, dtype: DType, first: np.ndarray | None = None,
                 root: np.ndarray | None = None) -> None:
        self.dtype, self.limit = dtype, magnitude_limit(dtype, width)
        levels = [np.empty((rows, width >> k), dtype.np_dtype) for k in range(1, width.bit_length() - 1)]
        levels.append(np.empty((rows, 1), dtype.np_dtype) if root is None else root)
        self.levels = levels
        self.pairs = [(level[:, 0::2], level[:, 1::2]) for level in levels[:-1]]
        self.first = first
        self.first_pairs = None if first is None else self._pairs_of(first)

    def _pairs_of(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        values = grid.view(self.dtype.np_dtype).reshape(self.levels[0].shape[0], -1)
        return values[:, 0::2], values[:, 1::2]

    def sum(self, grid: np.ndarray) -> np.ndarray | None:
        """The root level, ``(rows, 1)`` of T, for the sources' bits ``grid``, or ``None`` (nothing
        written) when some source lies outside the bound."""
        if not within(grid, self.limit):
            return None
        if self.dtype.np_dtype == _HALF and grid.size >= SINGLES_FROM:
            self.levels[-1][:, 0] = _half_tree_in_singles(grid.reshape(self.levels[0].shape[0], -1)).view(_HALF)
            return self.levels[-1]
        add = np.add
        even, odd = self.first_pairs if grid is self.first else self._pairs_of(grid)
        for level, (next_even, next_odd) in zip(self.levels, self.pairs, strict=False):
            add(even, odd, out=level)
            even, odd = next_even, next_odd
        add(even, odd, out=self.levels[-1])
        return self.levels[-1]
