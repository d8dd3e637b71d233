"""The C API forms of copy, transpose, brcb and the RSVD_CNT read-back: the same bytes as the Memory API
they alias, the register behaviour of their lowering (include/c_api vector_compute_impl, 2201), the
``*_sync`` barrier, and their errors named after the C function."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.registry import by_name
from npusim.errors import ParameterRangeError, UnsupportedError

UB_IMAGE = 32 * 1024
FULL = (1 << 64) - 1


def image(seed: int = 17) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes()


def run(call, dtype=asc.int32, chip="A2", setup=None):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        if setup:
            setup()
        x = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 4096 // dtype.itemsize)
        z = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 8192, 4096 // dtype.itemsize)
        result = call(z, x)
        return core.ub_read(0, UB_IMAGE), core.mask_words, core.mask_mode, list(core.sync_log), result


def test_aliases_are_registered():
    for name, base in (("asc_gather", "gather"), ("asc_gather_sync", "gather"), ("asc_reduce", "gather_mask"),
                       ("asc_reduce_sync", "gather_mask"), ("asc_copy", "copy"), ("asc_copy_sync", "copy"),
                       ("asc_transpose", "transpose"),
                       ("asc_transpose_sync", "transpose"), ("asc_brcb", "brcb"), ("asc_brcb_sync", "brcb"),
                       ("asc_get_rsvd_count", "get_gather_mask_remain_count")):
        assert by_name("ascend", name).alias_of == base


def test_asc_copy_repeat_form_is_copy_under_the_register():
    mask = lambda: asc.set_vector_mask(0, 0xF0F0)  # noqa: E731
    got = run(lambda z, x: asc.asc_copy(z, x, 3, 2, 1, 20, 8), setup=mask)
    want = run(lambda z, x: asc.copy(z, x, 0, 3, asc.CopyRepeatParams(2, 1, 20, 8), False), setup=mask)
    assert got[:3] == want[:3] and got[1][:2] == (0xF0F0, 0)  # the register is left as it was


def test_asc_copy_count_form():
    """set_mask_count(); set_vector_mask(0, count); vcopy(repeat 1); set_mask_norm(): count elements."""
    ub, words, mode, _, _ = run(lambda z, x: asc.asc_copy(z, x, 300))
    assert ub[8192:8192 + 1200] == image()[:1200] and ub[8192 + 1200:] == image()[8192 + 1200:]
    assert words[:2] == (300, 0) and mode == asc.MaskMode.NORMAL


def test_asc_transpose_and_brcb():
    assert run(lambda z, x: asc.asc_transpose(z, x), asc.int16)[0] == \
        run(lambda z, x: asc.transpose(z, x), asc.int16)[0]
    got = run(lambda z, x: asc.asc_brcb(z, x, 2, 16, 3), asc.uint32, setup=lambda: asc.set_vector_mask(0, 5))
    want = run(lambda z, x: asc.brcb(z, x, 3, asc.BrcbRepeatParams(2, 16)), asc.uint32)
    assert got[0] == want[0]
    assert got[1][:2] == (5, 0) and want[1][:2] == (FULL, FULL)  # the bare vbrcb; Brcb's ResetMask


def test_sync_variants_record_the_barrier():
    for call in (lambda z, x: asc.asc_copy_sync(z, x, 64), lambda z, x: asc.asc_brcb_sync(z, x, 1, 8, 1)):
        log = run(call, asc.uint32)[3]
        assert [r.kind for r in log] == ["pipe_barrier"]
    assert run(lambda z, x: asc.asc_transpose_sync(z, x), asc.uint16)[3][0].kind == "pipe_barrier"
    assert run(lambda z, x: asc.asc_copy(z, x, 64), asc.uint32)[3] == []


def test_asc_get_rsvd_count():
    def call(z, x):
        asc.gather_mask(z, x, 3, False, 0, asc.GatherMaskParams(1, 2, 8, 0))
        return asc.asc_get_rsvd_count()
    assert run(call, asc.float32)[4] == 32


ERRORS = [
    ("310P", asc.int32, lambda z, x: asc.asc_copy(z, x, 64), UnsupportedError, "asc_copy", "product"),
    ("A2", asc.float32, lambda z, x: asc.asc_copy(z, x, 64), UnsupportedError, "asc_copy", "dst dtype"),
    ("A2", asc.int32, lambda z, x: asc.asc_copy_sync(z, x, 0), ParameterRangeError, "asc_copy_sync", "count"),
    ("A2", asc.int32, lambda z, x: asc.asc_copy(z, x, 1, 0, 1, 8, 8), ParameterRangeError, "asc_copy",
     "dst_block_stride"),
    ("A2", asc.int32, lambda z, x: asc.asc_copy(z, x, 256, 1, 1, 8, 8), ParameterRangeError, "asc_copy", "repeat"),
    ("A2", asc.int32, lambda z, x: asc.asc_copy(z, x, 2000), Exception, "asc_copy", "dst byte range"),
    ("A2", asc.float16, lambda z, x: asc.asc_transpose(z, x), UnsupportedError, "asc_transpose", "dst dtype"),
    ("A2", asc.int16, lambda z, x: asc.asc_brcb(z, x, 1, 8, 1), UnsupportedError, "asc_brcb", "dst dtype"),
    ("A2", asc.uint16, lambda z, x: asc.asc_brcb(z, x, 0, 8, 1), ParameterRangeError, "asc_brcb",
     "dst_block_stride"),
    ("A2", asc.uint16, lambda z, x: asc.asc_brcb(z, x, 1, 8, 0), ParameterRangeError, "asc_brcb", "repeat"),
]


@pytest.mark.parametrize("chip, dtype, call, error, instruction, operand", ERRORS)
def test_rejected_calls_name_the_c_function(chip, dtype, call, error, instruction, operand):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        x = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 4096 // dtype.itemsize)
        z = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 8192, 4096 // dtype.itemsize)
        state = core.register_state()
        with pytest.raises(error) as info:
            call(z, x)
        assert core.ub_read(0, UB_IMAGE) == image() and core.register_state() == state and not core.sync_log
    assert info.value.instruction == instruction and info.value.operand == operand and info.value.source


def test_asc_gather_forms():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 16384, 128)
        off.write(np.arange(127, -1, -1, dtype=np.uint32) * 2)
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 2048)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 8192, 2048)
        asc.asc_gather(z, x, off, 100)
        assert core.mask_words[:2] == (100, 0) and core.mask_mode == asc.MaskMode.NORMAL
        got = core.ub_read(8192, 200)
        src = np.frombuffer(image()[:256], np.float16)
        assert np.frombuffer(got, np.float16).view(np.uint16).tolist() == src[::-1][:100].view(np.uint16).tolist()
        asc.set_vector_mask(0, 0b101)
        asc.asc_gather_sync(z, x, off, 8, 1)  # the register's lanes 0 and 2
        assert core.mask_words[:2] == (0b101, 0) and [r.kind for r in core.sync_log] == ["pipe_barrier"]


def test_asc_reduce_forms_match_gather_mask():
    def both(call_c, call_memory):
        results = []
        for call in (call_c, call_memory):
            with asc.Core("A2") as core:
                core.ub_write(0, image())
                x = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 0, 1024)
                p = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 16384, 64)
                z = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 8192, 1024)
                call(z, x, p)
                results.append((core.ub_read(0, UB_IMAGE), asc.asc_get_rsvd_count()))
        return results
    a, b = both(lambda z, x, p: asc.asc_reduce(z, x, p, 100),
                lambda z, x, p: asc.gather_mask(z, x, p, True, 100, asc.GatherMaskParams(1, 1, 8, 8)))
    assert a == b
    a, b = both(lambda z, x, p: asc.asc_reduce(z, x, p, 3, 1, 4, 8, 0),
                lambda z, x, p: asc.gather_mask(z, x, 4, False, 0, asc.GatherMaskParams(1, 3, 8, 0)))
    assert a == b and a[1] == 3 * 16


def test_asc_reduce_bare_form_leaves_the_registers():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        asc.set_vector_mask(0, 9)
        x = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.uint16, asc.TPosition.VECOUT, 8192, 1024)
        asc.asc_reduce(z, x, x, 1, 1, 7, 8, 0)
        assert core.mask_words[:2] == (9, 0) and asc.asc_get_rsvd_count() == 128
        with pytest.raises(ParameterRangeError) as info:
            asc.asc_reduce(z, x, x, 1, 1, 8, 8, 0)
        assert info.value.instruction == "asc_reduce" and info.value.operand == "pattern_mode"
