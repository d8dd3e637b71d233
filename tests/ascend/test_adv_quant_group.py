"""asc.adv.quant PER_TOKEN / PER_GROUP on the 950 (AscendQuant.md 表3, 表4, 表7; ascend_quant_per_group_3510_impl.h).

The reference is per element, from the page's parameter shapes (per token [m, 1]; per group along n
[m, ceil(n / g)], along m [ceil(m / g), n]) and the vendor's vector functions read as an algorithm, built on
the tests' exact-rational Cast and arithmetic references: fp8 computes in float and converts with CAST_RINT;
int8 computes in scaleT, then half -> int8 by the config's mode, or float -> int16 by the mode -> half ->
int8 (a bfloat16 value widened to float first); modes outside 表4's five fall back to CAST_RINT.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.adv import AscendQuantParam, AscendQuantPolicy, QuantConfig, quant
from npusim.dtypes import DTYPES
from npusim.errors import OverlapError, ParameterRangeError, UnsupportedError

from . import cast_reference as cref
from .elementwise_reference import float_bits
from .test_adv_quant_register import FP8, RINT, bits_of, e4m3_overflows, number_bits, tensor

SRC, SCALE, OFFSET, DST, TMP = 0, 0x4000, 0x5000, 0x6000, 0x8000
P = AscendQuantPolicy
PAIRS = [("float16", "float16"), ("bfloat16", "bfloat16"), ("float32", "float32"), ("float16", "float32"),
         ("bfloat16", "float32")]


def parameter_index(policy, k_dim, r, c, n, g):
    if policy == P.PER_TOKEN:
        return r
    if k_dim == 1:
        return r * -(-n // g) + c // g
    return (r // g) * n + c


def extent_of(policy, k_dim, rows, n, g):
    """How many parameters the page's shape has: [m, 1], [m, ceil(n / g)] or [ceil(m / g), n]."""
    if policy == P.PER_TOKEN:
        return rows
    return rows * -(-n // g) if k_dim == 1 else -(-rows // g) * n


def lane(dst, src, scale_type, x, s, o, mode, on):
    work = "float32" if dst in FP8 else scale_type

    def widen(bits, fmt):
        return bits if fmt == work else cref.cast(fmt, work, bits, RINT, False)

    arith = on and work == "float16"
    v = float_bits("mul", work, widen(x, src), widen(s, scale_type), arith)
    if o is not None:
        v = float_bits("add", work, v, widen(o, scale_type), arith)
    if dst in FP8:
        if dst == "float8_e4m3fn" and not on and e4m3_overflows(v):
            return None  # rejected as not modelled (a NaN of unstated sign)
        return cref.cast("float32", dst, v, RINT, on)
    m = int(mode) if int(mode) in (1, 2, 3, 4, 5) else RINT
    if work == "float16":
        return cref.cast("float16", "int8", v, m, False)
    if work == "bfloat16":
        v = cref.cast("bfloat16", "float32", v, RINT, False)
    v = cref.cast("float32", "int16", v, m, False)
    v = cref.cast("int16", "float16", v, RINT, on)
    return cref.cast("float16", "int8", v, RINT, False)


def model(dst, src, scale_type, xs, scales, offset, policy, k_dim, n, g, mode, on):
    """``offset``: None (has_offset false), a list of bits or one number (a scaleT parameter)."""
    if offset is not None and not isinstance(offset, list):
        scalar = number_bits(offset, scale_type)
    out = []
    for i, x in enumerate(xs):
        p = parameter_index(policy, k_dim, i // n, i % n, n, g)
        o = None if offset is None else (offset[p] if isinstance(offset, list) else scalar)
        out.append(lane(dst, src, scale_type, x, scales[p], o, mode, on))
    return out


def run(dst_type, src_type, scale_type, values, scales, offset, para, policy, config, on=True):
    with asc.Core("950", trace=True) as core:
        core.float_saturation = on
        src = tensor(src_type, SRC, values)
        scale = tensor(scale_type, SCALE, scales)
        if isinstance(offset, list):
            offset = tensor(scale_type, OFFSET, offset)
        dst = asc.LocalTensor(dst_type, asc.TPosition.VECOUT, DST, len(values))
        dst.write(np.zeros(len(values), np.uint8).view(dst_type.np_dtype))
        quant(dst, src, scale, offset, config=config, policy=policy, para=para)
        return bits_of(dst.read(), dst_type), core.trace


@st.composite
def cases(draw):
    src, scale_type = draw(st.sampled_from(PAIRS))
    dst = draw(st.sampled_from(["int8", *FP8]))
    policy = draw(st.sampled_from([P.PER_TOKEN, P.PER_GROUP]))
    k_dim, g = draw(st.sampled_from([0, 1])), draw(st.sampled_from([32, 64]))
    n, rows = 32 * draw(st.integers(1, 4)), draw(st.integers(1, 5))
    extent = extent_of(policy, k_dim, rows, n, g)
    big = st.floats(-400, 400, width=32)
    values = draw(st.lists(st.one_of(big, st.sampled_from([0.5, 2.5, -2.5, 1e5, float("nan"), -0.0])),
                           min_size=n * rows, max_size=n * rows))
    scales = draw(st.lists(st.floats(-4, 4, width=32), min_size=extent, max_size=extent))
    has_offset = draw(st.booleans())
    offset = draw(st.one_of(st.lists(st.floats(-200, 200, width=32), min_size=extent, max_size=extent),
                            st.sampled_from([0.75, -3.5, 100.0])))
    mode = draw(st.sampled_from(list(asc.RoundMode)))
    return src, scale_type, dst, policy, k_dim, g, n, rows, values, scales, offset, has_offset, mode


@settings(max_examples=80, deadline=None)
@given(case=cases(), on=st.booleans())
def test_every_element_is_the_models(case, on):
    src, scale_type, dst, policy, k_dim, g, n, rows, values, scales, offset, has_offset, mode = case
    s, t, d = DTYPES[src], DTYPES[scale_type], DTYPES[dst]
    config = QuantConfig(has_offset=has_offset, k_dim=k_dim, round_mode=mode)
    para = AscendQuantParam(rows, n, n * rows, g if policy == P.PER_GROUP else 0)
    used_offset = None if not has_offset else (bits_of(offset, t) if isinstance(offset, list) else offset)
    expected = model(dst, src, scale_type, bits_of(values, s), bits_of(scales, t), used_offset, policy, k_dim, n,
                     g, mode, on)
    if None in expected:
        with pytest.raises(UnsupportedError):
            run(d, s, t, values, scales, offset, para, policy, config, on)
        return
    got, trace = run(d, s, t, values, scales, offset, para, policy, config, on)
    assert got == expected
    assert [r.instruction for r in trace] == ["quant"]


@pytest.mark.parametrize(("mode", "expected"), [(asc.RoundMode.CAST_RINT, [2, -2, 127]),
                                                (asc.RoundMode.CAST_ROUND, [3, -3, 127]),
                                                (asc.RoundMode.CAST_FLOOR, [2, -3, 127]),
                                                (asc.RoundMode.CAST_CEIL, [3, -2, 127]),
                                                (asc.RoundMode.CAST_TRUNC, [2, -2, 127]),
                                                (asc.RoundMode.CAST_ODD, [2, -2, 127]),  # falls back to RINT
                                                (asc.RoundMode.CAST_NONE, [2, -2, 127])])
@pytest.mark.parametrize("scale_type", [asc.float16, asc.float32])
def test_the_int8_rounding_mode_is_the_configs(mode, expected, scale_type):
    """2.5, -2.5 and 300.7 (float chain: int16 301 -> half 301 -> int8 127) with scale 1, no offset."""
    values = [2.5, -2.5, 300.75] + [0.0] * 29
    got, _ = run(asc.int8, asc.float16, scale_type, values, [1.0], 0.0, AscendQuantParam(1, 32, 32),
                 P.PER_TOKEN, QuantConfig(round_mode=mode))
    assert np.array(got[:3], np.uint8).view(np.int8).tolist() == expected


def test_offset_takes_part_only_with_has_offset():
    para, values = AscendQuantParam(1, 32, 32), [1.0] * 32
    with_offset, _ = run(asc.int8, asc.float16, asc.float16, values, [2.0], [5.0], para, P.PER_TOKEN,
                         QuantConfig(has_offset=True))
    without, _ = run(asc.int8, asc.float16, asc.float16, values, [2.0], [5.0], para, P.PER_TOKEN, QuantConfig())
    assert with_offset == [7] * 32 and without == [2] * 32


def test_per_group_along_n_rounds_the_groups_of_a_row_up():
    """k_dim 1, group 64, rows of 96: each row has ceil(96 / 64) = 2 groups (the scale shape [m, 2]; the code's
    scaleK = CeilDivision(n, groupSize)), so row 1 starts at scale 2: row 0 takes 1 (64 columns) and 2 (32),
    row 1 takes 3 (64) and 4 (32)."""
    got, _ = run(asc.int8, asc.float16, asc.float16, [1.0] * 192, [1.0, 2.0, 3.0, 4.0], 0.0,
                 AscendQuantParam(2, 96, 192, 64), P.PER_GROUP, QuantConfig(k_dim=1))
    assert got == [1] * 64 + [2] * 32 + [3] * 64 + [4] * 32


def test_per_group_along_m_shares_a_scale_row_between_group_size_rows():
    """k_dim 0, group 32, 40 rows of 32: rows 0-31 take scale row 0 (all 1), rows 32-39 row 1 (all 2)."""
    values = [1.0] * (40 * 32)
    got, _ = run(asc.int8, asc.float32, asc.float32, values, [1.0] * 32 + [2.0] * 32, 0.0,
                 AscendQuantParam(40, 32, 40 * 32, 32), P.PER_GROUP, QuantConfig(k_dim=0))
    assert got == [1] * (32 * 32) + [2] * (8 * 32)


# ------------------------------------------------------------------ constraints
def rejected(error, chip="950", *, src_type=asc.float16, scale_type=asc.float16, dst_type=asc.int8, n=64,
             para=None, policy=P.PER_TOKEN, config=None, scale_n=8, scale_at=SCALE, offset=0.5, tmp_type=None,
             **kwargs):
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, bytes(64 * 1024))
        src = asc.LocalTensor(src_type, asc.TPosition.VECIN, SRC, n)
        dst = asc.LocalTensor(dst_type, asc.TPosition.VECOUT, DST, n)
        scale = asc.LocalTensor(scale_type, asc.TPosition.VECIN, scale_at, scale_n)
        if offset == "tensor":
            offset = asc.LocalTensor(kwargs.pop("offset_type", scale_type), asc.TPosition.VECIN, OFFSET, scale_n)
        tmp = asc.LocalTensor(tmp_type, asc.TPosition.VECCALC, TMP, 64) if tmp_type else None
        before = core.ub_read(0, core.ub.size_bytes)
        with pytest.raises(error) as caught:
            quant(dst, src, scale, offset, temp_buffer=tmp, config=config or QuantConfig(has_offset=True),
                  policy=policy, para=para or AscendQuantParam(2, 32, 64), **kwargs)
        assert core.ub_read(0, core.ub.size_bytes) == before and not core.trace
    if isinstance(caught.value, UnsupportedError | ParameterRangeError | OverlapError):
        assert caught.value.instruction == "quant"
    return caught.value


@pytest.mark.parametrize(("kwargs", "operand"), [
    ({"para": AscendQuantParam(1, 48, 48)}, "para.n"),              # not 32 bytes of int8
    ({"para": AscendQuantParam(1, 0, 0)}, "para.n"),
    ({"para": AscendQuantParam(2, 32, 48)}, "para.cal_count"),      # not a multiple of n
    ({"para": AscendQuantParam(4, 32, 128)}, "para.cal_count"),     # beyond src and dst
    ({"policy": P.PER_GROUP, "para": AscendQuantParam(2, 32, 64, 0)}, "para.group_size"),
    ({"policy": P.PER_GROUP, "para": AscendQuantParam(2, 32, 64, 48)}, "para.group_size"),
    ({"policy": P.PER_GROUP, "para": AscendQuantParam(2, 32, 64, 32), "config": QuantConfig(k_dim=2)},
     "config.k_dim"),
    ({"scale_n": 1}, "scale size"),                                 # two rows need two scales
    ({"offset": "tensor", "scale_n": 1}, "scale size"),
])
def test_the_pages_rules_are_range_errors(kwargs, operand):
    assert rejected(ParameterRangeError, **kwargs).operand == operand


@pytest.mark.parametrize(("chip", "kwargs", "operand"), [
    ("KirinX90", {}, "product"),
    ("950", {"policy": P.PER_CHANNEL}, "policy"),
    ("950", {"policy": P.PER_TOKEN_PER_GROUP}, "policy"),
    ("950", {"src_type": asc.float32, "scale_type": asc.float16}, "src / scale dtype"),
    ("950", {"dst_type": asc.uint8}, "dst dtype"),
    ("950", {"offset": "tensor", "offset_type": asc.float32}, "offset dtype"),
    ("950", {"tmp_type": asc.float16}, "temp_buffer dtype"),
])
def test_what_the_page_and_code_do_not_take_is_unsupported(chip, kwargs, operand):
    assert rejected(UnsupportedError, chip, **kwargs).operand == operand


def test_the_parameters_must_not_overlap_dst():
    assert rejected(OverlapError, scale_at=DST).operand == "scale byte range"


def test_the_counts_belong_to_para():
    rejected(TypeError, count=64)
