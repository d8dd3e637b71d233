"""The second round of fast paths (issue 7): shortcuts, portable plans, cached data copies, recycled UB.

* **Shortcuts** (the engine's ``core.invocations``): a repeated positional call finds its plan
  from its raw arguments.  A shortcut must never serve a call that only looks like the earlier
  one (``1`` / ``1.0`` / ``True`` / ``np.int64(1)``, a moved tensor, a changed parameter object,
  other mask registers), and must still check each call's tensors and read its scalar.
* **Portable plans** (the engine's shared ``PLANS``): made on one core, bound to
  another of the same chip; the new core's memory is used and its never-written bytes reported.
* **Cached data copies**: the GM side (address, bounds, writability, never-written bytes)
  is checked on every call.
* **Recycled UB arrays** and the TPipe that no longer keeps its core alive.
"""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.tensor import Lease
from npusim.engine import caches
from npusim.engine.dispatch import PLANS, key_part
from npusim.engine.registry import vendor
from npusim.errors import (
    OutOfBoundsError,
    ParameterRangeError,
    RuntimeMisuseError,
    UninitializedReadError,
    UninitializedReadWarning,
    UnsupportedError,
    WrongCoreError,
)
from npusim.memory import Memory, zeroed_bytes

from .conftest import assert_rejected, cached

F16, F32, U8 = asc.float16, asc.float32, asc.uint8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT


def select_operands(core, seed: int = 0):
    """dst, selMask, src0, src1 for one repeat of half data, with src0 / src1 / selMask random."""
    rng = np.random.default_rng(seed)
    core.ub_write(0, rng.integers(0, 256, 0x4000, dtype=np.uint8).tobytes())
    dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 128) for base in (0x0, 0x1000, 0x2000))
    return dst, asc.LocalTensor(U8, VECIN, 0x3000, 32), src0, src1


def selected(core, sel_addr: int, src0_addr: int, other) -> np.ndarray:
    """Mode 1/2 of one repeat: per lane src0 where the selMask bit is 1, else ``other`` (bits as uint16)."""
    bits = np.unpackbits(np.frombuffer(core.ub_read(sel_addr, 16), np.uint8), bitorder="little").astype(bool)
    a = np.frombuffer(core.ub_read(src0_addr, 256), np.uint16)
    return np.where(bits, a, other)


# ---------------------------------------------------------------- shortcuts
def test_shortcut_serves_a_repeated_call_with_each_calls_memory():
    with asc.Core("A2") as core:
        dst, sel, src0, src1 = select_operands(core)
        params = asc.BinaryRepeatParams()
        for seed in range(3):
            select_operands(core, seed)  # new sources and selection bits, same call
            asc.select(dst, sel, src0, src1, 2, 128, 1, params)
            other = np.frombuffer(core.ub_read(0x2000, 256), np.uint16)
            assert np.array_equal(np.frombuffer(core.ub_read(0, 256), np.uint16),
                                  selected(core, 0x3000, 0x1000, other))
        assert len(core.invocations) == cached(1) and len(core.bindings) == cached(1)


@pytest.mark.parametrize("look_alike", [2.0, True, np.float64(2)])
def test_shortcut_rejects_look_alike_arguments(look_alike):
    """A call that differs only in an argument's type is bound and checked afresh: here a TypeError."""
    with asc.Core("A2") as core:
        dst, sel, src0, src1 = select_operands(core)
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        assert_rejected(core, TypeError, lambda: asc.select(dst, sel, src0, src1, look_alike, 128, 1,
                                                            asc.BinaryRepeatParams()))
        assert_rejected(core, TypeError, lambda: asc.select(dst, sel, src0, src1, 2, 128, look_alike,
                                                            asc.BinaryRepeatParams()))


def test_shortcut_keys_keep_numbers_of_different_types_apart():
    ascend = vendor("ascend")
    parts = [key_part(ascend, value) for value in (1, 1.0, True, np.int64(1), np.uint8(1))]
    assert len(set(parts)) == len(parts)
    zero, negative_zero = key_part(ascend, 0.0), key_part(ascend, -0.0)
    assert zero == negative_zero  # a scalar is read per call: its sign is never taken from the key


