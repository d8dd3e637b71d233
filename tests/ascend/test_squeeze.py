"""asc_squeeze (C-API/vector_compute/asc_squeeze.md, docs/semantics.md §5.24): the page's call, a per-element
model, the registers it leaves (none but RSVD_CNT), and every rule.

Model (the page: "通过比较掩码src1，将src0中的向量压缩成更短的向量，存储到dst中", with its strides as GatherMask.md
defines them): repeat r looks at n elements (normal mode: 256 bytes' worth, E; counter mode: the mask
register's count); element i of repeat r lies at src0 + r * src0_repeat_stride * 32 + (i // B) *
src0_block_stride * 32 + (i % B) * sizeof(T), and is kept when bit i (LSB first) of the src1 bytes from
r * src1_repeat_stride * 32 is 1; the kept elements go to dst[0], dst[1], ... in order, and their count
to RSVD_CNT.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.engine.registry import by_name
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

UB_IMAGE = 64 * 1024
SRC, PAT, DST = 0, 16384, 32768
PAGE = "SIMD-API/C-API/vector_compute/asc_squeeze.md"
SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)


def image(seed: int = 29) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes()


def model(ub: bytes, itemsize: int, per_repeat: int, repeat: int, blk: int, src0_rep: int, src1_rep: int):
    out = bytearray(ub)
    per_block = 32 // itemsize
    kept = []
    for r in range(repeat):
        for i in range(per_repeat):
            bit = r * src1_rep * 32 * 8 + i
            if (ub[PAT + bit // 8] >> (bit % 8)) & 1:
                at = SRC + r * src0_rep * 32 + (i // per_block) * blk * 32 + (i % per_block) * itemsize
                kept.append(ub[at:at + itemsize])
    for k, element in enumerate(kept):
        out[DST + k * itemsize:DST + (k + 1) * itemsize] = element
    return bytes(out), len(kept)


def tensors(dtype):
    return (asc.LocalTensor(dtype, asc.TPosition.VECOUT, DST, 16384 // dtype.itemsize),
            asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, 16384 // dtype.itemsize),
            asc.LocalTensor(dtype, asc.TPosition.VECIN, PAT, 4096 // dtype.itemsize))


def run(dtype, repeat, blk, src0_rep, src1_rep, chip="A2", counter=None, ub=None):
    with asc.Core(chip) as core:
        core.ub_write(0, ub or image())
        if counter is not None:
            asc.set_mask_count()
            asc.set_vector_mask(0, counter)
        before = core.mask_words, core.mask_mode
        dst, src0, src1 = tensors(dtype)
        asc.asc_squeeze(dst, src0, src1, repeat, 1, blk, 1, 8, src0_rep, src1_rep)
        assert (core.mask_words, core.mask_mode) == before  # the bare vreduce sets no mask register
        return core.ub_read(0, UB_IMAGE), asc.asc_get_rsvd_count()


def test_registration():
    entry = by_name("ascend", "asc_squeeze")
    assert entry.alias_of == "gather_mask" and entry.pipe == "V" and entry.family == "compare_select"
    assert entry.products == {"A2": frozenset({"uint16", "uint32"}), "A3": frozenset({"uint16", "uint32"})}


def test_page_example():
    """调用示例: 128 uint16, repeat 1, block strides 1, repeat strides 8 (the page prints no data: random data
    against the model)."""
    got = run(asc.uint16, 1, 1, 8, 8)
    assert got == model(image(), 2, 128, 1, 1, 8, 8)


@SETTINGS
@given(dtype=st.sampled_from([asc.uint16, asc.uint32]), repeat=st.integers(0, 5), blk=st.integers(0, 3),
       src0_rep=st.integers(0, 20), src1_rep=st.integers(0, 3), seed=st.integers(0, 3), chip=st.sampled_from(
           ["A2", "A3"]))
def test_against_the_model(dtype, repeat, blk, src0_rep, src1_rep, seed, chip):
    ub = image(seed)
    got = run(dtype, repeat, blk, src0_rep, src1_rep, chip, ub=ub)
    assert got == model(ub, dtype.itemsize, 256 // dtype.itemsize, repeat, blk, src0_rep, src1_rep)


@SETTINGS
@given(dtype=st.sampled_from([asc.uint16, asc.uint32]), count=st.integers(1, 300), repeat=st.integers(0, 3),
       src1_rep=st.integers(0, 2))
def test_counter_mode_looks_at_the_register_count_per_repeat(dtype, count, repeat, src1_rep):
    """In counter mode the bare instruction reads the mask register's count in each repeat (as asc_reduce)."""
    src0_rep = (count * dtype.itemsize + 31) // 32  # each repeat's elements after the last one's
    got = run(dtype, repeat, 1, src0_rep, src1_rep, counter=count)
    assert got == model(image(), dtype.itemsize, count, repeat, 1, src0_rep, src1_rep)


