"""TQueBind, TQue's mask and position forms, the in-place alloc/deque forms, and TBuf used as a queue.

Expected values: pyasc's API (TQueBind(src, dst, depth, mask), enque(t, src_pos, dst_pos),
deque(dtype, src_pos, dst_pos), alloc_tensor(t) / deque(t) in place) and Ascend C's
TBuf (alloc_tensor/deque give the whole buffer, enque/free_tensor do nothing) as
docs/semantics.md §11.3 states them; the queue events follow the data path of the positions
(GM -> VECIN: MTE2_V / V_MTE2, VECOUT -> GM: V_MTE3 / MTE3_V, VECIN -> VECOUT: MTE2_MTE3 / MTE3_MTE2).
"""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim.ascend.runtime.pipe import TQueBind, queue_events
from npusim.errors import ParameterRangeError, RuntimeMisuseError, UnsupportedError

P = asc.TPosition
E = asc.HardEvent


def test_queue_events_follow_the_data_path_of_the_positions():
    assert queue_events(P.GM, P.VECIN) == (E.MTE2_V, E.V_MTE2)
    assert queue_events(P.VECOUT, P.GM) == (E.V_MTE3, E.MTE3_V)
    assert queue_events(P.VECIN, P.VECOUT) == (E.MTE2_MTE3, E.MTE3_MTE2)
    assert queue_events(P.VECCALC, P.VECCALC) is None  # stays on the V pipe: no flag implied


def test_tque_is_a_tquebind_of_its_data_path_and_takes_pyasc_mask():
    que = asc.TQue(P.VECOUT, 2, mask=0)
    assert isinstance(que, TQueBind)
    assert (que.src, que.dst, que.depth, que.position) == (P.VECOUT, P.GM, 2, P.VECOUT)
    inbound = asc.TQue(P.VECIN, 1)
    assert (inbound.src, inbound.dst) == (P.GM, P.VECIN)
    with pytest.raises(TypeError):
        asc.TQue(P.VECIN, 1, mask="0")


def test_tquebind_vecin_to_vecout_round_trip():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        bind = asc.TQueBind(P.VECIN, P.VECOUT, 1)
        pipe.init_buffer(bind, 2, 64)
        t = bind.alloc_tensor(asc.float32)
        assert (t.addr, t.tile_size, t.position) == (0, 16, P.VECIN)
        assert bind.enque(t) is True
        u = bind.deque(asc.int16)
        assert (u.addr, u.tile_size) == (0, 32)
        bind.free_tensor(u)
        assert bind.alloc_tensor(asc.float32).addr == 64  # round robin: the second buffer


def test_position_forms_of_enque_and_deque():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(P.VECOUT, 1)
        pipe.init_buffer(que, 1, 64)
        t = que.alloc_tensor(asc.float16)
        assert que.enque(t, P.GM, P.VECOUT) is True
        u = que.deque(asc.float16, P.GM, P.VECOUT)
        assert u.addr == t.addr
        with pytest.raises(TypeError):
            que.enque(u, P.GM)  # both user positions or none
        with pytest.raises(TypeError):
            que.enque(u, "GM", P.VECOUT)


def test_in_place_alloc_and_deque_rebind_the_given_tensor():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(P.VECIN, 1)
        pipe.init_buffer(que, 1, 128)
        t = asc.LocalTensor(asc.float32, P.VECIN, 1024, 4)
        assert que.alloc_tensor(t) is None
        assert (t.addr, t.tile_size, t.dtype) == (0, 32, asc.float32)
        asc.duplicate(t, 1.0, 32)
        que.enque(t)
        s = asc.LocalTensor(asc.int32, P.VECIN, 512, 1)
        assert que.deque(s) is None
        assert (s.addr, s.tile_size) == (0, 32)
        assert s.get_value(0) == 0x3F800000  # the bytes the float tensor wrote
        que.free_tensor(s)
        with pytest.raises(RuntimeMisuseError, match="freed"):
            t.get_value(0)


