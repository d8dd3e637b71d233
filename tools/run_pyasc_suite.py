"""Run pyasc's tutorials and runtime tests against npusim and print a pass/fail table.

Usage::

    python tools/run_pyasc_suite.py PYASC_CHECKOUT [--policy hardware|strict] [--sync raise|warn|off]
                                    [--jobs N] [--unit] [FILE ...]

``PYASC_CHECKOUT`` is a clone of ``hicann/pyasc`` (the files are under ``python/``); FILEs,
relative to ``python/``, choose some of them (default: every tutorial and every file under
``test/generalization`` and ``test/kernels``).  The checkout is not changed: its ``python/test``
and ``python/tutorials`` trees are copied into a temporary directory, where the one edit the
generalization tests need is made — the ``BACKENDS`` list gets ``config.Backend.Model`` and
loses ``config.Backend.NPU`` (pyasc comments Model out) — and then

* a test file runs as ``python -m pytest -p npusim.pyasc FILE`` (``--backend`` / ``--platform``
  of pyasc's ``kernels/conftest.py`` keep their defaults: Model, Ascend910B1);
* a tutorial runs as ``python -m npusim.pyasc FILE -r Model``.

``--unit`` adds pyasc's ``test/unit/language`` files.  pyasc runs them with the launch mocked away (they check
the generated code); here the second edit is made: their ``mock_launcher_run`` fixture counts npusim's launches
and lets them run, so each kernel executes on npusim.  Many of these kernels were never meant to run (every tensor
at address 0, so operands partly overlap; queues used before ``init_buffer``) and are rejected as the documents
say, or call APIs npusim does not model (the cube, the ``asc.adv`` math library).

``--sync`` is the pipe sync checker of every launch (``NPUSIM_SYNC``; the entry points' default
is ``warn``, whose warnings the runs ignore: ``raise`` makes a race fail its file).

Each line of the table is the file, PASS, FAIL or SKIP (every test skipped by the file
itself), pytest's counts and, for a failure, the first error line.  The exit status is 0
when no file failed.  pyasc's files are never
copied into this repository (CANN Open Software License); this tool only runs them.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BACKEND_MODEL = re.compile(r"^(\s*)#\s*(config\.Backend\.Model,)", re.M)
BACKEND_NPU = re.compile(r"^(\s*)(config\.Backend\.NPU,)", re.M)
TIMEOUT_S = 900


def enable_model_backend(path: Path) -> None:
    """The backend line: Model in, NPU out (only in files that have a BACKENDS list)."""
    text = path.read_text(encoding="utf-8")
    if "BACKENDS" not in text:
        return
    path.write_text(BACKEND_NPU.sub(r"\1# \2", BACKEND_MODEL.sub(r"\1\2", text)), encoding="utf-8")


# pyasc's unit tests mock the launch away (they check code generation); under npusim the kernel runs, counted
UNIT_MOCK = 'patch("asc.runtime.launcher.Launcher.run", return_value=None)'
UNIT_LAUNCH = 'patch.object(_NpusimKernel, "launch", autospec=True, side_effect=_NpusimKernel.launch)'


def run_unit_launches(path: Path) -> None:
    """The unit tests' ``mock_launcher_run`` fixture: count npusim's launches and let them run."""
    text = path.read_text(encoding="utf-8")
    if UNIT_MOCK in text:
        text = "from npusim.pyasc.jit import PyascKernel as _NpusimKernel\n" + text.replace(UNIT_MOCK, UNIT_LAUNCH)
        path.write_text(text, encoding="utf-8")


def discover(python_dir: Path, unit: bool = False) -> list[str]:
    files = sorted(p for p in (python_dir / "tutorials").glob("*/*.py"))
    for sub in ("test/generalization", "test/kernels", *(("test/unit/language",) if unit else ())):
        files += sorted(p for p in (python_dir / sub).rglob("test_*.py"))
    return [str(p.relative_to(python_dir)) for p in files]


def run_one(work: Path, relative: str, policy: str, sync: str) -> tuple[str, str, str]:
    env_policy = {"NPUSIM_PYASC_POLICY": policy, "NPUSIM_SYNC": sync}
    if relative.startswith("tutorials/"):
        command = [sys.executable, "-m", "npusim.pyasc", relative, "-r", "Model"]
    else:
        command = [sys.executable, "-m", "pytest", "-p", "npusim.pyasc", "-p", "no:cacheprovider", "-q",
                   "-W", "ignore", relative]
    try:
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, timeout=TIMEOUT_S,
                              env={**os.environ, **env_policy})
    except subprocess.TimeoutExpired:
        return relative, "FAIL", f"timed out after {TIMEOUT_S} s"
    output = done.stdout + done.stderr
    lines = [line for line in output.splitlines() if line.strip()]
    summary = next((line.strip("= ") for line in reversed(lines)
                    if re.search(r"\d+ (passed|failed|error|skipped)", line)),
                   "ran" if done.returncode == 0 else f"exit {done.returncode}")
    if done.returncode == 0 and "skipped" in summary and "passed" not in summary:
        return relative, "SKIP", summary + " (by the file itself)"
    passed = "PASS" if done.returncode == 0 else "FAIL"
    if passed == "FAIL":
        error = next((line for line in lines if line.startswith("E ") and "Error" in line), None)
        error = error or next((line for line in reversed(lines) if "Error" in line), "")
        summary += " -- " + error.removeprefix("E").strip()[:220]
    return relative, passed, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a clone of hicann/pyasc")
    parser.add_argument("files", nargs="*", help="files relative to python/ (default: all)")
    parser.add_argument("--policy", choices=("hardware", "strict"), default="hardware")
    parser.add_argument("--sync", choices=("raise", "warn", "off"), default="warn")
    parser.add_argument("--jobs", type=int, default=1, help="files run at once")
    parser.add_argument("--unit", action="store_true", help="also pyasc's test/unit/language files, whose kernels "
                        "then run on npusim (pyasc mocks their launch: they test code generation)")
    args = parser.parse_intermixed_args(argv)
    python_dir = args.checkout / "python"
    if not (python_dir / "test").is_dir():
        parser.error(f"{args.checkout} has no python/test: not a pyasc checkout")
    files = args.files or discover(python_dir, args.unit)
    with tempfile.TemporaryDirectory(prefix="npusim-pyasc-") as tmp:
        work = Path(tmp)
        for tree in ("test", "tutorials"):
            shutil.copytree(python_dir / tree, work / tree)
        for path in (work / "test").rglob("*.py"):
            enable_model_backend(path)
        if (work / "test" / "unit" / "conftest.py").is_file():
            run_unit_launches(work / "test" / "unit" / "conftest.py")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(lambda f: run_one(work, f, args.policy, args.sync), files))
    width = max(len(name) for name, _, _ in results)
    for name, status, summary in results:
        print(f"{name:<{width}}  {status}  {summary}")
    counts = {status: sum(s == status for _, s, _ in results) for status in ("PASS", "FAIL", "SKIP")}
    print(f"{counts['PASS']}/{len(results)} files passed, {counts['FAIL']} failed, {counts['SKIP']} skipped by "
          f"pyasc itself (policy {args.policy}, sync {args.sync})")
    return 0 if counts["FAIL"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
