"""reduce_sum / reduce_max / reduce_min: the pages' worked examples (归约计算/ReduceSum.md, ReduceMax.md,
ReduceMin.md and their legacy versions, which print the same calls; the legacy ones print the whole
input), the three documented sum orders against a plain reference, and every documented constraint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import AlignmentError, OverlapError, ParameterRangeError, UninitializedReadWarning, UnsupportedError

from . import elementwise_reference as ew
from . import reduce_reference as model
from .conftest import assert_rejected

F16, F32 = asc.float16, asc.float32
VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
SRC, WORK, DST = 0x0, 0x8000, 0xC000

# the legacy pages' full inputs (ReduceMax.md / ReduceMin.md 调用示例), transcribed
_MAX = json.loads((Path(__file__).parent / "data" / "reduce_examples.json").read_text())


def setup(core, data, dtype=F16, work_size=1024):
    core.ub_write(0, bytes(64 * 1024))
    np_dtype = np.float16 if dtype == F16 else np.float32
    core.ub_write(SRC, np.asarray(data, np_dtype).tobytes())
    return (asc.LocalTensor(dtype, VECOUT, DST, 16), asc.LocalTensor(dtype, VECIN, SRC, max(len(data), 16)),
            asc.LocalTensor(dtype, VECCALC, WORK, work_size))


def out(core, n=2, dtype=np.float16):
    return np.frombuffer(core.ub_read(DST, n * np.dtype(dtype).itemsize), dtype)


@pytest.fixture
def a2():
    with asc.Core("A2") as core:
        yield core


@pytest.mark.parametrize("case", sorted(_MAX))
def test_printed_examples(a2, case):
    """ReduceMax.md / ReduceMin.md: [0.9985, 6.8e-06] (index 114), [0.999, 1.38e-05] (232),
    [0.01034, 2.104e-05] (353), [0.00393, 4.3e-06] (72)."""
    example = _MAX[case]
    z, x, w = setup(a2, example["src"])
    function = asc.reduce_max if example["op"] == "max" else asc.reduce_min
    if example["form"] == "mask":
        function(z, x, w, 128, 4, 8, True)
    else:
        function(z, x, w, len(example["src"]), True)
    bits = out(a2, 2, np.uint16).tolist()
    printed = np.array([example["value"], example["index_printed"]], np.float16).view(np.uint16).tolist()
    assert bits == printed  # the printed decimals are these halves: the value, and the index's bits
    assert bits[1] == example["index"]


def test_reduce_sum_examples(a2):
    """ReduceSum.md: 8320 ones, mask 128, 65 repeats -> [8320, 0, ...]; 288 ones (count) -> [288, 0, ...]."""
    z, x, w = setup(a2, np.ones(8320), work_size=80)
    asc.reduce_sum(z, x, w, 128, 65, 8)
    assert out(a2, 16).tolist() == [8320] + [0] * 15
    z, x, w = setup(a2, np.ones(288))
    asc.reduce_sum(z, x, w, 288)
    assert out(a2, 16).tolist() == [288] + [0] * 15


# ------------------------------------------------------------------ the sum orders
def ref_sum(values: list[int], fmt: str, method: int, per: int, saturate: bool, count: int | None = None) -> int:
    """ReduceSum.md 关键特性说明's three orders, one add at a time (reduce_reference / elementwise_reference)."""
    reps = [values[i:i + per] + [0] * (per - len(values[i:i + per])) for i in range(0, len(values), per)]
    if method == 3:
        n = len(reps)
        s = reps

        def add(a, b, active_lanes):
            return [ew.float_bits("add", fmt, x, y, saturate) if j < active_lanes else x
                    for j, (x, y) in enumerate(zip(a, b, strict=True))]
        last = len(values) - per * (n - 1)
        if n == 2:
            merged = add(s[0], s[1], last)
        elif n == 3:
            merged = add(add(s[0], s[1], per), s[2], last)
        else:
            merged = [ew.float_bits("add", fmt, a, b, saturate)
                      for a, b in zip(add(s[2], s[3], last), add(s[0], s[1], per), strict=True)]
        return model.tree_sum(merged, fmt, fmt, saturate)
    sums = [model.tree_sum(r, fmt, fmt, saturate) for r in reps]
    if method == 1:
        total = sums[0]
        for value in sums[1:]:
            total = ew.float_bits("add", fmt, total, value, saturate)
        return total
    while len(sums) > 1:
        sums = [model.tree_sum(sums[i:i + per] + [0] * (per - len(sums[i:i + per])), fmt, fmt, saturate)
                for i in range(0, len(sums), per)]
    return sums[0]


