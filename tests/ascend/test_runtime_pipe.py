"""TPipe / TQue / TBuf: UB layout, and every misuse raising before any state changes."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import AlignmentError, ConstraintError, RuntimeMisuseError, UnsupportedError


def queue_state(que: asc.TQue) -> tuple:
    """Everything a misuse must leave unchanged: slot states, cursor, queue contents."""
    return (tuple((s.addr, s.nbytes, s.state) for s in que._slots), que._cursor,
            tuple(s.addr for s in que._queued))


def pipe_state(pipe: asc.TPipe) -> tuple:
    return pipe.next_addr, pipe.buffer_count, tuple(queue_state(q) for q in pipe.queues)


# ------------------------------------------------------------------ layout
def test_buffers_are_carved_from_address_zero_rounded_to_32_bytes():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        a, b = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 2)
        buf = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(a, 1, 100)           # 100 -> 128 bytes at 0
        pipe.init_buffer(b, 2, 64)            # 2 x 64 at 128, 192
        pipe.init_buffer(buf=buf, len=33)     # 64 bytes at 256
        first = a.alloc_tensor(asc.float32)
        assert (first.addr, first.tile_size) == (0, 32)  # the tensor covers the rounded 128-byte buffer
        t1 = b.alloc_tensor(asc.float16)
        t2 = b.alloc_tensor(asc.float16)
        assert (t1.addr, t2.addr, t1.tile_size) == (128, 192, 32)
        assert buf.get(asc.uint8).addr == 256 and buf.get(asc.uint8).tile_size == 64
        assert pipe.next_addr == 320


def test_double_buffering_allocates_round_robin():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 2)
        pipe.init_buffer(que, 2, 256)
        addrs = []
        for _ in range(4):
            t = que.alloc_tensor(asc.float32)
            addrs.append(t.addr)
            que.enque(t)
            que.free_tensor(que.deque(asc.float32))
        assert addrs == [0, 256, 0, 256]


def test_tbuf_get_with_offset():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        buf = asc.TBuf()
        pipe.init_buffer(buf, 1024)  # pyasc: init_buffer(buf=..., num=length)
        t = buf.get_with_offset(16, 64, asc.float32)
        assert (t.addr, t.tile_size) == (64, 16)
        with pytest.raises(AlignmentError, match="32-byte aligned"):
            buf.get_with_offset(4, 16, asc.float32)
        with pytest.raises(ConstraintError, match="more elements"):
            buf.get(asc.float32, 257)


# ------------------------------------------------------------------ misuse
def test_over_allocation_beyond_the_vector_local_size():
    """A2: TOTAL_VEC_LOCAL_SIZE = 184 KiB; the top 8 KiB of the 192 KiB UB are the API scratch."""
    with asc.Core("A2"):
        pipe = asc.TPipe()
        q1, q2 = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q1, 1, 180 * 1024)
        before = pipe_state(pipe)
        with pytest.raises(RuntimeMisuseError) as err:
            pipe.init_buffer(q2, 2, 4096)
        assert "184 KiB" in err.value.rule and "API scratch" in err.value.rule
        assert err.value.allowed == "at most 4096 more bytes"
        assert pipe_state(pipe) == before and q2._pipe is None
        pipe.init_buffer(q2, 1, 4096)  # exactly up to 184 KiB is fine
        assert pipe.next_addr == 184 * 1024
    with asc.Core("310P"):  # 248 KiB there
        pipe = asc.TPipe()
        pipe.init_buffer(asc.TQue(asc.TPosition.VECIN, 1), 1, 248 * 1024)


def test_deque_on_an_empty_queue():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, 256)
        before = queue_state(que)
        with pytest.raises(RuntimeMisuseError, match="deque on an empty queue") as err:
            que.deque(asc.float32)
        assert err.value.instruction == "TQue.deque" and "DeQue.md" in err.value.source
        assert queue_state(que) == before


def test_double_free():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, 256)
        t = que.alloc_tensor(asc.float32)
        que.free_tensor(t)
        before = queue_state(que)
        with pytest.raises(RuntimeMisuseError, match="already freed"):
            que.free_tensor(t)
        assert queue_state(que) == before
        assert que.alloc_tensor(asc.float32).addr == 0  # the buffer is free exactly once


def test_enque_beyond_depth():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 2, 256)
        first, second = que.alloc_tensor(asc.float32), que.alloc_tensor(asc.float32)
        que.enque(first)
        before = queue_state(que)
        with pytest.raises(RuntimeMisuseError, match="already holds depth = 1") as err:
            que.enque(second)
        assert err.value.value == 1
        assert queue_state(que) == before
        with pytest.raises(RuntimeMisuseError, match="already in the queue"):
            que.enque(first)


def test_reading_a_freed_tensor():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, 128)
        t = que.alloc_tensor(asc.float32)
        t.write(np.arange(32, dtype=np.float32))
        view = t[8:]
        que.free_tensor(t)
        for action in (t.read, view.read, lambda: t.get_value(0)):
            with pytest.raises(RuntimeMisuseError, match="freed"):
                action()
        with pytest.raises(RuntimeMisuseError, match="freed"):
            asc.duplicate(view, 1.0, 8)


def test_alloc_when_every_buffer_is_taken():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 2)
        pipe.init_buffer(que, 2, 64)
        que.alloc_tensor(asc.uint8), que.alloc_tensor(asc.uint8)
        before = queue_state(que)
        with pytest.raises(RuntimeMisuseError, match="all 2 buffers of the queue are allocated"):
            que.alloc_tensor(asc.uint8)
        assert queue_state(que) == before


def test_per_position_buffer_limit_follows_the_event_ids():
    """AllocTensor.md: at most 8 buffers of one TPosition allocated at once (4 on the training series)."""
    for chip, limit in (("A2", 8), ("910", 4)):
        with asc.Core(chip):
            pipe = asc.TPipe()
            queues = [asc.TQue(asc.TPosition.VECIN, 1) for _ in range(limit + 1)]
            for que in queues:
                pipe.init_buffer(que, 1, 32)
            held = [que.alloc_tensor(asc.uint8) for que in queues[:limit]]
            with pytest.raises(RuntimeMisuseError, match=f"at most {limit} queue buffers"):
                queues[limit].alloc_tensor(asc.uint8)
            assert queues[limit]._slots[0].state == "free"
            out = asc.TQue(asc.TPosition.VECOUT, 1)  # another position has its own budget
            pipe.init_buffer(out, 1, 32)
            out.alloc_tensor(asc.uint8)
            # Freeing a buffer gives its event back; a reset gives every one back.
            queues[0].free_tensor(held[0])
            queues[limit].alloc_tensor(asc.uint8)
            with pytest.raises(RuntimeMisuseError, match=f"at most {limit} queue buffers"):
                queues[0].alloc_tensor(asc.uint8)
            pipe.reset()
            queues = [asc.TQue(asc.TPosition.VECIN, 1) for _ in range(limit)]
            for que in queues:
                pipe.init_buffer(que, 1, 32)
                que.alloc_tensor(asc.uint8)


def test_at_most_64_buffers():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        pipe.init_buffer(asc.TQue(asc.TPosition.VECIN, 1), 60, 32)
        before = pipe_state(pipe)
        with pytest.raises(RuntimeMisuseError, match="at most 64"):
            pipe.init_buffer(asc.TQue(asc.TPosition.VECIN, 1), 5, 32)
        assert pipe_state(pipe) == before


def test_one_pipe_per_core_and_no_double_init():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        with pytest.raises(RuntimeMisuseError, match="already has a TPipe"):
            asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, 64)
        with pytest.raises(RuntimeMisuseError, match="already has memory"):
            pipe.init_buffer(que, 1, 64)
        pipe.destroy()
        assert asc.TPipe() is not pipe  # after destroy a new pipe may be created
    with asc.Core("A2"):
        asc.TPipe()  # another core has its own pipe


def test_free_while_enqueued_and_foreign_tensors():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        a, b = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(a, 1, 64)
        pipe.init_buffer(b, 1, 64)
        t = a.alloc_tensor(asc.float32)
        a.enque(t)
        with pytest.raises(RuntimeMisuseError, match="still in the queue"):
            a.free_tensor(t)
        with pytest.raises(RuntimeMisuseError, match="not allocated from this queue"):
            b.free_tensor(t)
        with pytest.raises(RuntimeMisuseError, match="not allocated from this queue"):
            b.enque(asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 16))


def test_reset_revokes_every_tensor_and_restarts_the_pool():
    with asc.Core("A2") as core:
        pipe = asc.TPipe()
        que, buf = asc.TQue(asc.TPosition.VECIN, 1), asc.TBuf()
        pipe.init_buffer(que, 1, 64)
        pipe.init_buffer(buf, 64)
        t, s = que.alloc_tensor(asc.float32), buf.get(asc.float32)
        pipe.reset()
        for tensor in (t, s):
            with pytest.raises(RuntimeMisuseError, match="freed"):
                tensor.read()
        with pytest.raises(RuntimeMisuseError, match="not initialised"):
            que.alloc_tensor(asc.float32)
        pipe.init_buffer(que, 1, 64)
        assert que.alloc_tensor(asc.float32).addr == 0
        pipe.destroy()
        assert core.sync_log[-1] == ("pipe_barrier", int(asc.PipeID.PIPE_ALL), 0)
        with pytest.raises(RuntimeMisuseError, match="destroyed"):
            pipe.init_buffer(asc.TQue(asc.TPosition.VECIN, 1), 1, 64)


def test_non_ub_positions_and_vector_core_products_are_unsupported():
    with pytest.raises(UnsupportedError, match="Unified Buffer"):
        asc.TQue(asc.TPosition.A1, 1)
    with asc.Core("310P-VEC"), pytest.raises(UnsupportedError, match="TPipe/TQue framework"):
        asc.TPipe()
