"""Cast: the documents' worked examples, every RoundMode, saturation, NaN, the repeat geometry of two
element sizes, every documented constraint, and a property test against ``cast_reference``.

Expected values come from the pages (数据结构/precision_conversion.md, 类型转换/Cast.md) or from
``tests/ascend/cast_reference.py``; results are compared as raw bytes.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.cast_dtypes import cast_pairs
from npusim.dtypes import DTYPES
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, RuntimeMisuseError, UnsupportedError

from . import cast_reference as ref
from .conftest import assert_rejected
from .reference_model import decode, encode

R = asc.RoundMode
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
NUMPY = {"bfloat16": ml_dtypes.bfloat16, "float8_e5m2": ml_dtypes.float8_e5m2,
         "float8_e4m3fn": ml_dtypes.float8_e4m3fn}


def element_bits(name: str, value) -> int:
    """The bits of a value the type holds exactly (the reference's encoder; asserted exact)."""
    if name in ref.INTEGERS:
        width, _ = ref.INTEGERS[name]
        return int(value) & ((1 << width) - 1)
    bits = ref.to_float(value, name, "rint")
    assert ref.decode(name, bits) == value, f"{value} is not a {name}"
    return bits


def run_cast(chip: str, src: str, dst: str, bits: list[int], mode: R, saturate: bool = True) -> list[int]:
    """``asc.cast`` count form of the raw lanes ``bits`` on ``chip``: the raw results."""
    s, d = DTYPES[src], DTYPES[dst]
    with asc.Core(chip) as core:
        if not saturate:
            asc.set_saturation_flag(False)
        x = asc.LocalTensor(s, VECIN, 0, 256)
        z = asc.LocalTensor(d, VECOUT, 4096, 256)
        core.ub_write(0, np.array(bits, dtype=s.raw).tobytes())
        core.ub_write(4096, bytes(256 * d.itemsize))
        asc.cast(z, x, mode, len(bits))
        return np.frombuffer(core.ub_read(4096, len(bits) * d.itemsize), dtype=d.raw).tolist()


# ------------------------------------------------- precision_conversion.md: the single-value examples
F = Fraction
MODES5 = (R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC)


def _modes(*values):
    return dict(zip(MODES5, values, strict=True))


#: (src, dst, input, {RoundMode: printed output}, chip that has the pair).  The page's 61 examples,
#: less the 14 whose types this table does not hold (int4b_t x6: test_cast_int4.py (the A2's two) and
#: test_cast_int4_950.py (the 950's); fp4x2 x4: test_cast_fp4_950.py runs fp4x2_e2m1_t's two, fp4x2_e1m2_t's are
#: not modelled (docs/semantics.md §5.31); hifloat8_t x3: test_cast_hifloat8.py runs its four lines) and
#: int32 -> half (the SetDeqScale formula, no value);
#: errata A11/A12 give the formula's value (docs/numerics.md, "Errata in the Cast pages").
PRECISION_CONVERSION = [
    ("int8", "float16", -1, {R.CAST_NONE: -1}, "A2"),
    ("int8", "int16", 127, {R.CAST_NONE: 127}, "950"),
    ("int8", "int32", 127, {R.CAST_NONE: 127}, "950"),
    ("uint8", "float16", 1, {R.CAST_NONE: 1}, "A2"),
    ("uint8", "uint16", 255, {R.CAST_NONE: 255}, "950"),
    ("uint8", "uint32", 255, {R.CAST_NONE: 255}, "950"),
    ("float8_e5m2", "float32", 2, {R.CAST_NONE: 2}, "950"),
    ("float8_e4m3fn", "float32", 2, {R.CAST_NONE: 2}, "950"),
    ("int16", "uint8", 2**15 - 1, {R.CAST_NONE: 255}, "950"),
    ("int16", "float16", 2**12 + 2, {**_modes(4096, 4096, 4100, 4100, 4096), R.CAST_NONE: 4096}, "A2"),
    ("int16", "uint32", 2**15 - 1, {R.CAST_NONE: 2**15 - 1}, "950"),
    ("int16", "int32", 2**15 - 1, {R.CAST_NONE: 2**15 - 1}, "950"),
    ("int16", "float32", 2**15 - 1, {R.CAST_NONE: 2**15 - 1}, "A2"),
    ("uint16", "uint8", 2**16 - 1, {R.CAST_NONE: 255}, "950"),
    ("uint16", "uint32", 2**16 - 1, {R.CAST_NONE: 2**16 - 1}, "950"),
    ("float16", "int8", F(255, 2), {**_modes(127, 127, 127, 127, 127), R.CAST_NONE: 127}, "A2"),  # 128 saturates
    ("float16", "uint8", F(7, 4), {**_modes(2, 1, 2, 2, 1), R.CAST_NONE: 2}, "A2"),
    ("float16", "int16", F(255, 2), _modes(128, 127, 128, 128, 127), "A2"),
    ("float16", "bfloat16", F(7, 4), _modes(*[F(7, 4)] * 5), "950"),  # erratum A11: the page prints 2/1/2/2/1
    ("float16", "int32", F(-3, 2), _modes(-2, -2, -1, -2, -1), "A2"),
    ("float16", "float32", 1 + F(1, 2) - F(1, 1024), {R.CAST_NONE: F(1535, 1024)}, "A2"),
    ("bfloat16", "float16", F(195, 2**26), _modes(F(49, 2**24), F(48, 2**24), F(49, 2**24), F(49, 2**24),
                                                   F(48, 2**24)), "950"),  # 2.90573e-06: 48.75 half subnormal ulps
    ("bfloat16", "int32", 64 + F(1, 2), _modes(64, 64, 65, 65, 64), "A2"),
    ("bfloat16", "float32", F(3, 2) - F(1, 64), {R.CAST_NONE: F(95, 64)}, "A2"),
    ("int32", "uint8", 2**31 - 1, {R.CAST_NONE: 255}, "950"),
    ("int32", "uint16", 2**31 - 1, {R.CAST_NONE: 2**16 - 1}, "950"),
    ("int32", "int16", 2**31 - 1, {R.CAST_NONE: 2**15 - 1}, "A2"),
    ("int32", "float32", 2**25 + 3, {**_modes(33554436, 33554432, 33554436, 33554436, 33554432),
                                     R.CAST_NONE: 33554436}, "A2"),
    ("int32", "int64", 2**31 - 1, {R.CAST_NONE: 2**31 - 1}, "A2"),
    ("uint32", "uint8", 2**32 - 1, {R.CAST_NONE: 255}, "950"),
    ("uint32", "uint16", 2**32 - 1, {R.CAST_NONE: 2**16 - 1}, "950"),
    ("uint32", "int16", 2**32 - 1, {R.CAST_NONE: 2**15 - 1}, "950"),
    ("float32", "float8_e4m3fn", F(5, 2), {R.CAST_RINT: F(5, 2)}, "950"),  # erratum A12: the page prints 2
    ("float32", "float8_e5m2", F(5, 2), {R.CAST_RINT: F(5, 2)}, "950"),  # erratum A12
    ("float32", "int16", 2**22 + F(1, 2), _modes(*[32767] * 5), "A2"),
    ("float32", "float16", F(2049, 4096), {**_modes(F(1, 2), F(1, 2), F(1025, 2048), F(1025, 2048), F(1, 2)),
                                           R.CAST_ODD: F(1025, 2048), R.CAST_NONE: F(1, 2)}, "A2"),
    ("float32", "bfloat16", F(1029, 2048), _modes(F(129, 256), F(1, 2), F(129, 256), F(129, 256), F(1, 2)), "A2"),
    ("float32", "int32", 2**22 + F(1, 2), _modes(4194304, 4194304, 4194305, 4194305, 4194304), "A2"),
    ("float32", "float32", F(1, 2), _modes(0, 0, 1, 1, 0), "A2"),
    ("float32", "int64", 2**22 + F(1, 2), _modes(4194304, 4194304, 4194305, 4194305, 4194304), "A2"),
    ("int64", "int32", 2**31, {R.CAST_NONE: 2**31 - 1}, "A2"),
    ("int64", "float32", 2**35 + 2**12 + 2**11, _modes(34359746560, 34359742464, 34359746560, 34359746560,
                                                       34359742464), "A2"),
    ("int64", "float64", 2**61 + 2**9 + 2**8, _modes(2305843009213694976, 2305843009213694464, 2305843009213694976,
                                                     2305843009213694976, 2305843009213694464), "950"),
    ("float64", "float32", 2**35 + 2**12 + 2**11, _modes(34359746560, 34359742464, 34359746560, 34359746560,
                                                         34359742464), "950"),
    ("float64", "bfloat16", 2**35 + 2**28 + 2**27, _modes(34896609280, 34628173824, 34896609280, 34896609280,
                                                          34628173824), "950"),
    ("float64", "int32", F(-3, 2), {R.CAST_TRUNC: -1}, "950"),
    ("float64", "int64", F(-3, 2), {R.CAST_TRUNC: -1}, "950"),
]
CONVERSION_CASES = [pytest.param(src, dst, value, mode, out, chip, id=f"{src}->{dst}-{mode.name}")
                    for src, dst, value, outputs, chip in PRECISION_CONVERSION for mode, out in outputs.items()]


def test_the_page_has_61_examples_and_47_are_run():
    assert len(PRECISION_CONVERSION) == 61 - 14


@pytest.mark.parametrize("src, dst, value, mode, printed, chip", CONVERSION_CASES)
def test_precision_conversion_examples(src, dst, value, mode, printed, chip):
    (result,) = run_cast(chip, src, dst, [element_bits(src, value)], mode)
    assert result == element_bits(dst, printed)
    assert result == ref.cast(src, dst, element_bits(src, value), mode, True)  # the reference agrees


# ------------------------------------------------------------------ Cast.md's examples
SIX = [1.4, 1.5, 1.6, 2.4, 2.5, 2.6]
PRINTED_SIX = {R.CAST_CEIL: [2, 2, 2, 3, 3, 3], R.CAST_RINT: [1, 2, 2, 2, 2, 3], R.CAST_FLOOR: [1, 1, 1, 2, 2, 2],
               R.CAST_ROUND: [1, 2, 2, 2, 3, 3], R.CAST_TRUNC: [1, 1, 1, 2, 2, 2]}


@pytest.mark.parametrize("mode", list(PRINTED_SIX), ids=lambda m: m.name)
def test_cast_page_half_to_int32_in_every_mode(mode):
    """[1.4, 1.5, 1.6, 2.4, 2.5, 2.6, ... 2.6] -> the printed output, count = 512 (the last element 2.6)."""
    values = np.array((SIX * 86)[:511] + [2.6], dtype=np.float16)
    with asc.Core("A2"):
        x = asc.LocalTensor(asc.float16, VECIN, 0, 512)
        z = asc.LocalTensor(asc.int32, VECOUT, 1024, 512)
        x.write(values)
        asc.cast(z, x, mode, 512)
        out = z.read()
    assert out[:6].tolist() == PRINTED_SIX[mode]
    assert out[-1] == PRINTED_SIX[mode][-1]
    assert out.tobytes() == np.array((PRINTED_SIX[mode] * 86)[:511] + PRINTED_SIX[mode][-1:], np.int32).tobytes()


def test_cast_page_mask_32_example_with_its_uninitialised_lanes():
    """更多样例: mask = 32, 8 repeats, {1, 1, 8, 4}: the first 32 of each repeat's 64 lanes are written; the
    others keep dst's earlier contents (printed as they were).  output[414] is erratum A7 (91 for ceil(2.0))."""
    data = json.loads((Path(__file__).parents[1] / "data" / "ascend_cast_doc_example.json").read_text())
    expected = np.array(data["output"], dtype=np.int64)
    expected[414] = 2  # erratum A7
    written = (np.arange(512) % 64) < 32
    with asc.Core("A2"):
        x = asc.LocalTensor(asc.float16, VECIN, 0, 512)
        z = asc.LocalTensor(asc.int32, VECOUT, 1024, 512)
        x.write(np.array(data["input"], dtype=np.float64))
        z.write(np.where(written, -1, expected).astype(np.int32))
        asc.cast(z, x, R.CAST_CEIL, 32, 8, asc.UnaryRepeatParams(1, 1, 8, 4))
        assert z.read().tobytes() == expected.astype(np.int32).tobytes()
        assert data["input"][414] == 2.0 and data["output"][414] == 91


# ------------------------------------------------------------------ geometry of two element sizes
def _ub(core, addr, dtype, n):
    return np.frombuffer(core.ub_read(addr, n * dtype.itemsize), dtype=dtype.raw)


def test_a_repeat_has_the_wider_types_lanes_and_each_operand_its_own_strides():
    """half -> int32 with mask 64, strides {dst blk 2, src blk 1, dst rep 16, src rep 4}: lane j of repeat r is
    src element r*64 + j and dst element r*128 + (j // 8)*16 + j % 8."""
    rng = np.random.default_rng(3)
    src = rng.integers(-1000, 1000, 256).astype(np.float16)
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float16, VECIN, 0, 256)
        z = asc.LocalTensor(asc.int32, VECOUT, 1024, 512)
        x.write(src)
        core.ub_write(1024, bytes(2048))
        asc.cast(z, x, R.CAST_TRUNC, 64, 4, asc.UnaryRepeatParams(2, 1, 16, 4))
        out = _ub(core, 1024, asc.int32, 512).view(np.int32)
    expected = np.zeros(512, np.int32)
    r, j = np.divmod(np.arange(256), 64)
    expected[r * 128 + (j // 8) * 16 + j % 8] = src.astype(np.int32)  # integral halves: exact
    assert out.tobytes() == expected.tobytes()


def test_the_narrower_source_of_float_to_half_skips_nothing_with_dst_rep_4():
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float32, VECIN, 0, 256)
        z = asc.LocalTensor(asc.float16, VECOUT, 2048, 256)
        x.write(np.arange(1, 257, dtype=np.float32) + np.float32(2**-13))  # below half's last place from 1 up
        core.ub_write(2048, bytes(512))
        asc.cast(z, x, R.CAST_FLOOR, 64, 4, asc.UnaryRepeatParams(1, 1, 4, 8))
        assert z.read().tobytes() == np.arange(1, 257, dtype=np.float16).tobytes()


def test_bitwise_mask_counts_lanes_of_the_wider_type():
    """int8 -> half: 128 lanes per repeat (half), the two mask words select among them."""
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.int8, VECIN, 0, 256)
        z = asc.LocalTensor(asc.float16, VECOUT, 1024, 256)
        x.write(np.arange(256).astype(np.int8))
        core.ub_write(1024, bytes(512))
        asc.cast(z, x, R.CAST_NONE, [0, 1 << 63], 2, asc.UnaryRepeatParams(1, 1, 8, 4))
        out = z.read()
    expected = np.zeros(256, np.float16)
    expected[[127, 255]] = [127, -1]
    assert out.tobytes() == expected.tobytes()
    assert core.mask_words == (0, 1 << 63, 0, 0)  # the A2 lowering leaves the mask it set


