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

from .helpers import S, T, V, write_bits

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


@pytest.fixture
def core():
    """A BM1684X core with initialised operands at 0x0, 0x1000, 0x2000, 0x3000 (FP32 and INT8 views)."""
    with tpu.Core("BM1684X") as c:
        for addr in (0x0, 0x1000, 0x2000, 0x3000, 0x4000):
            c.lmem.write_bytes(addr, bytes(0x1000))  # lane 0 ...
            for lane in range(1, 8):  # ... and the lanes the small shapes use
                c.write_local_bytes(lane, addr, bytes(0x1000))
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


def test_compare_type_wider_than_dst_is_rejected(core):
    rejects(core, UnsupportedError, select(cmp=tpu.DT_INT32, val=tpu.DT_INT16), "tpu_bdc_greater_select",
            "src0_src1_dtype", "DT_INT32", "wider than dst_dtype DT_INT16")  # fmt: skip


@pytest.mark.parametrize(
    ("cmp", "val"), [(tpu.DT_FP16, tpu.DT_FP32), (tpu.DT_BFP16, tpu.DT_INT32), (tpu.DT_FP16, tpu.DT_UINT32)]
)
def test_float_compare_needs_a_dst_of_equal_width(core, cmp, val):
    rejects(core, UnsupportedError, select("tpu_bdc_less_select", cmp=cmp, val=val),
            "dst_dtype", val.name, "same width", "AB_type_size == CD_type_size")  # fmt: skip


def test_integer_compare_may_select_into_a_wider_dst(core):
    """The counterpart of the float rule: INT8 -> INT32 is legal (§4.2)."""
    tpu.tpu_bdc_less_select(0x4000, T(0x0), T(0x1000), T(0x2000), S(7), SHAPE, tpu.DT_INT8, tpu.DT_INT32)


@pytest.mark.parametrize("name", list(MINMAX))
def test_maximum_minimum_dst_widths_must_be_equal(core, name):
    rejects(core, UnsupportedError, minmax(name, dt0=tpu.DT_INT8, dt1=tpu.DT_INT16),
            name, "dst1_dtype", "DT_INT16", "WIDTH(dst0) == WIDTH(dst1)")  # fmt: skip


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
        ("BM1688", tpu.DT_INT8, tpu.DT_FP8E5M2, "dst_dtype"),
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


def test_fp8_compare_on_sg2260_is_not_modelled_but_fp8_payloads_are():
    """SG2260 supports FP8 compare, but its semantics were never measured: npusim refuses rather than guesses.
    FP8 as a payload (bits copied) is well defined."""
    with tpu.Core("SG2260") as c:
        rejects(c, UnsupportedError, select(dst=0x100, srcs=(S(0), S(1), S(2), S(3)), cmp=tpu.DT_FP8E4M3,
                                            val=tpu.DT_FP8E4M3), "FP8 compare is not modelled")  # fmt: skip
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
