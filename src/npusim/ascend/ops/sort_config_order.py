"""The orders and scratch sizes of Sort with SortConfig (docs/semantics.md §5.28): what the 950's implementation
(``impl/adv_api/detail/sort/sort/sort_impl.h``, ``sort_common_utils.h``) computes, as numpy on raw bits.

* **RADIX_SORT** sorts unsigned keys, least significant byte first, one stable pass per byte (``TwiddleInData``
  then ``sizeof(T)`` rounds of an 8-bit counting sort).  The key of a raw pattern ``x`` of ``B`` bytes: floats
  (half, bfloat16, float) ``~x`` when the sign bit is set, else ``x ^ sign``; signed integers ``x ^ sign``;
  unsigned integers ``x``; descending then inverts every bit (``Not``).  So the result is the stable ascending
  sort of the keys: ties (equal bits only) stay in input order, descending included; -0 sorts before +0, and
  NaNs sort by their bits (a negative NaN below -inf, a positive one above +inf; reversed when descending).
* **MERGE_SORT** is Sort32 and the full merge sort (scores largest first, §5.15: ±0 tie, every NaN above +inf
  and NaNs tie); ascending flips every sign bit before and after (``DescendProcess``).  So the result is the
  stable sort by :func:`.sort_order.rank` of ``x ^ sign``, largest first: NaNs of either sign first (in input
  order), then ascending (descending without the flip), ±0 tied in input order.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from .sort_order import rank, stable_descending

__all__ = ["UNSIGNED", "merge_order", "radix_keys", "radix_order", "radix_partial_order", "tmp_bytes"]

UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
FLOATS = frozenset({"float16", "bfloat16", "float32"})
SIGNED = frozenset({"int8", "int16", "int32", "int64"})
BUCKET_BYTES = 512  # 256 uint16 bucket sums
FIXED_RATE = 7  # per element: u8 digits, u16 local indices, u32 sorted local indices (GetSortMaxMinTmpSize)
MERGE_ELEMENT_BYTES = 8  # one (score, index) structure per element


def radix_keys(raw: np.ndarray, dtype: DType, descending: bool) -> np.ndarray:
    """``TwiddleInData``: the unsigned keys whose stable ascending sort is the result (module docstring)."""
    sign = raw.dtype.type(1 << (8 * raw.dtype.itemsize - 1))
    if dtype.name in FLOATS:
        keys = np.where(raw & sign, ~raw, raw ^ sign)
    elif dtype.name in SIGNED:
        keys = raw ^ sign
    else:
        keys = raw.copy()
    return ~keys if descending else keys


def radix_order(keys: np.ndarray) -> np.ndarray:
    """Positions of the keys in result order: stable, ascending."""
    return np.argsort(keys, kind="stable")


def radix_partial_order(keys: np.ndarray) -> np.ndarray:
    """The order after all rounds but the last: stable by the key's low ``B - 1`` bytes (what a source reused
    as the rounds' second buffer is left holding, §5.28)."""
    low = keys.dtype.type((1 << (8 * (keys.dtype.itemsize - 1))) - 1)
    return np.argsort(keys & low, kind="stable")


def merge_order(raw: np.ndarray, dtype: DType, descending: bool) -> np.ndarray:
    """Positions in result order of the merge sort: Sort32's score order of ``raw`` (sign bits flipped when
    ascending), largest first, stable."""
    scores = raw if descending else raw ^ raw.dtype.type(1 << (8 * raw.dtype.itemsize - 1))
    return stable_descending(rank(scores, dtype)[None, :])[0]


def tmp_bytes(count: int, merge: bool, value_bytes: int, index_bytes: int, has_src_index: bool,
              has_dst_index: bool, reuse: bool) -> int:
    """``GetSortMaxMinTmpSize``'s minValue (= maxValue) in bytes (``impl/adv_api/tiling/sort/sort_tiling_impl.cpp``).

    Merge sort: 8 bytes per element.  Radix sort: 512 + 7 per element (counts aligned up to 32), plus per
    element a value (none when the source is reused) and, with a dst index, an index (uint32 without a source
    index; with one, the index type, none when reused); 1-byte values with a dst index only need 2 bytes per
    element less, and with both indices nothing extra.
    """
    if merge:
        return MERGE_ELEMENT_BYTES * count
    n = -(-count // 32) * 32
    extra_value = 0 if reuse else value_bytes
    required = n * FIXED_RATE + BUCKET_BYTES
    if value_bytes != 1:
        if not has_dst_index:
            required += n * extra_value
        elif not has_src_index:
            required += n * (4 + extra_value)
        else:
            required += n * (extra_value + (0 if reuse else index_bytes))
    elif has_dst_index and not has_src_index:
        required -= 2 * n
    return required
