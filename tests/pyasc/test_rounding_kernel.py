"""A pyasc kernel calling asc.adv.floor / ceil / trunc / round / frac / sign (pyasc's math.py signatures), run through
the import hook: GM -> UB, the function with and without ``temp_buffer``, UB -> GM, compared byte for byte with
the reference of tests/ascend/test_adv_rounding.py."""

import numpy as np
import pytest

from npusim import ascend as npu_asc
from tests.ascend.test_adv_rounding import NAMES, reference_bits


def _kernel(asc, config, name):
    function = getattr(asc.adv, name)

    @asc.jit(kernel_type=config.KernelType.AIV_ONLY, insert_sync=True)
    def kernel(src: asc.GlobalAddress, dst: asc.GlobalAddress, n: asc.ConstExpr[int]):
        src_gm, dst_gm = asc.GlobalTensor(), asc.GlobalTensor()
        src_gm.set_global_buffer(src)
        dst_gm.set_global_buffer(dst)
        data = asc.LocalTensorAuto(src.dtype, n)
        out = asc.LocalTensorAuto(dst.dtype, n)
        tmp = asc.LocalTensorAuto(asc.uint8, 1536)  # Sign: 256 halves a chunk, whole repeats
        asc.data_copy(data, src_gm, count=n)
        function(out, data, count=n // 2, temp_buffer=tmp)
        function(out[n // 2:], data[n // 2:], count=n // 2)
        asc.data_copy(dst_gm, out, count=n)

    return kernel


@pytest.mark.parametrize("name", [*NAMES, "sign"])
def test_kernel(asc, name):
    import asc.lib.runtime as rt
    import asc.runtime.config as config

    config.set_platform(config.Backend.Model)
    values = np.concatenate([np.linspace(-9.75, 9.75, 504), [0.5, -0.5, 2.5, -2.5, -0.0, np.inf, -np.inf, np.nan]])
    src = values.astype(np.float16)
    dst = np.zeros_like(src)
    _kernel(asc, config, name)[1, rt.current_stream()](src, dst, src.size)
    expected = [reference_bits(name, npu_asc.float16, b) for b in src.view(np.uint16).tolist()]
    assert dst.view(np.uint16).tolist() == expected
