"""Cached plans and the fast operand paths (issue 7).

A call whose parameters match an earlier one reuses that call's checked plan, bound to its
tensors' addresses (``npusim.engine.dispatch``).  These tests pin down what a cached plan must still do
per call: read memory, registers and scalars as they are *now*, check that its
tensors are still allocated and on the running core, report never-written bytes
again once the shadow forgot them, and refuse arguments that only compare equal
to the cached ones.  They also run each operand path the plans choose between —
the UB slice itself (default strides), a DataBlock gather (other strides), the
flat index gather, and for TransDataTo5HD strided views versus index gathers —
against the reference models.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.ops.common import scalar_bits_cached
from npusim.ascend.ops.transpose import Transposition
from npusim.ascend.tensor import Lease
from npusim.engine import caches
from npusim.engine.dispatch import MAX_BINDINGS, PLANS
from npusim.errors import RuntimeMisuseError, UninitializedReadError, UninitializedReadWarning, WrongCoreError

from . import reference_model as ref
from .conftest import assert_rejected, binding_of, cached
from .reference_model import SelectCase, normal_lanes, run_select, set_mask_words

F16, F32, U8 = asc.float16, asc.float32, asc.uint8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
A2_SCRATCH = 184 * 1024
SEL = 0x18000

# (dst, src0, src1) base addresses and strides per operand path of a Select plan.
SELECT_LAYOUTS = {
    "dense": ((0x0000, 0x2000, 0x4000), (1, 1, 1, 8, 8, 8)),  # contiguous UB slices
    "strided": ((0x0000, 0x0020, 0x8000), (2, 2, 2, 16, 16, 16)),  # dst / src0 interleaved block by block
    "flat": ((0x0000, 0x2000, 0x4000), (1, 1, 1, 0, 8, 8)),  # dst written once per repeat: last one wins
}


def random_ub(core, rng, nbytes: int = 0x1A000) -> bytearray:
    core.ub_write(0, rng.integers(0, 256, nbytes, dtype=np.uint8).tobytes())
    return bytearray(core.ub_read(0, core.ub.size_bytes))


def select_expectation(ub: bytearray, mode: int, bases, strides, repeats: int, mask: int, scalar) -> bytearray:
    """The model's UB after a native A2 Select in the mask form (scratch included, ref §2.6)."""
    low, high = set_mask_words(mask, 2)
    out = bytearray(ub)
    scalar_raw = np.array([scalar], np.float16).tobytes() if mode == 1 else None
    if mode == 0:
        cmpmask = bytes(ub[SEL : SEL + 16])
    else:
        copies = scalar_raw * 32 if mode == 1 else SEL.to_bytes(4, "little") * 32
        out[A2_SCRATCH : A2_SCRATCH + len(copies)] = copies
        cmpmask = copies[:16]
    case = SelectCase(mode=mode, size=2, dst=bases[0], src0=bases[1], src1=None if mode == 1 else bases[2],
                      scalar=scalar_raw, sel=None if mode == 0 else SEL, cmpmask=cmpmask,
                      lanes=normal_lanes(low, high, repeats, 2), strides=strides)
    return run_select(out, case)


@pytest.mark.parametrize("mask", [128, 40])
@pytest.mark.parametrize("layout", sorted(SELECT_LAYOUTS))
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_select_cached_plan_reads_each_calls_memory_and_scalar(mode, layout, mask):
    """Same parameters three times; sources, selMask and the scalar change in between."""
    bases, strides = SELECT_LAYOUTS[layout]
    repeats = 3
    rng = np.random.default_rng(mode * 10 + mask)
    with asc.Core("A2") as core:
        dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 0x4000) for base in bases)
        sel = asc.LocalTensor(U8, VECIN, SEL, 256)
        params = asc.BinaryRepeatParams(*strides)
        for call, scalar in enumerate([1.5, -0.0, 65504.0]):
            ub = random_ub(core, rng)
            expected = select_expectation(ub, mode, bases, strides, repeats, mask, scalar)
            asc.select(dst, sel, src0, scalar if mode == 1 else src1, mode, mask, repeats, params)
            assert core.ub_read(0, core.ub.size_bytes) == bytes(expected), f"call {call}"
        assert len(core.bindings) == cached(1)
        binding = binding_of(core, asc.select, dst, sel, src0, scalar if mode == 1 else src1, mode, mask, repeats,
                             params)
        path = "flat" if binding.dst.layout == "flat" else "dense" if binding.src0.blocks is None else "strided"
        assert path == layout


