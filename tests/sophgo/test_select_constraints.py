"""One bad-input test per rule: the right ConstraintError, a precise message, memory unchanged.

Rules: sophgo-semantics §0 and §4.1 (cmodel asserts), §3.4 (same start lane), the seed's notes.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import sophgo as tpu
from npusim.errors import (
    AlignmentError,
    ConstraintError,
    NoActiveCoreError,
    OutOfBoundsError,
    ParameterRangeError,
    UnsupportedError,
)

from .helpers import S, T, V, read_bits, write_bits

SHAPE = tpu.dim4(1, 3, 2, 5)
FUNCS = {
    "tpu_bdc_greater_select": tpu.tpu_bdc_greater_select,
    "tpu_bdc_less_select": tpu.tpu_bdc_less_select,
    "tpu_bdc_equal_select": tpu.tpu_bdc_equal_select,
}
MINMAX = {
    "tpu_bdc_maximum_greater_select": tpu.tpu_bdc_maximum_greater_select,
    "tpu_bdc_minimum_less_select": tpu.tpu_bdc_minimum_less_select,
}


def initialised_core(chip: str = "BM1684X") -> tpu.Core:
    """A core with zeroed operands at 0x0 ... 0x4000 of the first 8 lanes (what the small shapes use)."""
    c = tpu.Core(chip)
    for addr in (0x0, 0x1000, 0x2000, 0x3000, 0x4000):
        for lane in range(8):
            c.write_local_bytes(lane, addr, bytes(0x1000))
    return c


@pytest.fixture
def core():
    """A BM1684X core with initialised operands at 0x0, 0x1000, 0x2000, 0x3000 (FP32 and INT8 views)."""
    with initialised_core() as c:
        yield c


def rejects(core, error, call, *message_parts):
    """Assert ``call()`` raises ``error`` naming every part, with local memory byte-identical."""
    before = core.lmem.snapshot()
    with pytest.raises(error) as info:
        call()
    assert core.lmem.snapshot() == before, "a rejected call changed local memory"
    text = str(info.value)
    for part in message_parts:
        assert part in text, f"{part!r} missing from: {text}"
    return info.value


def select(name="tpu_bdc_greater_select", dst=0x4000, srcs=None, shape=SHAPE, cmp=tpu.DT_FP32,
           val=tpu.DT_FP32):  # fmt: skip
    srcs = srcs or (T(0x0), T(0x1000), T(0x2000), S(0))
    return lambda: FUNCS[name](dst, *srcs, shape, cmp, val)


def minmax(name="tpu_bdc_maximum_greater_select", dst0=0x3000, dst1=0x4000, srcs=None, shape=SHAPE,
           dt0=tpu.DT_FP32, dt1=tpu.DT_FP32):  # fmt: skip
    srcs = srcs or (T(0x0), T(0x1000), T(0x2000), S(0))
    return lambda: MINMAX[name](dst0, dst1, *srcs, shape, dt0, dt1)


# ------------------------------------------------------------------ shape


@pytest.mark.parametrize("name", [*FUNCS, *MINMAX])
@pytest.mark.parametrize("axis", "nchw")
@pytest.mark.parametrize("size", [0, 65536, -1])
def test_each_shape_dimension_must_be_in_1_to_65535(core, name, axis, size):
    dims = dict(zip("nchw", SHAPE, strict=True)) | {axis: size}
    shape = tpu.dim4(**dims)
    call = select(name, shape=shape) if name in FUNCS else minmax(name, shape=shape)
    err = rejects(core, ParameterRangeError, call, name, f"shape.{axis}", "[1, 65535]")
    assert err.value == size and err.operand == f"shape.{axis}"


def test_shape_65535_is_accepted(core):
    """The upper bound itself is legal (W = 65535 INT8 fits one lane: 64 KiB < 256 KiB)."""
    write_bits(core, 0x10000, np.zeros((1, 1, 1, 65535)), tpu.DT_INT8)
    tpu.tpu_bdc_equal_select(0x20000, T(0x10000), S(0), S(1), S(2), tpu.dim4(1, 1, 1, 65535),
                             tpu.DT_INT8, tpu.DT_INT8)  # fmt: skip
    assert core.local_bytes(0, 0x20000 + 65534, 1) == b"\x01"


# ------------------------------------------------------------------ dtype widths


@pytest.mark.parametrize("chip", ["BM1684X", "SG2260"])
def test_compare_type_wider_than_dst_is_rejected(chip):
    """Seed 000: bits(src0_src1_dtype) <= bits(dst_dtype).  The SG2260 emulator computes the call
    anyway; npusim follows the document there too (docs/sophgo.md)."""
    with initialised_core(chip) as c:
        for cmp, val in ((tpu.DT_INT32, tpu.DT_INT16), (tpu.DT_FP32, tpu.DT_BFP16)):
            rejects(c, UnsupportedError, select(cmp=cmp, val=val), "tpu_bdc_greater_select",
                    "src0_src1_dtype", cmp.name, f"wider than dst_dtype {val.name}")  # fmt: skip
        if chip == "SG2260":
            rejects(c, UnsupportedError, select(cmp=tpu.DT_FP16, val=tpu.DT_FP8E4M3), "src0_src1_dtype",
                    "wider than dst_dtype DT_FP8E4M3")  # fmt: skip


@pytest.mark.parametrize(
    ("cmp", "val"), [(tpu.DT_FP16, tpu.DT_FP32), (tpu.DT_BFP16, tpu.DT_INT32), (tpu.DT_FP16, tpu.DT_UINT32)]
)
def test_float_compare_needs_a_dst_of_equal_width(core, cmp, val):
    rejects(core, UnsupportedError, select("tpu_bdc_less_select", cmp=cmp, val=val),
            "dst_dtype", val.name, "same width", "AB_type_size == CD_type_size")  # fmt: skip


def test_on_sg2260_a_float_compare_may_select_into_a_wider_dst():
    """No AB_type_size == CD_type_size assert in the SG2260 emulator: FP16 -> FP32 computes, as the
    document allows (16 <= 32 bits).  src0 > src1 picks src2's 32-bit bits unchanged."""
    a = np.array([0x3C00, 0x8000, 0x7E00, 0x0001, 0xBC00, 0x7C00], dtype=np.uint16)  # 1, -0, NaN, den, -1, inf
    b = np.array([0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x7BFF], dtype=np.uint16)  # 0 ... 0, max
    with initialised_core("SG2260") as c:
        write_bits(c, 0x0, a.reshape(1, 1, 1, 6), tpu.DT_FP16)
        write_bits(c, 0x1000, b.reshape(1, 1, 1, 6), tpu.DT_FP16)
        tpu.tpu_bdc_greater_select(0x4000, T(0x0), T(0x1000), S(0x11223344), S(0x55667788),
                                   tpu.dim4(1, 1, 1, 6), tpu.DT_FP16, tpu.DT_FP32)  # fmt: skip
        got = read_bits(c, 0x4000, (1, 1, 1, 6), tpu.DT_FP32).ravel().tolist()
    assert got == [0x11223344, 0x55667788, 0x55667788, 0x11223344, 0x55667788, 0x11223344]


