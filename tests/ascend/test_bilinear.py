"""bilinear_interpolation (基础算术/BilinearInterpolation(ISASI).md): the page's worked example, a per-element
model (``bilinear_reference``) across forms, masks, strides, offsets and modes, every documented constraint,
the tmp buffer's scratch and the exact access records, on every product the page lists.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.engine.registry import by_name
from npusim.errors import (
    AlignmentError,
    OutOfBoundsError,
    OverlapError,
    ParameterRangeError,
    TmpBufferSizeWarning,
    UbPastTensorEndWarning,
    UninitializedReadWarning,
    UnsupportedError,
)

from .bilinear_reference import bilinear
from .interrupts import Machine, sweep
from .test_data_movement_records import mask_of

UB_IMAGE = 64 * 1024
SRC0, OFF, W, DST, TMP = 0, 8192, 9216, 10240, 16384
SRC0_SIZE, W_SIZE = 1024, 128
TMP_BYTES = (SRC0_SIZE + W_SIZE) * 32
FULL = (1 << 64) - 1
PRODUCTS = ("A2", "A3", "310P", "950")


def image(seed: int = 5) -> bytearray:
    """A random UB image whose halves are finite (the model and npusim agree on NaN too, but the data
    the kernels of this family use is finite)."""
    rng = np.random.default_rng(seed)
    halves = rng.uniform(-8, 8, UB_IMAGE // 2).astype(np.float16)
    return bytearray(halves.view(np.uint8).tobytes())


def tensors(core, offsets, src1_size=W_SIZE, tmp_bytes=TMP_BYTES, dst_size=4096):
    x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC0, SRC0_SIZE)
    off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, len(offsets))
    off.write(np.array(offsets, np.uint32))
    w = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, W, src1_size)
    z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, dst_size)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, tmp_bytes)
    return z, x, off, w, tmp


def run(chip, offsets, mask, h, mode, blk, vro, v, ub=None, **sizes):
    ub = image() if ub is None else ub
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(ub))
        z, x, off, w, tmp = tensors(core, offsets, **sizes)
        before = bytearray(core.ub_read(0, UB_IMAGE))
        asc.bilinear_interpolation(z, x, off, w, mask, h, mode, blk, vro, v, tmp)
        return before, bytearray(core.ub_read(0, UB_IMAGE)), core


def weights(ub: bytearray, count: int = W_SIZE) -> list[int]:
    return [ub[W + 2 * i] | ub[W + 2 * i + 1] << 8 for i in range(count)]


def expected(before, offsets, mask, h, mode, blk, vro, v):
    out = bilinear(before, dst=DST, src0=SRC0, offsets=offsets, src1=weights(before), mask=mask, h=h,
                   repeat_mode=mode, blk=blk, v_r_offset=vro, v=v)
    return out[:TMP]  # the tmp buffer's bytes are left undefined, not modelled


# ------------------------------------------------------------------ the page's worked example
def page_call(chip, src1_values, dst_size, mask, h, mode, v):
    """The page's inputs: src0 = 1..512, src0_offset = 0, 32, ..., 992 (DataBlocks in order), src1 as given."""
    with asc.Core(chip):
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        x.write(np.arange(1, 513, dtype=np.float16))
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, 32)
        off.write(np.arange(0, 1024, 32, dtype=np.uint32))
        w = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1152, len(src1_values))
        w.write(np.array(src1_values, np.float16))
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1280, dst_size)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2048, (512 + len(src1_values)) * 32)
        asc.bilinear_interpolation(z, x, off, w, mask, h, mode, 1, 128, v, tmp)
        return z.read()


