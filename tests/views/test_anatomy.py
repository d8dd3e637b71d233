"""Anatomy: a record split per repeat, DataBlock and lane; its bytes are exactly the record's."""

import numpy as np
import pytest

import npusim
from npusim import ascend as asc
from npusim.engine.trace import AccessRecord, ByteRange
from npusim.errors import UnsupportedError
from npusim.views.anatomy import anatomy, rule_for, subtract_ranges
from npusim.views.explain import explain, spans

from .helpers import traced

F16, VECIN, VECOUT = asc.float16, asc.TPosition.VECIN, asc.TPosition.VECOUT
ENTRIES = [e for e in asc.instructions()]


#: instructions of the element-wise families (and their C API aliases) whose records are not split per repeat, and
#: why: their plans place lanes in ways the one address formula does not describe (shown whole)
NOT_SPLIT = {
    "bilinear_interpolation": "gathers by offsets read from UB per call",
    "mull": "two destinations (the low and high halves of each product)",
    "create_vec_index": "writes an index sequence, not lanes of a strided source",
    "brcb": "broadcasts each source element to a whole DataBlock",
    "vector_padding": "pads rows of DataBlocks",
    "reduce_sum": "a whole-tensor reduction: one result (and its work tensor), not a result per repeat",
    "reduce_max": "as reduce_sum", "reduce_min": "as reduce_sum",
}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_every_registered_example_is_explained_with_exactly_its_records_bytes(entry):
    """Every example of every registered instruction, on its product: the anatomy's bytes are the record's, its
    table and picture are drawn without raising, and every record with a rule (element-wise families, Copy,
    select, compare, the per-repeat reductions, TransDataTo5HD) is split per repeat, none shown whole, but for
    :data:`NOT_SPLIT`."""
    chips = sorted(entry.products, key=lambda name: (name != "A2", name))  # the A2 first, if it has the instruction
    runs = [(example, chips) for example in entry.examples]
    runs += [(example, [product]) for product, examples in entry.examples_on.items() for example in examples]
    for example, where in runs:
        chip, records = _traced_where_it_runs(example, where)
        for record in records:
            explanation = npusim.explain(record, chip)
            parts = explanation.anatomy
            assert parts.ranges("read") == record.reads and parts.ranges("write") == record.writes, example
            assert str(explanation).startswith(record.instruction)
            assert explanation.svg().startswith("<svg")
            if record.instruction == entry.name and rule_for(record) is not None and \
                    _not_split(entry, record, example) is None:
                assert parts.decomposed, (example, parts.notes)


def _not_split(entry, record, example: str) -> str | None:
    """Why this element-wise record is shown whole (:data:`NOT_SPLIT`; a Copy under a counter-mode register, which
    the record does not hold; asc_copy's count form, an index move of one run), or None."""
    if (entry.alias_of or entry.name) in NOT_SPLIT:
        return NOT_SPLIT[entry.alias_of or entry.name]
    if entry.name == "copy" and "MaskMode.COUNTER" in example:
        return "the mask register's counter mode is not in the record"
    if (entry.alias_of or entry.name) == "copy" and "count" in record.params:
        return "asc_copy's count form moves one run by an index map (index_move), not per repeat"
    return None


def _traced_where_it_runs(example: str, chips: list[str]):
    """``(chip, records)`` of the example on the first of ``chips`` that has its form (an instruction the A2 lacks;
    an ``examples_on`` example: its product alone)."""
    for chip in chips:
        try:
            return chip, traced(lambda core, code=example: exec(code, {"asc": asc, "core": core, "np": np}), chip)
        except UnsupportedError as error:
            if error.rule.startswith("not modelled: L1"):  # asc_copy_ub2l1: listed, no memory to move to
                return chip, []
            if error.operand != "product" or chip == chips[-1]:
                raise
    raise AssertionError("no product")


def _tensors():
    return (asc.LocalTensor(F16, VECIN, 0, 256), asc.LocalTensor(F16, VECIN, 0x200, 256),
            asc.LocalTensor(F16, VECOUT, 0x400, 256))


def test_mask_form_rows_follow_the_address_formula():
    """add, half (E = 128, B = 16), mask 64, 2 repeats, repeat strides 8 (256 bytes): repeat r touches
    lanes 0-63 = the first 128 bytes at base + 256 r (docs/semantics.md §1.1, §1.3)."""
    def body(core):
        x, y, z = _tensors()
        asc.add(z, x, y, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))

    rows = explain(traced(body)[0]).rows()
    assert rows == [
        ("0", "dst", "write", "lanes 0-63", "lanes 64-127", "UB[0x400, 0x480)"),
        ("0", "src0", "read", "lanes 0-63", "lanes 64-127", "UB[0x0, 0x80)"),
        ("0", "src1", "read", "lanes 0-63", "lanes 64-127", "UB[0x200, 0x280)"),
        ("1", "dst", "write", "lanes 0-63", "lanes 64-127", "UB[0x500, 0x580)"),
        ("1", "src0", "read", "lanes 0-63", "lanes 64-127", "UB[0x100, 0x180)"),
        ("1", "src1", "read", "lanes 0-63", "lanes 64-127", "UB[0x300, 0x380)"),
    ]


