"""NDDMA data_copy and nd_dma_dci (950): the printed example of NdDmaDci.md, the five scenarios of the
vendor sample data_copy_gm2ub_nddma (its gen_data.py goldens, restated here), a per-element reference
model (GMToUB多维数据搬运NDDMA(DataCopy).md 表5: loops, padding, strides) and every rule as a rejected call.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None)
Info, Params, Config = asc.NdDmaLoopInfo, asc.NdDmaParams, asc.NdDmaConfig


def gm(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def run(x: np.ndarray, info, out_elems: int, constant=0, config=None, dtype=asc.float32, fill=0) -> np.ndarray:
    with asc.Core("950") as core:
        core.ub_write(0, np.full(out_elems, fill, dtype.np_dtype).tobytes())
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, out_elems)
        asc.nd_dma_dci()
        if config is None:
            asc.data_copy(ub, gm(x.reshape(-1)), Params(info, constant))
        else:
            asc.data_copy(ub, gm(x.reshape(-1)), Params(info, constant), config)
        return ub.read()


def test_nd_dma_dci_page_example():
    """NdDmaDci.md: GM [2, 8] 1..16 -> UB [4, 16], left 3, top 1, right 5, bottom 1, padding 0 (printed)."""
    got = run(np.arange(1, 17, dtype=np.float32), Info([1, 8], [1, 16], [8, 2], [3, 1], [5, 1]), 64, fill=7)
    expected = np.zeros((4, 16), np.float32)
    expected[1, 3:11] = np.arange(1, 9)
    expected[2, 3:11] = np.arange(9, 17)
    assert got.tobytes() == expected.tobytes()


def test_the_record_names_exactly_the_bytes_read_and_written():
    """The NdDmaDci example: GM elements 0-15 read, the whole [4, 16] tile written; bytes outside the reads
    do not change the result."""
    info = Info([1, 8], [1, 16], [8, 2], [3, 1], [5, 1])
    results = []
    for seed in (1, 2):
        x = np.random.default_rng(seed).standard_normal(64).astype(np.float32)
        x[:16] = np.arange(1, 17)
        with asc.Core("950", trace=True) as core:
            core.ub_write(0, np.random.default_rng(seed).bytes(512))
            ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
            asc.data_copy(ub, gm(x), Params(info, 0))
            record = core.trace[-1]
            results.append(core.ub_read(0, 256))
        assert [(r.space, r.start, r.stop) for r in record.reads] == [("GM", 0, 64)]
        assert [(r.space, r.start, r.stop) for r in record.writes] == [("UB", 0, 256)]
        # it loads the NDDMA registers (dav_3510 DataCopyWithNDDMAImpl), which asc_ndim_copy_gm2ub reads
        assert record.registers_read == () and record.registers_written == ("NDDMA",) and record.pipe == "MTE2"
        assert core.nddma == (((1, 1), (16, 8), (0, 0), (0, 0), (0, 0)), ((1, 1), (0, 0), (0, 0), (0, 0)), 0)
    assert results[0] == results[1]


def test_vendor_scenario_1_constant_padding():
    x = np.arange(1, 16 * 32 + 1, dtype=np.float32).reshape(16, 32)
    golden = np.pad(x, ((13, 3), (15, 17)), mode="constant", constant_values=0)
    got = run(x, Info([1, 32], [1, 64], [32, 16], [15, 13], [17, 3]), 32 * 64, fill=5)
    assert got.tobytes() == golden.tobytes()


def test_vendor_scenario_2_nearest_value_padding():
    x = np.arange(1, 28 * 15 + 1, dtype=np.float32).reshape(28, 15)
    golden = np.array([[x[min(max(i - 3, 0), 27), min(max(j - 11, 0), 14)] for j in range(32)] for i in range(32)],
                      np.float32)
    got = run(x, Info([1, 15], [1, 32], [15, 28], [11, 3], [6, 1]), 32 * 32, config=Config(True))
    assert got.tobytes() == golden.tobytes()


def test_vendor_scenarios_3_to_5_transpose_broadcast_slice():
    x = np.arange(1, 16 * 64 + 1, dtype=np.float32).reshape(16, 64)
    assert run(x, Info([1, 64], [16, 1], [64, 16], [0, 0], [0, 0]), 64 * 16).tobytes() == x.T.copy().tobytes()
    row = np.arange(1, 17, dtype=np.float32).reshape(1, 16)
    assert run(row, Info([1, 0], [1, 16], [16, 3], [0, 0], [0, 0]), 48).tobytes() == np.tile(row, (3, 1)).tobytes()
    big = np.arange(1, 32 * 64 + 1, dtype=np.float32).reshape(32, 64)
    assert run(big, Info([1, 64], [1, 16], [16, 16], [0, 0], [0, 0]), 256).tobytes() == big[:16, :16].tobytes()


# ------------------------------------------------------------------ reference model
def reference(src: np.ndarray, out: np.ndarray, sizes, src_strides, dst_strides, lps, rps, constant, nearest):
    out = out.copy()
    ranges = [range(lp + n + rp) for n, lp, rp in zip(sizes, lps, rps, strict=True)]
    for j in itertools.product(*ranges):
        k = [jd - lp for jd, lp in zip(j, lps, strict=True)]
        inside = all(0 <= kd < n for kd, n in zip(k, sizes, strict=True))
        d = sum(jd * s for jd, s in zip(j, dst_strides, strict=True))
        if inside or nearest:
            k = [min(max(kd, 0), n - 1) for kd, n in zip(k, sizes, strict=True)]
            out[d] = src[sum(kd * s for kd, s in zip(k, src_strides, strict=True))]
        else:
            out[d] = constant
    return out


@st.composite
def nddma_case(draw):
    dim = draw(st.integers(1, 3))
    sizes = [draw(st.integers(1, 4)) for _ in range(dim)]
    lps = [draw(st.integers(0, 2)) for _ in range(dim)]
    rps = [draw(st.integers(0, 2)) for _ in range(dim)]
    dst_strides, span = [], 1
    for d in range(dim):  # ascending, not interleaving
        dst_strides.append(span + draw(st.integers(0, 2)) if d else draw(st.integers(1, 2)))
        span = (lps[d] + sizes[d] + rps[d] - 1) * dst_strides[d] + span
    src_strides = [draw(st.integers(0, 6)) for _ in range(dim)]
    nearest = draw(st.booleans())
    dtype = draw(st.sampled_from([asc.int8, asc.uint16, asc.float32, asc.int64] if not nearest else
                                 [asc.int8, asc.float16, asc.int32]))
    constant = 0 if dtype.itemsize == 8 else draw(st.integers(0, 100))
    return dtype, sizes, src_strides, dst_strides, lps, rps, constant, nearest


@SETTINGS
@given(nddma_case(), st.integers(0, 5))
def test_nddma_matches_the_reference(case, gm_offset):
    dtype, sizes, src_strides, dst_strides, lps, rps, constant, nearest = case
    src_elems = gm_offset + sum((n - 1) * s for n, s in zip(sizes, src_strides, strict=True)) + 1
    dst_elems = sum((lp + n + rp - 1) * s for n, lp, rp, s in zip(sizes, lps, rps, dst_strides, strict=True)) + 1
    dst_elems = -(-dst_elems * dtype.itemsize // 32) * 32 // dtype.itemsize
    np_type = dtype.np_dtype
    x = (np.arange(src_elems) * 3 + 1).astype(np_type)
    fill = np.full(dst_elems, 99, np_type)
    with asc.Core("950") as core:
        core.ub_write(0x200, fill.tobytes())
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0x200, dst_elems)
        asc.data_copy(ub, gm(x)[gm_offset:], Params(Info(src_strides, dst_strides, sizes, lps, rps), constant),
                      Config(nearest))
        got = ub.read()
    expected = reference(x[gm_offset:], fill, sizes, src_strides, dst_strides, lps, rps, np_type.type(constant),
                         nearest)
    assert got.tobytes() == expected.tobytes()


def test_config_paddings_replace_every_dimension():
    x = np.arange(1, 7, dtype=np.int32)
    got = run(x, Info([1, 3], [1, 8], [3, 2], [9, 9], [9, 9]), 56, constant=-1, config=Config(False, 2, 3),
              dtype=asc.int32)
    expected = reference(x, np.zeros(56, np.int32), [3, 2], [1, 3], [1, 8], [2, 2], [3, 3], -1, False)
    assert got.tobytes() == expected.tobytes()


# ------------------------------------------------------------------ rejected calls
DEFAULT_CONFIG = Config()


def rejected(error, info, constant=0, config=DEFAULT_CONFIG, chip="950", dtype=asc.float32, **fields):
    x = np.zeros(4096, dtype.np_dtype)
    with asc.Core(chip) as core:
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 8192 // dtype.itemsize)
        err = assert_rejected(core, error, lambda: asc.data_copy(ub, gm(x), Params(info, constant), config), **fields)
    assert err.instruction == "data_copy"


GOOD = ([1, 8], [1, 16], [8, 2], [3, 1], [5, 1])


@pytest.mark.parametrize("field, index, value", [(0, 1, 1 << 40), (1, 0, 1 << 20), (2, 1, 1 << 20), (3, 0, 256),
                                                 (4, 1, 256), (1, 1, -1)])
def test_field_ranges(field, index, value):
    fields = [list(f) for f in GOOD]
    fields[field][index] = value
    name = ["loop_src_stride", "loop_dst_stride", "loop_size", "loop_lp_size", "loop_rp_size"][field]
    rejected(ParameterRangeError, Info(*fields), operand=f"params.loop_info.{name}[{index}]", value=value)


def test_dim_is_one_to_five_and_every_sequence_has_dim_entries():
    rejected(ParameterRangeError, Info([1] * 6, [1] * 6, [1] * 6, [0] * 6, [0] * 6),
             operand="dim (len(params.loop_info.loop_size))", value=6)
    rejected(ParameterRangeError, Info([], [], [], [], []), operand="dim (len(params.loop_info.loop_size))", value=0)
    rejected(ParameterRangeError, Info([1, 8], [1], [8, 2], [3, 1], [5, 1]),
             operand="len(params.loop_info.loop_dst_stride)", value=1)


def test_config_rules():
    rejected(ParameterRangeError, Info(*GOOD), config=Config(False, 256), operand="config.loop_lp_size", value=256)
    rejected(UnsupportedError, Info(*GOOD), config=Config(False, 0xFFFF, 0xFFFF, True), operand="config.asc_optimize")
    rejected(UnsupportedError, Info(*GOOD), config=Config(True), dtype=asc.int64,
             operand="config.is_nearest_value_mode")
    rejected(ParameterRangeError, Info(*GOOD), constant=5, dtype=asc.uint64, operand="params.constant_value", value=5)


def test_loops_may_not_interleave_or_overlap():
    rejected(OverlapError, Info([1, 8], [1, 10], [8, 2], [3, 1], [5, 1]),
             operand="params.loop_info.loop_dst_stride[1]", value=10)
    rejected(OverlapError, Info([1, 8], [4, 2], [8, 3], [0, 0], [0, 0]), operand="params.loop_info.loop_dst_stride")


def test_a_loop_size_of_zero_is_not_modelled():
    rejected(UnsupportedError, Info([1, 8], [1, 16], [0, 2], [3, 1], [5, 1]), operand="params.loop_info.loop_size")


@pytest.mark.parametrize("chip", ["A2", "310P", "910"])
def test_only_the_950_has_nddma(chip):
    rejected(UnsupportedError, Info(*GOOD), chip=chip, operand="product")
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, asc.nd_dma_dci, operand="product")


def test_direction_and_types():
    with asc.Core("950"):
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        x = gm(np.zeros(64, np.float32))
        with pytest.raises(TypeError, match="GM -> UB"):
            asc.data_copy(x, ub, Params(Info(*GOOD), 0))
        with pytest.raises(TypeError, match="NdDmaLoopInfo"):
            asc.data_copy(ub, x, Params((1, 2), 0))