def test_select_flat_path_when_the_view_would_leave_ub():
    """Only the first 64 lanes are active at the very end of UB: a full view would overrun it."""
    with asc.Core("A2") as core:
        end = core.ub.size_bytes
        bases = (end - 128, 0x2000, 0x4000)
        rng = np.random.default_rng(5)
        dst = asc.LocalTensor(F16, VECOUT, bases[0], 64)
        src0, src1 = (asc.LocalTensor(F16, VECIN, base, 128) for base in bases[1:])
        sel = asc.LocalTensor(U8, VECIN, SEL, 32)
        for _ in range(2):
            ub = random_ub(core, rng)
            core.ub_write(end - 128, bytes(128))
            ub[end - 128 :] = bytes(128)
            expected = select_expectation(ub, 0, bases, (1, 1, 1, 8, 8, 8), 1, 64, None)
            asc.select(dst, sel, src0, src1, 0, 64, 1, asc.BinaryRepeatParams())
            assert core.ub_read(0, end) == bytes(expected)
        assert binding_of(core, asc.select, dst, sel, src0, src1, 0, 64, 1, asc.BinaryRepeatParams()).dst.layout \
            == "flat"


def test_select_count_form_on_a_cached_plan_follows_new_data():
    with asc.Core("A2"):
        rng = np.random.default_rng(1)
        dst, src0, src1 = (asc.LocalTensor(F32, VECIN, base, 300) for base in (0x0, 0x1000, 0x2000))
        sel = asc.LocalTensor(U8, VECIN, SEL, 64)
        for _ in range(3):
            a, b = rng.standard_normal(300).astype(np.float32), rng.standard_normal(300).astype(np.float32)
            bits = rng.integers(0, 256, 64, dtype=np.uint8)
            src0.write(a), src1.write(b), sel.write(bits), dst.write(np.zeros(300))
            asc.select(dst, sel, src0, src1, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 300)
            chosen = np.unpackbits(bits, bitorder="little")[:300].astype(bool)
            assert dst.read().tobytes() == np.where(chosen, a, b).tobytes()


def test_a_cached_plan_still_rejects_a_freed_tensor_and_a_foreign_one():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x10000))
        lease = Lease("a test buffer")
        dst = asc.LocalTensor(F16, VECOUT, 0x0, 128, lease=lease)
        src0, src1 = asc.LocalTensor(F16, VECIN, 0x1000, 128), asc.LocalTensor(F16, VECIN, 0x2000, 128)
        sel = asc.LocalTensor(U8, VECIN, 0x3000, 32)
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        lease.revoke()
        assert_rejected(core, RuntimeMisuseError, lambda: asc.select(dst, sel, src0, src1, 2, 128, 1,
                                                                     asc.BinaryRepeatParams()), "freed")
        with asc.Core("A2"):
            other = asc.LocalTensor(F16, VECIN, 0x1000, 128)
        fresh = asc.LocalTensor(F16, VECOUT, 0x0, 128)
        asc.select(fresh, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        assert_rejected(core, WrongCoreError, lambda: asc.select(fresh, sel, other, src1, 2, 128, 1,
                                                                 asc.BinaryRepeatParams()), "another core")


def test_equal_values_of_other_types_do_not_reuse_a_plan():
    """``1.0`` and ``True`` compare equal to ``1`` but are rejected; a cached plan must not accept them."""
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x10000))
        dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 128) for base in (0x0, 0x1000, 0x2000))
        sel = asc.LocalTensor(U8, VECIN, 0x3000, 32)
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        asc.select(dst, sel, src0, src1, 2, [1, 0], 1, asc.BinaryRepeatParams())
        for bad in (asc.BinaryRepeatParams(1.0, 1, 1, 8, 8, 8), asc.BinaryRepeatParams(True, 1, 1, 8, 8, 8)):
            assert_rejected(core, TypeError, lambda bad=bad: asc.select(dst, sel, src0, src1, 2, 128, 1, bad))
        assert_rejected(core, TypeError, lambda: asc.select(dst, sel, src0, src1, 2, [1.0, 0], 1,
                                                            asc.BinaryRepeatParams()))
        assert_rejected(core, TypeError, lambda: asc.select(dst, sel, src0, src1, 2, 128, 1,
                                                            asc.BinaryRepeatParams(), is_set_mask=1.0))


