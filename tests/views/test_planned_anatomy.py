"""Select, compare and TransDataTo5HD split per repeat by their own plans (views/replan.py).

Every expected value is written out here from the documents: Select.md and docs/semantics.md
§2.1-2.3 (selMask consumed per repeat or from CMPMASK, the API scratch), §3.1 (E / 8 bitmask
bytes per repeat), §4.2-4.3 (TransDataTo5HD's mapping and repeat offsets).
"""

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.trace import ByteRange
from npusim.views.anatomy import anatomy, destination_sources
from npusim.views.explain import explain, spans

from .helpers import traced

F32, F16, U8 = asc.float32, asc.float16, asc.uint8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT


def ub(start, stop):
    return ByteRange("UB", start, stop)


def _only(body, name):
    (record,) = [r for r in traced(body) if r.instruction == name]
    return record


def _operand(parts, name):
    return next(o for o in parts.operands if o.name == name)


@pytest.mark.parametrize("mode", [1, 2])
def test_select_mask_32_consumes_the_bits_of_its_active_lanes_in_each_repeat(mode):
    """float32 (E = 64), mask 32, 3 repeats, modes 1/2: lane j of repeat r uses selMask bit r*64 + j, so repeat r
    reads selMask bytes 8r .. 8r+3 (lanes 0-31); lanes 32-63 are masked off in dst and sources (§2.1)."""
    def body(core):
        src0 = asc.LocalTensor(F32, VECIN, 0, 192)
        src1 = asc.LocalTensor(F32, VECIN, 0x400, 192)
        sel = asc.LocalTensor(U8, VECIN, 0x800, 32)
        dst = asc.LocalTensor(F32, VECOUT, 0xC00, 192)
        asc.select(dst, sel, src0, 2.0 if mode == 1 else src1, asc.SelMode(mode), 32, 3, asc.BinaryRepeatParams())

    parts = anatomy(_only(body, "select"))
    assert parts.decomposed
    sel = _operand(parts, "sel_mask")
    assert [sel.repeat_ranges(r) for r in range(3)] == [(ub(0x800 + 8 * r, 0x804 + 8 * r),) for r in range(3)]
    dst = _operand(parts, "dst")
    assert [spans(np.flatnonzero(~dst.active[r])) for r in range(3)] == ["32-63"] * 3
    assert dst.repeat_ranges(2) == (ub(0xC00 + 512, 0xC00 + 512 + 128),)
    assert parts.side_writes == (ub(184 * 1024, 184 * 1024 + 128),)  # 32 copies of 4 bytes (§2.3)


def test_select_mode_0_loads_cmpmask_from_the_first_16_selmask_bytes():
    """Mode 0, count 256 of half (2 repeats): CMPMASK = selMask bytes 0-15, the same bits every repeat; no
    scratch (§2.2, §2.3)."""
    def body(core):
        src0 = asc.LocalTensor(F16, VECIN, 0, 256)
        src1 = asc.LocalTensor(F16, VECIN, 0x200, 256)
        sel = asc.LocalTensor(U8, VECIN, 0x400, 32)
        dst = asc.LocalTensor(F16, VECOUT, 0x600, 256)
        asc.select(dst, sel, src0, src1, asc.SelMode.VSEL_CMPMASK_SPR, 256)

    explanation = explain(_only(body, "select"))
    sel = _operand(explanation.anatomy, "sel_mask")
    assert [sel.repeat_ranges(r) for r in range(2)] == [(ub(0x400, 0x410),)] * 2
    assert explanation.anatomy.side_writes == ()
    assert "CMPMASK bit j" in explanation.table()