def test_count_form_leaves_normal_mode_and_a_full_mask():
    with asc.Core("A2") as core:
        asc.set_mask_count()
        x = asc.LocalTensor(asc.float16, VECIN, 0, 256)
        z = asc.LocalTensor(asc.float32, VECOUT, 1024, 256)
        x.write(np.ones(256))
        asc.cast(z, x, R.CAST_NONE, 100)
        assert (core.mask_mode, core.mask_words[:2]) == (asc.MaskMode.NORMAL, ((1 << 64) - 1, (1 << 64) - 1))
        assert z.read(100).tolist() == [1.0] * 100


def test_no_mask_form_reads_the_register():
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float32, VECIN, 0, 64)
        z = asc.LocalTensor(asc.int32, VECOUT, 1024, 64)
        x.write(np.arange(64) - 0.5)
        core.ub_write(1024, bytes(256))
        asc.set_vector_mask(0, 0b1010)
        asc.cast(z, x, R.CAST_ROUND, 0, 1, asc.UnaryRepeatParams(), False)
        assert z.read()[:4].tolist() == [0, 1, 0, 3]  # -0.5+1 = 0.5 -> 1, 2.5 -> 3 (ties away)


def test_in_place_same_size_is_allowed_and_different_sizes_overlapping_are_rejected():
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float32, VECIN, 0, 64)
        y = asc.LocalTensor(asc.int32, VECOUT, 0, 64)
        x.write(np.full(64, 2.5, np.float32))
        asc.cast(y, x, R.CAST_RINT, 64)
        assert y.read().tolist() == [2] * 64
        h = asc.LocalTensor(asc.float16, VECOUT, 64, 64)  # half dst 64 bytes into the float source
        x.write(np.full(64, 2.5, np.float32))
        assert_rejected(core, OverlapError, lambda: asc.cast(h, x, R.CAST_RINT, 64), "partially overlap",
                        instruction="cast")