@pytest.mark.parametrize("chip", PRODUCTS)
@pytest.mark.parametrize("mask", [128, [FULL, FULL]])
def test_page_worked_example(chip, mask):
    """src1 = 2..17, mask 128 (or all bits), hRepeat 2, vRepeat 2, repeatMode false, dstBlkStride 1,
    vROffset 128: dst = [389, 394, 399, 404, ..., 4096]."""
    out = page_call(chip, range(2, 18), 256, mask, 2, False, 2)
    assert out[:4].tolist() == [389, 394, 399, 404] and out[-1] == 4096
    j = np.arange(128)  # step 4: dst[0:128] = tmp[0:128] + tmp[128:256], dst[128:256] likewise
    assert out.view(np.uint16).tolist() == np.concatenate(
        [(j + 1) * 2 + (j + 129) * 3, (j + 257) * 4 + (j + 385) * 5]).astype(np.float16).view(np.uint16).tolist()


def test_page_repeat_mode_true_steps():
    """The page's repeatMode=true walk-through: iteration 0 multiplies block b by src1[b] (2, 3, ..., 9),
    iteration 1 by src1[8 + b] (10 ... 17); with hRepeat 2, vRepeat 1 dst = their sum."""
    out = page_call("A2", range(2, 34), 128, 128, 2, True, 1)
    j = np.arange(128)
    half = np.float16
    first, second = half(j + 1) * half(2 + j // 16), half(j + 129) * half(10 + j // 16)  # each rounded to half
    assert out.view(np.uint16).tolist() == (second + first).view(np.uint16).tolist()


# ------------------------------------------------------------------ the model, across the parameters
@st.composite
def calls(draw):
    h, v = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    mode = draw(st.booleans())
    blk = draw(st.integers(1, 2))
    span = (7 * blk + 1) * 16
    vro = draw(st.sampled_from([s for s in range(128, 769, 16) if s >= span]))
    blocks = draw(st.lists(st.integers(0, SRC0_SIZE // 16 - 1), min_size=8 * h * v, max_size=8 * h * v))
    mask = draw(st.one_of(st.integers(1, 128),
                          st.lists(st.integers(0, FULL), min_size=2, max_size=2).filter(any)))
    return [32 * b for b in blocks], mask, h, mode, blk, vro, v


@settings(max_examples=60, deadline=None)
@given(call=calls(), chip=st.sampled_from(PRODUCTS), seed=st.integers(0, 50))
def test_every_lane_is_the_models(call, chip, seed):
    offsets, mask, h, mode, blk, vro, v = call
    before, after, _core = run(chip, offsets, mask, h, mode, blk, vro, v, ub=image(seed))
    assert after[:TMP] == expected(before, *call)


SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 65504, -65504, 6e-8, -6e-8, 2.0 ** -14, 300, -300],
                    np.float16).view(np.uint16)


@settings(max_examples=25, deadline=None)
@given(call=calls(), chip=st.sampled_from(PRODUCTS), seed=st.integers(0, 50), saturate=st.booleans())
def test_special_values_follow_the_model_with_and_without_saturation(call, chip, seed, saturate):
    """NaN, infinities, signed zeros, the largest and the subnormal halves, and products that overflow:
    with CTRL's saturation (power-on) inf -> +-65504 and NaN -> 0 after every step, without it IEEE."""
    rng = np.random.default_rng(seed)
    ub = image(seed)
    halves = np.frombuffer(bytes(ub), np.uint16).copy()
    picks = rng.integers(0, TMP // 2, TMP // 8)
    halves[picks] = SPECIALS[rng.integers(0, SPECIALS.size, picks.size)]
    ub = bytearray(halves.tobytes())
    offsets, mask, h, mode, blk, vro, v = call
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(ub))
        core.float_saturation = saturate
        z, x, off, w, tmp = tensors(core, offsets)
        before = bytearray(core.ub_read(0, UB_IMAGE))
        asc.bilinear_interpolation(z, x, off, w, mask, h, mode, blk, vro, v, tmp)
        after = core.ub_read(0, TMP)
    applies = saturate and chip in ("A2", "A3", "950")  # the products whose CTRL saturates half (chips.py)
    want = bilinear(before, dst=DST, src0=SRC0, offsets=offsets, src1=weights(before), mask=mask, h=h,
                    repeat_mode=mode, blk=blk, v_r_offset=vro, v=v, saturate=applies)
    assert after == bytes(want[:TMP])


@pytest.mark.parametrize("saturate", [True, False])
def test_adding_zero_to_an_arith_result_only_turns_minus_zero_into_plus_zero(saturate):
    """plus_zero (the final Adds of 0) against arith itself, for every half pattern arith can return."""
    from npusim.ascend.ops import arith
    from npusim.ascend.ops.bilinear import plus_zero
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    results = arith.compute("mul", asc.float16, [every, np.array([0x3C00], np.uint16)], saturate)  # x * 1
    assert np.array_equal(plus_zero(results.copy()),
                          arith.compute("add", asc.float16, [results, np.zeros(1, np.uint16)], saturate))
    assert plus_zero(np.array([0x8000, 0x0000, 0x3C00], np.uint16)).tolist() == [0, 0, 0x3C00]


def test_the_adds_run_in_h_order_each_rounded_to_half():
    """2048 + 1 + 1 (weights 1, 2**-11, 2**-11): in h order, each add in half, 2048 + 1 ties to even 2048
    twice; one rounding of the exact sum (or a float32 accumulation) would give 2050."""
    block = np.array([2048, 2047, 3, 0.1] + [1] * 12, np.float16)
    w = np.array([1, 2.0 ** -11, 2.0 ** -11] + [1] * 13, np.float16)
    with asc.Core("A2"):
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        x.write(np.concatenate([block, np.ones(496, np.float16)]))
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, 24)
        off.write(np.zeros(24, np.uint32))  # three iterations over block 0
        s1 = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1152, 16)
        s1.write(w)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1280, 128)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2048, (512 + 16) * 32)
        asc.bilinear_interpolation(z, x, off, s1, 16, 3, False, 1, 128, 1, tmp)
        got = z.read()[:16]
    in_order = (block * w[0] + block * w[1]) + block * w[2]  # numpy half: one rounding per operation
    assert got.view(np.uint16).tolist() == in_order.view(np.uint16).tolist()
    assert got[0] == 2048 and np.float16(2048 + 2 * 2.0 ** -11 * 2048) == 2050


