"""Rules no other test provokes, each checked by its error's fields (instruction, operand, value).

A pass that replaced the operand name of every raise site in ``npusim.ascend`` with ``''`` found
these rules untested: nothing failed when their operand went missing.  Each row below provokes one
and names what the error must say; together with ``tests/conftest.py`` (every ConstraintError names
its facts) a dropped or wrong operand name now fails here.  Every call also leaves UB and the
registers as they were (``assert_rejected``).
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.tensor import Lease
from npusim.errors import AlignmentError, OutOfBoundsError, ParameterRangeError, RuntimeMisuseError, UnsupportedError

from .conftest import assert_rejected, fill

F16, F32, U8 = asc.float16, asc.float32, asc.uint8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
B, U = asc.BinaryRepeatParams(), asc.UnaryRepeatParams()
STRIDES = (1, 1, 1, 8, 8, 8)


def t(dtype, addr, size=256, position=VECIN):
    return asc.LocalTensor(dtype, position, addr, size)


def half():
    """dst 0x1000, selMask 0x4000, src0 0x2000, src1 0x3000 (128 halves each), a bitmask at 0x5000."""
    return t(F16, 0x1000, 128, VECOUT), t(U8, 0x4000, 32), t(F16, 0x2000, 128), t(F16, 0x3000, 128), \
        t(U8, 0x5000, 32, VECOUT)


def freed_tensor():
    lease = Lease("TQue.free_tensor")
    tensor = asc.LocalTensor(F16, VECIN, 0x3000, 16, lease=lease)
    lease.revoke()
    return tensor


# (id, chip, call(tensors), error, instruction, operand, value)
CASES = [
    # Select
    ("unknown sel_mode", "A2", lambda d, s, a, b, m: asc.select(d, s, a, b, 3, 64),
     ParameterRangeError, "select", "sel_mode", 3),
    ("mode 0 loads 16 selMask bytes into CMPMASK", "A2",
     lambda d, s, a, b, m: asc.select(d, t(U8, 0x4000, 8), a, b, 0, 128, 1, B),
     OutOfBoundsError, "select", "sel_mask (CMPMASK load) byte range", "[0x4000, 0x4010)"),
    ("no-mask repeat_times", "A2", lambda d, s, a, b, m: asc.select(d, a, b, 256, B, 0),
     ParameterRangeError, "select", "repeat_times", 256),
    # C API select (vsel in mode 0)
    ("asc_select dst dtype", "A2", lambda d, s, a, b, m: asc.asc_select(t(asc.int16, 0x1000), t(asc.int16, 0x2000),
                                                                         t(asc.int16, 0x3000), 128),
     UnsupportedError, "asc_select", "dst dtype", "int16"),
    ("asc_select dst misaligned", "A2", lambda d, s, a, b, m: asc.asc_select(d[8:], a, b, 64),
     AlignmentError, "asc_select", "dst address", 0x1010),
    ("asc_select dst block stride 0", "A2", lambda d, s, a, b, m: asc.asc_select(d, a, b, 1, 0, 1, 1, 8, 8, 8),
     ParameterRangeError, "asc_select", "dst_block_stride", 0),
    ("asc_select count", "A2", lambda d, s, a, b, m: asc.asc_select(d, a, b, 2**32),
     ParameterRangeError, "asc_select", "count", 2**32),
    ("asc_select repeat", "A2", lambda d, s, a, b, m: asc.asc_select(d, a, b, 256, *STRIDES),
     ParameterRangeError, "asc_select", "repeat", 256),
    # Compare
    ("compare to CMPMASK, src1 dtype", "A2", lambda d, s, a, b, m: asc.compare(t(F32, 0x2000, 64), b, asc.CMPMODE.LT,
                                                                               64, B),
     UnsupportedError, "compare", "src1 dtype", "float16"),
    ("asc_lt repeat", "A2", lambda d, s, a, b, m: asc.asc_lt(m, a, b, 256, *STRIDES),
     ParameterRangeError, "asc_lt", "repeat", 256),
    ("asc_lt_scalar repeat", "A2", lambda d, s, a, b, m: asc.asc_lt_scalar(m, a, 1.0, 256, 1, 1, 8, 8),
     ParameterRangeError, "asc_lt_scalar", "repeat", 256),
    ("asc_lt_scalar stride", "A2", lambda d, s, a, b, m: asc.asc_lt_scalar(m, a, 1.0, 1, 1, 65536, 8, 8),
     ParameterRangeError, "asc_lt_scalar", "src_block_stride", 65536),
    # TransDataTo5HD: the C API's VA lists, the pyasc lists and tensors
    ("asc_transto5hd dst length", "A2", lambda d, s, a, b, m: asc.asc_transto5hd_b16([0x8000] * 15, [0] * 16, 1, 0, 0),
     ParameterRangeError, "asc_transto5hd_b16", "dst length", 15),
    ("asc_transto5hd src length", "A2", lambda d, s, a, b, m: asc.asc_transto5hd_b16([0x8000] * 16, [0] * 17, 1, 0, 0),
     ParameterRangeError, "asc_transto5hd_b16", "src length", 17),
    ("asc_transto5hd dst_stride", "A2", lambda d, s, a, b, m: asc.asc_transto5hd_b16(
        [0x8000 + 32 * k for k in range(16)], [32 * k for k in range(16)], 1, 65536, 0),
     ParameterRangeError, "asc_transto5hd_b16", "dst_stride", 65536),
    ("asc_transto5hd src_stride", "A2", lambda d, s, a, b, m: asc.asc_transto5hd_b16(
        [0x8000 + 32 * k for k in range(16)], [32 * k for k in range(16)], 1, 0, 65536),
     ParameterRangeError, "asc_transto5hd_b16", "src_stride", 65536),
    ("asc_transto5hd freed tensor", "A2", lambda d, s, a, b, m: asc.asc_transto5hd_b16(
        [0x8000 + 32 * k for k in range(16)], [32 * k for k in range(15)] + [freed_tensor()], 1, 0, 0),
     RuntimeMisuseError, "asc_transto5hd_b16", "src[15]", None),
    ("trans_data_to_5hd tensor list length", "A2", lambda d, s, a, b, m: asc.trans_data_to_5hd(
        [t(F16, 0x8000 + 32 * k, 16) for k in range(16)], [t(F16, 32 * k, 16) for k in range(15)],
        asc.TransDataTo5HDParams()),
     ParameterRangeError, "trans_data_to_5hd", "src_list length", 15),
    ("trans_data_to_5hd address list length", "A2", lambda d, s, a, b, m: asc.trans_data_to_5hd(
        [0x8000] * 14, [0] * 16, asc.TransDataTo5HDParams(), dtype=F16),
     ParameterRangeError, "trans_data_to_5hd", "dst_list length", 14),
    ("trans_data_to_5hd src address list length", "A2", lambda d, s, a, b, m: asc.trans_data_to_5hd(
        [0x8000 + 32 * k for k in range(16)], [0] * 17, asc.TransDataTo5HDParams(), dtype=F16),
     ParameterRangeError, "trans_data_to_5hd", "src_list length", 17),
    ("trans_data_to_5hd T", "910", lambda d, s, a, b, m: asc.trans_data_to_5hd(
        [0x8000 + 32 * k for k in range(16)], [32 * k for k in range(16)], asc.TransDataTo5HDParams(), dtype=F32),
     UnsupportedError, "trans_data_to_5hd", "T dtype", "float32"),
    ("trans_data_to_5hd short address tensor", "A2", lambda d, s, a, b, m: asc.trans_data_to_5hd(
        t(asc.uint64, 0x6000, 8), t(asc.uint64, 0x6100, 16), asc.TransDataTo5HDParams(), dtype=F16),
     OutOfBoundsError, "trans_data_to_5hd", "dst (address list) byte range", "[0x6000, 0x6080)"),
    ("trans_data_to_5hd block past its tensor", "A2", lambda d, s, a, b, m: asc.trans_data_to_5hd(
        [t(F16, 0x8000 + 32 * k, 16) for k in range(16)], [t(F16, 32 * k, 16) for k in range(16)],
        asc.TransDataTo5HDParams(False, False, 1, 1, 0)),
     OutOfBoundsError, "trans_data_to_5hd", "dst_list[0] byte range", "[0x8020, 0x8040)"),
    # element-wise
    ("add dtype", "A2", lambda d, s, a, b, m: asc.add(t(U8, 0x1000), t(U8, 0x2000), t(U8, 0x3000), 256),
     UnsupportedError, "add", "dst dtype", "uint8"),
    ("add source dtype", "A2", lambda d, s, a, b, m: asc.add(d, t(F32, 0x2000, 64), b, 64),
     UnsupportedError, "add", "src0 dtype", "float32"),
    ("duplicate block stride", "A2", lambda d, s, a, b, m: asc.duplicate(d, 1.0, 64, 1, 65536, 8),
     ParameterRangeError, "duplicate", "dst_block_stride", 65536),
    ("duplicate repeat stride", "A2", lambda d, s, a, b, m: asc.duplicate(d, 1.0, 64, 1, 1, 256),
     ParameterRangeError, "duplicate", "dst_repeat_stride", 256),
    # registers
    ("set_cmp_mask misaligned", "A2", lambda d, s, a, b, m: asc.set_cmp_mask(t(U8, 0x5008, 16)),
     AlignmentError, "set_cmp_mask", "tensor address", 0x5008),
    ("set_cmp_mask dtype", "A2", lambda d, s, a, b, m: asc.set_cmp_mask(t(asc.float64, 0x5000, 2)),
     UnsupportedError, "set_cmp_mask", "tensor dtype", "float64"),
    ("get_cmp_mask short tensor", "A2", lambda d, s, a, b, m: asc.get_cmp_mask(t(U8, 0x5000, 8, VECOUT)),
     OutOfBoundsError, "get_cmp_mask", "tensor byte range", "[0x5000, 0x5010)"),
    ("set_vector_mask high word", "A2", lambda d, s, a, b, m: asc.set_vector_mask(2**64, 0, dtype=F16),
     ParameterRangeError, "set_vector_mask", "mask_high", 2**64),
    ("set_vector_mask low word", "A2", lambda d, s, a, b, m: asc.set_vector_mask(0, -1, dtype=F16),
     ParameterRangeError, "set_vector_mask", "mask_low", -1),
    ("counter mode on the 910", "910", lambda d, s, a, b, m: asc.set_mask_count(),
     UnsupportedError, "set_mask_count", "mask mode", "counter"),
    # data movement
    ("data_copy count", "A2", lambda d, s, a, b, m: asc.data_copy(d, b, 2**32),
     ParameterRangeError, "data_copy", "count", 2**32),
    ("data_copy block count", "A2", lambda d, s, a, b, m: asc.data_copy(d, b, asc.DataCopyParams(4096, 1, 0, 0)),
     ParameterRangeError, "data_copy", "repeat_params.block_count", 4096),
    ("set_pad_value position", "A2", lambda d, s, a, b, m: asc.set_pad_value(1.0, asc.TPosition.A1),
     UnsupportedError, "set_pad_value", "pos", "A1"),
]


@pytest.mark.parametrize(("chip", "call", "error", "instruction", "operand", "value"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_rule_names_its_operand(chip, call, error, instruction, operand, value):
    with asc.Core(chip) as core:
        fill(core, 0, 0x10000)
        core.cmpmask = bytes(16)
        tensors = half()
        fields = {"instruction": instruction, "operand": operand}
        if value is not None:
            fields["value"] = value
        assert_rejected(core, error, lambda: call(*tensors), **fields)


def test_no_mask_mode_2_selmask_past_the_end_of_ub():
    """The selMask address comes from CMPMASK; 3 half repeats read 48 bytes from 32 below the end of UB."""
    with asc.Core("A2") as core:
        fill(core, 0, 0x10000)
        end = core.ub.size_bytes
        core.cmpmask = (end - 32).to_bytes(4, "little") * 4
        dst, src0, src1 = (t(F16, addr, 512, VECOUT) for addr in (0x1000, 0x2000, 0x3000))
        assert_rejected(core, OutOfBoundsError, lambda: asc.select(dst, src0, src1, 3, B, 2),
                        instruction="select", operand="sel_mask byte address", value=end)


@pytest.mark.parametrize(("call", "operand", "value"), [
    (lambda g, ub: asc.data_copy_pad(ub, g, asc.DataCopyExtParams(4096, 32, 0, 0), asc.DataCopyPadExtParams(F16)),
     "data_copy_params.block_count", 4096),
    (lambda g, ub: asc.data_copy_pad(ub, g, asc.DataCopyExtParams(1, 2097152, 0, 0), asc.DataCopyPadExtParams(F16)),
     "data_copy_params.block_len", 2097152),
])
def test_data_copy_pad_fields(call, operand, value):
    gm = np.zeros(64, np.float16)
    with asc.Core("A2") as core:
        fill(core, 0, 0x10000)
        g = asc.GlobalTensor()
        g.set_global_buffer(gm)
        ub = t(F16, 0x8000, 1024)
        assert_rejected(core, ParameterRangeError, lambda: call(g, ub), instruction="data_copy_pad", operand=operand,
                        value=value)


@pytest.mark.parametrize(("dtype", "block_len", "pad", "error", "fields"), [
    (asc.int64, 8, asc.DataCopyPadExtParams(asc.int64, True, 1, 0, 5), ParameterRangeError,
     {"operand": "pad_params.padding_value", "value": 5, "allowed": "0"}),
    # DataCopyPad 参数说明 (表4): the padding parameters' type is the copy's T; the error names both.
    (F16, 32, asc.DataCopyPadExtParams(asc.float32), UnsupportedError,
     {"operand": "pad_params.dtype", "value": "float32", "allowed": "float16"}),
], ids=["64-bit padding value", "padding type is the copy's type"])
def test_data_copy_pad_params_fields(dtype, block_len, pad, error, fields):
    gm = np.zeros(64, dtype.np_dtype)
    with asc.Core("A2") as core:
        fill(core, 0, 0x10000)
        g = asc.GlobalTensor()
        g.set_global_buffer(gm)
        ub = t(dtype, 0x8000, 64)
        assert_rejected(core, error, lambda: asc.data_copy_pad(ub, g, asc.DataCopyExtParams(1, block_len, 0, 0), pad),
                        instruction="data_copy_pad", **fields)


def test_data_copy_dtype_per_product():
    gm = np.zeros(64, np.uint16)
    with asc.Core("310P") as core:
        fill(core, 0, 0x10000)
        g = asc.GlobalTensor()
        g.set_global_buffer(gm.view(asc.bfloat16.np_dtype))
        assert_rejected(core, UnsupportedError, lambda: asc.data_copy(t(asc.bfloat16, 0x8000, 64), g, 64),
                        instruction="data_copy", operand="dst dtype", value="bfloat16")


@pytest.mark.parametrize(("call", "instruction", "operand", "value"), [
    (lambda: asc.Core("A2", block_num=0), "Core", "block_num", 0),
    (lambda: asc.Core("A2", block_num=2, block_idx=2), "Core", "block_idx", 2),
    (lambda: setattr(asc.Core("A2"), "cmpmask", bytes(15)), "Core.cmpmask", "value length", 15),
])
def test_core_fields(call, instruction, operand, value):
    with pytest.raises(ParameterRangeError) as caught:
        call()
    err = caught.value
    assert (err.instruction, err.operand, err.value) == (instruction, operand, value)


def host_tensor():
    return t(F16, 0x1000, 16)


@pytest.mark.parametrize(("call", "error", "instruction", "operand", "value"), [
    (lambda: asc.LocalTensor(F16, VECIN, 0x30000), ParameterRangeError, "LocalTensor", "addr", 0x30000),
    (lambda: host_tensor().get_phy_addr(17), ParameterRangeError, "get_phy_addr", "offset", 17),
    (lambda: host_tensor()[17:], ParameterRangeError, "LocalTensor[]", "offset", 17),
    (lambda: host_tensor().set_value(16, 1.0), ParameterRangeError, "set_value", "index", 16),
    (lambda: host_tensor().read(17), ParameterRangeError, "LocalTensor.read", "count", 17),
    (lambda: freed_tensor().read(), RuntimeMisuseError, "LocalTensor.read", "tensor", None),
    (lambda: gm_tensor().get_value(64), OutOfBoundsError, "GlobalTensor.get_value", "offset GM byte range",
     "[0x80, 0x82)"),
    (lambda: gm_tensor().set_value(64, 1.0), OutOfBoundsError, "GlobalTensor.set_value", "offset GM byte range",
     "[0x80, 0x82)"),
])
def test_host_access_fields(call, error, instruction, operand, value):
    """The host side of tensors (LocalTensor, GlobalTensor) names its operands too."""
    with asc.Core("A2") as core:
        fill(core, 0, 0x2000)
        fields = {"instruction": instruction, "operand": operand}
        if value is not None:
            fields["value"] = value
        assert_rejected(core, error, call, **fields)


def gm_tensor() -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(np.zeros(64, np.float16))
    return g