def test_a_narrowing_cast_onto_its_own_source_start_converts_in_place():
    """docs/semantics.md §1.6: a half dst from the float src's first byte lies inside each repeat's source
    bytes (the vendor's AscendQuant casts its float scale tensor this way); the result is the conversion's.
    Widening in place stays rejected: repeat 1 would read what repeat 0 wrote."""
    values = np.arange(-128, 128, dtype=np.float32) / 7
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float32, VECIN, 0, 256)
        x.write(values)
        asc.cast(x.reinterpret_cast(asc.float16), x, R.CAST_NONE, 256)
        got = x.reinterpret_cast(asc.float16).read(256)
        expected = [encode(decode(int(b), "float32"), "float16") for b in values.view(np.uint32)]
        assert got.view(np.uint16).tolist() == expected
        h = asc.LocalTensor(asc.float16, VECIN, 4096, 256)
        h.write(np.ones(256, np.float16))
        assert_rejected(core, OverlapError, lambda: asc.cast(h.reinterpret_cast(asc.float32), h, R.CAST_NONE, 128),
                        "repeat 1 reads", instruction="cast")


# ------------------------------------------------------------------ saturation and special values
def test_float_to_half_overflow_saturates_on_the_a2_until_switched_off():
    big = element_bits("float32", 70000)
    assert run_cast("A2", "float32", "float16", [big], R.CAST_RINT) == [0x7BFF]
    assert run_cast("A2", "float32", "float16", [big], R.CAST_RINT, saturate=False) == [0x7C00]
    assert run_cast("A2", "float32", "float16", [big], R.CAST_TRUNC, saturate=False) == [0x7BFF]  # toward zero
    assert run_cast("310B", "float32", "float16", [big], R.CAST_RINT) == [0x7C00]  # no saturation documented


