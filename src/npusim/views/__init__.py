"""Seeing what a kernel did: traces, access pictures and the provenance of a mismatch.

Built only on the engine's access records (:mod:`npusim.engine.trace`):

* :mod:`.chrome` — a run's records as a Chrome trace-event file (Perfetto, chrome://tracing);
* :mod:`.anatomy` — one record split per repeat, DataBlock and lane (the addressing layer's formula);
* :mod:`.explain` — the anatomy as a table; :mod:`.svg` — as a picture;
* :mod:`.provenance` — which instruction last wrote each byte (``npusim verify --trace``);
* :mod:`.report` — a self-contained HTML page of a trace;
* :mod:`.progress` — progress bars on a terminal (tqdm, optional).
"""
