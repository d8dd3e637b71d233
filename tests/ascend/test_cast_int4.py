"""Cast with int4b_t and asc_half2int4 / asc_int42half: the documents' examples, every code and half special
value in every RoundMode, the packing and repeat geometry against a per-element reference, the constraints of
Cast.md 约束说明 (even counts, masks of whole bytes), the products, and LocalTensor's host access (§5.23).

Expected values come from precision_conversion.md, or from ``cast_reference`` (one lane) and
``int4_reference`` (where the lanes lie); results are compared as raw bytes.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.dtypes import DTYPES, PackedDType
from npusim.engine.trace import ByteRange
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import cast_reference as ref
from . import int4_reference as nib
from .conftest import assert_rejected

R = asc.RoundMode
I4, F16 = asc.int4b_t, asc.float16
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
MODES5 = (R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC)
A2_MODES = (*MODES5, R.CAST_NONE)  # Cast.md 数据类型, A2/A3: half -> int4b_t
SUFFIX = {"": R.CAST_NONE, "_rn": R.CAST_RINT, "_rd": R.CAST_FLOOR, "_rna": R.CAST_ROUND, "_ru": R.CAST_CEIL,
          "_rz": R.CAST_TRUNC}  # asc_half2int4.md 函数原型
SRC, DST = 0, 0x4000  # UB byte addresses of the source and destination tensors


def half_bits(values) -> list[int]:
    return np.array(values, dtype=np.float16).view(np.uint16).tolist()


def fresh_core(chip: str, image: bytes | None = None) -> asc.Core:
    core = asc.Core(chip)
    core.ub_write(0, image if image is not None else bytes(core.ub.size_bytes))
    return core


def half_to_int4(chip: str, bits: list[int], mode: R, dst: int = DST) -> bytes:
    """``cast`` count form of the half lanes ``bits``: the packed result bytes."""
    with fresh_core(chip) as core:
        x = asc.LocalTensor(F16, VECIN, SRC, len(bits))
        z = asc.LocalTensor(I4, VECOUT, dst, len(bits))
        core.ub_write(SRC, np.array(bits, dtype="<u2").tobytes())
        asc.cast(z, x, mode, len(bits))
        return core.ub_read(dst, len(bits) // 2)


def expected_int4(bits: list[int], mode: R) -> bytes:
    return nib.packed([nib.value_of(ref.cast("float16", "int4", b, int(mode), True)) for b in bits])


# ------------------------------------------------- precision_conversion.md's examples
@pytest.mark.parametrize(("mode", "printed"), list(zip(MODES5, (2, 1, 2, 2, 1), strict=True)), ids=lambda v: str(v))
def test_precision_conversion_half_to_int4(mode, printed):
    """half -> int4b_t: 1.5 gives 2 / 1 / 2 / 2 / 1 in RINT / FLOOR / CEIL / ROUND / TRUNC (A2)."""
    out = half_to_int4("A2", half_bits([1.5, 1.5]), mode)
    assert out == bytes([printed | printed << 4])


def test_precision_conversion_int4_to_half():
    """int4b_t -> half: 1 gives 1.0 (A2), exactly."""
    with fresh_core("A2") as core:
        x = asc.LocalTensor(I4, VECIN, SRC, 2)
        z = asc.LocalTensor(F16, VECOUT, DST, 2)
        x.write([1, 1])
        asc.cast(z, x, R.CAST_NONE, 2)
        assert core.ub_read(DST, 4) == np.array([1.0, 1.0], np.float16).tobytes()


# ------------------------------------------------- every code, every special value
def test_every_int4_code_to_half():
    """The 16 codes, each in the low and the high nibble, count form and C API: -8 ... 7 exactly."""
    codes = [lo | hi << 4 for lo in range(16) for hi in range(16)]  # every byte: every code in both halves
    expected = np.array([ref.cast("int4", "float16", c, 0, True) for b in codes for c in (b & 0xF, b >> 4)],
                        "<u2").tobytes()
    for call in (lambda z, x: asc.cast(z, x, R.CAST_NONE, 512), lambda z, x: asc.asc_int42half(z, x, 512),
                 lambda z, x: asc.asc_int42half_sync(z, x, 512)):
        with fresh_core("A2") as core:
            core.ub_write(SRC, bytes(codes))
            call(asc.LocalTensor(F16, VECOUT, DST, 512), asc.LocalTensor(I4, VECIN, SRC, 512))
            assert core.ub_read(DST, 1024) == expected


HALF_SPECIALS = sorted({0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x83FF, 0x0400, 0x3800, 0xB800, 0x3C00, 0xBC00,
                        0x3E00, 0xBE00, 0x4700, 0xC700, 0x4780, 0xC780, 0x4800, 0xC800, 0x4840, 0xC840, 0x4880,
                        0xC880, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0xFC01, 0x7E00, 0xFE00, 0x7FFF, 0xFFFF}
                       | set(half_bits(np.arange(-9.5, 9.0, 0.25))))


@pytest.mark.parametrize("mode", A2_MODES, ids=lambda m: m.name)
def test_every_half_special_value_to_int4(mode):
    """Zeros, subnormals, ±0.5, the halves around ±7.5 and ±8.5, ±MAX, ±inf, NaNs and every quarter in
    [-9.5, 9]: rounded by the mode, saturated to [-8, 7], NaN -> 0 (docs/numerics.md)."""
    bits = HALF_SPECIALS + HALF_SPECIALS[:1] * (len(HALF_SPECIALS) % 2)
    assert half_to_int4("A2", bits, mode) == expected_int4(bits, mode)


@pytest.mark.parametrize("mode", A2_MODES, ids=lambda m: m.name)
def test_every_half_value_to_int4(mode):
    """All 65536 half bit patterns, one count-form call (512 repeats' worth): each byte as the reference says."""
    bits = list(range(1 << 16))
    assert half_to_int4("A2", bits, mode, dst=0x20000) == expected_int4(bits, mode)  # after 128 KiB of half


def test_saturation_and_nan_in_words():
    with fresh_core("A2"):
        x = asc.LocalTensor(F16, VECIN, SRC, 8)
        z = asc.LocalTensor(I4, VECOUT, DST, 8)
        x.write([7.5, -8.5, 100, -np.inf, np.inf, np.nan, 7.4, -8.4])
        asc.cast(z, x, R.CAST_RINT, 8)
        assert z.read().tolist() == [7, -8, 7, -8, 7, 0, 7, -8]


# ------------------------------------------------- the repeat geometry, against the reference
def _mask_lanes(mask, lanes: int) -> list[bool]:
    if isinstance(mask, int):
        return [j < mask for j in range(lanes)]
    return [bool(mask[j // 64] >> (j % 64) & 1) for j in range(lanes)]


@st.composite
def int4_masks(draw):
    """A Cast mask argument whose active lanes are whole bytes: an even length, or paired bits."""
    if draw(st.booleans()):
        return 2 * draw(st.integers(1, 64))
    pairs = [draw(st.integers(0, (1 << 32) - 1)) for _ in range(2)]
    words = [sum(((p >> i) & 1) * 3 << (2 * i) for i in range(32)) for p in pairs]
    return words if any(words) else [3, 0]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), half_to_int=st.booleans(), form=st.sampled_from(["count", "mask", "c_api"]))
def test_every_lane_matches_the_reference(data, half_to_int, form):
    """Random lanes (specials included), every form and mode, strided, on the A2 (and the 310P's half -> int4b_t
    CAST_NONE in Cast's forms): every dst byte, the untouched ones too."""
    repeats = data.draw(st.integers(1, 3))
    blk = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2)))  # (dst, src) block strides
    src_type, dst_type = ("float16", "int4") if half_to_int else ("int4", "float16")
    chip = data.draw(st.sampled_from(["A2", "310P"])) if half_to_int and form != "c_api" else "A2"
    modes = {"A2": A2_MODES if half_to_int else (R.CAST_NONE,), "310P": (R.CAST_NONE,)}[chip]
    mode = data.draw(st.sampled_from(modes))
    suffix = {m: s for s, m in SUFFIX.items()}[mode] if half_to_int else ""
    if half_to_int:
        sources = data.draw(st.lists(st.one_of(st.integers(0, 0xFFFF), st.sampled_from(HALF_SPECIALS)),
                                     min_size=128 * repeats, max_size=128 * repeats))
    else:
        sources = data.draw(st.lists(st.integers(0, 15), min_size=128 * repeats, max_size=128 * repeats))
    # each operand's repeat stride: one repeat's blocks times its block stride, or more
    span = {"float16": 8, "int4": 2}
    rep = (span[dst_type] * blk[0] + data.draw(st.integers(0, 2)), span[src_type] * blk[1])
    mask, count = 128, 128 * repeats
    if form == "count":
        count = 2 * data.draw(st.integers(1, 64 * repeats))
        blk, rep = (1, 1), (span[dst_type], span[src_type])
    elif form == "mask":
        mask = data.draw(int4_masks())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    image = bytearray(rng.integers(0, 256, 0x8000, dtype=np.uint8).tobytes())
    src_mem = bytearray(0x4000)
    for k, value in enumerate(sources):
        r, j = divmod(k, 128)
        if half_to_int:
            at = r * rep[1] * 32 + (j // 16) * blk[1] * 32 + (j % 16) * 2
            src_mem[at:at + 2] = value.to_bytes(2, "little")
        else:
            nib.set_nibble(src_mem, *nib.nibble_address(j, r, 128, blk[1], rep[1]), value)
    image[SRC:SRC + 0x4000] = src_mem
    expected = bytearray(image[DST:DST + 0x4000])
    active = _mask_lanes(mask, 128)
    for k, value in enumerate(sources):
        r, j = divmod(k, 128)
        if (form == "count" and k >= count) or (form != "count" and not active[j]):
            continue
        out = ref.cast(src_type, dst_type, value, int(mode), True)
        if half_to_int:
            nib.set_nibble(expected, *nib.nibble_address(j, r, 128, blk[0], rep[0]), out)
        else:
            at = r * rep[0] * 32 + (j // 16) * blk[0] * 32 + (j % 16) * 2
            expected[at:at + 2] = out.to_bytes(2, "little")
    with fresh_core(chip, bytes(image)) as core:
        s = DTYPES[src_type] if src_type != "int4" else I4
        d = DTYPES[dst_type] if dst_type != "int4" else I4
        x, z = asc.LocalTensor(s, VECIN, SRC, 2048), asc.LocalTensor(d, VECOUT, DST, 2048)
        if form == "count":
            asc.cast(z, x, mode, count)
        elif form == "mask":
            asc.cast(z, x, mode, mask, repeats, asc.UnaryRepeatParams(blk[0], blk[1], rep[0], rep[1]))
        else:
            core.set_mask_words(*([(1 << 64) - 1] * 2))
            function = getattr(asc, f"asc_half2int4{suffix}" if half_to_int else "asc_int42half")
            function(z, x, repeats, blk[0], blk[1], rep[0], rep[1])
        assert core.ub_read(DST, 0x4000) == bytes(expected)
        assert core.ub_read(SRC, 0x4000) == bytes(src_mem)


def test_the_cast_page_int4_example():
    """Cast.md 调用示例 (int4b_t): half -> int4b_t, mask 128, 1 repeat, {1, 1, 2, 8}, CAST_CEIL: 128 lanes into
    64 contiguous bytes, nothing after them written."""
    values = [(k - 64) / 7 for k in range(128)]
    with fresh_core("A2") as core:
        core.ub_write(DST, b"\xa5" * 128)
        src = asc.LocalTensor(F16, VECIN, SRC, 128)
        dst = asc.LocalTensor(asc.int8, VECOUT, DST, 64).reinterpret_cast(I4)
        src.write(np.array(values, np.float16))
        asc.cast(dst, src, R.CAST_CEIL, 128, 1, asc.UnaryRepeatParams(1, 1, 2, 8))
        assert dst.get_size() == 128
        assert core.ub_read(DST, 128) == expected_int4(half_bits(values), R.CAST_CEIL) + b"\xa5" * 64


@pytest.mark.parametrize("suffix", list(SUFFIX))
def test_c_api_half2int4_is_cast_with_its_suffixs_mode(suffix):
    """asc_half2int4<suffix>[_sync](dst, src, count) == cast(..., mode, count), bytes and mask register."""
    bits = half_bits(np.linspace(-9, 9, 256))
    results = []
    for call in (lambda z, x: asc.cast(z, x, SUFFIX[suffix], 256),
                 lambda z, x: getattr(asc, f"asc_half2int4{suffix}")(z, x, 256),
                 lambda z, x: getattr(asc, f"asc_half2int4{suffix}_sync")(z, x, 256)):
        with fresh_core("A2") as core:
            core.ub_write(SRC, np.array(bits, "<u2").tobytes())
            call(asc.LocalTensor(I4, VECOUT, DST, 256), asc.LocalTensor(F16, VECIN, SRC, 256))
            results.append(core.ub_read(DST, 128))
            if len(results) > 1:  # the C API's count form leaves (count, 0) in normal mode
                assert core.mask_words[:2] == (256, 0) and core.mask_mode == asc.MaskMode.NORMAL
    assert results[0] == results[1] == results[2] == expected_int4(bits, SUFFIX[suffix])


def test_the_c_api_page_examples_run():
    """asc_half2int4.md: 256 lanes, dst right after src; asc_int42half.md: 128 lanes, dst 64 bytes after src."""
    with fresh_core("A2") as core:
        src = asc.LocalTensor(F16, VECIN, 0, 256)
        src.write(np.full(256, -3.0, np.float16))
        dst = asc.LocalTensor(I4, VECOUT, 256 * 2, 256)
        asc.asc_half2int4(dst, src, 256)
        assert core.ub_read(512, 128) == b"\xdd" * 128  # -3 is code 0xD in both nibbles
        back = asc.LocalTensor(F16, VECOUT, 512 + 64, 128)
        asc.asc_int42half(back, asc.LocalTensor(I4, VECIN, 512, 128), 128)
        assert back.read().tolist() == [-3.0] * 128


# ------------------------------------------------- constraints
def _operands(core):
    return (asc.LocalTensor(F16, VECIN, SRC, 512), asc.LocalTensor(I4, VECOUT, DST, 512),
            asc.LocalTensor(F16, VECOUT, DST + 0x1000, 512))


@settings(max_examples=30, deadline=None)
@given(count=st.integers(0, 255).map(lambda n: 2 * n + 1))
def test_odd_counts_are_rejected(count):
    with fresh_core("A2") as core:
        x, z, y = _operands(core)
        for call in (lambda: asc.cast(z, x, R.CAST_RINT, count), lambda: asc.cast(y, z, R.CAST_NONE, count),
                     lambda: asc.asc_half2int4_rz(z, x, count), lambda: asc.asc_half2int4_sync(z, x, count),
                     lambda: asc.asc_int42half(y, z, count), lambda: asc.asc_int42half_sync(y, z, count)):
            assert_rejected(core, ParameterRangeError, call, "count must be even", "约束说明",
                            "§5.23", operand="count", value=count)


@settings(max_examples=30, deadline=None)
@given(mask=st.integers(0, 127).map(lambda n: 2 * n + 1), words=st.lists(st.integers(0, 2**64 - 1), min_size=2,
                                                                             max_size=2))
def test_masks_that_split_a_byte_are_rejected(mask, words):
    """A contiguous mask must be even (one above 128, clamped to the 128 lanes, too); a bitwise mask's bits 2i
    and 2i+1 equal; the register's too."""
    with fresh_core("A2") as core:
        x, z, y = _operands(core)
        params = asc.UnaryRepeatParams(1, 1, 2, 8)
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_CEIL, mask, 1, params),
                        "a contiguous mask must be even", operand="mask", value=mask)
        pairs_equal = all((w >> (2 * i) & 1) == (w >> (2 * i + 1) & 1) for w in words for i in range(32))
        if not pairs_equal:
            assert_rejected(core, ParameterRangeError, lambda: asc.cast(y, z, R.CAST_NONE, words, 1,
                                                                        asc.UnaryRepeatParams(1, 1, 8, 2)),
                            "are split", operand="mask")
            core.set_mask_words(*words)
            assert_rejected(core, ParameterRangeError, lambda: asc.asc_int42half(y, z, 1, 1, 1, 8, 2),
                            "are split", operand="vector mask register")
            assert_rejected(core, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_NONE, 0, 1, params, False),
                            "are split", operand="vector mask register")


