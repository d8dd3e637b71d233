"""The 950's fp4x2_e2m1_t (npusim's packed ``float4_e2m1fn``, docs/semantics.md §5.33): the type's 16 codes, host
access, and Cast's two lines fp4x2_e2m1_t -> bfloat16_t (CAST_NONE) and bfloat16_t -> fp4x2_e2m1_t (CAST_RINT,
FLOOR, CEIL, ROUND, TRUNC).

Expected values come from precision_conversion.md (its two e2m1 examples) and from ``fp4_reference`` (the codes
read from 内置数据类型.md's bit layout and formulas, rounding in exact fractions among the signed values); results
are compared as raw bytes.  Where the installed ml_dtypes has ``float4_e2m1fn`` (0.5 and later) its table is
compared too; the lower-bounds environment (ml_dtypes 0.3) tests against the reference alone.
"""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.dtypes import DTYPES
from npusim.engine.trace import ByteRange
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import fp4_reference as ref
from . import int4_reference as nib
from .conftest import assert_rejected
from .test_cast_int4 import int4_masks

R = asc.RoundMode
FP4 = asc.fp4x2_e2m1_t
BF16 = asc.bfloat16
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
MODES5 = (R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC)
MODE_NAMES = {R.CAST_RINT: "rint", R.CAST_FLOOR: "floor", R.CAST_CEIL: "ceil", R.CAST_ROUND: "round",
              R.CAST_TRUNC: "trunc"}
SRC, DST = 0, 0x4000  # UB byte addresses of the source and destination tensors
PRINTED_VALUES = [0, 0.5, 1, 1.5, 2, 3, 4, 6]  # 表5's range [-6, 6]; the formulas' eight magnitudes


def fresh_core(image: bytes | None = None) -> asc.Core:
    core = asc.Core("950")
    core.ub_write(0, image if image is not None else bytes(core.ub.size_bytes))
    return core


def bf16_bytes(bits: list[int]) -> bytes:
    return b"".join(b.to_bytes(2, "little") for b in bits)


def lane_result(src: str, code: int, mode: R) -> int:
    """One lane of either line by the reference."""
    return ref.to_bfloat16(code) if src == "fp4" else ref.from_bfloat16(code, MODE_NAMES[mode])


# ------------------------------------------------- the type
def test_the_sixteen_codes_are_the_pages_values():
    """Codes 0 .. 7 are 0 0.5 1 1.5 2 3 4 6 (Bias 1), 8 .. 15 their negatives; host writes store those codes and
    reads give the values back (the code table is the reference's, read from the bit strings)."""
    assert [float(ref.value_of(c)) for c in range(8)] == PRINTED_VALUES
    assert [float(ref.value_of(c)) for c in range(8, 16)] == [-v for v in PRINTED_VALUES]
    assert ref.MAX == 6
    assert FP4.decode(np.arange(16)).tolist() == [float(ref.value_of(c)) for c in range(16)]
    assert np.signbit(FP4.decode(np.array([8])))[0]
    values = [float(ref.value_of(c)) for c in range(16)]
    values[8] = -0.0
    with fresh_core() as core:
        x = asc.LocalTensor(FP4, VECIN, SRC, 16)
        x.write(values)
        assert core.ub_read(SRC, 8) == ref.packed(list(range(16)))
        assert x.read().view(np.uint32).tolist() == np.array(values, np.float32).view(np.uint32).tolist()


def test_the_type_is_a_packed_float():
    assert DTYPES["float4_e2m1fn"] is FP4
    assert FP4.is_float() and not FP4.is_int() and FP4.bits == 4 and FP4.per_byte == 2
    assert FP4.nbytes(6) == 3 and FP4.count_in(32) == 64
    with pytest.raises(UnsupportedError, match="no size in bytes"):
        FP4.sizeof()
    assert not hasattr(asc, "fp4x2_e1m2_t")  # stays rejected (§5.31): no element type for it


@pytest.mark.skipif(not hasattr(ml_dtypes, "float4_e2m1fn"),
                    reason="ml_dtypes < 0.5 has no float4_e2m1fn; the reference table is tested without it")