@settings(max_examples=40, deadline=None)
@given(chip=st.sampled_from(["A2", "310P", "950"]), fmt=st.sampled_from(["float16", "float32"]),
       count=st.integers(1, 1100), seed=st.integers(0, 2**32 - 1), form=st.sampled_from(["count", "mask"]))
def test_sum_order_matches_the_documented_method(chip, fmt, count, seed, form):
    """A2/A3 count: 方式一; A2 mask and the 310P: 方式二; the 950 count over 256-1024 bytes: 方式三."""
    rng = np.random.default_rng(seed)
    np_dtype = np.float16 if fmt == "float16" else np.float32
    size = np.dtype(np_dtype).itemsize
    per = 256 // size
    data = (rng.standard_normal(count) * rng.choice([1, 100, 3000], count)).astype(np_dtype)
    with asc.Core(chip) as core:
        if core.chip.saturation_flag_api:
            asc.set_saturation_flag(False)
        repeats = -(-count // per)
        padded = np.concatenate([data, np.zeros(repeats * per - count, np_dtype)])
        z, x, w = setup(core, data if form == "count" else padded, F16 if fmt == "float16" else F32, work_size=1024)
        if form == "count":
            asc.reduce_sum(z, x, w, count)
            method = 1 if chip == "A2" else 3 if chip == "950" and 256 < count * size <= 1024 else 2
            values = data.view(np.uint16 if size == 2 else np.uint32).tolist()
        else:
            asc.reduce_sum(z, x, w, per, repeats, 8)
            method = 2
            values = padded.view(np.uint16 if size == 2 else np.uint32).tolist()
        saturate = core.float_saturation and fmt in core.chip.float_saturation_dtypes
        got = int(out(core, 1, np.uint16 if size == 2 else np.uint32)[0])
        assert got == ref_sum(values, fmt, method, per, saturate)


def test_methods_differ_where_it_matters():
    """Repeat sums 2048, 1, 1, 2: in order (方式一, the A2 count form) ((2048 + 1) + 1) + 2 = 2050, each +1
    a tie back to 2048; by a tree (方式二, the mask form) (2048 + 1) + (1 + 2) = 2051 -> 2052 (tie, even)."""
    data = np.zeros(512, np.float16)
    data[[0, 128, 256, 384]] = [2048, 1, 1, 2]
    with asc.Core("A2") as core:
        z, x, w = setup(core, data)
        asc.reduce_sum(z, x, w, 512)
        assert out(core, 1)[0] == 2050
        asc.reduce_sum(z, x, w, 128, 4, 8)
        assert out(core, 1)[0] == 2052
    with asc.Core("310P") as core:  # 方式二 in both forms
        z, x, w = setup(core, data)
        asc.reduce_sum(z, x, w, 512)
        assert out(core, 1)[0] == 2052
    with asc.Core("950") as core:  # 512 halves = 1024 bytes: 方式三, (s2 + s3) + (s0 + s1) lane by lane
        z, x, w = setup(core, data)
        asc.reduce_sum(z, x, w, 512)
        assert out(core, 1)[0] == 2052


def test_950_int64_sum_wraps():
    with asc.Core("950") as core:
        core.ub_write(0, bytes(64 * 1024))
        core.ub_write(SRC, np.array([2**62] * 6 + [-5], np.int64).tobytes())
        x = asc.LocalTensor(asc.int64, VECIN, SRC, 8)
        z = asc.LocalTensor(asc.int64, VECOUT, DST, 4)
        asc.reduce_sum(z, x, x, 7)
        assert np.frombuffer(core.ub_read(DST, 8), np.int64)[0] == (6 * 2**62 - 5 + 2**63) % 2**64 - 2**63
        assert_rejected(core, UnsupportedError, lambda: asc.reduce_sum(z, x, x, 32, 1, 8), operand="src dtype")


# ------------------------------------------------------------------ constraints
def test_work_buffer_size(a2):
    """关键特性说明: ReduceSum 方式二 needs ceil(repeats / 16) * 16 halves; ReduceMax with an index adds up
    the rounds' space."""
    z, x, _ = setup(a2, np.ones(8320))
    w = asc.LocalTensor(F16, VECCALC, WORK, 79)
    assert_rejected(a2, ParameterRangeError, lambda: asc.reduce_sum(z, x, w, 128, 65, 8),
                    instruction="reduce_sum", operand="shared_tmp_buffer size", value=79)
    asc.reduce_sum(z, x, w, 8320)  # the A2 count form does not use it
    # ReduceMax float, 130 repeats with index: iter1 260 -> 264 + iter2 10 -> 16 + iter3 2 -> 8 = 288
    z, x, _ = setup(a2, np.ones(130 * 64), F32)
    assert asc.reduce_max.instruction.compile  # registered
    w = asc.LocalTensor(F32, VECCALC, WORK, 287)
    assert_rejected(a2, ParameterRangeError, lambda: asc.reduce_max(z, x, w, 64, 130, 8, True),
                    operand="shared_tmp_buffer size", value=287, allowed="at least 288")
    w = asc.LocalTensor(F32, VECCALC, WORK, 288)
    asc.reduce_max(z, x, w, 64, 130, 8, True)


def test_work_buffer_is_left_undefined(a2):
    z, x, w = setup(a2, np.ones(512))
    asc.reduce_max(z, x, w, 512)
    with pytest.warns(UninitializedReadWarning):
        asc.reduce_sum(z, w, x, 16)


def test_950_ignores_the_work_buffer():
    """约束说明: on the 950 sharedTmpBuffer is not used; any buffer (even src) may be passed."""
    with asc.Core("950") as core:
        z, x, _ = setup(core, np.arange(300) / 7)
        tiny = asc.LocalTensor(asc.uint8, VECCALC, WORK, 32)
        before = core.ub_read(WORK, 64)
        asc.reduce_max(z, x, tiny, 300, True)
        assert core.ub_read(WORK, 64) == before
        assert int(out(core, 2, np.uint16)[1]) == 299


def test_dst_alignment_and_dtypes(a2):
    z, x, w = setup(a2, np.ones(256))
    odd = asc.LocalTensor(F16, VECOUT, DST + 2, 8)
    asc.reduce_max(odd, x, w, 256)  # value only: 2 bytes
    assert_rejected(a2, AlignmentError, lambda: asc.reduce_max(odd, x, w, 256, True), operand="dst address",
                    value=DST + 2)
    wrong = asc.LocalTensor(F32, VECCALC, WORK, 64)
    assert_rejected(a2, UnsupportedError, lambda: asc.reduce_sum(z, x, wrong, 128, 1, 8),
                    operand="shared_tmp_buffer dtype", value="float32")
    with asc.Core("910") as core:
        z, x, w = setup(core, np.ones(64), F32)
        assert_rejected(core, UnsupportedError, lambda: asc.reduce_min(z, x, w, 64), operand="src dtype",
                        value="float32")
    with asc.Core("310P-VEC") as core:
        z, x, w = setup(core, np.ones(64))
        assert_rejected(core, UnsupportedError, lambda: asc.reduce_min(z, x, w, 64), operand="product")


def test_half_index_limit(a2):
    """约束说明: with half input only indices up to 65535 can be returned."""
    z, _x, w = setup(a2, np.ones(16))
    x = asc.LocalTensor(F16, VECIN, SRC, 16)
    assert_rejected(a2, ParameterRangeError, lambda: asc.reduce_max(z, x, w, 128, 513, 0, True),
                    operand="repeat_time", value=513 * 128)


def test_dst_may_not_overlap_src_and_nops(a2):
    z, x, w = setup(a2, np.ones(256))
    inside = asc.LocalTensor(F16, VECOUT, SRC + 32, 16)
    assert_rejected(a2, OverlapError, lambda: asc.reduce_sum(inside, x, w, 256), instruction="reduce_sum")
    before = a2.ub_read(0, 64 * 1024)
    asc.reduce_sum(z, x, w, 0)
    asc.reduce_max(z, x, w, 128, 0, 8, True)
    assert a2.ub_read(0, 64 * 1024) == before
    with asc.Core("950") as core:
        z, x, w = setup(core, np.ones(256))
        assert_rejected(core, ParameterRangeError, lambda: asc.reduce_sum(z, x, w, 0), operand="count", value=0)


@pytest.mark.parametrize("name", ["reduce_sum", "reduce_max", "reduce_min"])
def test_access_records(name):
    from npusim.engine.registry import by_name

    from . import test_elementwise_access_records as records
    for index, snippet in enumerate(by_name("ascend", name).examples):
        rng = np.random.default_rng(index)
        image = rng.integers(0, 256, records.SPAN, dtype=np.uint8)
        after, record = records.run(snippet, image.tobytes())
        writes, reads = records.covered(record.writes), records.covered(record.reads)
        assert not ((after != image) & ~writes).any()
        other = image.copy()
        outside = ~(reads | writes)
        other[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)
        again, _ = records.run(snippet, other.tobytes())
        assert (again[writes] == after[writes]).all()
