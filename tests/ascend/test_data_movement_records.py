"""Access records of the data-movement and sync instructions, from their registered examples.

Each example (``Instruction.examples``, one per call form) runs on a tracing core; its last
call's record must name the exact bytes, registers and pipe the documents give it (the
expected ranges are worked out here from the example's parameters, GMToUB非对齐数据搬运
(DataCopyPad).md, GM与UB高维切分数据搬运(DataCopy).md and GM与UB切片数据搬运(DataCopy).md),
and be *exact*: every byte the call changes lies in its writes, and randomising every byte
outside reads + writes leaves the written bytes as they were.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine import caches
from npusim.engine.registry import by_name
from npusim.engine.trace import ByteRange

GM = "GM workspace"  # the examples' GM: asc.gm_alloc


def gm(*runs, buffer=GM):
    return tuple(ByteRange("GM", a, b, buffer) for a, b in runs)


def ub(*runs):
    return tuple(ByteRange("UB", a, b) for a, b in runs)


#: (instruction, example index) -> (pipe, reads, writes, registers read, registers written)
EXPECTED = {
    ("data_copy", 0): ("MTE2", gm((128, 640)), ub((0, 512)), (), ()),
    ("data_copy", 1): ("MTE3", ub((0, 64), (96, 160), (192, 256), (288, 352)),
                       gm((64, 128), (224, 288), (384, 448), (544, 608)), (), ()),
    ("data_copy", 2): ("V", ub((0, 32), (96, 128), (192, 224)), ub((1024, 1120)), (), ()),
    # SliceInfo (GM与UB切片数据搬运(DataCopy).md): half, runs of 16 elements; src row pitch 32 + 16 elements,
    # start 5, rows 0 and 2 of 100; dst rows of 32 elements; the UB -> GM one at GM element 7 + 3
    ("data_copy", 3): ("MTE2", gm((10, 42), (74, 106), (410, 442), (474, 506)), ub((0, 128)), (), ()),
    ("data_copy", 4): ("MTE3", ub((0, 32), (64, 96)), gm((20, 52), (64, 96)), (), ()),
    # ND -> NZ: 8 rows of 2 pieces from GM byte 32, rows 80 bytes apart; NZ -> ND: 2 matrices x 3 rows x 2
    # column blocks of 16 halves, UB blocks 128 bytes and matrices 512 apart, GM rows 80 and matrices 256 apart
    ("data_copy", 5): ("MTE2", gm(*((32 + 80 * r, 96 + 80 * r) for r in range(8))), ub((0, 512)), (), ()),
    ("data_copy", 6): ("MTE3", ub((0, 96), (128, 224), (512, 608), (640, 736)),
                       gm((16, 80), (96, 160), (176, 240), (272, 336), (352, 416), (432, 496)), (), ()),
    ("data_copy_pad", 0): ("MTE2", gm((6, 46), (52, 92)), ub((0, 64), (96, 160)), (), ("PAD",)),
    ("data_copy_pad", 1): ("MTE3", ub((0, 22), (64, 86), (128, 150)), gm((10, 32), (36, 58), (62, 84)), (), ()),
    ("data_copy_pad", 2): ("MTE2", gm((0, 10), (12, 22)), ub((0, 64)), ("PAD",), ()),
    ("data_copy_pad", 3): ("MTE3", ub((0, 128)), gm((0, 64), (66, 130)), (), ()),
    ("set_loop_mode_para", 0): ("S", (), (), (), ("LOOP_OUTTOUB",)),
    ("set_loop_mode_para", 1): ("S", (), (), (), ("LOOP_UBTOOUT",)),
    ("reset_loop_mode_para", 0): ("S", (), (), (), ("LOOP_OUTTOUB",)),
    ("reset_loop_mode_para", 1): ("S", (), (), (), ("LOOP_UBTOOUT",)),
    ("nd_dma_dci", 0): ("MTE2", (), (), (), ()),
    ("set_pad_value", 0): ("S", (), (), (), ("PAD",)),
    ("set_pad_value", 1): ("S", (), (), (), ("PAD",)),
    ("set_flag", 0): ("MTE2", (), (), (), ()),
    ("wait_flag", 0): ("MTE3", (), (), (), ()),
    ("pipe_barrier", 0): ("V", (), (), (), ()),
}
NAMES = sorted({name for name, _ in EXPECTED})
#: examples of what only the 950 has; every other one runs on the A2
CHIP_950 = {("set_loop_mode_para", 0), ("set_loop_mode_para", 1), ("reset_loop_mode_para", 0),
            ("reset_loop_mode_para", 1), ("nd_dma_dci", 0)}


def test_every_form_has_an_example_with_an_expected_record():
    for name in NAMES:
        entry = by_name("ascend", name)
        assert len(entry.examples) >= len(entry.forms), name
        assert {(name, i) for i in range(len(entry.examples))} <= set(EXPECTED), name


def run_example(snippet: str, randomise=None, chip: str = "A2"):
    """Run the example's setup, optionally ``randomise(core, namespace)``, then its last call; return the
    call's record and the UB and GM (``x``, if any) bytes before and after it."""
    *setup, call = snippet.rstrip().splitlines()
    with asc.Core(chip, trace=True) as core:
        namespace = {"asc": asc, "np": np, "core": core}
        exec("\n".join(setup), namespace)  # noqa: S102 - the registry's own examples
        if randomise is not None:
            randomise(core, namespace)
        x = gm_bytes(namespace)
        before = core.ub.data.copy(), x.copy()
        del core.trace[:]
        exec(call, namespace)  # noqa: S102
        (record,) = core.trace
        return record, before, (core.ub.data.copy(), x.copy())


