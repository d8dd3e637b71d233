"""The reference's worked examples and tables, byte for byte (sophgo-semantics §3.4, §4.2-§4.5).

Expected values are copied from the reference text, which reports cmodel measurements.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import sophgo as tpu

from .helpers import S, T, V, read_bits, write_bits, write_vector_bits

CHIPS = ("BM1684X", "BM1688")
SELECTS = {
    "greater": tpu.tpu_bdc_greater_select,
    "less": tpu.tpu_bdc_less_select,
    "equal": tpu.tpu_bdc_equal_select,
}

# ------------------------------------------------------------------ §4.3 integer compare

A_ROW = [-128, -1, 0, 1, 127, 5]
B_ROW = [127, 0, 0, -1, -128, 5]
INT_EXPECTED = {
    (tpu.DT_INT8, "greater"): [22, 22, 22, 11, 11, 22],
    (tpu.DT_INT8, "less"): [11, 11, 22, 22, 22, 22],
    (tpu.DT_INT8, "equal"): [22, 22, 11, 22, 22, 11],
    (tpu.DT_UINT8, "greater"): [11, 11, 22, 22, 22, 22],
    (tpu.DT_UINT8, "less"): [22, 22, 22, 11, 11, 22],
    (tpu.DT_UINT8, "equal"): [22, 22, 11, 22, 22, 11],
}


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize(("compare_type", "name"), list(INT_EXPECTED))
def test_int8_and_uint8_compare_of_the_same_bytes(chip, compare_type, name):
    """§4.3: shape (1, 4, 2, 3), every channel row a / b, src2 = 11, src3 = 22, dst INT8."""
    shape = (1, 4, 2, 3)
    a = np.broadcast_to(np.array(A_ROW, np.int8).reshape(1, 1, 2, 3), shape)
    b = np.broadcast_to(np.array(B_ROW, np.int8).reshape(1, 1, 2, 3), shape)
    with tpu.Core(chip) as core:
        core.write_local(0x0, a.view(np.uint8) if compare_type == tpu.DT_UINT8 else a, compare_type)
        core.write_local(0x1000, b.view(np.uint8) if compare_type == tpu.DT_UINT8 else b, compare_type)
        SELECTS[name](0x2000, T(0x0), T(0x1000), S(11), S(22), tpu.dim4(*shape), compare_type, tpu.DT_INT8)
        got = core.read_local(0x2000, shape, tpu.DT_INT8)
    assert got.reshape(4, 6).tolist() == [INT_EXPECTED[(compare_type, name)]] * 4


# ------------------------------------------------------------------ §4.4 special-value tables

SPECIAL_NAMES = ["+0", "-0", "+1", "-1", "+inf", "-inf", "qnan", "-qnan",
                 "snan", "nan2", "+den", "-den", "+max", "-max"]  # fmt: skip
SPECIALS = {
    tpu.DT_FP32: [0x0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
                  0x7F800001, 0x7FFFFFFF, 0x1, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF],
    tpu.DT_FP16: [0x0, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x7FFF, 0x1, 0x8001,
                  0x7BFF, 0xFBFF],
    tpu.DT_BFP16: [0x0, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0x1, 0x8001,
                   0x7F7F, 0xFF7F],
}  # fmt: skip

# Row = src0, column = src1, in SPECIAL_NAMES order; 1 = src2 selected.  Copied from §4.4.
FP32_GREATER = """
00010100000001 00010100000001 11010100001101 00000100000001 11110100001111 00000000000000 00000000000000
00000000000000 00000000000000 00000000000000 00010100000001 00010100000001 11110100001101 00000100000000
"""
FP32_LESS = """
00101011110010 00101011110010 00001011110010 11101011111110 00000011110000 11111011111111 11111101111111
11111110111111 11111111011111 11111111101111 00101011110010 00101011110010 00001011110000 11111011111110
"""
FP16_GREATER = """
00010100000101 00010100000101 11010100001101 00000100000001 11110100001111 00000000000000 00000000000000
00000000000000 00000000000000 00000000000000 11010100000101 00010100000001 11110100001101 00000100000000
"""
FP16_LESS = """
00101011111010 00101011111010 00001011110010 11101011111110 00000011110000 11111011111111 11111101111111
11111110111111 11111111011111 11111111101111 00101011110010 11101011111010 00001011110000 11111011111110
"""
TABLES = {
    (tpu.DT_FP32, "greater"): FP32_GREATER,
    (tpu.DT_FP32, "less"): FP32_LESS,
    (tpu.DT_FP16, "greater"): FP16_GREATER,
    (tpu.DT_FP16, "less"): FP16_LESS,
    (tpu.DT_BFP16, "greater"): FP32_GREATER,  # "BF16 tables are identical to FP32"
    (tpu.DT_BFP16, "less"): FP32_LESS,
}
_SAME_WIDTH_INT = {tpu.DT_FP32: tpu.DT_INT32, tpu.DT_FP16: tpu.DT_INT16, tpu.DT_BFP16: tpu.DT_INT16}


def _table(text: str) -> np.ndarray:
    rows = text.split()
    assert len(rows) == 14 and all(len(r) == 14 for r in rows)
    return np.array([[int(ch) for ch in row] for row in rows])


def _run_grid(chip: str, compare_type, name: str, start_lane: int) -> np.ndarray:
    """All 14 x 14 (src0, src1) pairs: channel = src0 value, w = src1 value; returns the 0/1 grid."""
    specials = np.array(SPECIALS[compare_type])
    shape = (1, 14, 1, 14)
    a = np.broadcast_to(specials.reshape(1, 14, 1, 1), shape)
    b = np.broadcast_to(specials.reshape(1, 1, 1, 14), shape)
    dst_type = _SAME_WIDTH_INT[compare_type]
    with tpu.Core(chip) as core:
        base = start_lane * core.chip.local_mem_bytes
        write_bits(core, base + 0x0, a, compare_type)
        write_bits(core, base + 0x1000, b, compare_type)
        if name in SELECTS:
            SELECTS[name](base + 0x2000, T(base), T(base + 0x1000), S(1), S(0), tpu.dim4(*shape),
                          compare_type, dst_type)  # fmt: skip
            return read_bits(core, base + 0x2000, shape, dst_type).reshape(14, 14)
        minmax = tpu.tpu_bdc_maximum_greater_select if name == "max" else tpu.tpu_bdc_minimum_less_select
        minmax(base + 0x2000, base + 0x3000, T(base), T(base + 0x1000), S(1), S(0), tpu.dim4(*shape),
               compare_type, dst_type)  # fmt: skip
        return read_bits(core, base + 0x3000, shape, dst_type).reshape(14, 14)


def _diff(got: np.ndarray, want: np.ndarray) -> str:
    return ", ".join(
        f"{SPECIAL_NAMES[i]} vs {SPECIAL_NAMES[j]}: got {got[i, j]}" for i, j in np.argwhere(got != want)
    )


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize(("compare_type", "name"), list(TABLES), ids=lambda v: getattr(v, "name", v))
def test_special_value_table(chip, compare_type, name):
    want = _table(TABLES[(compare_type, name)])
    got = _run_grid(chip, compare_type, name, start_lane=3)
    assert (got == want).all(), _diff(got, want)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize(("compare_type", "name"), list(TABLES), ids=lambda v: getattr(v, "name", v))
def test_maximum_and_minimum_select_dst1_follow_the_same_tables(chip, compare_type, name):
    """max/min compute the same condition (greater / less) for dst1 (§0)."""
    want = _table(TABLES[(compare_type, name)])
    got = _run_grid(chip, compare_type, "max" if name == "greater" else "min", start_lane=0)
    assert (got == want).all(), _diff(got, want)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("compare_type", list(SPECIALS), ids=lambda v: v.name)
def test_equal_is_bitwise_identity_table(chip, compare_type):
    """§4.4: "equal is the identity matrix for all three" (+0 != -0, NaN == NaN iff same bits)."""
    assert (_run_grid(chip, compare_type, "equal", start_lane=0) == np.eye(14, dtype=int)).all()


# ------------------------------------------------------------------ §4.4 concrete FP32 vector

CONCRETE_A = [0x1, 0x80000001, 0x7FC00000, 0x3F800000, 0x0, 0x80000000]
CONCRETE_B = [0xBF800000, 0x0, 0x3F800000, 0x7FC00000, 0x80000000, 0x0]
CONCRETE_SELECT = {
    "greater": [100, 201, 202, 203, 204, 205],
    "less": [200, 201, 102, 103, 204, 205],
    "equal": [200, 201, 202, 203, 204, 205],
}
CONCRETE_MAX_DST0 = [0x0, 0x0, 0x3F800000, 0x7FC00000, 0x80000000, 0x0]
CONCRETE_MIN_DST0 = [0xBF800000, 0x0, 0x7FC00000, 0x3F800000, 0x80000000, 0x0]


def _concrete_setup(core):
    shape = (1, 1, 1, 6)
    write_bits(core, 0x0, np.reshape(CONCRETE_A, shape), tpu.DT_FP32)
    write_bits(core, 0x100, np.reshape(CONCRETE_B, shape), tpu.DT_FP32)
    write_bits(core, 0x200, np.reshape([100 + i for i in range(6)], shape), tpu.DT_INT32)
    write_bits(core, 0x300, np.reshape([200 + i for i in range(6)], shape), tpu.DT_INT32)
    return tpu.dim4(*shape)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("name", list(CONCRETE_SELECT))
def test_concrete_fp32_vector_select(chip, name):
    with tpu.Core(chip) as core:
        shape = _concrete_setup(core)
        SELECTS[name](0x400, T(0x0), T(0x100), T(0x200), T(0x300), shape, tpu.DT_FP32, tpu.DT_INT32)
        assert read_bits(core, 0x400, (1, 1, 1, 6), tpu.DT_INT32).ravel().tolist() == CONCRETE_SELECT[name]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize(
    ("fn", "dst0", "dst1"),
    [
        (tpu.tpu_bdc_maximum_greater_select, CONCRETE_MAX_DST0, CONCRETE_SELECT["greater"]),
        (tpu.tpu_bdc_minimum_less_select, CONCRETE_MIN_DST0, CONCRETE_SELECT["less"]),
    ],
    ids=["maximum_greater", "minimum_less"],
)
def test_concrete_fp32_vector_maximum_minimum(chip, fn, dst0, dst1):
    """dst0 flushes the chosen subnormal to a signed zero; NaN passes through unchanged."""
    with tpu.Core(chip) as core:
        shape = _concrete_setup(core)
        fn(0x400, 0x500, T(0x0), T(0x100), T(0x200), T(0x300), shape, tpu.DT_FP32, tpu.DT_INT32)
        assert read_bits(core, 0x400, (1, 1, 1, 6), tpu.DT_FP32).ravel().tolist() == dst0
        assert read_bits(core, 0x500, (1, 1, 1, 6), tpu.DT_INT32).ravel().tolist() == dst1


@pytest.mark.parametrize("chip", CHIPS)
def test_selected_fp32_denormals_are_copied_unchanged(chip):
    """§4.4: greater_select with FP32 dst, src2 = 0x00000001, src3 = 0x80000001: no FTZ on the select path."""
    with tpu.Core(chip) as core:
        shape = _concrete_setup(core)
        tpu.tpu_bdc_greater_select(0x400, T(0x0), T(0x100), S(0x00000001), S(0x80000001), shape,
                                   tpu.DT_FP32, tpu.DT_FP32)  # fmt: skip
        got = read_bits(core, 0x400, (1, 1, 1, 6), tpu.DT_FP32).ravel().tolist()
    assert got == [0x1, 0x80000001, 0x80000001, 0x80000001, 0x80000001, 0x80000001]


# ------------------------------------------------------------------ §4.5 SCALAR operands


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize(
    ("scalar_u32", "mask"),
    [(0x00000005, [0, 0, 1, 0]), (0xFFFFFF05, [0, 0, 1, 0]), (0x000000FA, [1, 1, 1, 0])],
)
def test_int8_scalar_uses_only_the_low_byte(chip, scalar_u32, mask):
    """a = [4, 5, 6, -6] greater than SCALAR: garbage high bits are ignored; 0xFA compares as -6."""
    with tpu.Core(chip) as core:
        core.write_local(0x0, np.array([4, 5, 6, -6], np.int8).reshape(1, 1, 1, 4), tpu.DT_INT8)
        tpu.tpu_bdc_greater_select(0x100, T(0x0), S(scalar_u32), S(1), S(0), tpu.dim4(1, 1, 1, 4),
                                   tpu.DT_INT8, tpu.DT_INT8)  # fmt: skip
        assert core.read_local(0x100, (1, 1, 1, 4), tpu.DT_INT8).ravel().tolist() == mask


@pytest.mark.parametrize("chip", CHIPS)
def test_fp16_scalar_ignores_high_half(chip):
    results = []
    for u32 in (0x3C00, 0xDEAD3C00):
        with tpu.Core(chip) as core:
            x = np.array([0.5, 1.0, 2.0, -0.0], np.float16).reshape(1, 1, 1, 4)
            core.write_local(0x0, x, tpu.DT_FP16)
            tpu.tpu_bdc_greater_select(0x100, T(0x0), S(u32), S(1), S(0), tpu.dim4(1, 1, 1, 4),
                                       tpu.DT_FP16, tpu.DT_INT16)  # fmt: skip
            results.append(core.read_local(0x100, (1, 1, 1, 4), tpu.DT_INT16).ravel().tolist())
    assert results == [[0, 0, 1, 0], [0, 0, 1, 0]]


@pytest.mark.parametrize("chip", CHIPS)
def test_scalar_payloads_are_truncated_to_dst_width(chip):
    """SCALAR src2 = 0x12345678 / src3 = 0xABCDEF01 with dst INT16 write 0x5678 / 0xEF01."""
    with tpu.Core(chip) as core:
        core.write_local(0x0, np.array([1, 0], np.int16).reshape(1, 1, 1, 2), tpu.DT_INT16)
        tpu.tpu_bdc_greater_select(0x100, T(0x0), S(0), S(0x12345678), S(0xABCDEF01), tpu.dim4(1, 1, 1, 2),
                                   tpu.DT_INT16, tpu.DT_INT16)  # fmt: skip
        assert read_bits(core, 0x100, (1, 1, 1, 2), tpu.DT_INT16).ravel().tolist() == [0x5678, 0xEF01]


# ------------------------------------------------------------------ §3.4 VECTOR operands


@pytest.mark.parametrize("dtype", [tpu.DT_INT8, tpu.DT_INT32], ids=lambda d: d.name)
def test_vector_wraps_every_npu_num_channels(dtype):
    """§3.4 [BM1684X]: v[l] = l at lane (5 + l) % 64, t = [30, 0] per channel, C = 130."""
    want = {0: [0, 0], 29: [0, 1], 31: [1, 1], 63: [1, 1], 64: [0, 0], 95: [1, 1], 127: [1, 1], 129: [0, 1]}
    with tpu.Core("BM1684X") as core:
        base = 5 * core.chip.local_mem_bytes
        write_vector_bits(core, base + 0x40, np.arange(64), dtype)
        t = np.broadcast_to(np.array([30, 0]).reshape(1, 1, 1, 2), (1, 130, 1, 2))
        write_bits(core, base + 0x1000, t, dtype)
        tpu.tpu_bdc_greater_select(base + 0x8000, V(base + 0x40), T(base + 0x1000), S(1), S(0),
                                   tpu.dim4(1, 130, 1, 2), dtype, dtype)  # fmt: skip
        got = read_bits(core, base + 0x8000, (1, 130, 1, 2), dtype).reshape(130, 2)
    assert {c: got[c].tolist() for c in want} == want


def test_vector_reads_its_own_offset_in_every_lane_not_a_second_channel_slot():
    """Measured on the cmodel while generating fixtures: with start lane 63, channels 1 and 2 of
    a VECTOR come from lanes 0 and 1 at the vector's offset, not from slot 1 of an aligned
    [1, C, 1, 1] tensor (the seed's "src(0, c mod NPU_NUM, 0, 0)" holds for start lane 0 only)."""
    with tpu.Core("BM1684X") as core:
        lms = core.chip.local_mem_bytes
        base = 63 * lms
        for lane, value in ((63, 10), (0, 20), (1, 21)):
            core.write_local_bytes(lane, 0x100, bytes([value]))
        for lane, value in ((0, 30), (1, 31)):  # where an aligned [1, 3, 1, 1] tensor keeps channels 1, 2
            core.write_local_bytes(lane, 0x140, bytes([value]))
        tpu.tpu_bdc_maximum_greater_select(base + 0x2000, base + 0x3000, V(base + 0x100), S(0), S(1), S(2),
                                           tpu.dim4(1, 3, 1, 1), tpu.DT_UINT8, tpu.DT_UINT8)  # fmt: skip
        assert core.read_local(base + 0x2000, (1, 3, 1, 1), tpu.DT_UINT8).ravel().tolist() == [10, 20, 21]


# ------------------------------------------------------------------ §4.2 narrow compare, wide dst


@pytest.mark.parametrize("chip", CHIPS)
def test_int8_compare_selects_int32_payload_bits_from_its_own_layout(chip):
    """src0/src1 use the INT8 aligned layout, src2/src3/dst the INT32 one; bits copied unchanged."""
    shape = (2, 5, 3, 7)
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, shape).astype(np.int8)
    b = rng.integers(-128, 128, shape).astype(np.int8)
    c = rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    with tpu.Core(chip) as core:
        core.write_local(0x0, a, tpu.DT_INT8)
        core.write_local(0x2000, b, tpu.DT_INT8)
        write_bits(core, 0x4000, c, tpu.DT_FP32)  # payload bits include NaNs and subnormals
        tpu.tpu_bdc_less_select(0x8000, T(0x0), T(0x2000), T(0x4000), S(0x7FC00001), tpu.dim4(*shape),
                                tpu.DT_INT8, tpu.DT_FP32)  # fmt: skip
        got = read_bits(core, 0x8000, shape, tpu.DT_FP32)
    assert np.array_equal(got, np.where(a < b, c, np.uint32(0x7FC00001)))


@pytest.mark.parametrize("chip", CHIPS)
def test_in_place_dst_equal_src0(chip):
    """§3.4: dst == src0 gives the elementwise result (clamp-style use from torch-tpu kernels)."""
    shape = (1, 70, 2, 3)
    x = np.linspace(-3, 3, num=np.prod(shape), dtype=np.float32).reshape(shape)
    with tpu.Core(chip) as core:
        core.write_local(0x0, x, tpu.DT_FP32)
        tpu.tpu_bdc_greater_select(0x0, T(0x0), S(tpu.scalar_t(f32=1.0).u32), S(tpu.scalar_t(f32=1.0).u32),
                                   T(0x0), tpu.dim4(*shape), tpu.DT_FP32, tpu.DT_FP32)  # fmt: skip
        got = core.read_local(0x0, shape, tpu.DT_FP32)
    assert np.array_equal(got.view(np.uint32), np.minimum(x, np.float32(1.0)).view(np.uint32))
