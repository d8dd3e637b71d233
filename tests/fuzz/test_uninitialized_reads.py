"""Reads of never-written bytes: a warning naming instruction, operand and the first such byte.

Per vendor: the exact first address (to the byte, not the element) in the warning, the same
read as an :class:`UninitializedReadError` in strict mode (with nothing changed), and the
documented opt-outs (a warnings filter; ``uninit="ignore"``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from npusim import ascend as asc
from npusim import sophgo as tpu
from npusim.errors import UninitializedReadError, UninitializedReadWarning

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT


def half_written(core: asc.Core, addr: int, nbytes: int, written: int) -> None:
    """UB ``[addr, addr + written)`` holds data; ``[addr + written, addr + nbytes)`` was never written."""
    core.ub_write(addr, bytes(range(256)) * (written // 256) + bytes(written % 256))
    assert not core.ub.written[addr + written : addr + nbytes].any()


# ------------------------------------------------------------------------ Ascend
@pytest.mark.parametrize("instruction", ["add", "select", "compare"])
def test_ascend_warning_names_instruction_operand_and_first_byte(instruction):
    with asc.Core("A2") as core:
        half_written(core, 0x0000, 512, 512)
        half_written(core, 0x1000, 512, 0x81)  # byte 0x1081 is the first never written: inside element 64
        core.ub_write(0x2000, bytes(32))  # sel_mask
        dst = asc.LocalTensor(asc.float16, VECOUT, 0x3000, 256)
        src0 = asc.LocalTensor(asc.float16, VECIN, 0x0000, 256)
        src1 = asc.LocalTensor(asc.float16, VECIN, 0x1000, 256)
        sel = asc.LocalTensor(asc.uint8, VECIN, 0x2000, 32)
        call = {
            "add": lambda: asc.add(dst, src0, src1, 256),
            "select": lambda: asc.select(dst, sel, src0, src1, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 256),
            "compare": lambda: asc.compare(dst.reinterpret_cast(asc.uint8), src0, src1, asc.CMPMODE.LT, 256),
        }[instruction]
        with pytest.warns(UninitializedReadWarning) as caught:
            call()
    assert [str(w.message) for w in caught] == [f"{instruction}: src1 reads never-written UB byte 0x1081"]


def test_ascend_gm_read_names_the_first_never_written_gm_byte():
    workspace = asc.gm_alloc(asc.float32, 64)
    gm = asc.GlobalTensor()
    gm.set_global_buffer(workspace)
    for i in range(10):
        gm.set_value(i, float(i))  # bytes [0, 40) written
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.float32, VECIN, 0, 64)
        with pytest.warns(UninitializedReadWarning) as caught:
            asc.data_copy(ub, gm, 64)
    assert [str(w.message) for w in caught] == ["data_copy: src reads never-written GM workspace byte 0x28"]


def test_ascend_strict_mode_raises_with_the_address_and_changes_nothing():
    with asc.Core("A2", strict=True) as core:
        half_written(core, 0x0000, 512, 512)
        half_written(core, 0x1000, 512, 0x81)
        dst = asc.LocalTensor(asc.float16, VECOUT, 0x3000, 256)
        src0, src1 = asc.LocalTensor(asc.float16, VECIN, 0, 256), asc.LocalTensor(asc.float16, VECIN, 0x1000, 256)
        before = core.ub.snapshot(), core.register_state()
        with pytest.raises(UninitializedReadError) as caught:
            asc.add(dst, src0, src1, 256)
        assert (core.ub.snapshot(), core.register_state()) == before
    err = caught.value
    assert (err.instruction, err.operand, err.value) == ("add", "src1 byte address", 0x1081)
    assert "add: src1 byte address = 0x1081" in str(err)


def test_ascend_strict_launch_and_strict_gm_raise():
    @asc.jit
    def copy_in(x):
        gm = asc.GlobalTensor()
        gm.set_global_buffer(x)
        asc.data_copy(asc.LocalTensor(asc.float32, VECIN, 0, 64), gm, 64)

    with pytest.raises(UninitializedReadError) as caught:
        copy_in.launch(1, (asc.gm_alloc(asc.float32, 64, uninit="raise"),), strict=True)
    assert caught.value.value == 0


def test_ascend_never_set_cmpmask_is_an_uninitialised_read_too():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(1024))
        t = asc.LocalTensor(asc.float16, VECIN, 0, 256)
        with pytest.warns(UninitializedReadWarning, match="select: reads CMPMASK, which was never set"):
            asc.select(asc.LocalTensor(asc.float16, VECOUT, 0x1000, 128), t, t, 1, asc.BinaryRepeatParams(),
                       asc.SelMode.VSEL_CMPMASK_SPR)


def test_ascend_opt_outs_warnings_filter_and_memory_policy():
    with asc.Core("A2") as core:
        dst = asc.LocalTensor(asc.float16, VECOUT, 0x3000, 256)
        never = asc.LocalTensor(asc.float16, VECIN, 0, 256)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.filterwarnings("ignore", category=UninitializedReadWarning)  # documented opt-out 1
            asc.abs(dst, never, 256)
            core.ub.uninit = "ignore"  # documented opt-out 2: the UB's policy
            warnings.simplefilter("error")
            asc.abs(dst, never, 256)
        assert dst.read().tobytes() == bytes(512)  # never-written UB reads as zeros


# ------------------------------------------------------------------------ Sophgo
def sophgo_sources(core: tpu.Core) -> list:
    """src0 at 0x1000 of lanes 0-1 (lane 1 partly written); src1, src2, src3 fully written."""
    lane = core.chip.local_mem_bytes
    core.write_local_bytes(0, 0x1000, bytes(64))
    core.write_local_bytes(1, 0x1000, bytes(10))  # lane 1: bytes 0x1000 .. 0x1009 only
    for offset in (0x2000, 0x3000, 0x3800):
        for index in range(2):
            core.write_local_bytes(index, offset, bytes(64))
    assert lane * 1 + 0x100A == core.chip.local_mem_bytes + 0x100A
    return [tpu.variable_t(type=tpu.TENSOR, addr=offset) for offset in (0x1000, 0x2000, 0x3000, 0x3800)]


SHAPE = tpu.dim4(1, 2, 1, 16)  # channel c in lane c, 16 FP32 at the operand's offset


def test_sophgo_select_warning_names_the_first_never_written_byte():
    with tpu.Core("BM1688") as core:
        sources = sophgo_sources(core)
        with pytest.warns(UninitializedReadWarning) as caught:
            tpu.tpu_bdc_greater_select(0, *sources, SHAPE, tpu.DT_FP32, tpu.DT_FP32)
    first = core.chip.local_mem_bytes + 0x100A
    assert [str(w.message) for w in caught] == [
        f"tpu_bdc_greater_select: src0 reads never-written local memory byte {first:#x}"]


def test_sophgo_vector_operand_and_read_local_name_their_first_byte():
    with tpu.Core("BM1688") as core:
        sources = sophgo_sources(core)
        vector = tpu.variable_t(type=tpu.VECTOR, addr=0x1008)  # lane 0 reads 0x1008.., lane 1 reads 0x1008..0x100B
        with pytest.warns(UninitializedReadWarning) as caught:
            tpu.tpu_bdc_less_select(0, vector, *sources[1:], SHAPE, tpu.DT_FP32, tpu.DT_FP32)
        with pytest.warns(UninitializedReadWarning) as read:
            core.read_local(0x1000, SHAPE, tpu.DT_FP32)
    first = core.chip.local_mem_bytes + 0x100A
    assert [str(w.message) for w in caught] == [
        f"tpu_bdc_less_select: src0 reads never-written local memory byte {first:#x}"]
    assert [str(w.message) for w in read] == [f"read_local: tensor reads never-written local memory byte {first:#x}"]


def test_sophgo_strict_mode_raises_with_the_address_and_changes_nothing():
    with tpu.Core("BM1688", uninit="raise") as core:
        sources = sophgo_sources(core)
        before = core.lmem.snapshot()
        with pytest.raises(UninitializedReadError) as caught:
            tpu.tpu_bdc_equal_select(0, *sources, SHAPE, tpu.DT_FP32, tpu.DT_FP32)
        assert core.lmem.snapshot() == before
    assert caught.value.operand == "src0 byte address" and caught.value.value == core.chip.local_mem_bytes + 0x100A


def test_sophgo_opt_outs_policy_and_warnings_filter():
    for policy in ("ignore", "warn"):
        with tpu.Core("BM1688", uninit=policy) as core:
            sources = sophgo_sources(core)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                if policy == "warn":
                    warnings.filterwarnings("ignore", category=UninitializedReadWarning)
                tpu.tpu_bdc_greater_select(0, *sources, SHAPE, tpu.DT_FP32, tpu.DT_FP32)
            assert np.all(core.read_local(0, SHAPE, tpu.DT_FP32) == 0)