# ------------------------------------------------------------------ what a call leaves behind
def test_masked_off_lanes_and_the_rest_of_ub_are_unchanged():
    offsets = [32 * i for i in range(16)]
    before, after, _ = run("A2", offsets, [0x00FF00FF00FF00FF, 0], 1, False, 1, 128, 2)
    changed = np.flatnonzero(np.frombuffer(bytes(after[:TMP]), np.uint8) != np.frombuffer(bytes(before[:TMP]),
                                                                                        np.uint8))
    allowed = {DST + 2 * (vv * 128 + lane) + b for vv in range(2) for lane in range(128)
               if (lane // 8) % 2 == 0 and lane < 64 for b in range(2)}
    assert set(changed.tolist()) <= allowed


@pytest.mark.parametrize(("chip", "mask", "words", "mode"), [
    ("A2", 77, (0x1FFF, 0, 0, 0), asc.MaskMode.NORMAL),  # 77 lanes: (1 << 77) - 1 over two words
    ("A3", [5, 6], (5, 6, 0, 0), asc.MaskMode.NORMAL),
    ("310P", 77, (FULL, FULL, 0, 0), asc.MaskMode.NORMAL),
    ("950", [5, 6], (5, 6, 0, 0), None),
    ("950", 77, None, None),
])
def test_the_mask_registers_the_lowering_leaves(chip, mask, words, mode):
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(image()))
        asc.set_mask_count()
        asc.set_vector_mask(0, 9)
        start = core.mask_words
        z, x, off, w, tmp = tensors(core, [0] * 8)
        asc.bilinear_interpolation(z, x, off, w, mask, 1, False, 1, 128, 1, tmp)
        if chip in ("A2", "A3") and isinstance(mask, int):
            words = ((1 << 64) - 1, (1 << 13) - 1, 0, 0)
        assert core.mask_words == (start if words is None else words)
        assert core.mask_mode == (asc.MaskMode.COUNTER if mode is None else mode)


@pytest.mark.parametrize(("chip", "scratch"), [("A2", (2 * 1 + W_SIZE // 8) * 256), ("310P", 16 * 4), ("950", 0)])
def test_the_tmp_bytes_the_lowering_writes_are_undefined_afterwards(chip, scratch):
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, [32 * i for i in range(16)])
        asc.bilinear_interpolation(z, x, off, w, 128, 2, False, 1, 128, 1, tmp)
        (record,) = core.trace[-1:]
        assert [r for r in record.writes if r.start >= TMP] == ([asc_range(TMP, TMP + scratch)] if scratch else [])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tmp.reinterpret_cast(asc.float16).get_value(0)
        assert any(issubclass(c.category, UninitializedReadWarning) for c in caught) == bool(scratch)


def asc_range(start, stop):
    from npusim.engine.trace import ByteRange
    return ByteRange("UB", start, stop)


@pytest.mark.parametrize("chip", ["A2", "310P", "950"])
@pytest.mark.parametrize("fresh_plans", [False, True], ids=["cached plan", "planned"])
def test_an_interrupted_call_changes_nothing(chip, fresh_plans):
    """dst, the scratch's shadow and the mask registers change together or not at all (tests/ascend/interrupts.py)."""
    core = asc.Core(chip)
    with core:
        core.ub_write(0, bytes(image()))
        core.set_mask_words(0x0F0F, 0xF0F0)
        z, x, off, w, tmp = tensors(core, [32 * (i % 7) for i in range(32)])

    def call():
        asc.bilinear_interpolation(z, x, off, w, [0xFFFF00FF, 0xF], 2, True, 1, 144, 2, tmp)

    assert sweep(Machine(core), call, fresh_plans=fresh_plans)


# ------------------------------------------------------------------ access records
@pytest.mark.parametrize("index", range(3))
def test_the_examples_records_are_exact(index):
    snippet = by_name("ascend", "bilinear_interpolation").examples[index]

    def run_example(randomise=None):
        *setup, call = snippet.rstrip().splitlines()
        with asc.Core("A2", trace=True) as core:
            namespace = {"asc": asc, "np": np, "core": core}
            exec("\n".join(setup), namespace)  # noqa: S102 - the registry's own examples
            if randomise is not None:
                randomise(core)
            before = core.ub.data.copy()
            exec(call, namespace)  # noqa: S102
            return core.trace[-1], before, core.ub.data.copy()

    record, before, after = run_example()
    changed = np.flatnonzero(before != after)
    assert mask_of(record.writes, "UB", before.size)[changed].all()
    # the reads: the offsets (8 per iteration), the src1 elements the A2 broadcasts, the gathered blocks
    assert record.reads[0].start == 0 and record.registers_read == ("CTRL",)
    assert {r.space for r in record.reads} == {"UB"}
    rng = np.random.default_rng(3)

    def randomise(core):
        memory = core.ub.data
        outside = ~(mask_of(record.reads, "UB", memory.size) | mask_of(record.writes, "UB", memory.size))
        memory[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)

    again, _, after_again = run_example(randomise)
    assert (again.reads, again.writes) == (record.reads, record.writes)
    written = mask_of(record.writes, "UB", after.size)
    assert np.array_equal(after[written], after_again[written])


def test_the_reads_follow_the_offsets():
    with asc.Core("A2", trace=True) as core:
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, [32 * 40] * 8, src1_size=16)
        asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 128, 1, tmp)
        reads = core.trace[-1].reads
    assert [(r.start, r.stop) for r in reads] == [(SRC0 + 1280, SRC0 + 1312), (OFF, OFF + 32), (W, W + 32)]


# ------------------------------------------------------------------ constraints
def rejected(error, chip="A2", offsets=None, mask=128, h=1, mode=False, blk=1, vro=128, v=1, tolerance="strict",
             **sizes):
    offsets = [0] * 8 * h * v if offsets is None else offsets
    with asc.Core(chip, tolerance=tolerance) as core, warnings.catch_warnings():
        warnings.simplefilter("ignore", UbPastTensorEndWarning)
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, offsets, **sizes)
        before = core.ub_read(0, core.ub.size_bytes)
        with pytest.raises(error) as caught:
            asc.bilinear_interpolation(z, x, off, w, mask, h, mode, blk, vro, v, tmp)
        assert core.ub_read(0, len(before)) == before
    assert caught.value.instruction == "bilinear_interpolation"
    return caught.value


@pytest.mark.parametrize(("name", "value"), [("h", 0), ("h", 256), ("v", 0), ("v", 256)])
def test_repeat_counts_lie_in_1_to_255(name, value):
    kwargs = {name: value}
    error = rejected(ParameterRangeError, **kwargs, offsets=[0] * 8)
    assert error.operand == {"h": "h_repeat", "v": "v_repeat"}[name] and error.value == value


@pytest.mark.parametrize("vro", [112, 65535, 136])
def test_v_r_offset_lies_in_128_to_65534_in_whole_blocks(vro):
    assert rejected(ParameterRangeError, vro=vro).operand == "v_r_offset"


def test_the_a2_lowering_cannot_step_more_than_255_blocks_between_vertical_repeats():
    error = rejected(ParameterRangeError, vro=4096)
    assert "uint8_t" in error.rule and "dav_c220" in error.source
    with asc.Core("950") as core:  # the 950's loop takes any vROffset of the page's range
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, [0] * 8)
        asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 4096, 1, tmp)


