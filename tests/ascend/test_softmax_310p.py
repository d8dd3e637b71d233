"""asc.adv.softmax on the Atlas inference AI Core (310P, dav_m200): bytes against the reference's 310P order,
the instruction sequence of membase/v200, the reciprocal, the rounding, the scratch and the limit of its own.

The layouts and the whole-UB comparison are test_softmax.py's; the reference is softmax_reference.py with
``product="310P"`` (docs/softmax.md §1.7).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ParameterRangeError

from . import softmax_reference as ref
from .conftest import assert_rejected
from .test_softmax import (
    FORMS,
    HALF_SHAPES,
    SHAPES,
    TIE_ROWS,
    Layout,
    assert_ub_matches,
    softmax_module,
)

CHIP = "310P"


@pytest.mark.parametrize("rows, stride", SHAPES)
@pytest.mark.parametrize("in_place", [True, False])
def test_float_bytes_match_the_reference(rows, stride, in_place):
    with asc.Core(CHIP) as core:
        layout = Layout(core, rows, stride, in_place=in_place, seed=rows * stride)
        layout.call()
        assert_ub_matches(layout)


@pytest.mark.parametrize("rows, stride", HALF_SHAPES)
@pytest.mark.parametrize("form", ["half", "half data, float sum/max"])
def test_half_forms_match_the_reference(rows, stride, form):
    with asc.Core(CHIP) as core:
        layout = Layout(core, rows, stride, in_place=rows % 2 == 0, seed=rows + stride, form=form)
        layout.call()
        assert_ub_matches(layout)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form=st.sampled_from(sorted(FORMS)), rows=st.integers(1, 12), blocks=st.integers(1, 70), data=st.data(),
       in_place=st.booleans(), scale=st.sampled_from([1.0, 5.0, 60.0]))
def test_property_every_type_form_matches_the_reference(form, rows, blocks, data, in_place, scale):
    stride = 16 * blocks
    original_k = data.draw(st.integers(1, stride))
    with asc.Core(CHIP) as core:
        layout = Layout(core, rows, stride, original=(rows, original_k), in_place=in_place, seed=blocks,
                        scale=scale, form=form)
        layout.call()
        assert_ub_matches(layout)


def test_the_division_is_a_multiply_by_one_over_the_sum():
    """TransDivToMulImpl: dst = dst * RN(1 / sum), not RN(dst / sum) — the two differ in some elements here."""
    with asc.Core(CHIP) as core:
        layout = Layout(core, 4, 256, seed=11)
        layout.call()
        assert_ub_matches(layout)
        got = layout.dst.read().reshape(4, 256)
    divided, _, _ = ref.softmax_rows(layout.x, 256)
    multiplied, _, _ = ref.softmax_rows(layout.x, 256, product=CHIP)
    assert (got.view(np.uint32) == multiplied.view(np.uint32)).all()
    assert (got.view(np.uint32) != divided.view(np.uint32)).sum() > 10


def test_half_results_round_to_nearest_even():
    """FLOAT2HALF_ROUND_MODE is CAST_NONE on 2002 (v200 softmax_common_impl.h L29): A2's ties away go to even."""
    rows = np.array([bits for bits, _ in TIE_ROWS], dtype=np.uint16).view(np.float16)
    away, _, _ = ref.softmax_rows(rows.astype(np.float32), 16, half_data=True)
    even, _, _ = ref.softmax_rows(rows.astype(np.float32), 16, half_data=True, product=CHIP)
    with asc.Core(CHIP) as core:
        layout = Layout(core, len(TIE_ROWS), 16, form="half")
        layout.load(rows)
        layout.call()
        assert_ub_matches(layout)
        got = layout.dst.read().reshape(len(TIE_ROWS), 16)
    assert (got.view(np.uint16) == even.view(np.uint16)).all()
    assert (got.view(np.uint16) != away.view(np.uint16)).any()


@pytest.mark.parametrize("rows, several", [(2, True), (1, False)])
def test_a_negative_zero_max_becomes_positive_in_a_split_of_several_rows(rows, several):
    """BasicBlockReduceMaxImpl: several rows reach their block through Adds of 0 (-0 + 0 = +0); one row through a
    scalar read and Duplicate (-0 stays)."""
    with asc.Core(CHIP) as core:
        layout = Layout(core, rows, 128, seed=3)
        row = np.where(np.arange(128) % 2 == 0, np.float32(-0.0), np.float32(-1.0)).astype(np.float32)
        layout.load(np.tile(row, (rows, 1)))
        layout.call()
        assert_ub_matches(layout)
        sign = np.signbit(layout.max.read()[0])
    assert sign == (not several)