def test_numpy_integer_arguments_get_their_own_shortcut_and_the_same_result():
    with asc.Core("A2") as core:
        dst, sel, src0, src1 = select_operands(core)
        asc.select(dst, sel, src0, src1, 2, 128, 1, asc.BinaryRepeatParams())
        first = core.ub_read(0, 256)
        core.ub_write(0, bytes(256))
        asc.select(dst, sel, src0, src1, np.int64(2), np.uint64(128), np.int32(1), asc.BinaryRepeatParams())
        assert core.ub_read(0, 256) == first
        assert len(core.invocations) == cached(2)


def test_signed_zero_scalar_through_one_shortcut_writes_each_calls_bits():
    with asc.Core("A2") as core:
        dst, sel, src0, _ = select_operands(core)
        for scalar, bits in ((0.0, 0x0000), (-0.0, 0x8000), (0.0, 0x0000)):
            asc.select(dst, sel, src0, scalar, 1, 128, 1, asc.BinaryRepeatParams())
            assert np.array_equal(np.frombuffer(core.ub_read(0, 256), np.uint16),
                                  selected(core, 0x3000, 0x1000, np.uint16(bits)))
        assert len(core.invocations) == cached(1)


def test_shortcut_follows_moved_tensors_and_changed_parameter_objects():
    with asc.Core("A2") as core:
        dst, sel, src0, src1 = select_operands(core)
        params = asc.BinaryRepeatParams()
        asc.select(dst, sel, src0, src1, 2, 128, 1, params)
        dst.addr = 0x800  # the key follows the tensor
        asc.select(dst, sel, src0, src1, 2, 128, 1, params)
        other = np.frombuffer(core.ub_read(0x2000, 256), np.uint16)
        assert np.array_equal(np.frombuffer(core.ub_read(0x800, 256), np.uint16), selected(core, 0x3000, 0x1000, other))
        params.dst_blk_stride = 0  # now an invalid call: it must be checked, not served
        assert_rejected(core, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, 2, 128, 1, params),
                        "dst_blk_stride")
        params.dst_blk_stride = True  # equal to 1, but a bool: rejected like a fresh call
        assert_rejected(core, TypeError, lambda: asc.select(dst, sel, src0, src1, 2, 128, 1, params))


def test_parameter_object_key_changes_with_each_assignment():
    params = asc.BinaryRepeatParams()
    first = params.fields_key()
    assert params.fields_key() is first  # remembered
    params.src0_rep_stride = 16
    assert params.fields_key() != first
    params.src0_rep_stride = 8
    assert params.fields_key() == first
    params.dst_blk_stride = True
    assert params.fields_key() != first and params == asc.BinaryRepeatParams(True)


def test_shortcut_still_checks_freed_and_foreign_tensors():
    with asc.Core("A2") as core:
        dst, sel, src0, src1 = select_operands(core)
        lease = Lease("a test buffer")
        leased = asc.LocalTensor(F16, VECIN, 0x1000, 128, lease=lease)
        call = lambda: asc.select(dst, sel, leased, src1, 2, 128, 1, asc.BinaryRepeatParams())  # noqa: E731
        call()
        lease.revoke()
        assert_rejected(core, RuntimeMisuseError, call, "src0")
        with asc.Core("A2") as other:
            select_operands(other)
            other_dst = asc.LocalTensor(F16, VECIN, 0x0, 128)
            asc.select(other_dst, asc.LocalTensor(U8, VECIN, 0x3000, 32), asc.LocalTensor(F16, VECIN, 0x1000, 128),
                       asc.LocalTensor(F16, VECIN, 0x2000, 128), 2, 128, 1, asc.BinaryRepeatParams())
            # the same key on this core, but src1 belongs to the outer core
            assert_rejected(other, WrongCoreError, lambda: asc.select(other_dst, asc.LocalTensor(
                U8, VECIN, 0x3000, 32), asc.LocalTensor(F16, VECIN, 0x1000, 128), src1, 2, 128, 1,
                asc.BinaryRepeatParams()), "src1")