def test_the_a2_lowering_counts_at_most_255_iterations():
    error = rejected(ParameterRangeError, h=16, v=16, offsets=[0] * 8 * 256, src1_size=256, dst_size=16 * 128,
                     tmp_bytes=(SRC0_SIZE + 256) * 32)
    assert error.operand == "h_repeat * v_repeat" and error.value == 256


def test_a_dst_block_stride_of_zero_is_rejected():
    assert rejected(ParameterRangeError, blk=0).operand == "dst_blk_stride"


@pytest.mark.parametrize(("mode", "h", "src1_size"), [(False, 3, 2), (True, 2, 8), (False, 9, 15)])
def test_src1_must_hold_what_the_iterations_use(mode, h, src1_size):
    """repeatMode true: src1 valid length * 16 >= src0's gathered length; false: one value per iteration
    (the A2/A3 broadcast src1 in groups of 8, so 15 elements give 8)."""
    assert rejected(ParameterRangeError, mode=mode, h=h, src1_size=src1_size).operand == "src1 size"


def test_the_tmp_buffer_has_the_pages_minimum_size():
    error = rejected(ParameterRangeError, tmp_bytes=TMP_BYTES - 32)
    assert error.operand == "shared_tmp_buffer size" and str(TMP_BYTES) in error.allowed
    assert rejected(ParameterRangeError, chip="310P", tmp_bytes=28, offsets=[0] * 8).operand == \
        "shared_tmp_buffer size"