def test_other_constraints():
    with fresh_core("A2") as core:
        x, z, y = _operands(core)
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_ODD, 64), "takes other rounding modes")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(y, z, R.CAST_RINT, 64), "takes other rounding modes")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, z, R.CAST_NONE, 64), "does not convert this pair")
        assert_rejected(core, UnsupportedError, lambda: asc.asc_half2int4(y, x, 64), "takes a int4 dst")
        # repeat strides: uint16_t for asc_half2int4, uint8_t for asc_int42half (函数原型)
        core.set_mask_words(*([(1 << 64) - 1] * 2))
        asc.asc_half2int4(z, x, 1, 1, 1, 256, 8)
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_int42half(y, z, 1, 1, 1, 256, 2),
                        "uint8_t", operand="dst_repeat_stride")
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_int42half(y, z, 1, 1, 1, 8, 256),
                        "uint8_t", operand="src_repeat_stride")
        # a half source partly under the int4 destination (the general overlap rule)
        over = asc.LocalTensor(I4, VECOUT, SRC + 64, 512)
        assert_rejected(core, OverlapError, lambda: asc.cast(over, x, R.CAST_RINT, 256))
        # past the tensor: 512 int4 lanes are 256 bytes
        short = asc.LocalTensor(I4, VECOUT, DST, 256)
        assert_rejected(core, OutOfBoundsError, lambda: asc.cast(short, x, R.CAST_RINT, 258))
        # no other instruction takes int4b_t
        assert_rejected(core, UnsupportedError, lambda: asc.adds(z, z, 1, 64), "4-bit elements", "§5.23")
        assert_rejected(core, UnsupportedError, lambda: asc.add_relu_cast(z, x, x, 64), "4-bit elements")


