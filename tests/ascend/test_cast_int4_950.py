"""Cast's five int4b_t lines on the 950 (docs/semantics.md §5.31): int4b_t -> int16_t / half / bfloat16_t
(CAST_NONE), int16_t -> int4b_t (CAST_NONE) and half -> int4b_t (CAST_RINT, FLOOR, CEIL, ROUND, TRUNC).

Expected values come from precision_conversion.md (its examples), from ``cast_reference`` (one lane, exact
rational arithmetic) and ``int4_reference`` (where the lanes lie: lane ``2i`` low nibble of byte ``i``), and
from the golden rule of asc-devkit's Cast sample, which lists the 950 among its products; results are compared
as raw bytes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.dtypes import DTYPES
from npusim.engine.trace import ByteRange
from npusim.errors import OverlapError, ParameterRangeError, UnsupportedError

from . import cast_reference as ref
from . import int4_reference as nib
from .conftest import assert_rejected
from .test_cast_int4 import HALF_SPECIALS, int4_masks

R = asc.RoundMode
I4 = asc.int4b_t
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
MODES5 = (R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC)
# Cast.md 数据类型, the 950's table: (src, dst) -> the RoundModes it lists
LINES = {("int4", "int16"): (R.CAST_NONE,), ("int4", "float16"): (R.CAST_NONE,), ("int4", "bfloat16"): (R.CAST_NONE,),
         ("int16", "int4"): (R.CAST_NONE,), ("float16", "int4"): MODES5}
SRC, DST = 0, 0x4000  # UB byte addresses of the source and destination tensors


def dtype(name: str):
    return I4 if name == "int4" else DTYPES[name]


def fresh_core(image: bytes | None = None) -> asc.Core:
    core = asc.Core("950")
    core.ub_write(0, image if image is not None else bytes(core.ub.size_bytes))
    return core


def to_bytes(name: str, codes: list[int]) -> bytes:
    """Lane codes of type ``name`` contiguous in memory (int4b_t: packed, low nibble first)."""
    if name == "int4":
        return nib.packed([nib.value_of(c) for c in codes])
    return b"".join(c.to_bytes(DTYPES[name].itemsize, "little") for c in codes)


def count_form(src: str, dst: str, codes: list[int], mode: R, dst_addr: int = DST) -> bytes:
    """``cast`` count form of the lanes ``codes`` of ``src``: the result bytes."""
    with fresh_core() as core:
        x = asc.LocalTensor(dtype(src), VECIN, SRC, len(codes))
        z = asc.LocalTensor(dtype(dst), VECOUT, dst_addr, len(codes))
        core.ub_write(SRC, to_bytes(src, codes))
        asc.cast(z, x, mode, len(codes))
        return core.ub_read(dst_addr, dtype(dst).nbytes(len(codes)))


def expected(src: str, dst: str, codes: list[int], mode: R) -> bytes:
    return to_bytes(dst, [ref.cast(src, dst, c, int(mode), True) for c in codes])


# ------------------------------------------------- precision_conversion.md's examples (the 950's int4b_t lines)
@pytest.mark.parametrize(("dst", "printed"), [("int16", 1), ("float16", 1.0), ("bfloat16", 1.0)])
def test_precision_conversion_int4_to_16_bits(dst, printed):
    """int4b_t -> int16_t / half / bfloat16_t: 1 gives 1 / 1.0 / 1.0 (无精度损失)."""
    with fresh_core() as core:
        x = asc.LocalTensor(I4, VECIN, SRC, 2)
        z = asc.LocalTensor(DTYPES[dst], VECOUT, DST, 2)
        x.write([1, 1])
        asc.cast(z, x, R.CAST_NONE, 2)
        assert core.ub_read(DST, 4) == np.array([printed] * 2, DTYPES[dst].np_dtype).tobytes()


def test_precision_conversion_int16_to_int4():
    """int16_t -> int4b_t: 2**15 - 1 gives 2**3 - 1 (saturated)."""
    assert count_form("int16", "int4", [2**15 - 1] * 2, R.CAST_NONE) == bytes([0x77])


@pytest.mark.parametrize(("mode", "printed"), list(zip(MODES5, (2, 1, 2, 2, 1), strict=True)), ids=lambda v: str(v))
def test_precision_conversion_half_to_int4(mode, printed):
    """half -> int4b_t: 1.5 gives 2 / 1 / 2 / 2 / 1 in RINT / FLOOR / CEIL / ROUND / TRUNC."""
    bits = np.array([1.5, 1.5], np.float16).view(np.uint16).tolist()
    assert count_form("float16", "int4", bits, mode) == bytes([printed | printed << 4])


# ------------------------------------------------- every source code
@pytest.mark.parametrize("dst", ["int16", "float16", "bfloat16"])
def test_every_int4_byte(dst):
    """All 256 bytes (every code in both nibbles): each lane exactly its value, low nibble first."""
    codes = [c for byte in range(256) for c in (byte & 0xF, byte >> 4)]
    assert count_form("int4", dst, codes, R.CAST_NONE) == expected("int4", dst, codes, R.CAST_NONE)


def test_every_int16_value_to_int4():
    """All 65536 int16 values: saturated to [-8, 7]."""
    codes = list(range(1 << 16))
    assert count_form("int16", "int4", codes, R.CAST_NONE, dst_addr=0x20000) == expected("int16", "int4", codes,
                                                                                       R.CAST_NONE)


@pytest.mark.parametrize("mode", MODES5, ids=lambda m: m.name)
def test_every_half_value_to_int4(mode):
    """All 65536 half bit patterns in each of the five modes: rounded, saturated to [-8, 7], NaN -> 0."""
    codes = list(range(1 << 16))
    assert count_form("float16", "int4", codes, mode, dst_addr=0x20000) == expected("float16", "int4", codes, mode)


def test_saturation_and_nan_in_words():
    with fresh_core():
        x = asc.LocalTensor(asc.float16, VECIN, SRC, 8)
        z = asc.LocalTensor(I4, VECOUT, DST, 8)
        x.write([7.5, -8.5, 100, -np.inf, np.inf, np.nan, 7.4, -8.4])
        asc.cast(z, x, R.CAST_RINT, 8)
        assert z.read().tolist() == [7, -8, 7, -8, 7, 0, 7, -8]
        y = asc.LocalTensor(asc.int16, VECIN, SRC, 8)
        y.write([8, -9, 32767, -32768, 7, -8, 0, -1])
        asc.cast(z, y, R.CAST_NONE, 8)
        assert z.read().tolist() == [7, -8, 7, -8, 7, -8, 0, -1]


# ------------------------------------------------- the repeat geometry, against the reference
def _mask_lanes(mask, lanes: int) -> list[bool]:
    if isinstance(mask, int):
        return [j < mask for j in range(lanes)]
    return [bool(mask[j // 64] >> (j % 64) & 1) for j in range(lanes)]


def _lane_code(draw, name: str) -> int:
    if name == "float16":
        return draw(st.one_of(st.integers(0, 0xFFFF), st.sampled_from(HALF_SPECIALS)))
    if name == "int16":
        return draw(st.one_of(st.integers(0, 0xFFFF), st.sampled_from([7, 8, 0xFFF8, 0xFFF7, 0x7FFF, 0x8000])))
    return draw(st.integers(0, 15))


def _put(memory: bytearray, name: str, lane: int, repeat: int, blk: int, rep: int, code: int) -> None:
    """Store one lane of a repeat at its strided address (16-bit types: 16 lanes a block)."""
    if name == "int4":
        nib.set_nibble(memory, *nib.nibble_address(lane, repeat, 128, blk, rep), code)
    else:
        at = repeat * rep * 32 + (lane // 16) * blk * 32 + (lane % 16) * 2
        memory[at:at + 2] = code.to_bytes(2, "little")


@settings(max_examples=80, deadline=None)
@given(data=st.data(), pair=st.sampled_from(sorted(LINES)),
       form=st.sampled_from(["count", "mask", "register", "counter"]))
def test_every_lane_matches_the_reference(data, pair, form):
    """Random lanes, every line and mode, the count form and the mask forms (argument or register; in counter
    mode the mask is the element count and repeat_times is ignored, as the dav_3510 counter VF does) with
    strides: every dst byte, the untouched ones too, and the source unchanged."""
    src, dst = pair
    mode = data.draw(st.sampled_from(LINES[pair]))
    repeats = data.draw(st.integers(1, 3))
    span = {"int4": 2, "int16": 8, "float16": 8, "bfloat16": 8}  # blocks a 128-lane repeat covers
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
        _put(want, dst, k % 128, k // 128, blk[0], rep[0], ref.cast(src, dst, code, int(mode), True))
    with fresh_core(bytes(image)) as core:
        x, z = asc.LocalTensor(dtype(src), VECIN, SRC, 2048), asc.LocalTensor(dtype(dst), VECOUT, DST, 2048)
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


def _words(mask) -> tuple[int, int]:
    """The mask register's two words selecting the lanes of a mask argument (a length: its first lanes)."""
    if isinstance(mask, int):
        low = (1 << min(mask, 64)) - 1
        return low, (1 << max(mask - 64, 0)) - 1
    return mask[0], mask[1]