def test_hardware_policy_lets_a_small_tmp_buffer_through_and_writes_past_it():
    """pyasc's kernels/test_bilinear_interpolation passes (512 + 16) * 2 bytes on the A2."""
    with asc.Core("A2", tolerance="hardware", trace=True) as core:
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, [32 * i for i in range(32)], src1_size=16, tmp_bytes=1056)
        before = bytearray(core.ub_read(0, UB_IMAGE))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            asc.bilinear_interpolation(z, x, off, w, 128, 2, False, 1, 128, 2, tmp)
        kinds = {c.category for c in caught}
        assert TmpBufferSizeWarning in kinds and UbPastTensorEndWarning in kinds
        assert [r for r in core.trace[-1].writes if r.start >= TMP] == [asc_range(TMP, TMP + 1536)]
        after = core.ub_read(0, TMP)
    assert after == bytes(expected(before, [32 * i for i in range(32)], 128, 2, False, 1, 128, 2))


@pytest.mark.parametrize(("offset", "rule"), [(33, "element width"), (48, "32-byte aligned")])
def test_offsets_are_element_aligned_and_land_on_32_byte_blocks(offset, rule):
    error = rejected(ParameterRangeError, offsets=[0, 0, offset, 0, 0, 0, 0, 0])
    assert error.operand == "src0_offset[2]" and rule in error.rule


