"""The 950's newer calls interrupted anywhere (the sweep of tests/ascend/interrupts.py) have changed nothing:
hifloat8_t Cast lines (docs/semantics.md §5.32), AscendQuant's vector function per tensor, per channel and per
group (§5.30) and SoftMax's register-ISA vector functions (docs/softmax.md §2) — UB, its written-shadow, the
mask registers as before, or exactly as the uninterrupted call leaves them once its commit has begun."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend import adv
from npusim.ascend.adv import AscendQuantParam, AscendQuantPolicy, QuantConfig
from npusim.ascend.shape_info import ShapeInfo
from npusim.dtypes import DTYPES

from .interrupts import Machine, points, run_hooked, sweep
from .test_interrupted_calls import core_with_data, t

R, VECOUT, VECCALC = asc.RoundMode, asc.TPosition.VECOUT, asc.TPosition.VECCALC
F16, F32 = asc.float16, asc.float32

HIF8 = {
    "float -> hifloat8_t CAST_HYBRID, count": lambda h8, h, f: asc.cast(h8, f, R.CAST_HYBRID, 200),
    "half -> hifloat8_t CAST_ROUND, mask, strided": lambda h8, h, f: asc.cast(h8, h, R.CAST_ROUND, 128, 2,
                                                                             asc.UnaryRepeatParams(1, 1, 4, 8)),
    "hifloat8_t -> half, count (saturating)": lambda h8, h, f: asc.cast(h, h8, R.CAST_NONE, 300),
}


@pytest.mark.parametrize("form", sorted(HIF8))
def test_hifloat8_cast(form):
    core = core_with_data("950")
    with core:
        codes, half, single = t(asc.hifloat8, 0x1000, 1024, VECOUT), t(F16, 0x3000, 1024), t(F32, 0x4000, 512)
    assert sweep(Machine(core), lambda: HIF8[form](codes, half, single), fresh_plans=True)


QUANT = {
    "per tensor, float -> hifloat8_t": lambda c, d8, h8, h, f, s: adv.quant(h8, f, 0.5, 0.25, 256),
    "per channel, half -> fp8_e4m3fn, offset tensor": lambda c, d8, h8, h, f, s: adv.quant(
        t(DTYPES["float8_e4m3fn"], 0x5000, 256, VECOUT), h, s, t(F16, 0x7200, 64), 256, scale_count=64,
        offset_count=64),
    "per group along n, half -> int8": lambda c, d8, h8, h, f, s: adv.quant(
        d8, h, s, 0.0, config=QuantConfig(has_offset=True, round_mode=R.CAST_FLOOR),
        policy=AscendQuantPolicy.PER_GROUP, para=AscendQuantParam(4, 64, 256, 32)),
}


@pytest.mark.parametrize("form", sorted(QUANT))
def test_quant(form):
    core = core_with_data("950")
    with core:
        dst8, hif8 = t(asc.int8, 0x5000, 256, VECOUT), t(asc.hifloat8, 0x5400, 256, VECOUT)
        half, single, scale = t(F16, 0x1000, 256), t(F32, 0x2000, 256), t(F16, 0x7000, 64)
    assert sweep(Machine(core), lambda: QUANT[form](core, dst8, hif8, half, single, scale), fresh_plans=True)


def sweep_all_or_nothing(machine: Machine, call) -> int:
    """SoftMax's register-ISA call runs inside ``_restored_on_failure`` (its SetVectorMask commits before the vector
    function; an exception after the commit is undone too), so an interrupted call leaves the state exactly as
    before it or exactly as the uninterrupted call does, at every event: checked here at every one (the shared
    sweep asks for the final state once a commit has begun)."""
    with machine.core:
        machine.restore(before := machine.state(), fresh_plans=True)
        call()
        after = machine.state()
        assert after != before
        machine.restore(before, fresh_plans=True)
        events = run_hooked(call, 0, KeyboardInterrupt).count
        for at in points(events, 10**6, 0):
            machine.restore(before, fresh_plans=True)
            hook = run_hooked(call, at, KeyboardInterrupt)
            assert hook.fired and machine.state() in (before, after), f"interrupted at event {at} of {events}"
        machine.restore(before, fresh_plans=True)
        call()
        assert machine.state() == after
    return events


@pytest.mark.parametrize("rows, stride, original", [(3, 8, (3, 6)), (5, 16, (5, 16)), (2, 136, (2, 70))],
                         ids=["srcK 8 (the mask register too)", "srcK 16", "a tail"])
def test_softmax(rows, stride, original):
    core = core_with_data("950")
    with core:
        core.ub_write(0x1000, np.linspace(-3, 3, rows * stride, dtype=np.float32).tobytes())
        src = t(F32, 0x1000, rows * stride)
        src.set_shape_info(ShapeInfo((rows, stride), original))
        dst = t(F32, 0x3000, rows * stride, VECOUT)
        sums, maxima = t(F32, 0x5000, rows * 8, VECOUT), t(F32, 0x5400, rows * 8, VECOUT)
        work = t(asc.uint8, 0x6000, 8192, VECCALC)
    assert sweep_all_or_nothing(Machine(core), lambda: adv.softmax(dst, sums, maxima, src, adv.SoftmaxTiling(), work))
