"""Fuzzing the Sophgo data-movement entry points (see ``harness``): GDMA copies, tpu_bdc_set_C,
and the host's global-memory access.

The core is a CV184X, whose 512 KiB of local memory is cheap to snapshot twice per example
(one core serves every example); its data-movement rules are BM1688's (64-byte W strides, no
set_C stride field limit).  The BM1684X rules (128-byte W strides, 18-bit set_C strides) and
SG2260's (FP8, no W-stride limit, zero strides) are covered by ``tests/sophgo/test_runtime.py`` and
the oracle fixtures.  Arguments come from one
byte tape per example (``strategies.Tape``), so each family runs the full example budget.
"""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given

from npusim import sophgo as tpu

from .harness import FUZZ_SETTINGS, run_contract
from .strategies import Tape, tapes

CHIP = "CV184X"
GLOBAL_BYTES = 1 << 16
DTYPES = (tpu.DT_INT8, tpu.DT_UINT16, tpu.DT_FP16, tpu.DT_BFP16, tpu.DT_FP32, tpu.DT_INT32)
ODD_DTYPES = (tpu.DT_INT4, tpu.DT_FP8E4M3, tpu.DT_FP20, tpu.DT_TF32, 99, "DT_FP32", None)
FILL = np.random.default_rng(0).integers(0, 256, 32 * 128 * 1024, dtype=np.uint8)
VALUES = (np.arange(24, dtype=np.float32), np.arange(24, dtype=np.int64), np.array([300, -5]), np.array(["x"]),
          [1.5, float("nan")], np.zeros((1, 2, 3, 4), np.float16), 7, None)


@functools.cache
def fresh_core(chip: str) -> tpu.Core:
    """Every byte of local and global memory written (so reads are defined); shared by the examples."""
    core = tpu.Core(chip, global_mem_bytes=GLOBAL_BYTES)
    core.lmem.write_bytes(0, FILL[: core.lmem.size_bytes])
    core.gmem.write_bytes(0, FILL[:GLOBAL_BYTES])
    return core


def state(core: tpu.Core):
    return core.lmem.snapshot(), core.gmem.snapshot()


def dtype_arg(tape: Tape):
    return tape.pick("dtype", DTYPES if tape.calm else DTYPES * 3 + ODD_DTYPES)


def dims(tape: Tape, label: str, low: int = 1, high: int = 5):
    """Four values for a dim4 (a shape or a stride): small and valid when calm, else sometimes one
    component, or the whole value, hostile."""
    values = [tape.integer(f"{label}[{i}]", low, high) for i in range(4)]
    if not tape.calm and tape.chance(f"{label} one bad", 6):
        index = tape.integer(f"{label} bad index", 0, 3)
        values[index] = tape.hostile(f"{label}[{index}]", values[index], one_in=1)
    return tape.hostile(label, values)


def local_addr(tape: Tape, lms: int):
    """Lane starts, odd and element offsets, the last lane, the end of a lane."""
    kind = tape.pick("local addr kind", ("lane start", "offset", "odd"))
    if kind == "lane start":
        addr = tape.integer("lane", 0, 7) * lms
    elif kind == "offset":
        addr = tape.integer("local offset", 0, 0x400)
    else:
        addr = tape.pick("odd local addr", (lms - 2, lms - 64, 7 * lms + 0x100, lms // 2 + 1))
    return tape.hostile("local addr", addr)


def dim4_or(value, none_ok: bool):
    """Build the dim4 inside the call, so a hostile component is part of the contract (TypeError)."""
    if value is None and none_ok:
        return None
    return tpu.dim4(*value) if isinstance(value, list) else value


@FUZZ_SETTINGS
@given(tape=tapes(64))
def test_fuzz_gdma(tape: Tape):
    with fresh_core(CHIP) as core:
        lms = core.chip.local_mem_bytes
        to_local = tape.pick("direction", (True, False))
        strided = tape.pick("strided", ("none", "local", "global", "both"))
        dtype = dtype_arg(tape)
        shape = dims(tape, "shape")
        local_stride = dims(tape, "local stride", 0, 40) if strided in ("local", "both") else None
        global_stride = dims(tape, "global stride", 0, 40) if strided in ("global", "both") else None
        local = local_addr(tape, lms)
        glob = tape.hostile_int("global addr", 0, GLOBAL_BYTES + 64)

        def call():
            args = (dim4_or(shape, False), dim4_or(local_stride, True), dim4_or(global_stride, True))
            if to_local:
                tpu.tpu_gdma_cpy_S2L(local, glob, args[0], args[1], args[2], dtype)
            else:
                tpu.tpu_gdma_cpy_L2S(glob, local, args[0], args[2], args[1], dtype)

        run_contract("sophgo.gdma", lambda: state(core), call, tape)


@FUZZ_SETTINGS
@given(tape=tapes(64))
def test_fuzz_set_c(tape: Tape):
    with fresh_core(CHIP) as core:
        lms = core.chip.local_mem_bytes
        dtype = dtype_arg(tape)
        shape = dims(tape, "shape", 1, 70)
        stride = dims(tape, "stride", 0, 40) if tape.pick("strided", (False, True)) else None
        addr = local_addr(tape, lms)
        scalar = tape.hostile("scalar", tpu.scalar_t(u32=tape.integer("u32", 0, 2**32 - 1)))

        def call():
            tpu.tpu_bdc_set_C(addr, scalar, dim4_or(shape, False), dim4_or(stride, True), dtype)

        run_contract("sophgo.set_C", lambda: state(core), call, tape)


@FUZZ_SETTINGS
@given(tape=tapes(64))
def test_fuzz_global_host_access(tape: Tape):
    with fresh_core(CHIP) as core:
        method = tape.pick("method", ("write", "write_typed", "write_strided", "read", "read_strided"))
        addr = tape.hostile_int("addr", 0, GLOBAL_BYTES + 16)
        dtype = tape.pick("dtype", DTYPES if tape.calm else DTYPES * 2 + ODD_DTYPES)
        if method.endswith("strided"):
            shape = dims(tape, "shape", 0, 6)
        else:
            shape = tape.hostile("shape", tuple(tape.integer(f"shape[{i}]", 0, 40)
                                                for i in range(tape.integer("rank", 0, 3))))
        stride = dims(tape, "stride", 0, 40)
        values = tape.pick("values", VALUES)

        def call():
            if method == "write":
                core.write_global(addr, values)
            elif method == "write_typed":
                core.write_global(addr, values, dtype)
            elif method == "write_strided":
                core.write_global(addr, values, dtype, stride=dim4_or(stride, False))
            elif method == "read":
                core.read_global(addr, shape, dtype)
            else:
                core.read_global(addr, shape, dtype, stride=dim4_or(stride, False))

        run_contract("sophgo.global_host_access", lambda: state(core), call, tape)
