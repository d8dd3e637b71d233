"""One bad-input test per documented Select constraint.

Each checks the error class, that the message names the instruction, operand,
value and allowed range, and that UB (contents and written-shadow), CMPMASK and
the vector mask register are unchanged.
"""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim.ascend.tensor import Lease
from npusim.errors import (
    AlignmentError,
    NoActiveCoreError,
    OutOfBoundsError,
    OverlapError,
    ParameterRangeError,
    RuntimeMisuseError,
    UnsupportedError,
    WrongCoreError,
)

from .conftest import assert_rejected, fill
from .reference_model import SelectCase, normal_lanes, run_select

F32, F16, U8 = asc.float32, asc.float16, asc.uint8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
MODE0, MODE1, MODE2 = (asc.SelMode.VSEL_CMPMASK_SPR, asc.SelMode.VSEL_TENSOR_SCALAR_MODE,
                       asc.SelMode.VSEL_TENSOR_TENSOR_MODE)
DEFAULT = asc.BinaryRepeatParams()


def operands(dtype=F32, dst=0x1000, src0=0x2000, src1=0x3000, sel=0x4000, n=256):
    return (asc.LocalTensor(dtype, VECOUT, dst, n), asc.LocalTensor(U8, VECIN, sel, 256),
            asc.LocalTensor(dtype, VECIN, src0, n), asc.LocalTensor(dtype, VECIN, src1, n))


def test_no_active_core():
    with asc.Core("A2"):
        dst, sel, src0, src1 = operands()
    with pytest.raises(NoActiveCoreError, match="select: core"):
        asc.select(dst, sel, src0, src1, MODE2, 64)


@pytest.mark.parametrize("operand", ["dst", "src0", "src1", "sel_mask"])
def test_unaligned_operand(a2, operand):
    addrs = {"dst": 0x1000, "src0": 0x2000, "src1": 0x3000, "sel": 0x4000}
    key = "sel" if operand == "sel_mask" else operand
    addrs[key] = addrs[key] + 4
    dst, sel, src0, src1 = operands(**addrs)
    assert_rejected(a2, AlignmentError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "select:", f"{operand} address", "32-byte aligned", "multiples of 32",
                    instruction="select", operand=f"{operand} address", value=addrs[key], allowed="multiples of 32")


def test_dst_past_end_of_ub(a2):
    end = a2.ub.size_bytes
    dst = asc.LocalTensor(F32, VECOUT, end - 512, 128)
    _, sel, src0, src1 = operands()
    assert_rejected(a2, OutOfBoundsError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 4, DEFAULT),
                    "select:", "dst byte address", "0x30000", "outside UB", "[0x0, 0x30000)",
                    instruction="select", operand="dst byte address", value=0x30000, allowed="[0x0, 0x30000)")


def test_strides_leave_ub(a2):
    dst = asc.LocalTensor(F32, VECOUT, 0x1000, 0)  # tile_size 0: up to the end of UB
    _, sel, src0, src1 = operands()
    far = asc.BinaryRepeatParams(1, 1, 1, 255, 8, 8)
    assert_rejected(a2, OutOfBoundsError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 255, far),
                    "select:", "dst byte address", "outside UB", "[0x0, 0x30000)",
                    instruction="select", operand="dst byte address", allowed="[0x0, 0x30000)")


def test_access_outside_tensor_extent(a2):
    dst, sel, src0, _ = operands()
    small = asc.LocalTensor(F32, VECIN, 0x3000, 100)
    assert_rejected(a2, OutOfBoundsError, lambda: asc.select(dst, sel, src0, small, MODE2, 64, 2, DEFAULT),
                    "src1 byte range", "[0x3000, 0x3190)", instruction="select", operand="src1 byte range")


def test_selmask_bits_outside_tensor(a2):
    dst, _, src0, src1 = operands()
    sel = asc.LocalTensor(U8, VECIN, 0x4000, 16)  # 2 repeats of float need 16 bytes; 3 need 24
    asc.select(dst, sel, src0, src1, MODE2, 64, 2, DEFAULT)
    assert_rejected(a2, OutOfBoundsError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 3, DEFAULT),
                    "sel_mask byte range", instruction="select", operand="sel_mask byte range")


@pytest.mark.parametrize("repeat", [256, -1])
def test_repeat_times_range(a2, repeat):
    dst, sel, src0, src1 = operands()
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, repeat, DEFAULT),
                    "select: repeat_times", str(repeat), "[0, 255]",
                    instruction="select", operand="repeat_times", value=repeat, allowed="[0, 255]")


def test_stride_does_not_fit_uint8(a2):
    dst, sel, src0, src1 = operands()
    params = asc.BinaryRepeatParams(1, 1, 1, 8, 256, 8)
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, params),
                    "repeat_params.src0_rep_stride", "uint8_t", "[0, 255]",
                    instruction="select", operand="repeat_params.src0_rep_stride", value=256, allowed="[0, 255]")


