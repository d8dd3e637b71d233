"""pyasc launches give their cores the entry point's tolerance policy (docs/semantics.md §10.7).

The kernel is ours, of the shape of pyasc's test_vadd_bits: TQue tiles of 64 elements and one
``add`` with the bitwise mask ``[2**64-1, 2**64-1]`` and one repeat.  For 32-bit data the high
word is ignored by the device; for 16-bit data the 128-lane row runs past each 128-byte tile
into the next queue's buffer.  Either way the first 64 elements are x + y, which is all the
kernel copies out.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from npusim import pyasc
from npusim.errors import MaskHighWordWarning, OutOfBoundsError, ParameterRangeError, UbPastTensorEndWarning

FULL = 2**64 - 1
TILE = 64


def make_kernel(asc):
    @asc.jit
    def vadd_full_mask(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
        x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x)
        y_gm.set_global_buffer(y)
        z_gm.set_global_buffer(z)
        pipe = asc.TPipe()
        qx, qy = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1)
        qz = asc.TQue(asc.TPosition.VECOUT, 1)
        for que in (qx, qy, qz):
            pipe.init_buffer(que=que, num=1, len=TILE * x.dtype.sizeof())
        for i in range(n // TILE):
            xt, yt = qx.alloc_tensor(x.dtype), qy.alloc_tensor(x.dtype)
            asc.data_copy(xt, x_gm[i * TILE:], count=TILE)
            asc.data_copy(yt, y_gm[i * TILE:], count=TILE)
            qx.enque(xt)
            qy.enque(yt)
            xt, yt, zt = qx.deque(x.dtype), qy.deque(x.dtype), qz.alloc_tensor(x.dtype)
            asc.add(zt, xt, yt, mask=[FULL, FULL], repeat_times=1,
                    repeat_params=asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
            qz.enque(zt)
            qx.free_tensor(xt)
            qy.free_tensor(yt)
            zt = qz.deque(x.dtype)
            asc.data_copy(z_gm[i * TILE:], zt, count=TILE)
            qz.free_tensor(zt)

    return vadd_full_mask


def operands(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(16)
    x, y = (rng.integers(info.min // 2, info.max // 2, 4 * TILE).astype(dtype) for _ in range(2))
    return x, y, np.zeros_like(x)


@pytest.mark.parametrize(("dtype", "warning"), [(np.int32, MaskHighWordWarning), (np.int16, UbPastTensorEndWarning)])
def test_hardware_runs_the_full_mask_and_warns(asc, dtype, warning):
    kernel = make_kernel(asc)
    x, y, z = operands(dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel[1](x, y, z, x.size)
    assert any(w.category is warning for w in caught)
    # halves of the type's range: the sums fit, so they are the Python-int sums
    assert z.tobytes() == np.array([int(a) + int(b) for a, b in zip(x, y, strict=True)], dtype=dtype).tobytes()


@pytest.mark.parametrize(("dtype", "error"), [(np.int32, ParameterRangeError), (np.int16, OutOfBoundsError)])
def test_strict_raises(asc, dtype, error):
    kernel = make_kernel(asc)
    x, y, z = operands(dtype)
    pyasc.set_policy("strict")
    with pytest.raises(error):
        kernel[1](x, y, z, x.size)
    assert not z.any()
