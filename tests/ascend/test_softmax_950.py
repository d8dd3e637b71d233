"""asc.adv.softmax on the register-ISA products (950, Kirin X90, Kirin 9030; regbase/3510, docs/softmax.md §2):
bytes against tests/ascend/softmax_regbase_reference.py, the page's worked example, the order of the row sum,
special values, the access record, and every documented constraint.

Each case lays out src, dst (or src itself), sum, max and the temp buffer in a UB of random bytes and compares
the whole UB afterwards with the reference's image, the temp buffer aside: the computed elements (the first
oriSrcK of the first oriSrcM rows), and every other byte unchanged.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend import adv
from npusim.ascend.shape_info import ShapeInfo
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import softmax_reference as a2_ref
from . import softmax_regbase_reference as ref
from .conftest import assert_rejected, fill, state
from .test_softmax import EXAMPLE_DST, EXAMPLE_MAX, EXAMPLE_SRC, EXAMPLE_SUM, _printed_matches

regbase = importlib.import_module("npusim.ascend.adv.softmax_regbase")
F32, F16, U8 = asc.float32, asc.float16, asc.uint8
VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
FORMS = {"float": (F32, F32), "half": (F16, F16), "half data, float sum/max": (F16, F32)}
CHIPS = ["950", "KirinX90", "Kirin9030"]


def align(n: int) -> int:
    return -(-n // 32) * 32


def min_tmp(chip: str, rows: int, stride: int, itemsize: int) -> int:
    """GetSoftMaxMinTmpSize (softmax_tiling.cpp L125-157), written out: the 950 and Kirin X90 (DAV_3510/3003)
    take max(m (8 + k) + 256 + ceil8(m), m (32 / sizeof(T) + k)) floats; Kirin 9030 the others' 32/sizeof(T)+k+64."""
    if chip == "Kirin9030":
        return (32 // itemsize + stride + 64) * 4
    return max(rows * (8 + stride) + 256 + -(-rows // 8) * 8, rows * (32 // itemsize + stride)) * 4


def touched(rows: int, stride: int, k: int, stat_bytes: int) -> int:
    """Bytes of the work area the vector function writes (regbase/3510/softmax_impl.h, docs/softmax.md §2.3)."""
    if stride == 8:
        return (16 * -(-rows // 8) + 8 * rows) * 4
    if stride == 16:  # the exps, tmpUb0 (ceil8(m)), tmpUb (8 (factor - 1) + 128), tmpUb1 (8 factor)
        groups = -(-rows // 4)
        return (rows * 16 + -(-rows // 8) * 8 + 8 * (groups - 1) + 128 + 8 * groups) * 4
    return (rows * (32 // stat_bytes) + (rows - 1) * stride + k) * 4


class Layout:
    """src, dst (or src itself), sum, max and the temp buffer, one after the other from 0."""

    def __init__(self, core, rows, stride, *, original=None, in_place=False, tmp_bytes=None, seed=0, scale=5.0,
                 form="float", values=None):
        self.core, self.rows, self.stride = core, rows, stride
        self.original = original or (rows, stride)
        data_type, stat_type = FORMS[form]
        self.data_type, self.stat_type = data_type, stat_type
        fill(core, 0, core.ub.size_bytes, seed)
        data = rows * stride * data_type.itemsize
        at = 0
        self.src = asc.LocalTensor(data_type, VECIN, at, rows * stride)
        at += align(data)
        if in_place:
            self.dst = self.src
        else:
            self.dst = asc.LocalTensor(data_type, VECOUT, at, rows * stride)
            at += align(data)
        self.sum = asc.LocalTensor(stat_type, VECOUT, at, rows * 32 // stat_type.itemsize)
        at += rows * 32
        self.max = asc.LocalTensor(stat_type, VECOUT, at, rows * 32 // stat_type.itemsize)
        at += rows * 32
        if tmp_bytes is None:
            tmp_bytes = max(min_tmp(core.chip.name, rows, stride, data_type.itemsize),
                            touched(*self.original[:1], stride, self.original[1], stat_type.itemsize))
        self.tmp = asc.LocalTensor(U8, VECCALC, at, tmp_bytes)
        if values is None:
            values = np.random.default_rng(seed).standard_normal((rows, stride)).astype(np.float32) * np.float32(scale)
        with np.errstate(over="ignore"):  # a float value past half's range is inf in half
            narrow = np.asarray(values, np.float32).reshape(rows, stride).astype(data_type.np_dtype)
        self.x = narrow.astype(np.float32)
        self.src.write(narrow.ravel())
        self.src.set_shape_info(ShapeInfo((rows, stride), self.original))
        self.before = bytes(core.ub.data)

    def call(self, tiling=None):
        adv.softmax(self.dst, self.sum, self.max, self.src, tiling or adv.SoftmaxTiling(), self.tmp)

    def expected_ub(self) -> bytes:
        ub = bytearray(self.before)
        rows, k = self.original
        dst, maxima, sums = ref.softmax_rows(self.x[:rows], k, self.stride, self.data_type == F16,
                                             self.stat_type == F16)
        item = self.data_type.itemsize
        for r in range(rows):
            start = self.dst.addr + r * self.stride * item
            ub[start:start + k * item] = dst[r].tobytes()
        for tensor, values in ((self.sum, sums), (self.max, maxima)):
            raw = values.tobytes()
            ub[tensor.addr:tensor.addr + len(raw)] = raw
        return bytes(ub)


def assert_ub_matches(layout: Layout) -> None:
    got, expected = bytearray(layout.core.ub.data), bytearray(layout.expected_ub())
    start, stop = layout.tmp.addr, layout.tmp.addr + layout.tmp.get_size()
    got[start:stop] = expected[start:stop] = b"\0" * (stop - start)  # temporary bytes are the API's
    if got != expected:
        diff = np.flatnonzero(np.frombuffer(bytes(got), np.uint8) != np.frombuffer(bytes(expected), np.uint8))
        pytest.fail(f"{diff.size} bytes differ, first at {diff[0]:#x}")


# -------------------------------------------------------------------------- every vector function
# srcK == 8 (ForBlk: 8 rows a register, a partial group), srcK == 16 (4 rows a register), k <= 64 (one
# register a row), k mod 64 != 0 (a tail),
# k mod 64 == 0 (whole chunks), long rows
SHAPES = [(8, 8), (3, 8), (13, 8), (1, 8), (4, 16), (7, 16), (1, 16), (3, 24), (2, 40), (5, 64), (5, 72),
          (4, 136), (3, 192), (2, 520),
          (8, 1024), (1, 1024), (2, 2056)]


@pytest.mark.parametrize("rows, stride", SHAPES)
@pytest.mark.parametrize("in_place", [True, False])
def test_float_bytes_match_the_reference(rows, stride, in_place):
    with asc.Core("950") as core:
        layout = Layout(core, rows, stride, in_place=in_place, seed=rows + stride)
        layout.call()
        assert_ub_matches(layout)


@pytest.mark.parametrize("rows, stride", [(5, 16), (1, 16), (3, 32), (2, 48), (5, 64), (4, 80), (3, 128),
                                          (2, 1040), (8, 1024)])
@pytest.mark.parametrize("form", ["half", "half data, float sum/max"])
def test_half_forms_match_the_reference(rows, stride, form):
    with asc.Core("950") as core:
        layout = Layout(core, rows, stride, form=form, seed=rows * stride)
        layout.call()
        assert_ub_matches(layout)


@pytest.mark.parametrize("chip", ["KirinX90", "Kirin9030"])
@pytest.mark.parametrize("rows, stride, form", [(8, 8, "float"), (3, 72, "float"), (2, 128, "half"),
                                                (4, 64, "half data, float sum/max")])
def test_the_kirin_rows_run_the_950s_vector_function(chip, rows, stride, form):
    """softmax_base_impl.h L25-27: __NPU_ARCH__ 3003 (Kirin X90) and 3113 (Kirin 9030) include regbase/3510."""
    with asc.Core(chip) as core:
        layout = Layout(core, rows, stride, form=form, seed=7)
        layout.call()
        assert_ub_matches(layout)


@pytest.mark.parametrize("rows, stride, original", [(4, 72, (3, 70)), (9, 8, (6, 5)), (6, 16, (5, 11)),
                                                    (3, 136, (3, 100)), (2, 64, (2, 40)), (3, 128, (2, 128))])
def test_padding_columns_and_rows_are_left_as_they_were(rows, stride, original):
    """Unlike the A2 (SoftMax.md 约束说明: the padding is computed and overwritten in dst), the 950's vector
    function stores only the first oriSrcK elements of the first oriSrcM rows (erratum E27)."""
    with asc.Core("950") as core:
        layout = Layout(core, rows, stride, original=original, seed=3)
        layout.call()
        assert_ub_matches(layout)
        dst = np.frombuffer(core.ub_read(layout.dst.addr, rows * stride * 4), np.uint8).reshape(rows, stride * 4)
        before = np.frombuffer(layout.before[layout.dst.addr:layout.dst.addr + rows * stride * 4],
                               np.uint8).reshape(rows, stride * 4)
        assert (dst[:, original[1] * 4:] == before[:, original[1] * 4:]).all()
        assert (dst[original[0]:] == before[original[0]:]).all()


# -------------------------------------------------------------------------------- the order
def test_the_row_sum_is_lane_wise_over_the_chunks_then_the_register_tree():
    """A 1024-element row: the 950 adds chunk after chunk per lane, then ReduceSum's tree (Reduce.md); the A2
    starts from BigBlockReduce's DataBlock trees of the first 512 elements (docs/softmax.md §1.3).  Both differ
    from a sequential float32 sum here, and from each other."""
    values = np.random.default_rng(11).standard_normal(1024).astype(np.float32) * np.float32(4)
    with asc.Core("950") as core:
        layout = Layout(core, 1, 1024, values=values)
        layout.call()
        total = layout.sum.read()[0]
    _, expected, _ = ref.row(values, 1024, 1024)
    e = [ref.exp_950(v - values.max()) for v in values]
    sequential = np.float32(0)
    for v in e:
        sequential = np.float32(sequential + v)
    a2 = a2_ref.row_reduce(np.array(e, np.float32), 1024, "sum")
    assert total.tobytes() == expected.tobytes()
    assert len({total.tobytes(), sequential.tobytes(), a2.tobytes()}) == 3


def test_exp_and_the_division_flush_subnormal_results_to_zero():
    """The INTRINSIC Exp and Div (Exp.md / Div.md 关键特性说明: subnormal results are flushed); on the A2 npusim's
    exp keeps exp(-90) = 8.2e-40 (docs/numerics.md)."""
    row = np.zeros(64, np.float32)
    row[1] = -90.0
    with asc.Core("950") as core:
        layout = Layout(core, 1, 64, values=row)
        layout.call()
        dst = layout.dst.read()
    assert dst[1] == 0 and dst[0] == np.float32(1) / np.float32(64 - 1)
    assert a2_ref.exp_model(np.float32(-90.0)) != 0


def test_the_aligned_path_lays_out_its_work_area_as_the_code_does():
    """srcK == 16, float sum/max (L836-866): the exps from float 0, tmpUb0 at m * 16 (the row sums, over the row
    maxima), tmpUb at tmpUb0 + ceil8(m) (each row's sum twice: Interleave), tmpUb1 at tmpUb + (factor - 1) * 8 + 128
    (each row's maximum twice)."""
    rows, k = 5, 11
    with asc.Core("950") as core:
        layout = Layout(core, rows, 16, original=(rows, k), seed=3)
        layout.call()
        work = np.frombuffer(core.ub_read(layout.tmp.addr, layout.tmp.get_size()), np.float32)
    _, maxima, sums = ref.softmax_rows(layout.x[:rows], k, 16, False, False)
    row_max, row_sum = maxima.reshape(rows, 8)[:, 0], sums.reshape(rows, 8)[:, 0]
    tmp0 = rows * 16
    tmp = tmp0 + 8
    tmp1 = tmp + (2 - 1) * 8 + 128
    assert work[tmp0:tmp0 + rows].tobytes() == row_sum.tobytes()
    assert work[tmp:tmp + 2 * rows].tobytes() == np.repeat(row_sum, 2).tobytes()
    assert work[tmp1:tmp1 + 2 * rows].tobytes() == np.repeat(row_max, 2).tobytes()


def test_the_work_area_holds_the_flushed_exps():
    """The one-register function stores Exp(x - max) to workUb (tmpUb + oriSrcM * blockStride floats, L951-952):
    exp(-90) = 8.2e-40 is stored flushed, +0 (dst alone cannot tell: e / sum flushes again)."""
    row = np.zeros(64, np.float32)
    row[1] = -90.0
    with asc.Core("950") as core:
        layout = Layout(core, 1, 64, values=row)
        layout.call()
        exps = np.frombuffer(core.ub_read(layout.tmp.addr + 8 * 4, 64 * 4), np.float32)
    assert exps[1].tobytes() == np.float32(0).tobytes() and (exps[np.arange(64) != 1] == 1).all()


def test_max_of_zeros_of_both_signs_is_plus_zero_and_nan_propagates():
    values = np.zeros((3, 72), np.float32)
    values[0] = -0.0
    values[0, 70] = 0.0
    values[1, 5] = np.nan
    values[2, 3] = np.inf
    with asc.Core("950") as core:
        layout = Layout(core, 3, 72, values=values)
        layout.call()
        assert_ub_matches(layout)
        maxima = layout.max.read().reshape(3, 8)[:, 0]
    assert maxima[0].tobytes() == np.float32(0).tobytes()
    assert np.isnan(maxima[1]) and maxima[2] == np.inf


_SPECIAL = st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, -95.0, 88.0, 1e-40, -1e30])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 11), stride_blocks=st.integers(1, 40), data=st.data(),
       form=st.sampled_from(list(FORMS)), in_place=st.booleans(), chip=st.sampled_from(CHIPS))
def test_property_any_shape_and_values_match_the_reference(rows, stride_blocks, data, form, in_place, chip):
    per_block = 32 // FORMS[form][0].itemsize
    stride = stride_blocks * per_block
    original = (data.draw(st.integers(1, rows)), data.draw(st.integers(1, stride)))
    size = rows * stride
    values = np.random.default_rng(data.draw(st.integers(0, 2**16))).standard_normal(size).astype(np.float32) * 30
    if data.draw(st.booleans()):  # a row whose exps include subnormals (flushed, Exp.md), and a zero max
        values[:stride] = 0.0
        values[data.draw(st.integers(0, stride - 1))] = data.draw(st.sampled_from([-88.0, -90.0, -100.0]))
    for index in data.draw(st.lists(st.integers(0, size - 1), max_size=6)):
        values[index] = data.draw(_SPECIAL)
    with asc.Core(chip) as core:
        layout = Layout(core, rows, stride, original=original, form=form, in_place=in_place, values=values)
        layout.call()
        assert_ub_matches(layout)


# --------------------------------------------------------------------------- the page's example
def test_the_pages_worked_example_on_the_950():
    """SoftMax.md 调用示例 (8 x 8 float: the ForBlk vector function on the 950).  sum and max agree with every
    printed digit; dst lies within 3 float32 ulps of the printed values past their rounding (measured: 2.1, the
    same as on the A2, docs/softmax.md §2.4)."""
    with asc.Core("950") as core:
        layout = Layout(core, 8, 8, values=np.array(EXAMPLE_SRC, np.float32))
        layout.call()
        assert_ub_matches(layout)
        sums, maxima = layout.sum.read().reshape(8, 8), layout.max.read().reshape(8, 8)
        dst = layout.dst.read().reshape(8, 8)
    for r in range(8):
        assert all(_printed_matches(float(v), EXAMPLE_SUM[r]) for v in sums[r]), (r, sums[r])
        assert all(_printed_matches(float(v), EXAMPLE_MAX[r]) for v in maxima[r]), (r, maxima[r])
        printed = [p + "0" * (8 - len(p.split(".")[1])) for p in EXAMPLE_DST[r].split()]
        assert all(_printed_matches(float(v), p, ulps=3) for v, p in zip(dst[r], printed, strict=True)), (r, dst[r])


# -------------------------------------------------------------------------- records and state
@pytest.mark.parametrize("rows, stride, form", [(13, 8, "float"), (5, 16, "float"), (6, 16, "half"),
                                                (3, 40, "float"), (2, 144, "half"),
                                                (4, 128, "half data, float sum/max")])
def test_the_access_record_covers_every_change_and_every_byte_read(rows, stride, form):
    """One record for the vector function (and the ForBlk path's SetVectorMask): every changed byte lies in its
    writes; the result does not change when every byte outside its reads and writes does."""
    with asc.Core("950", trace=True) as core:
        layout = Layout(core, rows, stride, form=form, seed=4)
        layout.call()
        records = [r for r in core.trace if r.instruction == "softmax"]
        after = bytes(core.ub.data)
    assert len(records) == 1 and records[0].pipe == "V"
    record = records[0]
    inside = np.zeros(len(after), bool)
    for r in record.writes:
        inside[r.start:r.stop] = True
    changed = np.frombuffer(after, np.uint8) != np.frombuffer(layout.before, np.uint8)
    assert not (changed & ~inside).any()
    outside = inside.copy()
    for r in record.reads:
        outside[r.start:r.stop] = True
    with asc.Core("950") as core:  # the same call over other bytes everywhere else
        again = Layout(core, rows, stride, form=form, seed=4)
        noise = np.random.default_rng(99).integers(0, 256, len(after), dtype=np.uint8)
        data = core.ub.data
        data[~outside] = noise[~outside]
        again.call()
        assert (core.ub.data[inside] == np.frombuffer(after, np.uint8)[inside]).all()


@pytest.mark.parametrize("rows, stride, original, path", [
    (2, 8, (2, 8), "for_blk"), (2, 16, (2, 9), "aligned_with_blk"), (2, 64, (2, 64), "single"),
    (2, 72, (2, 64), "single"), (2, 72, (2, 65), "with_tail"), (2, 128, (2, 128), "generic")])
def test_the_record_names_the_vector_function_the_shape_selects(rows, stride, original, path):
    """SoftMaxNDImpl (L975-992): srcK 8 (float) ForBlk, srcK 16 AlignedWithBlk, then oriSrcK <= 64 (64 itself
    included) the one-register function, a tail beyond, whole chunks otherwise."""
    with asc.Core("950", trace=True) as core:
        Layout(core, rows, stride, original=original).call()
        record = [r for r in core.trace if r.instruction == "softmax"][0]
    assert record.params["vector_function"] == path


def test_the_packed_paths_leave_the_special_mask_in_the_mask_register():
    """SingleSoftMaxGenericNDForBlkImpl sets the mask register (CreateSpecialFormatMask + SetVectorMask, L673-675):
    the first oriSrcK lanes of each 8-lane row; the other paths leave it alone."""
    with asc.Core("950", trace=True) as core:
        layout = Layout(core, 8, 8, original=(8, 5))
        layout.call()
        assert core.mask_words[:2] == (sum(0x1F << (8 * g) for g in range(8)), 0)
        assert [r.instruction for r in core.trace][-2:] == ["set_vector_mask", "softmax"]
    with asc.Core("950") as core:  # srcK == 16 (L851-853): the first oriSrcK lanes of each 16-lane row
        Layout(core, 3, 16, original=(3, 11), form="half").call()
        assert core.mask_words[:2] == (sum(0x7FF << (16 * g) for g in range(4)), 0)
    with asc.Core("950") as core:
        layout = Layout(core, 2, 72)
        asc.set_vector_mask(0, 123)
        layout.call()
        assert core.mask_words[:2] == (123, 0)


def test_sync_checker_finds_no_race():
    with asc.Core("950", sync="raise") as core:
        layout = Layout(core, 8, 8)
        layout.call()
        layout = Layout(core, 2, 256)
        layout.call()


def test_an_interrupted_call_leaves_memory_and_registers_unchanged(monkeypatch):
    real = regbase._commit

    def commit_then_interrupt(ub, reg, dst, *rest):
        real(ub, reg, dst, *rest)
        raise KeyboardInterrupt

    monkeypatch.setattr(regbase, "_commit", commit_then_interrupt)
    with asc.Core("950") as core:
        layout = Layout(core, 8, 8)
        before = state(core)
        with pytest.raises(KeyboardInterrupt):
            layout.call()
        assert state(core) == before


def test_a_fresh_ub_raises_no_never_written_read_past_the_computed_elements():
    """The loads read whole registers (past oriSrcK, and past the rows on the ForBlk path); only the elements
    that decide a result must have been written."""
    for rows, stride, original in ((3, 8, (3, 6)), (2, 136, (2, 70))):
        with asc.Core("950", uninit="raise") as core:
            src = asc.LocalTensor(F32, VECIN, 0, rows * stride)
            for r in range(original[0]):
                core.ub_write(r * stride * 4, np.ones(original[1], np.float32).tobytes())
            src.set_shape_info(ShapeInfo((rows, stride), original))
            base = align(rows * stride * 4)
            sum_ = asc.LocalTensor(F32, VECOUT, base, rows * 8)
            max_ = asc.LocalTensor(F32, VECOUT, base + rows * 32, rows * 8)
            tmp = asc.LocalTensor(U8, VECCALC, base + rows * 64, 8192)
            dst = asc.LocalTensor(F32, VECOUT, base + rows * 64 + 8192, rows * stride)
            adv.softmax(dst, sum_, max_, src, adv.SoftmaxTiling(), tmp)
            assert sum_.read()[0] == original[1]


# ----------------------------------------------------------------------------- constraints
def _call(layout, *, tmp=None, **flags):
    return lambda: adv.softmax(layout.dst, layout.sum, layout.max, layout.src, adv.SoftmaxTiling(),
                               tmp if tmp is not None else layout.tmp, **flags)


@pytest.mark.parametrize("chip", CHIPS)
def test_the_framework_buffer_is_not_modelled(chip):
    with asc.Core(chip) as core:
        layout = Layout(core, 2, 64)
        assert_rejected(core, UnsupportedError, lambda: adv.softmax(layout.dst, layout.sum, layout.max, layout.src,
                                                                     adv.SoftmaxTiling()),
                        "PopStackBuffer", "TMP_UB_OFFSET", instruction="softmax", operand="temp_buffer")


@pytest.mark.parametrize("chip, rows, stride, form", [("950", 4, 128, "float"), ("950", 3, 64, "half"),
                                                      ("KirinX90", 2, 72, "float"), ("950", 9, 8, "float"),
                                                      ("950", 5, 16, "half data, float sum/max")])
def test_the_temp_buffer_holds_get_softmax_min_tmp_size(chip, rows, stride, form):
    with asc.Core(chip) as core:
        needed = min_tmp(chip, rows, stride, FORMS[form][0].itemsize)
        layout = Layout(core, rows, stride, form=form, tmp_bytes=needed - 32)
        assert_rejected(core, ParameterRangeError, _call(layout), "GetSoftMaxMinTmpSize", instruction="softmax",
                        operand="temp_buffer bytes", value=needed - 32, allowed=f">= {needed}")
        Layout(core, rows, stride, form=form, tmp_bytes=needed).call()


def test_kirin_9030s_documented_minimum_is_less_than_the_vector_function_writes():
    """The host GetSoftMaxMinTmpSize lists DAV_3510/3003/5102 for the larger formula, not 3113 (Kirin 9030), whose
    kernel runs the same regbase/3510 code: npusim asks for what that code writes (erratum E28)."""
    rows, stride = 4, 64
    documented = min_tmp("Kirin9030", rows, stride, 4)
    written = touched(rows, stride, stride, 4)
    assert documented < written
    with asc.Core("Kirin9030") as core:
        layout = Layout(core, rows, stride, tmp_bytes=documented)
        assert_rejected(core, ParameterRangeError, _call(layout), "vector function writes", instruction="softmax",
                        operand="temp_buffer bytes", allowed=f">= {written}")
        Layout(core, rows, stride, tmp_bytes=written).call()


def test_unmodelled_paths():
    for rows, stride, form in ((8, 8, "float"), (2, 16, "half")):
        with asc.Core("950") as core:
            layout = Layout(core, rows, stride, form=form)
            asc.set_mask_count()
            assert_rejected(core, UnsupportedError, _call(layout), "normal mode", f"srcK == {stride}",
                            instruction="softmax", operand="mask mode")
    with asc.Core("950") as core:
        layout = Layout(core, 2, 64)
        assert_rejected(core, UnsupportedError, _call(layout, basic_block=True), "basic-block",
                        operand="basic_block")
        assert_rejected(core, UnsupportedError, _call(layout, data_format_nz=True), "ND", operand="data_format_nz")


def test_a_register_load_past_the_end_of_ub():
    with asc.Core("950") as core:
        end = core.chip.ub_bytes
        src = asc.LocalTensor(F32, VECIN, end - 3 * 8 * 4, 24)
        src.write(np.ones(24, np.float32))
        src.set_shape_info(ShapeInfo((3, 8), (3, 8)))
        sum_ = asc.LocalTensor(F32, VECOUT, 0, 24)
        max_ = asc.LocalTensor(F32, VECOUT, 96, 24)
        tmp = asc.LocalTensor(U8, VECCALC, 1024, 4096)
        dst = asc.LocalTensor(F32, VECOUT, 8192, 24)
        assert_rejected(core, OutOfBoundsError, lambda: adv.softmax(dst, sum_, max_, src, adv.SoftmaxTiling(), tmp),
                        "64-lane registers", instruction="softmax", operand="src address")


@pytest.mark.parametrize("load_end", [0, 32])
def test_a_register_load_ending_at_or_just_past_the_end_of_ub(load_end):
    """The ForBlk register of three 8-float rows loads 256 bytes: ending at the last byte of UB it runs; one
    DataBlock further it is rejected, nothing written."""
    with asc.Core("950") as core:
        at = core.chip.ub_bytes - 256 + load_end
        src = asc.LocalTensor(F32, VECIN, at, 24)
        src.write(np.ones(24, np.float32))
        src.set_shape_info(ShapeInfo((3, 8), (3, 8)))
        sum_, max_ = asc.LocalTensor(F32, VECOUT, 0, 24), asc.LocalTensor(F32, VECOUT, 96, 24)
        tmp, dst = asc.LocalTensor(U8, VECCALC, 1024, 4096), asc.LocalTensor(F32, VECOUT, 8192, 24)
        call = lambda: adv.softmax(dst, sum_, max_, src, adv.SoftmaxTiling(), tmp)  # noqa: E731
        if load_end:
            assert_rejected(core, OutOfBoundsError, call, "64-lane registers", instruction="softmax",
                            operand="src address")
        else:
            call()
            assert np.array_equal(dst.read(), np.full(24, np.float32(1) / np.float32(8)))


def test_the_temp_buffer_overlapping_an_operand():
    with asc.Core("950") as core:
        layout = Layout(core, 2, 64)
        tmp = asc.LocalTensor(U8, VECCALC, layout.max.addr, 8192)
        assert_rejected(core, OverlapError, _call(layout, tmp=tmp), "overlaps", instruction="softmax")


def test_min_tmp_formula():
    """regbase.min_tmp_floats against the host formula written out above (softmax_tiling.cpp L147-156)."""
    for chip, arch in (("950", 3510), ("KirinX90", 3003), ("Kirin9030", 3113)):
        for rows, stride, item in ((1, 8, 4), (9, 64, 4), (3, 128, 2), (40, 1024, 2)):
            assert regbase.min_tmp_floats(arch, rows, stride, item) * 4 == min_tmp(chip, rows, stride, item)


@pytest.mark.parametrize("chip", CHIPS)
def test_the_pages_operand_rules_hold_on_the_register_isa_products(chip):
    """SoftMax.md 函数原型 / 表1 / 表2 / 约束说明 and 通用地址对齐约束, as on the A2 (tests/ascend/test_softmax.py):
    half or float, sum and max of one type, a 32-byte aligned srcK, one 32-byte sum/max row per row, aligned
    operands, a uint8 temp buffer, src and dst the same tensor or apart."""
    with asc.Core(chip) as core:
        layout = Layout(core, 2, 64)
        ints = asc.LocalTensor(asc.int32, VECIN, layout.src.addr, 128)
        ints.set_shape_info(ShapeInfo((2, 64)))
        assert_rejected(core, UnsupportedError, lambda: adv.softmax(ints, layout.sum, layout.max, ints,
                                                                     adv.SoftmaxTiling(), layout.tmp),
                        "half or float", operand="src dtype", value="int32")
        half_max = asc.LocalTensor(F16, VECOUT, layout.max.addr, 32)
        assert_rejected(core, ParameterRangeError, lambda: adv.softmax(layout.dst, layout.sum, half_max, layout.src,
                                                                        adv.SoftmaxTiling(), layout.tmp),
                        "same data type", operand="max dtype", value="float16")
        short_sum = asc.LocalTensor(F32, VECOUT, layout.sum.addr, 8)
        assert_rejected(core, OutOfBoundsError, lambda: adv.softmax(layout.dst, short_sum, layout.max, layout.src,
                                                                     adv.SoftmaxTiling(), layout.tmp),
                        operand="sum elements", value=8)
        shifted = asc.LocalTensor(U8, VECCALC, layout.tmp.addr + 16, layout.tmp.get_size() - 16)
        assert_rejected(core, AlignmentError, _call(layout, tmp=shifted), operand="temp_buffer address")
        with pytest.raises(TypeError, match="uint8"):
            _call(layout, tmp=asc.LocalTensor(F32, VECCALC, layout.tmp.addr, 1024))()
        partial = asc.LocalTensor(F32, VECOUT, layout.src.addr + 32, 128)
        assert_rejected(core, OverlapError, lambda: adv.softmax(partial, layout.sum, layout.max, layout.src,
                                                                 adv.SoftmaxTiling(), layout.tmp),
                        "share some bytes", operand="dst address")
        layout.src.set_shape_info(ShapeInfo((4, 12)))
        assert_rejected(core, ParameterRangeError, _call(layout), "32-byte aligned", operand="src last axis",
                        value=12)
