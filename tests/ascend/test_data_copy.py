"""data_copy and data_copy_pad: block geometry, padding bytes, and every rejected call.

Expected bytes are computed here with plain loops over blocks from the document's
definitions (GM与UB高维切分数据搬运(DataCopy).md 表3; GMToUB非对齐数据搬运(DataCopyPad).md).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import (
    AlignmentError,
    DataCopyRoundDownWarning,
    OutOfBoundsError,
    OverlapError,
    PadRegisterUnusedWarning,
    ParameterRangeError,
    RuntimeMisuseError,
    UninitializedReadWarning,
    UnsupportedError,
)

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None)


def gm_tensor(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def test_count_form_round_trip_gm_ub_gm():
    src = np.arange(64, dtype=np.float16)
    out = np.zeros(64, dtype=np.float16)
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.half, asc.TPosition.VECIN, 64, 64)
        asc.data_copy(ub, gm_tensor(src), 64)
        asc.data_copy(gm_tensor(out), ub, 64)
    assert out.tobytes() == src.tobytes()


@SETTINGS
@given(count=st.integers(1, 6), length=st.integers(1, 3), src_gap=st.integers(0, 3), dst_gap=st.integers(0, 3),
       direction=st.sampled_from(["in", "out", "ub"]))
def test_block_form_moves_blocks_with_gaps(count, length, src_gap, dst_gap, direction):
    """Block i: block_len*32 bytes from src + i*(block_len+src_gap)*32 to dst + i*(block_len+dst_gap)*32."""
    src_bytes = (count * (length + src_gap)) * 32
    dst_bytes = (count * (length + dst_gap)) * 32
    source = np.arange(src_bytes, dtype=np.uint8) ^ 0x5A
    expected = bytearray(b"\xee" * dst_bytes)
    for i in range(count):
        s, d = i * (length + src_gap) * 32, i * (length + dst_gap) * 32
        expected[d : d + length * 32] = source[s : s + length * 32].tobytes()
    params = asc.DataCopyParams(count, length, src_gap, dst_gap)
    with asc.Core("A2") as core:
        if direction == "in":
            dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, dst_bytes)
            dst.write(np.full(dst_bytes, 0xEE, np.uint8))
            asc.data_copy(dst, gm_tensor(source), params)
            got = dst.read().tobytes()
        elif direction == "out":
            src = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 0, src_bytes)
            src.write(source)
            out = np.full(dst_bytes, 0xEE, np.uint8)
            asc.data_copy(gm_tensor(out), src, params)
            got = out.tobytes()
        else:
            src = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, src_bytes)
            dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, dst_bytes)
            src.write(source)
            dst.write(np.full(dst_bytes, 0xEE, np.uint8))
            asc.data_copy(dst, src, params)
            got = core.ub_read(4096, dst_bytes)
    assert got == bytes(expected)


def test_count_not_a_multiple_of_32_bytes_is_rejected_and_nothing_moves():
    src = np.arange(20, dtype=np.float32)
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 32)
        before = core.ub.snapshot()
        with pytest.raises(ParameterRangeError, match="not a multiple of 32") as err:
            asc.data_copy(ub, gm_tensor(src), 20)
        assert err.value.instruction == "data_copy" and err.value.operand == "count" and err.value.value == 20
        assert "data_copy_pad" in err.value.allowed
        assert core.ub.snapshot() == before


def test_gm_overrun_is_an_out_of_bounds_error_naming_the_buffer():
    src = np.zeros(32, dtype=np.float32)
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        g = gm_tensor(src)
        before = core.ub.snapshot()
        with pytest.raises(OutOfBoundsError, match="outside") as err:
            asc.data_copy(ub, g[8:], 32)
        assert "GM" in err.value.operand
        sized = asc.GlobalTensor()
        sized.set_global_buffer(src, 16)
        with pytest.raises(OutOfBoundsError, match="16 elements given to set_global_buffer"):
            asc.data_copy(ub, sized, 24)
        assert core.ub.snapshot() == before


def test_misaligned_ub_and_mismatched_types_are_rejected():
    src = np.zeros(64, dtype=np.float32)
    with asc.Core("A2"):
        odd = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 16, 32)
        with pytest.raises(AlignmentError, match="32-byte aligned"):
            asc.data_copy(odd, gm_tensor(src), 8)
        halves = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)
        with pytest.raises(UnsupportedError, match="same element type"):
            asc.data_copy(halves, gm_tensor(src), 16)
        with pytest.raises(TypeError, match="no call form"):
            asc.data_copy(halves, gm_tensor(src), 1.5)


def test_bfloat16_copy_is_a_product_difference():
    import ml_dtypes

    data = np.zeros(16, dtype=ml_dtypes.bfloat16)
    with asc.Core("A2"):
        asc.data_copy(asc.LocalTensor(asc.bfloat16, asc.TPosition.VECIN, 0, 16), gm_tensor(data), 16)
    with asc.Core("310P"), pytest.raises(UnsupportedError, match="bfloat16"):
        asc.data_copy(asc.LocalTensor(asc.bfloat16, asc.TPosition.VECIN, 0, 16), gm_tensor(data), 16)


def test_zero_blocks_are_a_nop_on_a2_and_rejected_on_310p():
    src = np.zeros(16, dtype=np.float32)
    with asc.Core("A2") as core:
        before = core.ub.snapshot()
        asc.data_copy(asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 16), gm_tensor(src),
                      asc.DataCopyParams(0, 2, 0, 0))
        assert core.ub.snapshot() == before
    with asc.Core("310P"), pytest.raises(ParameterRangeError, match="block_count"):
        asc.data_copy(asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 16), gm_tensor(src),
                      asc.DataCopyParams(0, 2, 0, 0))


def test_ub_to_ub_partial_overlap_is_rejected():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(256))
        a = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 0, 128)
        b = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 32, 128)
        with pytest.raises(OverlapError, match="partially overlap"):
            asc.data_copy(b, a, 64)


def test_writing_a_read_only_array_is_rejected():
    data = np.zeros(16, dtype=np.float32)
    data.flags.writeable = False
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 16)
        ub.write(np.ones(16, np.float32))
        with pytest.raises(RuntimeMisuseError, match="read-only"):
            asc.data_copy(gm_tensor(data), ub, 16)


def test_uninitialised_ub_read_is_reported_with_the_address():
    out = np.zeros(16, dtype=np.float32)
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 64, 16)
        with pytest.warns(UninitializedReadWarning, match="data_copy: src reads never-written UB byte 0x40"):
            asc.data_copy(gm_tensor(out), ub, 16)


def test_gm_workspace_reads_before_writes_are_reported():
    with asc.Core("A2"):
        workspace = asc.gm_alloc(asc.float32, 16)
        g = asc.GlobalTensor()
        g.set_global_buffer(workspace, 16)
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 16)
        with pytest.warns(UninitializedReadWarning, match="never-written GM workspace byte 0x0"):
            asc.data_copy(ub, g, 16)
        g.set_value(3, 2.5)
        assert g.get_value(3) == np.float32(2.5) and workspace.read(4)[3] == np.float32(2.5)


# -------------------------------------------------------------- DataCopyPad
def _pad_in(chip, data, block_count, block_len_elems, left, right, *, is_pad, value=0, src_gap=0, dst_gap=0,
            set_value=None, dtype=asc.float32):
    """GM -> UB with DataCopyPad; return the UB bytes of the destination rows (pre-filled with 0xEE)."""
    item = dtype.itemsize
    row = -(-(left + block_len_elems + right) * item // 32) * 32
    total = block_count * (row + dst_gap * 32)
    with asc.Core(chip) as core:
        core.ub_write(0, b"\xee" * total)
        dst = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, total // item)
        if set_value is not None:
            asc.set_pad_value(set_value)
        asc.data_copy_pad(dst, gm_tensor(data), asc.DataCopyExtParams(block_count, block_len_elems * item, src_gap,
                                                                      dst_gap),
                          asc.DataCopyPadExtParams(dtype, is_pad, left, right, value))
        return core.ub_read(0, total), core


def test_pad_with_value_fills_left_right_and_dummy():
    data = np.arange(1, 11, dtype=np.float32)  # two blocks of 5 floats
    got, core = _pad_in("A2", data, 2, 5, 1, 1, is_pad=True, value=-1.0)
    rows = np.frombuffer(got, np.float32).reshape(2, 8)
    # [left][5 data][right][dummy x1] = 8 floats = 32 bytes per row, pads and dummy = padding_value
    assert rows.tolist() == [[-1, 1, 2, 3, 4, 5, -1, -1], [-1, 6, 7, 8, 9, 10, -1, -1]]
    assert core.pad_value == -1.0  # is_pad loads the padding register


def test_pad_without_padding_repeats_the_first_element_as_dummy():
    data = np.arange(1, 11, dtype=np.int16)  # blocks of 5 int16 = 10 bytes, row 32 bytes
    got, _ = _pad_in("A2", data, 2, 5, 0, 0, is_pad=False, dtype=asc.int16)
    rows = np.frombuffer(got, np.int16).reshape(2, 16)
    assert rows[0].tolist() == [1, 2, 3, 4, 5] + [1] * 11
    assert rows[1].tolist() == [6, 7, 8, 9, 10] + [6] * 11


def test_pad_value_register_from_set_pad_value():
    data = np.arange(1, 9, dtype=np.uint8)
    got, _ = _pad_in("A2", data, 1, 8, 0, 24, is_pad=False, set_value=0, dtype=asc.uint8)
    # seed select example scenario 1: 8 mask bytes, right padding 24 with SetPadValue(0)
    assert got == bytes(range(1, 9)) + bytes(24)


def test_pad_bytes_without_a_padding_value_are_undefined():
    data = np.arange(1, 6, dtype=np.float32)
    got, core = _pad_in("A2", data, 1, 5, 0, 2, is_pad=False)
    assert np.frombuffer(got, np.float32)[:5].tolist() == [1, 2, 3, 4, 5]
    with core, pytest.warns(UninitializedReadWarning, match="byte 0x14"):
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 8)
        asc.abs(x, x, 8)


def test_pad_gaps_count_bytes_in_gm_and_blocks_in_ub():
    data = np.arange(1, 13, dtype=np.float32)
    got, _ = _pad_in("A2", data, 2, 3, 0, 0, is_pad=True, value=0.0, src_gap=4 * 3, dst_gap=1)
    rows = np.frombuffer(got, np.float32).reshape(2, 16)  # row = 32 bytes data+dummy, then 1 gap block
    assert rows[0, :3].tolist() == [1, 2, 3] and rows[1, :3].tolist() == [7, 8, 9]  # src gap 12 bytes = 3 floats
    assert rows[0, 8:].tolist() == [np.frombuffer(b"\xee" * 4, np.float32)[0]] * 8  # the gap block is untouched


def test_pad_out_drops_the_dummy_bytes():
    out = np.full(12, 0xEE, dtype=np.uint8)
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 0, 64)
        src.write(np.arange(64, dtype=np.uint8))
        asc.data_copy_pad(gm_tensor(out), src, asc.DataCopyExtParams(2, 5, 0, 1))
    # UB block i at i*32 (5 bytes padded to 32), GM block i at i*(5+1)
    assert out.tolist() == [0, 1, 2, 3, 4, 0xEE, 32, 33, 34, 35, 36, 0xEE]


def test_pad_parameter_rules():
    data = np.zeros(64, dtype=np.float32)
    with asc.Core("A2") as core:
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        dst.write(np.zeros(64, np.float32))
        before = core.ub.snapshot(), core.register_state()
        with pytest.raises(ParameterRangeError, match="multiple of sizeof"):
            asc.data_copy_pad(dst, gm_tensor(data), asc.DataCopyExtParams(1, 6, 0, 0),
                              asc.DataCopyPadExtParams(asc.float32))
        with pytest.raises(ParameterRangeError, match="exceed 32 bytes"):
            asc.data_copy_pad(dst, gm_tensor(data), asc.DataCopyExtParams(1, 8, 0, 0),
                              asc.DataCopyPadExtParams(asc.float32, True, 9, 0, 1.0))
        with pytest.raises(UnsupportedError, match="padding type"):
            asc.data_copy_pad(dst, gm_tensor(data), asc.DataCopyExtParams(1, 8, 0, 0),
                              asc.DataCopyPadExtParams(asc.float16))
        assert (core.ub.snapshot(), core.register_state()) == before
    with asc.Core("310P"):
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        with pytest.raises(UnsupportedError, match="DataCopyPad is not supported"):
            asc.data_copy_pad(dst, gm_tensor(data), asc.DataCopyExtParams(1, 8, 0, 0),
                              asc.DataCopyPadExtParams(asc.float32))


@pytest.mark.parametrize("count, moved", [(20, 64), (1, 0), (9999, 39968)])
def test_count_not_a_multiple_of_32_bytes_rounds_down_under_the_hardware_policy(count, moved):
    """GM与UB连续数据搬运(DataCopy).md: "若未对齐，搬运量会向下取整到32字节对齐" — under "hardware" the whole
    DataBlocks move (pyasc's test_copy: (1,) float32 moves nothing, (9999,) drops the last 7)."""
    src = np.arange(count, dtype=np.float32)
    with asc.Core("A2", tolerance="hardware") as core:
        core.ub_write(0, bytes(40000))
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 10000)
        with pytest.warns(DataCopyRoundDownWarning, match=f"moves the first {moved} bytes only"):
            asc.data_copy(ub, gm_tensor(src), count)
        got = core.ub_read(0, 40000)
    assert got[:moved] == src.tobytes()[:moved] and got[moved:] == bytes(40000 - moved)