def test_the_codes_agree_with_ml_dtypes():
    """A third reading of the format: ml_dtypes' float4_e2m1fn (the same 16 values), and its round-to-nearest-even
    conversion of every finite bfloat16 value within ±6 equals CAST_RINT's."""
    theirs = np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float32)
    assert theirs.view(np.uint32).tolist() == FP4.decode(np.arange(16)).view(np.uint32).tolist()
    bits = np.arange(1 << 16, dtype=np.uint32)
    values = (bits << 16).view(np.float32)
    inside = np.isfinite(values) & (np.abs(values) <= 6)
    want = values[inside].astype(ml_dtypes.float4_e2m1fn).view(np.uint8) & 0xF
    with fresh_core() as core:
        x = asc.LocalTensor(BF16, VECIN, SRC, 1 << 16)
        z = asc.LocalTensor(FP4, VECOUT, 0x20000, 1 << 16)
        core.ub_write(SRC, bits.astype(np.uint16).tobytes())
        asc.cast(z, x, R.CAST_RINT, 1 << 16)
        got = np.frombuffer(core.ub_read(0x20000, 1 << 15), np.uint8)
        codes = np.stack([got & 0xF, got >> 4], axis=1).reshape(-1)
        assert codes[inside].tolist() == want.tolist()


# ------------------------------------------------- host access
@pytest.mark.parametrize("bad", [2.5, 7, 0.25, -5, float("nan"), float("inf"), -float("inf"),
                                 Fraction(1, 2) + Fraction(1, 2 ** 80)])  # (its nearest double is 0.5)
def test_host_writes_reject_a_value_the_type_does_not_hold(bad):
    """Host writes are exact (rounding is cast's): any other value, NaN and ±infinity included (the type has
    neither), a Fraction whose nearest double it holds too, is rejected and nothing is written."""
    with fresh_core() as core:
        x = asc.LocalTensor(FP4, VECIN, SRC, 16)
        assert_rejected(core, ParameterRangeError, lambda: x.write([1.0, bad]), "holds no such value",
                        operand="values")
        with pytest.raises(ParameterRangeError) as error:
            x.write([bad, 1.0])
        assert "±0, ±0.5, ±1, ±1.5, ±2, ±3, ±4, ±6" in str(error.value)  # the type's values, and where they are
        assert "浮点数 (fp4x2_e2m1_t, 表5); docs/semantics.md §5.33" in str(error.value)


def test_host_access_rules():
    """An even number of values (whole bytes), at most the tensor's; scalar access rejected as for int4b_t; views
    count 4-bit values; to_file writes the packed bytes; GM takes no packed type."""
    with fresh_core() as core:
        x = asc.LocalTensor(FP4, VECIN, SRC, 8)
        assert_rejected(core, ParameterRangeError, lambda: x.write([1.0, 2.0, 3.0]), "a byte",
                        operand="values length")
        assert_rejected(core, OutOfBoundsError, lambda: x.write([0.5] * 10), "more elements")
        assert_rejected(core, UnsupportedError, lambda: x.get_value(0), "scalar access")
        assert_rejected(core, UnsupportedError, lambda: x.set_value(0, 1.0), "scalar access")
        x.write([6, -6, 0.5, -0.5, 1, 3, -4, 0])
        assert core.ub_read(SRC, 4) == bytes([0xF7, 0x91, 0x52, 0x0E])
        assert x[2:].read().tolist() == [0.5, -0.5, 1, 3, -4, 0]
        assert x.reinterpret_cast(asc.uint8).read().tolist() == [0xF7, 0x91, 0x52, 0x0E]
        assert asc.LocalTensor(asc.uint8, VECIN, SRC, 4).reinterpret_cast(FP4).tile_size == 8
        assert_rejected(core, ParameterRangeError, lambda: x[1:], "byte boundary")
    with pytest.raises(UnsupportedError, match="whole-byte"):
        asc.gm_alloc(FP4, 64)


def test_to_file_writes_the_packed_bytes(tmp_path):
    with fresh_core():
        x = asc.LocalTensor(FP4, VECIN, SRC, 4)
        x.write([1.5, -3, 4, -0.0])
        x.to_file(str(tmp_path / "x.bin"))
    assert (tmp_path / "x.bin").read_bytes() == bytes([0xD3, 0x86])


def test_other_instructions_reject_the_type():
    """Only Cast's two lines take it: an element-wise instruction names the packed element."""
    with fresh_core() as core:
        x, y = asc.LocalTensor(FP4, VECIN, SRC, 256), asc.LocalTensor(FP4, VECOUT, DST, 256)
        assert_rejected(core, UnsupportedError, lambda: asc.add(y, x, x, 256), "4-bit elements")
        assert_rejected(core, UnsupportedError, lambda: asc.duplicate(y, 1.0, 256), "4-bit elements")