def test_lanes_from_the_vector_mask_register_are_the_ones_the_record_shows():
    """asc_select's repeat form runs under the mask register: set_vector_mask(0, 0xFFFF) keeps lanes 0-15 of half
    active in each of the 2 repeats (docs/semantics.md §1.3, §2.6)."""
    def body(core):
        src0 = asc.LocalTensor(F16, VECIN, 0, 256)
        src1 = asc.LocalTensor(F16, VECIN, 0x200, 256)
        dst = asc.LocalTensor(F16, VECOUT, 0x400, 256)
        asc.asc_set_cmp_mask(asc.LocalTensor(U8, VECIN, 0x800, 16))
        asc.set_vector_mask(0, 0xFFFF)
        asc.asc_select(dst, src0, src1, 2, 1, 1, 1, 8, 8, 8)

    parts = anatomy(_only(body, "asc_select"))
    assert parts.decomposed and "vector mask register" in parts.notes[-1]
    dst = _operand(parts, "dst")
    assert [spans(np.flatnonzero(dst.active[r])) for r in range(2)] == ["0-15"] * 2
    assert [dst.repeat_ranges(r) for r in range(2)] == [(ub(0x400, 0x420),), (ub(0x500, 0x520),)]


def test_compare_count_form_writes_e_over_8_bytes_per_repeat():
    """compare, half, count 384: 3 repeats, each writes 16 bytes at dst + 16 r (§3.1, §3.3)."""
    def body(core):
        src0 = asc.LocalTensor(F16, VECIN, 0, 384)
        src1 = asc.LocalTensor(F16, VECIN, 0x400, 384)
        dst = asc.LocalTensor(U8, VECOUT, 0x800, 64)
        asc.compare(dst, src0, src1, asc.CMPMODE.LT, 384)

    parts = anatomy(_only(body, "compare"))
    dst = _operand(parts, "dst")
    assert parts.decomposed and [dst.repeat_ranges(r) for r in range(3)] == [
        (ub(0x800 + 16 * r, 0x810 + 16 * r),) for r in range(3)]
    assert _operand(parts, "src1").repeat_ranges(1) == (ub(0x500, 0x600),)


def test_compare_to_cmpmask_reads_only_its_active_lanes():
    """compare to the register, half, mask 100: one repeat reading lanes 0-99 of both sources (§3.5)."""
    def body(core):
        src0 = asc.LocalTensor(F16, VECIN, 0, 256)
        src1 = asc.LocalTensor(F16, VECIN, 0x200, 256)
        asc.set_cmp_mask(asc.LocalTensor(U8, VECIN, 0x400, 16))  # the bits the mask leaves off keep this value
        asc.compare(src0, src1, asc.CMPMODE.EQ, 100, asc.BinaryRepeatParams())

    explanation = explain(_only(body, "compare"))
    src0 = _operand(explanation.anatomy, "src0")
    assert explanation.anatomy.decomposed and src0.repeat_ranges(0) == (ub(0, 200),)
    assert "CMPMASK bits 0..127" in explanation.table()


# ------------------------------------------------------------------ TransDataTo5HD: which rows go where
def _model(itemsize, dst_high=False, src_high=False):
    """docs/semantics.md §4.2 per destination entry: the (source entry, element of its block) of each element."""
    if itemsize == 4:  # D[2e + h][k] = S[8h + k][e]
        return {2 * e + h: [(8 * h + k, e) for k in range(8)] for e in range(8) for h in range(2)}
    shift = 16 * src_high if itemsize == 1 else 0  # b8: D[e][k + 16 dh] = S[k][e + 16 sh]
    return {e: [(k, e + shift) for k in range(16)] for e in range(16)}


def _lists(dst_base: int, src_step: int, params: str, dtype: str) -> str:
    return (f"asc.trans_data_to_5hd([{dst_base} + 32 * i for i in range(16)], [{src_step} * i for i in range(16)], "
            f"asc.TransDataTo5HDParams({params}), dtype=asc.{dtype})")