def test_distinct_but_equal_tensors_share_a_binding_and_a_moved_tensor_only_the_plan():
    caches.clear_all()  # the plans, and the invocations that hold them
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x10000))
        sel = asc.LocalTensor(U8, VECIN, 0x3000, 32)

        def run(dst_addr: int) -> None:
            dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 128) for base in (dst_addr, 0x1000, 0x2000))
            asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())

        run(0x0)
        run(0x0)
        assert len(core.bindings) == cached(1) and len(PLANS) == cached(1)
        src0, src1 = asc.LocalTensor(F16, VECIN, 0x1000, 128), asc.LocalTensor(F16, VECIN, 0x2000, 128)
        src0.write(np.arange(128)), src1.write(-np.arange(128)), sel.write(np.full(32, 0xFF))
        dst = asc.LocalTensor(F16, VECIN, 0x0, 128)
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        dst.addr = 0x4000  # the binding follows the tensor's attributes; its geometry is the same
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        assert np.array_equal(np.frombuffer(core.ub_read(0x4000, 256), np.float16), np.arange(128))
        assert len(core.bindings) == cached(2) and len(PLANS) == cached(1)


def test_uninitialised_reads_are_reported_again_after_the_shadow_forgets_bytes():
    with asc.Core("A2", strict=True) as core:
        core.ub_write(0, bytes(0x4000))
        dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 128) for base in (0x0, 0x1000, 0x2000))
        sel = asc.LocalTensor(U8, VECIN, 0x3000, 32)
        call = lambda: asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())  # noqa: E731
        call()
        call()
        core.ub.mark_undefined(np.arange(0x1010, 0x1012))
        assert_rejected(core, UninitializedReadError, call, "0x1010")
        core.ub.mark_undefined(np.arange(0x3001, 0x3002))  # a selMask byte
        src0.write(np.zeros(128))
        assert_rejected(core, UninitializedReadError, call, "sel_mask", "0x3001")


def test_destination_shadow_is_marked_again_after_it_was_forgotten():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x4000))
        dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 128) for base in (0x0, 0x1000, 0x2000))
        sel = asc.LocalTensor(U8, VECIN, 0x3000, 32)
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        core.ub.mark_undefined(np.arange(0, 256))
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        assert core.ub.written[:256].all()


def test_bindings_are_bounded():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x2000))
        src0, src1 = asc.LocalTensor(F32, VECIN, 0x0, 64), asc.LocalTensor(F32, VECIN, 0x100, 64)
        sel = asc.LocalTensor(U8, VECIN, 0x200, 32)
        for k in range(MAX_BINDINGS + 20):
            dst = asc.LocalTensor(F32, VECOUT, 0x400 + 32 * (k % 64), 64 + k)
            asc.select(dst, sel, src0, src1, 2, 64, 1, asc.BinaryRepeatParams())
        assert len(core.bindings) == cached(MAX_BINDINGS)


def test_memoised_scalar_conversion_is_exact():
    zero, negative_zero = (scalar_bits_cached("t", "s", v, F16).tobytes() for v in (0.0, -0.0))
    assert (zero, negative_zero) == (b"\x00\x00", b"\x00\x80")
    nan = int(scalar_bits_cached("t", "s", float("nan"), F16).view(np.uint16)[0])
    assert nan & 0x7C00 == 0x7C00 and nan & 0x03FF, hex(nan)  # a half NaN: exponent all ones, mantissa not 0
    assert scalar_bits_cached("t", "s", 1, asc.int32).tobytes() == (1).to_bytes(4, "little")
    assert scalar_bits_cached("t", "s", 1.0, F32).tobytes() == np.float32(1).tobytes()


# ----------------------------------------------------------------- compare
def compare_expectation(ub: bytes, dtype: str, mode: str, src0: int, src1: int | None, scalar, repeats: int,
                        strides, active=lambda r, j: True) -> bytes:
    """The packed bits the reference model gives (``scalar``: a Python number, converted to ``dtype``)."""
    scalar_bits = None if scalar is None else ref.scalar_to_bits(scalar, dtype)
    return ref.pack_bits(ref.compare_bits(ub, dtype, mode, src0, src1, scalar_bits, repeats, strides, active))