def test_tbuf_used_as_a_queue():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        buf = asc.TBuf(P.VECCALC)
        pipe.init_buffer(buf, 96)
        t = buf.alloc_tensor(asc.uint8)
        assert (t.addr, t.tile_size) == (0, 96)
        assert buf.enque(t) is True
        u = buf.deque(asc.half)
        assert (u.addr, u.tile_size) == (0, 48)
        buf.free_tensor(t)  # a no-op on a TBuf: the tensor stays usable
        asc.duplicate(u, 0.0, 48)
        assert t.get_value(95) == 0
        other = asc.TBuf(P.VECCALC)
        pipe.init_buffer(other, 32)
        with pytest.raises(RuntimeMisuseError, match="not .*this buffer"):
            other.free_tensor(t)
        with pytest.raises(TypeError):
            buf.free_tensor(3)


def test_get_base_addr_is_the_device_address_zero_of_the_ub():
    # GetBaseAddr.md: a CPU-debug aid (tensor address minus base = the device offset); npusim's
    # addresses are device addresses already, so the UB positions' base is 0 and GM has none.
    with asc.Core("A2"):
        pipe = asc.TPipe()
        assert [pipe.get_base_addr(p) for p in (P.VECIN, P.VECOUT, P.VECCALC)] == [0, 0, 0]
        with pytest.raises(ParameterRangeError):
            pipe.get_base_addr(P.GM)
        with pytest.raises(UnsupportedError):
            pipe.get_base_addr(P.A1)
        with pytest.raises(TypeError):
            pipe.get_base_addr(9)


def test_tbufpool_lends_its_bytes_and_takes_them_back():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        head = asc.TBuf(P.VECCALC)
        pipe.init_buffer(head, 64)
        pool = asc.TBufPool(P.VECCALC, 2)
        pipe.init_buf_pool(pool, 1000)  # 1000 -> 1024 bytes at 0x40
        after = asc.TBuf(P.VECCALC)
        pipe.init_buffer(after, 32)
        assert after.get(asc.uint8).addr == 64 + 1024
        que = asc.TQue(P.VECIN, 1)
        pool.init_buffer(que, 1, 512)
        tmp = asc.TBuf(P.VECCALC)
        pool.init_buffer(buf=tmp, len=256)
        t = que.alloc_tensor(asc.float32)
        assert (t.addr, tmp.get(asc.uint8).addr) == (64, 64 + 512)
        with pytest.raises(RuntimeMisuseError, match="buf_id_size"):
            pool.init_buffer(buf=asc.TBuf(P.VECCALC), len=32)
        pool.reset()
        with pytest.raises(RuntimeMisuseError, match="past the pool's end"):
            pool.init_buffer(que, 1, 2048)
        assert pool.next_addr == 64 and pool.buffer_count == 0  # the failed call changed nothing
        with pytest.raises(RuntimeMisuseError, match="freed"):
            t.get_value(0)
        shared = asc.TBufPool(P.VECCALC)
        pipe.init_buf_pool(shared, share_buf=pool)
        other = asc.TQue(P.VECOUT, 1)
        shared.init_buffer(other, 1, 128)
        assert other.alloc_tensor(asc.int8).addr == 64  # the same bytes as the pool it shares


