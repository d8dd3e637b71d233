"""The happens-before model of src/npusim/ascend/races.py on hand-made access records (docs/semantics.md §11).

Each case is a short program: calls on pipes with the bytes they touch, and the synchronisation
between them; the expected races follow from §11 by hand, not from the model.
"""

from __future__ import annotations

import pytest

from npusim.ascend.races import PipeModel, event_pipes
from npusim.ascend.types import HardEvent, PipeID
from npusim.engine.trace import AccessRecord, ByteRange
from npusim.errors import ConstraintError, SyncError


def call(seq: int, name: str, pipe: str, reads=(), writes=(), line: int = 0) -> AccessRecord:
    return AccessRecord(seq, name, "ascend", pipe, tuple(ByteRange("UB", a, b) for a, b in reads),
                        tuple(ByteRange("UB", a, b) for a, b in writes), (), (), f"k.py:{line or seq}", {})


def test_event_names_give_their_pipes():
    assert event_pipes(HardEvent.MTE2_V) == ("MTE2", "V")
    assert event_pipes(HardEvent.V_MTE3) == ("V", "MTE3")


def test_read_after_write_without_a_flag_is_a_race_naming_both_calls_and_the_event():
    model = PipeModel()
    assert model.access(call(0, "data_copy", "MTE2", writes=[(0, 512)], line=41)) == []
    races = model.access(call(1, "add", "V", reads=[(256, 1024)], writes=[(2048, 2560)], line=47))
    assert len(races) == 1
    race = races[0]
    assert (race.kind, race.first.instruction, race.second.instruction) == ("read after write", "data_copy", "add")
    assert race.where == ByteRange("UB", 256, 512)
    assert race.event is HardEvent.MTE2_V
    assert "missing set_flag/wait_flag(MTE2_V) between data_copy at k.py:41 and add at k.py:47" in race.message()


def test_the_flag_pair_orders_them():
    model = PipeModel()
    model.access(call(0, "data_copy", "MTE2", writes=[(0, 512)]))
    model.set_flag(HardEvent.MTE2_V, 0)
    model.wait_flag(HardEvent.MTE2_V, 0)
    assert model.access(call(1, "add", "V", reads=[(0, 512)], writes=[(1024, 1536)])) == []


def test_a_flag_set_before_the_write_does_not_order_it():
    model = PipeModel()
    model.set_flag(HardEvent.MTE2_V, 0)
    model.access(call(0, "data_copy", "MTE2", writes=[(0, 512)]))
    model.wait_flag(HardEvent.MTE2_V, 0)
    assert [r.kind for r in model.access(call(1, "add", "V", reads=[(0, 32)]))] == ["read after write"]


def test_the_wrong_event_or_id_does_not_order_them():
    for set_event, wait_event, set_id, wait_id in ((HardEvent.MTE2_V, HardEvent.MTE2_V, 0, 1),
                                                   (HardEvent.MTE3_V, HardEvent.MTE3_V, 0, 0)):
        model = PipeModel()
        model.access(call(0, "data_copy", "MTE2", writes=[(0, 64)]))
        model.set_flag(set_event, set_id)
        if (wait_event, wait_id) == (set_event, set_id):
            model.wait_flag(wait_event, wait_id)
        assert model.access(call(1, "add", "V", reads=[(0, 64)])), (set_event, set_id, wait_id)


def test_write_after_read_reusing_a_buffer():
    """MTE3 stores a tile while MTE2 loads the next one into the same UB bytes (WAR)."""
    model = PipeModel()
    model.access(call(0, "data_copy", "MTE3", reads=[(0, 512)]))
    races = model.access(call(1, "data_copy", "MTE2", writes=[(0, 512)]))
    assert [(r.kind, r.event) for r in races] == [("write after read", HardEvent.MTE3_MTE2)]
    clean = PipeModel()
    clean.access(call(0, "data_copy", "MTE3", reads=[(0, 512)]))
    clean.set_flag(HardEvent.MTE3_MTE2, 0)
    clean.wait_flag(HardEvent.MTE3_MTE2, 0)
    assert clean.access(call(1, "data_copy", "MTE2", writes=[(0, 512)])) == []


