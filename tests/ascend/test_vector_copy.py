"""copy (UBToUB掩码式高维数据搬运(Copy).md, UBToUB连续数据搬运(Copy).md) against a per-element model.

The model below is written from the page alone, one element at a time: lane ``j`` of repeat ``r``
moves from ``src + r * srcRepeatSize * 32 + (j // B) * srcStride * 32 + (j % B) * sizeof(T)`` to the
same place of dst with the dst strides, for the lanes the mask selects (a contiguous mask selects
the first ``min(mask, E)`` lanes, a bit-wise mask lane ``j`` by bit ``j % 64`` of word ``j // 64``); in
counter mode the count is per repeat and a repeat covers ``ceil(count * sizeof(T) / 32)`` blocks.
Whole UB images are compared byte for byte.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

UB_IMAGE = 64 * 1024
B16_B32 = ("int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32")


def image(seed: int = 7) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes()


def model_copy(ub: bytearray, dst: int, src: int, itemsize: int, lanes: list[tuple[int, int]],
               strides: tuple[int, int, int, int]) -> bytearray:
    """Apply a copy of the (repeat, lane) pairs ``lanes`` to a UB byte image, every read before any write."""
    d_blk, s_blk, d_rep, s_rep = strides
    per_block = 32 // itemsize
    moves = []
    for r, j in lanes:
        s = src + r * s_rep * 32 + (j // per_block) * s_blk * 32 + (j % per_block) * itemsize
        d = dst + r * d_rep * 32 + (j // per_block) * d_blk * 32 + (j % per_block) * itemsize
        moves.append((d, bytes(ub[s:s + itemsize])))
    out = bytearray(ub)
    for d, payload in moves:
        out[d:d + itemsize] = payload
    return out


def mask_lanes(mask, itemsize: int, repeats: int) -> list[tuple[int, int]]:
    lanes = 256 // itemsize
    if isinstance(mask, int):
        active = list(range(min(mask, lanes)))
    else:
        active = [j for j in range(lanes) if (mask[j // 64] >> (j % 64)) & 1]
    return [(r, j) for r in range(repeats) for j in active]


def run(dtype: str, dst: int, src: int, call, chip: str = "A2", setup=None) -> bytes:
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        dt = getattr(asc, dtype)
        x = asc.LocalTensor(dt, asc.TPosition.VECIN, src, 4096 // dt.itemsize * 4)
        z = asc.LocalTensor(dt, asc.TPosition.VECOUT, dst, 4096 // dt.itemsize * 4)
        if setup:
            setup()
        call(z, x)
        return core.ub_read(0, UB_IMAGE)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int16"])
def test_pyasc_test_copy_call(dtype):
    """pyasc test_copy: mask 64, repeat 4, CopyRepeatParams(1, 1, 8, 8): 4 repeats of 64 elements
    (half a repeat for 2-byte types), at offsets i * 8 * (32 / sizeof(T))."""
    itemsize = getattr(asc, dtype).itemsize
    got = run(dtype, 16384, 0, lambda z, x: asc.copy(z, x, 64, 4, asc.CopyRepeatParams(1, 1, 8, 8)))
    want = model_copy(bytearray(image()), 16384, 0, itemsize, mask_lanes(64, itemsize, 4), (1, 1, 8, 8))
    assert got == bytes(want)
    # and, said directly: element i * 8 * B + k (k < 64) copied, the rest of dst untouched
    per_repeat = 8 * (32 // itemsize)
    src = np.frombuffer(image(), np.uint8)
    out = np.frombuffer(got, np.uint8)
    for r in range(4):
        start = r * per_repeat * itemsize
        assert (out[16384 + start:16384 + start + 64 * itemsize] == src[start:start + 64 * itemsize]).all()


def test_page_scenario_1_contiguous():
    """场景1: 512 int32, mask 64, repeat 8, {1, 1, 8, 8}: dst = src."""
    got = run("int32", 8192, 0, lambda z, x: asc.copy(z, x, 64, 8, asc.CopyRepeatParams(1, 1, 8, 8)))
    ref = image()
    assert got[8192:8192 + 2048] == ref[:2048]
    assert got[:8192] == ref[:8192] and got[8192 + 2048:] == ref[8192 + 2048:]


def test_page_scenario_2_rows():
    """场景2: [18, 64] int32 -> [18, 8]: mask 8, repeat 18, {1, 1, 1, 8}: the first 8 of each row."""
    got = run("int32", 8192, 0, lambda z, x: asc.copy(z, x, 8, 18, asc.CopyRepeatParams(1, 1, 1, 8)))
    src = np.frombuffer(image(), np.int32)[:18 * 64].reshape(18, 64)
    assert np.frombuffer(got[8192:8192 + 18 * 32], np.int32).tolist() == src[:, :8].reshape(-1).tolist()
    assert got[8192 + 18 * 32:] == image()[8192 + 18 * 32:]


def _counter(count, dtype):
    def setup():
        asc.set_mask_count()
        asc.set_vector_mask(count, dtype=dtype, mode=asc.MaskMode.COUNTER)
    return setup


def test_page_scenario_3_counter_mode_more_than_a_repeat():
    """场景3: counter mode, 144 int32 in one repeat, srcStride 8: the first DataBlock of each of 18 rows
    (N = ceil(144 * 4 / 32) = 18 blocks in one repeat)."""
    got = run("int32", 8192, 0, lambda z, x: asc.copy(z, x, 0, 1, asc.CopyRepeatParams(1, 8, 8, 8), False),
              setup=_counter(144, asc.int32))
    src = np.frombuffer(image(), np.int32)[:18 * 64].reshape(18, 64)
    assert np.frombuffer(got[8192:8192 + 144 * 4], np.int32).tolist() == src[:, :8].reshape(-1).tolist()
    assert got[8192 + 144 * 4:] == image()[8192 + 144 * 4:]


@pytest.mark.parametrize("count, repeats", [(20, 3), (100, 2), (128, 1)])
def test_counter_mode_count_per_repeat(count, repeats):
    """Counter mode: count elements of every repeat, repeat_time repeats (half)."""
    strides = (1, 2, 10, 12)
    got = run("float16", 16384, 0, lambda z, x: asc.copy(z, x, 0, repeats, asc.CopyRepeatParams(*strides), False),
              setup=_counter(count, asc.float16))
    lanes = [(r, j) for r in range(repeats) for j in range(count)]
    assert got == bytes(model_copy(bytearray(image()), 16384, 0, 2, lanes, strides))


def test_counter_mode_over_a_repeat_several_repeats():
    strides = (1, 1, 20, 24)
    got = run("int16", 16384, 0, lambda z, x: asc.copy(z, x, 0, 3, asc.CopyRepeatParams(*strides), False),
              setup=_counter(150, asc.int16))
    per_block = 16
    lanes = [(r, j) for r in range(3) for j in range(150)]
    want = bytearray(image())
    moves = []
    for r, j in lanes:  # j >= E continues the block sequence: block j // B
        s = r * 24 * 32 + (j // per_block) * 32 + (j % per_block) * 2
        d = 16384 + r * 20 * 32 + (j // per_block) * 32 + (j % per_block) * 2
        moves.append((d, want[s:s + 2]))
    for d, payload in moves:
        want[d:d + 2] = payload
    assert got == bytes(want)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(B16_B32), data=st.data())
def test_mask_forms_against_the_model(dtype, data):
    itemsize = getattr(asc, dtype).itemsize
    lanes = 256 // itemsize
    if data.draw(st.booleans(), "contiguous"):
        mask = data.draw(st.integers(1, 200), "mask")
    else:
        words = 2 if itemsize == 2 else 1
        mask = [data.draw(st.integers(1, (1 << 64) - 1), "low")] + (
            [data.draw(st.integers(0, (1 << 64) - 1), "high")] if words == 2 else [0])
    repeats = data.draw(st.integers(0, 4), "repeats")
    strides = (data.draw(st.integers(1, 3)), data.draw(st.integers(0, 3)), data.draw(st.integers(0, 24)),
               data.draw(st.integers(0, 24)))
    got = run(dtype, 16384, 0, lambda z, x: asc.copy(z, x, mask, repeats, asc.CopyRepeatParams(*strides)))
    assert got == bytes(model_copy(bytearray(image()), 16384, 0, itemsize, mask_lanes(mask, itemsize, repeats),
                                   strides))
    del lanes


def test_in_place_copy_is_allowed():
    got = run("float32", 0, 0, lambda z, x: asc.copy(z, x, 64, 2, asc.CopyRepeatParams(1, 1, 8, 8)))
    assert got == image()


def test_mask_register_after_and_placeholder_mask():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 1024)
        asc.copy(z, x, 100, 1, asc.CopyRepeatParams(1, 1, 8, 8))
        assert core.mask_words[:2] == ((1 << 64) - 1, (1 << 36) - 1)  # SetMask<half>(100)
        asc.set_vector_mask(0, 0b1011)
        before = core.ub_read(0, UB_IMAGE)
        asc.copy(z, x, 0, 1, asc.CopyRepeatParams(1, 1, 8, 8), False)  # the register's mask: lanes 0, 1, 3
        after = core.ub_read(0, UB_IMAGE)
        want = model_copy(bytearray(before), 4096, 0, 2, [(0, 0), (0, 1), (0, 3)], (1, 1, 8, 8))
        assert after == bytes(want)


def test_count_form_on_the_950():
    with asc.Core("950") as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 4096, 1024)
        asc.copy(z, x, 1000)
        out = core.ub_read(0, UB_IMAGE)
    assert out[4096:5096] == image()[:1000] and out[5096:] == image()[5096:]


# ------------------------------------------------------------------ errors
def _params(*fields):
    return asc.CopyRepeatParams(*fields)


ERRORS = [
    ("A2", "float32", lambda z, x: asc.copy(z, x, 64, 1, _params(0, 1, 8, 8)), ParameterRangeError,
     "repeat_params.dst_stride", 0),
    ("A2", "float32", lambda z, x: asc.copy(z, x, 64, 1, _params(1, 1, 4096, 8)), ParameterRangeError,
     "repeat_params.dst_repeat_size", 4096),
    ("A2", "float32", lambda z, x: asc.copy(z, x, 64, 1, _params(1, 1, 8, 4096)), ParameterRangeError,
     "repeat_params.src_repeat_size", 4096),
    ("A2", "float32", lambda z, x: asc.copy(z, x, 64, 1, _params(1, 65536, 8, 8)), ParameterRangeError,
     "repeat_params.src_stride", 65536),
    ("A2", "float32", lambda z, x: asc.copy(z, x, 64, 256, _params(1, 1, 0, 0)), ParameterRangeError,
     "repeat_time", 256),
    ("A2", "float32", lambda z, x: asc.copy(z, x, 64, 1), TypeError, None, None),
    ("A2", "int8", lambda z, x: asc.copy(z, x, 64, 1, _params(1, 1, 8, 8)), UnsupportedError, "dst dtype", "int8"),
    ("910", "float32", lambda z, x: asc.copy(z, x, 64, 1, _params(1, 1, 8, 8)), UnsupportedError, "product", None),
    ("310P", "float32", lambda z, x: asc.copy(z, x, 64, 1, _params(1, 1, 8, 8)), UnsupportedError, "product", None),
    ("KirinX90", "bfloat16", lambda z, x: asc.copy(z, x, 64, 1, _params(1, 1, 8, 8)), UnsupportedError,
     "dst dtype", "bfloat16"),
    ("A2", "float32", lambda z, x: asc.copy(z, x, 100), UnsupportedError, "product", None),
    ("950", "float32", lambda z, x: asc.copy(z, x, 64, 0, _params(1, 1, 8, 8)), ParameterRangeError,
     "repeat_time", 0),
    ("A2", "float32", lambda z, x: asc.copy(z, x, 64, 40, _params(1, 1, 8, 8)), OutOfBoundsError, "dst byte range",
     None),
    ("A2", "float32", lambda z, x: asc.copy(z, x, [1 << 63, 1], 1, _params(1, 1, 8, 8)), ParameterRangeError,
     "mask[1]", 1),
]


@pytest.mark.parametrize("chip, dtype, call, error, operand, value", ERRORS)
def test_rejected_calls_name_the_rule_and_leave_memory(chip, dtype, call, error, operand, value):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        dt = getattr(asc, dtype)
        x = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, 4096 // dt.itemsize)
        z = asc.LocalTensor(dt, asc.TPosition.VECOUT, 8192, 4096 // dt.itemsize)
        words = core.mask_words
        with pytest.raises(error) as info:
            call(z, x)
        assert core.ub_read(0, UB_IMAGE) == image() and core.mask_words == words
    if operand is not None:
        assert info.value.instruction == "copy" and info.value.operand == operand
        assert info.value.source
        if value is not None:
            assert info.value.value == value


def test_partial_overlap_is_rejected():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 32, 1024)
        with pytest.raises(OverlapError) as info:
            asc.copy(z, x, 64, 2, asc.CopyRepeatParams(1, 1, 8, 8))
        assert core.ub_read(0, UB_IMAGE) == image()
    assert info.value.instruction == "copy"


def test_counter_mode_past_the_tensor_is_rejected_before_any_index_is_built():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 8192, 1024)
        asc.set_mask_count()
        asc.set_vector_mask((1 << 31) - 1, dtype=asc.int32, mode=asc.MaskMode.COUNTER)
        with pytest.raises(OutOfBoundsError) as info:
            asc.copy(z, x, 0, 1, asc.CopyRepeatParams(1, 1, 8, 8), False)
        assert core.ub_read(0, UB_IMAGE) == image()
    assert info.value.operand.startswith("dst byte")
