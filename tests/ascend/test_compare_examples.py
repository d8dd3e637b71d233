"""Worked Compare examples: seed 001 (asc_ne_scalar) and the asc-devkit docs (ref §7 items 2-4).

The doc vectors live in ``tests/data/ascend_compare_doc_examples.json`` (extracted verbatim by
``tools/extract_compare_doc_examples.py``); expected bytes are the printed ones, or hand-checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from npusim import ascend as asc

DOC = json.loads((Path(__file__).resolve().parents[1] / "data" / "ascend_compare_doc_examples.json").read_text())
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT


def f32(values: list[str]) -> np.ndarray:
    return np.array([np.float32(v) for v in values], dtype=np.float32)


# ----------------------------------------------------------------- seed 001
def seed001_src() -> np.ndarray:
    """128 halves: element i = i, except 21, 64 and 127 also equal 20, and 3 is NaN."""
    src = np.arange(128, dtype=np.float16)
    src[[21, 64, 127]] = 20
    src[3] = np.nan
    return src


# Hand-checked: NE 20 clears the bits of elements 20, 21 (byte 2, bits 4-5: 0b11001111),
# 64 (byte 8, bit 0: 0b11111110) and 127 (byte 15, bit 7: 0b01111111); NaN != 20 is true.
SEED001_NE = bytes([0xFF, 0xFF, 0xCF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
# EQ sets exactly those bits; NaN == 20 is false.
SEED001_EQ = bytes([0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80])


@pytest.mark.parametrize("chip", ["A2", "A3"])
@pytest.mark.parametrize(("function", "expected"), [("asc_ne_scalar", SEED001_NE), ("asc_eq_scalar", SEED001_EQ),
                                                    ("asc_ne_scalar_sync", SEED001_NE)])
def test_seed001_call_example(chip, function, expected):
    """Seed 001 '调用示例': 128 half elements, scalar 20, repeat 1, strides 1/1/8/8."""
    with asc.Core(chip) as core:
        src = asc.LocalTensor(asc.half, VECIN, 0x0000, 128)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0100, 128 // 8)
        src.write(seed001_src())
        core.ub_write(0x0100, bytes([0xA5]) * 32)
        getattr(asc, function)(dst, src, np.float16(20), 1, 1, 1, 8, 8)
        assert core.ub_read(0x0100, 16) == expected
        assert core.ub_read(0x0110, 16) == bytes([0xA5]) * 16  # nothing past E/8 = 16 bytes
        assert [r.kind for r in core.sync_log] == (["pipe_barrier"] if function.endswith("_sync") else [])


def test_seed001_same_bits_through_compare_scalar():
    """The C++ API form gives the same 16 bytes (count 128 = one 256-byte repeat)."""
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.half, VECIN, 0x0000, 128)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0100, 16)
        src.write(seed001_src())
        asc.compare_scalar(dst, src, 20.0, cmp_mode=asc.CMPMODE.NE, count=128)
        assert core.ub_read(0x0100, 16) == SEED001_NE


# ------------------------------------------------- ref §7 item 2: to CMPMASK
@pytest.mark.parametrize("chip", ["A2", "A3", "310P", "950"])
@pytest.mark.parametrize("mask", [64, [2**64 - 1, 0]])
def test_register_compare_doc_example(chip, mask):
    """Compare（结果存入寄存器）.md: 64 floats LT -> CMPMASK bytes [122 86 237 94 150 3 226 242]."""
    case = DOC["register_lt_float32"]
    with asc.Core(chip) as core:
        src0 = asc.LocalTensor(asc.float32, VECIN, 0x0000, 64)
        src1 = asc.LocalTensor(asc.float32, VECIN, 0x0100, 64)
        src0.write(f32(case["src0"]))
        src1.write(f32(case["src1"]))
        core.cmpmask = bytes([0x5A]) * 16
        asc.compare(src0, src1, asc.CMPMODE.LT, mask, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
        assert core.cmpmask[:8] == bytes(case["cmpmask_low8"])
        # float writes the low 64 bits; A2/310P vcmp leaves the rest, the 950 emulation zeroes it.
        assert core.cmpmask[8:] == (bytes(8) if chip == "950" else bytes([0x5A]) * 8)
        out = asc.LocalTensor(asc.uint8, VECOUT, 0x0200, 16)
        asc.get_cmp_mask(out)
        assert core.ub_read(0x0200, 8) == bytes(case["cmpmask_low8"])


def test_register_compare_doc_example_through_c_api():
    """The same example with asc_lt's register form and asc_get_cmp_mask (asc_lt.md 调用示例)."""
    case = DOC["register_lt_float32"]
    with asc.Core("A2") as core:
        src0 = asc.LocalTensor(asc.float32, VECIN, 0x0000, 64)
        src1 = asc.LocalTensor(asc.float32, VECIN, 0x0100, 64)
        out = asc.LocalTensor(asc.uint8, VECOUT, 0x0200, 16)
        src0.write(f32(case["src0"]))
        src1.write(f32(case["src1"]))
        asc.set_vector_mask(64, dtype=asc.float32)
        asc.asc_lt(src0, src1, 1, 1, 1, 1, 8, 8, 8)
        asc.asc_get_cmp_mask(out)
        assert core.ub_read(0x0200, 8) == bytes(case["cmpmask_low8"])