def test_shortcut_depends_on_the_mask_registers():
    """The no-mask form takes its lanes from the vector mask register, which the key holds."""
    with asc.Core("A2") as core:
        dst, sel, src0, src1 = select_operands(core)
        core.ub_write(0x3000, b"\xff" * 16)  # take src0 everywhere
        asc.set_cmp_mask(sel)
        call = lambda: asc.select(dst, src0, src1, 1, asc.BinaryRepeatParams(), 0)  # noqa: E731
        core.ub_write(0, bytes(256))
        asc.set_vector_mask(0, 0xF)
        call()
        assert core.ub_read(0, 8) == core.ub_read(0x1000, 8) and core.ub_read(8, 248) == bytes(248)
        asc.set_vector_mask(0, 0xFF)
        call()
        assert core.ub_read(0, 16) == core.ub_read(0x1000, 16) and core.ub_read(16, 240) == bytes(240)


def test_no_mask_mode_2_reads_its_selmask_address_from_cmpmask_every_call():
    with asc.Core("A2") as core:
        dst, sel, src0, src1 = select_operands(core)
        core.ub_write(0x3000, b"\xff" * 16)
        core.ub_write(0x3400, bytes(16))
        for address, source in ((0x3000, 0x1000), (0x3400, 0x2000)):
            core.cmpmask = address.to_bytes(8, "little") + bytes(8)
            asc.select(dst, src0, src1, 1, asc.BinaryRepeatParams(), 2)
            assert core.ub_read(0, 256) == core.ub_read(source, 256)


def test_compare_scalar_and_c_api_shortcuts_convert_each_calls_scalar():
    with asc.Core("A2") as core:
        values = np.linspace(-2, 2, 128).astype(np.float16)
        src = asc.LocalTensor(F16, VECIN, 0x0, 128)
        dst = asc.LocalTensor(U8, VECOUT, 0x200, 16)
        src.write(values)
        for value in (0.5, -1.0, 0.5, np.float16(0.25)):
            asc.compare_scalar(dst, src, value, asc.CMPMODE.LT, 128, 1, asc.UnaryRepeatParams())
            assert core.ub_read(0x200, 16) == np.packbits(values < np.float16(value), bitorder="little").tobytes()
            asc.asc_gt_scalar(dst, src, value, 1, 1, 1, 8, 8)
            assert core.ub_read(0x200, 16) == np.packbits(values > np.float16(value), bitorder="little").tobytes()


def test_c_api_shortcut_rejects_a_freed_tensor():
    with asc.Core("A2") as core:
        lease = Lease("a test buffer")
        src0 = asc.LocalTensor(F16, VECIN, 0x0, 128, lease=lease)
        src1 = asc.LocalTensor(F16, VECIN, 0x100, 128)
        dst = asc.LocalTensor(U8, VECOUT, 0x200, 16)
        src0.write(np.zeros(128)), src1.write(np.ones(128))
        asc.asc_lt(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8)
        lease.revoke()
        assert_rejected(core, RuntimeMisuseError, lambda: asc.asc_lt(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8), "src0")


# ----------------------------------------------------------- portable plans
def trans_on(core, src: np.ndarray) -> bytes:
    """Seed 002's recipe on a (16, 64) half tile at UB 0x0 -> 0x8000; returns the destination bytes."""
    core.ub_write(0, src.tobytes())
    src_list = [0x80 * c for c in range(16)]
    dst_list = [0x8000 + 32 * i for i in range(16)]
    asc.trans_data_to_5hd(dst_list, src_list, asc.TransDataTo5HDParams(False, False, 4, 16, 1), dtype=F16)
    return core.ub_read(0x8000, src.nbytes)


def test_a_plan_made_on_one_core_runs_on_another_cores_memory():
    tiles = [np.random.default_rng(k).standard_normal((16, 64)).astype(np.float16) for k in range(2)]
    caches.clear_all()
    with asc.Core("A2") as first:
        assert trans_on(first, tiles[0]) == tiles[0].T.tobytes()
        assert len(PLANS) == caches.enabled()  # with NPUSIM_CACHES=off nothing is kept, and the bytes agree
    with asc.Core("A2") as second:
        second.ub_write(0x8000, bytes(2048))
        assert trans_on(second, tiles[1]) == tiles[1].T.tobytes()
        # the first core's plan, bound to this core
        assert len(PLANS) == caches.enabled() and len(second.bindings) == caches.enabled()
    assert first.ub_read(0x8000, 2048) == tiles[0].T.tobytes()  # the first core's UB is untouched