def test_the_instruction_sequence_is_the_vendors():
    """membase/v200 for float, 2 rows of 64 (FirstBlockCopyImpl's Adds, BasicBlockReduce*Impl of several rows,
    BroadCastNDImpl) and 1 row of 40 (Reduce*LastNDSplitImpl, BroadCastLastImpl), written out from the vendor
    code, every call in order."""
    counter_norm = ["set_mask_count", "set_vector_mask"]
    end = ["set_mask_norm", "reset_mask"]
    barrier = ["pipe_barrier"]

    def wide(kind: str) -> list[str]:  # NewReduce{Max,Sum}LastNDImpl, oriSrcK = 64, 2 rows
        return (["reset_mask"] + counter_norm + ["adds"] + end + barrier  # FirstBlockCopyImpl
                + counter_norm + [f"block_reduce_{kind}"] + barrier + ["set_vector_mask", f"block_reduce_{kind}"]
                + end + barrier + ["muls"] + barrier + ["trans_data_to_5hd"] + barrier  # BroadCastNDImpl
                + counter_norm + ["adds"] + end)

    def columns(op: str, blocks: int) -> list[str]:  # GenericSubNDImpl / GenericMulNDImpl, srcK < 192
        return counter_norm + [op] * blocks + end

    def reciprocal(blocks: int) -> list[str]:  # TransDivToMulImpl
        return ["duplicate"] + barrier + ["div"] + barrier + columns("mul", blocks)

    start = ["set_mask_norm", "reset_mask", "pipe_barrier"]  # SoftMaxNDImpl
    two_rows = (start + wide("max") + barrier + columns("sub", 8) + barrier + ["exp"] + barrier + wide("sum")
                + barrier + reciprocal(8))
    flags = ["set_flag", "wait_flag"]

    def short(kind: str) -> list[str]:  # oriSrcK = 40, 1 row: WholeReduce, V_S, GetValue, (S_V), Duplicate
        return ["reset_mask", f"whole_reduce_{kind}"] + barrier + flags + flags + ["duplicate"]

    one_row = (start + short("max") + barrier + columns("sub", 5) + barrier + ["exp"] + barrier + short("sum")
               + barrier + reciprocal(5))
    for (rows, stride), expected in (((2, 64), two_rows), ((1, 40), one_row)):
        with asc.Core(CHIP, trace=True) as core:
            layout = Layout(core, rows, stride, seed=1)
            layout.call()
            assert [record.instruction for record in core.trace] == expected, (rows, stride)
            events = [(record.params["event"]) for record in core.trace if record.instruction == "set_flag"]
        if rows == 1:
            assert events == ["V_S", "S_V", "V_S", "S_V"]


@pytest.mark.parametrize("rows, stride, form", [(20, 40, "float"), (3, 256, "half"), (12, 72, "float"),
                                                (40, 64, "half data, float sum/max")])