@pytest.mark.parametrize(("chip", "pairs"), [("A3", {("float16", "int4"), ("int4", "float16")}),
                                             ("310P", {("float16", "int4")}), ("310B", set()), ("910", set()),
                                             ("950", {("int4", "float16")}), ("KirinX90", set())])
def test_products(chip, pairs):
    """Cast.md 数据类型 per product: half -> int4b_t (A2/A3: six modes; 310P: CAST_NONE; 950: five, not CAST_NONE),
    int4b_t -> half (A2/A3, 950; the 950's other lines: test_cast_int4_950.py); the C API is the A2/A3's."""
    with fresh_core(chip) as core:
        x, z, y = _operands(core)
        x.write(np.full(512, 2.5, np.float16))
        for (src, dst) in (("float16", "int4"), ("int4", "float16")):
            d, s = (z, x) if dst == "int4" else (y, z)
            if (src, dst) in pairs:
                asc.cast(d, s, R.CAST_NONE, 64)
            else:
                message = "takes other rounding modes" if chip == "950" else "does not convert this pair"
                assert_rejected(core, UnsupportedError, lambda d=d, s=s: asc.cast(d, s, R.CAST_NONE, 64), message)
        if chip == "310P":
            assert z.read(4).tolist() == [2, 2, 2, 2]  # CAST_NONE rounds as RINT: 2.5 -> 2
            assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_RINT, 64), "CAST_NONE")
        if chip != "A3":
            assert_rejected(core, UnsupportedError, lambda: asc.asc_half2int4(z, x, 64))


