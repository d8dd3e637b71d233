"""Layout formulas (sophgo-semantics §3.2, §3.3) and the vendor utility functions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import sophgo as tpu
from npusim.errors import NoActiveCoreError
from npusim.sophgo.layout import (
    align_up,
    channel_runs,
    div_up,
    element_lane_offset,
    lane_span_bytes,
    local_stride,
)

from . import reference_model as ref

BM1684X, BM1688 = tpu.CHIPS["BM1684X"], tpu.CHIPS["BM1688"]


def test_align_up_and_div_up():
    assert [div_up(x, 16) for x in (0, 1, 16, 17)] == [0, 1, 1, 2]
    assert [align_up(x, 16) for x in (0, 1, 16, 17)] == [0, 16, 16, 32]


# ------------------------------------------------------------------ §3.3 worked examples


@pytest.mark.parametrize(
    ("chip", "stride", "byte"), [(BM1684X, (64, 32, 5, 1), 220), (BM1688, (48, 16, 5, 1), 188)]
)
def test_int16_worked_example(chip, stride, byte):
    """INT16, shape (2, 70, 3, 5) at lane 5 offset 0; element (1, 60, 2, 4) -> lane 1."""
    shape = tpu.dim4(2, 70, 3, 5)
    assert local_stride("aligned", shape, 5, 16, chip).as_tuple() == stride
    lane, offset = element_lane_offset(5 * chip.local_mem_bytes, shape, tpu.dim4(*stride), 2, chip)
    assert (lane[1, 60, 2, 4], offset[1, 60, 2, 4]) == (1, byte)


def test_fp32_worked_example():
    """BM1684X, FP32, (1, 3, 7, 11) at 0x4000: stride (80, 80, 11, 1); (0, 2, 6, 10) -> lane 2, byte 16688."""
    shape = tpu.dim4(1, 3, 7, 11)
    stride = local_stride("aligned", shape, 0, 32, BM1684X)
    assert stride.as_tuple() == (80, 80, 11, 1)
    lane, offset = element_lane_offset(0x4000, shape, stride, 4, BM1684X)
    assert (lane[0, 2, 6, 10], offset[0, 2, 6, 10]) == (2, 16688)


def test_the_four_layouts():
    """BM1684X INT8 (EU_NUM 64), shape (2, 70, 3, 5), start lane 5 (two channel slots per lane)."""
    shape = tpu.dim4(2, 70, 3, 5)
    assert local_stride("aligned", shape, 5, 8, BM1684X).as_tuple() == (128, 64, 5, 1)
    assert local_stride("compact", shape, 5, 8, BM1684X).as_tuple() == (30, 15, 5, 1)
    assert local_stride("line_aligned", shape, 5, 8, BM1684X).as_tuple() == (384, 192, 64, 1)
    assert local_stride("continuous", shape, 5, 8, BM1684X).as_tuple() == (1050, 15, 5, 1)
    with pytest.raises(ValueError, match="unknown layout"):
        local_stride("tiled", shape, 0, 8, BM1684X)


def test_lane_span_bytes():
    shape = tpu.dim4(2, 70, 3, 5)
    stride = local_stride("aligned", shape, 5, 16, BM1684X)  # (64, 32, 5, 1)
    assert lane_span_bytes(shape, stride, 5, 2, BM1684X) == 2 * (64 + 1 * 32 + 2 * 5 + 4 + 1)


# ------------------------------------------------------------------ formula against the model

shapes = st.builds(tpu.dim4, st.integers(1, 3), st.integers(1, 140), st.integers(1, 4), st.integers(1, 9))


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.sampled_from(["BM1684X", "BM1688"]), shapes, st.integers(0, 63), st.sampled_from([1, 2, 4]))
def test_element_lane_offset_matches_the_per_element_model(chip_name, shape, lane, size):
    chip = tpu.CHIPS[chip_name]
    addr = (lane % chip.npu_num) * chip.local_mem_bytes + 0x100
    stride = local_stride("aligned", shape, lane % chip.npu_num, 8 * size, chip)
    lanes, offsets = element_lane_offset(addr, shape, stride, size, chip)
    for idx in [
        (0, 0, 0, 0),
        tuple(d - 1 for d in shape),
        (shape.n // 2, shape.c // 2, shape.h // 2, shape.w // 2),
    ]:
        assert (lanes[idx], offsets[idx]) == ref.aligned_location(
            chip_name, addr, shape.as_tuple(), size, *idx
        )


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.integers(0, 63), st.integers(1, 300), st.sampled_from([8, 32, 64]))
def test_channel_runs_tile_the_channels_in_order(start_lane, channels, npu):
    """Each channel exactly once, in order, at lane (s + c) % NPU and slot (s + c) // NPU."""
    start_lane %= npu
    runs = channel_runs(start_lane, channels, npu)
    assert len(runs) <= 3
    seen = []
    for run in runs:
        assert run.first_channel == len(seen) and run.lane >= 0 and run.lane + run.lanes <= npu
        for i in range(run.slots):
            for j in range(run.lanes):
                c = run.first_channel + i * run.lanes + j
                assert ((start_lane + c) % npu, (start_lane + c) // npu) == (run.lane + j, run.slot + i)
                seen.append(c)
    assert seen == list(range(channels))


# ------------------------------------------------------------------ vendor utility functions


def test_utility_functions_answer_for_the_active_chip():
    with tpu.Core("BM1684X"):
        assert (tpu.tpu_npu_num(), tpu.tpu_local_mem_size_per_npu(), tpu.tpu_bank_num()) == (64, 262144, 16)
        assert [tpu.tpu_eu_num(d) for d in (tpu.DT_FP32, tpu.DT_BFP16, tpu.DT_UINT8)] == [16, 32, 64]
        addr = 5 * 262144 + 3 * 16384 + 12
        assert (tpu.tpu_npu_index(addr), tpu.tpu_npu_addr(addr), tpu.tpu_bank_index(addr)) == (
            5,
            3 * 16384 + 12,
            3,
        )
        assert tpu.tpu_channle_num_per_npu(5, 70) == 2 and tpu.tpu_channle_num_per_npu(0, 64) == 1
        shape = tpu.dim4(2, 70, 3, 5)
        assert tpu.tpu_aligned_stride(5, shape, tpu.DT_INT16) == tpu.dim4(64, 32, 5, 1)
        assert tpu.tpu_compact_stride(5, shape) == tpu.dim4(30, 15, 5, 1)
        assert tpu.tpu_line_aligned_stride(5, shape, tpu.DT_INT8) == tpu.dim4(384, 192, 64, 1)
        assert tpu.tpu_continuous_stride(shape) == tpu.dim4(1050, 15, 5, 1)
    with tpu.Core("BM1688"):
        assert tpu.tpu_aligned_stride(5, shape, tpu.DT_INT16) == tpu.dim4(48, 16, 5, 1)
        assert tpu.tpu_bank_index(131072 + 8192 * 15) == 15


def test_utility_functions_need_an_active_core():
    for fn, args in ((tpu.tpu_npu_num, ()), (tpu.tpu_npu_index, (0,)), (tpu.tpu_aligned_stride,
                     (0, tpu.dim4(1, 1, 1, 1), tpu.DT_FP32))):  # fmt: skip
        with pytest.raises(NoActiveCoreError, match=fn.__name__):
            fn(*args)


def test_write_local_layouts_agree_with_stride_formulas():
    """write_local in each layout puts element (n, c, h, w) where the stride formula says."""
    shape = tpu.dim4(2, 70, 3, 5)
    values = np.arange(np.prod(shape.as_tuple()), dtype=np.int16).reshape(shape.as_tuple())
    for layout in ("aligned", "compact", "line_aligned", "continuous"):
        with tpu.Core("BM1684X") as core:
            addr = 5 * core.chip.local_mem_bytes + 0x200
            core.write_local(addr, values, tpu.DT_INT16, layout=layout)
            stride = local_stride(layout, shape, 5, 16, core.chip)
            for idx in [(1, 60, 2, 4), (0, 0, 0, 0), (1, 69, 0, 3), (0, 58, 1, 1)]:
                n, c, h, w = idx
                lane = (5 + c) % 64
                offset = 0x200 + 2 * (n * stride.n + (5 + c) // 64 * stride.c + h * stride.h + w * stride.w)
                assert core.local_bytes(lane, offset, 2) == values[idx].tobytes(), (layout, idx)
            assert np.array_equal(core.read_local(addr, shape, tpu.DT_INT16, layout=layout), values)
