"""asc.adv.quant per channel (高阶API/量化操作/AscendQuant.md, PER_CHANNEL量化): a per-element model of the
vendor's steps (ascend_quant_pre_impl.h: a float scale/offset tensor cast to half in place; per element
[float -> half], * half(scale[j]), + half(offset[j]) or + half(offset), -> int8 rounding to nearest even with
saturation, each step rounded to half), the rows and chunks, QuantConfig's constexpr paths, and every rule
of the page and the implementation as a ConstraintError that changes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.adv import QuantConfig, quant
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UninitializedReadError, UnsupportedError

from .elementwise_reference import float_bits
from .quant_reference import to_half_bits, to_int8

SRC, SCALE, OFFSET, DST, TMP = 0, 0x4000, 0x5000, 0x6000, 0x8000


def model(src_bits, src_type, scale_bits, offset, channels):
    """dst as int8 values; ``offset`` a list of per-channel bits (src's type) or one half bits value."""
    def as_half(bits):
        return to_half_bits(bits) if src_type == "float32" else bits

    scales = [as_half(b) for b in scale_bits[:channels]]
    offsets = [as_half(b) for b in offset[:channels]] if isinstance(offset, list) else [offset] * channels
    out = []
    for i, bits in enumerate(src_bits):
        x = float_bits("mul", "float16", as_half(bits), scales[i % channels], True)
        out.append(to_int8(float_bits("add", "float16", x, offsets[i % channels], True)))
    return out


def raw(values, dtype):
    return np.asarray(values, dtype.np_dtype).view(np.uint16 if dtype is asc.float16 else np.uint32).tolist()


def run(dtype, values, scales, offset, count=None, scale_count=None, offset_count=None, tmp_bytes=512,
        config=None, chip="A2"):
    """dst, the instructions issued and the scale tensor's bytes afterwards."""
    with asc.Core(chip, trace=True) as core:
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, len(values))
        src.write(np.asarray(values, dtype.np_dtype))
        scale = asc.LocalTensor(dtype, asc.TPosition.VECIN, SCALE, len(scales))
        scale.write(np.asarray(scales, dtype.np_dtype))
        if isinstance(offset, list):
            offset_tensor = asc.LocalTensor(dtype, asc.TPosition.VECIN, OFFSET, len(offset))
            offset_tensor.write(np.asarray(offset, dtype.np_dtype))
            offset = offset_tensor
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, len(values))
        dst.write(np.full(len(values), 99, np.int8))
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, tmp_bytes)
        quant(dst, src, scale, offset, count, tmp, config=config, scale_count=scale_count, offset_count=offset_count)
        return dst.read().tolist(), [r.instruction for r in core.trace], core.ub_read(SCALE, scale.nbytes)


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from([asc.float16, asc.float32]))
    channels = 32 * draw(st.integers(1, 10))
    rows = draw(st.integers(1, 3))
    width = 16 if dtype is asc.float16 else 32
    values = draw(st.lists(st.floats(-300, 300, width=width), min_size=rows * channels, max_size=rows * channels))
    scales = draw(st.lists(st.floats(-4, 4, width=width), min_size=channels, max_size=channels))
    offsets = draw(st.one_of(st.lists(st.floats(-50, 50, width=width), min_size=channels, max_size=channels),
                             st.sampled_from([0.9, 0.0, -2.5, 1e-3])))
    return dtype, channels, values, scales, offsets


@settings(max_examples=40, deadline=None)
@given(case=cases(), tmp=st.sampled_from([512, 544, 1024, 4096]), chip=st.sampled_from(["A2", "A3", "310P"]))
def test_every_element_is_the_models(case, tmp, chip):
    dtype, channels, values, scales, offsets = case
    got, _, _ = run(dtype, values, scales, offsets, tmp_bytes=tmp, chip=chip)
    if isinstance(offsets, list):
        offset_model = raw(offsets, dtype)
    else:  # a T parameter, then static_cast<half>
        offset_model = int(np.float16(np.float32(offsets) if dtype is asc.float32 else offsets).view(np.uint16))
    assert got == model(raw(values, dtype), dtype.name, raw(scales, dtype), offset_model, channels)


