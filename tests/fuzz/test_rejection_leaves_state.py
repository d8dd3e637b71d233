"""One named test per entry-point family: a rejected call leaves every byte and register as it was.

Each test starts from a *busy* state, not a fresh one: memory holding random bytes with
never-written holes in its shadow, CMPMASK and the vector mask set, counter mode on, a
padding value loaded, saturation off, synchronisation recorded, runtime buffers allocated
and queued.  The call is one that passes most checks and is rejected by a late one (overlap,
the last operand's bounds, a read-only destination), so a half-applied call would show.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from npusim import ascend as asc
from npusim import sophgo as tpu
from npusim.ascend.arith_dtypes import vector_support
from npusim.ascend.ops.elementwise import VECTOR_OPS
from npusim.errors import (
    AlignmentError,
    NoActiveCoreError,
    OutOfBoundsError,
    OverlapError,
    ParameterRangeError,
    RuntimeMisuseError,
    UnsupportedError,
    WrongCoreError,
)

from .state import ascend_state, sophgo_core, sophgo_state

VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC


def busy_ascend_core(chip: str = "A2") -> asc.Core:
    """A core whose every register differs from power-on and whose UB shadow has holes."""
    core = asc.Core(chip)
    rng = np.random.default_rng(7)
    core.ub.data[:] = rng.integers(0, 256, core.ub.size_bytes, dtype=np.uint8)
    core.ub.written[:] = rng.random(core.ub.size_bytes) < 0.9  # about one byte in ten never written
    core.ub.written[: 0x20000] = 1  # ... but the operands of these tests are fully written
    core.cmpmask = bytes(range(16))
    with core:
        asc.set_vector_mask(0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210)
        asc.set_mask_count()
        asc.set_pad_value(3.5)
        asc.set_saturation_flag(False)
        asc.set_flag(asc.HardEvent.MTE2_V, 1)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
    return core


def rejected(error: type, state, call, *fragments: str):
    """``call()`` raises ``error`` mentioning every fragment, and ``state()`` is unchanged."""
    before = state()
    with pytest.raises(error) as caught:
        call()
    for fragment in fragments:
        assert fragment in str(caught.value), f"{fragment!r} not in {caught.value}"
    assert state() == before
    return caught.value


def tensors(core: asc.Core, dtype, *addrs: int, size: int = 2048):
    with core:
        return [asc.LocalTensor(dtype, VECCALC, addr, size) for addr in addrs]


# ------------------------------------------------------------------ Ascend instructions
def test_select_rejected_by_a_late_overlap_check_changes_nothing():
    core = busy_ascend_core()
    dst, sel, src0, src1 = tensors(core, asc.float16, 0x0000, 0x8000, 0x0020, 0x10000)
    sel = sel.reinterpret_cast(asc.uint8)
    with core:
        asc.set_mask_norm()
        rejected(OverlapError, lambda: ascend_state(core), lambda: asc.select(
            dst, sel, src0, src1, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 128, 2, asc.BinaryRepeatParams()),
            "partially overlap")


def test_compare_rejected_by_its_last_operand_bounds_changes_nothing():
    core = busy_ascend_core()
    dst, src0 = tensors(core, asc.float32, 0x0000, 0x8000)
    with core:
        src1 = asc.LocalTensor(asc.float32, VECIN, 0x10000, 64)  # 64 elements; the call reads 128
        asc.set_mask_norm()
        rejected(OutOfBoundsError, lambda: ascend_state(core), lambda: asc.compare(
            dst.reinterpret_cast(asc.uint8), src0, src1, asc.CMPMODE.LT, 64, 2, asc.BinaryRepeatParams()),
            "src1")


def test_compare_to_register_and_c_api_rejections_change_nothing():
    core = busy_ascend_core()
    src0, src1 = tensors(core, asc.float16, 0x0000, 0x0020)
    with core:
        asc.set_mask_norm()
        rejected(ParameterRangeError, lambda: ascend_state(core),
                 lambda: asc.asc_lt(src0.reinterpret_cast(asc.uint8), src0, src1, 256, 1, 1, 1, 8, 8, 8), "repeat")


def test_trans_data_to_5hd_rejected_by_overlap_changes_nothing():
    core = busy_ascend_core()
    src = [0x4000 + 32 * i for i in range(16)]
    dst = [0x4000 + 32 * (i + 1) for i in range(16)]
    with core:
        rejected(OverlapError, lambda: ascend_state(core),
                 lambda: asc.trans_data_to_5hd(dst, src, asc.TransDataTo5HDParams(), dtype=asc.float16))


@pytest.mark.parametrize("name", list(VECTOR_OPS))
def test_elementwise_rejected_late_changes_nothing(name):
    op = VECTOR_OPS[name]
    supported = vector_support(asc.get_chip("A2"), name).dtypes
    dtype = next(t for t in (asc.float32, asc.int32, asc.int16) if t.name in supported)
    core = busy_ascend_core()
    dst, src0, src1 = tensors(core, dtype, 0x0000, 0x4000, 0x8000)
    with core:
        short = asc.LocalTensor(dtype, VECOUT, 0x0000, 100)  # the call writes 128 elements
        operands = [src0, src1][:len(op.sources)] + ([2] if op.scalar else [])
        rejected(OutOfBoundsError, lambda: ascend_state(core), lambda: getattr(asc, name)(short, *operands, 128),
                 "dst")


def test_elementwise_partial_overlap_changes_nothing():
    core = busy_ascend_core()
    dst, src = tensors(core, asc.float32, 0x0020, 0x0000)
    with core:
        asc.set_mask_norm()
        rejected(OverlapError, lambda: ascend_state(core),
                 lambda: asc.add(dst, src, src, 64, 1, asc.BinaryRepeatParams()), "partially overlap")


def test_registers_rejections_change_nothing():
    core = busy_ascend_core()
    other = busy_ascend_core()
    with other:
        foreign = asc.LocalTensor(asc.uint8, VECIN, 0, 16)
    with core:
        misaligned = asc.LocalTensor(asc.uint8, VECIN, 8, 16)
        rejected(AlignmentError, lambda: ascend_state(core), lambda: asc.set_cmp_mask(misaligned))
        rejected(WrongCoreError, lambda: ascend_state(core), lambda: asc.get_cmp_mask(foreign))
        rejected(ParameterRangeError, lambda: ascend_state(core), lambda: asc.set_vector_mask(
            2**64, 0, dtype=asc.float16))


# ------------------------------------------------------- data movement and GM
def gm_array(elems: int = 4096, dtype=np.float16, writable: bool = True) -> np.ndarray:
    array = np.arange(elems).astype(dtype)
    array.flags.writeable = writable
    return array


def test_data_copy_rejections_change_ub_gm_and_registers():
    core = busy_ascend_core()
    read_only = asc.GlobalTensor()
    read_only.set_global_buffer(gm_array(writable=False))
    ub, ub_shifted = tensors(core, asc.float16, 0x0000, 0x0040)
    state = lambda: ascend_state(core, read_only.buffer)  # noqa: E731
    with core:
        rejected(RuntimeMisuseError, state, lambda: asc.data_copy(read_only, ub, 256), "read-only")
        rejected(OverlapError, state, lambda: asc.data_copy(ub_shifted, ub, 256), "partially overlap")
        rejected(ParameterRangeError, state, lambda: asc.data_copy(ub, read_only, 17), "multiple of 32")


def test_data_copy_pad_rejections_change_nothing():
    core = busy_ascend_core()
    source, target = asc.GlobalTensor(), asc.GlobalTensor()
    source.set_global_buffer(gm_array())
    target.set_global_buffer(gm_array(writable=False))
    (ub,) = tensors(core, asc.float16, 0x0000)
    state = lambda: ascend_state(core, source.buffer, target.buffer)  # noqa: E731
    with core:
        rejected(RuntimeMisuseError, state, lambda: asc.data_copy_pad(
            target, ub, asc.DataCopyExtParams(2, 40, 0, 0)), "read-only")
        rejected(ParameterRangeError, state, lambda: asc.data_copy_pad(
            ub, source, asc.DataCopyExtParams(2, 40, 0, 0),
            asc.DataCopyPadExtParams(asc.float16, True, 17, 0, 1.0)), "left_padding")


def test_control_and_sync_rejections_change_nothing():
    core = busy_ascend_core()
    with core:
        rejected(UnsupportedError, lambda: ascend_state(core), lambda: asc.set_pad_value(1, asc.TPosition.GM))
        rejected(TypeError, lambda: ascend_state(core), lambda: asc.set_saturation_flag("yes"))
        rejected(ParameterRangeError, lambda: ascend_state(core), lambda: asc.wait_flag(asc.HardEvent.V_MTE3, 8))
        rejected(TypeError, lambda: ascend_state(core), lambda: asc.pipe_barrier(3))


def test_pipe_and_queue_misuse_changes_neither_ub_nor_the_runtime():
    core = busy_ascend_core()
    with core:
        pipe, que, buf = asc.TPipe(), asc.TQue(VECIN, 1), asc.TBuf()
        pipe.init_buffer(que, 2, 1024)
        pipe.init_buffer(buf, 512)
        first = que.alloc_tensor(asc.float16)
        que.enque(first)
        second = que.alloc_tensor(asc.float16)
        state = lambda: ascend_state(core, runtime=(pipe, que, buf))  # noqa: E731
        rejected(RuntimeMisuseError, state, lambda: que.enque(second), "depth")
        rejected(RuntimeMisuseError, state, lambda: que.free_tensor(first), "still in the queue")
        rejected(RuntimeMisuseError, state, lambda: que.alloc_tensor(asc.float16), "allocated")
        rejected(RuntimeMisuseError, state, lambda: pipe.init_buffer(que, 1, 32), "already has memory")
        rejected(ParameterRangeError, state, lambda: buf.get_with_offset(1024, 0, asc.float16), "size")
        que.free_tensor(que.deque(asc.float16))
        rejected(RuntimeMisuseError, state, lambda: asc.duplicate(first, 1.0, 16), "freed")
        rejected(RuntimeMisuseError, state, lambda: first.read(), "freed")


def test_global_memory_rejections_change_neither_gm_nor_bindings():
    array = gm_array(64)
    tensor = asc.GlobalTensor()
    tensor.set_global_buffer(array, 32)
    state = lambda: (array.tobytes(), tensor.buffer.memory.snapshot(), repr(tensor), tensor.get_size())  # noqa: E731
    rejected(OutOfBoundsError, state, lambda: tensor.set_value(32, 1.0), "32 elements")
    rejected(OutOfBoundsError, state, lambda: tensor.set_global_buffer(tensor.address + 60, 8))
    rejected(ParameterRangeError, state, lambda: tensor.set_global_buffer(array, -1), "buffer_size")
    rejected(TypeError, state, lambda: tensor.set_value(0, "1.0"))
    read_only = asc.GlobalTensor()
    read_only.set_global_buffer(gm_array(8, writable=False))
    rejected(RuntimeMisuseError, lambda: read_only.buffer.memory.snapshot(), lambda: read_only.set_value(0, 1.0))


@asc.jit
def _copy_kernel(x, y, n):
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    local = asc.LocalTensor(x_gm.dtype, VECIN, 0, n)
    asc.data_copy(local, x_gm, n)
    asc.data_copy(y_gm, local, n)


def test_launch_rejections_change_no_gm_and_leave_no_core_active():
    x, y = gm_array(64), np.zeros(64, np.float16)
    state = lambda: (x.tobytes(), y.tobytes(), asc.get_default_chip().name)  # noqa: E731
    rejected(ParameterRangeError, state, lambda: _copy_kernel[0](x, y, 64), "block_dim")
    rejected(TypeError, state, lambda: _copy_kernel[1.5](x, y, 64))
    rejected(UnsupportedError, state, lambda: _copy_kernel[1](x, np.zeros(64, complex), 64))
    rejected(ParameterRangeError, state, lambda: _copy_kernel[1](x, y, 60), "multiple of 32")  # in block 0
    with pytest.raises(NoActiveCoreError):
        asc.current_core("after the launches")


# ------------------------------------------------------------------------ Sophgo
def test_bdc_select_rejected_by_its_last_operand_changes_nothing():
    core = sophgo_core("BM1688")
    lane = core.chip.local_mem_bytes
    src = [tpu.variable_t(type=tpu.TENSOR, addr=offset) for offset in (0x1000, 0x2000, 0x3000)]
    beyond = tpu.variable_t(type=tpu.TENSOR, addr=lane - 64)  # src3 would run past the lane
    with core:
        rejected(OutOfBoundsError, lambda: sophgo_state(core), lambda: tpu.tpu_bdc_greater_select(
            0, *src, beyond, tpu.dim4(1, 32, 4, 8), tpu.DT_FP32, tpu.DT_FP32), "src3")
        rejected(UnsupportedError, lambda: sophgo_state(core), lambda: tpu.tpu_bdc_maximum_greater_select(
            0, 0x800, *src, src[0], tpu.dim4(1, 4, 2, 2), tpu.DT_FP32, tpu.DT_INT16), "dst1_dtype")


def test_sophgo_host_access_rejections_change_nothing():
    core = sophgo_core("CV184X")
    with core:
        rejected(ParameterRangeError, lambda: sophgo_state(core),
                 lambda: core.write_local(0, np.full((1, 8, 2, 2), 300), tpu.DT_INT8), "do not fit")
        rejected(OutOfBoundsError, lambda: sophgo_state(core),
                 lambda: core.write_local_bytes(0, core.chip.local_mem_bytes - 4, bytes(8)), "leave the lane")
        rejected(TypeError, lambda: sophgo_state(core), lambda: core.write_local_bytes(0, 0, None))
        rejected(ParameterRangeError, lambda: sophgo_state(core),
                 lambda: core.read_local(0, (1, 0, 1, 1), tpu.DT_FP32), "at least 1")


def test_sophgo_util_rejections_change_nothing():
    core = sophgo_core("CV184X")
    with core:
        rejected(ParameterRangeError, lambda: sophgo_state(core), lambda: tpu.tpu_npu_index(-1), "local address")
        rejected(TypeError, lambda: sophgo_state(core), lambda: tpu.tpu_aligned_stride(0, (1, 2, 3, 4),
                                                                                        tpu.DT_FP32))
        rejected(ParameterRangeError, lambda: sophgo_state(core),
                 lambda: tpu.tpu_compact_stride(0, tpu.dim4(1, 0, 1, 1)), "shape.c")


def test_fresh_nan_padding_value_is_compared_by_identity():
    """The snapshot holds the padding register itself: a NaN set once compares equal to itself."""
    core = busy_ascend_core("A2")
    with core:
        asc.set_pad_value(math.nan)
        rejected(UnsupportedError, lambda: ascend_state(core), lambda: asc.set_pad_value(1, asc.TPosition.GM))
