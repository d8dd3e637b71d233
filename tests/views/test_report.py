"""The HTML report, loaded in a real headless Chromium: no console error, and it renders the trace."""

import re

import numpy as np

from npusim import ascend as asc
from npusim.cli import main
from npusim.examples import nchw_to_nc1hwc0
from npusim.views.chrome import write_trace
from npusim.views.report import render_report

from .browser import load
from .helpers import waits_on


def _body(dom: str) -> dict:
    tag = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', tag))


def test_the_browser_check_sees_a_script_error(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><head><script>missingFunction();</script></head><body></body></html>')
    _, console = load(page)
    assert any("missingFunction is not defined" in line for line in console)


@asc.jit
def _two_blocks(y: asc.GlobalAddress) -> None:
    a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    c = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)
    asc.duplicate(a, 1.0, 256)
    asc.adds(c, a, 1.0, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8))


def test_report_loads_with_no_console_error_and_shows_the_timeline_and_a_picture(tmp_path):
    launch = _two_blocks.launch(2, (np.zeros(4, np.float16),), chip="A2", trace=tmp_path / "t.json")
    page = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "t.json"), "-o", str(page)]) == 0
    html = page.read_text()
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html  # no network
    dom, console = load(page)
    assert console == []
    body = _body(dom)
    assert body["status"] == "ready" and body["errors"] == "0"
    assert body["calls"] == "4" == str(sum(len(c.records) for c in launch.trace))
    assert len(re.findall(r'<rect[^>]*class="slice( chosen)?"', dom)) == 4
    assert body["chosen"] == "0:0"  # the first pictured call is shown
    picture = dom[dom.index('id="picture"'):]
    assert 'data-operand="dst"' in picture and "duplicate  seq 0  block 0" in picture
    assert "Chosen call: <span" in dom and "duplicate  (block 0 (ascend A2), seq 0," in dom
    assert "writes: UB[0x0, 0x200)" in dom  # duplicate of 256 halves at 0


def test_a_picked_call_is_pictured():
    launch = _two_blocks.launch(1, (np.zeros(4, np.float16),), chip="A2", trace=True)
    page = render_report(launch.trace, picks=[(0, 1)])
    assert page.count('data-operand=\\"src\\"') == 1  # adds (seq 1) has a src; duplicate has none


@waits_on("trans_data_to_5hd", "transpose (and data_copy: data movement)")
def test_the_nchw_to_nc1hwc0_kernel_trace_loads_in_the_report(tmp_path):
    x = nchw_to_nc1hwc0.example_input((1, 32, 4, 8))
    out = tmp_path / "nchw.json"
    y = np.zeros_like(nchw_to_nc1hwc0.golden(x))
    n, c, h, w = x.shape
    launch = nchw_to_nc1hwc0.nchw_to_nc1hwc0_kernel.launch(2, (x, y, n, c, h, w), chip="A2", trace=out)
    assert y.tobytes() == nchw_to_nc1hwc0.golden(x).tobytes()
    names = {r.instruction for core in launch.trace for r in core.records}
    assert {"data_copy", "trans_data_to_5hd"} <= names
    write_trace(out, launch.trace)
    page = tmp_path / "nchw.html"
    assert main(["report", str(out), "-o", str(page)]) == 0
    dom, console = load(page)
    body = _body(dom)
    assert console == [] and body["status"] == "ready" and body["errors"] == "0"
    assert int(body["calls"]) == sum(len(core.records) for core in launch.trace)
    assert "trans_data_to_5hd" in dom