@pytest.mark.parametrize(("dtype", "offset", "issued"), [
    (asc.float16, 0.5, ["mul", "adds", "cast"] * 2),
    (asc.float16, [0.5] * 64, ["mul", "add", "cast"] * 2),
    (asc.float32, 0.5, ["cast"] + ["cast", "mul", "adds", "cast"] * 2),
    (asc.float32, [0.5] * 64, ["cast", "cast"] + ["cast", "mul", "add", "cast"] * 2),
])
def test_the_vendors_steps_row_by_row(dtype, offset, issued):
    """Two rows of 64 channels: a float scale (and offset) tensor is converted once, then each row runs."""
    _, got, _ = run(dtype, [1.0] * 128, [2.0] * 64, offset)
    assert got == issued


def test_a_float_scale_tensor_holds_halves_afterwards():
    """"source vector of scale is reused": its first scaleCount * 2 bytes are the half scales, the rest its
    float bytes."""
    scales = np.linspace(-3, 3, 64, dtype=np.float32)
    _, _, after = run(asc.float32, [1.0] * 64, scales.tolist(), 0.0)
    halves = [to_half_bits(b) for b in scales.view(np.uint32).tolist()]
    assert after == np.array(halves, np.uint16).tobytes() + scales.tobytes()[128:]


@pytest.mark.parametrize(("channels", "tmp_bytes", "config", "chunks"), [
    (320, 512, None, 2),                                # split 256 halves: 256 + 64 per row
    (320, 1024, None, 1),
    (320, 4096, QuantConfig(0, 0, 320, 128), 5),        # constexpr chunks of 64 halves over config.scale_count
])
def test_rows_are_chunked_by_the_tmp_buffer_and_the_config(channels, tmp_bytes, config, chunks):
    values = np.linspace(-30, 30, 2 * channels).astype(np.float16)
    scales = np.linspace(0.5, 2, channels).astype(np.float16)
    got, issued, _ = run(asc.float16, values, scales, 0.9, tmp_bytes=tmp_bytes, config=config)
    assert issued == ["mul", "adds", "cast"] * chunks * 2
    assert got == model(raw(values, asc.float16), "float16", raw(scales, asc.float16), 0x3B33, channels)


def test_the_constexpr_counts_replace_the_runtime_ones():
    """AscendQuantImplStatic: config.calc_count / config.scale_count rows of config.scale_count."""
    got, issued, _ = run(asc.float16, [1.0] * 128, [2.0] * 64, 0.0, count=128, scale_count=64,
                         config=QuantConfig(calc_count=64, scale_count=32))
    assert got == [2] * 64 + [99] * 64 and issued == ["mul", "adds", "cast"] * 2


def test_counts_default_to_the_tensor_sizes():
    got, _, _ = run(asc.float16, [1.0] * 96, [3.0] * 32, [1.0] * 32)
    assert got == [4] * 96


def test_the_page_example_reads_its_offsets_as_32_channels():
    """The PER_CHANNEL 结果示例: src [-512 ... 511] (float), scale 0.02, offsets printed [1.01 1.02 1.03 ... 1.32]
    -> [-9 -9 -9 ... 11 ...].  The call's counts (64 channels, calCount 1022) break the page's rules (a
    multiple of scaleCount; 32-byte lengths: erratum E19), and 64 offsets stepping 0.01 would end at 1.64;
    with the printed 32 offsets repeated over 64 channels and calCount 1024 the printed values come out
    (element 1021: half(509 * 0.02) + half(1.30) = 11.48 -> 11; offsets up to 1.64 would give 12)."""
    offsets = np.tile(np.float32(1.01) + np.float32(0.01) * np.arange(32, dtype=np.float32), 2)
    args = (asc.float32, np.arange(-512, 512, dtype=np.float32).tolist(), [0.02] * 64, offsets.tolist())
    with pytest.raises(ParameterRangeError):
        run(*args, count=1022, scale_count=64, offset_count=64, tmp_bytes=4096)
    got, _, _ = run(*args, count=1024, scale_count=64, offset_count=64, tmp_bytes=4096)
    assert got[:3] == [-9, -9, -9] and got[1021] == 11


