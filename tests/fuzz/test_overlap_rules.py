"""The overlap rules of ref §1.4, instruction by instruction.

1. Within one repeat, a source and the destination overlap completely (exactly in place,
   lane for lane) or not at all.
2. Across repeats, the destination of repeat N is not a source of a later repeat.
3. Exception: Add, Sub, Mul, Max and Min in half, int32 and float allow dst == src1 with
   src1RepStride or dstRepStride = 0 (repeats then chain, in issue order).
4. Anything undocumented is not supported (an error, never a guess).

npusim applies them to every UB-to-UB instruction: Select, Compare, TransDataTo5HD, the
element-wise instructions and DataCopy within UB.  (The TIK document's vec_cmpv, which
lets src and dst overlap when repeat = 1, describes another API; for Ascend C's Compare
the general rule 1 holds — see docs/errors.md.)
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import OverlapError

VECCALC = asc.TPosition.VECCALC
BIN, UN = asc.BinaryRepeatParams, asc.UnaryRepeatParams


def core_with_data(chip: str = "A2") -> asc.Core:
    core = asc.Core(chip)
    values = np.random.default_rng(3).uniform(-4, 4, core.ub.size_bytes // 4).astype(np.float32)
    core.ub_write(0, values.tobytes())
    return core


def tensor(addr: int, dtype=asc.float32) -> asc.LocalTensor:
    return asc.LocalTensor(dtype, VECCALC, addr, 2048 // dtype.itemsize)


def rejected(core: asc.Core, call, rule: str) -> None:
    before = core.ub.snapshot(), core.register_state()
    with pytest.raises(OverlapError) as caught:
        call()
    assert rule in caught.value.rule
    assert (core.ub.snapshot(), core.register_state()) == before


PARTIAL = "partially overlap"
CROSS = "reads a byte that repeat"


# Each entry: (name, call(dst_addr, src_addr, repeat)) with the source under test at src_addr.
def _select(d, s, r):
    asc.select(tensor(d), tensor(0x8000, asc.uint8), tensor(s), tensor(0x9000),
               asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 64, r, BIN())


def _compare(d, s, r):
    asc.compare(tensor(d, asc.uint8), tensor(s), tensor(0x9000), asc.CMPMODE.LT, 64, r, BIN())


def _trans(d, s, r):
    asc.trans_data_to_5hd([d + 32 * i for i in range(16)], [s + 32 * i for i in range(16)],
                          asc.TransDataTo5HDParams(False, False, r, 16 if r > 1 else 0, 16 if r > 1 else 0),
                          dtype=asc.float16)


def _data_copy(d, s, r):
    asc.data_copy(tensor(d), tensor(s), asc.DataCopyParams(r, 8, 0, 0))


INSTRUCTIONS = {
    "add": lambda d, s, r: asc.add(tensor(d), tensor(s), tensor(0x9000), 64, r, BIN()),
    "sub": lambda d, s, r: asc.sub(tensor(d), tensor(0x9000), tensor(s), 64, r, BIN(src1_rep_stride=8)),
    "mul": lambda d, s, r: asc.mul(tensor(d), tensor(s), tensor(0x9000), 64, r, BIN()),
    "max": lambda d, s, r: asc.max(tensor(d), tensor(s), tensor(0x9000), 64, r, BIN()),
    "min": lambda d, s, r: asc.min(tensor(d), tensor(s), tensor(0x9000), 64, r, BIN()),
    "abs": lambda d, s, r: asc.abs(tensor(d), tensor(s), 64, r, UN()),
    "adds": lambda d, s, r: asc.adds(tensor(d), tensor(s), 1.0, 64, r, UN()),
    "muls": lambda d, s, r: asc.muls(tensor(d), tensor(s), 2.0, 64, r, UN()),
    "select": _select,
    "compare": _compare,
    "trans_data_to_5hd": _trans,
    "data_copy": _data_copy,
}
IN_PLACE = ("add", "sub", "mul", "max", "min", "abs", "adds", "muls", "select", "data_copy")


@pytest.mark.parametrize("name", IN_PLACE)
def test_exactly_in_place_is_allowed(name):
    with core_with_data() as core:
        untouched = core.ub.data[0x1000:0x8000].copy()  # beyond the two repeats' 512 bytes
        INSTRUCTIONS[name](0x0000, 0x0000, 2)
        assert np.array_equal(core.ub.data[0x1000:0x8000], untouched)


def test_in_place_computes_from_the_old_values():
    with core_with_data():
        t = tensor(0)
        before = t.read(128).copy()
        asc.abs(t, t, 64, 2, UN())
        assert np.array_equal(t.read(128), np.abs(before))


@pytest.mark.parametrize("name", sorted(INSTRUCTIONS))
def test_partial_overlap_within_a_repeat_is_an_error(name):
    dst_addr = 0x0040 if name == "compare" else 0x0000  # a compare writes 8 bitmask bytes per repeat
    with core_with_data() as core:
        rejected(core, lambda: INSTRUCTIONS[name](dst_addr, 0x0020, 1), PARTIAL)


@pytest.mark.parametrize("name", sorted(INSTRUCTIONS))
def test_a_later_repeat_reading_an_earlier_destination_is_an_error(name):
    # repeat 0 writes the bytes at 0x400...; the source's repeat 1 reads them (data_copy: block 1)
    src_addr = {"trans_data_to_5hd": 0x0000}.get(name, 0x0300)
    dst_addr = {"trans_data_to_5hd": 0x0200}.get(name, 0x0400)
    with core_with_data() as core:
        rule = "partially overlap" if name == "data_copy" else CROSS  # a copy's blocks all count as one transfer
        rejected(core, lambda: INSTRUCTIONS[name](dst_addr, src_addr, 2), rule)


def test_sel_mask_overlapping_dst_is_an_error():
    with core_with_data() as core:
        rejected(core, lambda: asc.select(tensor(0), tensor(0x20, asc.uint8), tensor(0x1000), tensor(0x2000),
                                          asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 64, 1, BIN()), PARTIAL)


# ------------------------------------------------------------ the dst/src1 exception
CHAIN_OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
CHAIN_DTYPES = (asc.float16, asc.float32, asc.int32)


@pytest.mark.parametrize("name", sorted(CHAIN_OPS))
@pytest.mark.parametrize("dtype", CHAIN_DTYPES, ids=str)
@pytest.mark.parametrize("zero", ["dst_rep_stride", "src1_rep_stride", "both"])
def test_dst_equal_src1_with_a_zero_repeat_stride_chains_the_repeats(name, dtype, zero):
    lanes, repeats = 256 // dtype.itemsize, 3
    rng = np.random.default_rng(5)
    src0_values = rng.integers(-3, 4, lanes * repeats).astype(dtype.np_dtype)
    acc_values = rng.integers(-3, 4, lanes * repeats).astype(dtype.np_dtype)
    strides = {"dst_rep_stride": 8, "src1_rep_stride": 8}
    for field in (("dst_rep_stride", "src1_rep_stride") if zero == "both" else (zero,)):
        strides[field] = 0
    with asc.Core("A2"):
        src0 = asc.LocalTensor(dtype, VECCALC, 0x0000, lanes * repeats)
        acc = asc.LocalTensor(dtype, VECCALC, 0x4000, lanes * repeats)
        src0.write(src0_values)
        acc.write(acc_values)
        getattr(asc, name)(acc, src0, acc, lanes, repeats, BIN(**strides))
        got = acc.read(lanes * repeats)
    # the model: repeat r reads src1 at its own stride after the earlier repeats wrote dst, in order
    memory = acc_values.copy()
    for r in range(repeats):
        d = r * (strides["dst_rep_stride"] // 8) * lanes
        s1 = r * (strides["src1_rep_stride"] // 8) * lanes
        result = CHAIN_OPS[name](src0_values[r * lanes:(r + 1) * lanes], memory[s1:s1 + lanes])
        memory[d:d + lanes] = result.astype(dtype.np_dtype)
    assert np.array_equal(got.view(dtype.raw), memory.view(dtype.raw))


@pytest.mark.parametrize(("name", "dtype", "strides", "why"), [
    ("add", asc.int16, BIN(dst_rep_stride=0, src1_rep_stride=0), "int16 is not half/int32/float"),
    ("add", asc.float32, BIN(dst_rep_stride=4, src1_rep_stride=4), "neither repeat stride is 0"),
    ("add", asc.float32, BIN(dst_rep_stride=0, src0_rep_stride=0), "src0, not src1, is dst"),
])
def test_the_exception_is_only_the_documented_one(name, dtype, strides, why):
    with core_with_data() as core:
        acc = asc.LocalTensor(dtype, VECCALC, 0x4000, 1024 // dtype.itemsize)
        other = asc.LocalTensor(dtype, VECCALC, 0x0000, 1024 // dtype.itemsize)
        src0, src1 = (acc, other) if "src0" in why else (other, acc)
        rejected(core, lambda: getattr(asc, name)(acc, src0, src1, 256 // dtype.itemsize, 3, strides), CROSS)


@pytest.mark.parametrize("name", ["abs", "adds", "muls"])
def test_single_source_instructions_have_no_chain_exception(name):
    with core_with_data() as core:
        acc = tensor(0x4000)
        args = (1.0,) if name != "abs" else ()
        rejected(core, lambda: getattr(asc, name)(acc, acc, *args, 64, 3, UN(dst_rep_stride=0, src_rep_stride=0)),
                 CROSS)
