"""Per-lane reference of the 950's complex32 / complex64 arithmetic (docs/semantics.md §5.29), no numpy and no
npusim: Python ints for bits, the exact rational real steps of :mod:`.elementwise_reference` and
:mod:`.reference_model` (each rounded once to the component type, then saturated where half saturates).

The sequences of real steps are transcribed from the vendor's kernels (asc-devkit
``impl/basic_api/reg_compute/dav_3510/kernel_reg_compute_vec_binary_impl.h``: ``AddComplexTwoRegImpl``,
``SubComplex64Impl``, ``ComplexMulKernel``, ``ComplexDivKernel``; ``..._vec_unary_impl.h``:
``ComplexAbsKernel``), read as algorithms.
"""

from __future__ import annotations

from . import elementwise_reference as eref
from . import reference_model as ref

COMPONENT = {"complex32": "float16", "complex64": "float32"}
SIZE = {"complex32": 4, "complex64": 8}


def parts(bits: int, fmt: str) -> tuple[int, int]:
    """(real bits, imaginary bits): the real part is the low half, at the lower address."""
    half = 4 * SIZE[fmt]
    return bits & ((1 << half) - 1), bits >> half


def whole(real: int, imag: int, fmt: str) -> int:
    return real | (imag << (4 * SIZE[fmt]))


def lane_bits(op: str, fmt: str, x_bits: int, y_bits: int | None, saturate: bool) -> int:
    """One complex lane of ``op`` (add, sub, mul, div; ``abs``: the real magnitude's bits)."""
    comp = COMPONENT[fmt]

    def step(name: str, u: int, v: int | None = None) -> int:
        if name == "abs":  # |u|: the sign cleared (inf and NaN as every half result)
            return ref.float_result_bits("abs", comp, u, None, saturate)
        return eref.float_bits(name, comp, u, v, saturate)

    a, b = parts(x_bits, fmt)
    if op == "abs":
        return step("sqrt", step("add", step("mul", a, a), step("mul", b, b)))
    c, d = parts(y_bits, fmt)
    if op in ("add", "sub"):
        return whole(step(op, a, c), step(op, b, d), fmt)
    if op == "mul":
        return whole(step("sub", step("mul", a, c), step("mul", b, d)),
                     step("add", step("mul", b, c), step("mul", a, d)), fmt)
    if op == "div":
        return whole(*_divide(a, b, c, d, comp, step), fmt)
    raise ValueError(op)


def _divide(a: int, b: int, c: int, d: int, comp: str, step) -> tuple[int, int]:
    """ComplexDivKernel: which branch from the compares of |c| and |d|, then that branch's steps."""
    one = _one(comp)
    abs_c, abs_d = step("abs", c), step("abs", d)
    mc, md = ref.decode(abs_c, comp), ref.decode(abs_d, comp)
    if ref.compares("GE", mc, md):
        zero = ("zero", 0)
        if ref.compares("EQ", mc, zero) and ref.compares("EQ", md, zero):
            return step("div", a, abs_c), step("div", b, abs_d)
        r = step("div", d, c)
        s = step("div", one, step("add", c, step("mul", d, r)))
        return step("mul", step("add", a, step("mul", b, r)), s), step("mul", step("sub", b, step("mul", a, r)), s)
    r = step("div", c, d)
    s = step("div", one, step("add", d, step("mul", c, r)))
    return step("mul", step("add", step("mul", a, r), b), s), step("mul", step("sub", step("mul", b, r), a), s)


def _one(comp: str) -> int:
    return 0x3C00 if comp == "float16" else 0x3F800000
