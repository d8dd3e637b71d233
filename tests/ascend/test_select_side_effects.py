"""Select's effects beyond dst: CMPMASK, the API scratch, the vector mask register, mask mode.

Expected values follow the lowering described in ref §2.2 and §2.6 (A2/A3:
``dav_c220/kernel_operator_vec_cmpsel_impl.h``) and the no-mask recipes of
``SetCmpMask(ISASI).md`` (ref §2.3).
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import UninitializedReadError, UninitializedReadWarning, UnsupportedError

from .conftest import assert_rejected, fill

F32, F16, U8, U32 = asc.float32, asc.float16, asc.uint8, asc.uint32
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
MODE0, MODE1, MODE2 = (asc.SelMode.VSEL_CMPMASK_SPR, asc.SelMode.VSEL_TENSOR_SCALAR_MODE,
                       asc.SelMode.VSEL_TENSOR_TENSOR_MODE)
FULL = 2**64 - 1
A2_SCRATCH = 184 * 1024


def tensors(dtype=F32):
    return (asc.LocalTensor(dtype, VECOUT, 0x1000, 256), asc.LocalTensor(U8, VECIN, 0x4000, 256),
            asc.LocalTensor(dtype, VECIN, 0x2000, 256), asc.LocalTensor(dtype, VECIN, 0x3000, 256))


def test_mode2_writes_selmask_address_to_scratch_and_cmpmask(a2):
    dst, sel, src0, src1 = tensors()
    asc.select(dst, sel, src0, src1, MODE2, 256)
    expected = np.full(32, 0x4000, "<u4").tobytes()
    assert a2.ub_read(A2_SCRATCH, 128) == expected
    assert not a2.ub.written[A2_SCRATCH + 128 : A2_SCRATCH + 256].any()
    assert a2.cmpmask == expected[:16]


@pytest.mark.parametrize("dtype,nbytes", [(F16, 64), (F32, 128)])
def test_mode1_writes_32_scalar_copies_to_scratch(a2, dtype, nbytes):
    dst, sel, src0, _ = tensors(dtype)
    asc.select(dst, sel, src0, -2.5, MODE1, 64, 1, asc.BinaryRepeatParams())
    copies = np.full(32, -2.5, dtype.np_dtype).tobytes()
    assert a2.ub_read(A2_SCRATCH, nbytes) == copies
    assert not a2.ub.written[A2_SCRATCH + nbytes : A2_SCRATCH + 256].any()
    assert a2.cmpmask == copies[:16]


def test_mode0_loads_selmask_into_cmpmask_without_scratch(a2):
    dst, sel, src0, src1 = tensors()
    asc.select(dst, sel, src0, src1, MODE0, 64, 1, asc.BinaryRepeatParams())
    assert a2.cmpmask == a2.ub_read(0x4000, 16)
    assert not a2.ub.written[A2_SCRATCH:].any()


def test_scratch_of_310p_is_at_248_kib():
    with asc.Core("310P") as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = tensors()
        asc.select(dst, sel, src0, src1, MODE2, 64)
        assert core.ub_read(248 * 1024, 128) == np.full(32, 0x4000, "<u4").tobytes()


def test_950_lowering_leaves_registers_and_scratch_alone():
    with asc.Core("950") as core:
        fill(core, 0, 0x8000)
        core.cmpmask = bytes(range(16))
        dst, sel, src0, src1 = tensors()
        asc.select(dst, sel, src0, src1, MODE2, 64, 2, asc.BinaryRepeatParams())
        asc.select(dst, sel, src0, 1.0, MODE1, 100)
        assert core.cmpmask == bytes(range(16))
        assert core.vector_mask == (FULL, FULL)
        assert not core.ub.written[0x8000:].any()


# dav_3510 / dav_l300 / dav_l311 VselImpl(..., const uint64_t mask[], ...): SetVectorMask<T>(mask[1], mask[0])
# before the vector function, in normal and counter mode, never restored.  The forms with a contiguous
# (uint64_t) mask and the count forms do not touch the register; 310B's dav_m300 Select never does.
BITWISE_MASK_STAYS = ["950", "KirinX90", "Kirin9030"]
P16 = asc.BinaryRepeatParams()


def _add_without_mask(core, expected_active: list[int], repeats: int = 1):
    """``add(..., is_set_mask=False)`` on 128-lane half data: the lanes it writes are the register's."""
    a = np.arange(128 * repeats, dtype=np.int64)
    core.ub_write(0x6000, a.astype(np.float16).tobytes())  # small integers: exact in half
    core.ub_write(0x7000, np.ones(128 * repeats, np.float16).tobytes())
    old = core.ub_read(0x5000, 256 * repeats)
    out = asc.LocalTensor(F16, VECOUT, 0x5000, 128 * repeats)
    src0, src1 = (asc.LocalTensor(F16, VECIN, addr, 128 * repeats) for addr in (0x6000, 0x7000))
    asc.add(out, src0, src1, 0, repeats, asc.BinaryRepeatParams(), is_set_mask=False)
    got = core.ub_read(0x5000, 256 * repeats)
    for lane in range(128 * repeats):
        want = (a[lane] + 1).astype(np.float16).tobytes() if lane in expected_active else old[2 * lane : 2 * lane + 2]
        assert got[2 * lane : 2 * lane + 2] == want, lane


