"""hifloat8_t's data-movement rows on the 950 (docs/semantics.md §5.32, "Moving hifloat8_t elements"): DataCopy
UB -> UB (UBToUB连续数据搬运 / UBToUB高维切分数据搬运(DataCopy).md), Copy (UBToUB连续数据搬运(Copy).md, count form),
Transpose NCHW <-> NHWC (Transpose.md) and Duplicate (count form, Duplicate.md: its scalar a hifloat8_t
value, the code from the tests' own reference table).  Each moves the 1-byte codes
unchanged; the expectation is a numpy copy (or transpose) of the code bytes, NaN (0x80) and ±infinity
(0x6F / 0xEF) included.  Other products have no hifloat8_t row.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ParameterRangeError, UnsupportedError

from . import hifloat8_reference as ref
from .conftest import assert_rejected

H8 = asc.hifloat8
VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
ALL_CODES = np.arange(256, dtype=np.uint8)


def _codes(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(0, 2), st.integers(0, 2))
@settings(max_examples=25, deadline=None)
def test_data_copy_ub_to_ub_moves_codes(seed, block_count, src_gap, dst_gap):
    """DataCopy UB -> UB with DataCopyParams: block i's 32 bytes from src + i*(1+src_gap)*32 to
    dst + i*(1+dst_gap)*32, bytes between blocks untouched."""
    src_bytes, dst_bytes = block_count * (1 + src_gap) * 32, block_count * (1 + dst_gap) * 32
    codes = _codes(seed, src_bytes)
    expected = np.full(dst_bytes, 0xEE, np.uint8)
    for i in range(block_count):
        s, d = i * (1 + src_gap) * 32, i * (1 + dst_gap) * 32
        expected[d:d + 32] = codes[s:s + 32]
    with asc.Core("950") as core:
        core.ub_write(0, codes.tobytes())
        core.ub_write(0x8000, bytes([0xEE]) * dst_bytes)
        src = asc.LocalTensor(H8, VECIN, 0, src_bytes)
        dst = asc.LocalTensor(H8, VECOUT, 0x8000, dst_bytes)
        asc.data_copy(dst, src, asc.DataCopyParams(block_count, 1, src_gap, dst_gap))
        assert core.ub_read(0x8000, dst_bytes) == expected.tobytes()


def test_data_copy_ub_to_ub_count_moves_every_code():
    """The count form: all 256 codes arrive unchanged (NaN 0x80, ±infinity 0x6F / 0xEF)."""
    with asc.Core("950") as core:
        core.ub_write(0, ALL_CODES.tobytes())
        src, dst = asc.LocalTensor(H8, VECIN, 0, 256), asc.LocalTensor(H8, VECOUT, 1024, 256)
        asc.data_copy(dst, src, 256)
        assert core.ub_read(1024, 256) == ALL_CODES.tobytes()


@given(st.integers(0, 2**32 - 1), st.integers(1, 600))
@settings(max_examples=25, deadline=None)
def test_copy_count_form_moves_codes(seed, count):
    """Copy's count form (the 950 only): the first ``count`` codes, the rest of dst untouched."""
    codes = _codes(seed, count)
    expected = np.full(640, 0xEE, np.uint8)
    expected[:count] = codes
    with asc.Core("950") as core:
        core.ub_write(0, codes.tobytes())
        core.ub_write(1024, bytes([0xEE]) * 640)
        src, dst = asc.LocalTensor(H8, VECIN, 0, count), asc.LocalTensor(H8, VECOUT, 1024, 640)
        asc.copy(dst, src, count)
        assert core.ub_read(1024, 640) == expected.tobytes()


def test_copy_mask_form_of_hifloat8_is_rejected():
    """As for the other 8-bit types, the mask forms are not modelled (how SetMask spreads over 256 lanes)."""
    with asc.Core("950") as core:
        src, dst = asc.LocalTensor(H8, VECIN, 0, 256), asc.LocalTensor(H8, VECOUT, 1024, 256)
        core.ub_write(0, ALL_CODES.tobytes())
        assert_rejected(core, UnsupportedError, lambda: asc.copy(dst, src, 64, 1, asc.CopyRepeatParams(1, 1, 8, 8)))


@pytest.mark.parametrize("kind, axes", [(asc.TransposeType.TRANSPOSE_NCHW2NHWC, (0, 2, 3, 1)),
                                        (asc.TransposeType.TRANSPOSE_NHWC2NCHW, (0, 3, 1, 2))])