def test_nan_and_infinity_to_half_and_to_integers():
    nan, inf, ninf = 0x7FC00001, 0x7F800000, 0xFF800000
    assert run_cast("A2", "float32", "float16", [nan, inf, ninf], R.CAST_RINT) == [0, 0x7BFF, 0xFBFF]
    assert run_cast("A2", "float32", "float16", [nan, inf, ninf], R.CAST_RINT, saturate=False) == [
        0x7E00, 0x7C00, 0xFC00]
    assert run_cast("A2", "float32", "int32", [nan, inf, ninf], R.CAST_RINT) == [0, 0x7FFFFFFF, 0x80000000]
    assert run_cast("A2", "float16", "uint8", [0xBC00, 0x3C00], R.CAST_NONE) == [0, 1]  # -1 -> 0: abnormal input
    assert run_cast("A2", "float32", "float32", [nan], R.CAST_RINT) == [0x7FC00000]  # float never saturates


def test_odd_rounding_sets_the_last_bit_when_anything_is_dropped():
    values = [element_bits("float32", v) for v in (1 + F(1, 2**12), 1 + F(3, 2**11), 1 + F(1, 2**10))]
    assert run_cast("A2", "float32", "float16", values, R.CAST_ODD) == [0x3C01, 0x3C01, 0x3C01]