# ------------------------------------------------- ref §7 item 3: Compares
@pytest.mark.parametrize("chip", ["A2", "A3", "950", "310P", "310B", "KirinX90"])
@pytest.mark.parametrize("form", ["count", "mask", "bits"])
def test_compares_doc_example(chip, form):
    """Compares.md: 256 floats LT src1Local.GetValue(0) = -95.16087 -> 32 bytes."""
    case = DOC["compares_lt_float32"]
    with asc.Core(chip) as core:
        src0 = asc.LocalTensor(asc.float32, VECIN, 0x0000, 256)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0400, 32)
        src0.write(f32(case["src0"]))
        dst.write(np.zeros(32))
        scalar = np.float32(case["scalar"])
        if form == "count":
            asc.compare_scalar(dst, src0, scalar, asc.CMPMODE.LT, 256)
        else:  # the doc's two high-dim snippets: mask = 64 and mask = {UINT64_MAX, 0}, 4 repeats, {1,1,8,8}
            mask = 64 if form == "mask" else [2**64 - 1, 0]
            asc.compare_scalar(dst, src0, scalar, asc.CMPMODE.LT, mask, 4, asc.UnaryRepeatParams(1, 1, 8, 8))
        assert core.ub_read(0x0400, 32) == bytes(case["dst"])


def test_compares_doc_example_through_c_api():
    case = DOC["compares_lt_float32"]
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.float32, VECIN, 0x0000, 256)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0400, 32)
        src.write(f32(case["src0"]))
        asc.asc_lt_scalar(dst, src, np.float32(case["scalar"]), 4, 1, 1, 8, 8)
        assert core.ub_read(0x0400, 32) == bytes(case["dst"])


# ------------------------------------------------- ref §7 item 4 (consistent parts only, §3.8)
def test_compare_bitmask_example_masked_bits_zero_on_950_and_310B():
    """Compare.md mask逐bit example (LE, mask 0x33333333) -> [51 51 51 51 0 0 0 0].

    The printed output is the 950/310B rule (masked-off bits written as 0); on A2 the mask is a
    reserved parameter, so every bit of the repeat is written (ref §3.2): elements 0-31 satisfy
    LE (2<=2, 3<=4, 5<=6, 7<=8), elements 32-63 do not (11>10 ...).
    """
    case = DOC["compare_le_bitmask_float32"]
    results = {}
    for chip in ("950", "310B", "A2"):
        with asc.Core(chip) as core:
            src0 = asc.LocalTensor(asc.float32, VECIN, 0x0000, 64)
            src1 = asc.LocalTensor(asc.float32, VECIN, 0x0100, 64)
            dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0200, 32)
            src0.write(f32(case["src0"]))
            src1.write(f32(case["src1"]))
            dst.write(np.full(32, 0xEE))
            asc.compare(dst, src0, src1, asc.CMPMODE.LE, case["mask"], case["repeat_times"],
                        asc.BinaryRepeatParams(1, 1, 1, 1, 8, 8))
            results[chip] = core.ub_read(0x0200, 32)
    assert results["950"][:8] == results["310B"][:8] == bytes(case["dst"])
    assert results["A2"][:8] == bytes([255, 255, 255, 255, 0, 0, 0, 0])
    assert all(r[8:] == bytes([0xEE]) * 24 for r in results.values())  # one repeat writes 8 bytes


@pytest.mark.parametrize("mode", ["GT", "GE", "LE", "EQ", "NE"])
def test_compare_first_byte_examples(mode):
    """Compare.md first-n example: [2 3 5 7 11 13 17 19] vs [2 4 6 8 10 12 14 16], first dst byte.

    The doc prints each byte as ``decimal(0bbinary)``; the binary is the golden value.  For NE
    it prints ``126(0b11111110)``: the binary (254) matches the inputs (only 2 != 2 is false),
    the decimal is a misprint, an erratum beyond those listed in ref §3.8.  The doc shows only
    the first 8 elements; the other 56 of the 64-float repeat are zeros here.  (The doc's LT
    output is misprinted, ref §3.8, and is not used.)
    """
    case = DOC["compare_first_byte_float32"]
    with asc.Core("A2") as core:
        src0 = asc.LocalTensor(asc.float32, VECIN, 0x0000, 64)
        src1 = asc.LocalTensor(asc.float32, VECIN, 0x0100, 64)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0200, 8)
        src0.write(np.concatenate([f32(case["src0_first8"]), np.zeros(56, np.float32)]))
        src1.write(np.concatenate([f32(case["src1_first8"]), np.zeros(56, np.float32)]))
        asc.compare(dst, src0, src1, asc.CMPMODE[mode], 64)
        assert core.ub_read(0x0200, 1)[0] == int(case["first_byte_binary"][mode], 2)
    if mode != "NE":
        assert case["first_byte"][mode] == int(case["first_byte_binary"][mode], 2)