def test_transpose_moves_codes(kind, axes):
    """Transpose NCHW <-> NHWC of 1-byte codes is numpy's transpose of the code array."""
    n, c, h, w = 1, 2, 4, 32  # h * w a multiple of 32 one-byte elements
    codes = _codes(7, n * c * h * w)
    shape = (n, c, h, w) if kind == asc.TransposeType.TRANSPOSE_NCHW2NHWC else (n, h, w, c)
    expected = codes.reshape(shape).transpose(axes).reshape(-1)
    with asc.Core("950") as core:
        src = asc.LocalTensor(H8, VECIN, 0, codes.size)
        dst = asc.LocalTensor(H8, VECOUT, 1024, codes.size)
        tmp = asc.LocalTensor(asc.uint8, VECCALC, 4096, 8192)
        core.ub_write(0, codes.tobytes())
        asc.transpose(dst, src, tmp, asc.TransposeParamsExt(n, c, h, w, kind))
        assert core.ub_read(1024, codes.size) == expected.tobytes()
        # the same call on uint8 moves the same bytes
        src8 = asc.LocalTensor(asc.uint8, VECIN, 0, codes.size)
        dst8 = asc.LocalTensor(asc.uint8, VECOUT, 2048, codes.size)
        asc.transpose(dst8, src8, tmp, asc.TransposeParamsExt(n, c, h, w, kind))
        assert core.ub_read(2048, codes.size) == expected.tobytes()


def _scalar_of(code: int):
    """The number the reference table gives the code (its value, NaN or ±infinity) as a Python float."""
    return float(ref.VALUES[code])  # a Fraction, or "nan" / "+inf" / "-inf"


@given(st.integers(0, 255), st.integers(1, 300))
@settings(max_examples=40, deadline=None)
def test_duplicate_writes_the_scalars_code(code, count):
    """Duplicate (count form): each of the first ``count`` bytes is the scalar's code, the rest untouched.
    Every code but 0x80 (NaN) comes back from its own value; 0x80 from NaN."""
    expected = np.full(320, 0xEE, np.uint8)
    expected[:count] = code
    with asc.Core("950") as core:
        core.ub_write(0, bytes([0xEE]) * 320)
        dst = asc.LocalTensor(H8, VECOUT, 0, 320)
        asc.duplicate(dst, _scalar_of(code), count)
        assert core.ub_read(0, 320) == expected.tobytes()


def test_duplicate_page_value_and_zeros():
    """14 (内置数据类型.md 图10: 0x2E), an int scalar, and both zeros (the single code 0x00)."""
    with asc.Core("950") as core:
        dst = asc.LocalTensor(H8, VECOUT, 0, 64)
        for scalar, code in ((14.0, 0x2E), (14, 0x2E), (-0.0, 0x00), (0, 0x00), (32768, 0x6E),
                             (float("-inf"), 0xEF), (2.0 ** -22, 0x01)):
            asc.duplicate(dst, scalar, 64)
            assert core.ub_read(0, 64) == bytes([code]) * 64, scalar


@pytest.mark.parametrize("scalar", [1.1, 17.0, 40000, 2.0 ** -23, 10 ** 400, np.float16(1.0625),
                                    Fraction(1, 2 ** 22) * (1 + Fraction(1, 2 ** 60))])
def test_duplicate_rejects_a_number_hifloat8_does_not_hold(scalar):
    """The scalar is a hifloat8_t value (Duplicate.md: scalarValue has dst's type): no rounding, a clear error —
    also for an exact number (a Fraction) whose nearest double is a hifloat8_t value."""
    with asc.Core("950") as core:
        dst = asc.LocalTensor(H8, VECOUT, 0, 64)
        dst.write([1.0] * 64)
        assert_rejected(core, ParameterRangeError, lambda: asc.duplicate(dst, scalar, 64), "hifloat8 holds no such")


def test_duplicate_mask_form_of_hifloat8_is_rejected():
    """Duplicate.md: hifloat8_t only in the count form (tensor前n个数据计算)."""
    with asc.Core("950") as core:
        dst = asc.LocalTensor(H8, VECOUT, 0, 256)
        dst.write([1.0] * 256)
        assert_rejected(core, UnsupportedError, lambda: asc.duplicate(dst, 1.0, 64, 1, 1, 8))


@pytest.mark.parametrize("chip", ["A2", "A3"])
def test_other_products_reject_hifloat8_movement(chip):
    with asc.Core(chip) as core:
        src, dst = asc.LocalTensor(H8, VECIN, 0, 256), asc.LocalTensor(H8, VECOUT, 1024, 256)
        tmp = asc.LocalTensor(asc.uint8, VECCALC, 4096, 8192)
        assert_rejected(core, UnsupportedError, lambda: asc.data_copy(dst, src, 256), "hifloat8")
        assert_rejected(core, UnsupportedError, lambda: asc.copy(dst, src, 64, 1, asc.CopyRepeatParams(1, 1, 8, 8)),
                        "hifloat8")
        params = asc.TransposeParamsExt(1, 2, 4, 32, asc.TransposeType.TRANSPOSE_NCHW2NHWC)
        assert_rejected(core, UnsupportedError, lambda: asc.transpose(dst, src, tmp, params), "hifloat8")
        assert_rejected(core, UnsupportedError, lambda: asc.duplicate(dst, 1.0, 64), "hifloat8")
