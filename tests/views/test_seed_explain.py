"""The seed documents' examples explained: per-repeat ranges taken from the documents.

Each example is checked twice:

* on a record written here with the ranges the documents give (Select.md and
  docs/semantics.md §2.1 for selMask, §3.1 for the compare bitmask, §4 for TransDataTo5HD),
  so the explanation rules are tested now;
* on the real call's access record.  Those tests wait on the instruction's port to the
  engine (``waits_on``: expected to fail, strictly, until the instruction is registered;
  then they run as written).
"""

import json
from importlib import resources

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.trace import AccessRecord, ByteRange, merge_ranges
from npusim.views.anatomy import anatomy
from npusim.views.explain import explain

from .helpers import traced, waits_on

SEEDS = json.loads(resources.files("npusim.data").joinpath("seed_examples.json").read_text())
SRC0, SRC1, SEL, DST = 0x0000, 0x0400, 0x0800, 0x1000
SCRATCH = 184 * 1024  # A2's API scratch (TMP_UB_OFFSET, docs/semantics.md §1.7)


def _t(dtype, addr, size, position="VECIN"):
    return f"LocalTensor({dtype}, {position}, addr={addr:#x}, tile_size={size})"


def ub(start, stop):
    return ByteRange("UB", start, stop)


# ------------------------------------------------------------------ Select, seed 003 (float32, 256 elements)
def _select_params(mode: int, form: str) -> dict:
    params = {"dst": _t("float32", DST, 256, "VECOUT"), "sel_mask": _t("uint8", SEL, 32),
              "src0": _t("float32", SRC0, 256),
              "src1": 0.0 if mode == 1 else _t("float32", SRC1, 256),
              "sel_mode": ["VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"][mode]}
    if form == "count":
        params["count"] = 256
    else:
        params.update(mask=64, repeat_times=4, repeat_params={
            "dst_blk_stride": 1, "src0_blk_stride": 1, "src1_blk_stride": 1,
            "dst_rep_stride": 8, "src0_rep_stride": 8, "src1_rep_stride": 8})
    return params


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


@pytest.mark.parametrize(("mode", "form"), MODES_FORMS)
def test_select_rule_gives_the_documents_ranges(mode, form):
    expected = _select_expected(mode)
    reads = [r for name, rows in expected.items() if name != "dst" for row in rows for r in row]
    scratch = [ub(SCRATCH, SCRATCH + 128)] if mode else []
    writes = [r for row in expected["dst"] for r in row] + scratch
    record = AccessRecord(0, "select", "ascend", "V", merge_ranges(reads + scratch), merge_ranges(writes), (),
                          ("CMPMASK",), "k.py:1", _select_params(mode, form))
    parts = anatomy(record)
    assert parts.decomposed and _per_repeat(parts) == expected
    assert parts.side_writes == tuple(scratch)


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


@waits_on("select", "select/compare")
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
def test_asc_ne_scalar_rule_writes_sixteen_bytes_per_repeat():
    """Seed 001: 128 half, repeat 1, strides 1/1/8/8: reads 256 bytes, writes E/8 = 16 bytes (§3.1)."""
    params = {"dst": _t("uint8", 0x100, 16, "VECOUT"), "src": _t("float16", 0, 128), "value": 20.0, "repeat": 1,
              "dst_block_stride": 1, "src_block_stride": 1, "dst_repeat_stride": 8, "src_repeat_stride": 8}
    record = AccessRecord(0, "asc_ne_scalar", "ascend", "V", (ub(0, 256),), (ub(0x100, 0x110),), (), (), "k.py:1",
                          params)
    parts = anatomy(record)
    assert parts.decomposed and _per_repeat(parts) == {"src": [(ub(0, 256),)], "dst": [(ub(0x100, 0x110),)]}


@waits_on("asc_ne_scalar", "select/compare")
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
def test_trans_data_to_5hd_rule_gives_the_documents_blocks(dtype, dst_high, src_high):
    reads, writes = _trans_expected(dtype, dst_high, src_high)
    params = {"dst_list": [_t(dtype, DST_BASE + 32 * e, 32 // {"int8": 1, "float16": 2, "int32": 4}[dtype], "VECOUT")
                           for e in range(16)],
              "src_list": [SRC_BASE + 32 * i for i in range(16)],
              "params": {"dst_high_half": dst_high, "src_high_half": src_high, "repeat_times": 1,
                         "dst_rep_stride": 0, "src_rep_stride": 0}, "dtype": None}
    record = AccessRecord(0, "trans_data_to_5hd", "ascend", "V", reads, writes, (), (), "k.py:1", params)
    parts = anatomy(record)
    assert parts.decomposed
    dst = next(o for o in parts.operands if o.name == "dst")
    assert dst.locate(DST_BASE + 32 * 5 + 16 * dst_high) == (0, 5)  # dst_list[5] is unit 5
    assert ("high" if dst_high else "low") in dst.note or dtype != "int8"


@waits_on("trans_data_to_5hd", "transpose")
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
