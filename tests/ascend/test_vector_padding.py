"""vector_padding (数据填充/VectorPadding(ISASI).md; the Atlas inference AI Core): the page's printed result
(mode 0, left: every element of a DataBlock becomes its first), a plain-loop reference of the three modes
from the page's sketches (docs/semantics.md §5.20), forms, masks, strides, types, and the rejected calls."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OverlapError, ParameterRangeError, UninitializedReadWarning, UnsupportedError

from .conftest import assert_rejected, fill

SRC, DST = 0x1000, 0x8000
TYPES = [asc.int16, asc.uint16, asc.float16, asc.int32, asc.uint32, asc.float32]


def _reference_block(block: list, mode: int, right: bool) -> list:
    """The page's sketches for one DataBlock: aaa|abc, nop|ppp; cba|abc, nop|pon; xcb|abc, nop|onx (x = 0)."""
    n = len(block)
    out = []
    for k in range(n):
        if mode == 0:
            out.append(block[-1] if right else block[0])
        elif mode == 1:
            out.append(block[n - 1 - k])
        elif right:
            out.append(0 if k == n - 1 else block[n - 2 - k])
        else:
            out.append(0 if k == 0 else block[n - k])
    return out


def _expected(before: bytes, dtype, mode, right, repeats, active, d_blk, s_blk, d_rep, s_rep) -> bytes:
    size = dtype.itemsize
    block = 32 // size
    ub = np.frombuffer(before, dtype=np.uint8).copy()
    raw = f"<u{size}"
    for r in range(repeats):
        for b in range(8):
            at = SRC + (r * s_rep + b * s_blk) * 32
            src_block = [int(v) for v in ub[at: at + 32].view(raw)]
            padded = _reference_block(src_block, mode, right)
            for k in range(block):
                if active(r, b * block + k):
                    out = DST + (r * d_rep + b * d_blk) * 32 + k * size
                    ub[out: out + size] = np.array([padded[k]], dtype=raw).view(np.uint8)
    return ub.tobytes()


def test_the_pages_example_fills_each_block_with_its_first_element():
    data = np.array([6.938, -8.86, -0.2263] + [0.5] * 11 + [1.971, 1.778], dtype=np.float16)
    with asc.Core("310P") as core:
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 512)
        dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 512)
        src.write(np.tile(data, 32))
        asc.vector_padding(dst, src, 0, False, 512)
        assert core.ub_read(DST, 1024) == np.full(512, np.float16(6.938)).tobytes()
        asc.vector_padding(dst, src, 0, False, [2**64 - 1, 2**64 - 1], 4, asc.UnaryRepeatParams(1, 1, 8, 8))
        assert core.ub_read(DST, 1024) == np.full(512, np.float16(6.938)).tobytes()
        fill(core, DST, 1024)
        asc.vector_padding(dst, src, 0, False, 128, 4, asc.UnaryRepeatParams(1, 1, 8, 8))
        assert core.ub_read(DST, 1024) == np.full(512, np.float16(6.938)).tobytes()


@settings(max_examples=120, deadline=None)
@given(dtype=st.sampled_from(TYPES), mode=st.integers(0, 2), right=st.booleans(), form=st.sampled_from(
    ["count", "mask", "bitwise"]), data=st.data())
def test_matches_the_reference(dtype, mode, right, form, data):
    size = dtype.itemsize
    lanes = 256 // size
    with asc.Core("310P") as core:
        fill(core, 0, 0x20000, seed=5)
        before = core.ub_read(0, 0x20000)
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, 0x6000 // size)
        dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, DST, 0x10000 // size)
        if form == "count":
            count = data.draw(st.integers(1, 3 * lanes))
            repeats = -(-count // lanes)
            asc.vector_padding(dst, src, mode, right, count)
            expected = _expected(before, dtype, mode, right, repeats, lambda r, lane: r * lanes + lane < count,
                                 1, 1, 8, 8)
            assert core.mask_mode == asc.MaskMode.NORMAL
        else:
            repeats = data.draw(st.integers(1, 3))
            d_blk, s_blk = data.draw(st.integers(1, 2)), data.draw(st.integers(0, 2))
            # a dst repeat stride of 0 writes elements twice (the last repeat's win): the element-by-element path
            d_rep = data.draw(st.sampled_from([0, 8 * d_blk, 8 * d_blk + 1, 8 * d_blk + 2]))
            s_rep = data.draw(st.sampled_from([0, 8, 16]))
            if form == "mask":
                mask = data.draw(st.integers(1, lanes))
                def active(r, lane):
                    return lane < mask
            else:
                words = [data.draw(st.integers(1, 2**64 - 1)), data.draw(st.integers(0, 2**64 - 1))]
                mask = words if size == 2 else [words[0], 0]
                def active(r, lane):
                    return bool((mask[lane // 64] >> (lane % 64)) & 1)
            asc.vector_padding(dst, src, mode, right, mask, repeats, asc.UnaryRepeatParams(d_blk, s_blk, d_rep, s_rep))
            expected = _expected(before, dtype, mode, right, repeats, active, d_blk, s_blk, d_rep, s_rep)
        assert core.ub_read(0, 0x20000) == expected


@pytest.mark.parametrize("chip", ["A2", "A3", "950", "310B", "910"])
def test_other_products_do_not_have_it(chip):
    with asc.Core(chip) as core:
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 128)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 128)
        assert_rejected(core, UnsupportedError, lambda: asc.vector_padding(z, x, 0, False, 128), chip)


def test_rules_reject_and_change_nothing():
    with asc.Core("310P") as core:
        fill(core, 0, 0x10000)
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 512)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 512)
        params = asc.UnaryRepeatParams(1, 1, 8, 8)
        assert_rejected(core, ParameterRangeError, lambda: asc.vector_padding(z, x, 3, False, 128), "pad_mode")
        assert_rejected(core, UnsupportedError, lambda: asc.vector_padding(
            asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, 512), asc.LocalTensor(asc.int8, asc.TPosition.VECIN,
                                                                                     SRC, 512), 0, False, 128),
            "data type")
        assert_rejected(core, UnsupportedError, lambda: asc.vector_padding(
            z, asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC, 256), 0, False, 128), "dtype")
        assert_rejected(core, ParameterRangeError, lambda: asc.vector_padding(
            z, x, 0, False, 128, 1, asc.UnaryRepeatParams(0, 1, 8, 8)), "block stride of 0")
        assert_rejected(core, OverlapError, lambda: asc.vector_padding(
            asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, SRC + 32, 512), x, 0, False, 128, 1, params))
        with pytest.raises(TypeError):
            asc.vector_padding(z, x, 0, "left", 128)
        before = core.ub.snapshot()
        asc.vector_padding(z, x, 0, False, 0)  # count 0: nothing
        assert core.ub.snapshot() == before


@pytest.mark.parametrize("form", ["count", "mask"])
def test_a_never_written_source_element_is_reported_even_outside_the_mask(form):
    # the source is read whole, whatever the mask (module docstring of npusim.ascend.ops.vector_padding)
    with asc.Core("310P") as core:
        core.ub_write(SRC, bytes(254))  # every byte of the repeat's 128 halves but the last element's
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 128)
        dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 128)
        expected = f"vector_padding: src reads never-written UB byte {SRC + 254:#x}"
        with pytest.warns(UninitializedReadWarning, match=expected):
            if form == "count":
                asc.vector_padding(dst, src, 1, False, 128)
            else:
                asc.vector_padding(dst, src, 1, False, 16, 1, asc.UnaryRepeatParams(1, 1, 8, 8))
