"""Access pictures: every unit of the anatomy drawn once, masked lanes, overlaps and scratch marked;
the pictures in docs/explain/ are what ``npusim explain --svg`` draws today."""

import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path

from npusim import ascend as asc
from npusim.engine.trace import ByteRange
from npusim.views.explain import explain

from .helpers import add_mask64, traced

NS = {"s": "http://www.w3.org/2000/svg"}
ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "explain"


def _units(svg: str, operand: str, kind: str) -> int:
    root = ET.fromstring(svg)
    group = root.find(f"s:g[@data-operand='{operand}']", NS)
    return len(group.findall(f"s:rect[@class='{kind}']", NS))


def test_units_and_masked_lanes_are_drawn_once_each():
    """add, half, mask 64, 2 repeats: per operand 2 x 64 active lanes and 2 x 64 masked-off lanes."""
    svg = explain(traced(add_mask64)[0]).svg()
    for name in ("dst", "src0", "src1"):
        assert (_units(svg, name, "unit"), _units(svg, name, "masked")) == (128, 128)
    assert 'class="overlap"' not in svg


def test_an_in_place_call_marks_its_shared_bytes_in_both_rows():
    def body(core):
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
        asc.muls(x, x, 2.0, 100)

    svg = explain(traced(body)[0]).svg()
    assert svg.count('class="overlap"') == 2 * 100  # 100 lanes, outlined in the read and the write row


def test_scratch_side_effects_are_hatched():
    """Select mode 1 on the A2 writes 32 copies of the float32 scalar (128 bytes = 4 DataBlocks) to the API
    scratch at 184 KiB (docs/semantics.md §2.3); nothing reads them back from UB."""
    def body(core):
        src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0x200, 64)
        sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0x400, 32)
        asc.select(dst, sel, src0, 1.0, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 64)

    parts = explain(traced(body)[0])
    assert parts.anatomy.side_writes == (ByteRange("UB", 184 * 1024, 184 * 1024 + 128),)
    svg = parts.svg()
    assert svg.count('class="scratch"') == 4
    assert "API scratch side effect" in svg


def _explain_docs():
    spec = importlib.util.spec_from_file_location("explain_docs", ROOT / "tools" / "explain_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_pictures_tables_and_seed_section_are_current():
    """Regenerate with: python3 tools/explain_docs.py"""
    tool = _explain_docs()
    stale = tool.stale_files()
    assert not stale, f"stale (run python3 tools/explain_docs.py): {sorted(str(p) for p in stale)}"
    page = (DOCS.parent / "explain.md").read_text()
    for case in sorted(DOCS.glob("*.json")):
        assert f"explain/{case.stem}.svg" in page  # every case's picture is on the page
    assert {name for name, _ in tool.SEED_CASES} <= {case.stem for case in DOCS.glob("*.json")}


def test_the_staleness_check_notices_a_changed_table(tmp_path, monkeypatch):
    tool = _explain_docs()
    table = DOCS / "add_mask64.txt"
    monkeypatch.setattr(tool, "CASES", tmp_path)
    (tmp_path / "add_mask64.json").write_bytes((DOCS / "add_mask64.json").read_bytes())
    (tmp_path / "add_mask64.txt").write_text(table.read_text().replace("lanes 0-63", "lanes 0-62", 1))
    (tmp_path / "add_mask64.svg").write_text((DOCS / "add_mask64.svg").read_text())
    monkeypatch.setattr(tool, "SEED_CASES", ())
    stale = tool.stale_files()
    assert tmp_path / "add_mask64.txt" in stale and tmp_path / "add_mask64.svg" not in stale
