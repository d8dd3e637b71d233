"""fp8_e8m0_t (npusim's ``float8_e8m0fnu``, ``asc.fp8_e8m0_t``) on the 950 (docs/semantics.md §5.34).

The expected values come from 内置数据类型.md read here on its own: 表5 (no sign bit, 8 exponent bits, no mantissa
bits, range [2**-127, 2**127]) with the page's normal-number formula ``(1 + M_v) * 2**(E_v - Bias)``, ``M_v = 0``,
``Bias = 2**(Ebits - 1) - 1``, in exact fractions, for the codes 0x00 .. 0xFE; 0xFF is the NaN (Reg Cast.md 约束说明:
``fp8_e8m0_t nan = 0b11111111``).  The moves — DataCopy UB -> UB, Copy (count form), Transpose NCHW <-> NHWC,
Duplicate (count form) — are checked byte for byte against numpy copies of the codes.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

E8 = asc.fp8_e8m0_t
VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
ALL_CODES = np.arange(256, dtype=np.uint8)
NAN_CODE = 0b11111111
E_BITS = 8
BIAS = 2 ** (E_BITS - 1) - 1  # the page's Bias formula: 127


def _value(code: int) -> Fraction | None:
    """The page's value of a code (None: the NaN code): the exponent field is the code, the mantissa empty."""
    if code == NAN_CODE:
        return None
    m_v = Fraction(0)  # no mantissa bits
    return (1 + m_v) * Fraction(2) ** (code - BIAS)


VALUES = [_value(code) for code in range(256)]
assert VALUES[0] == Fraction(1, 2 ** 127) and VALUES[0xFE] == 2 ** 127  # 表5's range, both ends