# ------------------------------------------------------------------ constraints
def _pair(core, src, dst, n=64):
    return asc.LocalTensor(DTYPES[dst], VECOUT, 4096, n), asc.LocalTensor(DTYPES[src], VECIN, 0, n)


def test_rejected_calls_name_their_rule(a2):
    z, x = _pair(a2, "float16", "int32")
    assert_rejected(a2, UnsupportedError, lambda: asc.cast(z, x, R.CAST_NONE, 64), "CAST_RINT",
                    instruction="cast", operand="round_mode")
    z8, x32 = _pair(a2, "float32", "int8")
    assert_rejected(a2, UnsupportedError, lambda: asc.cast(z8, x32, R.CAST_RINT, 64), "float32 -> int8",
                    instruction="cast", operand="src/dst dtypes")
    zh, xi = _pair(a2, "int32", "float16")
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast(zh, xi, R.CAST_NONE, 64), "SetDeqScale",
                    instruction="cast", operand="DEQSCALE")  # int32 -> half dequantises (tests/ascend/test_dequant.py)
    assert_rejected(a2, ParameterRangeError, lambda: asc.cast(z, x, 9, 64), "RoundMode", operand="round_mode")
    assert_rejected(a2, UnsupportedError, lambda: asc.cast(z, x, R.CAST_HYBRID, 64), operand="round_mode")
    with pytest.raises(TypeError):
        asc.cast(z, x, "CAST_RINT", 64)
    assert_rejected(a2, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_RINT, 64, 1,
                                                              asc.UnaryRepeatParams(0, 1, 8, 4)),
                    operand="dst block stride")
    assert_rejected(a2, OutOfBoundsError, lambda: asc.cast(z, x, R.CAST_RINT, 65), operand="dst byte range")
    assert_rejected(a2, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_RINT, 64, 256,
                                                              asc.UnaryRepeatParams()), operand="repeat_times")


