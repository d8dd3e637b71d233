"""gather_mask and get_gather_mask_remain_count (比较与选择/GatherMask.md): the page's worked example, a
per-element model of its description (below), the registers the lowering leaves, and every constraint.

Model: repeat r looks at n_r elements (Normal: E; Counter, 配置方式一: mask per repeat; the 310P's
配置方式二: mask in all, E per repeat); element i of repeat r lies at src0 + r * src0RepeatStride * 32 +
(i // B) * src0BlockStride * 32 + (i % B) * sizeof(T) and is kept when its pattern bit is set (built-in:
1 even i, 2 odd, 3..6 i % 4 == 0..3, 7 all; user: bit i, LSB first, of the bytes from
r * src1RepeatStride * 32); the kept elements go to dst[0], dst[1], ... in order.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

UB_IMAGE = 64 * 1024
SRC, PAT, DST = 0, 16384, 32768


def image(seed: int = 13) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes()


def model(ub: bytes, itemsize: int, per_repeat: list[int], blk: int, rep: int, pattern, src1_rep: int):
    out = bytearray(ub)
    kept = []
    for r, n in enumerate(per_repeat):
        for i in range(n):
            if isinstance(pattern, int):
                take = {1: i % 2 == 0, 2: i % 2 == 1, 3: i % 4 == 0, 4: i % 4 == 1, 5: i % 4 == 2, 6: i % 4 == 3,
                        7: True}[pattern]
            else:
                bit = r * src1_rep * 256 + i
                take = (ub[PAT + bit // 8] >> (bit % 8)) & 1
            if take:
                at = SRC + r * rep * 32 + (i // (32 // itemsize)) * blk * 32 + (i % (32 // itemsize)) * itemsize
                kept.append(ub[at:at + itemsize])
    for k, payload in enumerate(kept):
        out[DST + k * itemsize: DST + (k + 1) * itemsize] = payload
    return bytes(out), len(kept)


def run(chip, dtype, pattern, counter, mask, params, pattern_dtype=None):
    dt = getattr(asc, dtype)
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(dt, asc.TPosition.VECIN, SRC, 16384 // dt.itemsize)
        z = asc.LocalTensor(dt, asc.TPosition.VECOUT, DST, 16384 // dt.itemsize)
        if not isinstance(pattern, int):
            pdt = getattr(asc, pattern_dtype or {2: "uint16", 4: "uint32", 1: "uint8"}[dt.itemsize])
            pattern = asc.LocalTensor(pdt, asc.TPosition.VECIN, PAT, 4096 // pdt.itemsize)
        kept = asc.gather_mask(z, x, pattern, counter, mask, asc.GatherMaskParams(*params))
        return core.ub_read(0, UB_IMAGE), kept, core


def test_page_worked_example_in_place():
    """src0 = 1 .. 256 (float), pattern 2, Normal, {1, 4, 8, 0}, dst = src0: [2 4 ... 256], rsvdCnt 128."""
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        x.write(np.arange(1, 257, dtype=np.float32))
        kept = asc.gather_mask(x, x, 2, False, 0, asc.GatherMaskParams(1, 4, 8, 0))
        out = np.frombuffer(core.ub_read(0, 1024), np.float32)
        assert kept == 128 and asc.get_gather_mask_remain_count() == 128
    assert out[:128].tolist() == list(range(2, 257, 2))
    assert out[128:].tolist() == list(range(129, 257))  # past rsvdCnt ("undefined" on the page): untouched


def test_page_user_pattern_call():
    """The page's user-pattern call: 0x99999999 (elements 0 and 3 of every 4), Counter, mask 70,
    {1, 2, 4, 0}: 70 elements in each of 2 repeats (配置方式一)."""
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        core.ub_write(PAT, np.full(16, 0x99999999, np.uint32).tobytes())
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC, 1024)
        z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 1024)
        p = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, PAT, 16)
        kept = asc.gather_mask(z, x, p, True, 70, asc.GatherMaskParams(1, 2, 4, 0))
        got = core.ub_read(0, UB_IMAGE)
    ub = bytearray(image())
    ub[PAT:PAT + 64] = np.full(16, 0x99999999, np.uint32).tobytes()
    want, count = model(bytes(ub), 4, [70, 70], 1, 4, "tensor", 0)
    assert kept == count == 2 * (17 * 2 + 1)  # per 70: 0, 3, 4, 7, ... 68 -> 35 elements
    assert got == want


@settings(max_examples=60, deadline=None)
@given(chip=st.sampled_from(["A2", "310P", "950"]), dtype=st.sampled_from(["int16", "float16", "int32", "float32"]),
       data=st.data())
def test_against_the_model(chip, dtype, data):
    itemsize = getattr(asc, dtype).itemsize
    lanes = 256 // itemsize
    counter = data.draw(st.booleans(), "counter")
    repeats = data.draw(st.integers(0 if not counter else 1, 4), "repeats")
    mask = data.draw(st.integers(1, 3 * lanes), "mask") if counter else data.draw(st.integers(0, 5), "mask")
    blk, rep, src1_rep = data.draw(st.integers(1, 2)), data.draw(st.integers(0, 16)), data.draw(st.integers(0, 4))
    user = data.draw(st.booleans(), "user pattern")
    pattern = "tensor" if user else data.draw(st.integers(1, 6 if chip == "310P" else 7), "pattern")
    got, kept, core = run(chip, dtype, pattern, counter, mask, (blk, repeats, rep, src1_rep))
    if not counter:
        per_repeat = [lanes] * repeats
    elif chip == "310P":
        per_repeat = [lanes] * (mask // lanes) + ([mask % lanes] if mask % lanes else [])
    else:
        per_repeat = [mask] * repeats
    want, count = model(image(), itemsize, per_repeat, blk, rep, pattern, src1_rep)
    assert got == want and kept == count


@pytest.mark.parametrize("chip, words", [("A2", (70, 0)), ("310P", (70, 0)), ("950", (5, 7))])
def test_registers_after(chip, words):
    """SetMaskCount(); set_vector_mask(0, mask); vreducev2; SetMaskNorm(): normal mode after, mask (mask, 0)
    on the natively lowered products; RSVD_CNT = the count."""
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        asc.set_mask_count()
        asc.set_vector_mask(7, 5)
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 512)
        kept = asc.gather_mask(z, x, 1, True, 70, asc.GatherMaskParams(1, 1, 8, 0))
        assert core.mask_mode == asc.MaskMode.NORMAL and core.mask_words[:2] == words
        assert kept == 35 == asc.get_gather_mask_remain_count()


def _call(pattern=2, counter=False, mask=0, params=(1, 1, 8, 0), dtype=asc.float32, pattern_dtype=asc.uint32,
          dst=DST, dst_size=256, mode=asc.GatherMaskMode.DEFAULT, src_dtype=None):
    def call():
        x = asc.LocalTensor(src_dtype or dtype, asc.TPosition.VECIN, SRC, 4096)
        z = asc.LocalTensor(dtype, asc.TPosition.VECOUT, dst, dst_size)
        p = pattern if isinstance(pattern, int) else asc.LocalTensor(pattern_dtype, asc.TPosition.VECIN, PAT, 64)
        asc.gather_mask(z, x, p, counter, mask, asc.GatherMaskParams(*params), mode)
    return call


ERRORS = [
    ("A2", _call(pattern=0), ParameterRangeError, "src1_pattern"),
    ("A2", _call(pattern=8), ParameterRangeError, "src1_pattern"),
    ("310P", _call(pattern=7), ParameterRangeError, "src1_pattern"),  # 1-6 on the Atlas inference AI Core
    ("A2", _call(pattern="t", pattern_dtype=asc.uint16), UnsupportedError, "src1_pattern dtype"),
    ("A2", _call(counter=True, mask=0), ParameterRangeError, "mask"),
    ("A2", _call(params=(1, 256, 8, 0)), ParameterRangeError, "params.repeat_times"),
    ("A2", _call(params=(256, 1, 8, 0)), ParameterRangeError, "params.src0_block_stride"),
    ("A2", _call(params=(1, 1, 8, 256)), ParameterRangeError, "params.src1_repeat_stride"),
    ("A2", _call(dtype=asc.int8), UnsupportedError, "dst dtype"),
    ("A2", _call(src_dtype=asc.int32), UnsupportedError, "src0 dtype"),
    ("910", _call(), UnsupportedError, "product"),
    ("A2", _call(mode=1), UnsupportedError, "gather_mask_mode"),
    ("A2", _call(pattern=7, params=(1, 2, 8, 0), dst_size=100), OutOfBoundsError, "dst byte range"),
    ("A2", _call(params=(1, 100, 8, 0)), OutOfBoundsError, "src0 byte range"),
    ("A2", _call(pattern="t", dst=PAT), OverlapError, "dst byte address"),
    ("A2", _call(pattern=7, params=(1, 2, 0, 0), dst=SRC), OverlapError, "dst byte address"),  # re-read in place
]


@pytest.mark.parametrize("chip, call, error, operand", ERRORS)
def test_rejected_calls_name_the_rule_and_leave_memory(chip, call, error, operand):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        state = core.register_state()
        with pytest.raises(error) as info:
            call()
        assert core.ub_read(0, UB_IMAGE) == image() and core.register_state() == state
    assert info.value.instruction == "gather_mask" and info.value.operand == operand and info.value.source


def test_user_pattern_overlap_found_per_call():
    """With a user pattern the count is data: dst too small for this call's bits is found when it runs."""
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        p = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, PAT, 2)
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC, 64)
        z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 8)
        p.write([0xFF, 0])
        assert asc.gather_mask(z, x, p, False, 0, asc.GatherMaskParams(1, 1, 8, 0)) == 8
        p.write([0x1FF, 0])
        before = core.ub_read(0, UB_IMAGE)
        with pytest.raises(OutOfBoundsError):
            asc.gather_mask(z, x, p, False, 0, asc.GatherMaskParams(1, 1, 8, 0))
        assert core.ub_read(0, UB_IMAGE) == before and asc.get_gather_mask_remain_count() == 8


def test_a_huge_counter_mask_is_rejected_from_the_sizes_alone():
    """The 310P's total count (配置方式二) of 2^32 - 1 elements: src0's extent is computed, not listed."""
    with asc.Core("310P") as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC, 1024)
        z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 1024)
        with pytest.raises(OutOfBoundsError) as info:
            asc.gather_mask(z, x, 1, True, (1 << 32) - 1, asc.GatherMaskParams(1, 1, 8, 0))
        assert info.value.operand.startswith("src0 byte")