@pytest.mark.parametrize("chip", BITWISE_MASK_STAYS)
@pytest.mark.parametrize("mode", [MODE0, MODE1, MODE2])
def test_vf_bitwise_mask_forms_leave_their_mask_in_the_register(chip, mode):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        core.cmpmask = bytes(range(16))
        dst, sel, src0, src1 = tensors(F16)
        second = 1.0 if mode == MODE1 else src1
        asc.select(dst, sel, src0, second, mode, 100, 1, P16)  # contiguous mask: the register is untouched
        asc.select(dst, sel, src0, second, mode, 100)  # count form: untouched
        assert core.vector_mask == (FULL, FULL)
        words = [0x0000_0000_0000_F00F, 0x8000_0000_0000_0001]  # lanes 0-3, 12-15, 64, 127
        asc.select(dst, sel, src0, second, mode, words, 1, P16)
        assert core.vector_mask == (words[1], words[0])
        assert core.cmpmask == bytes(range(16))
        _add_without_mask(core, [0, 1, 2, 3, 12, 13, 14, 15, 64, 127])


@pytest.mark.parametrize("chip", BITWISE_MASK_STAYS)
def test_vf_bitwise_mask_stays_in_counter_mode_too(chip):
    """In counter mode mask[0] is the count; SetVectorMask(mask[1], mask[0]) leaves it for the next call."""
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = tensors(F16)
        asc.set_mask_count()
        asc.select(dst, sel, src0, src1, MODE2, [130, 0], 1, P16)
        assert core.vector_mask == (0, 130)
        _add_without_mask(core, list(range(130)), repeats=2)


def test_310b_select_leaves_the_register_alone():
    with asc.Core("310B") as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = tensors(F16)
        asc.select(dst, sel, src0, src1, MODE2, [0xF00F, 1], 1, P16)
        assert core.vector_mask == (FULL, FULL)


def test_mask_forms_leave_the_mask_in_the_register(a2):
    dst, sel, src0, src1 = tensors()
    asc.select(dst, sel, src0, src1, MODE2, 64, 1, asc.BinaryRepeatParams())
    assert a2.vector_mask == (0, FULL)  # SetMask<float>(64): low word all ones
    asc.select(dst, sel, src0, src1, MODE2, [0x8000000000000001, 0], 1, asc.BinaryRepeatParams())
    assert a2.vector_mask == (0, 0x8000000000000001)


def test_count_form_ends_in_normal_mode_with_full_mask(a2):
    dst, sel, src0, src1 = tensors()
    asc.set_mask_count()
    asc.set_vector_mask(7, dtype=F32, mode=asc.MaskMode.COUNTER)
    asc.select(dst, sel, src0, src1, MODE2, 100)
    assert a2.mask_mode == asc.MaskMode.NORMAL
    assert a2.vector_mask == (FULL, FULL)


