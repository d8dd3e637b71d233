"""The 950's own element-wise instructions (issue 14), on an emulated 950, each beside numpy doing the same job.

One representative per family they add to: ``ors`` (logic, a scalar operand, the mask form with the
layouts of :mod:`ascend_cases`); ``prelu`` (arith), ``abs_sub`` (compound), ``interleave`` (rearrange) and
``truncate`` (cast), which have only the count form (contiguous, so no strided row).  Inputs are normal floats or any
integers: numpy's results are the emulator's there (no NaN, no overflow).
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from ascend_cases import DENSE, STRIDED, UB_USED, VECIN, VECOUT
from registry import Bench
from ub_image import place, read_back

from npusim import ascend as asc

__all__ = ["count_form_bench", "interleave_bench", "ors_bench", "truncate_bench"]

ORS_SCALAR = 0x0F0F
COUNT_FORM = {"prelu": lambda a, b: np.where(a >= 0, a, a * b), "abs_sub": lambda a, b: np.abs(a - b)}


def _core() -> tuple[ExitStack, asc.Core]:
    stack = ExitStack()
    return stack, stack.enter_context(asc.Core("950"))


def ors_bench(repeats: int, strided: bool) -> Bench:
    """``asc.ors(dst, src, 0x0F0F, mask, repeats, params)`` (int16, full repeats) vs ``np.bitwise_or``."""
    rng = np.random.default_rng(21)
    layout = STRIDED if strided else DENSE
    lanes = 128
    values = rng.integers(-32768, 32767, repeats * lanes).astype(np.int16)
    image = np.zeros(UB_USED, np.uint8)
    place(image, layout["src0"], values, repeats)
    stack, core = _core()
    core.ub_write(0, image.tobytes())
    d, s = layout["dst"], layout["src0"]
    span = max(d.span(repeats), s.span(repeats))
    dst = asc.LocalTensor(asc.int16, VECOUT, d.base, span // 2)
    src = asc.LocalTensor(asc.int16, VECIN, s.base, span // 2)
    params = asc.UnaryRepeatParams(d.blk, s.blk, d.rep, s.rep)
    return Bench(
        npusim=lambda: asc.ors(dst, src, ORS_SCALAR, lanes, repeats, params),
        numpy=lambda: np.bitwise_or(values, np.int16(ORS_SCALAR)),
        npusim_output=lambda: read_back(core.ub_read(0, UB_USED), d, np.int16, repeats),
        numpy_output=lambda: np.bitwise_or(values, np.int16(ORS_SCALAR)).tobytes(),
        resources=stack,
    )


def count_form_bench(name: str, repeats: int) -> Bench:
    """``asc.<name>(dst, src0, src1, count)`` on ``repeats`` full float repeats vs the numpy expression."""
    rng = np.random.default_rng(22)
    count = repeats * 64
    a, b = (rng.standard_normal(count).astype(np.float32) for _ in range(2))
    stack, core = _core()
    base0, base1, base_dst = 0x00000, 0x0A000, 0x14000
    core.ub_write(base0, a.tobytes())
    core.ub_write(base1, b.tobytes())
    src0, src1 = (asc.LocalTensor(asc.float32, VECIN, base, count) for base in (base0, base1))
    dst = asc.LocalTensor(asc.float32, VECOUT, base_dst, count)
    function, numpy_fn = getattr(asc, name), COUNT_FORM[name]
    return Bench(
        npusim=lambda: function(dst, src0, src1, count),
        numpy=lambda: numpy_fn(a, b),
        npusim_output=lambda: core.ub_read(base_dst, 4 * count),
        numpy_output=lambda: numpy_fn(a, b).tobytes(),
        resources=stack,
    )


def interleave_bench(repeats: int) -> Bench:
    """``asc.interleave(dst0, dst1, src0, src1, count)`` on ``repeats`` repeats' worth of halves vs numpy's
    strided assignment into one array, then its two halves."""
    rng = np.random.default_rng(23)
    count = repeats * 128
    a, b = (rng.integers(0, 1 << 16, count).astype(np.uint16) for _ in range(2))
    stack, core = _core()
    core.ub_write(0x00000, a.tobytes())
    core.ub_write(0x0A000, b.tobytes())
    src0, src1 = (asc.LocalTensor(asc.uint16, VECIN, base, count) for base in (0x00000, 0x0A000))
    dst0, dst1 = (asc.LocalTensor(asc.uint16, VECOUT, base, count) for base in (0x14000, 0x1E000))

    def numpy_job() -> np.ndarray:
        z = np.empty(2 * count, np.uint16)
        z[0::2], z[1::2] = a, b
        return z

    return Bench(
        npusim=lambda: asc.interleave(dst0, dst1, src0, src1, count),
        numpy=numpy_job,
        npusim_output=lambda: core.ub_read(0x14000, 2 * count) + core.ub_read(0x1E000, 2 * count),
        numpy_output=lambda: numpy_job().tobytes(),
        resources=stack,
    )


def truncate_bench(repeats: int) -> Bench:
    """``asc.truncate(dst, src, CAST_FLOOR, count)`` on ``repeats`` float repeats vs ``np.floor``."""
    rng = np.random.default_rng(24)
    count = repeats * 64
    a = (rng.standard_normal(count) * 1000).astype(np.float32)
    stack, core = _core()
    core.ub_write(0, a.tobytes())
    src = asc.LocalTensor(asc.float32, VECIN, 0, count)
    dst = asc.LocalTensor(asc.float32, VECOUT, 0x14000, count)
    return Bench(
        npusim=lambda: asc.truncate(dst, src, asc.RoundMode.CAST_FLOOR, count),
        numpy=lambda: np.floor(a),
        npusim_output=lambda: core.ub_read(0x14000, 4 * count),
        numpy_output=lambda: np.floor(a).tobytes(),
        resources=stack,
    )