TRANSPOSES = [
    ("int8, high halves", 1, True, True, 1, _lists(0x1000, 32, "True, True, 1, 0, 0", "int8")),
    ("int8, low halves", 1, False, False, 1, _lists(0x1000, 32, "False, False, 1, 0, 0", "int8")),
    ("half", 2, False, False, 1, _lists(0x1000, 32, "", "half")),
    ("float32, 2 repeats", 4, False, False, 2, _lists(0x4000, 0x100, "False, False, 2, 16, 1", "float32")),
    ("C API b8, 2 repeats", 1, True, False, 2,
     "asc.asc_transto5hd_b8([0x4000 + 32 * i for i in range(16)], [0x200 * i for i in range(16)], 2, 16, 1, "
     "True, False)"),
]


@pytest.mark.parametrize(("itemsize", "dst_high", "src_high", "repeats", "code"),
                         [t[1:] for t in TRANSPOSES], ids=[t[0] for t in TRANSPOSES])
def test_transdata_destination_entries_take_the_documents_source_elements(itemsize, dst_high, src_high, repeats,
                                                                          code):
    record = traced(lambda core: exec(code, {"asc": asc}))[-1]
    parts = anatomy(record)
    assert parts.decomposed and parts.repeats == repeats
    model = _model(itemsize, dst_high, src_high)
    assert destination_sources(parts) == [(r, e, model[e]) for r in range(repeats) for e in range(16)]


def test_transdata_repeat_offsets_and_halves_place_each_list_entry():
    """C API b8, dst stride 16 and src stride 1 over 2 repeats: entry i of repeat r reads src[i] + 32 r (low half)
    and writes dst[e] + 512 r + 16 (high half), 16 bytes each (§4.2, §4.3)."""
    record = traced(lambda core: exec(TRANSPOSES[-1][-1], {"asc": asc}))[-1]
    parts = anatomy(record)
    src, dst = _operand(parts, "src"), _operand(parts, "dst")
    assert (src.unit_bytes, dst.unit_bytes) == (16, 16)
    assert src.addresses.tolist() == [[0x200 * i + 32 * r for i in range(16)] for r in range(2)]
    assert dst.addresses.tolist() == [[0x4000 + 32 * e + 512 * r + 16 for e in range(16)] for r in range(2)]
    assert "high 16 bytes" in dst.note and "low 16 bytes" in src.note
    table = explain(record).table()
    assert "repeat 1  dst entry 3  <- element 3 of src entries 0-15" in table


def test_transdata_address_tensors_attribute_tables_and_packed_entries():
    """The LocalTensor<uint64_t> form reads both 16-entry tables (128 bytes), rewrites entries 0-3 of each (32
    bytes) and moves 16 blocks; the list order is UB data, so blocks are in address order (§4.1)."""
    code = ("dst_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x3000, 16)\n"
            "src_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x3080, 16)\n"
            "dst_addrs.write([0x1000 + 32 * (15 - i) for i in range(16)])\n"
            "src_addrs.write([64 * i for i in range(16)])\n"
            "asc.trans_data_to_5hd(dst_addrs, src_addrs, asc.TransDataTo5HDParams(), dtype=asc.half)")
    parts = anatomy(traced(lambda core: exec(code, {"asc": asc}))[-1])
    assert parts.decomposed
    assert _operand(parts, "src (address table)").repeat_ranges() == (ub(0x3080, 0x3100),)
    assert _operand(parts, "dst entries 0-3").repeat_ranges() == (ub(0x3000, 0x3020),)
    assert _operand(parts, "src blocks").addresses.tolist() == [[64 * i for i in range(16)]]
    assert _operand(parts, "dst blocks").addresses.tolist() == [[0x1000 + 32 * e for e in range(16)]]


def test_explaining_inside_a_collecting_run_adds_no_core_to_its_trace():
    """The scratch core a record is planned again on is not one of the script's cores (npusim run --trace)."""
    from npusim.engine.trace import collecting

    record = traced(lambda core: exec(TRANSPOSES[2][-1], {"asc": asc}))[-1]
    with collecting() as collector:
        assert anatomy(record).decomposed
    assert collector.cores == []