def test_counter_mode_high_dim_form_takes_count_from_mask(a2):
    """接口内设置Mask.md, Counter 模式 高维切分: mask[0] is the element count, repeat_times ignored."""
    dst, sel, src0, src1 = tensors(F16)
    before = a2.ub_read(0x1000, 512)
    asc.set_mask_count()
    asc.select(dst, sel, src0, src1, MODE2, [130, 0], 1, asc.BinaryRepeatParams())
    after = a2.ub_read(0x1000, 512)
    assert after[260:] == before[260:]  # elements 130.. untouched
    assert after[:260] != before[:260]


def test_counter_mode_contiguous_mask_is_the_setmask_bit_pattern_on_a2(a2):
    """Native lowering: SetMask<T>(len) builds a lane pattern, which counter mode reads as a count."""
    dst = asc.LocalTensor(F16, VECOUT, 0x1000, 2048)
    src0 = asc.LocalTensor(F16, VECIN, 0x8000, 2048)
    src1 = asc.LocalTensor(F16, VECIN, 0x9000, 2048)
    sel = asc.LocalTensor(U8, VECIN, 0xA000, 256)
    before = a2.ub_read(0x1000, 4096)
    asc.set_mask_count()
    asc.select(dst, sel, src0, src1, MODE2, 10, 1, asc.BinaryRepeatParams())  # pattern 0x3FF = 1023 elements
    after = a2.ub_read(0x1000, 4096)
    assert after[2046:] == before[2046:]
    assert a2.vector_mask == (0, 0x3FF)


def test_no_mask_mode0_uses_cmpmask_and_vector_mask(a2):
    dst, _, src0, src1 = tensors()
    a2.ub_write(0x5000, bytes([0xFF]) + bytes(15))
    asc.set_cmp_mask(asc.LocalTensor(U8, VECIN, 0x5000, 32))
    asc.set_vector_mask(0, 0xFFFF, dtype=F32, mode=asc.MaskMode.NORMAL)
    before = np.frombuffer(a2.ub_read(0x1000, 1024), "<u4").copy()
    asc.select(dst, src0, src1, repeat_times=2, repeat_params=asc.BinaryRepeatParams(), sel_mode=MODE0)
    got = np.frombuffer(a2.ub_read(0x1000, 1024), "<u4")
    s0 = np.frombuffer(a2.ub_read(0x2000, 1024), "<u4")
    s1 = np.frombuffer(a2.ub_read(0x3000, 1024), "<u4")
    for r in (0, 1):
        base = 64 * r
        assert list(got[base : base + 8]) == list(s0[base : base + 8])
        assert list(got[base + 8 : base + 16]) == list(s1[base + 8 : base + 16])
        assert list(got[base + 16 : base + 64]) == list(before[base + 16 : base + 64])
    assert list(got[128:]) == list(before[128:])


def test_no_mask_mode1_takes_scalar_from_cmpmask(a2):
    dst, sel, src0, _ = tensors()
    a2.ub_write(0x5000, np.full(8, 7.5, "<f4").tobytes())
    asc.set_cmp_mask(asc.LocalTensor(F32, VECIN, 0x5000, 8))
    a2.ub_write(0x4000, bytes(8))  # all bits 0 -> the scalar everywhere
    asc.select(dst, sel, src0, repeat_times=1, repeat_params=asc.BinaryRepeatParams())
    assert a2.ub_read(0x1000, 256) == np.full(64, 7.5, "<f4").tobytes()


def test_no_mask_mode2_takes_selmask_address_from_cmpmask(a2):
    dst, _, src0, src1 = tensors()
    a2.ub_write(0x6000, bytes([0xFF] * 8))  # all src0
    a2.ub_write(0x5000, np.full(8, 0x6000, "<u4").tobytes())
    asc.set_cmp_mask(asc.LocalTensor(U32, VECIN, 0x5000, 8))
    asc.select(dst, src0, src1, repeat_times=1, repeat_params=asc.BinaryRepeatParams(), sel_mode=MODE2)
    assert a2.ub_read(0x1000, 256) == a2.ub_read(0x2000, 256)