def test_tbufpool_init_buf_pool_runs_the_pages_example():
    """TBufPool/InitBufPool-55.md 调用示例: tbufPool0 from the pipe (4 * bufSize), tbufPool1 carved from it
    (2 * bufSize) at its start, srcQue0 after it, tbufPool2 sharing tbufPool1's bytes; the second stage reuses
    them.  Addresses: a pool starts at its parent's next free byte and moves it on by its 32-rounded length
    (kernel_tbufpool_impl.h)."""
    size = 1024
    with asc.Core("A2"):
        pipe = asc.TPipe()
        pool0, pool1, pool2 = asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC)
        src0, src1, src2 = asc.TQue(P.VECIN, 1), asc.TQue(P.VECIN, 1), asc.TQue(P.VECIN, 1)
        dst0, dst1 = asc.TQue(P.VECOUT, 1), asc.TQue(P.VECOUT, 1)
        assert pipe.init_buf_pool(pool0, size * 4)
        assert pool0.init_buf_pool(pool1, size * 2)
        pool0.init_buffer(src0, 1, size * 2)
        assert pool0.init_buf_pool(pool2, size * 2, pool1)
        pool1.init_buffer(src1, 1, size)
        pool1.init_buffer(dst0, 1, size)
        first = [q.alloc_tensor(asc.float32) for q in (src0, src1, dst0)]
        assert [t.addr for t in first] == [2 * size, 0, size]
        pool1.reset()
        with pytest.raises(RuntimeMisuseError, match="freed"):
            first[1].get_value(0)
        pool2.init_buffer(src2, 1, size)
        pool2.init_buffer(dst1, 1, size)
        assert [q.alloc_tensor(asc.float32).addr for q in (src2, dst1)] == [0, size]
        pool2.reset()
        pool0.reset()
        with pytest.raises(RuntimeMisuseError, match="freed"):
            first[0].get_value(0)
        with pytest.raises(RuntimeMisuseError, match="no memory"):  # a pool carved from a reset one is gone too
            pool1.init_buffer(src1, 1, 32)
        pipe.reset()


def test_resetting_a_pool_takes_back_the_buffers_of_the_pools_carved_from_it():
    """TBufPool.reset takes back its pools' buffers too, reset or not (TBufPool/InitBufPool-55.md: the carved pool
    lends its parent's bytes): their tensors become unusable, their queues can be initialised again."""
    with asc.Core("A2"):
        pipe = asc.TPipe()
        parent, child = asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC)
        pipe.init_buf_pool(parent, 2048)
        parent.init_buf_pool(child, 1024)
        que, buf = asc.TQue(P.VECIN, 1), asc.TBuf(P.VECCALC)
        child.init_buffer(que, 1, 512)
        child.init_buffer(buf=buf, len=256)
        t, b = que.alloc_tensor(asc.float32), buf.get(asc.uint8)
        parent.reset()  # the child was never reset
        for tensor in (t, b):
            with pytest.raises(RuntimeMisuseError, match="freed"):
                tensor.get_value(0)
        parent.init_buffer(que, 1, 256)  # detached, the queue takes new bytes
        assert que.alloc_tensor(asc.int8).addr == 0 and pipe.buffer_count == 1


def test_tbufpool_init_buf_pool_rules():
    with asc.Core("A2") as core:
        pipe = asc.TPipe()
        parent, child, other = asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC), asc.TBufPool(P.VECCALC)
        with pytest.raises(RuntimeMisuseError, match="no memory"):
            parent.init_buf_pool(child, 64)
        pipe.init_buf_pool(parent, 1000)  # 1024 bytes
        assert parent.init_buf_pool(child, 33) and (child.start_addr, child.end_addr) == (0, 64)
        assert parent.next_addr == 64
        before = (parent.next_addr, core.ub.snapshot())
        with pytest.raises(RuntimeMisuseError, match="past the pool's end"):
            parent.init_buf_pool(other, 1024 - 64 + 1)
        with pytest.raises(ParameterRangeError, match="len"):
            parent.init_buf_pool(other, 0)
        with pytest.raises(RuntimeMisuseError, match="already has memory"):
            parent.init_buf_pool(child, 32)
        with pytest.raises(RuntimeMisuseError, match="from itself"):
            parent.init_buf_pool(parent, 32)
        with pytest.raises(RuntimeMisuseError, match="more than the 64 bytes of the pool to share"):
            parent.init_buf_pool(other, 65, child)
        with pytest.raises(TypeError):
            parent.init_buf_pool(other, 32, "child")
        assert (parent.next_addr, core.ub.snapshot()) == before  # rejected calls change nothing
        assert parent.init_buf_pool(other, 64, child) and (other.start_addr, other.end_addr) == (0, 64)
        assert parent.next_addr == 64  # sharing takes no new bytes
        last = asc.TBufPool(P.VECCALC)
        assert parent.init_buf_pool(last, 1024 - 64) and last.end_addr == 1024
        with pytest.raises(RuntimeMisuseError, match="past the pool.s end"):
            parent.init_buf_pool(asc.TBufPool(P.VECCALC), 32)