def test_count_form_masks_the_tail_of_the_last_repeat():
    """count 200 of half: ceil(200/128) = 2 repeats, the second with lanes 0-71 (docs/semantics.md §1.4)."""
    def body(core):
        x, _, z = _tensors()
        asc.adds(z, x, 1.0, 200)

    parts = anatomy(traced(body)[0])
    dst = parts.operands[0]
    assert (parts.repeats, parts.lanes) == (2, 128)
    assert spans(np.flatnonzero(dst.active[1])) == "0-71"
    assert dst.repeat_ranges(1) == (ByteRange("UB", 0x500, 0x590),)


def test_a_64_bit_count_compare_ends_with_its_zero_tail():
    """The 950, int64, count 96 = 3 repeats of 32 lanes: 4 bitmask bytes each, and the last repeat's 8-byte store
    4 zero bytes more (docs/semantics.md §3.3)."""
    def body(core):
        x = asc.LocalTensor(asc.int64, VECIN, 0, 96)
        y = asc.LocalTensor(asc.int64, VECIN, 0x400, 96)
        z = asc.LocalTensor(asc.uint8, VECOUT, 0x800, 32)
        asc.compare(z, x, y, asc.CMPMODE.GE, 96)

    (record,) = traced(body, "950")
    parts = anatomy(record, "950")
    dst = next(o for o in parts.operands if o.name == "dst")
    assert [dst.repeat_ranges(r) for r in range(3)] == [
        (ByteRange("UB", 0x800, 0x804),), (ByteRange("UB", 0x804, 0x808),), (ByteRange("UB", 0x808, 0x810),)]
    assert parts.ranges("write") == record.writes == (ByteRange("UB", 0x800, 0x810),)
    assert any("4 zero bytes" in note for note in parts.notes)


def test_block_stride_and_bitwise_mask_place_lanes_in_their_datablocks():
    """dst block stride 2: lane j of half lies at (j // 16) * 64 + (j % 16) * 2; mask bits 0x5555 pick the even
    lanes 0-14 (docs/semantics.md §1.2, §1.3)."""
    def body(core):
        x, _, z = _tensors()
        asc.adds(z, x, 1.0, [0x5555, 0], 1, asc.UnaryRepeatParams(2, 1, 8, 8))

    parts = anatomy(traced(body)[0])
    dst = parts.operands[0]
    assert spans(np.flatnonzero(dst.active[0])) == "0-14 step 2"
    assert dst.repeat_ranges(0) == tuple(ByteRange("UB", 0x400 + 4 * k, 0x402 + 4 * k) for k in range(8))
    assert dst.locate(0x400 + 3 * 64 + 2 * 5) is None  # lane 53 is masked off
    assert dst.locate(0x404) == (0, 2)


def _record(name, params, reads=(), writes=()):
    return AccessRecord(0, name, "ascend", "V", tuple(reads), tuple(writes), (), (), "k.py:3", params)


def test_parameters_that_do_not_reproduce_the_record_are_shown_whole():
    """A mask form on a core in counter mode: the parameters alone give other lanes than ran."""
    params = {"dst": "LocalTensor(float16, VECOUT, addr=0x400, tile_size=256)",
              "src": "LocalTensor(float16, VECIN, addr=0x0, tile_size=256)", "scalar": 1.0, "mask": 64,
              "repeat_times": 2, "repeat_params": {"dst_blk_stride": 1, "src_blk_stride": 1, "dst_rep_stride": 8,
                                                   "src_rep_stride": 8}, "is_set_mask": True}
    record = _record("adds", params, [ByteRange("UB", 0, 128)], [ByteRange("UB", 0x400, 0x480)])
    parts = anatomy(record)
    assert not parts.decomposed and "ranges shown whole" in parts.notes[-1]
    assert parts.ranges("read") == record.reads and parts.ranges("write") == record.writes
    assert [o.name for o in parts.operands] == ["reads[0]", "writes[0]"]


def test_an_instruction_without_a_rule_is_shown_whole():
    record = _record("data_copy_pad", {}, [ByteRange("GM", 0, 64, "x")], [ByteRange("UB", 0, 64)])
    assert explain(record).rows() == [("0", "reads[0]", "read", "all bytes", "-", "GM:x[0x0, 0x40)"),
                                      ("0", "writes[0]", "write", "all bytes", "-", "UB[0x0, 0x40)")]


def test_spans_writes_runs_and_strided_runs():
    assert spans([]) == "-" and spans([4]) == "4" and spans([1, 2]) == "1, 2"
    assert spans([0, 1, 2, 5, 7, 9, 11, 12]) == "0-2, 5-11 step 2, 12"
    assert spans([*range(1, 64, 2), *range(64, 128)]) == "1-63 step 2, 64-127"


def test_subtract_ranges_keeps_what_is_outside():
    ranges = (ByteRange("UB", 0, 100), ByteRange("GM", 0, 10, "x"))
    assert subtract_ranges(ranges, (ByteRange("UB", 10, 20), ByteRange("UB", 90, 200))) == (
        ByteRange("GM", 0, 10, "x"), ByteRange("UB", 0, 10), ByteRange("UB", 20, 90))


def test_explain_is_public_and_rejects_what_is_not_a_record():
    import npusim

    with pytest.raises(TypeError, match="AccessRecord"):
        npusim.explain({"instruction": "add"})
    record = _record("data_copy_pad", {}, [], [ByteRange("UB", 0, 64)])
    assert "data_copy_pad  seq 0  block 0  pipe V  k.py:3" in str(npusim.explain(record))
