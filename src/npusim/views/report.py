"""A self-contained HTML report of a trace (``npusim report TRACE.json -o report.html``).

One file, no network access: the trace's events are embedded as JSON, the page's
script and style inline.  It shows

* the **timeline**: a row per pipe of each core, a box per call (x: sequence number,
  as in the trace file: not a cycle count), a tick per instant event;
* for the instruction clicked (at first, the first one pictured) its parameters, source
  line, byte ranges and registers, and its **access picture** (:mod:`.svg`).  Pictures
  are drawn when the report is made, for up to :data:`MAX_PICTURES` calls: the first
  call of every instruction on every core, then the calls named with ``--pick``.

The page marks itself when its script has run: ``<body data-status="ready"
data-errors="N">`` (N: uncaught script errors), which the browser test reads.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Sequence

from ..engine.trace import CoreTrace
from .chrome import trace_events
from .explain import explain

__all__ = ["MAX_PICTURES", "render_report", "write_report"]

MAX_PICTURES = 64

_STYLE = """
body { font: 13px sans-serif; margin: 12px; }
h1 { font-size: 18px; } h2 { font-size: 15px; margin: 14px 0 4px; }
#timeline svg rect.slice { cursor: pointer; }
#timeline svg rect.slice.chosen { stroke: #d62728; stroke-width: 2; }
#details pre { background: #f6f6f6; padding: 6px; overflow-x: auto; }
#picture { overflow-x: auto; border: 1px solid #ccc; min-height: 40px; }
.note { color: #555; }
"""

_SCRIPT = r"""
window.npusimErrors = 0;
window.addEventListener('error', function () {
  window.npusimErrors += 1; document.body.dataset.errors = String(window.npusimErrors);
});
function npusimReport() {
  var doc = JSON.parse(document.getElementById('trace-data').textContent);
  var pictures = JSON.parse(document.getElementById('picture-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var processes = {}, threads = {}, calls = [];
  doc.traceEvents.forEach(function (e) {
    if (e.ph === 'M' && e.name === 'process_name') processes[e.pid] = e.args.name;
    if (e.ph === 'M' && e.name === 'thread_name') threads[e.pid + ':' + e.tid] = e.args.name;
    if (e.ph === 'X' || e.ph === 'i') calls.push(e);
  });
  var rows = Object.keys(threads).sort(function (a, b) {
    var pa = a.split(':').map(Number), pb = b.split(':').map(Number);
    return pa[0] - pb[0] || pa[1] - pb[1];
  });
  var last = 1;
  calls.forEach(function (e) { last = Math.max(last, e.ts + 1); });
  var scale = Math.max(2, Math.min(40, 1100 / last)), rowH = 22, left = 220;
  var svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('width', String(left + last * scale + 20));
  svg.setAttribute('height', String(rows.length * rowH + 10));
  rows.forEach(function (key, i) {
    var label = document.createElementNS(NS, 'text');
    label.setAttribute('x', '2'); label.setAttribute('y', String(i * rowH + 15));
    label.textContent = processes[key.split(':')[0]] + ' ' + threads[key];
    svg.appendChild(label);
  });
  var chosen = null;
  function show(e, rect) {
    if (chosen) chosen.classList.remove('chosen');
    chosen = rect; rect.classList.add('chosen');
    var key = e.pid + ':' + e.args.seq;
    document.getElementById('chosen-name').textContent =
      e.name + '  (' + processes[e.pid] + ', seq ' + e.args.seq + ', ' + e.args.source + ')';
    function ranges(list) {
      return list.map(function (r) {
        return r[0] + (r[3] ? ':' + r[3] : '') + '[0x' + r[1].toString(16) + ', 0x' + r[2].toString(16) + ')';
      }).join(' ') || '-';
    }
    document.getElementById('chosen-args').textContent =
      'source: ' + e.args.source + '\nparams: ' + JSON.stringify(e.args.params) +
      '\nreads:  ' + ranges(e.args.reads) + '\nwrites: ' + ranges(e.args.writes) +
      '\nregisters read: ' + (e.args.registers_read.join(', ') || '-') +
      '; written: ' + (e.args.registers_written.join(', ') || '-');
    var picture = document.getElementById('picture');
    if (pictures[key]) { picture.innerHTML = pictures[key]; }
    else { picture.textContent = 'no picture embedded for this call: npusim report ... --pick ' +
           processes[e.pid].split(' ')[1] + ':' + e.args.seq + ' draws it'; }
    document.body.dataset.chosen = key;
  }
  var first = null;
  calls.forEach(function (e) {
    var row = rows.indexOf(e.pid + ':' + e.tid);
    var rect = document.createElementNS(NS, 'rect');
    rect.setAttribute('x', String(left + e.ts * scale));
    rect.setAttribute('y', String(row * rowH + 3));
    rect.setAttribute('width', String(e.ph === 'X' ? Math.max(1, scale - 1) : 2));
    rect.setAttribute('height', String(rowH - 6));
    rect.setAttribute('fill', e.ph === 'X' ? '#4c78a8' : '#e45756');
    rect.setAttribute('class', e.ph === 'X' ? 'slice' : 'slice instant');
    rect.dataset.key = e.pid + ':' + e.args.seq;
    var tip = document.createElementNS(NS, 'title');
    tip.textContent = e.name + ' seq ' + e.args.seq + ' ' + e.args.source;
    rect.appendChild(tip);
    rect.addEventListener('click', function () { show(e, rect); });
    svg.appendChild(rect);
    if (first === null && pictures[rect.dataset.key]) first = [e, rect];
  });
  document.getElementById('timeline').appendChild(svg);
  document.getElementById('summary').textContent = calls.length + ' calls on ' +
    Object.keys(processes).length + ' core(s); ' + doc.otherData.clock;
  if (first) show(first[0], first[1]);
  document.body.dataset.calls = String(calls.length);
  document.body.dataset.errors = String(window.npusimErrors);
  document.body.dataset.status = 'ready';
}
document.addEventListener('DOMContentLoaded', npusimReport);
"""


def _script_json(value) -> str:
    """JSON safe inside a ``<script>`` element (no ``</`` sequence)."""
    return json.dumps(value, allow_nan=False).replace("</", "<\\/")


def _pictured(cores: Sequence[CoreTrace], picks: Iterable[tuple[int, int]]) -> dict[str, str]:
    chosen: list[tuple[int, int]] = []
    for block, seq in picks:
        chosen += [(pid, seq) for pid, core in enumerate(cores) if core.block == block]
    for pid, core in enumerate(cores):
        seen = set()
        for record in core.records:
            if record.instruction not in seen:
                seen.add(record.instruction)
                chosen.append((pid, record.seq))
    pictures: dict[str, str] = {}
    for pid, seq in chosen:
        if len(pictures) >= MAX_PICTURES:
            break
        records = cores[pid].records
        if 0 <= seq < len(records) and f"{pid}:{seq}" not in pictures:
            pictures[f"{pid}:{seq}"] = explain(records[seq], cores[pid].chip).svg()
    return pictures


def render_report(cores: Sequence[CoreTrace], title: str = "npusim trace",
                  picks: Iterable[tuple[int, int]] = ()) -> str:
    """The report page of these cores' records (module docstring); ``picks``: ``(block, seq)`` to picture."""
    document = trace_events(cores)
    pictures = _pictured(cores, picks)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{_STYLE}</style>
<script type="application/json" id="trace-data">{_script_json(document)}</script>
<script type="application/json" id="picture-data">{_script_json(pictures)}</script>
<script>{_SCRIPT}</script></head>
<body data-status="loading" data-errors="0">
<h1>{html.escape(title)}</h1>
<p class="note" id="summary"></p>
<h2>Timeline</h2><div id="timeline"></div>
<h2>Chosen call: <span id="chosen-name">click a box</span></h2>
<div id="details"><pre id="chosen-args"></pre></div>
<h2>Access picture</h2><div id="picture"></div>
</body></html>
"""


def write_report(path: str | os.PathLike, cores: Sequence[CoreTrace], title: str = "npusim trace",
                 picks: Iterable[tuple[int, int]] = ()) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write(render_report(cores, title, picks))