def test_a_bound_plan_reports_the_new_cores_never_written_bytes():
    with asc.Core("A2") as first:
        trans_on(first, np.zeros((16, 64), np.float16))
    with asc.Core("A2", strict=True) as second:  # nothing written: the template must not remember epochs
        src_list = [0x80 * c for c in range(16)]
        dst_list = [0x8000 + 32 * i for i in range(16)]
        assert_rejected(second, UninitializedReadError, lambda: asc.trans_data_to_5hd(
            dst_list, src_list, asc.TransDataTo5HDParams(False, False, 4, 16, 1), dtype=F16), "0x0")


def test_plans_are_shared_only_between_cores_of_one_chip():
    """A product without the instruction rejects the call a plan of another product was made for."""
    without = next(chip for chip in asc.CHIPS.values() if not chip.transdata_dtypes)
    with asc.Core("A2") as a2:
        trans_on(a2, np.zeros((16, 64), np.float16))
    with asc.Core(without) as other:
        other.ub_write(0, bytes(4096))
        src_list = [0x80 * c for c in range(16)]
        dst_list = [0x8000 + 32 * i for i in range(16)]
        assert_rejected(other, UnsupportedError, lambda: asc.trans_data_to_5hd(
            dst_list, src_list, asc.TransDataTo5HDParams(False, False, 4, 16, 1), dtype=F16))


