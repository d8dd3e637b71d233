"""What one lane of a complex element-wise instruction computes on the 950 (docs/semantics.md §5.29).

A ``complex32`` / ``complex64`` lane is two floats of its component type (half / float), the real
part first.  The 950 has no complex arithmetic unit: its implementation
(``impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_vec_binary_impl.h``,
``..._vec_binary_scalar_impl.h``, ``..._vec_unary_impl.h``) splits the lanes into a register of
real parts and one of imaginary parts and issues the real instructions below, each rounding to
the component type (in half for ``complex32``, never in float) and, for half, saturating as every
half computation of the 950 does (docs/numerics.md).  Each step is npusim's own real lane
(:func:`.arith.compute`), so a complex lane is exactly that sequence.  With ``z0 = a + bi`` and
``z1 = c + di``:

* **add / sub**: ``(a ± c) + (b ± d)i``, two independent roundings;
* **mul** (``ComplexMulKernel``): ``e = a*c, f = b*d, g = b*c, h = a*d``, each rounded, then
  ``re = e - f``, ``im = g + h`` (no fused multiply-add);
* **div** (``ComplexDivKernel``, Smith's algorithm with the vendor's branches): on ``|c| >= |d|``
  (a false compare, a NaN, takes the other branch) ``r = d / c``, ``s = 1 / (c + d*r)``,
  ``re = (a + b*r) * s``, ``im = (b - a*r) * s``; otherwise ``r = c / d``, ``s = 1 / (d + c*r)``,
  ``re = (a*r + b) * s``, ``im = (b*r - a) * s``; and where ``|c| = |d| = 0``, ``re = a / |c|``,
  ``im = b / |d|`` (so ``±inf`` or NaN per part) — every operation one rounded step, in this order;
* **abs** (``ComplexAbsKernel``, a complex source and a real dst): ``sqrt(a*a + b*b)``, the
  squares, the sum and the root each rounded to the component type (the root as npusim's
  ``sqrt``: correctly rounded, docs/numerics.md), so a complex32 magnitude overflows half where
  ``a*a`` does.

A scalar operand (Adds, Muls, Subs, Divs) is duplicated into both registers first
(``AddsComplexTraitTwoImpl``, ``MulsKernel``): the same steps with ``c + di`` the scalar.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from . import arith

__all__ = ["OPERATIONS", "compute", "join", "split"]

OPERATIONS = frozenset({"add", "sub", "mul", "div", "abs"})


def split(raw: np.ndarray, dtype: DType) -> tuple[np.ndarray, np.ndarray]:
    """The real and imaginary parts' raw bits (``dtype.component.raw``) of raw complex lanes."""
    pairs = np.ascontiguousarray(raw.astype(dtype.raw, copy=False)).reshape(-1).view(dtype.component.raw)
    return pairs[0::2].reshape(raw.shape), pairs[1::2].reshape(raw.shape)


def join(real: np.ndarray, imag: np.ndarray, dtype: DType) -> np.ndarray:
    """Raw complex lanes (``dtype.raw``) from the raw bits of their parts."""
    real, imag = np.broadcast_arrays(real, imag)
    pairs = np.empty(real.shape + (2,), dtype=dtype.component.raw)
    pairs[..., 0], pairs[..., 1] = real, imag
    return pairs.view(dtype.raw).reshape(real.shape)


