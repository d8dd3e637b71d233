"""brcb (Brcb.md): the page's worked example, a per-element model of its pseudo-code, the registers
each product's lowering leaves, and every documented constraint."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.ops.brcb import BRCB_DTYPES
from npusim.errors import OverlapError, ParameterRangeError, UninitializedReadWarning, UnsupportedError

UB_IMAGE = 64 * 1024
FULL = (1 << 64) - 1


def image(seed: int = 5) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes()


def model(ub: bytes, dst: int, src: int, itemsize: int, repeats: int, blk: int, rep: int) -> bytes:
    """Brcb.md's pseudo-code, one DataBlock at a time, repeats in order."""
    out = bytearray(ub)
    for i in range(repeats):
        for j in range(8):
            value = ub[src + (i * 8 + j) * itemsize: src + (i * 8 + j + 1) * itemsize]
            start = dst + 32 * i * rep + 32 * j * blk
            out[start:start + 32] = value * (32 // itemsize)
    return bytes(out)


def test_page_worked_example():
    """src = 1 .. 16 (half), repeat 2, {1, 8}: [1 x16, 2 x16, ..., 16 x16]."""
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)
        x.write(np.arange(1, 17, dtype=np.float16))
        z.write(np.zeros(256, np.float16))
        asc.brcb(z, x, 2, asc.BrcbRepeatParams(1, 8))
        out = np.frombuffer(core.ub_read(1024, 512), np.float16)
    printed_head = [1] * 16 + [2] * 16
    printed_tail = [15] * 16 + [16] * 16
    assert out[:32].tolist() == printed_head and out[-32:].tolist() == printed_tail
    assert out.tolist() == np.repeat(np.arange(1, 17), 16).tolist()


@settings(max_examples=60, deadline=None)
@given(chip=st.sampled_from(["A2", "A3", "310P", "KirinX90", "950"]), data=st.data())
def test_against_the_model(chip, data):
    dtype = data.draw(st.sampled_from(sorted(BRCB_DTYPES[chip])))
    dt = getattr(asc, dtype)
    repeats = data.draw(st.integers(1, 6))
    blk, rep = data.draw(st.integers(1, 4)), data.draw(st.integers(0, 40))
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(dt, asc.TPosition.VECIN, 0, 2048 // dt.itemsize)
        z = asc.LocalTensor(dt, asc.TPosition.VECOUT, 8192, 32768 // dt.itemsize)
        asc.brcb(z, x, repeats, asc.BrcbRepeatParams(blk, rep))
        got = core.ub_read(0, UB_IMAGE)
    assert got == model(image(), 8192, 0, dt.itemsize, repeats, blk, rep)


@pytest.mark.parametrize("chip, words, mode", [
    ("A2", (FULL, FULL), asc.MaskMode.COUNTER),  # ResetMask(); vbrcb: the mode is left alone
    ("310P", (FULL, FULL), asc.MaskMode.NORMAL),  # SetMaskNorm() ... ResetMask()
    ("950", (0x3, 0), asc.MaskMode.COUNTER),  # the Reg API: registers untouched
])
def test_registers_after(chip, words, mode):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        asc.set_mask_count()
        asc.set_vector_mask(0, 3)
        asc.brcb(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 256),
                 asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16), 2, asc.BrcbRepeatParams(1, 8))
        assert core.mask_words[:2] == words and core.mask_mode == mode


def test_310p_scratch_is_left_undefined():
    """The 310P's b16 path works through 1 KiB at TMP_UB_OFFSET + 1 KiB (dav_m200 BrcbImplB16Impl)."""
    with asc.Core("310P") as core:
        core.ub_write(0, bytes(core.chip.ub_bytes))
        asc.brcb(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 256),
                 asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16), 2, asc.BrcbRepeatParams(1, 8))
        top = core.chip.vec_local_bytes
        scratch = asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, top + 1024, 128)
        with pytest.warns(UninitializedReadWarning):
            asc.adds(asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 8192, 128), scratch, 0, 128)


def _call(dtype=asc.float16, dst=8192, src=0, repeats=2, params=(1, 8), src_dtype=None, size=256):
    def call():
        asc.brcb(asc.LocalTensor(dtype, asc.TPosition.VECOUT, dst, size),
                 asc.LocalTensor(src_dtype or dtype, asc.TPosition.VECIN, src, 16), repeats,
                 asc.BrcbRepeatParams(*params))
    return call


ERRORS = [
    ("A2", _call(params=(0, 8)), ParameterRangeError, "repeat_params.dst_blk_stride"),
    ("A2", _call(params=(1, 65536)), ParameterRangeError, "repeat_params.dst_rep_stride"),
    ("A2", _call(repeats=256), ParameterRangeError, "repeat_times"),
    ("950", _call(repeats=0), ParameterRangeError, "repeat_times"),
    ("A2", _call(repeats=3, size=384), Exception, "src byte range"),  # 24 elements from a 16-element src
    ("A2", _call(dtype=asc.int8), UnsupportedError, "dst dtype"),
    ("KirinX90", _call(dtype=asc.int16), UnsupportedError, "dst dtype"),
    ("A2", _call(src_dtype=asc.int16), UnsupportedError, "src dtype"),
    ("310B", _call(), UnsupportedError, "product"),
    ("910", _call(), UnsupportedError, "product"),
    ("A2", _call(dst=0, src=0), OverlapError, "dst byte address"),
    ("A2", _call(dst=0, src=480, size=256), OverlapError, "dst byte address"),
]


@pytest.mark.parametrize("chip, call, error, operand", ERRORS)
def test_rejected_calls_name_the_rule_and_leave_memory(chip, call, error, operand):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        words, mode = core.mask_words, core.mask_mode
        with pytest.raises(error) as info:
            call()
        assert core.ub_read(0, UB_IMAGE) == image() and (core.mask_words, core.mask_mode) == (words, mode)
    assert info.value.instruction == "brcb" and info.value.operand == operand and info.value.source


def test_zero_repeats_is_a_nop_on_the_a2():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        _call(repeats=0)()
        assert core.ub_read(0, UB_IMAGE) == image()
