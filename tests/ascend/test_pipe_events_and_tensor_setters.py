"""TPipe re-initialised after destroy, its event ids, get_tpipe_ptr; LocalTensor's pyasc setters."""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim.ascend.runtime import get_tpipe_ptr
from npusim.errors import ParameterRangeError, RuntimeMisuseError


def test_a_destroyed_pipe_is_usable_again_after_init_and_is_the_core_pipe():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, 64)
        pipe.destroy()
        with pytest.raises(RuntimeMisuseError, match="no live TPipe"):
            get_tpipe_ptr()
        with pytest.raises(RuntimeMisuseError, match="destroyed"):
            pipe.init_buffer(que, 1, 64)
        pipe.init()
        assert get_tpipe_ptr() is pipe
        pipe.init_buffer(que, 1, 64)
        assert que.alloc_tensor(asc.float32).addr == 0
        pipe.init()  # a live pipe: nothing changes
        assert pipe.next_addr == 64


def test_event_ids_are_handed_out_lowest_first_and_fetch_does_not_take_one():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        event = asc.HardEvent.MTE2_V
        assert [pipe.alloc_event_id(event=event) for _ in range(3)] == [0, 1, 2]
        pipe.release_event_id(id=1, event=event)
        assert pipe.fetch_event_id(event) == 1 and pipe.fetch_event_id(event) == 1
        assert pipe.alloc_event_id(event) == 1
        assert pipe.alloc_event_id(asc.HardEvent.V_MTE3) == 0  # ids are per event
        for _ in range(5):
            pipe.alloc_event_id(event)
        with pytest.raises(RuntimeMisuseError) as caught:
            pipe.alloc_event_id(event)
        assert "8 ids per event" in caught.value.rule
        with pytest.raises(RuntimeMisuseError, match="not allocated"):
            pipe.release_event_id(0, asc.HardEvent.S_V)
        with pytest.raises(TypeError):
            pipe.alloc_event_id("MTE2_V")


def test_tensor_setters():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECCALC, 1)
        pipe.init_buffer(que, 1, 256)
        t = que.alloc_tensor(asc.int32)
        assert t.get_user_tag() == 0
        t.set_user_tag(13)
        assert t.get_user_tag() == 13
        t.set_buffer_len(512)  # longer than the 256-byte buffer: allowed until an instruction touches it
        assert t.get_size() == 128
        t.set_size(16)
        assert (t.get_size(), t.get_length()) == (16, 64)
        view = t.reinterpret_cast(asc.float16)
        view.set_addr_with_offset(t, 16)  # 16 int32 elements = 64 bytes on
        assert view.addr == t.addr + 64 and view.lease is t.lease
        asc.duplicate(t, 0, 16)
        with pytest.raises(ParameterRangeError) as caught:
            view.set_addr_with_offset(t, 17)  # past src's 16 elements
        assert caught.value.allowed == "[0, 16]" and view.addr == t.addr + 64
        que.free_tensor(t)
        with pytest.raises(RuntimeMisuseError):
            view.get_value(0)