# ------------------------------------------------------------------ constraints
def rejected(error, *, dtype=asc.float16, n=128, channels=64, scale_dtype=None, offset="tensor", count=None,
             scale_count=None, offset_count=None, config=None, scale_at=SCALE, offset_at=OFFSET, chip="A2"):
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, bytes(64 * 1024))
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, n)
        scale = asc.LocalTensor(scale_dtype or dtype, asc.TPosition.VECIN, scale_at, channels)
        if offset == "tensor":
            offset = asc.LocalTensor(dtype, asc.TPosition.VECIN, offset_at, channels)
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, n)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 512)
        before = core.ub_read(0, core.ub.size_bytes)
        with pytest.raises(error) as caught:
            quant(dst, src, scale, offset, count, tmp, config=config, scale_count=scale_count,
                  offset_count=offset_count)
        assert core.ub_read(0, core.ub.size_bytes) == before and not core.trace
    assert caught.value.instruction == "quant"
    return caught.value


@pytest.mark.parametrize(("kwargs", "operand"), [
    ({"scale_count": 48}, "scale_count"),                     # a multiple of 32
    ({"scale_count": 0}, "scale_count"),                      # at least one channel
    ({"scale_count": 96}, "scale_count"),                     # at most the scale tensor's size
    ({"offset_count": 32}, "offset_count"),                   # equals scaleCount
    ({"count": 96}, "count"),                                 # a multiple of scaleCount
    ({"count": 192}, "count"),                                # at most src's size
    ({"config": QuantConfig(calc_count=96, scale_count=64)}, "config.scale_count"),
    ({"config": QuantConfig(scale_count=64, offset_count=32)}, "config.offset_count"),
    ({"config": QuantConfig(scale_count=128)}, "config.scale_count"),
])
def test_the_counts_follow_the_page_and_the_implementation(kwargs, operand):
    assert rejected(ParameterRangeError, **kwargs).operand == operand


def test_the_parameter_tensors_are_of_srcs_type():
    assert rejected(UnsupportedError, scale_dtype=asc.float32).operand == "scale dtype"


@pytest.mark.parametrize(("kwargs", "operand"), [
    ({"scale_at": DST}, "scale byte range"),
    ({"offset_at": TMP}, "offset byte range"),
    ({"dtype": asc.float32, "offset_at": SCALE + 128}, "offset byte range"),  # both rewritten in place
])
def test_the_parameters_stay_clear_of_the_other_operands(kwargs, operand):
    assert rejected(OverlapError, **kwargs).operand == operand


def test_half_parameters_may_share_their_bytes():
    got, _, _ = run(asc.float16, [2.0] * 64, [1.5] * 64, [1.5] * 64)
    assert got == [4] * 64  # 2 * 1.5 + 1.5 = 4.5 -> 4 (to even)


def test_the_rows_fit_src_and_dst():
    """config.scale_count and work_local_size make each row config.scale_count long (AscendQuantPerChannelImpl):
    with 64-element rows of 128 from 128 elements the last row runs past src."""
    assert rejected(OutOfBoundsError, n=128, channels=128, scale_count=64, offset_count=64,
                    config=QuantConfig(scale_count=128, offset_count=128, work_local_size=256)).operand == "src size"


def test_per_tensor_arguments_with_a_scale_number_are_type_errors():
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 64)
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, 64)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 512)
        with pytest.raises(TypeError):
            quant(dst, src, 2.0, 0.5, 64, tmp, scale_count=32)
        with pytest.raises(TypeError):
            quant(dst, src, 2.0, src, 64, tmp)