def test_a_gathered_block_stays_inside_src0():
    error = rejected(OutOfBoundsError, offsets=[0] * 7 + [2 * SRC0_SIZE])
    assert "src0" in error.operand


def test_a_block_past_src0_is_named_with_the_blocks_span():
    """The error names the span from the lowest block's start to the highest block's end, and the first offset
    of the highest block."""
    error = rejected(OutOfBoundsError, offsets=[64, 96, 2 * SRC0_SIZE, 64, 128, 2 * SRC0_SIZE, 64, 64])
    assert error.operand == "src0 (block of src0_offset[2]) byte range"
    assert error.value == f"[{SRC0 + 64:#x}, {SRC0 + 2 * SRC0_SIZE + 32:#x})"


def test_a_gathered_block_stays_inside_ub():
    rejected(OutOfBoundsError, offsets=[0] * 7 + [(1 << 32) - 32])


def test_the_vertical_repeats_destinations_do_not_overlap():
    assert "vertical" in rejected(OverlapError, blk=2, vro=128, v=2).rule


# (a block past src0 is only a warning under the hardware policy: the overlap rules still hold there)
def test_src0_must_not_overlap_src1_or_the_offsets():
    assert "src1" in rejected(OverlapError, offsets=[W - SRC0] + [0] * 7, tolerance="hardware").rule
    assert "src0_offset" in rejected(OverlapError, offsets=[OFF - SRC0] + [0] * 7, tolerance="hardware").rule


def test_src0_must_not_overlap_dst():
    assert "dst" in rejected(OverlapError, offsets=[DST - SRC0] + [0] * 7, tolerance="hardware").rule


def test_no_operand_may_lie_in_the_tmp_scratch():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(image()))
        z, x, off, w, _ = tensors(core, [0] * 8)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, DST - 256, TMP_BYTES)
        with pytest.raises(OverlapError, match="shared_tmp_buffer"):
            asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 128, 1, tmp)


def test_a_gathered_block_must_not_lie_in_the_tmp_scratch():
    rejected(OverlapError, offsets=[TMP - SRC0] + [0] * 7, dst_size=128, tolerance="hardware")


@pytest.mark.parametrize(("operand", "dtype"), [("dst", asc.float32), ("src0_offset", asc.int32),
                                                 ("shared_tmp_buffer", asc.float16)])
def test_the_operand_types_are_the_prototypes(operand, dtype):
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, [0] * 8)
        args = {"dst": z, "src0_offset": off, "shared_tmp_buffer": tmp}
        args[operand] = asc.LocalTensor(dtype, asc.TPosition.VECCALC, 60000, 64)
        with pytest.raises(UnsupportedError) as caught:
            asc.bilinear_interpolation(args["dst"], x, args["src0_offset"], w, 128, 1, False, 1, 128, 1,
                                       args["shared_tmp_buffer"])
    assert caught.value.operand == f"{operand} dtype"


@pytest.mark.parametrize("chip", ["310B", "910", "310P-VEC"])
def test_products_the_page_does_not_support_reject_it(chip):
    with asc.Core(chip) as core:
        z, x, off, w, tmp = tensors(core, [0] * 8, tmp_bytes=1024)
        with pytest.raises(UnsupportedError):
            asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 128, 1, tmp)