def compute(operation: str, dtype: DType, operands: list[np.ndarray], saturate: bool = False) -> np.ndarray:
    """``operation`` on raw complex lanes (a scalar operand has shape ``(1,)``), as the module docstring
    says.  ``saturate``: the component type's half results saturate (the 950's CTRL[48]).

    Returns:
        Raw complex lanes (``dtype.raw``); for ``abs`` the raw bits of the component type.
    """
    component = dtype.component
    if component.name == "float32" and operation in ("add", "sub", "mul"):
        fast = _float32_lanes(operation, dtype, operands)
        if fast is not None:
            return fast

    def step(op: str, *values: np.ndarray) -> np.ndarray:
        return arith.compute(op, component, list(values), saturate)

    if operation == "abs":
        a, b = split(operands[0], dtype)
        return step("sqrt", step("add", step("mul", a, a), step("mul", b, b)))
    (a, b), (c, d) = (split(op, dtype) for op in operands)
    if operation in ("add", "sub"):
        return join(step(operation, a, c), step(operation, b, d), dtype)
    if operation == "mul":
        e, f, g, h = step("mul", a, c), step("mul", b, d), step("mul", b, c), step("mul", a, d)
        return join(step("sub", e, f), step("add", g, h), dtype)
    if operation == "div":
        return _divide(a, b, c, d, component, step, dtype)
    raise ValueError(f"unknown complex operation {operation!r}")


def _float32_lanes(operation: str, dtype: DType, operands: list[np.ndarray]) -> np.ndarray | None:
    """complex64 add / sub / mul with numpy's float32 arithmetic on the parts, each operation one IEEE rounding to
    nearest even: the steps above, when every result is finite (float results never saturate).  ``None`` where
    some part is infinite or NaN: the step-by-step path then applies the NaN rule (docs/numerics.md)."""
    (a, b), (c, d) = (_float_parts(op) for op in operands)
    shape = a.shape if a.shape == c.shape else np.broadcast_shapes(a.shape, c.shape)
    out = np.empty(shape + (2,), np.float32)
    with np.errstate(all="ignore"):
        if operation == "mul":
            np.subtract(a * c, b * d, out=out[..., 0])
            np.add(b * c, a * d, out=out[..., 1])
        else:
            combine = np.add if operation == "add" else np.subtract
            combine(a, c, out=out[..., 0])
            combine(b, d, out=out[..., 1])
    if not np.logical_and.reduce(np.isfinite(out), axis=None):
        return None
    return out.view(dtype.raw).reshape(shape)


def _float_parts(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pairs = np.ascontiguousarray(raw).view(np.float32).reshape(raw.shape + (2,))
    return pairs[..., 0], pairs[..., 1]


def _divide(a, b, c, d, component: DType, step, dtype: DType) -> np.ndarray:
    """``ComplexDivKernel``'s three cases, every lane through each (their results chosen per lane)."""
    one = np.array([_one_bits(component)], dtype=component.raw)
    abs_c, abs_d = step("abs", c), step("abs", d)
    mag_c, mag_d = _values(abs_c, component), _values(abs_d, component)
    c_wins = mag_c >= mag_d  # vcmp GE: false where either is NaN
    both_zero = c_wins & (mag_c == 0) & (mag_d == 0)
    # |c| >= |d|: r = d / c
    r = step("div", d, c)
    s = step("div", one, step("add", c, step("mul", d, r)))
    re_c = step("mul", step("add", a, step("mul", b, r)), s)
    im_c = step("mul", step("sub", b, step("mul", a, r)), s)
    # |c| < |d| (or a NaN): r = c / d
    r = step("div", c, d)
    s = step("div", one, step("add", d, step("mul", c, r)))
    re_d = step("mul", step("add", step("mul", a, r), b), s)
    im_d = step("mul", step("sub", step("mul", b, r), a), s)
    # |c| = |d| = 0: a / |c|, b / |d|
    re_0, im_0 = step("div", a, abs_c), step("div", b, abs_d)
    real = np.where(both_zero, re_0, np.where(c_wins, re_c, re_d))
    imag = np.where(both_zero, im_0, np.where(c_wins, im_c, im_d))
    return join(real, imag, dtype)


def _values(raw: np.ndarray, component: DType) -> np.ndarray:
    return raw.view(component.np_dtype)


def _one_bits(component: DType) -> int:
    return int(np.array(1.0, dtype=component.np_dtype).view(component.raw))