NEVER_SET_CMPMASK_READERS = {  # forms that read CMPMASK set beforehand (SetCmpMask(ISASI).md recipes)
    "no-mask mode 0 (bits)": lambda d, sel, s0, s1: asc.select(d, s0, s1, 1, asc.BinaryRepeatParams(), MODE0),
    "no-mask mode 1 (scalar)": lambda d, sel, s0, s1: asc.select(d, sel, s0, 1, asc.BinaryRepeatParams()),
    "no-mask mode 2 (selMask address)": lambda d, sel, s0, s1: asc.select(d, s0, s1, 1, asc.BinaryRepeatParams(),
                                                                          MODE2),
    "asc_select count (bits)": lambda d, sel, s0, s1: asc.asc_select(d, s0, s1, 64),
    "asc_select strided (bits)": lambda d, sel, s0, s1: asc.asc_select(d, s0, s1, 1, 1, 1, 1, 8, 8, 8),
}


@pytest.mark.parametrize(("chip", "form"), [(chip, form) for chip in ("A2", "950") for form in
                                             sorted(NEVER_SET_CMPMASK_READERS)
                                             if chip == "A2" or not form.startswith("asc_")])  # C API: A2/A3
def test_reading_a_never_set_cmpmask_warns_and_strict_mode_raises(chip, form):
    """design.md §3: undefined-but-legal reads warn, or raise in strict mode; CMPMASK is such a read."""
    call = NEVER_SET_CMPMASK_READERS[form]
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = tensors()
        for _kept_plan_too in range(2):  # CMPMASK is still never set: the second call (a kept plan) warns again
            with pytest.warns(UninitializedReadWarning, match=r"^(select|asc_select): reads CMPMASK, which was never"):
                call(dst, sel, src0, src1)
    with asc.Core(chip, strict=True) as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = tensors()
        assert_rejected(core, UninitializedReadError, lambda: call(dst, sel, src0, src1),
                        operand="CMPMASK", value="never set", rule="reads CMPMASK before")
        core.cmpmask = (0x4000).to_bytes(8, "little") * 2  # set: no warning, no error (warnings are errors here)
        call(dst, sel, src0, src1)


def test_uninitialised_source_warns_with_first_address():
    with asc.Core("A2") as core:
        fill(core, 0x1000, 0x1000)
        fill(core, 0x3000, 0x2000)
        fill(core, 0x2000, 0x100)  # src0 elements 64.. never written
        dst, sel, src0, src1 = tensors()
        with pytest.warns(UninitializedReadWarning, match="select: src0 reads never-written UB byte 0x2100"):
            asc.select(dst, sel, src0, src1, MODE2, 128)


def test_repeated_destination_keeps_the_last_repeat(a2):
    """dst_rep_stride 0: every repeat writes the same block; issue order means the last one wins."""
    dst, sel, src0, src1 = tensors()
    a2.ub_write(0x4000, bytes([0xFF] * 32))
    asc.select(dst, sel, src0, src1, MODE2, 8, 3, asc.BinaryRepeatParams(1, 1, 1, 0, 1, 1))
    assert a2.ub_read(0x1000, 32) == a2.ub_read(0x2000 + 2 * 32, 32)


def test_repeat_zero_and_mask_zero_are_nops_but_still_load_cmpmask(a2):
    dst, sel, src0, src1 = tensors()
    before = a2.ub_read(0x1000, 1024)
    asc.select(dst, sel, src0, src1, MODE0, 64, 0, asc.BinaryRepeatParams())
    asc.select(dst, sel, src0, src1, MODE0, 0, 2, asc.BinaryRepeatParams())
    assert a2.ub_read(0x1000, 1024) == before
    assert a2.cmpmask == a2.ub_read(0x4000, 16)