# ------------------------------------------------------------- data copies
def gm_tensor(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def test_cached_block_copy_moves_each_calls_gm_tile():
    x = np.arange(4 * 256, dtype=np.float16).reshape(4, 256)
    params = asc.DataCopyParams(4, 2, (256 - 32) // 16, 0)  # 4 rows of 32 halves, 224 halves apart
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(F16, VECIN, 0, 128)
        g = gm_tensor(x)
        for start in (0, 32, 224):
            asc.data_copy(ub, g[start:], params)
            assert np.array_equal(ub.read(), x[:, start : start + 32].reshape(-1))
        assert len(core.bindings) == caches.enabled()  # bound to the GM buffer once; each call reads its offset


def test_cached_copy_checks_gm_bounds_writability_and_unwritten_bytes_per_call():
    x = np.arange(256, dtype=np.float16)
    out = np.zeros(256, dtype=np.float16)
    with asc.Core("A2", strict=True) as core:
        ub = asc.LocalTensor(F16, VECIN, 0, 128)
        g = gm_tensor(x)
        asc.data_copy(ub, g, 128)
        assert_rejected(core, OutOfBoundsError, lambda: asc.data_copy(ub, g[200:], 128), "src")
        assert out.tobytes() == bytes(512)
        asc.data_copy(gm_tensor(out), ub, 128)
        assert np.array_equal(out[:128], x[:128])
        assert_rejected(core, OutOfBoundsError, lambda: asc.data_copy(gm_tensor(out)[129:], ub, 128), "dst")
        frozen = np.zeros(256, dtype=np.float16)
        frozen.flags.writeable = False
        assert_rejected(core, RuntimeMisuseError, lambda: asc.data_copy(gm_tensor(frozen), ub, 128), "read-only")
        workspace = asc.GlobalTensor()
        workspace.set_global_buffer(asc.gm_alloc(F16, 256))
        with pytest.warns(UninitializedReadWarning, match="GM workspace byte 0x0"):  # gm_alloc's own policy
            asc.data_copy(ub, workspace, 128)
        asc.data_copy(ub, g, 128)
        asc.data_copy(workspace, ub, 128)  # now written: the same cached copy reads it silently
        with warnings.catch_warnings():
            warnings.simplefilter("error", UninitializedReadWarning)
            asc.data_copy(ub, workspace, 128)
        assert np.array_equal(ub.read(), x[:128])


def test_cached_copy_marks_its_ub_destination_again_after_the_shadow_forgot_it():
    with asc.Core("A2", strict=True) as core:
        ub = asc.LocalTensor(F16, VECIN, 0, 128)
        out = asc.LocalTensor(F16, VECOUT, 0x1000, 128)
        g = gm_tensor(np.ones(128, np.float16))
        asc.data_copy(ub, g, 128)
        core.ub.mark_undefined(np.arange(0x10, 0x12))
        assert_rejected(core, UninitializedReadError, lambda: asc.data_copy(out, ub, 128), "0x10")
        asc.data_copy(ub, g, 128)  # the cached copy writes the bytes and marks them written again
        asc.data_copy(out, ub, 128)
        assert np.array_equal(out.read(), np.ones(128, np.float16))


def test_cached_cast_marks_its_destination_written_and_again_after_the_shadow_forgot_it():
    """A dense Cast writes its dst as one run of elements (views of UB made once, by the binding): the first
    call marks dst's bytes written, a later call in the same shadow epoch may skip that, and a call after the
    shadow forgot some of them (a new epoch) marks them again."""
    with asc.Core("A2", strict=True) as core:
        src = asc.LocalTensor(F32, VECIN, 0, 64)
        dst = asc.LocalTensor(F16, VECOUT, 0x1000, 64)
        again = asc.LocalTensor(F32, VECOUT, 0x2000, 64)
        src.write(np.arange(64, dtype=np.float32))
        params = asc.UnaryRepeatParams(1, 1, 4, 8)
        asc.cast(dst, src, asc.RoundMode.CAST_RINT, 64, 1, params)
        asc.cast(again, dst, asc.RoundMode.CAST_NONE, 64, 1, params)  # reads every byte the cast wrote
        core.ub.mark_undefined(np.arange(0x1010, 0x1012))
        assert_rejected(core, UninitializedReadError, lambda: asc.cast(again, dst, asc.RoundMode.CAST_NONE, 64, 1,
                                                                       params), "0x1010")
        asc.cast(dst, src, asc.RoundMode.CAST_RINT, 64, 1, params)  # the cached cast marks the bytes again
        asc.cast(again, dst, asc.RoundMode.CAST_NONE, 64, 1, params)
        assert np.array_equal(again.read(), np.arange(64, dtype=np.float32))


def test_cached_copy_rejects_a_freed_ub_tensor():
    with asc.Core("A2") as core:
        lease = Lease("a test buffer")
        ub = asc.LocalTensor(F16, VECIN, 0, 128, lease=lease)
        g = gm_tensor(np.ones(128, np.float16))
        asc.data_copy(ub, g, 128)
        lease.revoke()
        assert_rejected(core, RuntimeMisuseError, lambda: asc.data_copy(ub, g, 128), "dst")


def test_cached_ub_to_gm_copy_warns_about_never_written_ub_once_per_epoch():
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(F16, VECOUT, 0x40, 128)
        out = np.zeros(128, np.float16)
        with pytest.warns(UninitializedReadWarning, match="0x40"):
            asc.data_copy(gm_tensor(out), ub, 128)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UninitializedReadWarning)
            ub.write(np.ones(128))
            asc.data_copy(gm_tensor(out), ub, 128)
        assert np.array_equal(out, np.ones(128, np.float16))
        core.ub.mark_undefined(np.arange(0x50, 0x51))
        with pytest.warns(UninitializedReadWarning, match="0x50"):
            asc.data_copy(gm_tensor(out), ub, 128)


# ------------------------------------------------------ memory and launches
def test_a_callers_array_is_fully_written_until_bytes_are_forgotten():
    memory = Memory.over(np.arange(64, dtype=np.uint8), "GM")
    assert memory.fully_written and "written" not in vars(memory)
    assert memory.written.all()  # made on first use
    memory.mark_undefined(np.arange(3, 4))
    assert not memory.fully_written
    with pytest.warns(UninitializedReadWarning, match="0x3"):
        memory.check_initialized_span("t", "x", 0, 8)


def test_recycled_arrays_are_zero_and_never_taken_while_referenced():
    size = 1 << 17
    first = Memory(size, "UB")
    first.data[:] = 7
    first.written[:] = 1
    view = first.data[10:20]
    del first
    for _ in range(4):
        again = Memory(size, "UB")
        assert not again.data.any() and not again.written.any()
        assert again.data.base is not view.base and again.data is not view.base
    assert (view == 7).all()
    assert not zeroed_bytes(size).any()


def test_a_finished_launch_keeps_no_core_alive():
    @asc.jit
    def kernel(x):
        pipe = asc.TPipe()
        que = asc.TQue(VECIN, 1)
        pipe.init_buffer(que, 1, 256)
        t = que.alloc_tensor(F16)
        asc.data_copy(t, gm_tensor(x), 128)
        que.free_tensor(t)

    cores = []
    kernel.launch(1, (np.ones(128, np.float16),), chip="A2", after_block=lambda core: cores.append(weakref.ref(core)))
    gc.collect()
    assert len(cores) == 1 and cores[0]() is None


def test_mode_0_lane_pattern_follows_each_calls_cmpmask():
    """Mode 0 keeps its full-size lane mask for the CMPMASK bits it was made from, and only for those."""
    with asc.Core("A2") as core:
        rng = np.random.default_rng(5)
        core.ub_write(0, rng.integers(0, 256, 0x6000, dtype=np.uint8).tobytes())
        dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 384) for base in (0x0, 0x1000, 0x2000))
        for bits in (b"\x0f" * 16, bytes(range(16)), b"\x0f" * 16):
            core.cmpmask = bits
            asc.select(dst, src0, src1, 3, asc.BinaryRepeatParams(), 0)  # 3 repeats, the same bits in each
            lanes = np.tile(np.unpackbits(np.frombuffer(bits, np.uint8), bitorder="little").astype(bool), 3)
            expected = np.where(lanes, np.frombuffer(core.ub_read(0x1000, 768), np.uint16),
                                np.frombuffer(core.ub_read(0x2000, 768), np.uint16))
            assert np.array_equal(np.frombuffer(core.ub_read(0, 768), np.uint16), expected)