def test_integer_compare_may_select_into_a_wider_dst(core):
    """The counterpart of the float rule: INT8 -> INT32 is legal (§4.2).  The compare is signed on
    the INT8 values; the chosen INT32 bits are copied whole, in the INT32 aligned layout."""
    src0 = np.arange(-15, 15).reshape(1, 3, 2, 5)
    src2 = np.arange(100_000, 100_030).reshape(1, 3, 2, 5)
    write_bits(core, 0x0, src0 & 0xFF, tpu.DT_INT8)
    write_bits(core, 0x1000, np.full((1, 3, 2, 5), 0xFE), tpu.DT_INT8)  # -2
    write_bits(core, 0x2000, src2, tpu.DT_INT32)
    tpu.tpu_bdc_less_select(0x4000, T(0x0), T(0x1000), T(0x2000), S(7), SHAPE, tpu.DT_INT8, tpu.DT_INT32)
    expected = np.where(src0 < -2, src2, 7)
    assert read_bits(core, 0x4000, (1, 3, 2, 5), tpu.DT_INT32).tolist() == expected.tolist()


@pytest.mark.parametrize("chip", ["BM1684X", "SG2260"])
@pytest.mark.parametrize("name", list(MINMAX))
def test_maximum_minimum_dst_widths_must_be_equal(chip, name):
    """Seed 000: bits(dst0_dtype) == bits(dst1_dtype), on SG2260 too (its emulator computes the call)."""
    with initialised_core(chip) as c:
        rejects(c, UnsupportedError, minmax(name, dt0=tpu.DT_INT8, dt1=tpu.DT_INT16),
                name, "dst1_dtype", "DT_INT16", "WIDTH(dst0) == WIDTH(dst1)")  # fmt: skip
        if chip == "SG2260":
            rejects(c, UnsupportedError, minmax(name, dt0=tpu.DT_FP8E5M2, dt1=tpu.DT_FP16),
                    name, "dst1_dtype", "DT_FP16", "WIDTH(dst0) == WIDTH(dst1)")  # fmt: skip


