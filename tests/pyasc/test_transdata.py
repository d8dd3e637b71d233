"""pyasc's trans_data_to_5hd address forms: the element type comes from get_phy_addr, as in pyasc."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.tensor import PhyAddress
from npusim.pyasc.transdata import trans_data_to_5hd

PARAMS = dict(dst_high_half=False, src_high_half=False, repeat_times=1, dst_rep_stride=0, src_rep_stride=0)


def _tensors():
    src = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 256)
    dst = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 512, 256)
    src.write(np.arange(256, dtype=np.int16))
    dst.write(np.zeros(256, dtype=np.int16))
    return src, dst


def test_get_phy_addr_is_an_address_that_remembers_its_tensor_type_until_arithmetic():
    with asc.Core("A2"):
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 64, 32)
        address = t[4].get_phy_addr()
        assert address == 72 and isinstance(address, PhyAddress) and address.dtype is asc.float16
        assert type(address + 0) is int


def test_the_address_forms_take_the_type_of_the_first_get_phy_addr_and_match_the_explicit_call():
    results = []
    for explicit in (False, True):
        with asc.Core("A2"):
            src, dst = _tensors()
            dst_addrs = [dst[16 * i].get_phy_addr() for i in range(16)]
            src_addrs = [src[16 * i].get_phy_addr() for i in range(16)]
            extra = {"dtype": asc.int16} if explicit else {}
            trans_data_to_5hd(dst_addrs, src_addrs, asc.TransDataTo5HDParams(**PARAMS), **extra)
            results.append(dst.read().tobytes())
    assert results[0] == results[1]
    # TransDataTo5HD of 16 rows of 16 b16 elements is a transpose: dst row i, column j = src row j, column i
    assert np.frombuffer(results[0], np.int16).reshape(16, 16).T.tolist() == np.arange(256).reshape(16, 16).tolist()


def test_uint64_address_tensors_take_the_type_of_the_addresses_set_into_them():
    with asc.Core("A2"):
        src, dst = _tensors()
        dst_list = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 1024, 16)
        src_list = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 1152, 16)
        for i in range(16):
            dst_list.set_value(i, dst[16 * i].get_phy_addr())
            src_list.set_value(i, src[16 * i].get_phy_addr())
        trans_data_to_5hd(dst_list, src_list, asc.TransDataTo5HDParams(**PARAMS))
        assert dst.read().reshape(16, 16).T.tolist() == np.arange(256).reshape(16, 16).tolist()


def test_addresses_not_straight_from_get_phy_addr_are_a_type_error():
    with asc.Core("A2"):
        src, dst = _tensors()
        with pytest.raises(TypeError, match="could not infer the element type"):
            trans_data_to_5hd([dst.addr + 32 * i for i in range(16)], [src.addr + 32 * i for i in range(16)],
                              asc.TransDataTo5HDParams(**PARAMS))
