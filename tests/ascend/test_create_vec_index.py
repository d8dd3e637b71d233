"""create_vec_index (数据填充/CreateVecIndex.md): the page's worked examples (every form prints
``[0 1 2 ... 127]`` for int16 from 0), byte comparisons against the per-element reference
(tests/ascend/create_vec_index_reference.py), the lowering's float rounding, products and types, the
registers left behind, and every rule rejected with memory and registers unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected, fill
from .create_vec_index_reference import active, expected_ub, lane_value

BASE = 0x2000
SPAN = 0x10000
DTYPES = {"int16": asc.int16, "float16": asc.float16, "int32": asc.int32, "float32": asc.float32,
          "int8": asc.int8, "int64": asc.int64}
CHIPS = ("A2", "A3", "310B", "310P", "950")


def _dst(dtype, addr=BASE, n=None):
    return asc.LocalTensor(dtype, asc.TPosition.VECOUT, addr, n or SPAN // dtype.itemsize)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("form", ["count", "mask", "bitwise"])
def test_the_pages_example_gives_0_to_127(chip, form):
    expected = np.arange(128, dtype=np.int16).tobytes()
    with asc.Core(chip) as core:
        fill(core, BASE, 512)
        dst = _dst(asc.int16)
        if form == "count":
            asc.create_vec_index(dst, 0, 128)
        elif form == "mask":
            asc.create_vec_index(dst, 0, 128, 1, 1, 8)
        else:
            asc.create_vec_index(dst, 0, [2**64 - 1, 2**64 - 1], 1, 1, 8)
        assert core.ub_read(BASE, 256) == expected


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", ["int16", "float16", "int32", "float32"])
def test_count_form_is_arange_in_the_exact_range(chip, name):
    dtype = DTYPES[name]
    with asc.Core(chip) as core:
        asc.create_vec_index(_dst(dtype), -37, 1000)
        assert core.ub_read(BASE, 1000 * dtype.itemsize) == np.arange(-37, 963).astype(dtype.np_dtype).tobytes()


@pytest.mark.parametrize("name", ["int8", "int64"])
def test_the_950s_count_only_types(name):
    dtype = DTYPES[name]
    with asc.Core("950") as core:
        first = -100 if name == "int8" else 2**62
        asc.create_vec_index(_dst(dtype), first, 600)
        expected = expected_ub("950", dtype.np_dtype, core.ub_read(0, BASE + 600 * dtype.itemsize), BASE, first,
                               count=600)
        assert core.ub_read(0, len(expected)) == expected
        assert_rejected(core, UnsupportedError, lambda: asc.create_vec_index(_dst(dtype), 0, 16, 1, 1, 8), "data type")


def test_int16_wraps_past_its_maximum():
    with asc.Core("A2") as core:
        asc.create_vec_index(_dst(asc.int16), 32760, 16)
        got = np.frombuffer(core.ub_read(BASE, 32), dtype=np.int16)
        assert got.tobytes() == np.array([32760 + i - (65536 if 32760 + i > 32767 else 0) for i in range(16)],
                                         dtype=np.int16).tobytes()


def test_a2_half_rounds_after_each_add_while_the_950_rounds_the_register_once():
    """first = 0.1 (half 0x2E66): the A2's scalar block rounds float(first) + j once, later blocks add 16 in
    half; the 950 rounds first + l once and adds 128 per repeat.  Hand-computed lanes."""
    first = np.float16(0.1)
    with asc.Core("A2") as core:
        asc.create_vec_index(_dst(asc.float16), first, 256)
        a2 = np.frombuffer(core.ub_read(BASE, 512), dtype=np.float16)
    with asc.Core("950") as core:
        asc.create_vec_index(_dst(asc.float16), first, 256)
        c950 = np.frombuffer(core.ub_read(BASE, 512), dtype=np.float16)
    # lane 1: 0.0999755859375 + 1 = 1.0999755859375 -> half 1.099609375 on both
    assert a2[1].view(np.uint16) == c950[1].view(np.uint16) == np.float16(1.099609375).view(np.uint16)
    # lane 17 on the A2: half(1.0999755859375) = 1.099609375, + 16 = 17.099609375 -> half 17.09375
    assert a2[17].view(np.uint16) == np.float16(17.09375).view(np.uint16)
    # lane 17 on the 950: 17.0999755859375 -> half 17.09375 (the same here), lane 129: + 128 in half
    assert c950[129].view(np.uint16) == np.float16(np.float16(1.099609375) + np.float16(128)).view(np.uint16)
    for chip, got in (("A2", a2), ("950", c950)):
        want = [lane_value(chip, np.float16, first, i // 128, i % 128) for i in range(256)]
        assert got.tobytes() == np.array(want, dtype=np.float16).tobytes()


forms = st.sampled_from(["count", "mask", "bitwise"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chip=st.sampled_from(CHIPS), name=st.sampled_from(["int16", "float16", "int32", "float32"]), form=forms,
       data=st.data())
def test_matches_the_reference(chip, name, form, data):
    dtype = DTYPES[name]
    np_dtype = dtype.np_dtype
    size = dtype.itemsize
    lanes, block = 256 // size, 32 // size
    if dtype.is_float:
        first = np_dtype.type(data.draw(st.floats(-3000, 3000, allow_nan=False, width=16 if size == 2 else 32)))
    else:
        info = np.iinfo(np_dtype)
        # the 310P's scalar unit adds first + j (j < one DataBlock) in float: the sums must stay in T
        margin = (256 if size == 4 else block) if chip == "310P" else 0
        first = data.draw(st.integers(int(info.min) + margin, int(info.max) - margin))
    with asc.Core(chip) as core:
        fill(core, 0, BASE + SPAN, seed=3)
        before = core.ub_read(0, BASE + SPAN)
        if form == "count":
            count = data.draw(st.integers(1, 4 * lanes + 3))
            asc.create_vec_index(_dst(dtype), first, count)
            expected = expected_ub(chip, np_dtype, before, BASE, first, count=count)
        else:
            repeats = data.draw(st.integers(1, 4))
            blk = data.draw(st.integers(1, 3))
            rep = data.draw(st.sampled_from([0, 8 * blk, 8 * blk + 2, 24]))
            if form == "mask":
                low = block if chip in ("A2", "A3", "310P") else 1
                mask = data.draw(st.integers(low, lanes))
            else:
                words = [data.draw(st.integers(1, 2**64 - 1)), data.draw(st.integers(0, 2**64 - 1))]
                mask = words if size == 2 else [words[0], 0]
            asc.create_vec_index(_dst(dtype), first, mask, repeats, blk, rep)
            if rep == 0:  # every repeat at one place: the last one wins
                expected = _last_repeat_wins(chip, np_dtype, before, first, mask, repeats, blk)
            else:
                expected = expected_ub(chip, np_dtype, before, BASE, first, mask=mask, repeats=repeats, blk=blk,
                                       rep=rep)
        assert core.ub_read(0, BASE + SPAN) == expected


def _last_repeat_wins(chip, np_dtype, before, first, mask, repeats, blk):
    """dst_rep_stride 0: the repeats overwrite each other in issue order."""
    out = before
    size = np.dtype(np_dtype).itemsize
    block, lanes = 32 // size, 256 // size
    for r in range(repeats):
        one = bytearray(out)
        for lane in range(lanes):
            if active(mask, lane, size):
                addr = BASE + (lane // block) * blk * 32 + (lane % block) * size
                one[addr: addr + size] = np.array([lane_value(chip, np_dtype, first, r, lane)], np_dtype).tobytes()
        out = bytes(one)
    return out


@pytest.mark.parametrize("chip", ["A2", "310P"])
def test_scalar_block_products_leave_normal_mode_and_the_mask(chip):
    with asc.Core(chip, trace=True) as core:
        asc.set_vector_mask(0xF, 0)
        asc.create_vec_index(_dst(asc.float32), 0, 40, 3, 1, 8)
        assert core.mask_words[:2] == (2**40 - 1, 0)  # the last Adds(mask = 40) per repeat
        assert core.mask_mode == asc.MaskMode.NORMAL
        assert set(core.trace[-1].registers_written) == {"MASK", "MASK_MODE"}
        asc.set_vector_mask(0xF, 0)
        words = core.mask_words
        asc.create_vec_index(_dst(asc.float32), 0, 8)  # one DataBlock: the scalar unit only
        assert core.mask_words == words


def test_950_bitwise_mask_stays_in_the_register_and_the_contiguous_one_does_not():
    with asc.Core("950") as core:
        asc.set_vector_mask(0xF, 0)
        words = core.mask_words
        asc.create_vec_index(_dst(asc.int16), 0, 100, 2, 1, 8)
        assert core.mask_words == words
        asc.create_vec_index(_dst(asc.int16), 0, [0xFF00, 0x1], 2, 1, 8)
        assert core.mask_words[:2] == (0xFF00, 0x1)


@pytest.mark.parametrize("chip", ["910", "KirinX90"])
def test_products_without_it(chip):
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, lambda: asc.create_vec_index(_dst(asc.int16), 0, 16), chip)


def test_rules_reject_and_change_nothing():
    with asc.Core("A2") as core:
        fill(core, 0, BASE + SPAN)
        dst = _dst(asc.int16)
        assert_rejected(core, UnsupportedError, lambda: asc.create_vec_index(_dst(asc.uint16), 0, 16), "data type")
        assert_rejected(core, ParameterRangeError, lambda: asc.create_vec_index(dst, 40000, 16), "first_value")
        assert_rejected(core, ParameterRangeError,
                        lambda: asc.create_vec_index(_dst(asc.float16), 1e6, 16), "firstValue must lie inside")
        assert_rejected(core, ParameterRangeError, lambda: asc.create_vec_index(dst, 0, 128, 256, 1, 8),
                        "repeat_time")
        assert_rejected(core, ParameterRangeError, lambda: asc.create_vec_index(dst, 0, 128, 1, 0, 8),
                        "block stride of 0")
        assert_rejected(core, ParameterRangeError, lambda: asc.create_vec_index(dst, 0, 128, 1, 1, 256),
                        "dst_rep_stride")
        assert_rejected(core, UnsupportedError, lambda: asc.create_vec_index(dst, 0, 15, 2, 1, 8),
                        "below one DataBlock")
        assert_rejected(core, UnsupportedError, lambda: asc.create_vec_index(dst, 0, 129, 2, 1, 8),
                        "above one repeat")
        assert_rejected(core, OverlapError, lambda: asc.create_vec_index(dst, 0, 128, 2, 1, 4), "overlap")
        assert_rejected(core, OutOfBoundsError, lambda: asc.create_vec_index(_dst(asc.int16, n=64), 0, 128),
                        "dst")
        assert_rejected(core, AlignmentError, lambda: asc.create_vec_index(_dst(asc.int16, BASE + 2), 0, 16),
                        "align")
        with pytest.raises(TypeError):
            asc.create_vec_index(dst, "0", 16)
        asc.set_mask_count()
        assert_rejected(core, UnsupportedError, lambda: asc.create_vec_index(dst, 0, 128, 1, 1, 8), "counter")
        asc.set_mask_norm()
        before = core.ub.snapshot()
        asc.create_vec_index(dst, 0, 0)  # count 0: a NOP on the A2
        asc.create_vec_index(dst, 0, 128, 0, 1, 8)
        assert core.ub.snapshot() == before


def test_310p_rejects_int32_first_values_whose_float_sums_overflow():
    with asc.Core("310P") as core:
        assert_rejected(core, ParameterRangeError, lambda: asc.create_vec_index(_dst(asc.int32), 2**31 - 1, 8),
                        "overflows")
        asc.create_vec_index(_dst(asc.int32), 2**24 + 1, 8)
        # float32(2^24 + 1) = 2^24; + j rounds to even multiples of 2 (ties to even): hand-computed
        offsets = [0, 0, 2, 4, 4, 4, 6, 8]
        assert core.ub_read(BASE, 32) == np.array([2**24 + k for k in offsets], dtype=np.int32).tobytes()


def test_950_rejects_zero_counts():
    with asc.Core("950") as core:
        assert_rejected(core, ParameterRangeError, lambda: asc.create_vec_index(_dst(asc.int16), 0, 0), "NOP")