# ------------------------------------------------------------------ operand kinds


@pytest.mark.parametrize("slot", [2, 3])
@pytest.mark.parametrize("name", [*FUNCS, *MINMAX])
def test_src2_and_src3_cannot_be_vector(core, name, slot):
    srcs = [T(0x0), T(0x1000), T(0x2000), S(0)]
    srcs[slot] = V(0x2000)
    call = select(name, srcs=srcs) if name in FUNCS else minmax(name, srcs=srcs)
    rejects(core, UnsupportedError, call, name, f"src{slot}", "VECTOR", "TENSOR or SCALAR")


# ------------------------------------------------------------------ alignment


@pytest.mark.parametrize("slot", [0, 1, 2, 3])
def test_tensor_sources_must_be_eu_aligned(core, slot):
    srcs = [T(0x0), T(0x1000), T(0x2000), T(0x3000)]
    srcs[slot] = T(srcs[slot].addr + 32)  # 4-byte aligned, not 64-byte aligned
    err = rejects(core, AlignmentError, select(srcs=srcs), f"src{slot} address", "64-byte", "multiples of 64")
    assert err.value == srcs[slot].addr


def test_dst_must_be_eu_aligned(core):
    rejects(core, AlignmentError, select(dst=0x4000 + 16), "dst address = 0x4010", "multiples of 64")


def test_dst1_must_be_eu_aligned(core):
    rejects(core, AlignmentError, minmax(dst1=0x4000 + 48), "dst1 address = 0x4030", "multiples of 64")


def test_bm1688_alignment_is_its_16_byte_eu():
    with tpu.Core("BM1688") as c:
        write_bits(c, 0x10, np.zeros((1, 1, 1, 4)), tpu.DT_FP32)
        shape = tpu.dim4(1, 1, 1, 4)
        tpu.tpu_bdc_greater_select(0x100, T(0x10), S(0), S(1), S(2), shape, tpu.DT_FP32, tpu.DT_FP32)
        rejects(c, AlignmentError, select(srcs=(T(0x8), S(0), S(1), S(2))), "src0 address", "multiples of 16")


def test_vector_needs_only_element_alignment(core):
    for lane in range(3):
        core.write_local_bytes(lane, 0x5002, b"\x00\x00")
    tpu.tpu_bdc_greater_select(0x4000, V(0x5002), S(0), S(1), S(2), SHAPE, tpu.DT_INT16, tpu.DT_INT16)
    call = select(srcs=(V(0x5001), S(0), S(1), S(2)), cmp=tpu.DT_INT16, val=tpu.DT_INT16)
    rejects(core, AlignmentError, call, "src0 address", "2-byte element", "multiples of 2")


# ------------------------------------------------------------------ same start lane


@pytest.mark.parametrize("slot", [0, 1, 2, 3])
def test_every_operand_starts_on_the_dst_lane(core, slot):
    lms = core.chip.local_mem_bytes
    srcs = [T(0x0), T(0x1000), T(0x2000), T(0x3000)]
    srcs[slot] = T(srcs[slot].addr + lms)  # same offset, lane 1
    rejects(core, ParameterRangeError, select(srcs=srcs), f"src{slot} address", "starts on NPU lane 1",
            "dst starts on lane 0")  # fmt: skip


def test_vector_starts_on_the_dst_lane_too(core):
    lms = core.chip.local_mem_bytes
    rejects(core, ParameterRangeError, select(srcs=(V(2 * lms), S(0), S(1), S(2))), "src0 address", "lane 2")


def test_dst1_starts_on_the_dst0_lane(core):
    lms = core.chip.local_mem_bytes
    rejects(core, ParameterRangeError, minmax(dst1=lms + 0x4000), "dst1 address", "starts on NPU lane 1")


# ------------------------------------------------------------------ bounds


@pytest.mark.parametrize("addr", [-64, 64 * 256 * 1024, 2**32])
def test_addresses_outside_local_memory(core, addr):
    rejects(core, OutOfBoundsError, select(dst=addr), "dst address", "not a local address")
    rejects(core, OutOfBoundsError, select(srcs=(T(addr), S(0), S(1), S(2))), "src0 address")


def test_tensor_running_past_the_end_of_its_lane(core):
    lms = core.chip.local_mem_bytes
    shape = tpu.dim4(1, 2, 1, 32)  # 128 bytes per FP32 channel
    rejects(core, OutOfBoundsError, select(dst=lms - 64, shape=shape, srcs=(S(0), S(1), S(2), S(3))),
            "dst address", "past the end of the lane")  # fmt: skip


