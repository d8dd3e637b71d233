"""Kernel launches: blocks in order on their own cores, GM shared, pyasc tutorial kernels."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, ParameterRangeError, RuntimeMisuseError, UnsupportedError

from . import reference_model as ref

BUFFER_NUM = 2
TILE_NUM = 4


# The kernel of pyasc's tutorial 02_add_framework, unchanged but for the names of the constants.
@asc.jit
def vadd_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                tile_length: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * block_length
    x_gm, y_gm, z_gm = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    pipe = asc.TPipe()
    in_queue_x = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    in_queue_y = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
    out_queue_z = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
    pipe.init_buffer(in_queue_x, BUFFER_NUM, tile_length * x.dtype.sizeof())
    pipe.init_buffer(in_queue_y, BUFFER_NUM, tile_length * y.dtype.sizeof())
    pipe.init_buffer(out_queue_z, BUFFER_NUM, tile_length * z.dtype.sizeof())
    for i in range(TILE_NUM * BUFFER_NUM):
        copy_in(i, x_gm, y_gm, in_queue_x, in_queue_y, tile_length)
        compute(z_gm, in_queue_x, in_queue_y, out_queue_z, tile_length)
        copy_out(i, z_gm, out_queue_z, tile_length)


@asc.jit
def copy_in(i, x_gm, y_gm, in_queue_x, in_queue_y, tile_length):
    x_local = in_queue_x.alloc_tensor(x_gm.dtype)
    y_local = in_queue_y.alloc_tensor(y_gm.dtype)
    asc.data_copy(x_local, x_gm[i * tile_length:], tile_length)
    asc.data_copy(y_local, y_gm[i * tile_length:], tile_length)
    in_queue_x.enque(x_local)
    in_queue_y.enque(y_local)


@asc.jit
def compute(z_gm, in_queue_x, in_queue_y, out_queue_z, tile_length):
    x_local = in_queue_x.deque(z_gm.dtype)
    y_local = in_queue_y.deque(z_gm.dtype)
    z_local = out_queue_z.alloc_tensor(z_gm.dtype)
    asc.add(z_local, x_local, y_local, tile_length)
    out_queue_z.enque(z_local)
    in_queue_x.free_tensor(x_local)
    in_queue_y.free_tensor(y_local)


@asc.jit
def copy_out(i, z_gm, out_queue_z, tile_length):
    z_local = out_queue_z.deque(z_gm.dtype)
    asc.data_copy(z_gm[i * tile_length:], z_local, tile_length)
    out_queue_z.free_tensor(z_local)


def expected_sum(x: np.ndarray, y: np.ndarray, fmt: str, saturate: bool) -> bytes:
    size = ref.FORMATS[fmt][0]
    a, b = x.view(f"<u{size}"), y.view(f"<u{size}")
    out = bytearray()
    for ai, bi in zip(a.tolist(), b.tolist(), strict=True):
        out += ref.result_bits("add", fmt, ai, bi, saturate).to_bytes(size, "little")
    return bytes(out)


@pytest.mark.parametrize("block_dim", [2, 4])
def test_multi_core_vadd_each_block_its_slice(block_dim):
    rng = np.random.default_rng(block_dim)
    total = block_dim * TILE_NUM * BUFFER_NUM * 64
    x = rng.uniform(-100, 100, total).astype(np.float16)
    y = rng.uniform(-100, 100, total).astype(np.float16)
    z = np.zeros_like(x)
    block_length = total // block_dim
    launch = vadd_kernel.launch(block_dim, (x, y, z, block_length, block_length // TILE_NUM // BUFFER_NUM),
                                chip="A2")
    assert z.tobytes() == expected_sum(x, y, "float16", saturate=True)
    assert [core.block_idx for core in launch.cores] == list(range(block_dim))
    assert {core.block_num for core in launch.cores} == {block_dim}
    # per-core UB isolation: every core's x buffers hold its own slice (last tile: buffer (TILE_NUM*2-1) % 2)
    tile = block_length // TILE_NUM // BUFFER_NUM
    for idx, core in enumerate(launch.cores):
        last = idx * block_length + (TILE_NUM * BUFFER_NUM - 1) * tile
        assert core.ub_read(tile * 2, tile * 2) == x[last : last + tile].tobytes()


def test_subscript_launch_with_stream_and_default_chip():
    x = np.arange(128, dtype=np.float32)
    y = np.ones(128, dtype=np.float32)
    z = np.zeros(128, dtype=np.float32)
    with asc.using_chip("310P"):
        result = vadd_kernel[2, None](x, y, z, 64, 8)
    assert result.chip.name == "310P" and len(result.cores) == 2
    assert z.tolist() == (x + 1).tolist()


def test_blocks_run_in_order_on_fresh_cores():
    seen = []

    @asc.jit
    def probe(out: asc.GlobalAddress):
        idx = asc.get_block_idx()
        g = asc.GlobalTensor()
        g.set_global_buffer(out + 8 * idx, 8)
        ub = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, 8)
        seen.append((idx, asc.get_block_num(), asc.current_core("probe").ub.written[:32].any()))
        asc.duplicate(ub, idx * 10, 8)
        asc.set_flag(asc.HardEvent.V_MTE3, 1)
        asc.wait_flag(asc.HardEvent.V_MTE3, 1)
        asc.data_copy(g, ub, 8)

    out = np.full(24, -1, dtype=np.int32)
    launch = probe[3](out)
    assert seen == [(0, 3, False), (1, 3, False), (2, 3, False)]  # each block starts with a never-written UB
    assert out.tolist() == [0] * 8 + [10] * 8 + [20] * 8
    assert launch.cores[1].sync_log == [("set_flag", int(asc.HardEvent.V_MTE3), 1),
                                        ("wait_flag", int(asc.HardEvent.V_MTE3), 1)]


def test_gm_overrun_of_a_block_slice_names_the_block():
    @asc.jit
    def overrun(x: asc.GlobalAddress, out: asc.GlobalAddress):
        g, o = asc.GlobalTensor(), asc.GlobalTensor()
        g.set_global_buffer(x + 16 * asc.get_block_idx(), 16)
        o.set_global_buffer(out + 16 * asc.get_block_idx(), 16)
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 32)
        asc.data_copy(ub, g, 16)
        asc.data_copy(o, ub, 24)  # one block too many

    x = np.zeros(32, dtype=np.float32)
    with pytest.raises(OutOfBoundsError, match="16 elements given to set_global_buffer") as err:
        overrun[2](x, np.zeros(32, dtype=np.float32))
    notes = getattr(err.value, "__notes__", [])
    assert any("block 0 of 2" in note for note in notes)


def test_non_contiguous_arrays_are_written_back_and_torch_tensors_share_memory():
    @asc.jit
    def negate(x: asc.GlobalAddress, n: int):
        g = asc.GlobalTensor()
        g.set_global_buffer(x, n)
        ub = asc.LocalTensor(g.dtype, asc.TPosition.VECIN, 0, n)
        asc.data_copy(ub, g, n)
        asc.muls(ub, ub, -1, n)
        asc.data_copy(g, ub, n)

    base = np.arange(32, dtype=np.float32).reshape(2, 16)
    column_major = np.asfortranarray(base)
    negate[1](column_major, 32)
    assert column_major.tolist() == (-base).tolist()

    torch = pytest.importorskip("torch")
    t = torch.arange(16, dtype=torch.float32)
    negate[1](t, 16)
    assert t.tolist() == [-float(i) for i in range(16)]
    b = torch.ones(16, dtype=torch.bfloat16)
    with pytest.raises(UnsupportedError, match="muls does not support"):
        negate[1](b, 16)  # Muls.md: no bfloat16 on A2
    negate.launch(1, (b, 16), chip="950")
    assert b.tolist() == [-1.0] * 16


def test_direct_call_outside_a_launch_and_bad_launch_options():
    with pytest.raises(RuntimeMisuseError, match=r"vadd_kernel\[block_dim\]"):
        vadd_kernel(np.zeros(4), np.zeros(4), np.zeros(4), 4, 4)
    with pytest.raises(ParameterRangeError, match="block_dim"):
        vadd_kernel[0](np.zeros(4), np.zeros(4), np.zeros(4), 4, 4)
    with pytest.raises(TypeError, match=r"\[block_dim\] or \[block_dim, stream\]"):
        vadd_kernel[1, None, None]
    with pytest.raises(UnsupportedError, match="unknown Ascend product"):
        vadd_kernel.launch(1, (), chip="Ascend999")


def test_flag_event_ids_follow_the_product():
    with asc.Core("A2") as core:
        asc.set_flag(asc.HardEvent.MTE2_V, 7)
        asc.pipe_barrier(asc.PipeID.PIPE_V)
        assert core.sync_log == [("set_flag", int(asc.HardEvent.MTE2_V), 7), ("pipe_barrier", 1, 0)]
    with asc.Core("910"), pytest.raises(ParameterRangeError, match="4 event IDs"):
        asc.wait_flag(asc.HardEvent.MTE2_V, 4)


def test_unbound_global_tensor_and_set_value():
    with asc.Core("A2"):
        g = asc.GlobalTensor()
        with pytest.raises(RuntimeMisuseError, match="before set_global_buffer"):
            asc.data_copy(asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8), g, 8)
        data = np.zeros(4, dtype=np.float16)
        g.set_global_buffer(data)
        g[2:].set_value(1, 1.5)
        assert data.tolist() == [0, 0, 0, 1.5] and g.get_size() == 4 and g[1:].get_size() == 3
        with pytest.raises(OutOfBoundsError):
            g.get_value(4)


def test_default_chip_setting_reaches_new_cores():
    with asc.using_chip("950"):
        assert asc.Core().chip.name == "950"
        assert asc.get_default_chip().name == "950"
    assert asc.Core().chip.name == "A2"