# ------------------------------------------------- precision_conversion.md's examples
def test_precision_conversion_fp4_to_bfloat16():
    """fp4x2_e2m1_t -> bfloat16_t: 2 gives 2 (无精度损失)."""
    with fresh_core() as core:
        x, z = asc.LocalTensor(FP4, VECIN, SRC, 2), asc.LocalTensor(BF16, VECOUT, DST, 2)
        x.write([2, 2])
        asc.cast(z, x, R.CAST_NONE, 2)
        assert core.ub_read(DST, 4) == bf16_bytes([0x4000, 0x4000])


@pytest.mark.parametrize(("mode", "printed"), list(zip(MODES5, (2, 2, 3, 3, 2), strict=True)), ids=lambda v: str(v))
def test_precision_conversion_bfloat16_to_fp4(mode, printed):
    """bfloat16_t -> fp4x2_e2m1_t: 2.5 gives 2 / 2 / 3 / 3 / 2 in RINT / FLOOR / CEIL / ROUND / TRUNC."""
    code = {2: 0x4, 3: 0x5}[printed]
    with fresh_core() as core:
        x, z = asc.LocalTensor(BF16, VECIN, SRC, 2), asc.LocalTensor(FP4, VECOUT, DST, 2)
        core.ub_write(SRC, bf16_bytes([0x4020, 0x4020]))  # 2.5
        asc.cast(z, x, mode, 2)
        assert core.ub_read(DST, 1) == bytes([code | code << 4])
        assert z.read().tolist() == [printed, printed]


# ------------------------------------------------- every source pattern
def test_every_fp4_byte_to_bfloat16():
    """All 256 bytes (every code in both nibbles): each lane exactly its value, -0 as 0x8000, low nibble first."""
    codes = [c for byte in range(256) for c in (byte & 0xF, byte >> 4)]
    with fresh_core() as core:
        x, z = asc.LocalTensor(FP4, VECIN, SRC, 512), asc.LocalTensor(BF16, VECOUT, DST, 512)
        core.ub_write(SRC, bytes(range(256)))
        asc.cast(z, x, R.CAST_NONE, 512)
        assert core.ub_read(DST, 1024) == bf16_bytes([ref.to_bfloat16(c) for c in codes])


@pytest.mark.parametrize("mode", MODES5, ids=lambda m: m.name)
def test_every_bfloat16_pattern_to_fp4(mode):
    """All 65536 bfloat16 bit patterns in each mode: rounded onto the 16 values, beyond ±6 and ±infinity ±6, NaN
    0, a zero result signed as its source."""
    codes = [ref.from_bfloat16(bits, MODE_NAMES[mode]) for bits in range(1 << 16)]
    with fresh_core() as core:
        x, z = asc.LocalTensor(BF16, VECIN, SRC, 1 << 16), asc.LocalTensor(FP4, VECOUT, 0x20000, 1 << 16)
        core.ub_write(SRC, bf16_bytes(list(range(1 << 16))))
        asc.cast(z, x, mode, 1 << 16)
        assert core.ub_read(0x20000, 1 << 15) == ref.packed(codes)


def test_saturation_nan_and_signed_zeros():
    """Reg Cast.md 约束说明: inf or beyond the range gives the signed largest value, NaN gives 0 — whatever the
    saturation switch says (the line reads no CTRL bit)."""
    values = [7, -7, 100, -np.inf, np.inf, np.nan, -np.nan, 6, -6, 5, -0.2, -0.0, 0.2, 0.25]
    with fresh_core() as core:
        x, z = asc.LocalTensor(BF16, VECIN, SRC, 14), asc.LocalTensor(FP4, VECOUT, DST, 14)
        x.write(np.array(values, np.float32).astype(BF16.np_dtype))
        for saturation in (True, False):
            core.float_saturation = saturation
            asc.cast(z, x, R.CAST_RINT, 14)
            got = z.read()
            assert got.tolist() == [6, -6, 6, -6, 6, 0, 0, 6, -6, 4, -0.0, -0.0, 0, 0]
            assert np.signbit(got).tolist() == [False, True, False, True, False, False, False, False, True, False,
                                                True, True, False, False]


# ------------------------------------------------- the repeat geometry, against the reference
LINES = {("fp4", "bfloat16"): (R.CAST_NONE,), ("bfloat16", "fp4"): MODES5}
BF16_SPECIALS = [0x0000, 0x8000, 0x0001, 0x8001, 0x3E80, 0xBE80, 0x3F00, 0x4020, 0xC020, 0x40A0, 0xC0A0, 0x40C0,
                 0xC0C0, 0x40D0, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81]