def test_products_without_cast_or_without_the_pair():
    with asc.Core("310P-VEC") as core:
        z, x = _pair(core, "float16", "float32")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_NONE, 64), instruction="cast")
    with asc.Core("910") as core:
        z, x = _pair(core, "float32", "bfloat16")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_RINT, 64), "float32 -> bfloat16")
    with asc.Core("310P") as core:
        z, x = _pair(core, "float16", "int8")  # no RINT for half -> int8 on the Atlas inference AI Core
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_RINT, 64), operand="round_mode")
    with asc.Core("KirinX90") as core:
        z, x = _pair(core, "float16", "uint8")  # only CEIL
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_FLOOR, 64), "CAST_CEIL")


def test_950_double_only_in_the_count_form_and_zero_count_is_not_a_nop():
    with asc.Core("950") as core:
        z, x = _pair(core, "float64", "float32", 32)
        core.ub_write(0, np.full(32, 1.5).tobytes())
        asc.cast(z, x, R.CAST_TRUNC, 32)
        assert z.read().tolist() == [1.5] * 32
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_TRUNC, 32, 1, asc.UnaryRepeatParams()),
                        "count form")
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_TRUNC, 0), operand="count")


def test_zero_count_is_a_nop_on_the_a2(a2):
    z, x = _pair(a2, "float16", "float32")
    before = a2.ub_read(0, 8192)
    asc.cast(z, x, R.CAST_NONE, 0)
    assert a2.ub_read(0, 8192) == before