def test_tensor_ending_exactly_at_the_end_of_its_lane_is_legal(core):
    lms = core.chip.local_mem_bytes
    shape = tpu.dim4(1, 2, 1, 16)  # 64 bytes per FP32 channel
    one = tpu.scalar_t(f32=1.0).u32
    tpu.tpu_bdc_greater_select(lms - 64, S(one), S(0), S(5), S(6), shape, tpu.DT_FP32, tpu.DT_FP32)
    assert core.local_bytes(1, lms - 4, 4) == (5).to_bytes(4, "little")


def test_vector_in_the_last_element_of_the_lane_is_legal(core):
    """A VECTOR occupies one element per lane, so an element-aligned address in the lane always fits."""
    lms = core.chip.local_mem_bytes
    for lane in range(3):
        core.write_local_bytes(lane, lms - 2, b"\x05\x00")
    tpu.tpu_bdc_equal_select(0x4000, V(lms - 2), S(5), S(1), S(2), SHAPE, tpu.DT_INT16, tpu.DT_INT16)
    assert core.local_bytes(2, 0x4000, 2) == b"\x01\x00"


# ------------------------------------------------------------------ dtypes per chip


@pytest.mark.parametrize(
    ("chip", "cmp", "val", "operand"),
    [
        ("BM1684X", tpu.DT_FP8E4M3, tpu.DT_FP8E4M3, "src0_src1_dtype"),
        ("BM1684X", tpu.DT_INT8, tpu.DT_FP8E4M3, "dst_dtype"),
        ("BM1688", tpu.DT_FP8E5M2, tpu.DT_FP8E5M2, "src0_src1_dtype"),
        ("BM1688", tpu.DT_INT8, tpu.DT_FP8E5M2, "dst_dtype"),
        ("CV184X", tpu.DT_FP8E4M3, tpu.DT_FP8E4M3, "src0_src1_dtype"),
        ("CV184X", tpu.DT_UINT8, tpu.DT_FP8E5M2, "dst_dtype"),
        ("BM1684X", tpu.DT_INT8, tpu.DT_INT4, "dst_dtype"),
        ("BM1684X", tpu.DT_TF32, tpu.DT_TF32, "src0_src1_dtype"),
        ("CV184X", tpu.DT_FP32, tpu.DT_FP32, "src0_src1_dtype"),
        ("CV184X", tpu.DT_INT16, tpu.DT_FP16, "dst_dtype"),
    ],
)
def test_dtypes_the_chip_does_not_support(chip, cmp, val, operand):
    with tpu.Core(chip) as c:
        err = rejects(c, UnsupportedError, select(dst=0x100, srcs=(S(0), S(1), S(2), S(3)), cmp=cmp, val=val),
                      operand, f"on {chip}")  # fmt: skip
    assert err.allowed  # names the supported types


def test_unknown_dtype_code(core):
    rejects(core, UnsupportedError, select(cmp=99), "src0_src1_dtype = 99", "data_type_t", "DT_FP32=5")


# FP8 codes and what the compare unit sees (e5m2 / e4m3fn; subnormals kept): hand-decoded
E5M2 = {"0": 0x00, "-0": 0x80, "den": 0x01, "-den": 0x81, "1": 0x3C, "max": 0x7B, "inf": 0x7C, "-inf": 0xFC,
        "nan": 0x7E, "nan2": 0x7D}  # fmt: skip
E4M3 = {"0": 0x00, "-0": 0x80, "den": 0x01, "-den": 0x81, "1": 0x38, "256": 0x78, "max": 0x7E, "nan": 0x7F,
        "-nan": 0xFF}  # fmt: skip
FP8_CASES = [  # (dtype, src0, src1, greater, less, equal)
    (tpu.DT_FP8E5M2, "den", "0", True, False, False),  # a subnormal is not flushed
    (tpu.DT_FP8E5M2, "-den", "-0", False, True, False),
    (tpu.DT_FP8E5M2, "0", "-0", False, False, False),  # +0 == -0 for the ordered compares, not for equal
    (tpu.DT_FP8E5M2, "inf", "max", True, False, False),
    (tpu.DT_FP8E5M2, "-inf", "1", False, True, False),
    (tpu.DT_FP8E5M2, "nan", "1", False, True, False),  # less is true with a NaN ...
    (tpu.DT_FP8E5M2, "nan", "nan", False, False, True),  # ... unless both bit patterns are identical
    (tpu.DT_FP8E5M2, "nan", "nan2", False, True, False),
    (tpu.DT_FP8E4M3, "den", "0", True, False, False),
    (tpu.DT_FP8E4M3, "max", "256", True, False, False),  # 0x78..0x7E are finite in e4m3fn (no infinity)
    (tpu.DT_FP8E4M3, "256", "1", True, False, False),
    (tpu.DT_FP8E4M3, "1", "nan", False, True, False),
    (tpu.DT_FP8E4M3, "-nan", "-nan", False, False, True),
    (tpu.DT_FP8E4M3, "-0", "0", False, False, False),
]


