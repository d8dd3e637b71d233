"""asc_set_gm2ub_pad (C-API/vector_datamove/asc_set_gm2ub_pad_deprecated.md, docs/semantics.md §5.25): the
deprecated setter of the padding register the 950's asc_copy_gm2ub_align pads with.

Expected bytes come from the reference model of tests/ascend/test_move_c_api_gm.py (the _align copies' UB rows
``[left pad][data][right pad][dummy]``), the pads holding the low ``sizeof(T)`` bytes of the ``uint32_t``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.ops.data_copy import PadBits
from npusim.engine.registry import by_name
from npusim.errors import AlignmentError, DeprecatedApiWarning, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected, state
from .test_move_c_api_gm import DST_UB, PAGE_LOOPS, align32, expect_ub, gm_image, looped, ref_padded, run, ub_image

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None)
DTYPES = (asc.int8, asc.uint8, asc.int16, asc.uint16, asc.float16, asc.bfloat16, asc.int32, asc.uint32, asc.float32)


def quietly(call):
    """``call`` with the deprecation warning silenced (the tests below that are not about it)."""
    def run_quietly(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecatedApiWarning)
            return call(*args)
    return run_quietly


def test_registration():
    entry = by_name("ascend", "asc_set_gm2ub_pad")
    assert entry.alias_of == "set_pad_value" and entry.pipe == "S" and set(entry.products) == {"950"}


def test_every_call_warns_naming_the_replacement():
    with asc.Core("950") as core:
        for _ in range(2):  # a kept plan warns again
            with pytest.warns(DeprecatedApiWarning, match="asc_set_gm2ub_pad: deprecated .*use asc_set_copy_pad_val"):
                asc.asc_set_gm2ub_pad(7)
        assert core.pad_value == PadBits(7)


def test_warnings_as_errors_change_nothing():
    """The warning comes before the register is written: raised as an error, it leaves the register."""
    with asc.Core("950") as core:
        asc.asc_set_copy_pad_val(3)
        before = state(core)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecatedApiWarning)
            with pytest.raises(DeprecatedApiWarning):
                asc.asc_set_gm2ub_pad(9)
        assert state(core) == before and core.pad_value == 3


def test_page_example():
    """调用示例: loops 2 x 2, asc_set_gm2ub_pad(0), then asc_copy_gm2ub_align(dst, src, 2, 46, 1, 1, true, 0, 48, 48).
    The copy's page rejects its dst_stride (48 is neither len_burst nor 32-byte aligned, §5.17); with the
    32-byte row (64) it pads with 0 under the loops."""
    def call(stride):
        def copy(d, s, g):
            asc.asc_set_gm2ub_loop_size(2, 2)
            asc.asc_set_gm2ub_loop1_stride(96, 128)
            asc.asc_set_gm2ub_loop2_stride(192, 288)
            asc.asc_set_gm2ub_pad(0)
            try:
                asc.asc_copy_gm2ub_align(d, g, 2, 46, 1, 1, True, 0, 48, stride)
            finally:
                asc.asc_set_gm2ub_loop_size(1, 1)
        return quietly(copy)

    with pytest.raises(AlignmentError, match="dst_stride"):
        run("950", call(48), asc.int8)
    got, _, _, _ = run("950", call(64), asc.int8)
    source = gm_image().tobytes()
    assert got == expect_ub(lambda ub: looped(lambda so, do: ref_padded(ub, DST_UB + do, source, so, 2, 46, 48, 64, 1,
                                                                        1, 1, b"\0", False), PAGE_LOOPS))


@SETTINGS
@given(dtype=st.sampled_from(DTYPES), bits=st.integers(0, 2**32 - 1), count=st.integers(1, 4),
       elems=st.integers(1, 20), data=st.data())
def test_the_pads_hold_the_low_bytes_of_the_pattern(dtype, bits, count, elems, data):
    size = dtype.itemsize
    left, right = (data.draw(st.integers(0, 32 // size)) for _ in range(2))
    length = elems * size
    ub_pitch = align32((left + right) * size + length)
    got, _, _, _ = run("950", lambda d, s, g: asc.asc_copy_gm2ub_align(d, g, count, length, left, right, True, 0,
                                                                       length, ub_pitch),
                       dtype, setup=quietly(lambda: asc.asc_set_gm2ub_pad(bits)))
    fill = bits.to_bytes(4, "little")[:size]
    source = gm_image().tobytes()
    assert got == expect_ub(lambda ub: ref_padded(ub, DST_UB, source, 0, count, length, length, ub_pitch, left * size,
                                                  right * size, size, fill, False))


def test_rules():
    with asc.Core("950") as core:
        core.ub_write(0, ub_image())
        for bad in (-1, 2**32):
            assert_rejected(core, ParameterRangeError, lambda v=bad: asc.asc_set_gm2ub_pad(v), "uint32_t",
                            instruction="asc_set_gm2ub_pad", operand="pad_val")
        for bad in (1.0, "0", None):
            with pytest.raises(TypeError):
                asc.asc_set_gm2ub_pad(bad)
    for chip in ("A2", "A3", "310P"):
        with asc.Core(chip) as core:
            assert_rejected(core, UnsupportedError, lambda: asc.asc_set_gm2ub_pad(0), "产品支持情况",
                            instruction="asc_set_gm2ub_pad", operand="product")


def test_the_replacement_pads_the_same_bytes():
    """asc_set_gm2ub_pad(bits of -2.0 as half) and asc_set_copy_pad_val(-2.0) give the same half copy."""
    half_bits = int(np.array(-2.0, np.float16).view(np.uint16))
    copy = lambda d, s, g: asc.asc_copy_gm2ub_align(d, g, 2, 10, 3, 2, True, 0, 10, 64)  # noqa: E731
    a = run("950", copy, asc.float16, setup=quietly(lambda: asc.asc_set_gm2ub_pad(half_bits)))[0]
    b = run("950", copy, asc.float16, setup=lambda: asc.asc_set_copy_pad_val(-2.0))[0]
    assert a == b
