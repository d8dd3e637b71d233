"""The order the sort instructions put scores in (docs/semantics.md §5.15).

Sort32 and the merge sorts (MrgSort, MrgSort4) order by score, largest first.  The pages give
the tie rule (Sort32.md, MrgSort.md, MrgSort4.md 约束说明): of two equal scores the one that comes
first in the input comes first in the output, a stable order.  They say nothing about NaN or the
sign of zero; npusim's rule (§5.15):

* scores compare as real numbers, so ``-0.0`` and ``+0.0`` are equal (a tie, kept in input order);
* every NaN, whatever its sign and payload, is larger than ``+inf``, and NaNs tie with each other.

:func:`rank` turns raw score bits into integers that order the same way, so that a sort is a stable
``argsort`` of integers and never a float comparison numpy might do differently.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType

__all__ = ["merge_order", "rank", "stable_descending"]

#: per score width: the signed view of its bits, the magnitude's bits, +inf's bits
_FLOAT_BITS = {2: (np.int16, np.int16(0x7FFF), 0x7C00), 4: (np.int32, np.int32(0x7FFFFFFF), 0x7F800000)}
_FEW_ROWS = 8  # up to this many rows a stable argsort is quicker than sorting composite keys


def rank(raw: np.ndarray, dtype: DType) -> np.ndarray:
    """Integer keys of raw half / float score bits: a larger score has a larger key (module docstring).

    A sign-magnitude pattern ``s`` (the bits read as a signed integer) maps to ``s`` when positive and to
    ``INT_MIN - s`` (minus its magnitude) when negative, which sends -0.0 to 0; a NaN maps above +inf.
    The magnitude ``m`` is negated where the sign ``s >> (width - 1)`` is -1 as ``(m ^ -1) - (-1)``, two's
    complement (integer operations only: quicker than a ``np.where``).
    """
    signed, magnitude_bits, inf = _FLOAT_BITS[dtype.itemsize]
    bits = raw.view(signed)
    magnitude = bits & magnitude_bits
    sign = bits >> (8 * dtype.itemsize - 1)
    keys = magnitude ^ sign
    keys -= sign
    if magnitude.size and int(np.maximum.reduce(magnitude, axis=None)) > inf:  # a NaN
        keys[magnitude > inf] = inf + 1
    return keys


def stable_descending(keys: np.ndarray) -> np.ndarray:
    """Along the last axis of a 2-D array: the positions of ``keys`` largest first, equal keys in input order.

    ``~k`` reverses the order of the integers (it cannot overflow).  Many rows are sorted as unique
    composite keys ``(~k << bits) | position``, for which every sort algorithm gives the one answer.
    """
    if keys.shape[0] <= _FEW_ROWS:
        return (~keys).argsort(axis=-1, kind="stable")
    width = keys.shape[-1]
    bits = max(width - 1, 1).bit_length()
    composite = (~keys.astype(np.int64) << bits) | np.arange(width, dtype=np.int64)
    return np.sort(composite, axis=-1) & ((1 << bits) - 1)


def merge_order(keys: list[np.ndarray], suspend: bool) -> tuple[np.ndarray, np.ndarray]:
    """The order a four-way merge takes the queues' structures in (MrgSort.md 功能说明, 约束说明).

    At each step the merge takes the head with the largest key; of equal heads the one of the
    lowest queue (the earlier input).  With ``suspend`` it stops right after the step that takes
    the last structure of a queue (a queue empty from the start stops it before the first step).

    Returns:
        ``(queue, position)`` of every structure taken, in output order.
    """
    lengths = [k.size for k in keys]
    if all(k.size < 2 or bool((k[1:] <= k[:-1]).all()) for k in keys):
        # sorted queues: the merge is the stable sort of their concatenation, lowest queue first
        queue = np.concatenate([np.full(n, q, np.int64) for q, n in enumerate(lengths)])
        position = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])
        order = stable_descending(np.concatenate(keys)[None, :])[0] if queue.size else np.empty(0, np.int64)
        queue, position = queue[order], position[order]
    else:
        queue, position = _merge_by_heads(keys)
    if suspend:
        stop = _suspension_point(queue, position, lengths)
        queue, position = queue[:stop], position[:stop]
    return queue, position


def _merge_by_heads(keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The merge step by step, for queues that are not sorted (the pages ask for sorted ones)."""
    heads = [0] * len(keys)
    lists = [k.tolist() for k in keys]
    queue, position = [], []
    while True:
        best = -1
        for q, items in enumerate(lists):
            if heads[q] < len(items) and (best < 0 or items[heads[q]] > lists[best][heads[best]]):
                best = q
        if best < 0:
            return np.array(queue, np.int64), np.array(position, np.int64)
        queue.append(best)
        position.append(heads[best])
        heads[best] += 1


def _suspension_point(queue: np.ndarray, position: np.ndarray, lengths: list[int]) -> int:
    """How many structures a suspending merge takes: up to the one that empties the first queue."""
    if min(lengths) == 0:
        return 0
    last = [int(np.flatnonzero((queue == q) & (position == n - 1))[0]) for q, n in enumerate(lengths)]
    return min(last) + 1