def _codes(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def _as_float(code: int) -> float:
    value = VALUES[code]
    return float("nan") if value is None else float(value)  # exact: a power of two within a double's range


# ------------------------------------------------------------------ the type, host read and write
def test_the_type():
    assert E8.name == "float8_e8m0fnu" and E8.bits == 8 and E8.itemsize == 1 and E8.is_float
    assert E8.np_dtype == np.uint8


def test_read_gives_every_codes_exact_value():
    """All 256 codes in UB, read on the host: the page's value of each (float32, exact; 2**-127 is a float32
    subnormal), NaN for 0xFF."""
    with asc.Core("950") as core:
        core.ub_write(0, ALL_CODES.tobytes())
        values = asc.LocalTensor(E8, VECIN, 0, 256).read()
    assert values.dtype == np.float32
    for code, value in enumerate(values.tolist()):
        if VALUES[code] is None:
            assert value != value, code
        else:
            assert Fraction(value) == VALUES[code], code


def test_code_table_agrees_with_ml_dtypes_where_it_has_the_type():
    """ml_dtypes (>= 0.5) has float8_e8m0fnu: the same 256 values (npusim's own table, as it requires 0.3)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    if not hasattr(ml_dtypes, "float8_e8m0fnu"):
        pytest.skip("this ml_dtypes has no float8_e8m0fnu (before 0.5); the page's formula above checks the table")
    theirs = ALL_CODES.view(ml_dtypes.float8_e8m0fnu).astype(np.float32)
    ours = E8.decode(ALL_CODES)
    assert ours.tobytes() == theirs.tobytes()


def test_write_stores_every_values_code():
    """The 255 powers of two and NaN become the codes 0x00 .. 0xFF, from doubles and from float32 alike."""
    values = [_as_float(code) for code in range(256)]
    for given_values in (values, np.array(values, dtype=np.float32)):
        with asc.Core("950") as core:
            tensor = asc.LocalTensor(E8, VECIN, 0, 256)
            tensor.write(given_values)
            assert core.ub_read(0, 256) == ALL_CODES.tobytes()


@given(st.lists(st.integers(0, 255), min_size=1, max_size=300))
@settings(max_examples=30, deadline=None)
def test_write_then_read_round_trips(codes):
    with asc.Core("950") as core:
        tensor = asc.LocalTensor(E8, VECIN, 0, 320)
        tensor.write([_as_float(code) for code in codes])
        assert core.ub_read(0, len(codes)) == bytes(codes)
        back = tensor.read(len(codes))
        for code, value in zip(codes, back.tolist(), strict=True):
            assert (value != value) if VALUES[code] is None else Fraction(value) == VALUES[code]


@pytest.mark.parametrize("value", [0.0, -0.0, 3.0, 1.5, -1.0, -2.0, float("inf"), float("-inf"), 2.0 ** -128,
                                   2.0 ** 128, 2.0 ** -149])
def test_write_rejects_a_value_the_type_does_not_hold(value):
    """No zero, no sign, no infinity, nothing between powers of two or beyond 表5's range: ParameterRangeError
    naming the value, the values the type holds and the page; UB unchanged."""
    with asc.Core("950") as core:
        tensor = asc.LocalTensor(E8, VECIN, 0, 64)
        tensor.write([1.0] * 64)
        assert_rejected(core, ParameterRangeError, lambda: tensor.write([2.0, value]), "float8_e8m0fnu holds no such",
                        "2**-127 .. 2**127", "内置数据类型.md", "§5.34")


@pytest.mark.parametrize("values", [np.array([2 ** 62 + 1], np.int64), np.array([2 ** 63 - 1], np.int64),
                                    np.array([2 ** 64 - 1], np.uint64), [2 ** 62 + 1], [np.int64(2 ** 62 + 1)],
                                    np.int64(2 ** 54 + 2), [2 ** 64 - 1]])
def test_write_rejects_an_integer_whose_double_is_a_power_of_two(values):
    """A host write is exact: an integer array (or Python int) past 2**53 is compared as the integer, not as its
    nearest double (2**62 + 1 is no power of two, though float(2**62 + 1) is); ParameterRangeError naming the
    integer itself, UB and GM unchanged.  2**62 itself is taken."""
    with asc.Core("950") as core:
        tensor = asc.LocalTensor(E8, VECIN, 0, 64)
        tensor.write([1.0] * 64)
        assert_rejected(core, ParameterRangeError, lambda: tensor.write(values), "float8_e8m0fnu holds no such",
                        "§5.34")
        first = np.asarray(values).reshape(-1)[0]
        with pytest.raises(ParameterRangeError, match=str(int(first))):
            tensor.write(values)
        gm = asc.gm_codes(np.full(4, 0x7F, np.uint8), E8)
        with pytest.raises(ParameterRangeError, match="§5.34"):
            gm.write(values)
        assert gm.read(4).tolist() == [1.0] * 4
        tensor.write(np.array([2 ** 62, 2 ** 63], np.uint64))
        assert core.ub_read(0, 2) == bytes([127 + 62, 127 + 63])


@pytest.mark.parametrize("scalar", [np.int64(2 ** 62 + 1), np.uint64(2 ** 64 - 1), np.int64(2 ** 54 + 2)])
def test_duplicate_rejects_a_numpy_integer_whose_double_is_a_power_of_two(scalar):
    """Duplicate's scalar likewise: a numpy integer is compared as the integer (numpy's own comparison with a float
    would round it to a double first)."""
    with asc.Core("950") as core:
        dst = asc.LocalTensor(E8, VECOUT, 0, 64)
        dst.write([1.0] * 64)
        assert_rejected(core, ParameterRangeError, lambda: asc.duplicate(dst, scalar, 64),
                        "float8_e8m0fnu holds no such", "§5.34")
        asc.duplicate(dst, np.int64(2 ** 62), 64)
        assert core.ub_read(0, 64) == bytes([127 + 62]) * 64


def test_scalar_access_is_rejected():
    with asc.Core("950") as core:
        tensor = asc.LocalTensor(E8, VECIN, 0, 64)
        tensor.write([1.0] * 64)
        assert_rejected(core, UnsupportedError, lambda: tensor.get_value(0), "§5.34")
        assert_rejected(core, UnsupportedError, lambda: tensor.set_value(0, 1.0), "§5.34")


def test_gm_of_it_holds_codes_and_data_copy_moves_them():
    """§5.34 "fp8_e8m0_t in GM": GM over uint8 codes (gm_codes), its host read the exact values, host writes
    only values the type holds; GM与UB连续数据搬运(DataCopy) (b8) moves the codes both ways unchanged."""
    codes = np.arange(256, dtype=np.uint8)
    with asc.Core("950") as core:
        g = asc.GlobalTensor()
        g.set_global_buffer(asc.gm_codes(codes, E8))
        ub = asc.LocalTensor(E8, asc.TPosition.VECIN, 0, 256)
        asc.data_copy(ub, g, 256)
        assert core.ub_read(0, 256) == codes.tobytes()
        out = np.zeros(256, np.uint8)
        o = asc.GlobalTensor()
        o.set_global_buffer(asc.gm_codes(out, E8))
        asc.data_copy(o, ub, 256)
        assert out.tobytes() == codes.tobytes()
        values = asc.gm_alloc(E8, 32)
        values.write([2.0**-127, 1.0, 2.0**127, float("nan")])
        got = values.read()[:4]
        assert got[:3].tolist() == [2.0**-127, 1.0, 2.0**127] and np.isnan(got[3])
        assert_rejected(core, ParameterRangeError, lambda: values.write([3.0]), "holds no such value", "§5.34")


# ------------------------------------------------------------------ the moves
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(0, 2), st.integers(0, 2))
@settings(max_examples=25, deadline=None)
def test_data_copy_ub_to_ub_moves_codes(seed, block_count, src_gap, dst_gap):
    """DataCopy UB -> UB with DataCopyParams (UBToUB高维切分数据搬运(DataCopy).md): block i's 32 bytes from
    src + i*(1+src_gap)*32 to dst + i*(1+dst_gap)*32, the bytes between blocks untouched."""
    src_bytes, dst_bytes = block_count * (1 + src_gap) * 32, block_count * (1 + dst_gap) * 32
    codes = _codes(seed, src_bytes)
    expected = np.full(dst_bytes, 0x5A, np.uint8)
    for i in range(block_count):
        s, d = i * (1 + src_gap) * 32, i * (1 + dst_gap) * 32
        expected[d:d + 32] = codes[s:s + 32]
    with asc.Core("950") as core:
        core.ub_write(0, codes.tobytes())
        core.ub_write(0x8000, bytes([0x5A]) * dst_bytes)
        src = asc.LocalTensor(E8, VECIN, 0, src_bytes)
        dst = asc.LocalTensor(E8, VECOUT, 0x8000, dst_bytes)
        asc.data_copy(dst, src, asc.DataCopyParams(block_count, 1, src_gap, dst_gap))
        assert core.ub_read(0x8000, dst_bytes) == expected.tobytes()


@given(st.integers(1, 16))
@settings(max_examples=10, deadline=None)
def test_data_copy_ub_to_ub_count_moves_every_code(blocks):
    """The count form (UBToUB连续数据搬运(DataCopy).md): every code arrives unchanged, 0x00 (2**-127) and 0xFF
    (NaN) too; the count is whole DataBlocks (32 one-byte elements)."""
    codes = np.resize(ALL_CODES, blocks * 32)
    with asc.Core("950") as core:
        core.ub_write(0, codes.tobytes())
        core.ub_write(1024, bytes([0x5A]) * 544)
        src, dst = asc.LocalTensor(E8, VECIN, 0, codes.size), asc.LocalTensor(E8, VECOUT, 1024, 544)
        asc.data_copy(dst, src, codes.size)
        assert core.ub_read(1024, 544) == codes.tobytes() + bytes([0x5A]) * (544 - codes.size)


@given(st.integers(0, 2**32 - 1), st.integers(1, 600))
@settings(max_examples=25, deadline=None)
def test_copy_count_form_moves_codes(seed, count):
    """Copy's count form (UBToUB连续数据搬运(Copy).md, the 950): the first ``count`` codes, the rest untouched."""
    codes = _codes(seed, count)
    expected = np.full(640, 0x5A, np.uint8)
    expected[:count] = codes
    with asc.Core("950") as core:
        core.ub_write(0, codes.tobytes())
        core.ub_write(1024, bytes([0x5A]) * 640)
        src, dst = asc.LocalTensor(E8, VECIN, 0, count), asc.LocalTensor(E8, VECOUT, 1024, 640)
        asc.copy(dst, src, count)
        assert core.ub_read(1024, 640) == expected.tobytes()