def _lane_code(draw, name: str) -> int:
    if name == "bfloat16":
        return draw(st.one_of(st.integers(0, 0xFFFF), st.sampled_from(BF16_SPECIALS),
                              st.integers(0x3E00, 0x40E0), st.integers(0xBE00, 0xC0E0)))  # around the 16 values
    return draw(st.integers(0, 15))


def _put(memory: bytearray, name: str, lane: int, repeat: int, blk: int, rep: int, code: int) -> None:
    """Store one lane of a repeat at its strided address (bfloat16: 16 lanes a block; fp4: 64)."""
    if name == "fp4":
        nib.set_nibble(memory, *nib.nibble_address(lane, repeat, 128, blk, rep), code)
    else:
        at = repeat * rep * 32 + (lane // 16) * blk * 32 + (lane % 16) * 2
        memory[at:at + 2] = code.to_bytes(2, "little")


def _mask_lanes(mask, lanes: int) -> list[bool]:
    if isinstance(mask, int):
        return [j < mask for j in range(lanes)]
    return [bool(mask[j // 64] >> (j % 64) & 1) for j in range(lanes)]


def _words(mask) -> tuple[int, int]:
    if isinstance(mask, int):
        return (1 << min(mask, 64)) - 1, (1 << max(mask - 64, 0)) - 1
    return mask[0], mask[1]


@settings(max_examples=80, deadline=None)
@given(data=st.data(), pair=st.sampled_from(sorted(LINES)),
       form=st.sampled_from(["count", "mask", "register", "counter"]))
def test_every_lane_matches_the_reference(data, pair, form):
    """Random lanes (around the 16 values and the specials), both lines and every mode, the count form and the
    mask forms (argument, register, counter mode) with strides: every dst byte, the untouched ones too, and the
    source unchanged."""
    src, dst = pair
    mode = data.draw(st.sampled_from(LINES[pair]))
    repeats = data.draw(st.integers(1, 3))
    span = {"fp4": 2, "bfloat16": 8}  # blocks a 128-lane repeat covers
    blk = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2)))
    rep = (span[dst] * blk[0] + data.draw(st.integers(0, 2)), span[src] * blk[1])
    sources = [_lane_code(data.draw, src) for _ in range(128 * repeats)]
    mask, count = 128, 128 * repeats
    if form == "count":
        count = 2 * data.draw(st.integers(1, 64 * repeats))
        blk, rep = (1, 1), (span[dst], span[src])
    elif form == "counter":
        count = 2 * data.draw(st.integers(1, 64 * repeats))
    else:
        mask = data.draw(int4_masks())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    image = bytearray(rng.integers(0, 256, 0x8000, dtype=np.uint8).tobytes())
    src_mem = bytearray(0x4000)
    for k, code in enumerate(sources):
        _put(src_mem, src, k % 128, k // 128, blk[1], rep[1], code)
    image[SRC:SRC + 0x4000] = src_mem
    want = bytearray(image[DST:DST + 0x4000])
    active = _mask_lanes(mask, 128)
    for k, code in enumerate(sources):
        if (form in ("count", "counter") and k >= count) or (form in ("mask", "register") and not active[k % 128]):
            continue
        _put(want, dst, k % 128, k // 128, blk[0], rep[0], lane_result(src, code, mode))
    types = {"fp4": FP4, "bfloat16": BF16}
    with fresh_core(bytes(image)) as core:
        x, z = asc.LocalTensor(types[src], VECIN, SRC, 2048), asc.LocalTensor(types[dst], VECOUT, DST, 2048)
        params = asc.UnaryRepeatParams(blk[0], blk[1], rep[0], rep[1])
        if form == "count":
            asc.cast(z, x, mode, count)
        elif form == "mask":
            asc.cast(z, x, mode, mask, repeats, params)
        elif form == "counter":
            asc.set_mask_count()
            asc.cast(z, x, mode, count, 1, params)  # the count decides the repeats, not repeat_times
        else:
            core.set_mask_words(*_words(mask))
            asc.cast(z, x, mode, 0, repeats, params, False)
        assert core.ub_read(DST, 0x4000) == bytes(want)
        assert core.ub_read(SRC, 0x4000) == bytes(src_mem)


# ------------------------------------------------- the constraints
def _operands():
    return (asc.LocalTensor(BF16, VECIN, SRC, 512), asc.LocalTensor(FP4, VECOUT, DST, 512),
            asc.LocalTensor(asc.float16, VECOUT, 0x6000, 512))


def test_rounding_modes_and_pairs_of_the_table():
    """bfloat16_t -> fp4x2_e2m1_t takes the five modes, not CAST_NONE; fp4x2_e2m1_t -> bfloat16_t only CAST_NONE;
    half and int4b_t are no partners of fp4x2_e2m1_t."""
    with fresh_core() as core:
        b, f, h = _operands()
        assert_rejected(core, UnsupportedError, lambda: asc.cast(f, b, R.CAST_NONE, 64), "takes other rounding modes",
                        "CAST_TRUNC", operand="round_mode")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(f, b, R.CAST_ODD, 64), "takes other rounding modes")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(b, f, R.CAST_RINT, 64), "takes other rounding modes")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(f, h, R.CAST_RINT, 64), "does not convert this pair")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(h, f, R.CAST_NONE, 64), "does not convert this pair")
        q = asc.LocalTensor(asc.int4b_t, VECIN, 0x8000, 512)
        assert_rejected(core, UnsupportedError, lambda: asc.cast(f, q, R.CAST_NONE, 64), "does not convert this pair")


