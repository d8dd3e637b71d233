"""set_loop_mode_para / reset_loop_mode_para (950) and the GM <-> UB copies that follow the registers.

Expected bytes: the vendor samples' golden data (``examples/01_simd_cpp_api/03_basic_api/00_data_movement/
data_copy_pad_gm2ub_ub2gm/scripts/gen_data.py``, scenarios 5 and 6) for the data bytes, and a reference
model written here from SetLoopModePara.md (iteration (i2, i1) moves both sides by
``i1 * loop1*Stride + i2 * loop2*Stride`` bytes; the outer loop slowest).  The dummy bytes DataCopyPad
leaves after a block follow its page (the block's first element with no left/right padding); the
samples' goldens put the padding value there instead (docs/semantics.md §5.11).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import AlignmentError, OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None)
OUT_TO_UB, UB_TO_OUT = asc.DataCopyMVType.OUT_TO_UB, asc.DataCopyMVType.UB_TO_OUT
L = asc.LoopModeParams


def gm(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def padded_blocks(golden: np.ndarray, data: np.ndarray, dst_start: int, src_start: int, length: int, row: int):
    """One DataCopyPad block into ``golden``: the data, then the dummy bytes (its first element)."""
    golden[dst_start : dst_start + length] = data[src_start : src_start + length]
    golden[dst_start + length : dst_start + row] = data[src_start]


def test_vendor_scenario_5_normal_mode_loop():
    """Scenario 5: int8 [1, 320] -> [1, 576]; blocks of 40 bytes (2 per call) padded to 64; loop1 2 x loop2 2,
    loop1 src/dst strides 80/128, loop2 160/288."""
    x = np.random.default_rng(9).integers(-10, 10, 320).astype(np.int8)
    golden = np.zeros(576, np.int8)
    for outer in range(2):
        for inner in range(2):
            for block in range(2):
                padded_blocks(golden, x, outer * 288 + inner * 128 + block * 64, outer * 160 + inner * 80 + block * 40,
                              40, 64)
    with asc.Core("950") as core:
        core.ub_write(0, bytes(576))
        ub = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, 576)
        asc.set_loop_mode_para(L(2, 2, 80, 128, 160, 288), OUT_TO_UB)
        asc.data_copy_pad(ub, gm(x), asc.DataCopyExtParams(2, 40, 0, 0, 0),
                          asc.DataCopyPadExtParams(asc.int8, True, 0, 0, -1))
        asc.reset_loop_mode_para(OUT_TO_UB)
        assert core.ub_read(0, 576) == golden.tobytes()
        assert core.loop_gm_to_ub == (1, 1, 80, 128, 160, 288)  # the reset keeps the strides


def test_vendor_scenario_6_five_dimensional_copy():
    """Scenario 6: GM int8 [2, 4, 3, 128, 126] -> UB [512, 128]: [2, 2, 2, 64, 126], each row padded to 128;
    loop1 over dimension 2, loop2 over dimension 1, a Python loop over dimension 0."""
    x = np.random.default_rng(6).integers(-10, 10, (2, 4, 3, 128, 126)).astype(np.int8)
    golden = np.zeros((512, 128), np.int8)
    row = 0
    for d0 in range(2):
        for d1 in range(2):
            for d2 in range(2):
                for d3 in range(64):
                    golden[row, :126] = x[d0, d1, d2, d3]
                    golden[row, 126:] = x[d0, d1, d2, d3, 0]
                    row += 1
    with asc.Core("950") as core:
        core.ub_write(0, bytes(512 * 128))
        ub = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, 512 * 128)
        g = gm(x.reshape(-1))
        asc.set_loop_mode_para(L(2, 2, 128 * 126, 64 * 128, 3 * 128 * 126, 2 * 64 * 128), OUT_TO_UB)
        for d0 in range(2):
            asc.data_copy_pad(ub[d0 * 2 * 2 * 64 * 128 :], g[d0 * 4 * 3 * 128 * 126 :],
                              asc.DataCopyExtParams(64, 126, 0, 0, 0),
                              asc.DataCopyPadExtParams(asc.int8, True, 0, 0, 0))
        asc.reset_loop_mode_para(OUT_TO_UB)
        assert core.ub_read(0, 512 * 128) == golden.tobytes()


# ------------------------------------------------------------------ reference model, data_copy
def looped_copy(dst: bytearray, src: bytes, dst_base: int, src_base: int, params, loops) -> None:
    """data_copy with DataCopyParams under loop mode, byte by byte."""
    count, length, src_gap, dst_gap = params
    l1, l2, s1, d1, s2, d2 = loops
    for i2 in range(l2):
        for i1 in range(l1):
            for b in range(count):
                for k in range(length * 32):
                    s = src_base + i1 * s1 + i2 * s2 + b * (length + src_gap) * 32 + k
                    d = dst_base + i1 * d1 + i2 * d2 + b * (length + dst_gap) * 32 + k
                    dst[d] = src[s]


@st.composite
def looped_case(draw):
    inbound = draw(st.booleans())
    count, length = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    src_gap, dst_gap = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    l1, l2 = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    span_dst = (count * (length + dst_gap)) * 32
    # the destination iterations must not overlap: space them by at least one call's span, UB side 32-aligned
    inner_dst = span_dst + 32 * draw(st.integers(0, 2)) + (0 if inbound else draw(st.integers(0, 31)))
    outer_dst = inner_dst * l1 + 32 * draw(st.integers(0, 2)) + (0 if inbound else draw(st.integers(0, 31)))
    src_step = 1 if inbound else 32
    inner_src = src_step * draw(st.integers(0, 40))
    outer_src = src_step * draw(st.integers(0, 80))
    return inbound, (count, length, src_gap, dst_gap), (l1, l2, inner_src, inner_dst, outer_src, outer_dst)


@SETTINGS
@given(looped_case(), st.integers(0, 3))
def test_data_copy_under_loop_mode_matches_the_reference(case, gm_blocks):
    inbound, params, loops = case
    l1, l2, s1, d1, s2, d2 = loops
    count, length, src_gap, dst_gap = params
    src_need = (l1 - 1) * s1 + (l2 - 1) * s2 + (count - 1) * (length + src_gap) * 32 + length * 32
    dst_need = (l1 - 1) * d1 + (l2 - 1) * d2 + (count - 1) * (length + dst_gap) * 32 + length * 32
    gm_offset = gm_blocks * 32
    with asc.Core("950") as core:
        if inbound:
            x = ((np.arange(gm_offset + src_need) * 7) % 251).astype(np.uint8)
            fill = bytes([0xAB]) * (-(-dst_need // 32) * 32)
            core.ub_write(0, fill)
            ub = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, len(fill))
            asc.set_loop_mode_para(L(*loops), OUT_TO_UB)
            asc.data_copy(ub, gm(x)[gm_offset:], asc.DataCopyParams(*params))
            expected = bytearray(fill)
            looped_copy(expected, x.tobytes(), 0, gm_offset, params, loops)
            assert core.ub_read(0, len(fill)) == bytes(expected)
        else:
            source = ((np.arange(-(-src_need // 32) * 32) * 5) % 253).astype(np.uint8)
            core.ub_write(0, source.tobytes())
            ub = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 0, source.size)
            out = np.full(gm_offset + dst_need, 0x11, np.uint8)
            expected = bytearray(out.tobytes())
            asc.set_loop_mode_para(L(*loops), UB_TO_OUT)
            asc.data_copy(gm(out)[gm_offset:], ub, asc.DataCopyParams(*params))
            looped_copy(expected, source.tobytes(), gm_offset, 0, params, loops)
            assert out.tobytes() == bytes(expected)


def test_the_plan_follows_the_registers_and_the_other_path_is_untouched():
    """One call shape, before, under and after loop mode: three results (no cached plan reused across them)."""
    x = np.arange(256, dtype=np.uint8)
    with asc.Core("950", trace=True) as core:
        core.ub_write(0, bytes(512))
        ub = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 512)
        g = gm(x)

        def copy() -> bytes:
            asc.data_copy(ub, g, 32)
            return core.ub_read(0, 512)

        plain = copy()
        assert core.trace[-1].registers_read == ("LOOP_OUTTOUB",)
        asc.set_loop_mode_para(L(2, 1, 64, 128, 0, 0), OUT_TO_UB)
        assert core.trace[-1].registers_written == ("LOOP_OUTTOUB",)
        assert core.loop_ub_to_gm == (1, 1, 0, 0, 0, 0)
        looped = copy()
        asc.reset_loop_mode_para(OUT_TO_UB)
        again = copy()
    assert plain[:32] == x[:32].tobytes() and plain[32:] == bytes(480)
    assert looped[128:160] == x[64:96].tobytes()
    assert again == looped  # the plain copy rewrites bytes 0..31 only


def test_ub_to_ub_copies_ignore_loop_mode():
    with asc.Core("950") as core:
        core.ub_write(0, bytes(range(64)) + bytes(192))
        asc.set_loop_mode_para(L(3, 3, 32, 32, 64, 64), OUT_TO_UB)
        asc.set_loop_mode_para(L(3, 3, 32, 32, 64, 64), UB_TO_OUT)
        src = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 64)
        dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 128, 128)
        asc.data_copy(dst, src, 64)
        assert core.ub_read(128, 128) == bytes(range(64)) + bytes(64)


# ------------------------------------------------------------------ rejected calls
@pytest.mark.parametrize("params, path, operand", [
    (L(1 << 21, 1, 0, 0, 0, 0), OUT_TO_UB, "loop_params.loop1_size"),
    (L(1, 1 << 21, 0, 0, 0, 0), UB_TO_OUT, "loop_params.loop2_size"),
    (L(2, 2, 0, 1 << 21, 0, 0), OUT_TO_UB, "loop_params.loop1_dst_stride"),
    (L(2, 2, 0, 0, 1 << 21, 0), UB_TO_OUT, "loop_params.loop2_src_stride"),
    (L(2, 2, 0, 48, 0, 0), OUT_TO_UB, "loop_params.loop1_dst_stride"),
    (L(2, 2, 40, 0, 0, 0), UB_TO_OUT, "loop_params.loop1_src_stride"),
    (L(2, 2, 1 << 40, 0, 0, 0), OUT_TO_UB, "loop_params.loop1_src_stride"),
    (L(2, 2, 0, 0, 0, 1 << 40), UB_TO_OUT, "loop_params.loop2_dst_stride"),
    (L(-1, 2, 0, 0, 0, 0), OUT_TO_UB, "loop_params.loop1_size"),
])
def test_set_loop_mode_para_ranges(params, path, operand):
    with asc.Core("950") as core:
        err = assert_rejected(core, ParameterRangeError, lambda: asc.set_loop_mode_para(params, path), operand=operand)
    assert err.instruction == "set_loop_mode_para"


@pytest.mark.parametrize("chip", ["A2", "A3", "310P", "310B", "910"])
def test_only_the_950_has_loop_mode(chip):
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, lambda: asc.set_loop_mode_para(L(2, 2, 0, 0, 0, 0), OUT_TO_UB),
                        operand="product")
        assert_rejected(core, UnsupportedError, lambda: asc.reset_loop_mode_para(UB_TO_OUT), operand="product")


def test_wrong_types():
    with asc.Core("950"):
        with pytest.raises(TypeError, match="DataCopyMVType"):
            asc.set_loop_mode_para(L(2, 2, 0, 0, 0, 0), 1)
        with pytest.raises(TypeError, match="no call form"):
            asc.set_loop_mode_para((2, 2, 0, 0, 0, 0), OUT_TO_UB)


def rejected_copy(error, loops, call, path=OUT_TO_UB, **fields):
    x = np.arange(4096, dtype=np.uint8)
    with asc.Core("950") as core:
        core.ub_write(0, bytes(8192))
        asc.set_loop_mode_para(L(*loops), path)
        ub = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 8192)
        before = x.tobytes()
        assert_rejected(core, error, lambda: call(ub, gm(x)), **fields)
    assert x.tobytes() == before


def test_under_loop_mode_gm_starts_32_byte_aligned():
    rejected_copy(AlignmentError, (2, 1, 64, 64, 0, 0), lambda ub, g: asc.data_copy(ub, g[8:], 32),
                  operand="src GM offset", value="0x8")
    rejected_copy(AlignmentError, (2, 1, 64, 64, 0, 0), lambda ub, g: asc.data_copy(g[4:], ub, 32), UB_TO_OUT,
                  operand="dst GM offset", value="0x4")
    rejected_copy(AlignmentError, (2, 1, 64, 64, 0, 0), lambda ub, g: asc.data_copy_pad(
        ub, g[3:], asc.DataCopyExtParams(1, 20, 0, 0, 0), asc.DataCopyPadExtParams(asc.uint8, False, 0, 0, 0)),
        operand="src GM offset")


def test_under_loop_mode_destination_bytes_are_written_once():
    rejected_copy(OverlapError, (2, 1, 64, 32, 0, 0), lambda ub, g: asc.data_copy(ub, g, 64),
                  operand="loop-mode registers")
    rejected_copy(OverlapError, (1, 2, 0, 0, 64, 0), lambda ub, g: asc.data_copy(g, ub, 32), UB_TO_OUT,
                  operand="loop-mode registers")


def test_interleaved_iterations_are_allowed():
    """约束说明: iterations may interleave (here loop1's destinations fall in the gaps of one call's blocks)."""
    x = np.arange(256, dtype=np.uint8)
    with asc.Core("950") as core:
        core.ub_write(0, bytes(256))
        ub = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 256)
        asc.set_loop_mode_para(L(2, 1, 64, 32, 0, 0), OUT_TO_UB)
        asc.data_copy(ub, gm(x), asc.DataCopyParams(2, 1, 0, 1))
        expected = x[0:32].tobytes() + x[64:96].tobytes() + x[32:64].tobytes() + x[96:128].tobytes() + bytes(128)
        assert core.ub_read(0, 256) == expected


def test_what_the_pages_leave_open_is_not_modelled():
    rejected_copy(UnsupportedError, (0, 2, 0, 0, 0, 0), lambda ub, g: asc.data_copy(ub, g, 32),
                  operand="loop-mode registers")
    slice_info = [asc.SliceInfo(0, 31, 0, 1, 32)]
    rejected_copy(UnsupportedError, (2, 1, 32, 32, 0, 0), lambda ub, g: asc.data_copy(ub, g, slice_info, slice_info),
                  operand="loop-mode registers")
