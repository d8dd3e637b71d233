"""Seed 003's three Select examples (256 float32 elements), run on an emulated Atlas A2.

The inputs and the expected output are the vectors printed in the Select
document ("结果示例"), kept as raw little-endian bytes in
``npusim/data/seed_examples.json``.  Each example runs in the high-dimensional
form of the document (mask 64, 4 repeats, strides {1,1,1,8,8,8}) and in the
count form (count 256).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

from npusim import ascend as asc

from . import Outcome

SRC0, SRC1, SEL, DST = 0x0000, 0x0400, 0x0800, 0x1000


def seed_cases() -> list[dict]:
    text = resources.files("npusim.data").joinpath("seed_examples.json").read_text()
    return json.loads(text)["select"]


def run_case(case: dict, form: str) -> bytes:
    """Run one seed example on a fresh A2 core; return the 1024 dst bytes."""
    with asc.Core("A2") as core:
        src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC0, 256)
        src1 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC1, 256)
        sel_bytes = bytes.fromhex(case["sel_mask"]["hex"])
        sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, SEL, len(sel_bytes))
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 256)
        core.ub_write(SRC0, bytes.fromhex(case["src0"]["hex"]))
        if "src1" in case:
            core.ub_write(SRC1, bytes.fromhex(case["src1"]["hex"]))
        core.ub_write(SEL, sel_bytes)
        core.ub_write(DST, bytes(1024))
        mode = asc.SelMode(case["sel_mode"])
        other = case.get("src1_scalar", 0.0) if mode == asc.SelMode.VSEL_TENSOR_SCALAR_MODE else src1
        if form == "count":
            asc.select(dst, sel, src0, other, mode, 256)
        else:
            asc.select(dst, sel, src0, other, mode, 64, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
        return core.ub_read(DST, 1024)


def run() -> list[Outcome]:
    outcomes = []
    for case in seed_cases():
        expected = bytes.fromhex(case["dst"]["hex"])
        for form in ("mask", "count"):
            got = run_case(case, form)
            exp_v = np.frombuffer(expected, np.float32)[:4]
            got_v = np.frombuffer(got, np.float32)[:4]
            detail = f"expected {np.array2string(exp_v, precision=6)}... got {np.array2string(got_v, precision=6)}..."
            label = "mask 64 x 4 repeats" if form == "mask" else "count 256"
            outcomes.append(Outcome(f"Select.md example, mode {case['sel_mode']} ({label})", got == expected, detail))
    return outcomes