def test_copy_mask_forms_are_rejected():
    """UBToUB掩码式高维数据搬运(Copy).md lists fp8_e8m0_t, but how SetMask spreads over 256 8-bit lanes is not
    documented: rejected, as for int8 and hifloat8."""
    with asc.Core("950") as core:
        src, dst = asc.LocalTensor(E8, VECIN, 0, 256), asc.LocalTensor(E8, VECOUT, 1024, 256)
        core.ub_write(0, ALL_CODES.tobytes())
        assert_rejected(core, UnsupportedError, lambda: asc.copy(dst, src, 64, 1, asc.CopyRepeatParams(1, 1, 8, 8)))
        assert_rejected(core, UnsupportedError,
                        lambda: asc.copy(dst, src, [0xFFFF, 0xFFFF], 1, asc.CopyRepeatParams(1, 1, 8, 8)))


@pytest.mark.parametrize("kind, axes", [(asc.TransposeType.TRANSPOSE_NCHW2NHWC, (0, 2, 3, 1)),
                                        (asc.TransposeType.TRANSPOSE_NHWC2NCHW, (0, 3, 1, 2))])
@pytest.mark.parametrize("n, c, h, w", [(1, 2, 4, 32), (2, 3, 1, 64)])
def test_transpose_moves_codes(kind, axes, n, c, h, w):
    """Transpose NCHW <-> NHWC (Transpose.md, the 950's list for those two types) is numpy's transpose of the
    code array, and the same bytes as the call on uint8."""
    codes = _codes(11 + c, n * c * h * w)
    shape = (n, c, h, w) if kind == asc.TransposeType.TRANSPOSE_NCHW2NHWC else (n, h, w, c)
    expected = codes.reshape(shape).transpose(axes).reshape(-1)
    with asc.Core("950") as core:
        src = asc.LocalTensor(E8, VECIN, 0, codes.size)
        dst = asc.LocalTensor(E8, VECOUT, 1024, codes.size)
        tmp = asc.LocalTensor(asc.uint8, VECCALC, 4096, 8192)
        core.ub_write(0, codes.tobytes())
        asc.transpose(dst, src, tmp, asc.TransposeParamsExt(n, c, h, w, kind))
        assert core.ub_read(1024, codes.size) == expected.tobytes()
        src8 = asc.LocalTensor(asc.uint8, VECIN, 0, codes.size)
        dst8 = asc.LocalTensor(asc.uint8, VECOUT, 2048, codes.size)
        asc.transpose(dst8, src8, tmp, asc.TransposeParamsExt(n, c, h, w, kind))
        assert core.ub_read(2048, codes.size) == expected.tobytes()