def test_every_product_row_has_its_table():
    pairs = {name: cast_pairs(asc.get_chip(name)) for name in asc.CHIPS}
    assert pairs["310P-VEC"] is None
    assert len(pairs["A2"]) == 25 == len(pairs["A3"])
    assert len(pairs["310B"]) == 23 and len(pairs["310P"]) == 14 and len(pairs["910"]) == 10
    assert len(pairs["950"]) == 64 - 2 and len(pairs["KirinX90"]) == 5  # 2 lines name fp4x2_e1m2_t (not modelled)


# ------------------------------------------------------------------ property: every pair, mode and form
def _cases():
    for chip in ("A2", "310B", "310P", "910", "950", "KirinX90"):
        for (src, dst), modes in cast_pairs(asc.get_chip(chip)).items():
            # int4b_t: tests/ascend/test_cast_int4.py; complex32/complex64: tests/ascend/test_complex.py;
            # hifloat8: tests/ascend/test_cast_hifloat8.py; float4_e2m1fn: tests/ascend/test_cast_fp4_950.py
            if modes != "deq" and not {src, dst} & {"int4", "complex32", "complex64", "hifloat8", "float4_e2m1fn"}:
                yield from ((chip, src, dst, R(mode)) for mode in sorted(modes))


CASES = list(_cases())
# SetCtrlSpr(ISASI).md CTRL[48]: the conversion targets that saturate at power-on (A2/A3 tables 4/5, 950 table 3)
SATURATING = {"A2": {"float16", "bfloat16"}, "950": {"float16", "bfloat16", "float8_e5m2", "float8_e4m3fn"}}


@settings(max_examples=150, deadline=None)
@given(case=st.sampled_from(CASES), data=st.data())
def test_every_lane_matches_the_reference(case, data):
    chip, src, dst = case[:3]
    mode = case[3]
    s, d = DTYPES[src], DTYPES[dst]
    count_only = chip == "950" and "float64" in (src, dst)
    wide = max(s.itemsize, d.itemsize)
    lanes = 256 // wide
    repeats = data.draw(st.integers(1, 3))
    specials = [0, 1, (1 << (8 * s.itemsize - 1)), (1 << (8 * s.itemsize)) - 1]
    if s.is_float:
        fmt = ref.FORMATS[src]
        top = ((1 << fmt[0]) - 1) << fmt[1]
        specials += [top, top | 1, top | (1 << (8 * s.itemsize - 1))]
    bits = data.draw(st.lists(st.one_of(st.integers(0, (1 << (8 * s.itemsize)) - 1), st.sampled_from(specials)),
                              min_size=repeats * lanes, max_size=repeats * lanes))
    saturate = data.draw(st.booleans()) if chip == "A2" else True
    form = "count" if count_only else data.draw(st.sampled_from(["count", "mask"]))
    dst_blk = data.draw(st.integers(1, 2))
    dst_rep, src_rep = lanes * d.itemsize // 32 * dst_blk, lanes * s.itemsize // 32
    with asc.Core(chip) as core:
        if not saturate:
            asc.set_saturation_flag(False)
        x = asc.LocalTensor(s, VECIN, 0, repeats * lanes)
        z = asc.LocalTensor(d, VECOUT, 8192, 2 * repeats * lanes)
        core.ub_write(0, np.array(bits, dtype=s.raw).tobytes())
        core.ub_write(8192, bytes(2 * repeats * lanes * d.itemsize))
        if form == "count":
            dst_blk, dst_rep = 1, lanes * d.itemsize // 32
            asc.cast(z, x, mode, repeats * lanes)
        else:
            asc.cast(z, x, mode, lanes, repeats, asc.UnaryRepeatParams(dst_blk, 1, dst_rep, src_rep))
        out = _ub(core, 8192, d, 2 * repeats * lanes)
    per_block = 32 // d.itemsize
    r, j = np.divmod(np.arange(repeats * lanes), lanes)
    at = r * dst_rep * per_block + (j // per_block) * dst_blk * per_block + j % per_block
    expected = np.zeros(2 * repeats * lanes, dtype=d.raw)
    saturate = saturate and dst in SATURATING.get(chip, ())
    expected[at] = [ref.cast(src, dst, b, int(mode), saturate) for b in bits]
    assert out.tobytes() == expected.tobytes()


# ------------------------------------------------------------------ the C API
def test_c_api_functions_are_cast_with_their_suffixs_mode():
    """asc_float2half_rz == cast(..., CAST_TRUNC) lane for lane; the count form leaves the mask (count, 0) in
    normal mode (set_mask_count, set_vector_mask(0, count), vconv, set_mask_norm)."""
    rng = np.random.default_rng(5)
    src = (rng.standard_normal(128) * 1000).astype(np.float32)
    results = {}
    for function, mode in (("asc_float2half_rz", R.CAST_TRUNC), ("asc_float2half_rna", R.CAST_ROUND),
                           ("asc_float2half_ro", R.CAST_ODD), ("asc_float2half", R.CAST_NONE)):
        with asc.Core("A2") as core:
            x = asc.LocalTensor(asc.float32, VECIN, 0, 128)
            z = asc.LocalTensor(asc.float16, VECOUT, 1024, 128)
            x.write(src)
            getattr(asc, function)(z, x, 100)
            results[function] = z.read(100).tobytes()
            assert (core.mask_mode, core.mask_words) == (asc.MaskMode.NORMAL, (100, 0, 0, 0))
            asc.cast(z, x, mode, 100)
            assert z.read(100).tobytes() == results[function]
    assert len(set(results.values())) >= 3  # ROUND and RINT differ only on ties


def test_c_api_repeat_form_runs_under_the_mask_register_and_sync_adds_a_barrier():
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.int16, VECIN, 0, 256)
        z = asc.LocalTensor(asc.float32, VECOUT, 1024, 256)
        x.write(np.arange(256))
        core.ub_write(1024, bytes(1024))
        asc.set_vector_mask(0, 0xFF)
        asc.asc_int162float(z, x, 2, 1, 1, 8, 4)
        expected = np.zeros(256, np.float32)
        expected[:8], expected[64:72] = np.arange(8), np.arange(64, 72)
        assert z.read().tobytes() == expected.tobytes()
        barriers = len(core.sync_log)
        asc.asc_int162float_sync(z, x, 256)
        assert len(core.sync_log) == barriers + 1 and z.read().tolist() == list(range(256))