# ------------------------------------------------- the page's and the sample's example
def test_the_cast_page_int4_example():
    """Cast.md 调用示例 (int4b_t) on the 950: half -> int4b_t, mask 128, 1 repeat, {1, 1, 2, 8}, CAST_CEIL:
    128 lanes into 64 contiguous bytes, nothing after them written."""
    values = np.array([(k - 64) / 7 for k in range(128)], np.float16)
    with fresh_core() as core:
        core.ub_write(DST, b"\xa5" * 128)
        src = asc.LocalTensor(asc.float16, VECIN, SRC, 128)
        out = asc.LocalTensor(asc.int8, VECOUT, DST, 64).reinterpret_cast(I4)
        src.write(values)
        asc.cast(out, src, R.CAST_CEIL, 128, 1, asc.UnaryRepeatParams(1, 1, 2, 8))
        codes = values.view(np.uint16).tolist()
        assert core.ub_read(DST, 128) == expected("float16", "int4", codes, R.CAST_CEIL) + b"\xa5" * 64


@asc.jit
def half_to_int4_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, length: asc.ConstExpr[int]):
    """The flow of asc-devkit's Cast sample (examples/.../01_memory_vector_compute/cast, scenario 0; its README
    lists the Ascend 950PR/950DT): Cast mask 128 x 4 repeats {1, 1, 2, 8} CAST_CEIL into an int8 tensor
    reinterpreted as int4b_t."""
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