def test_other_transpose_forms_are_rejected():
    """Transpose.md lists fp8_e8m0_t only for TRANSPOSE_NCHW2NHWC / TRANSPOSE_NHWC2NCHW."""
    with asc.Core("950") as core:
        src, dst = asc.LocalTensor(E8, VECIN, 0, 256), asc.LocalTensor(E8, VECOUT, 1024, 256)
        tmp = asc.LocalTensor(asc.uint8, VECCALC, 4096, 8192)
        core.ub_write(0, ALL_CODES.tobytes())
        params = asc.TransposeParamsExt(1, 1, 16, 16, asc.TransposeType.TRANSPOSE_ND2ND_B16)
        assert_rejected(core, UnsupportedError, lambda: asc.transpose(dst, src, tmp, params), "float8_e8m0fnu")
        assert_rejected(core, UnsupportedError, lambda: asc.transpose(dst, src), "float8_e8m0fnu")


# ------------------------------------------------------------------ Duplicate
@given(st.integers(0, 255), st.integers(1, 300))
@settings(max_examples=40, deadline=None)
def test_duplicate_writes_the_scalars_code(code, count):
    """Duplicate's count form (Duplicate.md: tensor前n个数据 only): the first ``count`` bytes are the scalar's code,
    the rest untouched; every code comes back from its own value, 0xFF from NaN."""
    expected = np.full(320, 0x5A, np.uint8)
    expected[:count] = code
    with asc.Core("950") as core:
        core.ub_write(0, bytes([0x5A]) * 320)
        dst = asc.LocalTensor(E8, VECOUT, 0, 320)
        asc.duplicate(dst, _as_float(code), count)
        assert core.ub_read(0, 320) == expected.tobytes()


def test_duplicate_scalars_of_every_kind():
    """1 is 2**0, the code 127 = Bias; ints, numpy floats and exact Fractions are taken; the ends of 表5's range."""
    with asc.Core("950") as core:
        dst = asc.LocalTensor(E8, VECOUT, 0, 64)
        for scalar, code in ((1.0, 0x7F), (1, 0x7F), (np.float32(0.5), 0x7E), (2 ** 127, 0xFE),
                             (Fraction(1, 2 ** 127), 0x00), (np.float32(2.0 ** -127), 0x00), (float("nan"), 0xFF),
                             (np.float16(1024), 0x89)):
            asc.duplicate(dst, scalar, 64)
            assert core.ub_read(0, 64) == bytes([code]) * 64, scalar


@pytest.mark.parametrize("scalar", [0, 0.0, -0.0, 3, 0.75, -1.0, float("inf"), float("-inf"), 2.0 ** -128, 2 ** 128,
                                    10 ** 400, np.float16(3)])
