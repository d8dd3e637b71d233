"""Sophgo records lane by lane: LOCAL bytes per lane and in-lane offset, padding left blank.

Seed example: ``tpu_bdc_greater_select`` with a VECTOR operand, fp32, shape (1, 70, 2, 3), every
operand starting at lane 5 of a BM1684X (64 lanes, LOCAL_MEM_SIZE 0x40000).  The aligned layout
(docs/semantics.md §7.3) puts channel c in lane (5 + c) % 64, at in-lane offset 0 for c < 59 and
one channel stride further (h * w = 6 floats = 24 bytes, rounded up to the 64-byte EU: 0x40) for
the 11 channels that wrap round to lanes 0-10; the VECTOR operand reads one element per lane.
"""

from npusim.engine.trace import AccessRecord, ByteRange, merge_ranges
from npusim.views.explain import LaneExplanation, explain

LMS, LANES = 0x40000, 64
SRC, VEC, DST = 0x0, 0x1000, 0x8000


def _aligned(base: int, channels: int = 70, first_lane: int = 5, row: int = 24, stride: int = 0x40):
    ranges = []
    for c in range(channels):
        lane, wrap = (first_lane + c) % LANES, (first_lane + c) // LANES
        start = lane * LMS + base + wrap * stride
        ranges.append(("LOCAL", start, start + row))
    return ranges


def _record():
    vector = [("LOCAL", lane * LMS + VEC, lane * LMS + VEC + 4) for lane in range(LANES)]
    return AccessRecord(0, "tpu_bdc_greater_select", "sophgo", "BDC", merge_ranges(_aligned(SRC) + vector),
                        merge_ranges(_aligned(DST)), (), (), "k.py:1",
                        {"dst_addr": 5 * LMS + DST, "src1": {"type": "VECTOR", "addr": 5 * LMS + VEC}})


def test_a_record_whose_call_cannot_be_planned_again_is_shown_per_lane_unattributed():
    record = _record()  # its parameters are too few to plan the call
    explanation = explain(record, "BM1684X")
    assert isinstance(explanation, LaneExplanation)
    view = explanation.view
    groups = [(g.role, g.lanes, g.offsets) for g in view.groups]
    assert groups == [
        ("read", tuple(range(0, 5)), ((0x40, 0x58), (VEC, VEC + 4))),
        ("read", tuple(range(5, 11)), ((0x0, 0x18), (0x40, 0x58), (VEC, VEC + 4))),
        ("read", tuple(range(11, 64)), ((0x0, 0x18), (VEC, VEC + 4))),
        ("write", tuple(range(0, 5)), ((DST + 0x40, DST + 0x58),)),
        ("write", tuple(range(5, 11)), ((DST, DST + 0x18), (DST + 0x40, DST + 0x58))),
        ("write", tuple(range(11, 64)), ((DST, DST + 0x18),)),
    ]
    assert view.ranges("read") == record.reads and view.ranges("write") == record.writes
    table = str(explanation)
    assert "write  lanes 11-63: [0x8000, 0x8018)" in table
    svg = explanation.svg()
    assert svg.count('class="bytes"') == (5 + 6 * 2 + 53) * 2 + 64  # written pieces, read pieces, vector


def test_global_ranges_are_listed_as_they_are():
    record = AccessRecord(0, "tpu_gdma_cpy_S2L", "sophgo", "GDMA", (ByteRange("GLOBAL", 0x100, 0x200),),
                          (ByteRange("LOCAL", 3 * LMS, 3 * LMS + 0x100),), (), (), "k.py:1", {})
    explanation = explain(record, "BM1684X")
    assert explanation.view.ranges("read") == record.reads
    assert "read   GLOBAL[0x100, 0x200)" in str(explanation)


def _real_record():
    from npusim import sophgo as tpu

    with tpu.Core("BM1684X", trace=True, uninit="ignore") as core:
        t = tpu.variable_t(type=tpu.TENSOR, addr=5 * LMS + SRC)
        v = tpu.variable_t(type=tpu.VECTOR, addr=5 * LMS + VEC)
        s = tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=1))
        tpu.tpu_bdc_greater_select(5 * LMS + DST, t, v, s, s, tpu.dim4(1, 70, 2, 3), tpu.DT_FP32, tpu.DT_FP32)
    (record,) = core.trace
    return record


def test_the_real_select_record_matches_the_layout():
    record = _real_record()
    assert (record.reads, record.writes) == (_record().reads, _record().writes)


def test_the_real_select_is_attributed_to_its_operands_with_their_padding():
    """src0 and dst (TENSOR, aligned): 24 bytes of each 0x40-byte channel row hold elements, [0x18, 0x40) of each
    row is padding (§7.3); the wrapped channels' rows sit one channel stride further in lanes 0-10.  src1
    (VECTOR): one 4-byte element per lane at its own offset, no padding (§8.2)."""
    explanation = explain(_real_record(), "BM1684X")
    groups = [(g.operand, g.kind, g.role, g.lanes, g.offsets, g.padding) for g in explanation.view.groups]
    row, pad, wrapped_pad = (0x0, 0x18), (0x18, 0x40), (0x58, 0x80)
    assert groups == [
        ("dst", "TENSOR", "write", tuple(range(0, 5)), ((DST + 0x40, DST + 0x58),), ((DST + 0x58, DST + 0x80),)),
        ("dst", "TENSOR", "write", tuple(range(5, 11)), ((DST, DST + 0x18), (DST + 0x40, DST + 0x58)),
         ((DST + 0x18, DST + 0x40), (DST + 0x58, DST + 0x80))),
        ("dst", "TENSOR", "write", tuple(range(11, 64)), ((DST, DST + 0x18),), ((DST + 0x18, DST + 0x40),)),
        ("src0", "TENSOR", "read", tuple(range(0, 5)), ((0x40, 0x58),), (wrapped_pad,)),
        ("src0", "TENSOR", "read", tuple(range(5, 11)), (row, (0x40, 0x58)), (pad, wrapped_pad)),
        ("src0", "TENSOR", "read", tuple(range(11, 64)), (row,), (pad,)),
        ("src1", "VECTOR", "read", tuple(range(64)), ((VEC, VEC + 4),), ()),
    ]
    assert "read   src1 (VECTOR)  lanes 0-63: [0x1000, 0x1004)" in str(explanation)
    svg = explanation.svg()
    assert svg.count('class="bytes"') == 70 + 70 + 64  # one piece per channel row, one per lane for the vector
    assert svg.count('class="padding"') == 70 + 70
    assert svg.count('data-operand="src0"') == 3