def chip_of(name: str, index: int) -> str:
    return "950" if (name, index) in CHIP_950 else "A2"


def gm_bytes(namespace) -> np.ndarray:
    """The bytes of the example's GM allocation ``x`` (none if it has none)."""
    x = namespace.get("x")
    return np.zeros(0, np.uint8) if x is None else x.buffer.memory.data


def mask_of(ranges, space: str, size: int) -> np.ndarray:
    inside = np.zeros(size, bool)
    for r in ranges:
        if r.space == space:
            inside[r.start : r.stop] = True
    return inside


@pytest.mark.parametrize(("name", "index"), sorted(EXPECTED))
def test_the_record_is_the_documented_one(name, index):
    record, _before, _after = run_example(by_name("ascend", name).examples[index], chip=chip_of(name, index))
    assert record.instruction == name
    assert (record.pipe, record.reads, record.writes, record.registers_read, record.registers_written) == \
        EXPECTED[(name, index)]


@pytest.mark.parametrize(("name", "index"), sorted(EXPECTED))
def test_the_record_is_exact(name, index):
    snippet = by_name("ascend", name).examples[index]
    chip = chip_of(name, index)
    record, (ub_before, gm_before), (ub_after, gm_after) = run_example(snippet, chip=chip)
    spaces = (("UB", ub_before, ub_after), ("GM", gm_before, gm_after))
    for space, old, new in spaces:  # every changed byte is a written one
        changed = np.flatnonzero(old != new)
        assert mask_of(record.writes, space, old.size)[changed].all(), (space, changed[:8])

    rng = np.random.default_rng(7)

    def randomise(core, namespace):
        for space, memory in (("UB", core.ub.data), ("GM", gm_bytes(namespace))):
            outside = ~(mask_of(record.reads, space, memory.size) | mask_of(record.writes, space, memory.size))
            memory[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)

    again, _, (ub_again, gm_again) = run_example(snippet, randomise, chip)
    assert again.reads == record.reads and again.writes == record.writes
    for space, first, second in (("UB", ub_after, ub_again), ("GM", gm_after, gm_again)):
        written = mask_of(record.writes, space, first.size)
        assert np.array_equal(first[written], second[written]), space


def test_sync_records_keep_their_event_and_id_and_the_sync_log_is_unchanged():
    with asc.Core("A2", trace=True) as core:
        asc.set_flag(asc.HardEvent.MTE2_V, 3)
        asc.wait_flag(asc.HardEvent.MTE2_V, 3)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        assert [(r.instruction, r.pipe, r.params) for r in core.trace] == [
            ("set_flag", "MTE2", {"event": "MTE2_V", "event_id": 3}),
            ("wait_flag", "V", {"event": "MTE2_V", "event_id": 3}),
            ("pipe_barrier", "ALL", {"pipe": "PIPE_ALL"}),
        ]
        assert core.sync_log == [("set_flag", int(asc.HardEvent.MTE2_V), 3),
                                 ("wait_flag", int(asc.HardEvent.MTE2_V), 3),
                                 ("pipe_barrier", int(asc.PipeID.PIPE_ALL), 0)]


def test_a_moving_gm_offset_reuses_one_binding_and_records_each_calls_bytes():
    x = np.arange(1024, dtype=np.float32)
    with asc.Core("A2", trace=True) as core:
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        tile = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0x100, 64)
        for start in (0, 64, 320):
            asc.data_copy(tile, g[start:], 64)
            assert np.array_equal(tile.read(), x[start : start + 64])
        assert len(core.bindings) == caches.enabled()
        assert [r.reads for r in core.trace] == [gm((4 * s, 4 * s + 256), buffer="set_global_buffer buffer")
                                               for s in (0, 64, 320)]
        assert {r.writes for r in core.trace} == {ub((0x100, 0x200))}


def test_signed_zero_padding_values_keep_their_bits():
    """0.0 == -0.0, so a key by value would let the second call pad with the first one's bits."""
    x = np.ones(16, np.float16)
    with asc.Core("A2"):
        g = asc.GlobalTensor()
        g.set_global_buffer(x)
        tile = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 16)
        rows = []
        for zero in (0.0, -0.0):
            asc.data_copy_pad(tile, g, asc.DataCopyExtParams(1, 8, 0, 0),
                              asc.DataCopyPadExtParams(asc.float16, True, 1, 0, zero))
            rows.append(tile.read().view(np.uint16)[:1].tolist())
        for zero in (0.0, -0.0):
            asc.set_pad_value(zero)
            asc.data_copy_pad(tile, g, asc.DataCopyExtParams(1, 8, 0, 0),
                              asc.DataCopyPadExtParams(asc.float16, False, 1, 0))
            rows.append(tile.read().view(np.uint16)[:1].tolist())
    assert rows == [[0x0000], [0x8000], [0x0000], [0x8000]]
