"""An instruction interrupted anywhere (KeyboardInterrupt, MemoryError) has changed nothing.

Every family of Ascend instructions, in the forms whose commit writes more than one thing
(dst and scratch, CMPMASK, the mask registers, an address tensor, GM), is run under the
injector of ``tests/ascend/interrupts.py``: interrupted at every event of its run (and at
many of its planning), it leaves UB, its written-shadow, CMPMASK, the vector mask register,
the mask mode and GM byte-identical to before — or, once its commit has begun, exactly as
the uninterrupted call leaves them — and a rerun still gives the uninterrupted result.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import DeprecatedApiWarning

from .interrupts import Machine, sweep

F16, F32, U8, U64 = asc.float16, asc.float32, asc.uint8, asc.uint64
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
MODE0, MODE1, MODE2 = (asc.SelMode.VSEL_CMPMASK_SPR, asc.SelMode.VSEL_TENSOR_SCALAR_MODE,
                       asc.SelMode.VSEL_TENSOR_TENSOR_MODE)
B, U = asc.BinaryRepeatParams(), asc.UnaryRepeatParams()
STRIDED = asc.BinaryRepeatParams(2, 2, 2, 16, 16, 16)
LT = asc.CMPMODE.LT


def core_with_data(chip: str) -> asc.Core:
    core = asc.Core(chip)
    rng = np.random.default_rng(7)
    with core:
        core.ub_write(0, rng.integers(0, 256, 0x10000, dtype=np.uint8).tobytes())
        core.ub_write(0x6000, np.arange(64, dtype="<u4").view(np.uint8).tobytes())  # a CMPMASK source
        core.cmpmask = bytes(range(1, 17))
        core.set_mask_words(0x0F0F_0F0F_0F0F_0F0F, 0x0000_FFFF_0000_FFFF)  # not what any call below sets
    return core


def t(dtype, addr: int, size: int = 256, position=VECIN) -> asc.LocalTensor:
    return asc.LocalTensor(dtype, position, addr, size)


def half_operands():
    return t(F16, 0x1000, 1024, VECOUT), t(U8, 0x4000, 256), t(F16, 0x2000, 1024), t(F16, 0x3000, 1024)


def select_case(form: str):
    dst, sel, src0, src1 = half_operands()
    return {
        "mode 2, mask (dst, scratch, CMPMASK, mask)": lambda: asc.select(dst, sel, src0, src1, MODE2, 128, 4, B),
        "mode 2 in place on src0": lambda: asc.select(dst, sel, dst, src1, MODE2, 128, 4, B),
        "mode 2 in place on src1": lambda: asc.select(dst, sel, src0, dst, MODE2, 128, 4, B),
        "mode 1, bitwise mask": lambda: asc.select(dst, sel, src0, 2.5, MODE1, [0xF0F0, 3], 2, B),
        "mode 0, count": lambda: asc.select(dst, sel, src0, src1, MODE0, 300),
        "mode 2, strided": lambda: asc.select(dst, sel, src0, src1, MODE2, 100, 2, STRIDED),
        "mode 2, a dst written twice": lambda: asc.select(dst, sel, src0, src1, MODE2, 128, 3,
                                                          asc.BinaryRepeatParams(1, 1, 1, 0, 8, 8)),
        "no-mask mode 1 (scalar from CMPMASK)": lambda: asc.select(dst, sel, src0, 2, B),
        "no-mask mode 0": lambda: asc.select(dst, src0, src1, 2, B, MODE0),
    }[form]


SELECT_FORMS = ["mode 2, mask (dst, scratch, CMPMASK, mask)", "mode 2 in place on src0",
                "mode 2 in place on src1", "mode 1, bitwise mask", "mode 0, count", "mode 2, strided",
                "mode 2, a dst written twice", "no-mask mode 1 (scalar from CMPMASK)", "no-mask mode 0"]


@pytest.mark.parametrize("chip", ["A2", "950"])
@pytest.mark.parametrize("form", SELECT_FORMS)
def test_select(chip, form):
    core = core_with_data(chip)
    with core:
        call = select_case(form)
    assert sweep(Machine(core), call, fresh_plans=False)
    if form == SELECT_FORMS[0]:  # planning reads only; one form per lowering shows it
        assert sweep(Machine(core), call, fresh_plans=True)


def test_select_no_mask_mode_2_takes_its_address_from_cmpmask():
    core = core_with_data("A2")
    with core:
        core.cmpmask = (0x4000).to_bytes(4, "little") * 4
        dst, _, src0, src1 = half_operands()
    assert sweep(Machine(core), lambda: asc.select(dst, src0, src1, 2, B, MODE2), fresh_plans=False)


@pytest.mark.parametrize("chip", ["A2", "950"])
@pytest.mark.parametrize("form", ["bitmask", "bitmask, bitwise mask", "scalar", "to CMPMASK", "to CMPMASK, bitwise"])
def test_compare(chip, form):
    core = core_with_data(chip)
    with core:
        _, _, src0, src1 = half_operands()
        bits = t(U8, 0x5000, 256, VECOUT)
        call = {
            "bitmask": lambda: asc.compare(bits, src0, src1, LT, 128, 4, B),
            "bitmask, bitwise mask": lambda: asc.compare(bits, src0, src1, LT, [0xFF00FF, 7], 3, STRIDED),
            "scalar": lambda: asc.compare_scalar(bits, src0, 0.25, asc.CMPMODE.GE, [0xFF00FF, 7], 3, U),
            "to CMPMASK": lambda: asc.compare(src0, src1, LT, 100, B),
            "to CMPMASK, bitwise": lambda: asc.compare(src0, src1, asc.CMPMODE.NE, [0xF0F0, 0xFF], B),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=False)
    if form == "to CMPMASK":
        assert sweep(Machine(core), call, fresh_plans=True)


@pytest.mark.parametrize("form", ["asc_select count", "asc_select strided", "asc_lt to CMPMASK", "asc_le to UB",
                                  "asc_ne_scalar", "asc_transto5hd_b16", "asc_set_cmp_mask", "asc_get_cmp_mask"])
def test_c_api(form):
    core = core_with_data("A2")
    with core:
        dst, _, src0, src1 = half_operands()
        bits = t(U8, 0x5000, 256, VECOUT)
        call = {
            "asc_select count": lambda: asc.asc_select(dst, src0, src1, 300),
            "asc_select strided": lambda: asc.asc_select(dst, src0, src1, 2, 2, 2, 2, 16, 16, 16),
            "asc_lt to CMPMASK": lambda: asc.asc_lt(src0, src1, 1, 1, 1, 1, 8, 8, 8),
            "asc_le to UB": lambda: asc.asc_le(bits, src0, src1, 3, 1, 1, 1, 8, 8, 8),
            "asc_ne_scalar": lambda: asc.asc_ne_scalar(bits, src0, 0.5, 3, 1, 1, 8, 8),
            "asc_transto5hd_b16": lambda: asc.asc_transto5hd_b16([0x8000 + 32 * k for k in range(16)],
                                                                  [0x2000 + 64 * k for k in range(16)], 2, 16, 1),
            "asc_set_cmp_mask": lambda: asc.asc_set_cmp_mask(t(U8, 0x6000, 16)),
            "asc_get_cmp_mask": lambda: asc.asc_get_cmp_mask(t(U8, 0x7000, 16, VECOUT)),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=False)
    if form == "asc_select count":
        assert sweep(Machine(core), call, fresh_plans=True)


@pytest.mark.parametrize("fresh_plans", [False, True], ids=["cached plan", "planned"])
@pytest.mark.parametrize("form", ["asc_squeeze", "asc_squeeze counter mode", "asc_set_va_reg",
                                  "asc_transto5hd_b16 VA registers"])
def test_c_api_squeeze_and_va_registers(form, fresh_plans):
    """asc_squeeze (dst, RSVD_CNT), asc_set_va_reg (one VA register whole), the register form of
    asc_transto5hd (addresses from the VA registers): docs/semantics.md §5.24, §5.25."""
    core = core_with_data("A2")
    with core:
        u16 = asc.uint16
        for n, base in ((0, 0x8000), (2, 0x2000)):  # the pages' pairing: VA0/VA1 dst, VA2/VA3 src
            asc.asc_set_va_reg(asc.VaReg(n), [base + 64 * k for k in range(8)])
            asc.asc_set_va_reg(asc.VaReg(n + 1), [base + 64 * k for k in range(8, 16)])
        if form == "asc_squeeze counter mode":
            asc.set_mask_count()
            asc.set_vector_mask(0, 200)
        call = {
            "asc_squeeze": lambda: asc.asc_squeeze(t(u16, 0x9000, 512, VECOUT), t(u16, 0x1000, 1024),
                                                   t(u16, 0x5000, 64), 3, 1, 2, 1, 8, 16, 1),
            "asc_squeeze counter mode": lambda: asc.asc_squeeze(t(u16, 0x9000, 512, VECOUT), t(u16, 0x1000, 1024),
                                                                t(u16, 0x5000, 64), 2, 1, 1, 1, 8, 13, 1),
            "asc_set_va_reg": lambda: asc.asc_set_va_reg(asc.VA1, [t(F16, 0x3000 + 32 * k, 16) for k in range(8)]),
            "asc_transto5hd_b16 VA registers": lambda: asc.asc_transto5hd_b16(asc.VA0, asc.VA2, 2, 16, 1),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=fresh_plans)


def test_asc_set_gm2ub_pad():
    """The deprecated setter: its warning comes before the register is written."""
    core = core_with_data("950")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecatedApiWarning)
        assert sweep(Machine(core), lambda: asc.asc_set_gm2ub_pad(0x1234), fresh_plans=False)


@pytest.mark.parametrize("fresh_plans", [False, True], ids=["cached plan", "planned"])
@pytest.mark.parametrize("form", ["strided views", "index gathers", "in place", "address tensors"])
def test_trans_data_to_5hd(form, fresh_plans):
    core = core_with_data("A2")
    with core:
        even = [0x8000 + 32 * k for k in range(16)]
        sources = [0x2000 + 0x100 * k for k in range(16)]
        params = asc.TransDataTo5HDParams(False, False, 4, 16, 1)
        if form == "address tensors":
            dst_t, src_t = t(U64, 0xE000, 16), t(U64, 0xE100, 16)
            dst_t.write(np.array(even, np.uint64))
            src_t.write(np.array(sources, np.uint64))
        call = {
            "strided views": lambda: asc.trans_data_to_5hd(even, sources, params, dtype=F16),
            "index gathers": lambda: asc.trans_data_to_5hd(even[::-1][:8] + even[:8], sources, params, dtype=F16),
            "in place": lambda: asc.trans_data_to_5hd(even, even, asc.TransDataTo5HDParams(), dtype=F16),
            "address tensors": lambda: asc.trans_data_to_5hd(dst_t, src_t, params, dtype=F16),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=fresh_plans)


ELEMENTWISE = {
    "add, mask (dst and mask register)": lambda d, a, b: asc.add(d, a, b, 128, 4, B),
    "add, count (mask mode and register)": lambda d, a, b: asc.add(d, a, b, 300),
    "add chained over src1 (repeat by repeat)": lambda d, a, b: asc.add(d, a, d, 128, 4,
                                                                       asc.BinaryRepeatParams(1, 1, 1, 8, 8, 0)),
    "mul, strided": lambda d, a, b: asc.mul(d, a, b, [0xFFFF, 0xF], 2, STRIDED),
    "adds": lambda d, a, b: asc.adds(d, a, 70000.0, 64, 3, U),
    "abs": lambda d, a, b: asc.abs(d, a, 256),
    "duplicate": lambda d, a, b: asc.duplicate(d, -1.5, 100, 3, 1, 8),
}


@pytest.mark.parametrize("chip", ["A2", "910"])
@pytest.mark.parametrize("form", sorted(ELEMENTWISE))
def test_elementwise(chip, form):
    """The element-wise instructions plan every call (no plan cache)."""
    core = core_with_data(chip)
    with core:
        dst, _, src0, src1 = half_operands()
    assert sweep(Machine(core), lambda: ELEMENTWISE[form](dst, src0, src1), fresh_plans=True)


MIXED = {  # half sources, a float dst (docs/semantics.md §5.26): the sources widened into private lanes first
    "axpy, count (mask mode and register)": lambda d, a, b: asc.axpy(d, a, 1.5, 200),
    "axpy, contiguous mask": lambda d, a, b: asc.axpy(d, a, -2.0, 48, 3, asc.UnaryRepeatParams(1, 1, 8, 4)),
    "mul_add_dst, bit-wise mask, strided": lambda d, a, b: asc.mul_add_dst(d, a, b, [0xFFFF0000FFFF, 0], 2,
                                                                          asc.BinaryRepeatParams(2, 2, 1, 16, 8, 4)),
    "mul_add_dst, count": lambda d, a, b: asc.mul_add_dst(d, a, b, 100),
}


@pytest.mark.parametrize("chip", ["A2", "950"])
@pytest.mark.parametrize("form", sorted(MIXED))
def test_mixed_precision_multiply_add(chip, form):
    core = core_with_data(chip)
    with core:
        dst, src0, src1 = t(F32, 0x1000, 256, VECOUT), t(F16, 0x2000, 512), t(F16, 0x3000, 512)
    assert sweep(Machine(core), lambda: MIXED[form](dst, src0, src1), fresh_plans=True)


COMPLEX = {  # the 950's complex lanes (docs/semantics.md §5.29): every real step into private arrays first
    "mul complex64": lambda d, a, b, f: asc.mul(d, a, b, 100),
    "div complex32": lambda d, a, b, f: asc.div(d.reinterpret_cast(asc.complex32), a.reinterpret_cast(asc.complex32),
                                                b.reinterpret_cast(asc.complex32), 100),
    "muls complex64, the scalar first": lambda d, a, b, f: asc.muls(d, 1 - 2j, a, 100),
    "abs complex64 -> float": lambda d, a, b, f: asc.abs(f, a, 100),
    "cast complex64 -> complex32": lambda d, a, b, f: asc.cast(d.reinterpret_cast(asc.complex32), a,
                                                               asc.RoundMode.CAST_RINT, 100),
}


@pytest.mark.parametrize("form", sorted(COMPLEX))
def test_complex(form):
    core = core_with_data("950")
    with core:
        dst, src0, src1 = (t(asc.complex64, addr, 128) for addr in (0x1000, 0x2000, 0x3000))
        magnitudes = t(F32, 0x4000, 128, VECOUT)
    assert sweep(Machine(core), lambda: COMPLEX[form](dst, src0, src1, magnitudes), fresh_plans=True)


REDUCE = {
    "whole_reduce_max, bitwise (dst and mask register)": lambda d, a: asc.whole_reduce_max(d, a, [0xFFFF, 0xF], 4, 1, 1,
                                                                                           8),
    "whole_reduce_sum, contiguous": lambda d, a: asc.whole_reduce_sum(d, a, 100, 3, 2, 1, 8),
    "block_reduce_min, partial blocks": lambda d, a: asc.block_reduce_min(d, a, 2, 40, 1, 2, 16),
    "pair_reduce_sum": lambda d, a: asc.pair_reduce_sum(d, a, 2, 128, 1, 1, 8),
    "reduce_max with index (dst and work buffer)": lambda d, a: asc.reduce_max(d, a, a, 128, 4, 8, True),
    "reduce_sum, count": lambda d, a: asc.reduce_sum(d, a, a, 700),
}


@pytest.mark.parametrize("chip", ["A2", "950"])
@pytest.mark.parametrize("form", sorted(REDUCE))
def test_reduce(chip, form):
    core = core_with_data(chip)
    with core:
        dst, _, src0, _ = half_operands()
    assert sweep(Machine(core), lambda: REDUCE[form](dst, src0), fresh_plans=True)


@pytest.mark.parametrize("form", ["set_vector_mask", "set_vector_mask counter", "reset_mask", "set_mask_count",
                                  "set_cmp_mask", "get_cmp_mask", "set_pad_value"])
def test_registers(form):
    core = core_with_data("A2")
    with core:
        call = {
            "set_vector_mask": lambda: asc.set_vector_mask(3, 0xFF, dtype=F16),
            "set_vector_mask counter": lambda: asc.set_vector_mask(77, dtype=F16, mode=asc.MaskMode.COUNTER),
            "reset_mask": asc.reset_mask,
            "set_mask_count": asc.set_mask_count,
            "set_cmp_mask": lambda: asc.set_cmp_mask(t(U8, 0x6000, 16)),
            "get_cmp_mask": lambda: asc.get_cmp_mask(t(U8, 0x7000, 16, VECOUT)),
            "set_pad_value": lambda: asc.set_pad_value(3.0),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=False)


@pytest.mark.parametrize("fresh_plans", [False, True], ids=["cached plan", "planned"])
@pytest.mark.parametrize("form", ["GM to UB", "UB to GM, strided", "UB to UB", "pad GM to UB", "pad UB to GM"])
def test_data_copy(form, fresh_plans):
    core = core_with_data("A2")
    gm = np.arange(4096, dtype=np.float16)
    with core:
        g = asc.GlobalTensor()
        g.set_global_buffer(gm)
        ub = t(F16, 0x8000, 2048)
        call = {
            "GM to UB": lambda: asc.data_copy(ub, g, 1024),
            "UB to GM, strided": lambda: asc.data_copy(g[64:], t(F16, 0x1000, 2048), asc.DataCopyParams(4, 2, 1, 3)),
            "UB to UB": lambda: asc.data_copy(ub, t(F16, 0x1000, 1024), 512),
            "pad GM to UB": lambda: asc.data_copy_pad(ub, g[3:], asc.DataCopyExtParams(5, 22, 2, 1),
                                                      asc.DataCopyPadExtParams(F16, True, 1, 2, 7.0)),
            "pad UB to GM": lambda: asc.data_copy_pad(g[5:], t(F16, 0x1000, 1024), asc.DataCopyExtParams(4, 18, 0, 6)),
        }[form]
    assert sweep(Machine(core, (gm,)), call, fresh_plans=fresh_plans)


@pytest.mark.parametrize("form", ["select", "add chained", "trans_data_to_5hd address tensors"])
def test_memory_error_too(form):
    """An Exception, not only a BaseException: no ``except Exception`` on the way swallows it half done."""
    core = core_with_data("A2")
    with core:
        dst, sel, src0, src1 = half_operands()
        dst_t, src_t = t(U64, 0xE000, 16), t(U64, 0xE100, 16)
        dst_t.write(np.array([0x8000 + 32 * k for k in range(16)], np.uint64))
        src_t.write(np.array([0x2000 + 32 * k for k in range(16)], np.uint64))
        call = {
            "select": lambda: asc.select(dst, sel, src0, src1, MODE2, 128, 4, B),
            "add chained": lambda: asc.add(dst, src0, dst, 128, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 0)),
            "trans_data_to_5hd address tensors": lambda: asc.trans_data_to_5hd(dst_t, src_t, asc.TransDataTo5HDParams(),
                                                                               dtype=F16),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=form == "add chained", error=MemoryError)


def sort_case(form: str):
    scores, indices = t(F32, 0x1000, 1024), t(asc.uint32, 0x2000, 1024)
    work, dst = t(F32, 0x8000, 2048), t(F32, 0xA000, 2048, VECOUT)
    queues = asc.MrgSortSrcList(F32, work[0], work[64], work[128], work[192])
    packed = asc.MrgSortSrcList(F32, work[0], work[32], work[64], work[96])  # 4 x 16 structures, back to back
    return {
        "sort32 float": lambda: asc.sort32(work, scores, indices, 8),
        "sort32 half": lambda: asc.sort32(t(F16, 0x8000, 2048), t(F16, 0x1000, 1024), indices, 5),
        "mrg_sort, suspending (dst, shadow, VMS4_SR)": lambda: asc.mrg_sort(dst, queues,
                                                                            asc.MrgSort4Info([32, 20, 32, 9], True)),
        "mrg_sort, two repeats": lambda: asc.mrg_sort(dst, packed, asc.MrgSort4Info([16] * 4, False, 15, 2)),
        "asc_mrgsort4_sync (dst, barrier)": lambda: asc.asc_mrgsort4_sync(dst, [work[0], work[64], work[128],
                                                                                 work[192]], 1, 8, 8, 8, 8, True, 15),
    }[form]


@pytest.mark.parametrize("fresh_plans", [False, True], ids=["cached plan", "planned"])
@pytest.mark.parametrize("form", ["sort32 float", "sort32 half", "mrg_sort, suspending (dst, shadow, VMS4_SR)",
                                  "mrg_sort, two repeats", "asc_mrgsort4_sync (dst, barrier)"])
def test_sort(form, fresh_plans):
    core = core_with_data("A2")
    with core:
        asc.sort32(t(F32, 0x8000, 2048), t(F32, 0x1000, 1024), t(asc.uint32, 0x2000, 1024), 8)  # sorted queues
        core.ub.mark_undefined(np.arange(0x8004, 0x8100, 16))  # never-written index bytes: moved as they are
        call = sort_case(form)
    assert sweep(Machine(core), call, fresh_plans=fresh_plans)


@pytest.mark.parametrize("form", ["proposal_concat", "rp_sort16 in place", "mrg_sort4 suspending"])
def test_region_proposals(form):
    core = core_with_data("310P")
    with core:
        src, work, dst = t(F16, 0x1000, 256), t(F16, 0x2000, 1024), t(F16, 0x4000, 1024, VECOUT)
        asc.proposal_concat(work, src, 4, 4)
        asc.rp_sort16(work, work, 4)
        queues = asc.MrgSortSrcList(F16, work[0], work[128], work[256], work[384])
        call = {
            "proposal_concat": lambda: asc.proposal_concat(dst, src, 3, 2),
            "rp_sort16 in place": lambda: asc.rp_sort16(t(F16, 0x1000, 256), t(F16, 0x1000, 256), 2),
            "mrg_sort4 suspending": lambda: asc.mrg_sort4(dst, queues, asc.MrgSort4Info([16, 9, 16, 3], True)),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=True)


@pytest.mark.parametrize("fresh_plans", [False, True], ids=["cached plan", "planned"])
@pytest.mark.parametrize("form", ["set_deq_scale table", "cast_deq b8 count", "cast_deq vdeq mask",
                                  "cast int32 -> half deq", "asc_deq_int162b8_l count"])
def test_dequantisation(form, fresh_plans):
    """The DEQSCALE writers and readers (ops/dequant.py): UB and DEQSCALE, dst and the mask registers."""
    core = core_with_data("A2")
    with core:
        table = t(U64, 0x8000, 16, VECOUT)
        src16, dst8 = t(asc.int16, 0x2000, 256), t(asc.int8, 0x3000, 512, VECOUT)
        src32, dst16 = t(asc.int32, 0x4000, 256), t(F16, 0x5000, 256, VECOUT)
        if form == "set_deq_scale table":
            asc.set_deq_scale(0.5)
        elif form == "cast_deq vdeq mask":
            asc.set_deq_scale(table, asc.VdeqInfo([0.5] * 16, list(range(16)), [True] * 16))
        elif form == "cast int32 -> half deq":
            asc.set_deq_scale(0.25)
        else:
            asc.set_deq_scale(2.0, -5, True)
        call = {
            "set_deq_scale table": lambda: asc.set_deq_scale(table, asc.VdeqInfo([1.5] * 16, [3] * 16, [False] * 16)),
            "cast_deq b8 count": lambda: asc.cast_deq(dst8, src16, 200, False, True),
            "cast_deq vdeq mask": lambda: asc.cast_deq(dst8, src16, [0xF0F0, 0xFF], 2, U, True, True, False),
            "cast int32 -> half deq": lambda: asc.cast(dst16, src32, asc.RoundMode.CAST_NONE, 100),
            "asc_deq_int162b8_l count": lambda: asc.asc_deq_int162b8_l(dst8, src16, 150),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=fresh_plans)


@pytest.mark.parametrize("fresh_plans", [False, True], ids=["cached plan", "planned"])
@pytest.mark.parametrize("chip, form", [("A2", "count"), ("A2", "mask"), ("A3", "bitwise"), ("310P", "mask"),
                                        ("950", "count")])
def test_add_deq_relu(chip, form, fresh_plans):
    """AddDeqRelu (ops/add_deq_relu.py): dst and the mask registers; on the A2/A3 also the intermediates the API
    leaves in src0, src1 and the scratch."""
    core = core_with_data(chip)
    with core:
        asc.set_deq_scale(0.125)
        src0, src1, dst = t(asc.int32, 0x4000, 1024), t(asc.int32, 0x7000, 1024), t(F16, 0xA000, 1024, VECOUT)
        call = {
            "count": lambda: asc.add_deq_relu(dst, src0, src1, 300),
            "mask": lambda: asc.add_deq_relu(dst, src0, src1, 40, 3, asc.BinaryRepeatParams(1, 1, 2, 4, 8, 16)),
            "bitwise": lambda: asc.add_deq_relu(dst, src0, src1, [0xF0F0_0000_FFFF, 0], 2, B),
        }[form]
    assert sweep(Machine(core), call, fresh_plans=fresh_plans)
