"""A pyasc-style kernel that sorts: GM -> UB, asc.sort with full sort (Sort32 + the merges), UB -> GM; and the
sort family's names in pyasc's modules."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.pyasc import names, set_policy
from npusim.pyasc.jit import jit
from npusim.pyasc.namespaces import module_names


@pytest.fixture(autouse=True)
def hardware_policy():
    set_policy("hardware")
    yield
    set_policy("hardware")


def sort_kernel_of(n: int):
    @jit
    def sort_kernel(x: asc.GlobalAddress, ix: asc.GlobalAddress, z: asc.GlobalAddress):
        x_gm, ix_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        ix_gm.set_global_buffer(ix)
        z_gm.set_global_buffer(z)
        scores = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
        index = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 4 * n, n)
        length = asc.get_sort_len(n)  # float: 2 elements per (score, index) structure
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 8 * n, length)
        tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 16 * n, length)
        asc.data_copy(scores, x_gm, n)
        asc.data_copy(index, ix_gm, n)
        asc.sort(dst, scores, index, tmp, n // 32, True)
        asc.data_copy(z_gm, dst, length)

    return sort_kernel


def test_a_kernel_sorts_every_element_stably():
    n = 32 * 6
    rng = np.random.default_rng(17)
    x = rng.integers(-8, 8, n).astype(np.float32)  # many ties: the order of equal scores is the input's
    ix = np.arange(n, dtype=np.uint32)
    z = np.zeros(2 * n, np.float32)
    sort_kernel_of(n)[1](x, ix, z)
    order = sorted(range(n), key=lambda i: -x[i])  # Python's sort is stable
    assert z.view(np.uint32)[1::2].tolist() == order
    assert z[0::2].tobytes() == x[order].tobytes()


def test_the_sort_family_is_in_pyasc_modules():
    basic, core = module_names("asc.language.basic"), module_names("asc.language.core")
    for name in ("sort32", "mrg_sort", "mrg_sort4", "get_mrg_sort_result", "get_sort_len", "get_sort_offset",
                 "proposal_concat", "proposal_extract", "rp_sort16", "sort"):
        assert name in names.BASIC and basic[name] is getattr(asc, name), name
    assert core["MrgSortSrcList"] is asc.MrgSortSrcList and core["MrgSort4Info"] is asc.MrgSort4Info
