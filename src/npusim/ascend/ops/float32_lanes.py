"""A few float32 lane operations in fewer numpy passes than :func:`.arith.compute`, with its results.

:func:`.arith.compute` computes each step of a lane into a new array and then looks for NaN or infinite lanes with
a reduction of ``np.isfinite``.  For the operations here (AddRelu, SubRelu, AbsSub, Prelu on float32: the compound
and arith rows of issue 14) a route computes into the destination's array instead, when the binding says no source
shares memory with it (``out``; else a new array), and takes a short cut where one is exact:

* **add_relu / sub_relu**: the sum (difference) rounded once by numpy's float32 arithmetic, then relu
  (``maximum(x, +0)``, docs/semantics.md: AddRelu rounds the sum first) on the bit patterns: a finite float's bits
  read as an int32 are negative exactly when its sign is set, so ``maximum(bits, 0)`` keeps a positive value or +0
  and turns a negative value and -0 into +0's bits, as IEEE ``maximum(x, +0)`` does.  -infinity gives +0 too.
* **abs_sub**: the difference rounded once, then its sign bit cleared (the magnitude is exact).
* **prelu**: ``x`` where ``x >= 0``, else ``x * alpha`` rounded once; the lanes are picked on the bit patterns
  (``x ^ ((x ^ p) * (x < 0))``), since ``np.where`` on a mixed pattern of signs costs some 3 ns a lane in branch
  misses (30 µs at 10240 lanes) against 0.7 ns for the three integer passes.  ``x < 0`` is false for -0 and for
  NaN, which keeps ``x``: the ``x >= 0`` lanes, and a NaN lane either way.

Every route returns ``None`` when a lane may be NaN or infinite (the maximum of non-negative results, which numpy's
``maximum.reduce`` makes NaN when a lane is, is not below infinity; for Prelu's signed results, ``np.isfinite``):
the binding then computes the call by :func:`.arith.compute`, so the canonical NaN and the other rules of
docs/numerics.md stay in one place.  A float32 lane never saturates (the products' ``float_saturation_dtypes``
hold half and bfloat16 only), so no other rule applies to a finite result.  A route writes only ``out`` (or its own
array) and reads its sources before anything in ``out`` can alias them, so giving up leaves the sources as they
were.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

__all__ = ["ROUTES"]

_F32, _I32, _U32 = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.uint32)
_INF = np.float32(np.inf)
_MAGNITUDE = np.uint32(0x7FFFFFFF)
_ZERO = np.float32(0)


def _into(out: np.ndarray | None, like: np.ndarray) -> np.ndarray:
    """Where a route's raw uint32 results go: ``out``, or a new array of ``like``'s shape."""
    return np.empty(like.shape, _U32) if out is None else out


@lru_cache(maxsize=64)
def _zero_bits(shape: tuple[int, ...]) -> np.ndarray:
    """A read-only int32 zeros array of ``shape``: numpy's ``maximum`` of two arrays runs its vector loop, with a
    scalar operand a loop about three times slower (2 against 6 µs at 10240 lanes)."""
    zeros = np.zeros(shape, _I32)
    zeros.flags.writeable = False
    return zeros


def _below_infinity(values: np.ndarray) -> bool:
    """No lane of these float32 values (non-negative or NaN) is NaN or +infinity."""
    return bool(np.maximum.reduce(values, axis=None) < _INF)


def _relu_of(ufunc) -> Callable:
    def route(a: np.ndarray, b: np.ndarray, out: np.ndarray | None) -> np.ndarray | None:
        bits = _into(out, a)
        with np.errstate(all="ignore"):
            total = ufunc(a.view(_F32), b.view(_F32), out=bits.view(_F32))
        if not _below_infinity(total):  # a NaN or +infinity lane (a -infinity lane's relu is +0)
            return None
        signed = bits.view(_I32)
        np.maximum(signed, _zero_bits(signed.shape), out=signed)
        return bits
    return route


def abs_sub(a: np.ndarray, b: np.ndarray, out: np.ndarray | None) -> np.ndarray | None:
    bits = _into(out, a)
    with np.errstate(all="ignore"):
        np.subtract(a.view(_F32), b.view(_F32), out=bits.view(_F32))
    np.bitwise_and(bits, _MAGNITUDE, out=bits)
    return bits if _below_infinity(bits.view(_F32)) else None


def prelu(a: np.ndarray, alpha: np.ndarray, out: np.ndarray | None) -> np.ndarray | None:
    x = a.view(_F32)
    negative = np.less(x, _ZERO)
    with np.errstate(all="ignore"):
        picked = np.multiply(x, alpha.view(_F32)).view(_U32)  # a new array: out may alias a source
    np.bitwise_xor(picked, a, out=picked)
    np.multiply(picked, negative, out=picked)  # x ^ p where x < 0, else 0
    bits = np.bitwise_xor(a, picked, out=_into(out, a))
    return bits if np.logical_and.reduce(np.isfinite(bits.view(_F32)), axis=None) else None


#: operation -> route (the two sources' raw uint32 lanes, the output or ``None``) -> result bits or ``None``
ROUTES: dict[str, Callable] = {"add_relu": _relu_of(np.add), "sub_relu": _relu_of(np.subtract),
                               "abs_sub": abs_sub, "prelu": prelu}