# 3.5 - 2**-10 is the midpoint of the halves 3.5 - 2**-9 (odd) and 3.5 (even); just below it a double's one rounding
# to half gives 3.5 - 2**-9 (int8 3), the float32 first rounds onto the midpoint, which goes to 3.5 (int8 4).
BELOW_A_HALF_MIDPOINT = 3.5 - 2**-10 - 2**-40


def zeros_quantised(dtype, per_channel: bool, offset) -> list[int]:
    """32 zeros quantised with scale 1 (a tensor of 32 channels, or a number) and ``offset``: int8(half(offset))."""
    if per_channel:
        return run(dtype, [0.0] * 32, [1.0] * 32, offset)[0]
    return run_per_tensor(dtype, 1.0, offset)


def run_per_tensor(dtype, scale, offset) -> list[int]:
    with asc.Core("A2"):
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, 32)
        src.write(np.zeros(32, dtype.np_dtype))
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, 32)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 512)
        quant(dst, src, scale, offset, 32, tmp)
        return dst.read().tolist()


@pytest.mark.parametrize(("dtype", "per_channel", "expected"), [
    (asc.float16, True, 3),  # the per-channel offset is a T = half parameter: one rounding
    (asc.float32, True, 4),  # T = float: the float, then static_cast<half>
    (asc.float16, False, 4),  # the per-tensor offset is a float parameter whatever T is
])
def test_a_scalar_offset_is_rounded_as_its_c_parameter_type(dtype, per_channel, expected):
    assert zeros_quantised(dtype, per_channel, BELOW_A_HALF_MIDPOINT) == [expected] * 32


@pytest.mark.parametrize(("dtype", "per_channel", "channels", "written"), [
    (asc.float16, False, 0, {"src": 512}),  # the second chunk of 256 halves reads never-written src
    (asc.float32, False, 0, {"src": 512}),
    (asc.float16, True, 64, {"src": 64, "scale": 64}),  # rows 2 .. 16 of src never written
    (asc.float32, True, 64, {"src": 64, "scale": 64}),  # ... after the float scale's cast to half
    (asc.float16, True, 512, {"src": 1024, "scale": 256}),  # each row's second chunk reads never-written scales
])
def test_under_a_raising_policy_never_written_sources_reject_the_call_up_front(dtype, per_channel, channels,
                                                                               written):
    """A step that raised after earlier steps ran would leave dst's first chunks (or a float scale's halves)
    behind: the bytes every step reads are checked before the first one."""
    with asc.Core("A2", uninit="raise", trace=True) as core:
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, 1024)
        src.write(np.ones(written["src"], dtype.np_dtype))
        scale = 2.0
        if per_channel:
            scale = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0x2000, channels)
            scale.write(np.ones(written["scale"], dtype.np_dtype))
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST, 1024)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 512)
        for tensor in (dst, tmp):
            tensor.write(np.zeros(tensor.tile_size, tensor.dtype.np_dtype))
        before = core.ub_read(0, core.ub.size_bytes)
        with pytest.raises(UninitializedReadError) as caught:
            quant(dst, src, scale, 0.5, 1024, tmp)
        assert caught.value.instruction == "quant" and not core.trace
        assert core.ub_read(0, core.ub.size_bytes) == before


@pytest.mark.parametrize(("dtype", "per_channel"), [(asc.float16, False), (asc.float16, True), (asc.float32, True)])
def test_an_integer_offset_past_floats_range_is_infinity(dtype, per_channel):
    """A Python int too large for a double is still a number: rounded to float (half) it is +inf, which
    saturates every int8 to 127 (not an OverflowError from a conversion through a double)."""
    assert zeros_quantised(dtype, per_channel, 10**400) == [127] * 32


def test_an_integer_scale_past_floats_range_is_out_of_halfs_range():
    with pytest.raises(ParameterRangeError) as caught:
        run_per_tensor(asc.float16, -(10**400), 0.0)
    assert caught.value.operand == "scale"