@pytest.mark.parametrize("strides", [(1, 8, 1, 8), (2, 16, 2, 16), (1, 0, 3, 1)])
def test_compare_cached_plan_reads_each_calls_memory(strides):
    s0_blk, s0_rep, s1_blk, s1_rep = strides
    rng = np.random.default_rng(sum(strides))
    with asc.Core("A2") as core:
        src0, src1 = asc.LocalTensor(F16, VECIN, 0x0, 0x4000), asc.LocalTensor(F16, VECIN, 0x20, 0x4000)
        dst = asc.LocalTensor(U8, VECOUT, 0x10000, 64)
        params = asc.BinaryRepeatParams(1, s0_blk, s1_blk, 8, s0_rep, s1_rep)
        for mode in ("LT", "LT", "NE"):
            ub = random_ub(core, rng, 0x10000)
            asc.compare(dst, src0, src1, asc.CMPMODE[mode], 128, 3, params)
            expected = compare_expectation(bytes(ub), "float16", mode, 0x0, 0x20, None, 3, strides)
            assert core.ub_read(0x10000, 48) == expected


def test_compare_scalar_cached_plan_takes_each_calls_scalar():
    rng = np.random.default_rng(3)
    with asc.Core("A2") as core:
        ub = random_ub(core, rng, 0x10000)
        src = asc.LocalTensor(F16, VECIN, 0x0, 0x4000)
        dst = asc.LocalTensor(U8, VECOUT, 0x10000, 64)
        for scalar in (0.0, -0.0, float("nan"), 1.5, float("inf")):
            asc.compare_scalar(dst, src, scalar, asc.CMPMODE.LE, 128, 2, asc.UnaryRepeatParams(1, 2, 8, 16))
            expected = compare_expectation(bytes(ub), "float16", "LE", 0x0, None, scalar, 2, (2, 16, 0, 0))
            assert core.ub_read(0x10000, 32) == expected, scalar
        assert len(core.bindings) == cached(1)


def test_honoured_compare_mask_zeroes_inactive_bits_on_a_view_plan():
    """950: masked-off lanes give 0 bits; the plan reads the whole view and clears them."""
    rng = np.random.default_rng(4)
    with asc.Core("950") as core:
        src0, src1 = asc.LocalTensor(F32, VECIN, 0x0, 0x2000), asc.LocalTensor(F32, VECIN, 0x2000, 0x2000)
        dst = asc.LocalTensor(U8, VECOUT, 0x10000, 64)
        mask = [0x00FF00F0F0F0F00F, 0]
        for _ in range(2):
            ub = random_ub(core, rng, 0x10000)
            asc.compare(dst, src0, src1, asc.CMPMODE.GT, mask, 4, asc.BinaryRepeatParams())
            expected = compare_expectation(bytes(ub), "float32", "GT", 0x0, 0x2000, None, 4, (1, 8, 1, 8),
                                           lambda r, j: (mask[0] >> j) & 1 == 1)
            assert core.ub_read(0x10000, 32) == expected


def test_c_api_compare_to_register_follows_the_current_mask_register():
    with asc.Core("A2") as core:
        src0 = asc.LocalTensor(F16, VECIN, 0x0, 128)
        src1 = asc.LocalTensor(F16, VECIN, 0x100, 128)
        src0.write(np.zeros(128)), src1.write(np.ones(128))
        core.cmpmask = bytes(16)
        asc.set_vector_mask(0, 0xF)
        asc.asc_lt(src0, src1, 1, 1, 1, 1, 8, 8, 8)
        assert core.cmpmask == b"\x0f" + bytes(15)
        asc.set_vector_mask(0, 0xF0)
        asc.asc_lt(src0, src1, 1, 1, 1, 1, 8, 8, 8)
        assert core.cmpmask == b"\xff" + bytes(15)
        asc.reset_mask()
        src0.write(np.full(128, 2.0))
        asc.asc_lt(src0, src1, 1, 1, 1, 1, 8, 8, 8)
        assert core.cmpmask == bytes(16)


def test_c_api_scalar_compare_converts_each_calls_value():
    with asc.Core("A2") as core:
        src = asc.LocalTensor(F16, VECIN, 0x0, 128)
        dst = asc.LocalTensor(U8, VECOUT, 0x200, 16)
        values = np.linspace(-2, 2, 128).astype(np.float16)
        src.write(values)
        for value in (0.0, -1.0, 1.9990234375):
            asc.asc_ne_scalar(dst, src, value, 1, 1, 1, 8, 8)
            assert core.ub_read(0x200, 16) == np.packbits(values != np.float16(value), bitorder="little").tobytes()


