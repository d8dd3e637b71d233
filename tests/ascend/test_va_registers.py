"""The VA registers (docs/semantics.md §5.25): asc_set_va_reg (C-API/vector_compute/asc_set_va_reg.md) and the
register form of asc_transto5hd_b8/b16/b32 (asc_transto5hd.md).

Expected bytes come from the per-element TransDataTo5HD model of tests/ascend/reference_model.py (§4.2-4.3)
given the 16 + 16 addresses the register pairs hold: ``VAn``'s 8 then ``VA(n+1)``'s.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.engine.registry import by_name
from npusim.errors import (
    AlignmentError,
    OutOfBoundsError,
    ParameterRangeError,
    RuntimeMisuseError,
    UnsupportedError,
)

from . import reference_model as ref
from .conftest import assert_rejected

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
SETTINGS = settings(max_examples=40, derandomize=True, deadline=None)
UB_IMAGE = 0x20000


def image(seed: int = 11) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes()


def load_pair(first: int, addresses) -> None:
    """The pages' idiom: the 16 addresses into VA(first) and VA(first + 1), 8 each."""
    asc.asc_set_va_reg(asc.VaReg(first), addresses)
    asc.asc_set_va_reg(asc.VaReg(first + 1), addresses[8:])


def golden_nc1hwc0(x: np.ndarray, c0: int) -> np.ndarray:
    n, c, h, w = x.shape
    return x.reshape(n, c // c0, c0, h, w).transpose(0, 1, 3, 4, 2)


def test_registration():
    entry = by_name("ascend", "asc_set_va_reg")
    assert entry.pipe == "V" and entry.family == "register"
    assert set(entry.products) == {"A2", "A3", "950"}
    assert entry.products["A2"] == frozenset({"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32",
                                              "float32"})
    assert asc.VA0 is asc.VaReg.VA0 and [int(r) for r in asc.VaReg] == list(range(8))
    # asc_transto5hd.md 产品支持情况: the A2/A3 and the 950; the 950's b16 data includes bfloat16 (§4.4)
    for bits, on_950 in ((8, {"int8", "uint8"}), (16, {"int16", "uint16", "float16", "bfloat16"}),
                         (32, {"int32", "uint32", "float32"})):
        for sync in ("", "_sync"):
            transto5hd = by_name("ascend", f"asc_transto5hd_b{bits}{sync}")
            assert set(transto5hd.products) == {"A2", "A3", "950"}
            assert transto5hd.products["950"] == on_950 and transto5hd.products["A2"] == on_950 - {"bfloat16"}


# ------------------------------------------------------------------ asc_set_va_reg
@pytest.mark.parametrize("chip", ["A2", "A3", "950"])
def test_page_example_of_asc_set_va_reg_loads_four_registers(chip):
    """asc_set_va_reg.md 调用示例: 16 DataBlocks of half, dst_list / src_list split 8 + 8 over VA0-VA3."""
    with asc.Core(chip) as core:
        src = asc.LocalTensor(asc.half, VECIN, 0, 256)
        dst = asc.LocalTensor(asc.half, VECOUT, 0x1000, 256)
        src_list = [src[16 * i:] for i in range(16)]
        dst_list = [dst[16 * i:] for i in range(16)]
        load_pair(0, dst_list)
        load_pair(2, src_list)
        assert core.va_regs[:4] == (tuple(0x1000 + 32 * i for i in range(8)), tuple(0x1100 + 32 * i for i in range(8)),
                                    tuple(32 * i for i in range(8)), tuple(0x100 + 32 * i for i in range(8)))
        assert core.va_regs[4:] == (None,) * 4


def test_a_register_keeps_the_first_eight_and_is_written_whole():
    with asc.Core("A2") as core:
        asc.asc_set_va_reg(asc.VA5, [0x40 * i for i in range(20)])
        assert core.va_regs[5] == tuple(0x40 * i for i in range(8))
        mixed = [asc.LocalTensor(asc.int32, VECIN, 0x2000 + 32 * i, 8) if i % 2 else 0x3000 + 32 * i for i in range(8)]
        asc.asc_set_va_reg(asc.VA5, mixed)
        assert core.va_regs[5] == tuple((0x2000 if i % 2 else 0x3000) + 32 * i for i in range(8))
        assert core.va_regs[:5] + core.va_regs[6:] == (None,) * 7


def _set(addr=asc.VA0, entries=None):
    """The call; ``entries`` a list, or a function making it (tensors need the active core)."""
    return lambda: asc.asc_set_va_reg(addr, [32 * i for i in range(8)] if entries is None else
                                      entries() if callable(entries) else entries)


@pytest.mark.parametrize(("call", "error", "operand", "part"), [
    (_set(addr=8), ParameterRangeError, "addr", "VA0 .. VA7"),
    (_set(addr=-1), ParameterRangeError, "addr", "参数说明"),
    (_set(entries=[32 * i for i in range(7)]), ParameterRangeError, "src_array length", "参数说明"),
    (_set(entries=[0x20, 0x44] + [0] * 6), AlignmentError, "src_array[1] address", "约束说明"),
    (_set(entries=[0x100000] + [0] * 7), OutOfBoundsError, "src_array[0] address", "§5.25"),
    (_set(entries=lambda: [asc.LocalTensor(asc.bfloat16, VECIN, 32 * i, 16) for i in range(8)]), UnsupportedError,
     "src_array dtype", "函数原型"),
])
def test_set_va_reg_rules_name_the_rule_and_change_nothing(call, error, operand, part):
    with asc.Core("A2") as core:
        asc.asc_set_va_reg(asc.VA0, [0x1000 + 32 * i for i in range(8)])
        assert_rejected(core, error, call, part, instruction="asc_set_va_reg", operand=operand)
        assert core.va_regs[0] == tuple(0x1000 + 32 * i for i in range(8))


def test_set_va_reg_type_errors():
    with asc.Core("A2"):
        for call in (_set(addr=1.0), _set(addr="VA0"), _set(entries=0x1000), _set(entries=[1.0] * 8),
                     _set(entries=[asc.LocalTensor(asc.half, VECIN, 0, 16), asc.LocalTensor(asc.float32, VECIN, 32, 8)]
                          + [0] * 6)):
            with pytest.raises(TypeError):
                call()


def test_set_va_reg_products_without_it():
    for chip in ("310P", "310B", "910"):
        with asc.Core(chip) as core:
            assert_rejected(core, UnsupportedError, _set(), "产品支持情况", instruction="asc_set_va_reg",
                            operand="product")


# ------------------------------------------------------------------ asc_transto5hd with VA registers
@pytest.mark.parametrize("chip", ["A2", "A3", "950"])
def test_page_examples_of_asc_transto5hd_with_the_va_registers(chip):
    """asc_transto5hd.md example 1 (16x16 half, VA0/VA1 <- dst_list, VA2/VA3 <- src_list) and example 2
    (NCHW (2, 32, 16, 16) -> NC1HWC0, the registers reloaded in each of 4 loop turns), on every product of
    the page."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 32, 16, 16)).astype(np.float16)
    with asc.Core(chip) as core:
        core.ub_write(0, x.tobytes())
        core.ub_write(0x8000, bytes(x.nbytes))
        load_pair(0, [0x8000 + 32 * i for i in range(16)])
        load_pair(2, [32 * i for i in range(16)])
        asc.asc_transto5hd_b16(asc.VA0, asc.VA2, 1, 0, 0)
        assert core.ub_read(0x8000, 512) == x.reshape(-1)[:256].reshape(16, 16).T.tobytes()
        for j in range(4):
            load_pair(0, [0x8000 + 2 * (4096 * j + i * 16) for i in range(16)])
            load_pair(2, [2 * (4096 * j + i * 256) for i in range(16)])
            asc.asc_transto5hd_b16(asc.VA0, asc.VA2, 16, 16, 1)
        assert core.ub_read(0x8000, x.nbytes) == golden_nc1hwc0(x, 16).tobytes()


blocks = st.lists(st.integers(0, 0x3FF), min_size=16, max_size=16, unique=True)


@SETTINGS
@given(bits=st.sampled_from([8, 16, 32]), dst_blocks=blocks, src_blocks=blocks, pairs=st.sampled_from(
    [(0, 2), (2, 0), (4, 6), (6, 1), (1, 4)]), repeat=st.integers(0, 3), dst_stride=st.integers(0, 40),
    src_stride=st.integers(0, 40), halves=st.tuples(st.booleans(), st.booleans()), sync=st.booleans(),
    chip=st.sampled_from(["A2", "950"]))
def test_the_register_form_is_the_list_form_of_what_the_pairs_hold(bits, dst_blocks, src_blocks, pairs, repeat,
                                                                   dst_stride, src_stride, halves, sync, chip):
    dst_list = [0x10000 + 32 * b for b in dst_blocks]  # sources below 0x9000, destinations from 0x10000
    src_list = [32 * b for b in src_blocks]
    flags = halves if bits == 8 else ()
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        before = core.ub_read(0, UB_IMAGE)
        load_pair(pairs[0], dst_list)
        load_pair(pairs[1], src_list)
        function = getattr(asc, f"asc_transto5hd_b{bits}" + ("_sync" if sync else ""))
        function(asc.VaReg(pairs[0]), asc.VaReg(pairs[1]), repeat, dst_stride, src_stride, *flags)
        expected = ref.trans_data_to_5hd(before, bits // 8, dst_list, src_list, repeat, dst_stride, src_stride,
                                         *(flags or (False, False)))
        assert core.ub_read(0, UB_IMAGE) == expected
        assert len(core.sync_log) == int(sync)


def test_a_kept_plan_reads_the_registers_again():
    """The plan of a register-form call is keyed on what the registers hold: reloading them moves other blocks."""
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        before = core.ub_read(0, UB_IMAGE)
        for shift in (0, 0x1000, 0):
            dst_list = [0x8000 + shift + 32 * i for i in range(16)]
            src_list = [shift + 64 * i for i in range(16)]
            load_pair(0, dst_list)
            load_pair(2, src_list)
            core.ub_write(0, before)
            asc.asc_transto5hd_b16(asc.VA0, asc.VA2, 1, 0, 0)
            assert core.ub_read(0, UB_IMAGE) == ref.trans_data_to_5hd(before, 2, dst_list, src_list, 1, 0, 0, False,
                                                                      False)


@pytest.mark.parametrize("chip", ["A2", "950"])
def test_register_form_rules(chip):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        load_pair(0, [0x8000 + 32 * i for i in range(16)])
        load_pair(2, [32 * i for i in range(16)])
        assert_rejected(core, RuntimeMisuseError, lambda: asc.asc_transto5hd_b16(asc.VA0, asc.VA4, 1, 0, 0),
                        "asc_set_va_reg", instruction="asc_transto5hd_b16", operand="src (VA4)")
        asc.asc_set_va_reg(asc.VA4, [0] * 8)
        assert_rejected(core, RuntimeMisuseError, lambda: asc.asc_transto5hd_b16(asc.VA4, asc.VA2, 1, 0, 0),
                        "never set", instruction="asc_transto5hd_b16", operand="dst (VA5)")
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_transto5hd_b32(asc.VA7, asc.VA2, 1, 0, 0),
                        "VA0 .. VA6", instruction="asc_transto5hd_b32", operand="dst")
        held = core.va_regs
        assert_rejected(core, AlignmentError, lambda: load_pair(0, [0x8000 + 32 * i for i in range(15)] + [0x9001]),
                        "约束说明", instruction="asc_set_va_reg", operand="src_array[7] address")
        assert core.va_regs == held  # VA0 got the 8 it held already (a call of its own); VA1 kept its own
        with pytest.raises(TypeError):
            asc.asc_transto5hd_b16(0.0, asc.VA2, 1, 0, 0)
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_transto5hd_b16(0, 9, 1, 0, 0), "VA0 .. VA6",
                        instruction="asc_transto5hd_b16", operand="src")
        before = core.ub_read(0, UB_IMAGE)
        asc.asc_transto5hd_b16(0, 2, 1, 0, 0)  # the registers' numbers stand for them
        assert core.ub_read(0, UB_IMAGE) == ref.trans_data_to_5hd(before, 2, [0x8000 + 32 * i for i in range(16)],
                                                                  [32 * i for i in range(16)], 1, 0, 0, False, False)
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_transto5hd_b16(0, 2, 256, 0, 0), "uint8_t",
                        instruction="asc_transto5hd_b16", operand="repeat")
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_transto5hd_b16(0, 2, 1, 65536, 0), "uint16_t",
                        instruction="asc_transto5hd_b16", operand="dst_stride")
        before = core.ub_read(0, UB_IMAGE)
        asc.asc_transto5hd_b8(0, 2, 0, 7, 7, True, True)  # repeat 0: a NOP (its parameters checked)
        assert core.ub_read(0, UB_IMAGE) == before


def test_products_without_the_c_api():
    with asc.Core("310B") as core:  # TransDataTo5HD, but neither the VA registers nor asc_transto5hd
        assert_rejected(core, UnsupportedError, lambda: asc.asc_transto5hd_b16(asc.VA0, asc.VA2, 1, 0, 0),
                        "产品支持情况", instruction="asc_transto5hd_b16", operand="product")
