"""Headless Chromium for the report tests: load a page, return its DOM after scripts ran and its console.

The browser is the system's (Debian: ``apt-get install chromium``; ``.ci/run`` installs it).  When
it is missing the tests FAIL, so CI cannot pass without it; set ``NPUSIM_NO_BROWSER=1`` to skip the
browser tests on a machine without one (docs/explain.md).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CONSOLE = re.compile(r":CONSOLE[:(]")


def chromium() -> str:
    path = os.environ.get("NPUSIM_CHROMIUM") or next(filter(None, map(shutil.which, CANDIDATES)), None)
    if path is None:
        if os.environ.get("NPUSIM_NO_BROWSER") == "1":
            pytest.skip("NPUSIM_NO_BROWSER=1: the headless-browser tests are switched off on this machine")
        pytest.fail("no Chromium found (tried $NPUSIM_CHROMIUM and " + ", ".join(CANDIDATES) + "): install the "
                    "system package (apt-get install chromium), or set NPUSIM_NO_BROWSER=1 to skip locally")
    return path


def load(page: Path) -> tuple[str, list[str]]:
    """``(dom, console lines)`` of ``page`` loaded in headless Chromium."""
    run = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         "--enable-logging=stderr", "--v=0", f"--user-data-dir={page.parent / 'chromium-profile'}",
         "--virtual-time-budget=5000", "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=180, check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout, [line for line in run.stderr.splitlines() if CONSOLE.search(line)]
