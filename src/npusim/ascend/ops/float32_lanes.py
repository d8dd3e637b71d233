"""A few float32 lane operations in fewer numpy passes than :func:`.arith.compute`, with its results.

:func:`.arith.compute` computes each step of a lane into a new array and then looks for NaN or infinite lanes with
a reduction of ``np.isfinite``.  For the operations here (AddRelu, SubRelu, AbsSub, Prelu on float32: the compound
and arith rows of issue 14) a binding in the view layout makes a route once, over the arrays its operands' reads
return every call (views of UB, or the strided operands' buffers); the route computes into the destination's output
when no source may share memory with it (else into an array of its own), with its views and scratch arrays made
once, and takes a short cut where one is exact:

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

import numpy as np

__all__ = ["ROUTES"]

_F32, _I32, _U32 = np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.uint32)
_INF = np.float32(np.inf)
_MAGNITUDE = np.uint32(0x7FFFFFFF)
_ZERO = np.float32(0)
# an overflow or inf - inf makes an infinite or NaN lane, which the route then leaves to arith.compute; as a
# decorator numpy's errstate costs 0.6-1.5 µs a call less than a ``with`` block, which makes its object anew
_QUIET = np.errstate(all="ignore")

#: a route for the arrays it reads and the array it writes (``None``: its own), made once per binding: the lanes'
#: result bits of a call, or ``None`` when a lane may be NaN or infinite
Route = Callable[[], "np.ndarray | None"]


def _own(out: np.ndarray | None, like: np.ndarray) -> np.ndarray:
    """Where a route's raw uint32 results go: ``out``, or an array of its own of ``like``'s shape."""
    return np.empty(like.shape, _U32) if out is None else out


def _below_infinity(values: np.ndarray) -> bool:
    """No lane of these float32 values (non-negative or NaN) is NaN or +infinity."""
    return bool(np.maximum.reduce(values, axis=None) < _INF)


def _relu_of(ufunc) -> Callable[..., Route]:
    def bind(a: np.ndarray, b: np.ndarray, out: np.ndarray | None) -> Route:
        a, b = a.view(_F32), b.view(_F32)
        bits = _own(out, a)
        total, signed = bits.view(_F32), bits.view(_I32)
        # numpy's maximum of two arrays runs its vector loop, with a scalar operand one about three times slower
        zeros = np.zeros(a.shape, _I32)

        @_QUIET
        def route() -> np.ndarray | None:
            ufunc(a, b, out=total)
            if not np.maximum.reduce(total, axis=None) < _INF:  # a NaN or +infinity lane (-infinity's relu is +0)
                return None
            np.maximum(signed, zeros, out=signed)
            return bits
        return route
    return bind


def abs_sub(a: np.ndarray, b: np.ndarray, out: np.ndarray | None) -> Route:
    a, b = a.view(_F32), b.view(_F32)
    bits = _own(out, a)
    difference = bits.view(_F32)

    @_QUIET
    def route() -> np.ndarray | None:
        np.subtract(a, b, out=difference)
        np.bitwise_and(bits, _MAGNITUDE, out=bits)
        return bits if _below_infinity(difference) else None
    return route


def prelu(a: np.ndarray, alpha: np.ndarray, out: np.ndarray | None) -> Route | None:
    """``None`` below :data:`PRELU_LANES` lanes, where ``np.where``'s branch misses cost less than the four numpy
    calls more of the pick on the bits."""
    if a.size < PRELU_LANES:
        return None
    x, alpha = a.view(_F32), alpha.view(_F32)
    bits = _own(out, a)
    negative = np.empty(a.shape, np.bool_)
    picked = np.empty(a.shape, _U32)  # its own: out may alias a source
    product = picked.view(_F32)

    @_QUIET
    def route() -> np.ndarray | None:
        np.less(x, _ZERO, out=negative)
        np.multiply(x, alpha, out=product)
        np.bitwise_xor(picked, a, out=picked)
        np.multiply(picked, negative, out=picked)  # x ^ p where x < 0, else 0
        np.bitwise_xor(a, picked, out=bits)
        return bits if np.logical_and.reduce(np.isfinite(bits.view(_F32)), axis=None) else None
    return route


PRELU_LANES = 1024  # np.where: about 3 ns a lane on mixed signs; the pick: 0.7 ns, and 1.5 µs of calls more


#: operation -> the route of a binding, for the two arrays of raw uint32 lanes its sources' reads return (the same
#: arrays every call: views of UB or the operands' buffers) and dst's output (``None``: an array of the route's own);
#: ``None``: no route for these arrays
ROUTES: dict[str, Callable[..., Route]] = {"add_relu": _relu_of(np.add), "sub_relu": _relu_of(np.subtract),
                                           "abs_sub": abs_sub, "prelu": prelu}
