"""Dequantisation benchmarks on an emulated Atlas A2, beside numpy: CastDequant int16 -> int8 per tensor and
int16 -> uint8 per lane (a vdeq table), CastDequant int32 -> half (``cast_deq``), and AddDeqRelu (``add_deq_relu``).

A repeat converts 128 int16 lanes (256 bytes) into the upper halves of eight 32-byte dst blocks
(``half_block=True``, strides ``{1, 1, 8, 8}``): the scale 0.5 (already (1,8,10)), rint, the 9-bit clamp,
offset 3 and int8 saturation.  numpy computes the same steps on a flat array.

AddDeqRelu: a repeat adds 64 int32 lanes, dequantises with the half scale 0.1 and writes 64 halves (strides
``{1, 1, 1, 4, 8, 8}``); on the A2 the call also leaves its intermediates in src0, src1 and the API scratch
(docs/semantics.md §5.22), which numpy does not compute.  The sums stay below 65504 / 0.1, where the A2's
saturation and numpy's overflow to infinity would differ.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import ascend as asc

__all__ = ["add_deq_relu_bench", "cast_deq_bench", "int32_to_half_bench", "vdeq_bench"]

SRC_AT, DST_AT = 0x00000, 0x10000
SCALE, OFFSET = np.float32(0.5), 3


def _numpy(values: np.ndarray) -> np.ndarray:
    rounded = np.rint(values.astype(np.float32) * SCALE).astype(np.int32)
    return np.clip(np.clip(rounded, -256, 255) + OFFSET, -128, 127).astype(np.int8)


VDEQ_AT = 0x1F000
VDEQ_SCALES = np.array([0.25 * (j + 1) for j in range(16)], np.float32)  # already (1,8,10)
VDEQ_OFFSETS = np.array([j - 8 for j in range(16)], np.int32)


def _vdeq_numpy(values: np.ndarray) -> np.ndarray:
    """The same steps per lane, lane ``k`` of a repeat with parameter set ``k % 16`` (uint8 dst)."""
    rows = values.reshape(-1, 16).astype(np.float32)
    rounded = np.rint(rows * VDEQ_SCALES).astype(np.int32)
    return np.clip(np.clip(rounded, -256, 255) + VDEQ_OFFSETS, 0, 255).astype(np.uint8).reshape(-1)


def vdeq_bench(repeats: int) -> Bench:
    """``asc.cast_deq(dst, src, 128, repeats, {1, 1, 8, 8}, is_vec_deq=True)`` with a 16-set table (the per-channel
    form: scale 0.25 (j + 1), offset j - 8, uint8) vs the numpy steps on ``(lanes / 16, 16)`` rows."""
    values = np.random.default_rng(31).integers(-(1 << 15), 1 << 15, repeats * 128).astype(np.int16)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, bytes(0x20000))
    core.ub_write(SRC_AT, values.tobytes())
    src = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, SRC_AT, repeats * 128)
    dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, DST_AT, repeats * 256)
    table = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, VDEQ_AT, 16)
    asc.set_deq_scale(table, asc.VdeqInfo([float(v) for v in VDEQ_SCALES], [int(v) for v in VDEQ_OFFSETS],
                                          [False] * 16))
    params = asc.UnaryRepeatParams(1, 1, 8, 8)

    def npusim_output() -> bytes:
        blocks = np.frombuffer(core.ub_read(DST_AT, repeats * 256), np.uint8).reshape(-1, 32)
        return np.ascontiguousarray(blocks[:, 16:]).tobytes()

    return Bench(
        npusim=lambda: asc.cast_deq(dst, src, 128, repeats, params, True, True, True),
        numpy=lambda: _vdeq_numpy(values),
        npusim_output=npusim_output,
        numpy_output=lambda: _vdeq_numpy(values).tobytes(),
        resources=stack,
    )


def _int32_to_half_numpy(values: np.ndarray) -> np.ndarray:
    return (values.astype(np.float32) * DEQ_SCALE).astype(np.float16)


def int32_to_half_bench(count: int) -> Bench:
    """``asc.cast_deq(dst, src, count)`` int32 -> half with the half scale 0.1 vs numpy's two conversions (sums below
    65504 / 0.1, where the A2's saturation and numpy's overflow would differ)."""
    values = np.random.default_rng(37).integers(-(1 << 18), 1 << 18, count).astype(np.int32)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, bytes(0x20000))
    core.ub_write(SRC_AT, values.tobytes())
    src = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, SRC_AT, count)
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, HALF_AT, count)
    asc.set_deq_scale(float(DEQ_SCALE))
    return Bench(
        npusim=lambda: asc.cast_deq(dst, src, count),
        numpy=lambda: _int32_to_half_numpy(values),
        npusim_output=lambda: core.ub_read(HALF_AT, 2 * count),
        numpy_output=lambda: _int32_to_half_numpy(values).tobytes(),
        resources=stack,
    )


def cast_deq_bench(repeats: int) -> Bench:
    """``asc.cast_deq(dst, src, 128, repeats, {1, 1, 8, 8}, is_vec_deq=False)`` vs the numpy steps."""
    values = np.random.default_rng(23).integers(-(1 << 15), 1 << 15, repeats * 128).astype(np.int16)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, bytes(0x20000))
    core.ub_write(SRC_AT, values.tobytes())
    src = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, SRC_AT, repeats * 128)
    dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST_AT, repeats * 256)
    asc.set_deq_scale(float(SCALE), OFFSET, True)
    params = asc.UnaryRepeatParams(1, 1, 8, 8)

    def npusim_output() -> bytes:
        blocks = np.frombuffer(core.ub_read(DST_AT, repeats * 256), np.int8).reshape(-1, 32)
        return np.ascontiguousarray(blocks[:, 16:]).tobytes()

    return Bench(
        npusim=lambda: asc.cast_deq(dst, src, 128, repeats, params, True, False, True),
        numpy=lambda: _numpy(values),
        npusim_output=npusim_output,
        numpy_output=lambda: _numpy(values).tobytes(),
        resources=stack,
    )


DEQ_SCALE = np.float32(np.float16(0.1))
SRC1_AT, HALF_AT = 0x0A000, 0x14000


def _add_deq_relu_numpy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    halves = ((a + b).astype(np.float32) * DEQ_SCALE).astype(np.float16)
    return np.where(halves > 0, halves, np.float16(0))


def add_deq_relu_bench(repeats: int) -> Bench:
    """``asc.add_deq_relu(dst, src0, src1, 64, repeats, {1, 1, 1, 4, 8, 8})`` vs the numpy steps.

    On the A2 the call leaves its intermediates in src0 and src1 (docs/semantics.md §5.22), so each timed
    call first puts the sources back: both callables copy the same two saved int32 arrays into the arrays
    they then read (npusim: src0's and src1's bytes of UB, a plain numpy copy into the core's memory, whose
    shadow the setup's host writes already marked; numpy: two work arrays).  Every timed call so sees the
    same data (without it, every call after the first would read the float products and halves the one
    before left, nearly all of whose products overflow half)."""
    rng = np.random.default_rng(29)
    a, b = (rng.integers(-(1 << 18), 1 << 18, repeats * 64).astype(np.int32) for _ in range(2))
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, bytes(0x20000))
    core.ub_write(SRC_AT, a.tobytes())
    core.ub_write(SRC1_AT, b.tobytes())
    src0 = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, SRC_AT, repeats * 64)
    src1 = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, SRC1_AT, repeats * 64)
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, HALF_AT, repeats * 64)
    asc.set_deq_scale(float(DEQ_SCALE))
    params = asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8)
    memory = core.ub.data
    ub_a = memory[SRC_AT:SRC_AT + a.nbytes].view(np.int32)
    ub_b = memory[SRC1_AT:SRC1_AT + b.nbytes].view(np.int32)
    work_a, work_b = a.copy(), b.copy()

    def run() -> None:
        ub_a[...] = a
        ub_b[...] = b
        asc.add_deq_relu(dst, src0, src1, 64, repeats, params)

    def numpy_job() -> np.ndarray:
        work_a[...] = a
        work_b[...] = b
        return _add_deq_relu_numpy(work_a, work_b)

    return Bench(
        npusim=run,
        numpy=numpy_job,
        npusim_output=lambda: core.ub_read(HALF_AT, repeats * 128),
        numpy_output=lambda: numpy_job().tobytes(),
        resources=stack,
    )
