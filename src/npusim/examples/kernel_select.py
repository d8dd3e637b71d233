"""Seed 003's "Template Sample": the ``KernelSelect`` kernel, in pyasc-style Python.

The C++ template (``main_sel_demo``) copies src0, src1 and the selection mask from GM to
UB through ``TQue`` s (CopyIn), runs ``Select`` on them (Compute) and copies the result
back (CopyOut).  The document gives its Compute for mode 0; for modes 1 and 2 it says to
replace the Select call with the mode's example, and to size the mask ``dataSize / 8``
bytes instead of ``dataSize / (256 / sizeof(float)) * 32``.

Each mode runs as a one-block launch on an emulated Atlas A2 and is checked byte for
byte against the output the Select document prints (``npusim/data/seed_examples.json``).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

from npusim import ascend as asc

from . import Outcome

DATA_SIZE = 256  # float32 elements
ONE_SELECT_DATA_SIZE = 256 // 4  # elements one repeat selects (256 / sizeof(float))


def sel_data_size(mode: int) -> int:
    """Bytes of the selection mask in GM: 128 in mode 0, ``dataSize / 8`` = 32 in modes 1 and 2."""
    return DATA_SIZE // ONE_SELECT_DATA_SIZE * 32 if mode == 0 else DATA_SIZE // 8


class KernelSelect:
    """The template's class, method for method (Init, Process = CopyIn, Compute, CopyOut)."""

    def __init__(self, mode: int) -> None:
        self.mode = asc.SelMode(mode)
        self.sel_data_size = sel_data_size(mode)

    def init(self, src0_gm: asc.GlobalAddress, src1_gm: asc.GlobalAddress, sel_gm: asc.GlobalAddress,
             dst_gm: asc.GlobalAddress) -> None:
        self.src0_global = asc.GlobalTensor()
        self.src1_global = asc.GlobalTensor()
        self.sel_mask_global = asc.GlobalTensor()
        self.dst_global = asc.GlobalTensor()
        self.src0_global.set_global_buffer(src0_gm)
        self.src1_global.set_global_buffer(src1_gm)
        self.sel_mask_global.set_global_buffer(sel_gm)
        self.dst_global.set_global_buffer(dst_gm)
        self.pipe = asc.TPipe()
        self.in_queue_src0 = asc.TQue(asc.TPosition.VECIN, 1)
        self.in_queue_src1 = asc.TQue(asc.TPosition.VECIN, 1)
        self.in_queue_sel_mask = asc.TQue(asc.TPosition.VECIN, 1)
        self.out_queue_dst = asc.TQue(asc.TPosition.VECOUT, 1)
        self.pipe.init_buffer(self.in_queue_src0, 1, DATA_SIZE * asc.float32.sizeof())
        self.pipe.init_buffer(self.in_queue_src1, 1, DATA_SIZE * asc.float32.sizeof())
        self.pipe.init_buffer(self.in_queue_sel_mask, 1, self.sel_data_size * asc.uint8.sizeof())
        self.pipe.init_buffer(self.out_queue_dst, 1, DATA_SIZE * asc.float32.sizeof())

    def process(self) -> None:
        self.copy_in()
        self.compute()
        self.copy_out()

    def copy_in(self) -> None:
        src0_local = self.in_queue_src0.alloc_tensor(asc.float32)
        src1_local = self.in_queue_src1.alloc_tensor(asc.float32)
        sel_mask_local = self.in_queue_sel_mask.alloc_tensor(asc.uint8)
        asc.data_copy(src0_local, self.src0_global, DATA_SIZE)
        asc.data_copy(src1_local, self.src1_global, DATA_SIZE)
        asc.data_copy(sel_mask_local, self.sel_mask_global, self.sel_data_size)
        self.in_queue_src0.enque(src0_local)
        self.in_queue_src1.enque(src1_local)
        self.in_queue_sel_mask.enque(sel_mask_local)

    def compute(self) -> None:
        src0_local = self.in_queue_src0.deque(asc.float32)
        src1_local = self.in_queue_src1.deque(asc.float32)
        mask_local = self.in_queue_sel_mask.deque(asc.uint8)
        dst_local = self.out_queue_dst.alloc_tensor(asc.float32)
        if self.mode == asc.SelMode.VSEL_TENSOR_SCALAR_MODE:
            asc.select(dst_local, mask_local, src0_local, 0.0, self.mode, DATA_SIZE)
        else:
            asc.select(dst_local, mask_local, src0_local, src1_local, self.mode, DATA_SIZE)
        self.out_queue_dst.enque(dst_local)
        self.in_queue_src0.free_tensor(src0_local)
        self.in_queue_src1.free_tensor(src1_local)
        self.in_queue_sel_mask.free_tensor(mask_local)

    def copy_out(self) -> None:
        dst_local = self.out_queue_dst.deque(asc.float32)
        asc.data_copy(self.dst_global, dst_local, DATA_SIZE)
        self.out_queue_dst.free_tensor(dst_local)


@asc.jit
def main_sel_demo(src0_gm: asc.GlobalAddress, src1_gm: asc.GlobalAddress, sel_gm: asc.GlobalAddress,
                  dst_gm: asc.GlobalAddress, mode: asc.ConstExpr[int]) -> None:
    op = KernelSelect(mode)
    op.init(src0_gm, src1_gm, sel_gm, dst_gm)
    op.process()


def seed_cases() -> list[dict]:
    text = resources.files("npusim.data").joinpath("seed_examples.json").read_text()
    return json.loads(text)["select"]


def inputs_for(case: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """src0, src1 and the GM selection mask of one seed example (mode 1 has no src1: zeros)."""
    src0 = np.frombuffer(bytes.fromhex(case["src0"]["hex"]), np.float32).copy()
    src1 = (np.frombuffer(bytes.fromhex(case["src1"]["hex"]), np.float32).copy() if "src1" in case
            else np.zeros(DATA_SIZE, np.float32))
    sel = np.frombuffer(bytes.fromhex(case["sel_mask"]["hex"]), np.uint8)
    return src0, src1, sel[: sel_data_size(case["sel_mode"])].copy()


def run_case(case: dict, chip: str = "A2") -> np.ndarray:
    """Launch ``main_sel_demo`` on one block for one seed example; return dst."""
    src0, src1, sel = inputs_for(case)
    dst = np.zeros(DATA_SIZE, np.float32)
    main_sel_demo.launch(1, (src0, src1, sel, dst, case["sel_mode"]), chip=chip)
    return dst


def run() -> list[Outcome]:
    outcomes = []
    for case in seed_cases():
        expected = bytes.fromhex(case["dst"]["hex"])
        got = run_case(case)
        mismatches = int(np.count_nonzero(got.view(np.uint32) != np.frombuffer(expected, np.uint32)))
        detail = f"256 float32 through TPipe/TQue, data_copy and select: {mismatches} of 256 elements differ"
        outcomes.append(Outcome(f"Select.md KernelSelect template, mode {case['sel_mode']}",
                                got.tobytes() == expected, detail))
    return outcomes