def test_the_access_record_of_a_packed_call():
    """half -> int4b_t, 300 lanes: 600 bytes read, 150 written; int4b_t -> half strided: the bytes of each block."""
    with asc.Core("A2", trace=True) as core:
        core.ub_write(0, bytes(core.ub.size_bytes))
        x, z, y = _operands(core)
        asc.cast(z, x, R.CAST_RINT, 300)
        assert core.trace[-1].reads == (ByteRange("UB", SRC, SRC + 600),)
        assert core.trace[-1].writes == (ByteRange("UB", DST, DST + 150),)
        asc.cast(y, z, R.CAST_NONE, 128, 1, asc.UnaryRepeatParams(1, 3, 8, 2))
        assert core.trace[-1].reads == (ByteRange("UB", DST, DST + 32), ByteRange("UB", DST + 96, DST + 128))


# ------------------------------------------------- the dtype and LocalTensor
def test_the_packed_dtype_has_no_byte_size():
    assert isinstance(I4, PackedDType) and I4 is DTYPES["int4"] and I4.bits == 4 and I4.is_signed
    for what in ("itemsize", "np_dtype", "raw"):
        with pytest.raises(UnsupportedError, match="share a byte"):
            getattr(I4, what)
    with pytest.raises(UnsupportedError):
        I4.sizeof()
    assert I4.nbytes(5) == 3 and I4.count_in(3) == 6 and I4.value_range == (-8, 7)