def test_write_after_write_and_transitive_order():
    model = PipeModel()
    model.access(call(0, "data_copy", "MTE2", writes=[(0, 64)]))
    assert [r.kind for r in model.access(call(1, "duplicate", "V", writes=[(32, 96)]))] == ["write after write"]
    # MTE2 -> V -> MTE3 through two flag pairs orders MTE2's write before MTE3's read
    chain = PipeModel()
    chain.access(call(0, "data_copy", "MTE2", writes=[(0, 64)]))
    chain.set_flag(HardEvent.MTE2_V, 0)
    chain.wait_flag(HardEvent.MTE2_V, 0)
    chain.access(call(1, "add", "V", reads=[(0, 64)], writes=[(64, 128)]))
    chain.set_flag(HardEvent.V_MTE3, 0)
    chain.wait_flag(HardEvent.V_MTE3, 0)
    assert chain.access(call(2, "data_copy", "MTE3", reads=[(0, 128)])) == []


def test_same_pipe_and_read_read_never_race():
    model = PipeModel()
    model.access(call(0, "add", "V", writes=[(0, 64)]))
    assert model.access(call(1, "mul", "V", reads=[(0, 64)], writes=[(0, 64)])) == []
    model.access(call(2, "data_copy", "MTE3", reads=[(128, 192)]))
    assert model.access(call(3, "add", "V", reads=[(128, 192)])) == []


def test_pipe_barrier_all_orders_everything_and_one_pipe_orders_nothing_more():
    model = PipeModel()
    model.access(call(0, "data_copy", "MTE2", writes=[(0, 64)]))
    model.barrier(PipeID.PIPE_V)
    assert model.access(call(1, "add", "V", reads=[(0, 64)]))
    model = PipeModel()
    model.access(call(0, "data_copy", "MTE2", writes=[(0, 64)]))
    model.barrier(PipeID.PIPE_ALL)
    assert model.access(call(1, "add", "V", reads=[(0, 64)])) == []


def test_a_wait_with_no_set_and_an_event_id_out_of_range_are_sync_errors():
    model = PipeModel()
    with pytest.raises(SyncError, match="no matching set_flag") as caught:
        model.wait_flag(HardEvent.V_MTE3, 2)
    assert isinstance(caught.value, ConstraintError)
    assert (caught.value.instruction, caught.value.operand) == ("wait_flag", "event")
    with pytest.raises(SyncError, match="0 .. 7") as caught:
        model.set_flag(HardEvent.MTE2_V, 8)
    assert caught.value.operand == "event_id" and caught.value.value == 8
    model.set_flag(HardEvent.MTE2_V, 7)
    assert [(e, i) for e, i, _ in model.flags_left_set()] == [(HardEvent.MTE2_V, 7)]
    model.wait_flag(HardEvent.MTE2_V, 7)
    assert model.flags_left_set() == []


def test_one_race_per_earlier_call_with_its_own_bytes():
    model = PipeModel()
    model.access(call(0, "data_copy", "MTE2", writes=[(0, 32)]))
    model.access(call(1, "data_copy", "MTE2", writes=[(64, 96)]))
    races = model.access(call(2, "add", "V", reads=[(0, 128)]))
    assert [(r.first.seq, r.where.start, r.where.stop) for r in races] == [(0, 0, 32), (1, 64, 96)]


def test_gm_ranges_are_kept_per_buffer():
    model = PipeModel()
    write = AccessRecord(0, "data_copy", "ascend", "MTE3", (), (ByteRange("GM", 0, 64, "z"),), (), (), "k.py:1", {})
    read = AccessRecord(1, "data_copy", "ascend", "MTE2", (ByteRange("GM", 0, 64, "x"),), (), (), (), "k.py:2", {})
    model.access(write)
    assert model.access(read) == []
    again = AccessRecord(2, "data_copy", "ascend", "MTE2", (ByteRange("GM", 32, 64, "z"),), (), (), (), "k.py:3", {})
    assert [r.where for r in model.access(again)] == [ByteRange("GM", 32, 64, "z")]