@pytest.mark.parametrize(("dtype", "x", "y", "greater", "less", "equal"), FP8_CASES)
def test_fp8_compare_on_sg2260(dtype, x, y, greater, less, equal):
    """FP8 compare operands on SG2260, as its emulator computes them (sophgo-semantics §5.1): decoded as
    e5m2 / e4m3fn with subnormals kept, NaN rules as for the other float types (§4.4).  The three
    selects with SCALAR operands (the low 8 bits of u32; garbage above), and max/min keeping the
    chosen code unchanged in dst0."""
    codes = E5M2 if dtype == tpu.DT_FP8E5M2 else E4M3
    a, b = codes[x], codes[y]
    shape = tpu.dim4(1, 2, 1, 3)
    with tpu.Core("SG2260") as c:
        for name, want in (("greater", greater), ("less", less), ("equal", equal)):
            fn = getattr(tpu, f"tpu_bdc_{name}_select")
            fn(0x100, S(0xAB00 | a), S(0xCD00 | b), S(0x11), S(0x22), shape, dtype, tpu.DT_INT8)
            assert c.local_bytes(1, 0x100, 3) == (b"\x11" if want else b"\x22") * 3, name
        for fn, want in ((tpu.tpu_bdc_maximum_greater_select, greater), (tpu.tpu_bdc_minimum_less_select, less)):
            fn(0x100, 0x200, S(a), S(b), S(0x11), S(0x22), shape, dtype, dtype)
            assert c.local_bytes(0, 0x100, 3) == bytes([a if want else b]) * 3
            assert c.local_bytes(0, 0x200, 3) == (b"\x11" if want else b"\x22") * 3


def test_fp8_payloads_are_copied_bit_exactly_on_sg2260():
    with tpu.Core("SG2260") as c:
        tpu.tpu_bdc_greater_select(0x100, S(1), S(0), S(0x7E), S(0x01), tpu.dim4(1, 2, 1, 3), tpu.DT_INT8,
                                   tpu.DT_FP8E4M3)  # fmt: skip
        assert c.local_bytes(1, 0x100, 3) == b"\x7e\x7e\x7e"


# ------------------------------------------------------------------ context and Python types


def test_no_active_core():
    with pytest.raises(NoActiveCoreError, match="tpu_bdc_greater_select"):
        tpu.tpu_bdc_greater_select(0, S(0), S(0), S(0), S(0), SHAPE, tpu.DT_FP32, tpu.DT_FP32)


@pytest.mark.parametrize(
    "call",
    [
        lambda: tpu.tpu_bdc_greater_select("0x100", S(0), S(0), S(0), S(0), SHAPE, tpu.DT_FP32, tpu.DT_FP32),
        lambda: tpu.tpu_bdc_greater_select(0x100, 0x200, S(0), S(0), S(0), SHAPE, tpu.DT_FP32, tpu.DT_FP32),
        lambda: tpu.tpu_bdc_greater_select(0x100, S(0), S(0), S(0), S(0), (1, 1, 1, 1), 5, 5),
        lambda: tpu.tpu_bdc_greater_select(0x100, S(0), S(0), S(0), S(0), SHAPE, "DT_FP32", tpu.DT_FP32),
        lambda: tpu.tpu_bdc_maximum_greater_select(0x100, None, S(0), S(0), S(0), S(0), SHAPE, 5, 5),
    ],
    ids=["dst string", "src0 int", "shape tuple", "dtype string", "dst1 None"],
)
def test_wrong_python_types_raise_type_error_naming_the_parameter(core, call):
    before = core.lmem.snapshot()
    with pytest.raises(TypeError, match="dst_addr|src0|shape|src0_src1_dtype|dst1_addr"):
        call()
    assert core.lmem.snapshot() == before


def test_every_error_is_a_constraint_error_with_structured_fields(core):
    err = rejects(core, ConstraintError, select(dst=0x4000 + 1))
    assert (err.instruction, err.operand, err.value) == ("tpu_bdc_greater_select", "dst address", 0x4001)
    assert err.rule and err.allowed and err.source
