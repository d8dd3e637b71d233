"""Optional: fresh random cases run on Sophgo's cmodel and on npusim side by side.

Skipped unless ``SOPHGO_CMODEL_DIR`` names a directory holding the oracle libraries
(``libcmodel_bm1684x.so``, ``libcmodel_bm1688.so``, ``libtpuv7_emulator.so`` with its
``third_party/`` pair; ``python tools/sophgo_cmodel_oracle.py fetch`` puts them in ``tools/_cache``,
and the wheel's own ``tpu_mlir/lib`` works as it is); a chip whose library is missing is skipped.
``SOPHGO_CMODEL_SEED`` fixes the seed (default: a new one per run, printed on failure);
``SOPHGO_CMODEL_CASES`` sets the number of cases per chip (default 40).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from npusim import sophgo as tpu
from npusim.errors import ConstraintError

from .oracle_replay import call, replay, setup

ROOT = Path(__file__).resolve().parents[2]
CMODEL_DIR = os.environ.get("SOPHGO_CMODEL_DIR")

pytestmark = pytest.mark.skipif(
    not CMODEL_DIR, reason="optional: set SOPHGO_CMODEL_DIR to a directory with the Sophgo cmodel libraries"
)


def _oracle_tool():
    path = ROOT / "tools" / "sophgo_cmodel_oracle.py"
    spec = importlib.util.spec_from_file_location("sophgo_cmodel_oracle", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("sophgo_cmodel_oracle", module)
    spec.loader.exec_module(module)
    return module


def _cmodel_dir(tool, chip: str) -> Path:
    try:
        return tool.find_cmodel_dir(CMODEL_DIR, [chip])
    except FileNotFoundError as missing:
        pytest.skip(str(missing))


@pytest.mark.parametrize("chip", ["BM1684X", "BM1688", "SG2260"])
def test_random_cases_match_the_live_cmodel(chip):
    tool = _oracle_tool()
    cmodel_dir = _cmodel_dir(tool, chip)
    seed = int(os.environ.get("SOPHGO_CMODEL_SEED", time.time_ns() % 2**32))
    count = int(os.environ.get("SOPHGO_CMODEL_CASES", "40"))
    maker = tool.CaseMaker(chip, seed)
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        func = tool.FUNCS[int(rng.integers(len(tool.FUNCS)))]
        pairs = tool.legal_dtype_pairs(func, chip)
        cases.append(maker.case(func, *pairs[int(rng.integers(len(pairs)))], in_place=bool(rng.integers(2))))
    results = tool.run_cases(chip, cases, cmodel_dir)
    for case in cases:
        result = results[case["id"]]
        assert "expect" in result, f"seed {seed}: the cmodel rejected a legal case {case['id']}: {result}"
        assert replay(case) == result["expect"], f"seed {seed}: {case['id']} differs from the cmodel"


@pytest.mark.parametrize("chip", ["BM1684X", "BM1688", "SG2260"])
def test_every_call_the_live_cmodel_rejects_raises_in_npusim(chip):
    """...and every call the document forbids, even where the oracle computes it (SG2260)."""
    tool = _oracle_tool()
    cases = tool.make_error_cases(chip)
    results = tool.run_cases(chip, cases, _cmodel_dir(tool, chip))
    for case in cases:
        if "expect_error" not in results[case["id"]] and "forbidden_by" not in case:
            continue  # the cmodel accepted it; the fixture generator drops such cases too
        with tpu.Core(chip) as core:
            setup(core, case)
            before = core.lmem.snapshot()
            with pytest.raises(ConstraintError):
                call(case)
            assert core.lmem.snapshot() == before