def test_c_api_select_count_form_leaves_count_in_register(a2):
    dst, _, src0, src1 = tensors()
    a2.cmpmask = bytes([0xAA] * 16)
    asc.asc_select(dst, src0, src1, 96)
    got = np.frombuffer(a2.ub_read(0x1000, 384), "<u4")
    s0 = np.frombuffer(a2.ub_read(0x2000, 384), "<u4")
    s1 = np.frombuffer(a2.ub_read(0x3000, 384), "<u4")
    lane = np.arange(96) % 64
    assert list(got) == list(np.where(lane % 2 == 1, s0, s1))
    assert a2.vector_mask == (0, 96) and a2.mask_mode == asc.MaskMode.NORMAL


def test_c_api_select_strided_form_and_sync(a2):
    dst, _, src0, src1 = tensors()
    a2.cmpmask = bytes([0xFF] * 16)
    asc.asc_select_sync(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8)
    assert a2.ub_read(0x1000, 256) == a2.ub_read(0x2000, 256)
    assert a2.sync_log[-1].kind == "pipe_barrier"


def test_c_api_not_on_950():
    with asc.Core("950") as core:
        fill(core, 0, 0x8000)
        dst, _, src0, src1 = tensors()
        assert_rejected(core, UnsupportedError, lambda: asc.asc_select(dst, src0, src1, 64),
                        "asc_select", "950", "A3, A2")


def test_get_cmp_mask_round_trip(a2):
    a2.cmpmask = bytes(range(16, 32))
    out = asc.LocalTensor(U8, VECOUT, 0x7000, 128)
    asc.get_cmp_mask(out)
    assert a2.ub_read(0x7000, 16) == bytes(range(16, 32))
    asc.asc_get_cmp_mask(out[16:])
    assert a2.ub_read(0x7010, 16) == bytes(range(16, 32))


def test_cmp_mask_tensor_needs_16_byte_alignment_only(a2):
    asc.set_cmp_mask(asc.LocalTensor(U8, VECIN, 0x5010, 16))
    from npusim.errors import AlignmentError

    assert_rejected(a2, AlignmentError, lambda: asc.set_cmp_mask(asc.LocalTensor(U8, VECIN, 0x5008, 16)),
                    "set_cmp_mask", "16-byte aligned")


# SetCmpMask(ISASI).md / GetCmpMask(ISASI).md 产品支持情况: 不支持 on these rows (written out here, not read
# from chips.py); the C API pages asc_set_cmp_mask.md / asc_get_cmp_mask.md: A2 and A3 only.
NO_CMPMASK_API = ["310B", "310P-VEC", "910"]
CMPMASK_API = ["950", "A3", "A2", "310P"]


@pytest.mark.parametrize("chip", NO_CMPMASK_API)
@pytest.mark.parametrize("name", ["set_cmp_mask", "get_cmp_mask", "asc_set_cmp_mask", "asc_get_cmp_mask"])
def test_cmpmask_api_is_unsupported_where_documented(chip, name):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        core.cmpmask = bytes(16)
        tensor = asc.LocalTensor(U8, VECIN, 0x5000, 16)
        assert_rejected(core, UnsupportedError, lambda: getattr(asc, name)(tensor), name, chip,
                        instruction=name, operand="product")


@pytest.mark.parametrize("chip", CMPMASK_API)
def test_cmpmask_api_where_documented(chip):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        asc.set_cmp_mask(asc.LocalTensor(U8, VECIN, 0x5000, 16))
        assert core.cmpmask == core.ub_read(0x5000, 16)
        asc.get_cmp_mask(asc.LocalTensor(U8, VECOUT, 0x6000, 16))
        assert core.ub_read(0x6000, 16) == core.ub_read(0x5000, 16)


def test_910_has_no_counter_mode():
    with asc.Core("910") as core:
        assert_rejected(core, UnsupportedError, asc.set_mask_count, "set_mask_count", "counter")
