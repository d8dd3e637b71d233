"""Fuzzing the Sophgo data-movement entry points (see ``harness``): GDMA copies, tpu_bdc_set_C,
and the host's global-memory access.

The core is a CV184X, whose 512 KiB of local memory is cheap to snapshot twice per example
(one core serves every example); its data-movement rules are BM1688's (64-byte W strides, no
set_C stride field limit).  The BM1684X rules (128-byte W strides, 18-bit set_C strides) are
covered by ``tests/sophgo/test_runtime.py`` and the cmodel fixtures.

The three families share the example budget of one (``EXAMPLES // 4`` each, so 500 in CI and
5000 under ``python3 dev.py fuzz``): each is a single small entry point, and hypothesis's own
cost per example would otherwise dominate the test suite.
"""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import sophgo as tpu

from .harness import EXAMPLES, FUZZ_SETTINGS, hostile, run_contract

SETTINGS = settings(FUZZ_SETTINGS, max_examples=max(50, EXAMPLES // 4))

CALM = [True, False, False]
CHIPS = ["CV184X"]
GLOBAL_BYTES = 1 << 16
DTYPES = [tpu.DT_INT8, tpu.DT_UINT16, tpu.DT_FP16, tpu.DT_BFP16, tpu.DT_FP32, tpu.DT_INT32]
ODD_DTYPES = [tpu.DT_INT4, tpu.DT_FP8E4M3, tpu.DT_FP20, tpu.DT_TF32, 99, "DT_FP32", None]
FILL = np.random.default_rng(0).integers(0, 256, 32 * 128 * 1024, dtype=np.uint8)


@functools.cache
def fresh_core(chip: str) -> tpu.Core:
    """Every byte of local and global memory written (so reads are defined); shared by the examples."""
    core = tpu.Core(chip, global_mem_bytes=GLOBAL_BYTES)
    core.lmem.write_bytes(0, FILL[: core.lmem.size_bytes])
    core.gmem.write_bytes(0, FILL[:GLOBAL_BYTES])
    return core


def state(core: tpu.Core):
    return core.lmem.snapshot(), core.gmem.snapshot()


def maybe(valid: st.SearchStrategy, calm: bool) -> st.SearchStrategy:
    return valid if calm else hostile(valid)


def dims(calm: bool, low: int = 1, high: int = 5) -> st.SearchStrategy:
    """Four values for a dim4 (a shape or a stride): small and valid when calm, else sometimes hostile
    (the whole list, or one component replaced by a hostile value)."""
    valid = st.lists(st.integers(low, high), min_size=4, max_size=4)
    if calm:
        return valid
    one_bad = st.tuples(valid, st.integers(0, 3), hostile(st.integers(low, high), weight_valid=0)).map(
        lambda t: [*t[0][: t[1]], t[2], *t[0][t[1] + 1 :]])
    return hostile(st.one_of(valid, valid, one_bad))


def local_addr(lms: int) -> st.SearchStrategy:
    """Lane starts, odd and element offsets, the last lane, the end of a lane."""
    return st.one_of(st.integers(0, 7).map(lambda lane: lane * lms), st.integers(0, 0x400),
                     st.sampled_from([lms - 2, lms - 64, 7 * lms + 0x100, lms // 2 + 1]))


def dim4_or(value, none_ok: bool):
    """Build the dim4 inside the call, so a hostile component is part of the contract (TypeError)."""
    if value is None and none_ok:
        return None
    return tpu.dim4(*value) if isinstance(value, list) else value


@SETTINGS
@given(data=st.data(), chip=st.sampled_from(CHIPS), calm=st.sampled_from(CALM), to_local=st.booleans(),
       strided=st.sampled_from(["none", "local", "global", "both"]))
def test_fuzz_gdma(data, chip, calm, to_local, strided):
    draw = data.draw
    with fresh_core(chip) as core:
        lms = core.chip.local_mem_bytes
        dtype = draw(st.sampled_from(DTYPES) if calm else st.sampled_from(DTYPES * 3 + ODD_DTYPES))
        shape = draw(dims(calm))
        local_stride = draw(dims(calm, 0, 40)) if strided in ("local", "both") else None
        global_stride = draw(dims(calm, 0, 40)) if strided in ("global", "both") else None
        local = draw(maybe(local_addr(lms), calm))
        glob = draw(maybe(st.integers(0, GLOBAL_BYTES + 64), calm))

        def call():
            args = (dim4_or(shape, False), dim4_or(local_stride, True), dim4_or(global_stride, True))
            if to_local:
                tpu.tpu_gdma_cpy_S2L(local, glob, args[0], args[1], args[2], dtype)
            else:
                tpu.tpu_gdma_cpy_L2S(glob, local, args[0], args[2], args[1], dtype)

        run_contract("sophgo.gdma", lambda: state(core), call)


@SETTINGS
@given(data=st.data(), chip=st.sampled_from(CHIPS), calm=st.sampled_from(CALM), strided=st.booleans(),
       u32=st.integers(0, 2**32 - 1))
def test_fuzz_set_c(data, chip, calm, strided, u32):
    draw = data.draw
    with fresh_core(chip) as core:
        lms = core.chip.local_mem_bytes
        dtype = draw(st.sampled_from(DTYPES) if calm else st.sampled_from(DTYPES * 3 + ODD_DTYPES))
        shape = draw(dims(calm, 1, 70))
        stride = draw(dims(calm, 0, 40)) if strided else None
        addr = draw(maybe(local_addr(lms), calm))
        scalar = draw(st.just(tpu.scalar_t(u32=u32)) if calm else hostile(st.just(tpu.scalar_t(u32=u32))))

        def call():
            tpu.tpu_bdc_set_C(addr, scalar, dim4_or(shape, False), dim4_or(stride, True), dtype)

        run_contract("sophgo.set_C", lambda: state(core), call)


@SETTINGS
@given(data=st.data(), chip=st.sampled_from(CHIPS), calm=st.sampled_from(CALM),
       method=st.sampled_from(["write", "write_typed", "write_strided", "read", "read_strided"]))
def test_fuzz_global_host_access(data, chip, calm, method):
    draw = data.draw
    with fresh_core(chip) as core:
        addr = draw(maybe(st.integers(0, GLOBAL_BYTES + 16), calm))
        dtype = draw(st.sampled_from(DTYPES) if calm else st.sampled_from(DTYPES * 2 + ODD_DTYPES))
        shape = draw(dims(calm, 0, 6) if method.endswith("strided") else
                     maybe(st.lists(st.integers(0, 40), min_size=0, max_size=3).map(tuple), calm))
        stride = draw(dims(calm, 0, 40))
        values = draw(st.sampled_from([np.arange(24, dtype=np.float32), np.arange(24, dtype=np.int64),
                                       np.array([300, -5]), np.array(["x"]), [1.5, float("nan")],
                                       np.zeros((1, 2, 3, 4), np.float16), 7, None]))

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

        run_contract("sophgo.global_host_access", lambda: state(core), call)