def test_duplicate_rejects_a_number_the_type_does_not_hold(scalar):
    """The scalar has dst's element type (Duplicate.md scalarValue): no rounding, ParameterRangeError, UB unchanged."""
    with asc.Core("950") as core:
        dst = asc.LocalTensor(E8, VECOUT, 0, 64)
        dst.write([1.0] * 64)
        assert_rejected(core, ParameterRangeError, lambda: asc.duplicate(dst, scalar, 64),
                        "float8_e8m0fnu holds no such", "2**-127 .. 2**127", "§5.34")


def test_duplicate_mask_forms_are_rejected():
    """Duplicate.md: fp8_e8m0_t only in the count form."""
    with asc.Core("950") as core:
        dst = asc.LocalTensor(E8, VECOUT, 0, 256)
        dst.write([1.0] * 256)
        assert_rejected(core, UnsupportedError, lambda: asc.duplicate(dst, 1.0, 64, 1, 1, 8))
        assert_rejected(core, UnsupportedError, lambda: asc.duplicate(dst, 1.0, [0, 0xFFFF], 1, 1, 8))


# ------------------------------------------------------------------ what rejects it
@pytest.mark.parametrize("chip", ["A2", "A3", "310B", "310P", "910", "KirinX90", "Kirin9030"])
def test_other_products_reject_the_moves(chip):
    with asc.Core(chip) as core:
        src, dst = asc.LocalTensor(E8, VECIN, 0, 256), asc.LocalTensor(E8, VECOUT, 1024, 256)
        tmp = asc.LocalTensor(asc.uint8, VECCALC, 4096, 8192)
        assert_rejected(core, UnsupportedError, lambda: asc.data_copy(dst, src, 256), "float8_e8m0fnu")
        assert_rejected(core, UnsupportedError, lambda: asc.duplicate(dst, 1.0, 64), "float8_e8m0fnu")
        params = asc.TransposeParamsExt(1, 2, 4, 32, asc.TransposeType.TRANSPOSE_NCHW2NHWC)
        named = () if chip in ("310B", "910") else ("float8_e8m0fnu",)  # these have no NCHW transpose of any type
        assert_rejected(core, UnsupportedError, lambda: asc.transpose(dst, src, tmp, params), *named)
        named = () if chip in ("310P", "910") else ("float8_e8m0fnu",)  # these have no Copy of any type
        assert_rejected(core, UnsupportedError, lambda: asc.copy(dst, src, 64, 1, asc.CopyRepeatParams(1, 1, 8, 8)),
                        *named)


def test_other_instructions_reject_it():
    """Arithmetic, Cast (the Memory-level Cast.md has no fp8_e8m0_t line) and a bitwise op: UnsupportedError."""
    with asc.Core("950") as core:
        a, b = asc.LocalTensor(E8, VECIN, 0, 256), asc.LocalTensor(E8, VECIN, 256, 256)
        out = asc.LocalTensor(E8, VECOUT, 1024, 256)
        a.write([2.0] * 256)
        b.write([4.0] * 256)
        bf16 = asc.LocalTensor(asc.bfloat16, VECOUT, 2048, 256)
        assert_rejected(core, UnsupportedError, lambda: asc.add(out, a, b, 256), "float8_e8m0fnu")
        assert_rejected(core, UnsupportedError, lambda: asc.max(out, a, b, 256), "float8_e8m0fnu")
        assert_rejected(core, UnsupportedError, lambda: asc.adds(out, a, 1.0, 256), "float8_e8m0fnu")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(bf16, a, asc.RoundMode.CAST_NONE, 256),
                        "float8_e8m0fnu")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(out, bf16, asc.RoundMode.CAST_RINT, 256),
                        "float8_e8m0fnu")


@pytest.mark.parametrize("other", ["bfloat16", "float32", "hifloat8"])
def test_the_conversion_layer_never_runs_another_types_rules_on_it(other):
    """Below Cast's line table, ``convert`` refuses the type too rather than apply hifloat8's rules to its codes."""
    from npusim.ascend.ops.conversion import convert
    from npusim.dtypes import DTYPES

    raw = np.zeros(8, dtype=DTYPES[other].raw)
    with pytest.raises(UnsupportedError, match="no conversion of float8_e8m0fnu"):
        convert(DTYPES[other], E8, raw, "rint", True)
    with pytest.raises(UnsupportedError, match="no conversion of float8_e8m0fnu"):
        convert(E8, DTYPES[other], np.zeros(8, np.uint8), "none", True)