def test_dst_block_stride_zero_is_undefined(a2):
    dst, sel, src0, src1 = operands()
    params = asc.BinaryRepeatParams(0, 1, 1, 8, 8, 8)
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, params),
                    "dst_blk_stride", "undefined behaviour",
                    instruction="select", operand="repeat_params.dst_blk_stride", value=0, allowed="[1, 255]")


@pytest.mark.parametrize("mask", [-1, 2**31, 2**64])
def test_contiguous_mask_range(a2, mask):
    """A contiguous mask goes to SetMask(int32_t len): [0, 2**31 - 1] (tests/ascend/test_mask_arguments.py)."""
    dst, sel, src0, src1 = operands()
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, mask, 1, DEFAULT),
                    "select: mask", instruction="select", operand="mask", value=mask, allowed="[0, 2147483647]")


def test_bitwise_mask_high_word_must_be_zero_for_32_bit(a2):
    dst, sel, src0, src1 = operands()
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, [1, 1], 1, DEFAULT),
                    "mask[1]", "must be 0", instruction="select", operand="mask[1]", value=1, allowed="0")


def test_bitwise_mask_cannot_be_all_zero(a2):
    dst, sel, src0, src1 = operands(F16)
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, [0, 0], 1, DEFAULT),
                    "cannot all be 0", instruction="select", operand="mask", value=[0, 0])


def test_bitwise_mask_length(a2):
    dst, sel, src0, src1 = operands(F16)
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, [1, 2, 3], 1, DEFAULT),
                    "mask length", "3", instruction="select", operand="mask length", value=3, allowed="2")


@pytest.mark.parametrize("count", [0, 64 * 255 + 1])
def test_count_range(a2, count):
    dst, sel, src0, src1 = operands()
    assert_rejected(a2, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, count),
                    "select: count", "[1, 16320]", instruction="select", operand="count", value=count,
                    allowed="[1, 16320]")


def test_dtype_not_supported_on_product(a2):
    dst, sel, src0, src1 = operands(asc.int16)
    assert_rejected(a2, UnsupportedError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "dst dtype", "int16", "float16, float32",
                    instruction="select", operand="dst dtype", value="int16", allowed="float16, float32")


def test_source_dtype_must_match(a2):
    dst, sel, src0, _ = operands()
    src1 = asc.LocalTensor(F16, VECIN, 0x3000, 256)
    assert_rejected(a2, UnsupportedError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "src1 dtype", "float16", "float32",
                    instruction="select", operand="src1 dtype", value="float16", allowed="float32")


def test_selmask_dtype(a2):
    dst, _, src0, src1 = operands()
    sel = asc.LocalTensor(F32, VECIN, 0x4000, 64)
    assert_rejected(a2, UnsupportedError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "sel_mask dtype", "uint16, uint32, uint64, uint8",
                    instruction="select", operand="sel_mask dtype", value="float32")


def test_position_outside_ub(a2):
    dst, sel, src0, _ = operands()
    src1 = asc.LocalTensor(F32, asc.TPosition.A1, 0x3000, 256)
    assert_rejected(a2, UnsupportedError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "src1 position", "A1", "VECIN, VECOUT, VECCALC",
                    instruction="select", operand="src1 position", value="A1", allowed="VECIN, VECOUT, VECCALC")


def test_mode_not_supported_on_training_series():
    with asc.Core("910") as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = operands()
        assert_rejected(core, UnsupportedError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64),
                        "sel_mode", "VSEL_TENSOR_TENSOR_MODE", "VSEL_CMPMASK_SPR",
                        instruction="select", operand="sel_mode", value="VSEL_TENSOR_TENSOR_MODE",
                        allowed="VSEL_CMPMASK_SPR")
        asc.select(dst, sel, src0, src1, MODE0, 64)  # mode 0 works


def test_vector_core_has_no_select():
    with asc.Core("310P-VEC") as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = operands()
        assert_rejected(core, UnsupportedError, lambda: asc.select(dst, sel, src0, src1, MODE0, 64),
                        "310P-VEC", "Atlas inference series Vector Core", "Select is not supported",
                        instruction="select", operand="product")


def test_partial_overlap_within_a_repeat(a2):
    dst, sel, _, src1 = operands()
    src0 = asc.LocalTensor(F32, VECIN, 0x1020, 256)  # one block into dst
    assert_rejected(a2, OverlapError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "src0 / dst", "partially overlap", instruction="select", operand="src0 / dst")


def test_cross_repeat_dependency(a2):
    dst, sel, _, src1 = operands()
    src0 = asc.LocalTensor(F32, VECIN, 0x1000, 256)
    params = asc.BinaryRepeatParams(1, 1, 1, 8, 0, 8)  # every repeat rereads what repeat 0 wrote
    assert_rejected(a2, OverlapError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 2, params),
                    "repeat 1 reads a byte that repeat 0 writes", instruction="select", operand="src0 / dst")


