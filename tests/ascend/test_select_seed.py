"""Seed 003's worked Select examples, byte for byte (Select.md "结果示例").

Inputs and outputs are the printed vectors, stored as raw float32 bytes in
``npusim/data/seed_examples.json`` (copied from ``shared/data``).  Each example
runs in the high-dimensional form of the document (mask 64, 4 repeats,
``{1,1,1,8,8,8}``), with a bitwise mask ``[UINT64_MAX, 0]`` (the document's
mode-0 snippet), and in the count form.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from npusim import ascend as asc

CASES = json.loads(resources.files("npusim.data").joinpath("seed_examples.json").read_text())["select"]
SRC0, SRC1, SEL, DST = 0x0000, 0x0400, 0x0800, 0x1000


def run(case: dict, form: str, sel_bytes: bytes | None = None) -> bytes:
    sel_bytes = bytes.fromhex(case["sel_mask"]["hex"]) if sel_bytes is None else sel_bytes
    with asc.Core("A2") as core:
        core.ub_write(SRC0, bytes.fromhex(case["src0"]["hex"]))
        core.ub_write(SRC1, bytes.fromhex(case["src1"]["hex"]) if "src1" in case else bytes(1024))
        core.ub_write(SEL, sel_bytes)
        core.ub_write(DST, bytes(1024))
        src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC0, 256)
        src1 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC1, 256)
        sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, SEL, len(sel_bytes))
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 256)
        mode = asc.SelMode(case["sel_mode"])
        other = case.get("src1_scalar", 0.0) if case["sel_mode"] == 1 else src1
        params = asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
        if form == "count":
            asc.select(dst, sel, src0, other, mode, 256)
        elif form == "mask":
            asc.select(dst, sel, src0, other, mode, 64, 4, params)
        else:
            asc.select(dst, sel, src0, other, mode, [2**64 - 1, 0], 4, params)
        return core.ub_read(DST, 1024)


@pytest.mark.parametrize("form", ["mask", "bitwise", "count"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"mode{c['sel_mode']}")
def test_seed_example_byte_exact(case, form):
    assert run(case, form) == bytes.fromhex(case["dst"]["hex"])


def test_seed_examples_cover_all_three_modes():
    assert sorted(c["sel_mode"] for c in CASES) == [0, 1, 2]


def test_seed_hex_matches_printed_values():
    """The stored bytes are the float32 rounding of the numbers the document prints."""
    for case in CASES:
        for key in ("src0", "dst"):
            printed = np.array([float(v) for v in case[key]["values"]], dtype=np.float32)
            assert printed.tobytes() == bytes.fromhex(case[key]["hex"])


def test_mode0_uses_only_first_64_bits_of_the_128_byte_mask():
    """Seed 003, mode 0: "In each repeat, only the first 64 bits of maskLocal are valid"."""
    case = next(c for c in CASES if c["sel_mode"] == 0)
    sel = bytearray.fromhex(case["sel_mask"]["hex"])
    assert len(sel) == 128
    rng = np.random.default_rng(3)
    sel[8:] = rng.integers(0, 256, 120, dtype=np.uint8).tobytes()
    for form in ("mask", "count"):
        assert run(case, form, bytes(sel)) == bytes.fromhex(case["dst"]["hex"])


def test_mode0_reuses_mask_every_repeat_by_hand():
    """Mask byte 60 = 0b00111100: elements 0,1 <- src1; 2..5 <- src0; 6,7 <- src1; same at 64+."""
    case = next(c for c in CASES if c["sel_mode"] == 0)
    got = np.frombuffer(run(case, "mask"), np.float32)
    src0 = np.frombuffer(bytes.fromhex(case["src0"]["hex"]), np.float32)
    src1 = np.frombuffer(bytes.fromhex(case["src1"]["hex"]), np.float32)
    for base in (0, 64, 128, 192):
        picks = [src1, src1, src0, src0, src0, src0, src1, src1]
        assert [got[base + i] for i in range(8)] == [p[base + i] for i, p in enumerate(picks)]


def test_mode2_consumes_next_8_bytes_each_repeat_by_hand():
    """Mode 2, float: repeat 1 uses selMask bytes 8..15; byte 8 = 19 = 0b00010011."""
    case = next(c for c in CASES if c["sel_mode"] == 2)
    got = np.frombuffer(run(case, "mask"), np.float32)
    src0 = np.frombuffer(bytes.fromhex(case["src0"]["hex"]), np.float32)
    src1 = np.frombuffer(bytes.fromhex(case["src1"]["hex"]), np.float32)
    expected = [src0[64], src0[65], src1[66], src1[67], src0[68], src1[69], src1[70], src1[71]]
    assert list(got[64:72]) == expected
