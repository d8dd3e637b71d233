"""Property tests: the vectorised Select against the per-element reference model.

Every drawn call runs on a fresh core whose first 32 KiB of UB hold random bytes
with IEEE special values (NaN with payloads, infinities, signed zeros,
subnormals) mixed in.  After the call the *whole* UB, CMPMASK and the vector
mask register must equal the model's prediction byte for byte — which also
proves nothing outside the operands (and the documented scratch) was touched.
A call the model's overlap oracle flags must be rejected with ``OverlapError``
and leave the state unchanged; any other call must succeed.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OverlapError

from ..float_reference import expected_bits
from .reference_model import (
    FULL,
    SelectCase,
    counter_lanes,
    normal_lanes,
    run_select,
    set_mask_words,
    violates_overlap_rules,
)

REGION = 8 * 1024
DST, SRC0, SRC1, SEL = 0, REGION, 2 * REGION, 3 * REGION
A2_SCRATCH = 184 * 1024

SPECIALS = {
    2: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE55, 0x0001, 0x83FF, 0x7BFF],
    4: [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC0DEAD, 0x00000001,
        0x807FFFFF, 0x7F7FFFFF],
}
COUNT_ONLY_950 = [asc.int8, asc.uint8, asc.int64, asc.uint64]  # ref §2.4: calCount API only
DTYPES = {
    "A2": [asc.float16, asc.float32],
    "950": [asc.float16, asc.bfloat16, asc.int16, asc.uint16, asc.float32, asc.int32, asc.uint32],
}


def fill_ub(core, seed: int, size: int) -> bytearray:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, 4 * REGION, dtype=np.uint8)
    raw = data.view(f"<u{size}")
    if size in SPECIALS:
        picks = rng.integers(0, raw.size, raw.size // 4)
        raw[picks] = rng.choice(SPECIALS[size], picks.size)
    core.ub_write(0, data.tobytes())
    return bytearray(core.ub_read(0, core.ub.size_bytes))


@st.composite
def select_calls(draw):
    chip = draw(st.sampled_from(["A2", "950"]))
    form = draw(st.sampled_from(["count", "mask_int", "mask_list", "counter_list"]))
    dtype = draw(st.sampled_from(DTYPES[chip] + (COUNT_ONLY_950 if chip == "950" and form == "count" else [])))
    size = dtype.itemsize
    lanes = 256 // size
    mode = draw(st.sampled_from([1, 2] if size == 8 else [0, 1, 2]))
    layout = draw(st.sampled_from(["separate", "separate", "in_place", "shifted"]))
    strides = (
        draw(st.integers(1, 4)), draw(st.integers(0, 4)), draw(st.integers(0, 4)),
        draw(st.integers(0, 12)), draw(st.integers(0, 12)), draw(st.integers(0, 12)),
    )
    call = {
        "chip": chip, "dtype": dtype, "mode": mode, "form": form, "layout": layout, "seed": draw(st.integers(0, 2**32)),
        "repeats": draw(st.integers(0, 6)), "strides": strides,
        "count": draw(st.integers(1, 6 * lanes)),
        "mask_int": draw(st.one_of(st.integers(1, lanes), st.integers(lanes + 1, 300))),
        "mask_list": [draw(st.integers(0, FULL)), 0 if size == 4 else draw(st.integers(0, FULL))],
        "shift": draw(st.integers(1, 7)) * 32,
        "scalar": draw(st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 1e-45, 70000.0, 1 + 2**-11 + 2**-30])))
        if dtype.is_float else draw(st.integers(-(2 ** (8 * size - 1)), 2 ** (8 * size - 1) - 1)),
    }
    if call["mask_list"] == [0, 0]:
        call["mask_list"] = [1, 0]
    if not dtype.is_float and dtype.kind == "uint":
        call["scalar"] = abs(call["scalar"])
    return call


def expected_state(call, ub: bytearray, cmpmask_before: bytes, mask_before):
    """The model's UB, CMPMASK and vector mask register after the call."""
    dtype, size, mode, form = call["dtype"], call["dtype"].itemsize, call["mode"], call["form"]
    native = call["chip"] == "A2"
    bitwise_mask_stays = call["chip"] == "950"  # dav_3510 VselImpl(mask[]): SetVectorMask(mask[1], mask[0])
    strides = (1, 1, 1, 8, 8, 8) if form == "count" else call["strides"]
    dst, src0 = DST, SRC0
    if call["layout"] == "in_place":
        src0 = dst
        strides = (strides[0], strides[0], strides[2], strides[3], strides[3], strides[5])
    elif call["layout"] == "shifted":
        src0 = dst + call["shift"]
    mask_after = mask_before
    if form == "count":
        lanes = counter_lanes(call["count"], size)
        if native:
            mask_after = (FULL, FULL)
    elif form == "mask_int":
        low, high = set_mask_words(call["mask_int"], size)
        lanes = normal_lanes(low, high, call["repeats"], size)
        if native:
            mask_after = (high, low)
    elif form == "mask_list":
        low, high = call["mask_list"]
        lanes = normal_lanes(low, high, call["repeats"], size)
        if native or bitwise_mask_stays:
            mask_after = (high, low)
    else:
        lanes = counter_lanes(call["count"], size)
        if native or bitwise_mask_stays:
            mask_after = (0, call["count"])
    scalar_raw = None
    if mode == 1:
        bits = expected_bits(call["scalar"], dtype.name) if dtype.is_float else call["scalar"] % (1 << 8 * size)
        scalar_raw = bits.to_bytes(size, "little")
    cmpmask_after = cmpmask_before
    out = bytearray(ub)
    if native and mode == 0:
        cmpmask_after = bytes(ub[SEL : SEL + 16])
    elif native:
        copies = scalar_raw * 32 if mode == 1 else (SEL).to_bytes(4, "little") * 32
        out[A2_SCRATCH : A2_SCRATCH + len(copies)] = copies
        cmpmask_after = copies[:16]
    case = SelectCase(
        mode=mode, size=size, dst=dst, src0=src0, src1=None if mode == 1 else SRC1, scalar=scalar_raw,
        sel=None if (native and mode == 0) else SEL, cmpmask=cmpmask_after, lanes=lanes, strides=strides,
    )
    return case, out, cmpmask_after, mask_after


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(select_calls())
def test_select_matches_reference_model(call):
    dtype, mode = call["dtype"], call["mode"]
    with asc.Core(call["chip"]) as core:
        ub = fill_ub(core, call["seed"], dtype.itemsize)
        core.cmpmask = bytes(range(16))
        if call["form"] == "counter_list":
            asc.set_mask_count()
        cmpmask_before, mask_before = core.cmpmask, core.vector_mask
        case, expected_ub, cmpmask_after, mask_after = expected_state(call, ub, cmpmask_before, mask_before)
        region = 4 * REGION
        dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, case.dst, region // dtype.itemsize)
        src0 = asc.LocalTensor(dtype, asc.TPosition.VECIN, case.src0, (region - case.src0) // dtype.itemsize)
        src1 = (asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC1, REGION // dtype.itemsize) if mode != 1
                else call["scalar"])
        sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, SEL, REGION)
        params = asc.BinaryRepeatParams(*case.strides)
        sel_mode = asc.SelMode(mode)

        def issue():
            form = call["form"]
            if form == "count":
                asc.select(dst, sel, src0, src1, sel_mode, call["count"])
            elif form == "mask_int":
                asc.select(dst, sel, src0, src1, sel_mode, call["mask_int"], call["repeats"], params)
            elif form == "mask_list":
                asc.select(dst, sel, src0, src1, sel_mode, call["mask_list"], call["repeats"], params)
            else:
                asc.select(dst, sel, src0, src1, sel_mode, [call["count"], 0], 1, params)

        if violates_overlap_rules(case):
            before = core.ub.snapshot(), core.register_state()
            with pytest.raises(OverlapError):
                issue()
            assert (core.ub.snapshot(), core.register_state()) == before
            return
        start = core.ub.snapshot(), core.register_state()
        expected = bytes(run_select(expected_ub, case))
        for _attempt in ("planned", "cached plan"):
            core.ub.data[:] = np.frombuffer(start[0][0], np.uint8)
            core.ub.written[:] = np.frombuffer(start[0][1], np.uint8)
            core.load_cmpmask(start[1][0])
            core.mask_words, core.mask_mode = start[1][2], start[1][3]
            issue()
            assert core.ub_read(0, core.ub.size_bytes) == expected
            assert core.cmpmask == cmpmask_after
            assert core.vector_mask == mask_after