def test_a_zero_mask_is_a_nop_for_dst_on_the_a2_and_rejected_on_the_310p():
    before, after, _ = run("A2", [0] * 8, 0, 1, False, 1, 128, 1)
    assert after[:TMP] == before[:TMP]
    rejected(ParameterRangeError, chip="310P", mask=0)


def test_a_bitwise_mask_has_two_words():
    assert rejected(ParameterRangeError, mask=[FULL]).operand == "mask length"


@pytest.mark.parametrize("operand", ["dst", "src0", "src0_offset", "src1", "shared_tmp_buffer"])
def test_every_operand_starts_32_byte_aligned(operand):
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, [0] * 8)
        args = {"dst": z, "src0": x, "src0_offset": off, "src1": w, "shared_tmp_buffer": tmp}
        moved = args[operand]
        args[operand] = asc.LocalTensor(moved.dtype, moved.position, moved.addr + 16, moved.tile_size)
        with pytest.raises(AlignmentError) as caught:
            asc.bilinear_interpolation(args["dst"], args["src0"], args["src0_offset"], args["src1"], 128, 1, False,
                                       1, 128, 1, args["shared_tmp_buffer"])
    assert caught.value.operand.startswith(operand)


# ------------------------------------------------------------------ the paths a call may take
@pytest.mark.parametrize(("mask", "blk", "vro"), [(128, 1, 128), (77, 1, 128), (128, 2, 256), ([FULL, 1], 1, 128)],
                         ids=["dst one run", "dst one run per repeat", "dst strided", "dst lanes masked"])
def test_dst_written_as_a_run_or_by_lanes_is_the_models(mask, blk, vro):
    """A dst whose active lanes are one run of halves is written as a slice, any other by lanes; both the model's.
    Blocks are gathered in a random order, repeating."""
    rng = np.random.default_rng(3)
    h, v = 2, 3
    offsets = [32 * int(b) for b in rng.integers(0, SRC0_SIZE // 16, 8 * h * v)]
    for chip in ("A2", "950"):
        before, after, _core = run(chip, offsets, mask, h, False, blk, vro, v)
        assert after[:TMP] == expected(before, offsets, mask, h, False, blk, vro, v)


def test_src0_read_after_its_bytes_became_undefined_is_reported():
    """src0 seen all written lets later calls skip its shadow, until bytes of it become undefined (the epoch moves):
    a block over them is reported at its first such byte, with memory unchanged."""
    from npusim.errors import UninitializedReadError

    offsets = [32 * i for i in range(8)]
    with asc.Core("A2", strict=True) as core:
        core.ub_write(0, bytes(image()))
        z, x, off, w, tmp = tensors(core, offsets)
        for _ in range(2):  # the second call leaves the same scratch undefined: the epoch stays
            epoch = core.ub.shadow_epoch
            asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 128, 1, tmp)
        assert core.ub.shadow_epoch == epoch
        core.ub.mark_undefined(np.arange(SRC0 + 100, SRC0 + 102))
        before = core.ub_read(0, UB_IMAGE)
        with pytest.raises(UninitializedReadError) as info:
            asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 128, 1, tmp)
        assert info.value.value == SRC0 + 100 and core.ub_read(0, UB_IMAGE) == before


def test_a_never_written_weight_is_reported_until_written():
    """The offsets' and src1's shadow is looked at on every call until one finds it all written."""
    from npusim.errors import UninitializedReadError

    offsets = [32 * i for i in range(8)]
    with asc.Core("A2", strict=True) as core:
        core.ub_write(0, bytes(image()))
        core.ub.mark_undefined(np.arange(W, W + 2))  # src1[0], the weight of the one iteration
        z, x, off, w, tmp = tensors(core, offsets)
        for _ in range(2):
            with pytest.raises(UninitializedReadError) as info:
                asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 128, 1, tmp)
            assert info.value.value == W
        w.write(np.ones(W_SIZE, np.float16))
        asc.bilinear_interpolation(z, x, off, w, 128, 1, False, 1, 128, 1, tmp)
        assert z.read(128).tolist() == x.read(128).tolist()