# The 950 lowers DataCopyPad with isPad as copy_gm_to_ubuf_align_v2's enable_constant_pad, whose "false" is
# "填充值为输入数据的第一个值" (asc_copy_gm2ub_align_arch_3510.md): the pads are not the SetPadValue register
# the DataCopyPad page names (docs/semantics.md §5.2).
def test_950_pad_without_is_pad_is_rejected_under_strict_with_the_lowering_named():
    data = np.arange(1, 6, dtype=np.float32)
    with pytest.raises(UnsupportedError) as info:
        _pad_in("950", data, 1, 5, 1, 2, is_pad=False, set_value=7.0)
    message = str(info.value)
    assert "data_copy_pad" in message and "pad_params.is_pad" in message and "first element" in message
    assert "asc_copy_gm2ub_align_arch_3510.md" in message and "§5.2" in message


def test_950_pad_without_is_pad_repeats_each_blocks_first_element_under_hardware_policy():
    data = np.arange(1, 11, dtype=np.int16)  # two blocks of 5
    item = 2
    with asc.Core("950", tolerance="hardware") as core:
        core.ub_write(0, b"\xee" * 64)
        dst = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 32)
        asc.set_pad_value(7)
        with pytest.warns(PadRegisterUnusedWarning, match="first element"):
            asc.data_copy_pad(dst, gm_tensor(data), asc.DataCopyExtParams(2, 5 * item, 0, 0),
                              asc.DataCopyPadExtParams(asc.int16, False, 2, 1, 0))
        rows = np.frombuffer(core.ub_read(0, 64), np.int16).reshape(2, 16)
    # [2 left][5 data][1 right][8 dummy] = 16 int16 = 32 bytes; every byte but the data repeats the block's first
    assert rows[0].tolist() == [1, 1, 1, 2, 3, 4, 5] + [1] * 9
    assert rows[1].tolist() == [6, 6, 6, 7, 8, 9, 10] + [6] * 9


def test_950_pad_with_is_pad_and_a2_without_is_pad_keep_the_pages_padding():
    data = np.arange(1, 6, dtype=np.float32)
    got, _ = _pad_in("950", data, 1, 5, 1, 1, is_pad=True, value=-1.0)
    assert np.frombuffer(got, np.float32).tolist() == [-1, 1, 2, 3, 4, 5, -1, -1]
    got, _ = _pad_in("A2", data, 1, 5, 1, 1, is_pad=False, set_value=7.0)
    assert np.frombuffer(got, np.float32).tolist() == [7, 1, 2, 3, 4, 5, 7, 7]
