"""Seed 002's three TransDataTo5HD examples (int8 high/high, half, int32), run on an emulated Atlas A2.

The inputs and expected outputs are the matrices printed in the TransDataTo5HD document
("结果示例"), kept as raw little-endian bytes in ``npusim/data/seed_examples.json``.  Each
example runs in the document's recommended call form (16 UB addresses from
``GetPhyAddr``): one repeat, strides 0, 16 consecutive source and destination DataBlocks,
the destination zero-filled first.
"""

from __future__ import annotations

import json
from importlib import resources

from npusim import ascend as asc

from . import Outcome

SRC, DST = 0x0000, 0x1000


def seed_cases() -> list[dict]:
    text = resources.files("npusim.data").joinpath("seed_examples.json").read_text()
    return json.loads(text)["trans_data_to_5hd"]


def run_case(case: dict) -> bytes:
    """Run one seed example on a fresh A2 core; return the destination bytes."""
    dtype = getattr(asc, case["dtype"])
    src_bytes = bytes.fromhex(case["src"]["hex"])
    nbytes = len(bytes.fromhex(case["dst"]["hex"]))
    width = 32 // dtype.itemsize  # elements per DataBlock: dstLocal[width * i]
    with asc.Core("A2") as core:
        core.ub_write(SRC, src_bytes)
        core.ub_write(DST, bytes(nbytes))
        params = asc.TransDataTo5HDParams(case["dst_high_half"], case["src_high_half"], case["repeat_times"],
                                          case["dst_rep_stride"], case["src_rep_stride"])
        dst_list = [DST + width * i * dtype.itemsize for i in range(16)]
        src_list = [SRC + width * i * dtype.itemsize for i in range(16)]
        asc.trans_data_to_5hd(dst_list, src_list, params, dtype=dtype)
        return core.ub_read(DST, nbytes)


def run() -> list[Outcome]:
    outcomes = []
    for case in seed_cases():
        expected = bytes.fromhex(case["dst"]["hex"])
        got = run_case(case)
        halves = ""
        if case["dtype"] == "int8":
            halves = f", dst/src high half {case['dst_high_half']}/{case['src_high_half']}"
        detail = f"{len(expected)} bytes; first row expected {expected[:32].hex()} got {got[:32].hex()}"
        outcomes.append(Outcome(f"TransDataTo5HD.md example {case['dtype']}{halves}", got == expected, detail))
    return outcomes