def test_the_vendor_cast_sample_kernel_on_the_950():
    """The sample's golden rule: ceil, saturate to [-8, 7], element 2i in the low nibble of byte i and 2i+1 in
    the high one; its inputs are uniform in [-9, 8)."""
    x = np.random.default_rng(950).uniform(-9, 8, 512).astype(np.float16)
    y = np.zeros(256, np.int8)
    half_to_int4_kernel.launch(1, (x, y, 512), chip="950")
    want = []
    for i in range(256):
        low, high = (max(-8, min(7, math.ceil(float(x[2 * i + k])))) for k in (0, 1))
        want.append((low & 0xF) | (high & 0xF) << 4)
    assert y.view(np.uint8).tolist() == want


# ------------------------------------------------- the constraints
def _operands(core):
    return (asc.LocalTensor(asc.float16, VECIN, SRC, 512), asc.LocalTensor(I4, VECOUT, DST, 512),
            asc.LocalTensor(asc.int16, VECOUT, 0x6000, 512))


def test_rounding_modes_of_the_table():
    """half -> int4b_t takes the five modes but not CAST_NONE on the 950 (unlike the A2); the other four lines
    only CAST_NONE."""
    with fresh_core() as core:
        x, z, y = _operands(core)
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_NONE, 64), "takes other rounding modes",
                        "CAST_TRUNC", operand="round_mode")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, x, R.CAST_ODD, 64), "takes other rounding modes")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, y, R.CAST_RINT, 64), "takes other rounding modes")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(y, z, R.CAST_FLOOR, 64), "takes other rounding modes")
        b = asc.LocalTensor(asc.bfloat16, VECIN, 0x6000, 512)
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, b, R.CAST_RINT, 64), "does not convert this pair")
        assert_rejected(core, UnsupportedError, lambda: asc.asc_half2int4(z, x, 64))  # the C API: A2/A3 only


