"""The instruction suites again with every cache off: the same bytes, the same errors.

Every instruction test asserts its expected bytes from a document, an oracle fixture or a
reference model, so the same tests passing in a process started with ``NPUSIM_CACHES=off``
(docs/architecture.md, "Caches") shows that caching changes speed and nothing else.  The
property tests draw a quarter of their examples there (``NPUSIM_EXAMPLES_DIVISOR``), and the
interrupt sweeps are left out (:data:`INTERRUPT_SWEEPS`): the run repeats the two suites' other tests,
whose full draws and sweeps are the main run's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: every directory of instruction tests, both vendors (the fuzz suite and the CLI are not instruction tests)
INSTRUCTION_SUITES = ("tests/ascend", "tests/sophgo")
#: the interrupt sweeps (tests/ascend/interrupts.py; every such test's name says "interrupt") are left out here:
#: each already runs its call both on kept plans and planning afresh at every run (``fresh_plans``), and with the
#: caches off every run plans afresh and is interrupted at each of its planning events too, which doubles their
#: time (53 s -> 112 s, half of this run) and checks nothing the two modes of the main run do not
INTERRUPT_SWEEPS = "interrupt"


def test_caches_off_in_a_fresh_process():
    env = dict(os.environ, NPUSIM_CACHES="off")
    probe = "from npusim.engine import caches; print(caches.enabled())"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "False"


def test_the_instruction_suites_pass_with_caches_off():
    # a quarter of every property test's examples (tests/conftest.py): every test runs, each on fewer draws
    env = dict(os.environ, NPUSIM_CACHES="off", NPUSIM_EXAMPLES_DIVISOR="4")
    done = subprocess.run(  # (addopts already give -q)
        [sys.executable, "-m", "pytest", "-x", "-rN", "-k", f"not {INTERRUPT_SWEEPS}", *INSTRUCTION_SUITES],
        cwd=REPO, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
