"""The 950's complex arithmetic (docs/semantics.md §5.29), on an emulated 950, beside numpy doing the same job.

``mul`` of complex64 in its count form (the only form complex types have): ``repeats`` repeats' worth of
elements (32 complex64 a 256-byte repeat) against numpy's complex64 multiply ``a * b`` (the timed numpy column).
numpy's complex64 product is not rounded step by step (on this host it differs from the float32 steps in the
last bit of about one lane in four), so the one-time byte check compares npusim with numpy's float32 arrays
computing the 950's steps, ``(ac - bd) + (bc + ad)i``, each operation rounded to float32 (docs/semantics.md §5.29).
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from ascend_cases import VECIN, VECOUT
from registry import Bench

from npusim import ascend as asc

__all__ = ["complex_mul_bench"]

PER_REPEAT = 32  # complex64 elements in 256 bytes


def complex_mul_bench(repeats: int) -> Bench:
    """``asc.mul(dst, src0, src1, count)`` on complex64 vs ``a * b`` on numpy complex64 arrays."""
    rng = np.random.default_rng(24)
    count = repeats * PER_REPEAT
    a, b = ((rng.standard_normal(count) + 1j * rng.standard_normal(count)).astype(np.complex64) for _ in range(2))
    stack = ExitStack()
    core = stack.enter_context(asc.Core("950"))
    base0, base1, base_dst = 0x00000, 0x0A000, 0x14000
    core.ub_write(base0, a.tobytes())
    core.ub_write(base1, b.tobytes())
    src0, src1 = (asc.LocalTensor(asc.complex64, VECIN, base, count) for base in (base0, base1))
    dst = asc.LocalTensor(asc.complex64, VECOUT, base_dst, count)
    return Bench(
        npusim=lambda: asc.mul(dst, src0, src1, count),
        numpy=lambda: a * b,
        npusim_output=lambda: core.ub_read(base_dst, 8 * count),
        numpy_output=lambda: _stepwise_product(a, b).tobytes(),
        resources=stack,
    )


def _stepwise_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The 950's complex64 product in numpy float32 arrays: four rounded products, then a rounded sub and add."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    out = np.empty(a.shape, np.complex64)
    out.real, out.imag = ar * br - ai * bi, ai * br + ar * bi
    return out