@pytest.mark.parametrize("dst_base", [0x0000, 0x1F00, 0x2000])
def test_select_result_when_dst_overlaps_src1_across_repeats(dst_base):
    """dst one repeat before src1 (0x1F00: repeat r + 1 writes what repeat r read, which ref §1.4 allows),
    in place on src1 (0x2000) or disjoint (0x0): each repeat selects from the sources as they were."""
    with asc.Core("A2") as core:
        rng = np.random.default_rng(dst_base)
        core.ub_write(0, rng.integers(0, 256, 0x4000, dtype=np.uint8).tobytes())
        before = bytes(core.ub_read(0, 0x4000))
        dst = asc.LocalTensor(F16, VECIN, dst_base, 384)
        src0, src1 = asc.LocalTensor(F16, VECIN, 0x1000, 384), asc.LocalTensor(F16, VECIN, 0x2000, 384)
        sel = asc.LocalTensor(U8, VECIN, 0x3000, 48)
        asc.select(dst, sel, src0, src1, 2, 128, 3, asc.BinaryRepeatParams())
        bits = np.unpackbits(np.frombuffer(before[0x3000:0x3030], np.uint8), bitorder="little").astype(bool)
        expected = np.where(bits, np.frombuffer(before[0x1000:0x1300], np.uint16),
                            np.frombuffer(before[0x2000:0x2300], np.uint16))
        assert np.array_equal(np.frombuffer(core.ub_read(dst_base, 768), np.uint16), expected)


@pytest.mark.parametrize("mode", [1, 2])
def test_lane_mask_is_remade_whenever_the_selection_bits_change(mode):
    """The plan keeps the lane mask of the last bits it saw: same bits, other bits, the first bits again."""
    with asc.Core("A2") as core:
        select_operands(core, 7)
        dst, src0, src1 = (asc.LocalTensor(F16, VECIN, base, 256) for base in (0x0, 0x1000, 0x2000))
        sel = asc.LocalTensor(U8, VECIN, 0x3000, 32)
        rng = np.random.default_rng(8)
        first, second = (rng.integers(0, 256, 32, dtype=np.uint8).tobytes() for _ in range(2))
        for bits in (first, first, second, first):
            core.ub_write(0x3000, bits)
            core.ub_write(0x1000, rng.integers(0, 256, 512, dtype=np.uint8).tobytes())  # new src0 each call
            asc.select(dst, sel, src0, 2.5 if mode == 1 else src1, mode, 128, 2, asc.BinaryRepeatParams())
            lanes = np.unpackbits(np.frombuffer(bits, np.uint8), bitorder="little").astype(bool)
            other = np.uint16(0x4100) if mode == 1 else np.frombuffer(core.ub_read(0x2000, 512), np.uint16)
            expected = np.where(lanes, np.frombuffer(core.ub_read(0x1000, 512), np.uint16), other)
            assert np.array_equal(np.frombuffer(core.ub_read(0, 512), np.uint16), expected)
