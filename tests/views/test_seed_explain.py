"""The seed documents' examples explained: per-repeat ranges taken from the documents.

Each example runs on a traced core; its real access record is explained, and the per-repeat
ranges are compared with the ranges the documents give (Select.md and docs/semantics.md
§2.1 for selMask, §3.1 for the compare bitmask, §4 for TransDataTo5HD), written out here.
"""

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.trace import ByteRange, merge_ranges
from npusim.views.anatomy import anatomy
from npusim.views.explain import explain

from .helpers import traced

SEEDS = json.loads(resources.files("npusim.data").joinpath("seed_examples.json").read_text())
SRC0, SRC1, SEL, DST = 0x0000, 0x0400, 0x0800, 0x1000
SCRATCH = 184 * 1024  # A2's API scratch (TMP_UB_OFFSET, docs/semantics.md §1.7)


def ub(start, stop):
    return ByteRange("UB", start, stop)


# ------------------------------------------------------------------ Select, seed 003 (float32, 256 elements)
def _select_expected(mode: int) -> dict[str, list[tuple]]:
    """Per repeat r (E = 64): dst, src0, src1 256 bytes at base + 256 r; selMask 8 bytes at sel + 8 r
    (modes 1, 2) or its first 16 bytes every repeat (mode 0, CMPMASK)."""
    expected = {"dst": [(ub(DST + 256 * r, DST + 256 * r + 256),) for r in range(4)],
                "src0": [(ub(SRC0 + 256 * r, SRC0 + 256 * r + 256),) for r in range(4)],
                "sel_mask": [(ub(SEL, SEL + 16),) if mode == 0 else (ub(SEL + 8 * r, SEL + 8 * r + 8),)
                             for r in range(4)]}
    if mode != 1:
        expected["src1"] = [(ub(SRC1 + 256 * r, SRC1 + 256 * r + 256),) for r in range(4)]
    return expected


def _per_repeat(parts):
    return {o.name: [o.repeat_ranges(r) for r in range(o.repeats)] for o in parts.operands}


MODES_FORMS = [(m, f) for m in (0, 1, 2) for f in ("count", "mask")]


def _run_select(case, mode, form):
    def body(core):
        core.ub_write(SRC0, bytes.fromhex(case["src0"]["hex"]))
        if "src1" in case:
            core.ub_write(SRC1, bytes.fromhex(case["src1"]["hex"]))
        core.ub_write(SEL, bytes.fromhex(case["sel_mask"]["hex"]))
        src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC0, 256)
        src1 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC1, 256)
        sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, SEL, 32)
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 256)
        other = case.get("src1_scalar", 0.0) if mode == 1 else src1
        if form == "count":
            asc.select(dst, sel, src0, other, asc.SelMode(mode), 256)
        else:
            asc.select(dst, sel, src0, other, asc.SelMode(mode), 64, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    return [r for r in traced(body) if r.instruction == "select"]


@pytest.mark.parametrize(("mode", "form"), MODES_FORMS)
def test_seed003_select_record_is_explained_with_the_documents_ranges(mode, form):
    case = next(c for c in SEEDS["select"] if c["sel_mode"] == mode)
    (record,) = _run_select(case, mode, form)
    parts = anatomy(record)
    assert parts.decomposed and _per_repeat(parts) == _select_expected(mode)
    assert parts.ranges("read") == record.reads and parts.ranges("write") == record.writes
    assert all(r.start >= SCRATCH and r.stop <= 192 * 1024 for r in parts.side_writes)
    assert bool(parts.side_writes) == (mode != 0)  # modes 1, 2 stage the scalar / address in the scratch (§2.3)
    svg = explain(record).svg()
    assert svg.count('data-operand="sel_mask"') == 1 and ('class="scratch"' in svg) == (mode != 0)


# ------------------------------------------------------------------ asc_ne_scalar, seed 001 (128 halves)
def test_seed001_asc_ne_scalar_record_is_explained():
    def body(core):
        src = asc.LocalTensor(asc.half, asc.TPosition.VECIN, 0, 128)
        dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 0x100, 16)
        asc.asc_ne_scalar(dst, src, np.float16(20), 1, 1, 1, 8, 8)

    (record,) = [r for r in traced(body) if r.instruction == "asc_ne_scalar"]
    parts = anatomy(record)
    assert parts.decomposed and _per_repeat(parts) == {"src": [(ub(0, 256),)], "dst": [(ub(0x100, 0x110),)]}


# ------------------------------------------------------------------ TransDataTo5HD, seed 002
TRANS = [(c["dtype"], c["dst_high_half"], c["src_high_half"]) for c in SEEDS["trans_data_to_5hd"]]
SRC_BASE, DST_BASE = 0x0, 0x1000


def _trans_expected(dtype, dst_high, src_high):
    """One repeat with strides 0: off(0) = 0 (§4.3); 8-bit data moves the chosen 16-byte half (§4.2)."""
    width = 16 if dtype == "int8" else 32
    src = tuple(ub(SRC_BASE + 32 * i + 16 * src_high, SRC_BASE + 32 * i + 16 * src_high + width) for i in range(16))
    dst = tuple(ub(DST_BASE + 32 * e + 16 * dst_high, DST_BASE + 32 * e + 16 * dst_high + width) for e in range(16))
    return merge_ranges(src), merge_ranges(dst)


@pytest.mark.parametrize(("dtype", "dst_high", "src_high"), TRANS)
def test_seed002_trans_data_to_5hd_record_is_explained(dtype, dst_high, src_high):
    kind = getattr(asc, dtype)
    per_block = 32 // np.dtype(dtype).itemsize

    def body(core):
        src = [asc.LocalTensor(kind, asc.TPosition.VECIN, SRC_BASE + 32 * i, per_block) for i in range(16)]
        dst = [asc.LocalTensor(kind, asc.TPosition.VECOUT, DST_BASE + 32 * e, per_block) for e in range(16)]
        asc.trans_data_to_5hd(dst, src, asc.TransDataTo5HDParams(dst_high, src_high, 1, 0, 0))

    (record,) = [r for r in traced(body) if r.instruction == "trans_data_to_5hd"]
    parts = anatomy(record)
    assert parts.decomposed and (parts.ranges("read"), parts.ranges("write")) == _trans_expected(dtype, dst_high,
                                                                                                  src_high)


# ------------------------------------------------------------------ the pictures of docs/explain.md
DOC_CASES = sorted((Path(__file__).resolve().parents[2] / "docs" / "explain").glob("*.json"))


@pytest.mark.parametrize("case", DOC_CASES, ids=[c.stem for c in DOC_CASES])
def test_every_docs_case_is_explained_with_exactly_its_records_ranges(case):
    """The docs' tables and pictures are of decomposed calls (Ascend) or operand-attributed lanes (Sophgo)
    whose bytes are exactly the access record's."""
    from npusim.engine.trace import collecting
    from npusim.golden import load_case, run_case

    document = json.loads(case.read_text())
    with collecting() as collector:
        run_case(load_case(str(case)))
    (core,) = collector.cores
    (record,) = [r for r in core.records if r.instruction == document["instruction"]]
    explanation = explain(record, core.chip)
    if record.vendor == "sophgo":
        assert explanation.view.attributed
        parts = explanation.view
    else:
        parts = explanation.anatomy
        assert parts.decomposed, parts.notes
    assert parts.ranges("read") == record.reads and parts.ranges("write") == record.writes