def test_c_api_checks(a2):
    z, x = _pair(a2, "float32", "float16")
    assert_rejected(a2, UnsupportedError, lambda: asc.asc_half2float(z, x, 64), "float16", operand="dst dtype")
    assert_rejected(a2, ParameterRangeError, lambda: asc.asc_float2half_rn(z, x, 1, 1 << 16, 1, 4, 8),
                    operand="dst_block_stride")
    with asc.Core("310B") as core:
        z, x = _pair(core, "float32", "float16")
        assert_rejected(core, UnsupportedError, lambda: asc.asc_float2half(z, x, 64), "C API",
                        instruction="asc_float2half")


def test_every_c_api_page_function_is_registered_as_an_alias_of_cast():
    from npusim.engine.registry import instructions
    deq = {"asc_deq_int322half", "asc_deq_int322half_sync"}  # ops/dequant.py: Cast's plan through DEQSCALE
    aliases = {entry.name for entry in instructions("ascend") if entry.alias_of == "cast"} - deq
    int4 = 6 + 1  # asc_half2int4 (none, _rd, _rn, _rna, _ru, _rz), asc_int42half
    pages = 1 + 5 + 5 + 5 + 7 + 5 + 5 + 5 + 1 + 5 + 5 + 6 + 6 + 1 + 6 + 6 + 1 + 1 + 5 + 1 + 1 + 1 + int4
    assert len(aliases) == 2 * pages
    assert {"asc_float2half_ro_sync", "asc_half2uint8_rna", "asc_int642float_rz", "asc_uint82half"} <= aliases
