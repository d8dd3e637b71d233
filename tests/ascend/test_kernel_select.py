"""Seed 003's KernelSelect template kernel, run as a launch, against the document's bytes."""

from __future__ import annotations

import pytest

from npusim.examples import kernel_select


@pytest.mark.parametrize("case", kernel_select.seed_cases(), ids=lambda c: f"mode{c['sel_mode']}")
def test_kernel_select_matches_the_select_document(case):
    assert kernel_select.run_case(case).tobytes() == bytes.fromhex(case["dst"]["hex"])


def test_mode_1_writes_the_api_scratch_above_the_pipe_pool():
    """Select mode 1 on A2 duplicates the scalar into UB at TMP_UB_OFFSET = 184 KiB (ref §2.6),
    just above the 184 KiB the TPipe may hand out, so the kernel's buffers are untouched."""
    case = next(c for c in kernel_select.seed_cases() if c["sel_mode"] == 1)
    src0, src1, sel = kernel_select.inputs_for(case)
    import numpy as np

    dst = np.zeros(256, np.float32)
    scratch = []  # the scratch bytes and their written-shadow, as the block's core holds them at the end
    kernel_select.main_sel_demo.launch(1, (src0, src1, sel, dst, 1), chip="A2", after_block=lambda core: scratch.append(
        (core.ub_read(184 * 1024, 128), bool(core.ub.written[184 * 1024 : 184 * 1024 + 128].all()))))
    assert scratch == [(bytes(128), True)]  # 32 copies of the scalar 0.0f, written
    assert dst.tobytes() == bytes.fromhex(case["dst"]["hex"])


def test_every_mode_passes_in_the_demo():
    outcomes = kernel_select.run()
    assert [o.passed for o in outcomes] == [True, True, True]