def test_local_tensor_host_access():
    """write / read take and give values; the bytes are a uint8 view's: element 2i low, 2i+1 high (§5.23)."""
    with fresh_core("A2") as core:
        buffer = asc.LocalTensor(asc.int8, VECIN, 0x100, 32)
        t = buffer.reinterpret_cast(I4)
        assert (t.get_size(), t.nbytes, t.get_length()) == (64, 32, 32)
        values = [((k * 5) % 16) - 8 for k in range(64)]
        t.write(values)
        assert t.read().tolist() == values and t.read(3).tolist() == values[:3]
        assert buffer.reinterpret_cast(asc.uint8).read().tobytes() == nib.packed(values)
        assert core.ub_read(0x100, 32) == nib.packed(values)
        assert t[2:].addr == 0x101 and t.get_phy_addr(6) == 0x103 and t[2:].read(2).tolist() == values[2:4]
        assert asc.LocalTensor(I4, VECIN, 0x200, 0).get_size() == 2 * (core.ub.size_bytes - 0x200)
        for call, error, part in ((lambda: t[3:], ParameterRangeError, "byte boundary"),
                                  (lambda: t.get_phy_addr(1), ParameterRangeError, "byte boundary"),
                                  (lambda: t.write([1, 2, 3]), ParameterRangeError, "a byte"),
                                  (lambda: t.write([8, 0]), ParameterRangeError, "[-8, 7]"),
                                  (lambda: t.write([0] * 66), OutOfBoundsError, "more elements"),
                                  (lambda: t.get_value(0), UnsupportedError, "scalar access"),
                                  (lambda: t.set_value(0, 1), UnsupportedError, "scalar access")):
            assert_rejected(core, error, call, part)


