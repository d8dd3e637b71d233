"""``npusim explain --png`` and ``Explanation.png()``: the SVG's picture rasterised (the png extra), and a clear
error naming the extra when it is missing."""

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from npusim.cli import main
from npusim.views.explain import explain
from npusim.views.svg import COLOURS

from .helpers import add_mask64, traced
from .png_pixels import pixel, read_png

NS = {"s": "http://www.w3.org/2000/svg"}
CASE = Path(__file__).resolve().parents[2] / "docs" / "explain" / "add_mask64.json"


def _add_mask64():
    return explain(traced(add_mask64)[0])


def _centre(svg: str, operand: str, kind: str, repeat: int, index: int) -> tuple[float, float]:
    """The centre of the ``index``-th rect of ``kind`` of ``operand`` in ``repeat``'s row."""
    group = ET.fromstring(svg).find(f"s:g[@data-operand='{operand}']", NS)
    rects = [r for r in group.findall(f"s:rect[@class='{kind}']", NS) if r.get("data-repeat") == str(repeat)]
    rect = rects[index]
    return (float(rect.get("x")) + float(rect.get("width")) / 2, float(rect.get("y")) + float(rect.get("height")) / 2)


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def test_the_png_is_the_svg_drawn_at_its_size():
    pytest.importorskip("cairosvg", reason="the png extra (tested in CI: the test extra installs it)")
    explanation = _add_mask64()
    svg = explanation.svg()
    root = ET.fromstring(svg)
    png = read_png(explanation.png())
    assert (png[0], png[1]) == (int(root.get("width")), int(root.get("height")))
    # dst (the first operand, written: solid) lane 8, in DataBlock 0 of repeat 1
    assert pixel(png, *_centre(svg, "dst", "unit", 1, 8))[:3] == _rgb(COLOURS[0])
    # src0 (read: its colour at 30 % over the transparent background) lane 8 of repeat 0
    r, g, b, alpha = pixel(png, *_centre(svg, "src0", "unit", 0, 8))
    assert 60 <= alpha <= 90 and (r, g, b) == pytest.approx(_rgb(COLOURS[1]), abs=3)
    # a masked-off lane of dst (lane 64 + 8, DataBlock 4): opaque grey, between its fill #dddddd and its cross #999999
    r, g, b, alpha = pixel(png, *_centre(svg, "dst", "masked", 0, 8))
    assert r == g == b and 0x99 <= r <= 0xDD and alpha == 255
    # nothing is drawn in repeat 0's write row under src0's DataBlocks
    sx, sy = _centre(svg, "src0", "unit", 0, 8)
    assert pixel(png, sx, sy + 22)[3] == 0


def test_explain_writes_the_png_it_is_asked_for(tmp_path):
    pytest.importorskip("cairosvg", reason="the png extra (tested in CI: the test extra installs it)")
    out = tmp_path / "x.png"
    assert main(["explain", str(CASE), "--png", str(out)]) == 0
    width, height, _, _ = read_png(out.read_bytes())
    root = ET.fromstring(CASE.with_suffix(".svg").read_text())
    assert (width, height) == (int(root.get("width")), int(root.get("height")))


def test_without_the_extra_the_error_names_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # import cairosvg raises ImportError
    out = tmp_path / "x.png"
    assert main(["explain", str(CASE), "--png", str(out)]) == 2
    err = capsys.readouterr().err
    assert "pip install 'npusim[png]'" in err and "CairoSVG" in err
    assert not out.exists()
    with pytest.raises(ImportError, match=r"npusim\[png\]"):
        _add_mask64().png()