@SETTINGS
@given(bits=st.integers(0, 2**128 - 1))
def test_the_count_is_the_set_bits(bits):
    ub = bytearray(image())
    ub[PAT:PAT + 16] = bits.to_bytes(16, "little")
    raw, kept = run(asc.uint16, 1, 1, 8, 0, ub=bytes(ub))
    assert kept == bin(bits).count("1")
    src = np.frombuffer(bytes(ub), np.uint16, 128, SRC)
    picked = [int(src[i]) for i in range(128) if bits >> i & 1]
    assert np.frombuffer(raw, np.uint16, kept, DST).tolist() == picked


def test_same_bytes_as_gather_mask_with_the_tensor_pattern():
    ub = image(5)
    got = run(asc.uint32, 3, 2, 16, 1, ub=ub)
    with asc.Core("A2") as core:
        core.ub_write(0, ub)
        dst, src0, src1 = tensors(asc.uint32)
        kept = asc.gather_mask(dst, src0, src1, False, 0, asc.GatherMaskParams(2, 3, 16, 1))
        assert got == (core.ub_read(0, UB_IMAGE), kept)


# ------------------------------------------------------------------ the rules
def _call(dtype=asc.uint16, dst_at=DST, src1_dtype=None, args=(1, 1, 1, 1, 8, 8, 8)):
    def call():
        dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, dst_at, 2048)
        src0 = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, 2048)
        src1 = asc.LocalTensor(src1_dtype or dtype, asc.TPosition.VECIN, PAT, 256)
        asc.asc_squeeze(dst, src0, src1, *args)
    return call


@pytest.mark.parametrize(("call", "error", "operand", "part"), [
    (_call(asc.int16), UnsupportedError, "dst dtype", "函数原型"),
    (_call(asc.float32), UnsupportedError, "dst dtype", "函数原型"),
    (_call(src1_dtype=asc.uint32, dtype=asc.uint16), UnsupportedError, "src1 dtype", "函数原型"),
    (_call(dst_at=DST + 2), AlignmentError, "dst address", "约束说明"),
    (_call(args=(256, 1, 1, 1, 8, 8, 8)), ParameterRangeError, "repeat", "参数说明"),
    (_call(args=(1, 1, 256, 1, 8, 8, 8)), ParameterRangeError, "src0_block_stride", "参数说明"),
    (_call(args=(1, 2, 1, 1, 8, 8, 8)), UnsupportedError, "dst_block_stride", "§5.24"),
    (_call(args=(1, 1, 1, 0, 8, 8, 8)), UnsupportedError, "src1_block_stride", "§5.24"),
    (_call(args=(1, 1, 1, 1, 16, 8, 8)), UnsupportedError, "dst_repeat_stride", "§5.24"),
    (_call(dst_at=PAT), OverlapError, "dst byte address", "dst must not overlap src1"),
    (_call(args=(10, 1, 1, 1, 8, 255, 8)), OutOfBoundsError, "src0 byte range", "§1.7"),
])
def test_rejected_calls_name_the_rule_and_change_nothing(call, error, operand, part):
    with asc.Core("A2") as core:
        ub = bytearray(image())
        ub[PAT:PAT + 512] = b"\xff" * 512  # every bit kept: dst at the pattern overlaps it
        core.ub_write(0, bytes(ub))
        err = assert_rejected(core, error, call, part, instruction="asc_squeeze", operand=operand)
        assert any(where in err.source for where in (PAGE, "semantics", "GatherMask.md"))


def test_products_without_it():
    for chip in ("950", "310P", "310B", "910"):
        with asc.Core(chip) as core:
            core.ub_write(0, image())
            assert_rejected(core, UnsupportedError, _call(), "产品支持情况", instruction="asc_squeeze",
                            operand="product")


def test_wrong_python_types_are_type_errors():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        dst, src0, src1 = tensors(asc.uint16)
        with pytest.raises(TypeError):
            asc.asc_squeeze(dst, src0, src1, 1.0, 1, 1, 1, 8, 8, 8)
        with pytest.raises(TypeError):
            asc.asc_squeeze(dst, src0, [0] * 8, 1, 1, 1, 1, 8, 8, 8)