def test_sync_checker_finds_no_race(rows, stride, form):
    """The scalar reads are ordered V_S before and S_V after (docs/softmax.md §1.7); 20 rows take 3 batches of 8."""
    if form != "float":
        stride = -(-stride // 16) * 16
    with asc.Core(CHIP, sync="raise") as core:
        layout = Layout(core, rows, stride, seed=2, form=form)
        layout.call()
        assert_ub_matches(layout)


def test_the_api_scratch_is_the_last_8_kib_and_a_temp_buffer_of_the_minimum_runs():
    """PopStackBuffer on 2002 ends at TOTAL_UB_SIZE (no KFC message): 2048 floats from TMP_UB_OFFSET (248 KiB)."""
    tiling = softmax_module.tiling_for(2048, 40, 64, 40)
    assert (tiling.split_m, tiling.range_m, tiling.tail_m) == (24, 1, 16)
    with asc.Core(CHIP) as core:
        layout = Layout(core, 2, 2064, form="half", seed=12)
        assert_rejected(core, ParameterRangeError, layout.call, "pass a temp_buffer",
                        operand="temporary buffer floats", value=2048)
    with asc.Core(CHIP) as core:
        tmp = softmax_module.min_tmp_bytes(512)
        layout = Layout(core, 20, 512, tmp_bytes=tmp, in_place=False, seed=3)
        tiling = softmax_module.tiling_for(tmp // 4, 20, 512, 20)
        assert tiling.tail_m or tiling.range_m > 1
        layout.call(tiling)
        assert_ub_matches(layout)


def test_the_first_block_repeat_stride_is_8_bits():
    """FirstBlockCopyImpl passes srcK / 8 as a uint8 repeat stride: rows of 64 to 127 elements with srcK > 2040
    would wrap on the 310P; the A2 copies with a 16-bit stride (docs/softmax.md §1.6)."""
    with asc.Core(CHIP) as core:
        layout = Layout(core, 2, 2048, original=(2, 100), seed=4)
        assert_rejected(core, ParameterRangeError, layout.call, "8-bit repeat stride", operand="src last axis",
                        value=2048)
    with asc.Core(CHIP) as core:
        layout = Layout(core, 2, 2040, original=(2, 100), seed=4)
        layout.call()
        assert_ub_matches(layout)
    with asc.Core("A2") as core:
        layout = Layout(core, 2, 2048, original=(2, 100), seed=4)
        layout.call()
        assert_ub_matches(layout)


def test_a_split_of_more_than_255_rows_of_128_to_511_elements_is_refused():
    """The 310P's UB holds 256 rows of 128 floats and their temporary buffer, A2/A3's does not: the vendor's
    (uint8_t)splitM of the chunk-0-op-chunk-1 Max/Add would wrap (docs/softmax.md §1.6)."""
    rows, stride = 256, 128
    tmp = (8 + 64) * rows * 4
    with asc.Core(CHIP) as core:
        layout = Layout(core, rows, stride, tmp_bytes=tmp, seed=5)
        assert_rejected(core, ParameterRangeError, layout.call, "8-bit repeat count", operand="tiling.split_m",
                        value=256)
        tiling = softmax_module.tiling_for(tmp // 4, rows, stride, rows)
        assert tiling.split_m == 256
        layout.tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, layout.tmp.addr, tmp - 72 * 4)
        layout.call()  # a buffer one row smaller: splits of 248 rows (a multiple of 8) and a tail of 8
        assert_ub_matches(layout)


@pytest.mark.parametrize("rows, stride, form", [(3, 40, "float"), (1, 48, "half"), (4, 136, "float")])
def test_the_mask_is_left_full_and_in_normal_mode(rows, stride, form):
    """BroadCastLastCompute's Duplicates set the mask to 8 or 16 lanes; the later steps put it back to full."""
    with asc.Core(CHIP) as reference_core:
        asc.set_mask_norm()
        asc.reset_mask()
        full = reference_core.mask_words
    with asc.Core(CHIP) as core:
        layout = Layout(core, rows, stride, seed=5, form=form)
        asc.set_mask_count()
        asc.set_vector_mask(0, 100, asc.float32, asc.MaskMode.COUNTER)
        layout.call()
        assert core.mask_mode == asc.MaskMode.NORMAL and core.mask_words == full
        assert_ub_matches(layout)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 40), blocks=st.integers(1, 70), data=st.data(), scale=st.sampled_from([1.0, 60.0]))
def test_property_signed_rows_and_negative_zeros(rows, blocks, data, scale):
    """Rows of either sign, the negative ones with some -0 among their first k elements (their max is then -0):
    the sign of that max follows the rows of its split (the splits from tiling_for, checked against
    SoftMaxTilingFunc in test_softmax.py)."""
    stride = 8 * blocks
    original_k = data.draw(st.integers(1, stride))
    rng = np.random.default_rng(rows * 1000 + blocks)
    x = (rng.random((rows, stride), dtype=np.float32) * np.float32(scale)).astype(np.float32)
    negative = rng.random(rows) < 0.5
    x[negative] = -x[negative]
    for row in np.flatnonzero(negative):
        x[row, rng.integers(0, original_k, 3)] = np.float32(-0.0)
    with asc.Core(CHIP) as core:
        layout = Layout(core, rows, stride, original=(rows, original_k), seed=blocks)
        layout.load(x)
        tiling = softmax_module.tiling_for(2048, rows, stride, rows)
        layout.split_rows = [tiling.split_m] * tiling.range_m + ([tiling.tail_m] if tiling.tail_m else [])
        layout.call()
        assert_ub_matches(layout)


def test_a_max_over_lanes_of_both_zeros_is_plus_zero():
    """A negative row of 87 with -0 at 7 and 26 (lanes made +0 by the first chunk's Adds of 0) and at 64 (the
    tail's Max keeps lane 0 at -0): WholeReduceMax orders -0 below +0, so the max is +0 (the case hypothesis
    found against a reference whose max kept the first of two equal zeros)."""
    x = -(np.random.default_rng(27).random((1, 216), dtype=np.float32) + np.float32(0.5))
    x[0, [7, 26, 64]] = np.float32(-0.0)
    with asc.Core(CHIP) as core:
        layout = Layout(core, 1, 216, original=(1, 87), seed=27)
        layout.load(x)
        layout.call()
        assert_ub_matches(layout)
        assert core.ub_read(layout.max.addr, 4) == bytes(4)  # +0
