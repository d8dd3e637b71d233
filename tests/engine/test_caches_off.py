"""The instruction suites again with every cache off: the same bytes, the same errors.

Every instruction test asserts its expected bytes from a document, an oracle fixture or a
reference model, so the same tests passing in a process started with ``NPUSIM_CACHES=off``
(docs/architecture.md, "Caches") shows that caching changes speed and nothing else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: every directory of instruction tests, both vendors (the fuzz suite and the CLI are not instruction tests)
INSTRUCTION_SUITES = ("tests/ascend", "tests/sophgo")


def test_caches_off_in_a_fresh_process():
    env = dict(os.environ, NPUSIM_CACHES="off")
    probe = "from npusim.engine import caches; print(caches.enabled())"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "False"


def test_the_instruction_suites_pass_with_caches_off():
    env = dict(os.environ, NPUSIM_CACHES="off")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-rN", *INSTRUCTION_SUITES],  # addopts already give -q
        cwd=REPO, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1]