def test_exact_in_place_is_allowed(a2):
    """src0 == dst byte for byte (ref §1.4): allowed, and each lane reads its old value before the write."""
    dst, sel, _, src1 = operands()
    before = bytearray(a2.ub_read(0, a2.ub.size_bytes))
    asc.select(dst, sel, dst, src1, MODE2, 64, 4, DEFAULT)
    case = SelectCase(mode=2, size=4, dst=0x1000, src0=0x1000, src1=0x3000, scalar=None, sel=0x4000, cmpmask=b"",
                      lanes=normal_lanes(2**64 - 1, 0, 4, 4))
    expected = run_select(before, case)
    expected[184 * 1024 : 184 * 1024 + 128] = (0x4000).to_bytes(4, "little") * 32  # mode 2 scratch (ref §2.6)
    assert a2.ub_read(0, a2.ub.size_bytes) == bytes(expected)
    assert expected[0x1000:0x1400] != before[0x1000:0x1400]  # the data makes the call visible


def test_operand_inside_api_scratch(a2):
    scratch = 184 * 1024
    fill(a2, scratch, 4096)
    dst = asc.LocalTensor(F32, VECOUT, scratch, 256)
    _, sel, src0, src1 = operands()
    assert_rejected(a2, OverlapError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "API scratch", "需要预留8KB UB", instruction="select", operand="dst")


def test_is_set_mask_is_reserved(a2):
    dst, sel, src0, src1 = operands()
    assert_rejected(a2, ParameterRangeError,
                    lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT, is_set_mask=False),
                    "is_set_mask", "reserved", instruction="select", operand="is_set_mask", value=False,
                    allowed="True")


def test_zero_mask_rejected_on_310p():
    with asc.Core("310P") as core:
        fill(core, 0, 0x8000)
        dst, sel, src0, src1 = operands()
        assert_rejected(core, ParameterRangeError, lambda: asc.select(dst, sel, src0, src1, MODE2, 0, 1, DEFAULT),
                        "mask", "Atlas inference series AI Core", instruction="select", operand="mask", value=0)


def test_counter_mode_count_above_uint32(a2):
    dst, sel, src0, src1 = operands(F16)
    asc.set_mask_count()
    assert_rejected(a2, ParameterRangeError,
                    lambda: asc.select(dst, sel, src0, src1, MODE2, [2**32, 0], 1, DEFAULT),
                    "counter-mode count", "UINT32_MAX",
                    instruction="select", operand="mask (counter-mode count)", value=2**32)


def test_no_mask_mode2_needs_valid_address_in_cmpmask(a2):
    dst, _, src0, src1 = operands()
    a2.cmpmask = (0x44).to_bytes(4, "little") * 4
    assert_rejected(a2, ParameterRangeError,
                    lambda: asc.select(dst, src0, src1, repeat_times=1, repeat_params=DEFAULT, sel_mode=MODE2),
                    "CMPMASK (selMask address)", "0x44", "32-byte aligned",
                    instruction="select", operand="CMPMASK (selMask address)", value=0x44)


def test_tensor_of_another_core(a2):
    with asc.Core("A2") as other:
        foreign = asc.LocalTensor(F32, VECIN, 0x2000, 256)
        del other
    dst, sel, _, src1 = operands()
    assert_rejected(a2, WrongCoreError, lambda: asc.select(dst, sel, foreign, src1, MODE2, 64, 1, DEFAULT),
                    "src0", "another core", instruction="select", operand="src0")


def test_freed_tensor(a2):
    lease = Lease("TQue.free_tensor")
    dst, sel, _, src1 = operands()
    src0 = asc.LocalTensor(F32, VECIN, 0x2000, 256, lease=lease)
    lease.revoke()
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.select(dst, sel, src0, src1, MODE2, 64, 1, DEFAULT),
                    "src0", "freed", instruction="select", operand="src0")


@pytest.mark.parametrize("bad", [
    lambda t: asc.select(t[0], t[1], t[2], t[3], MODE2, 64, "4", DEFAULT),
    lambda t: asc.select(t[0], t[1], t[2], t[3], MODE2, 64.0, 1, DEFAULT),
    lambda t: asc.select(t[0], t[1], t[2], t[3], MODE2, 64, 1, (1, 1, 1, 8, 8, 8)),
    lambda t: asc.select(t[0], t[1], t[2], None, MODE2, 64),
    lambda t: asc.select(t[0], t[1], t[2], 1.0, MODE2, 64),
])
def test_wrong_python_types_are_type_errors(a2, bad):
    tensors = operands()
    assert_rejected(a2, TypeError, lambda: bad(tensors), "select")
