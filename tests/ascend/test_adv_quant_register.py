"""asc.adv.quant on the register-ISA products (the 950: ascend_quant_3510_impl.h; Kirin X90 / 9030:
ascend_quant_l300_impl.h), per tensor and per channel, dst int8 and (the 950) fp8_e4m3fn / fp8_e5m2 / hifloat8
(the b8 path ending in half -> hifloat8_t CAST_ROUND, LayoutZMrgZRndASatS; hifloat8_reference).

The reference is per element, written from the vendor's vector functions read as an algorithm and built on
the tests' own exact-rational Cast and arithmetic references (cast_reference, elementwise_reference), no
npusim code: b8 path (int8) every operand -> half (RINT), half mul, half add, -> int8 (RINT, saturating);
fp8 path every operand -> float, float mul, float add, -> fp8 (RINT).  Saturation: the 950's global CTRL[48]
(core.float_saturation) for conversions to half / fp8 and half arithmetic; Kirin's casts saturate (their
SAT trait) and its half arithmetic does not.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.adv import QuantConfig, quant
from npusim.dtypes import DTYPES
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, SyncError, UnsupportedError

from . import cast_reference as cref
from . import hifloat8_reference as href
from .elementwise_reference import float_bits

SRC, SCALE, OFFSET, DST, TMP = 0, 0x4000, 0x5000, 0x6000, 0x8000
RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32}
FP8 = ("float8_e4m3fn", "float8_e5m2")
RINT = 1


# ------------------------------------------------------------------ the reference
def saturation(chip: str, on: bool = True) -> tuple[bool, bool]:
    """(conversions saturate, half arithmetic saturates)."""
    return (on, on) if chip == "950" else (True, False)


def number_bits(value, fmt: str) -> int:
    """A C number (already a float32 or the parameter's type) as bits of ``fmt``, to nearest even."""
    return cref.to_float(Fraction(float(value)) if isinstance(value, np.floating) else Fraction(value), fmt, "rint")


def lane(dst: str, src: str, x: int, scale: int, scale_type: str, offset: int, offset_type: str,
         sat: tuple[bool, bool]) -> int:
    work = "float32" if dst in FP8 else "float16"
    convert_sat, arith_sat = sat

    def to_work(bits, fmt):
        return bits if fmt == work else cref.cast(fmt, work, bits, RINT, convert_sat if work == "float16" else False)

    arith = arith_sat if work == "float16" else False
    v = float_bits("mul", work, to_work(x, src), to_work(scale, scale_type), arith)
    v = float_bits("add", work, v, to_work(offset, offset_type), arith)
    if dst == "float8_e4m3fn" and not convert_sat and e4m3_overflows(v):
        return None  # a NaN of unstated sign (Reg Cast.md, non-saturating): rejected as not modelled
    if dst == "hifloat8":  # LayoutZMrgZRndASatS: half -> hifloat8_t CAST_ROUND, saturating by CTRL[48]
        return href.round_away(href.half_value(v), convert_sat)
    return cref.cast(work, dst, v, RINT, convert_sat if dst in FP8 else False)


def e4m3_overflows(float_bits_: int) -> bool:
    """|v| >= 464 (halfway from e4m3fn's 448 to 480) or infinite; NaN is no overflow."""
    value = cref.decode("float32", float_bits_)
    return value == value and abs(value) >= 464


def per_tensor_model(dst, src, xs, scale, offset, sat):
    work = "float32" if dst in FP8 else "float16"
    s, o = number_bits(np.float32(scale), work), number_bits(np.float32(offset), work)
    return [lane(dst, src, x, s, work, o, work, sat) for x in xs]


def per_channel_model(dst, src, xs, scales, offset, sat):
    """``offset``: a list (a tensor's bits) or one number (a srcT parameter)."""
    work = "float32" if dst in FP8 else "float16"
    n = len(scales)
    if isinstance(offset, list):
        return [lane(dst, src, x, scales[i % n], src, offset[i % n], src, sat) for i, x in enumerate(xs)]
    as_src = cref.decode(src, number_bits(offset, src) if src != "float32" else number_bits(np.float32(offset), src))
    o = number_bits(as_src, work)
    return [lane(dst, src, x, scales[i % n], src, o, work, sat) for i, x in enumerate(xs)]


# ------------------------------------------------------------------ running npusim
def bits_of(values, dtype) -> list[int]:
    with np.errstate(over="ignore"):  # 1e5 as half: inf, in the reference's input and the tensor alike
        return np.asarray(values, dtype.np_dtype).view(RAW[dtype.itemsize]).tolist()


def tensor(dtype, addr, values, pos=asc.TPosition.VECIN):
    t = asc.LocalTensor(dtype, pos, addr, len(values))
    with np.errstate(over="ignore"):
        t.write(np.asarray(values, dtype.np_dtype))
    return t


def run(chip, dst_type, dtype, values, scale, offset, count=None, saturate=True, tmp=None, config=None,
        scale_count=None, offset_count=None):
    """(dst bits, the trace's instructions, scale's bytes after the call)."""
    with asc.Core(chip, trace=True) as core:
        core.float_saturation = saturate
        src = tensor(dtype, SRC, values)
        if isinstance(scale, list):
            scale = tensor(dtype, SCALE, scale)
        if isinstance(offset, list):
            offset = tensor(dtype, OFFSET, offset)
        dst = asc.LocalTensor(dst_type, asc.TPosition.VECOUT, DST, len(values))
        dst.write(np.zeros(len(values), np.uint8).view(dst_type.np_dtype))
        buffer = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, tmp) if tmp else None
        if buffer is not None:
            core.ub_write(TMP, bytes(range(256)) * (tmp // 256))
        quant(dst, src, scale, offset, count, buffer, config=config, scale_count=scale_count,
              offset_count=offset_count)
        scale_bytes = core.ub_read(SCALE, scale.nbytes) if isinstance(scale, asc.LocalTensor) else b""
        if buffer is not None:
            assert core.ub_read(TMP, tmp) == bytes(range(256)) * (tmp // 256)  # the buffer is not used
        out = (list(core.ub_read(DST, len(values))) if dst_type.name == "hifloat8"  # its codes
               else bits_of(dst.read(), dst_type))
        return out, core.trace, scale_bytes


CHIP_TYPES = [("950", src, dst) for src in ("float16", "bfloat16", "float32") for dst in ("int8", *FP8, "hifloat8")] + \
             [(chip, src, "int8") for chip in ("KirinX90", "Kirin9030") for src in ("float16", "float32")]


def values_of(src: str, n: int):
    width = 32 if src == "float32" else 16
    finite = st.floats(-600, 600, width=width) if src != "bfloat16" else st.floats(-600, 600, width=32)
    special = st.sampled_from([0.5, 1.5, 2.5, -0.5, -2.5, 63.75, -0.0, 1e5, -1e5, float("inf"), float("nan"),
                               70000.0, 3e-6])
    return st.lists(st.one_of(finite, special), min_size=n, max_size=n)


@st.composite
def tensor_cases(draw):
    chip, src, dst = draw(st.sampled_from(CHIP_TYPES))
    n = 32 * draw(st.integers(1, 10))
    values = draw(values_of(src, n))
    scale = draw(st.sampled_from([2.0, 0.5, -1.25, 0.02, 3.0, 1e-3, 1000.0]))
    offset = draw(st.sampled_from([0.9, 0.0, -0.5, 127.0, 1e-3, 300.5, 1e6]))
    return chip, src, dst, values, scale, offset, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(case=tensor_cases())
def test_per_tensor_every_element_is_the_models(case):
    chip, src, dst, values, scale, offset, on = case
    s, d = DTYPES[src], DTYPES[dst]
    expected = per_tensor_model(dst, src, bits_of(values, s), scale, offset, saturation(chip, on))
    if None in expected:
        with pytest.raises(UnsupportedError):
            run(chip, d, s, values, scale, offset, saturate=on)
        return
    got, trace, _ = run(chip, d, s, values, scale, offset, saturate=on)
    assert got == expected
    assert [r.instruction for r in trace] == ["quant"]


@st.composite
def channel_cases(draw):
    chip, src, dst = draw(st.sampled_from(CHIP_TYPES))
    channels = 32 * draw(st.integers(1, 6))
    rows = draw(st.integers(1, 3))
    values = draw(values_of(src, channels * rows))
    width = 32 if src == "float32" else 16
    scales = draw(st.lists(st.floats(-8, 8, width=width), min_size=channels, max_size=channels))
    offsets = draw(st.one_of(st.lists(st.floats(-300, 300, width=width), min_size=channels, max_size=channels),
                             st.sampled_from([0.9, 0.0, -2.5, 1e-3, 100.25])))
    return chip, src, dst, values, scales, offsets, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(case=channel_cases())
def test_per_channel_every_element_is_the_models(case):
    chip, src, dst, values, scales, offsets, on = case
    s, d = DTYPES[src], DTYPES[dst]
    offset = bits_of(offsets, s) if isinstance(offsets, list) else offsets
    expected = per_channel_model(dst, src, bits_of(values, s), bits_of(scales, s), offset, saturation(chip, on))
    if None in expected:
        with pytest.raises(UnsupportedError):
            run(chip, d, s, values, scales, offsets, saturate=on)
        return
    got, _, scale_bytes = run(chip, d, s, values, scales, offsets, saturate=on)
    assert got == expected
    assert scale_bytes == np.asarray(scales, s.np_dtype).tobytes()  # read in registers, never rewritten


@pytest.mark.parametrize("on", [True, False])
def test_per_tensor_hifloat8_takes_the_b8_path_with_cast_round(on):
    """half work type (scale 0.5, offset 0.25), then half -> hifloat8_t CAST_ROUND: 1.5 * 0.5 + 0.25 = 1;
    19 * 0.5 + 0.25 = 9.75, between the codes 9 and 10 (unit 1 at 2**3), goes to 10; 1e5 is half inf: +-32768
    saturating, +-inf not; 3e-6 * 0.5 + 0.25 is 0.25 in half."""
    values = [1.5, 19.0, 1e5, -1e5, 3e-6, 0.0] + [1.0] * 26
    got, trace, _ = run("950", asc.hifloat8, asc.float16, values, 0.5, 0.25, saturate=on)
    assert [href.VALUES[c] for c in got[:2]] == [1, 10]
    assert got[2:4] == ([0x6E, 0xEE] if on else [0x6F, 0xEF])
    assert href.VALUES[got[4]] == Fraction(1, 4) and href.VALUES[got[5]] == Fraction(1, 4)
    assert [r.instruction for r in trace] == ["quant"]


# ------------------------------------------------------------------ the page's examples
@pytest.mark.parametrize("chip", ["950", "KirinX90", "Kirin9030"])
@pytest.mark.parametrize("dtype", [asc.float16, asc.float32])
def test_the_per_tensor_page_example(chip, dtype):
    """PER_TENSOR 结果示例: src [-512 ... 511], scale 0.02, offset 0.9 -> [-9 -9 -9 ... 11]; calCount 1022 breaks
    the 32-byte rule (erratum E9, as on the A2), so 1024 elements, the written lanes as printed."""
    values = np.arange(-512, 512)
    with pytest.raises(ParameterRangeError):
        run(chip, asc.int8, dtype, values, 0.02, 0.9, count=1022)
    got, _, _ = run(chip, asc.int8, dtype, values, 0.02, 0.9, count=1024)
    got = np.array(got, np.uint8).view(np.int8)
    assert got[:3].tolist() == [-9, -9, -9] and got[1021] == 11


@pytest.mark.parametrize("chip", ["950", "KirinX90"])
def test_the_per_channel_page_example(chip):
    """PER_CHANNEL 结果示例 (erratum E19 as on the A2: 1024 elements, the 32 printed offsets repeated)."""
    offsets = np.tile(np.float32(1.01) + np.float32(0.01) * np.arange(32, dtype=np.float32), 2).tolist()
    args = (chip, asc.int8, asc.float32, np.arange(-512, 512).tolist(), [0.02] * 64, offsets)
    with pytest.raises(ParameterRangeError):
        run(*args, count=1022, scale_count=64, offset_count=64)
    got, _, _ = run(*args, count=1024, scale_count=64, offset_count=64)
    got = np.array(got, np.uint8).view(np.int8)
    assert got[:3].tolist() == [-9, -9, -9] and got[1021] == 11


# ------------------------------------------------------------------ what differs from the A2/A3
def test_a_float_source_saturates_to_half_while_ctrl48_is_on():
    """1e6 as half: 65504 with saturation (65504 * 0.001 = 65.5 -> 66 by half RINT: 65.5 is 65.5, a tie -> 66),
    inf without (inf * 0.001 = inf -> 127)."""
    values = [1e6] * 32
    assert run("950", asc.int8, asc.float32, values, 1e-3, 0.0)[0] == [66] * 32
    assert run("950", asc.int8, asc.float32, values, 1e-3, 0.0, saturate=False)[0] == [127] * 32
    assert run("KirinX90", asc.int8, asc.float32, values, 1e-3, 0.0, saturate=False)[0] == [66] * 32


def test_a_nan_product_becomes_0_under_half_saturation():
    """NaN * 2: the 950's saturated half Mul gives 0, then + 5 -> 5; Kirin keeps NaN, and NaN -> int8 is 0."""
    values = [float("nan")] * 32
    assert run("950", asc.int8, asc.float16, values, 2.0, 5.0)[0] == [5] * 32
    assert run("KirinX90", asc.int8, asc.float16, values, 2.0, 5.0)[0] == [0] * 32


def test_fp8_computes_in_float():
    """The fp8 path keeps float: 1000 * 70 = 70000 is beyond half (the b8 path would saturate it to 65504 first)
    and 70000 - 69999 = 1 exactly in float -> e4m3fn 1.0 (0x38)."""
    got = run("950", DTYPES["float8_e4m3fn"], asc.float16, [1000.0] * 32, 70.0, -69999.0)[0]
    assert got == [0x38] * 32


def test_fp8_saturates():
    """e5m2: 1e5 is beyond 57344: with CTRL[48] on the largest finite (0x7B), off infinity (0x7C).  e4m3fn:
    448 (0x7E) with it on; off, a NaN of unstated sign: rejected as not modelled, memory unchanged."""
    e5m2, e4m3 = DTYPES["float8_e5m2"], DTYPES["float8_e4m3fn"]
    assert run("950", e5m2, asc.float32, [1e5] * 32, 1.0, 0.0)[0] == [0x7B] * 32
    assert run("950", e5m2, asc.float32, [1e5] * 32, 1.0, 0.0, saturate=False)[0] == [0x7C] * 32
    assert run("950", e4m3, asc.float32, [464.0] * 32, 1.0, 0.0)[0] == [0x7E] * 32
    assert run("950", e4m3, asc.float32, [463.9] * 32, 1.0, 0.0, saturate=False)[0] == [0x7E] * 32
    with asc.Core("950", trace=True) as core:
        core.float_saturation = False
        src = tensor(asc.float32, SRC, [464.0] * 32)
        dst = asc.LocalTensor(e4m3, asc.TPosition.VECOUT, DST, 32)
        dst.write(np.zeros(32, np.uint8).view(e4m3.np_dtype))
        before = core.ub_read(0, core.ub.size_bytes)
        with pytest.raises(UnsupportedError) as caught:
            quant(dst, src, 1.0, 0.0, 32)
        assert caught.value.operand == "dst value" and core.ub_read(0, core.ub.size_bytes) == before
    # the NaN rule is the register Cast's (约束说明: 不饱和模式 ... fp8_e4m3fn_t ... 输出为nan), not AscendQuant's
    assert caught.value.source.startswith("SIMD-API/基础API/Reg矢量计算/类型转换/Cast.md 约束说明")


def test_the_temp_buffer_is_optional_and_untouched():
    values = [1.0] * 64
    assert run("950", asc.int8, asc.float16, values, 2.0, 0.9)[0] == [3] * 64
    assert run("950", asc.int8, asc.float16, values, 2.0, 0.9, tmp=512)[0] == [3] * 64


def test_one_access_record_reads_src_and_parameters_and_writes_dst():
    _, trace, _ = run("950", asc.int8, asc.float16, [1.0] * 64, [1.0] * 32, [0.0] * 32)
    (record,) = trace
    assert record.pipe == "V" and [(r.start, r.stop) for r in record.writes] == [(DST, DST + 64)]
    assert [(r.start, r.stop) for r in record.reads] == [(SRC, SRC + 128), (SCALE, SCALE + 64), (OFFSET, OFFSET + 64)]


def test_config_calc_count_alone_replaces_the_count():
    """calCountReal = config.calcCount != 0 ? config.calcCount : calCount (the 3510 code; the A2 needs
    workLocalSize too)."""
    got = run("950", asc.int8, asc.float16, [1.0] * 64, 2.0, 0.9, count=64, config=QuantConfig(32))[0]
    assert got == [3] * 32 + [0] * 32


def test_per_channel_config_counts_replace_the_runtime_ones():
    got = run("950", asc.int8, asc.float16, [1.0] * 128, [2.0] * 64, [0.9] * 64, count=128, scale_count=64,
              offset_count=64, config=QuantConfig(calc_count=64, offset_count=32, scale_count=32))[0]
    assert got == [3] * 64 + [0] * 64


@pytest.mark.parametrize("config", [QuantConfig(calc_count=64), QuantConfig(scale_count=32),
                                    QuantConfig(calc_count=64, scale_count=32)])
def test_per_channel_config_counts_need_every_count_set(config):
    """enableConfig (the 3510 code) is calcCount && scaleCount (&& offsetCount with an offset tensor): a config
    with some of them 0 leaves every runtime count in force (here 128 elements of 64 channels, all written)."""
    got = run("950", asc.int8, asc.float16, [1.0] * 128, [2.0] * 64, [0.9] * 64, count=128, scale_count=64,
              offset_count=64, config=config)[0]
    assert got == [3] * 128


def test_the_per_channel_scalar_offset_is_a_srct_value_first():
    """The per-channel scalar offset is a ``const srcT offset`` parameter: for a bfloat16 src it is rounded to
    bfloat16, then ``static_cast<half>(ToFloat(offset))``.  0.5 + 2**-9 is a bfloat16 tie that rounds to 0.5
    (whose int8 rounding, a tie too, is 0), though half holds it exactly (which would give 1)."""
    got = run("950", asc.int8, asc.bfloat16, [0.0] * 32, [1.0] * 32, 0.5 + 2 ** -9)[0]
    assert got == [0] * 32
    assert run("950", asc.int8, asc.float16, [0.0] * 32, [1.0] * 32, 0.5 + 2 ** -9)[0] == [1] * 32


def test_the_in_place_form_quantises_src():
    with asc.Core("950"):
        src = tensor(asc.float32, SRC, [1.5] * 64)
        quant(src.reinterpret_cast(asc.int8), src, 1.0, 0.0, 64)
        assert src.reinterpret_cast(asc.int8).read(64).tolist() == [2] * 64


# ------------------------------------------------------------------ constraints
def rejected(error, chip="950", *, dtype=asc.float16, dst_type=asc.int8, n=64, count=64, scale=2.0, offset=0.9,
             dst_at=DST, scale_at=SCALE, channels=None, scale_type=None, tmp_type=asc.uint8, tmp_bytes=None,
             config=None, scale_count=None, offset_count=None):
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, bytes(64 * 1024))
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, n)
        dst = asc.LocalTensor(dst_type, asc.TPosition.VECOUT, dst_at, n)
        if channels:
            scale = asc.LocalTensor(scale_type or dtype, asc.TPosition.VECIN, scale_at, channels)
            if offset == "tensor":
                offset = asc.LocalTensor(dtype, asc.TPosition.VECIN, OFFSET, channels)
        tmp = asc.LocalTensor(tmp_type, asc.TPosition.VECCALC, TMP, tmp_bytes // tmp_type.itemsize) \
            if tmp_bytes else None
        before = core.ub_read(0, core.ub.size_bytes)
        with pytest.raises(error) as caught:
            quant(dst, src, scale, offset, count, tmp, config=config, scale_count=scale_count,
                  offset_count=offset_count)
        assert core.ub_read(0, core.ub.size_bytes) == before and not core.trace
    assert caught.value.instruction == "quant"
    return caught.value


@pytest.mark.parametrize(("kwargs", "operand"), [
    ({"count": 96}, "count"),                                    # beyond src and dst
    ({"count": 48}, "count"),                                    # not 32 bytes of int8
    ({"config": QuantConfig(96)}, "config.calc_count"),
    ({"scale": 70000.0}, "scale"),                               # outside half's range
    ({"tmp_bytes": 480}, "temp_buffer size"),
    ({"tmp_bytes": 512, "config": QuantConfig(32, 0, 0, 1024)}, "config.work_local_size"),
    ({"channels": 48}, "scale_count"),                           # not a multiple of 32
    ({"channels": 32, "count": 48}, "count"),
    ({"channels": 64, "count": 32, "scale_count": 64}, "count"),  # not a multiple of scaleCount
    ({"channels": 128, "scale_count": 128}, "scale_count"),       # beyond dst
    ({"channels": 32, "offset": "tensor", "offset_count": 64}, "offset_count"),
    ({"channels": 64, "offset": "tensor", "scale_count": 64, "offset_count": 32}, "offset_count"),  # not scaleCount
    ({"channels": 48, "config": QuantConfig(64, 0, 48)}, "config.scale_count"),  # the constexpr counts checked
])
def test_the_pages_rules_are_range_errors(kwargs, operand):
    error = rejected((OutOfBoundsError, ParameterRangeError), **kwargs)
    assert error.operand == operand


@pytest.mark.parametrize(("chip", "kwargs", "operand"), [
    ("KirinX90", {"dtype": asc.bfloat16}, "src dtype"),
    ("Kirin9030", {"dst_type": DTYPES["float8_e4m3fn"]}, "dst dtype"),
    ("950", {"dtype": asc.int16}, "src dtype"),
    ("950", {"dst_type": asc.uint8}, "dst dtype"),
    ("950", {"tmp_bytes": 512, "tmp_type": asc.float16}, "temp_buffer dtype"),
    ("950", {"channels": 32, "scale_type": asc.float32}, "scale dtype"),
])
def test_types_outside_the_implementation_are_unsupported(chip, kwargs, operand):
    assert rejected(UnsupportedError, chip, **kwargs).operand == operand


def test_dst_reuses_src_only_from_its_start():
    assert rejected(OverlapError, dst_at=SRC + 32).operand == "dst byte range"


def test_the_parameter_tensors_must_not_overlap_dst():
    assert rejected(OverlapError, channels=32, scale_at=DST + 32).operand == "scale byte range"


def test_config_belongs_to_the_int8_prototypes():
    with asc.Core("950"):
        src = tensor(asc.float16, SRC, [1.0] * 32)
        dst = asc.LocalTensor(DTYPES["float8_e5m2"], asc.TPosition.VECOUT, DST, 32)
        with pytest.raises(TypeError):
            quant(dst, src, 1.0, 0.0, 32, config=QuantConfig(32))


# ------------------------------------------------------------------ in a kernel, under the sync checker
def _kernel(x_gm, z_gm):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x_gm)
    zg.set_global_buffer(z_gm)
    pipe = asc.TPipe()
    q_in, q_out = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(q_in, 1, 64 * 2)
    pipe.init_buffer(q_out, 1, 64)
    x = q_in.alloc_tensor(asc.float16)
    asc.data_copy(x, xg, 64)
    q_in.enque(x)
    x = q_in.deque(asc.float16)
    z = q_out.alloc_tensor(asc.int8)
    asc.adv.quant(z, x, 2.0, 0.9, 64)  # the 950: no temp buffer needed
    q_out.enque(z)
    z = q_out.deque(asc.int8)
    asc.data_copy(zg, z, 64)
    q_in.free_tensor(x)
    q_out.free_tensor(z)


@pytest.mark.parametrize("seed", [None, 1, 7])
def test_a_synchronised_kernel_runs_clean_under_the_checker(seed):
    """The call is one V-pipe access record the checker orders between the queues' MTE2 and MTE3 copies; under
    fuzzed schedules the bytes stay the model's."""
    src = (np.arange(64) / 8 - 4).astype(np.float16)
    out = np.zeros(64, np.int8)
    launch = asc.jit(_kernel).launch(1, (src, out), chip="950", sync="raise", schedule_seed=seed, trace=True)
    expected = per_tensor_model("int8", "float16", bits_of(src, asc.float16), 2.0, 0.9, saturation("950"))
    assert out.view(np.uint8).tolist() == expected
    records = [r for r in launch.trace[0].records if r.instruction == "quant"]
    assert len(records) == 1 and records[0].pipe == "V"


def _unsynchronised(x_gm, z_gm):
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x_gm)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, 256)
    x = buf.get(asc.float16)
    asc.data_copy(x, xg, 64)  # MTE2 ...
    asc.adv.quant(x[64:].reinterpret_cast(asc.int8), x, 2.0, 0.9, 64)  # ... read on V without a wait


def test_the_checker_sees_the_call():
    """A V-pipe read of bytes an MTE2 copy wrote without MTE2_V ordering is a race naming quant."""
    with pytest.raises(SyncError) as caught:
        asc.jit(_unsynchronised).launch(1, (np.zeros(64, np.float16), np.zeros(64, np.int8)), chip="950",
                                        sync="raise")
    assert caught.value.instruction == "quant" and "MTE2_V" in str(caught.value)


def test_a_huge_integer_offset_is_infinity_not_an_overflow_error():
    """offset 10**400 as a C float: +inf (rounded exactly, as every scalar parameter), so every lane saturates."""
    assert run("950", asc.int8, asc.float16, [1.0] * 32, 1.0, 10**400)[0] == [127] * 32
    rejected(ParameterRangeError, scale=10**400)