# --------------------------------------------------------- TransDataTo5HD
def spy_commits(monkeypatch) -> list[str]:
    """Record the commit every later transpose runs: ``"views"`` (two strided views) or ``"indices"``."""
    taken = []
    for attribute, label in (("_commit_views", "views"), ("_commit", "indices")):
        original = getattr(Transposition, attribute)

        def spy(self, *args, original=original, label=label):
            taken.append(label)
            return original(self, *args)

        monkeypatch.setattr(Transposition, attribute, spy)
    return taken


def trans_case(core, rng, taken, dst_list, src_list, params, dtype=F16) -> str:
    """Run one call on fresh random UB, check it against the reference model, return the commit it ran."""
    ub = bytes(random_ub(core, rng, 0x18000))
    expected = ref.trans_data_to_5hd(ub, dtype.itemsize, dst_list, src_list, params.repeat_times, params.dst_rep_stride,
                           params.src_rep_stride, params.dst_high_half, params.src_high_half)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UninitializedReadWarning)
        asc.trans_data_to_5hd(list(dst_list), list(src_list), params, dtype=dtype)
    assert core.ub_read(0, core.ub.size_bytes) == expected
    return taken[-1]


@pytest.mark.parametrize("dtype", [asc.int8, F16, F32])
def test_trans_views_and_index_gathers_agree_with_the_model(dtype, monkeypatch):
    """Evenly stepped lists run as strided views; a shuffled list falls back to index gathers."""
    taken = spy_commits(monkeypatch)
    rng = np.random.default_rng(dtype.itemsize)
    even_src = [0x0000 + 0x400 * k for k in range(16)]
    even_dst = [0x8000 + 32 * k for k in range(16)]
    shuffled_src = list(rng.permutation(even_src))
    with asc.Core("A2") as core:
        halves = ((False, False), (True, True)) if dtype.itemsize == 1 else ((False, False),)  # 表3: b8 only
        for dst_high, src_high in halves:
            params = asc.TransDataTo5HDParams(dst_high, src_high, 8, 16, 1)
            assert trans_case(core, rng, taken, even_dst, even_src, params, dtype) == "views"
            assert trans_case(core, rng, taken, even_dst, [int(a) for a in shuffled_src], params, dtype) == "indices"
            trans_case(core, rng, taken, even_dst, even_src, params, dtype)  # the cached plan of the first call
        single = asc.TransDataTo5HDParams(False, False, 1, 3, 2)  # one repeat: offset by one stride
        assert trans_case(core, rng, taken, even_dst, even_src, single, dtype) == "views"
        negative_step = list(reversed(even_dst))
        assert trans_case(core, rng, taken, negative_step, even_src, single, dtype) == "views"


def test_trans_in_place_and_repeated_destinations(monkeypatch):
    taken = spy_commits(monkeypatch)
    rng = np.random.default_rng(9)
    blocks = [0x1000 + 32 * k for k in range(16)]
    with asc.Core("A2") as core:
        for _ in range(2):  # one strided copy whose source and destination are the same bytes
            assert trans_case(core, rng, taken, blocks, blocks, asc.TransDataTo5HDParams(False, False, 1, 0, 0)) == \
                "views"
        repeated = [0x8000 + 32 * (k % 4) for k in range(16)]  # dst blocks coincide: the last write wins
        params = asc.TransDataTo5HDParams(False, False, 2, 4, 1)
        assert trans_case(core, rng, taken, repeated, [0x400 * k for k in range(16)], params) == "indices"


def test_trans_tensor_list_form_checks_its_tensors_on_every_call():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x10000))
        lease = Lease("a test buffer")
        src = [asc.LocalTensor(F16, VECIN, 0x400 * k, 16) for k in range(16)]
        dst = [asc.LocalTensor(F16, VECOUT, 0x8000 + 32 * k, 16, lease=lease) for k in range(16)]
        params = asc.TransDataTo5HDParams(False, False, 1, 0, 0)
        asc.trans_data_to_5hd(dst, src, params)
        lease.revoke()
        assert_rejected(core, RuntimeMisuseError, lambda: asc.trans_data_to_5hd(dst, src, params), "dst_list[0]")