@pytest.mark.parametrize("chip", ["A2", "A3", "310B", "310P", "910", "KirinX90", "Kirin9030"])
def test_other_products_reject_the_lines(chip):
    """Only the 950's table lists fp4x2_e2m1_t (Cast.md 数据类型)."""
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(0x8000))
        b, f, _ = _operands()
        assert_rejected(core, UnsupportedError, lambda: asc.cast(f, b, R.CAST_RINT, 64), "Cast.md")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(b, f, R.CAST_NONE, 64), "Cast.md")


@pytest.mark.parametrize("count", [1, 3, 127, 255])
def test_odd_counts_are_rejected(count):
    with fresh_core() as core:
        b, f, _ = _operands()
        for d, s, m in ((f, b, R.CAST_RINT), (b, f, R.CAST_NONE)):
            assert_rejected(core, ParameterRangeError, lambda d=d, s=s, m=m: asc.cast(d, s, m, count),
                            "must be even", operand="count")


def test_masks_that_split_a_byte_are_rejected():
    with fresh_core() as core:
        b, f, _ = _operands()
        assert_rejected(core, ParameterRangeError,
                        lambda: asc.cast(f, b, R.CAST_RINT, 7, 1, asc.UnaryRepeatParams(1, 1, 2, 8)),
                        "must be even", operand="mask")
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(b, f, R.CAST_NONE, [0b10, 0], 1,
                                                                    asc.UnaryRepeatParams(1, 1, 8, 2)),
                        "are split", operand="mask")
        core.set_mask_words(0b0110, 0)
        assert_rejected(core, ParameterRangeError,
                        lambda: asc.cast(f, b, R.CAST_RINT, 0, 1, asc.UnaryRepeatParams(1, 1, 2, 8), False),
                        "are split", operand="vector mask register")


def test_zero_count_out_of_bounds_and_overlap():
    """count = 0 is not guaranteed a NOP on the 950; the extent and overlap rules hold for the packed operand."""
    with fresh_core() as core:
        b, f, _ = _operands()
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(f, b, R.CAST_RINT, 0), "NOP", operand="count")
        assert_rejected(core, OutOfBoundsError, lambda: asc.cast(f, b, R.CAST_RINT, 514))
        over = asc.LocalTensor(FP4, VECOUT, SRC + 64, 512)
        assert_rejected(core, OverlapError, lambda: asc.cast(over, b, R.CAST_RINT, 256))


def test_the_access_record_of_a_packed_call():
    """bfloat16 -> fp4, 300 lanes: 600 bytes read, 150 written."""
    with asc.Core("950", trace=True) as core:
        core.ub_write(0, bytes(core.ub.size_bytes))
        b, f, _ = _operands()
        asc.cast(f, b, R.CAST_FLOOR, 300)
        assert core.trace[-1].reads == (ByteRange("UB", SRC, SRC + 600),)
        assert core.trace[-1].writes == (ByteRange("UB", DST, DST + 150),)
        asc.cast(b, f, R.CAST_NONE, 128, 1, asc.UnaryRepeatParams(1, 3, 8, 2))
        assert core.trace[-1].reads == (ByteRange("UB", DST, DST + 32), ByteRange("UB", DST + 96, DST + 128))
