"""LocalTensorAuto's buffers are ordered as pyasc's insert_sync pass orders them (docs/semantics.md §10.7).

pyasc puts an enque after every call that writes such a tensor, a deque before the next call
that uses it, and a free/alloc pair around its reuse in the next iteration, so every access to
its bytes happens after every earlier one, whatever the pipes.  The same kernel on plain
LocalTensors, with no flag, is the control: there the checker must report the races.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.runtime import LocalTensorAuto
from npusim.errors import SyncError

N = 128


def gm(address) -> asc.GlobalTensor:
    tensor = asc.GlobalTensor()
    tensor.set_global_buffer(address)
    return tensor


@asc.jit
def add_tiles(x, y, z, auto: bool):
    for i in range(2):
        if auto:
            xl = LocalTensorAuto(asc.float16, N)  # one buffer per place in the kernel
            yl = LocalTensorAuto(asc.float16, N)
            zl = LocalTensorAuto(asc.float16, N)
        else:
            xl, yl, zl = (asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, k * 256, N) for k in range(3))
        asc.data_copy(xl, gm(x)[i * N:], N)
        asc.data_copy(yl, gm(y), N)
        asc.add(zl, xl, yl, N)
        asc.data_copy(gm(z)[i * N:], zl, N)


def run(auto: bool):
    x = np.arange(2 * N, dtype=np.float16)
    y = np.ones(N, dtype=np.float16)
    z = np.zeros(2 * N, dtype=np.float16)
    add_tiles.launch(1, (x, y, z, auto), sync="raise")
    return x, z


def test_plain_tensors_without_flags_race():
    with pytest.raises(SyncError, match="read after write"):
        run(False)


def test_local_tensor_auto_buffers_are_ordered_as_insert_sync_orders_them():
    x, z = run(True)
    assert z.tobytes() == (x + np.float16(1)).tobytes()
