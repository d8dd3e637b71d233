"""asc.adv.quant (高阶API/量化操作/AscendQuant.md, per tensor): a per-element model of the vendor's steps
(ascend_quant_pre_impl.h: [float -> half], * half(scale), + half(offset), -> int8 rounding to nearest even
with saturation, each step rounded to half), the chunking by the tmp buffer's size and QuantConfig, every
rule of the page as a ConstraintError with memory unchanged, and what pyasc's quant tests check.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.adv import QuantConfig, quant
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from .elementwise_reference import float_bits
from .quant_reference import to_half_bits, to_int8
from .test_adv_quant_channel import rejected as rejected_per_channel

SRC, DST, TMP = 0, 16384, 24576


def half_bits(value) -> int:
    return int(np.array(value, np.float16).view(np.uint16))


def model(src_bits: list[int], src_type: str, scale: float, offset: float) -> list[int]:
    """dst as int8 values, element by element."""
    s, o = half_bits(np.float32(scale)), half_bits(np.float32(offset))
    out = []
    for bits in src_bits:
        x = to_half_bits(bits) if src_type == "float32" else bits
        x = float_bits("mul", "float16", x, s, True)
        x = float_bits("add", "float16", x, o, True)
        out.append(to_int8(x))
    return out


def run(dtype, values, scale, offset, count=None, tmp_bytes=512, config=None, chip="A2"):
    with asc.Core(chip, trace=True) as core:
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, len(values))
        src.write(np.asarray(values, dtype.np_dtype))
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, len(values))
        dst.write(np.full(len(values), 99, np.int8))
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, tmp_bytes)
        quant(dst, src, scale, offset, count, tmp, config=config)
        return dst.read().tolist(), [r.instruction for r in core.trace]


@st.composite
def sources(draw):
    dtype = draw(st.sampled_from([asc.float16, asc.float32]))
    n = 32 * draw(st.integers(1, 12))
    width = 16 if dtype is asc.float16 else 32
    finite = st.floats(-300, 300, width=width)
    values = draw(st.lists(st.one_of(finite, st.sampled_from([0.5, 1.5, 2.5, -0.5, -2.5, 63.75, -64.25])),
                           min_size=n, max_size=n))
    return dtype, values


@settings(max_examples=40, deadline=None)
@given(case=sources(), scale=st.sampled_from([2.0, 0.5, -1.25, 3.0, 0.1]),
       offset=st.sampled_from([0.9, 0.0, -0.5, 127.0, 1e-3]), tmp=st.sampled_from([512, 544, 1024, 4096]),
       chip=st.sampled_from(["A2", "A3", "310P"]))
def test_every_element_is_the_models(case, scale, offset, tmp, chip):
    dtype, values = case
    got, _ = run(dtype, values, scale, offset, tmp_bytes=tmp, chip=chip)
    raw = np.asarray(values, dtype.np_dtype).view(np.uint16 if dtype is asc.float16 else np.uint32).tolist()
    assert got == model(raw, dtype.name, scale, offset)


def test_the_offset_is_rounded_to_half_before_the_add():
    """offset 0.9 is half 0.89990234375 (static_cast<half>); 1.5 rounds to even."""
    got, _ = run(asc.float16, [0.5] * 32, 1.0, 0.9)  # 0.5 + 0.89990234375 = 1.39990234375 -> 1
    assert got == [1] * 32
    got, _ = run(asc.float16, [1.5] * 32, 1.0, 0.0)  # a tie: rounds to even
    assert got == [2] * 32


def test_each_step_rounds_to_half():
    """Values where the half path and exact arithmetic part: -3.2 is half -3.19921875, * 2 = -6.3984375,
    + 0.89990234375 = -5.49853515625, which half rounds to -5.5, a tie that goes to even: -6 (exactly: -5)."""
    values = np.array([-3.2, 1.801, 2.8, 3.8] * 8, np.float16)
    got, _ = run(asc.float16, values, 2.0, 0.9)
    assert got == [-6, 4, 6, 8] * 8 == model(values.view(np.uint16).tolist(), "float16", 2.0, 0.9)
    assert np.round(values.astype(np.float64) * 2 + 0.9).astype(int).tolist() == [-5, 5, 7, 9] * 8


def test_results_saturate_to_int8():
    got, _ = run(asc.float16, [100.0, -100.0] * 16, 2.0, 0.0)
    assert got == [127, -128] * 16


@pytest.mark.parametrize(("tmp_bytes", "config", "chunks"), [
    (512, None, 2),                          # split = 512 / 2 / 32 * 32 = 256 halves: 256 + 64
    (1024, None, 1),
    (544, None, 2),                          # 544 B -> 272 -> 256 halves
    (4096, QuantConfig(320, 0, 0, 128), 5),  # config: 128 B -> 64 halves per chunk
    (4096, QuantConfig(320, 0, 0, 0), 1),    # work_local_size 0: the runtime path
])
def test_the_chunks_follow_the_tmp_size_and_the_config(tmp_bytes, config, chunks):
    values = np.linspace(-3, 3, 320).astype(np.float16)
    got, issued = run(asc.float16, values, 2.0, 0.9, tmp_bytes=tmp_bytes, config=config)
    assert issued == ["muls", "adds", "cast"] * chunks
    assert got == model(values.view(np.uint16).tolist(), "float16", 2.0, 0.9)


def test_a_float_source_is_cast_to_half_first():
    _, issued = run(asc.float32, [1.0] * 32, 2.0, 0.9)
    assert issued == ["cast", "muls", "adds", "cast"]


def test_the_config_count_replaces_the_runtime_count():
    values = [1.0] * 64
    got, _ = run(asc.float16, values, 2.0, 0.9, count=64, config=QuantConfig(32, 0, 0, 512))
    assert got == [3] * 32 + [99] * 32


def test_count_defaults_to_the_whole_source():
    got, _ = run(asc.float16, [1.0] * 64, 2.0, 0.9)
    assert got == [3] * 64


# ------------------------------------------------------------------ what pyasc's quant tests check
@pytest.mark.parametrize("dtype", [asc.float16, asc.float32])
@pytest.mark.parametrize("config", [None, asc.adv.QuantConfig(32, 0, 0, 512)])
def test_a_kernel_like_pyascs_gives_round_of_src_times_2_plus_0_9(dtype, config):
    """A pipe kernel: data_copy GM -> UB of 32 elements, quant with a 512-byte TBuf, data_copy back; the
    result is round(src * 2 + 0.9) computed in half (exact here: rng 2025 data in [-4, 4))."""
    src = (np.random.default_rng(2025).random(32) * 8 - 4).astype(dtype.np_dtype)
    out = np.zeros(32, np.int8)

    @asc.jit
    def kernel(x_gm, z_gm):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x_gm)
        zg.set_global_buffer(z_gm)
        pipe = asc.TPipe()
        q_in, q_out = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
        pipe.init_buffer(q_in, 1, 32 * dtype.itemsize)
        pipe.init_buffer(q_out, 1, 32)
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(buf, 512)
        x = q_in.alloc_tensor(dtype)
        asc.data_copy(x, xg, 32)
        q_in.enque(x)
        x = q_in.deque(dtype)
        z = q_out.alloc_tensor(asc.int8)
        asc.adv.quant(z, x, 2.0, 0.9, 32, buf.get(asc.uint8), config=config)  # as pyasc spells it
        q_out.enque(z)
        z = q_out.deque(asc.int8)
        asc.data_copy(zg, z, 32)
        q_in.free_tensor(x)
        q_out.free_tensor(z)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kernel[1](src, out)
    half = src.astype(np.float16)
    assert out.tolist() == np.round(half * np.float16(2.0) + np.float16(0.9)).astype(np.int8).tolist()


# ------------------------------------------------------------------ constraints
def rejected(error, *, dtype=asc.float16, n=64, count=32, tmp_bytes=512, tmp_at=TMP, dst_at=DST, dst_type=asc.int8,
             scale=2.0, config=None, chip="A2", tmp_type=asc.uint8):
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, bytes(64 * 1024))
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, n)
        dst = asc.LocalTensor(dst_type, asc.TPosition.VECOUT, dst_at, n)
        tmp = asc.LocalTensor(tmp_type, asc.TPosition.VECCALC, tmp_at, tmp_bytes // tmp_type.itemsize)
        before = core.ub_read(0, core.ub.size_bytes)
        with pytest.raises(error) as caught:
            quant(dst, src, scale, 0.9, count, tmp, config=config)
        assert core.ub_read(0, core.ub.size_bytes) == before and not core.trace
    assert caught.value.instruction == "quant"
    return caught.value


def test_count_at_most_the_source():
    assert rejected(ParameterRangeError, count=96).operand == "count"


def test_count_a_multiple_of_32():
    assert rejected(ParameterRangeError, count=48).operand == "count"


def test_dst_holds_the_results():
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 64)
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, 32)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 512)
        with pytest.raises(OutOfBoundsError):
            quant(dst, src, 2.0, 0.9, 64, tmp)


def test_the_tmp_buffer_has_the_minimum_size():
    error = rejected(ParameterRangeError, tmp_bytes=480)
    assert error.operand == "temp_buffer size" and "512" in error.allowed


@pytest.mark.parametrize(("config", "operand"), [(QuantConfig(96, 0, 0, 512), "config.calc_count"),
                                                  (QuantConfig(32, 0, 0, 1024), "config.work_local_size"),
                                                  (QuantConfig(32, 0, 0, 32), "config.work_local_size")])
def test_the_config_fits_the_tensors(config, operand):
    assert rejected(ParameterRangeError, config=config).operand == operand


def test_the_scale_stays_in_halfs_range():
    assert rejected(ParameterRangeError, scale=70000.0).operand == "scale"


def test_tmp_must_not_overlap_src_or_dst():
    assert rejected(OverlapError, tmp_at=SRC + 32).operand == "src byte range"
    error = rejected(OverlapError, tmp_at=DST)
    assert error.operand == "dst byte range"


def test_dst_reuses_src_only_from_its_start():
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 64)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 512)
        src.write(np.ones(64, np.float16))
        quant(src.reinterpret_cast(asc.int8), src, 2.0, 0.9, 64, tmp)  # in place: allowed
        assert src.reinterpret_cast(asc.int8).read(64).tolist() == [3] * 64
        with pytest.raises(OverlapError):
            quant(src[16:].reinterpret_cast(asc.int8), src, 2.0, 0.9, 32, tmp)


@pytest.mark.parametrize(("kwargs", "operand"), [({"dst_type": asc.int16}, "dst dtype"),
                                                  ({"dtype": asc.int16}, "src dtype"),
                                                  ({"tmp_type": asc.float16}, "temp_buffer dtype")])
def test_the_types_are_the_prototypes(kwargs, operand):
    assert rejected(UnsupportedError, **kwargs).operand == operand


@pytest.mark.parametrize("form", ["per tensor", "per channel"])
@pytest.mark.parametrize("chip", ["910", "310B"])
def test_products_npusim_does_not_follow_are_unsupported(chip, form):
    """Both forms share quant_common.quant_operands' product check."""
    (rejected if form == "per tensor" else rejected_per_channel)(UnsupportedError, chip=chip)


def test_without_a_temp_buffer_it_is_unsupported():
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 32)
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, 32)
        with pytest.raises(UnsupportedError):
            quant(dst, src, 2.0, 0.9, 32)


def test_quant_config_fields_are_uint32():
    with pytest.raises(ParameterRangeError):
        QuantConfig(-1)
