"""The vendor-neutral instruction engine.

* :mod:`.registry` — every instruction registered once (name, vendor, family, pipe, forms,
  products, source, exactness) and how it is planned;
* :mod:`.dispatch` — the one path every call takes: bind the form, find or compile the
  plan, per-call checks, bind to addresses, run, record;
* :mod:`.plan` — the plan protocol (geometry, bound per call to base addresses);
* :mod:`.caches` — every cache, bounded, thread-safe, clearable, switchable off;
* :mod:`.trace` — exact access records.

Nothing here imports a vendor package.
"""

from . import dispatch as _dispatch  # noqa: F401 - installs the dispatcher every registered instruction calls
