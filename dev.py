#!/usr/bin/env python3
"""Set up a virtual environment in .venv and run one project task.

    python3 dev.py demo    # install npusim and run every bundled example (PASS/FAIL per example)
    python3 dev.py test    # install npusim with test extras, lint with ruff, run the test suite
    python3 dev.py bench   # install npusim and print the speed table (benchmarks/)
    python3 dev.py fuzz    # the fuzz suite with many more examples than CI runs

Only Python >= 3.10 with venv and pip is assumed; packages come from PyPI.

Two environment variables choose another environment (CI uses them for its second run):

    NPUSIM_VENV=DIR               the virtual environment to use instead of .venv
    NPUSIM_CONSTRAINTS=FILE       a pip constraints file applied to every install, build
                                  dependencies included (.ci/lower-bounds.txt pins the oldest
                                  versions pyproject.toml allows)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / os.environ.get("NPUSIM_VENV", ".venv")
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
CONSTRAINTS = os.environ.get("NPUSIM_CONSTRAINTS")
DEPENDENCIES = ("numpy", "ml_dtypes", "pytest", "hypothesis", "ruff", "tqdm")


def run(*cmd: str, env: dict | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)


def setup(extras: str = "") -> None:
    if not PY.exists():
        run(sys.executable, "-m", "venv", str(VENV))
    install = [str(PY), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e", f".{extras}"]
    env = None
    if CONSTRAINTS:
        constraints = str((ROOT / CONSTRAINTS).resolve())
        install += ["--constraint", constraints]
        env = {**os.environ, "PIP_CONSTRAINT": constraints}  # pip's isolated build environment reads this
    run(*install, env=env)


def show_versions() -> None:
    """Print the versions the environment holds, so a test log says what it ran with."""
    code = ("import importlib.metadata as m, platform; print('python ' + platform.python_version(), *("
            f"f'{{n}} {{m.version(n)}}' for n in {DEPENDENCIES!r}), sep=', ')")
    run(str(PY), "-c", code)


def main(argv: list[str]) -> int:
    task = argv[1] if len(argv) > 1 else "help"
    if task == "demo":
        setup()
        run(str(BIN / "npusim"), "demo")
    elif task == "test":
        setup("[test]")
        show_versions()
        lint = [p for p in ("src", "tests", "tools", "benchmarks", "dev.py") if (ROOT / p).exists()]
        run(str(PY), "-m", "ruff", "check", *lint)
        run(str(PY), "-m", "pytest", *argv[2:])
    elif task == "bench":
        setup()
        run(str(PY), "benchmarks/run.py", *argv[2:])
    elif task == "fuzz":
        setup("[test]")
        run(str(PY), "-m", "pytest", "tests/fuzz", "-p", "no:randomly", *argv[2:],
            env={**os.environ, "NPUSIM_FUZZ_EXAMPLES": os.environ.get("NPUSIM_FUZZ_EXAMPLES", "20000")})
    else:
        print(__doc__)
        return 0 if task in ("help", "-h", "--help") else 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except subprocess.CalledProcessError as failure:
        sys.exit(failure.returncode or 1)