@pytest.mark.parametrize("count", [1, 3, 127, 255])
def test_odd_counts_are_rejected(count):
    with fresh_core() as core:
        x, z, y = _operands(core)
        for d, s in ((z, x), (y, z), (z, y)):
            mode = R.CAST_RINT if s is x else R.CAST_NONE
            assert_rejected(core, ParameterRangeError, lambda d=d, s=s, m=mode: asc.cast(d, s, m, count),
                            "must be even", operand="count")


def test_masks_that_split_a_byte_are_rejected():
    params = asc.UnaryRepeatParams(1, 1, 2, 8)
    with fresh_core() as core:
        x, z, y = _operands(core)
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_RINT, 7, 1, params),
                        "must be even", operand="mask")
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(y, z, R.CAST_NONE, [0b10, 0], 1,
                                                                    asc.UnaryRepeatParams(1, 1, 8, 2)),
                        "are split", operand="mask")
        core.set_mask_words(0b0110, 0)
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_RINT, 0, 1, params, False),
                        "are split", operand="vector mask register")


def test_zero_count_is_not_a_nop_and_overlap():
    """Cast.md 约束说明: on the 950 count = 0 or repeatTime = 0 is not guaranteed a NOP; the general overlap
    rule holds for the packed operand."""
    with fresh_core() as core:
        x, z, y = _operands(core)
        assert_rejected(core, ParameterRangeError, lambda: asc.cast(z, x, R.CAST_RINT, 0), "NOP", operand="count")
        assert_rejected(core, ParameterRangeError,
                        lambda: asc.cast(y, z, R.CAST_NONE, 128, 0, asc.UnaryRepeatParams(1, 1, 8, 2)), "NOP")
        over = asc.LocalTensor(I4, VECOUT, SRC + 64, 512)
        assert_rejected(core, OverlapError, lambda: asc.cast(over, x, R.CAST_RINT, 256))


def test_the_access_record_of_a_packed_call():
    """int16 -> int4b_t, 300 lanes: 600 bytes read, 150 written; int4b_t -> bfloat16 strided: each block's bytes."""
    with asc.Core("950", trace=True) as core:
        core.ub_write(0, bytes(core.ub.size_bytes))
        x, z, y = _operands(core)
        asc.cast(z, y, R.CAST_NONE, 300)
        assert core.trace[-1].reads == (ByteRange("UB", 0x6000, 0x6000 + 600),)
        assert core.trace[-1].writes == (ByteRange("UB", DST, DST + 150),)
        b = asc.LocalTensor(asc.bfloat16, VECOUT, 0x6000, 512)
        asc.cast(b, z, R.CAST_NONE, 128, 1, asc.UnaryRepeatParams(1, 3, 8, 2))
        assert core.trace[-1].reads == (ByteRange("UB", DST, DST + 32), ByteRange("UB", DST + 96, DST + 128))