def test_queues_and_buffers_hand_out_int4_tensors():
    """TQue.alloc_tensor / TBuf.get(asc.int4b_t): two elements a byte of the buffer; a kernel round trip."""
    with fresh_core("A2") as core:
        pipe = asc.TPipe()
        que, buf = asc.TQue(asc.TPosition.VECOUT, 1), asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(que, 1, 128)
        pipe.init_buffer(buf, 512)
        packed = que.alloc_tensor(I4)
        half = buf.get(F16)
        assert (packed.get_size(), packed.nbytes, half.get_size()) == (256, 128, 256)
        assert buf.get_with_offset(64, 256, I4).get_size() == 64
        half.write(np.arange(256) % 16 - 8.0)
        asc.cast(packed, half, R.CAST_NONE, 256)
        asc.cast(half, packed, R.CAST_NONE, 256)
        assert half.read().tolist() == (np.arange(256) % 16 - 8.0).tolist()
        assert core.ub_read(packed.addr, 4) == nib.packed([-8, -7, -6, -5, -4, -3, -2, -1])


def test_gm_takes_no_packed_type():
    """GM arrays hold whole-byte elements: gm_alloc(asc.int4b_t, n) is rejected, naming §5.23."""
    with fresh_core("A2") as core:
        assert_rejected(core, UnsupportedError, lambda: asc.gm_alloc(I4, 64), "whole-byte", "§5.23",
                        instruction="gm_alloc", operand="dtype")


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-8, 7), min_size=0, max_size=64).map(lambda v: v[: len(v) // 2 * 2]),
       offset=st.integers(0, 16).map(lambda k: 2 * k))
def test_host_writes_round_trip_and_pack_as_the_reference(values, offset):
    with fresh_core("A2", bytes(range(256)) * 4) as core:
        t = asc.LocalTensor(I4, VECIN, 0x100, 128)[offset:]
        t.write(values)
        assert t.read(len(values)).tolist() == values
        at = 0x100 + offset // 2
        assert core.ub_read(at, len(values) // 2) == nib.packed(values)
        assert core.ub_read(0x100, offset // 2) == bytes(range(256))[: offset // 2]  # the bytes before: unchanged


@pytest.mark.parametrize("bad", [8, -9, 0.5, float("nan"), float("inf"), -float("inf"), 2**70, 1e9,
                                 Fraction(7) - Fraction(1, 2**80)])  # (its nearest double is 7)
def test_host_writes_reject_what_is_not_an_int4_value(bad):
    with fresh_core("A2") as core:
        t = asc.LocalTensor(I4, VECIN, 0x100, 16)
        assert_rejected(core, ParameterRangeError, lambda: t.write([0, bad]), "integers in [-8, 7]", "§5.23",
                        operand="values")


@asc.jit
def half_to_int4_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, length: asc.ConstExpr[int]):
    """The flow of asc-devkit's Cast sample (examples/.../01_memory_vector_compute/cast, scenario 0): half in
    GM, an int8 UB tensor reinterpreted as int4b_t, Cast mask 128 x 4 repeats {1, 1, 2, 8} CAST_CEIL, the
    int8 bytes copied out."""
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x, length)
    y_gm.set_global_buffer(y, length // 2)
    x_local = asc.LocalTensor(asc.float16, VECIN, 0, length)
    y_local = asc.LocalTensor(asc.int8, VECOUT, 2 * length, length // 2)
    asc.data_copy(x_local, x_gm, length)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.cast(y_local.reinterpret_cast(asc.int4b_t), x_local, R.CAST_CEIL, 128, 4, asc.UnaryRepeatParams(1, 1, 2, 8))
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm, y_local, length // 2)


def test_the_vendor_cast_sample_kernel():
    """The sample's golden rule: ceil, saturate to [-8, 7], element 2i in the low nibble of byte i and 2i+1 in
    the high one; its inputs are uniform in [-9, 8)."""
    x = np.random.default_rng(9).uniform(-9, 8, 512).astype(np.float16)
    y = np.zeros(256, np.int8)
    half_to_int4_kernel.launch(1, (x, y, 512), chip="A2")
    expected = []
    for i in range(256):
        low, high = (max(-8, min(7, math.ceil(float(x[2 * i + k])))) for k in (0, 1))
        expected.append((low & 0xF) | (high & 0xF) << 4)
    assert y.view(np.uint8).tolist() == expected
