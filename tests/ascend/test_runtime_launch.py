"""Kernel launches: blocks in order on their own cores, GM shared, pyasc tutorial kernels."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import (
    OutOfBoundsError,
    ParameterRangeError,
    RuntimeMisuseError,
    UninitializedReadError,
    UninitializedReadWarning,
    UnsupportedError,
)

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
    tile = block_length // TILE_NUM // BUFFER_NUM
    blocks = []  # (block_idx, block_num, the UB bytes of the last x tile) of each block's core
    vadd_kernel.launch(block_dim, (x, y, z, block_length, tile), chip="A2",
                       after_block=lambda core: blocks.append((core.block_idx, core.block_num,
                                                               core.ub_read(tile * 2, tile * 2))))
    assert z.tobytes() == expected_sum(x, y, "float16", saturate=True)
    # per-core UB isolation: every core's x buffers hold its own slice (last tile: buffer (TILE_NUM*2-1) % 2)
    last = [idx * block_length + (TILE_NUM * BUFFER_NUM - 1) * tile for idx in range(block_dim)]
    assert blocks == [(idx, block_dim, x[start : start + tile].tobytes()) for idx, start in enumerate(last)]


def test_subscript_launch_with_stream_and_default_chip():
    x = np.arange(128, dtype=np.float32)
    y = np.ones(128, dtype=np.float32)
    z = np.zeros(128, dtype=np.float32)
    with asc.using_chip("310P"):
        result = vadd_kernel[2, None](x, y, z, 64, 8)
    assert result.chip.name == "310P" and result.block_dim == 2
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
    sync_logs = []
    probe.launch(3, (out,), after_block=lambda core: sync_logs.append(core.sync_log))
    assert seen == [(0, 3, False), (1, 3, False), (2, 3, False)]  # each block starts with a never-written UB
    assert out.tolist() == [0] * 8 + [10] * 8 + [20] * 8
    assert sync_logs == [[("set_flag", int(asc.HardEvent.V_MTE3), 1), ("wait_flag", int(asc.HardEvent.V_MTE3), 1)]] * 3


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


def test_set_default_chip_reaches_new_cores():
    """``set_default_chip`` (what ``npusim run --chip`` calls) changes the product of later cores."""
    asc.set_default_chip("310P")
    try:
        assert asc.get_default_chip().name == "310P"
        assert asc.Core().chip.name == "310P"
    finally:
        asc.set_default_chip("A2")
    assert asc.Core().chip.name == "A2"


# ------------------------------------------------- what a launch holds and checks
@asc.jit
def tiled_add_one(x: asc.GlobalAddress, seen: list):
    """Each block adds 1 to its 64 floats through a TPipe queue, and records its core (weakly)."""
    idx = asc.get_block_idx()
    g = asc.GlobalTensor()
    g.set_global_buffer(x + 64 * idx, 64)
    pipe = asc.TPipe()
    que = asc.TQue(asc.TPosition.VECIN, 1)
    pipe.init_buffer(que, 1, 256)
    t = que.alloc_tensor(asc.float32)
    asc.data_copy(t, g, 64)
    asc.adds(t, t, 1.0, 64)
    asc.data_copy(g, t, 64)
    que.free_tensor(t)
    seen.append((weakref.ref(asc.current_core("tiled_add_one")), sum(ref() is not None for ref, _ in seen)))


def test_a_launch_holds_one_block_core_at_a_time():
    """Peak memory must not grow with the block count: a finished block's core (UB, plans) is freed
    before the next block runs (was: every core kept until the launch returned, 270 KiB a block)."""
    blocks = 48
    x = np.zeros(64 * blocks, dtype=np.float32)
    seen: list = []
    launch = tiled_add_one[blocks](x, seen)
    assert [alive for _, alive in seen] == [0] * blocks  # no earlier block's core is alive when a block runs
    assert all(ref() is None for ref, _ in seen)  # and the Launch holds none
    assert (launch.kernel, launch.block_dim, launch.chip.name, len(launch.gm)) == ("tiled_add_one", blocks, "A2", 1)
    assert x.tobytes() == np.ones(64 * blocks, dtype=np.float32).tobytes()


def test_after_block_sees_each_blocks_core_before_it_is_freed():
    x = np.zeros(64 * 3, dtype=np.float32)
    cores: list = []
    tiled_add_one.launch(3, (x, []), chip="A2",
                         after_block=lambda core: cores.append((core.block_idx, core.ub_read(0, 8))))
    assert cores == [(i, np.ones(2, dtype=np.float32).tobytes()) for i in range(3)]
    with pytest.raises(TypeError, match="after_block must be callable"):
        tiled_add_one.launch(1, (x, []), after_block=5)


@asc.jit
def read_workspace(workspace, n: int):
    if workspace is None:
        workspace = asc.gm_alloc(asc.float32, n)
    g = asc.GlobalTensor()
    g.set_global_buffer(workspace, n)
    asc.data_copy(asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n), g, n)


@pytest.mark.parametrize("where", ["argument", "allocated in the kernel"])
def test_a_strict_launch_raises_on_never_written_gm(where):
    """launch(..., strict=True): reads of never-written GM raise, as reads of never-written UB do (was: a warning)."""
    workspace = asc.gm_alloc(asc.float32, 16) if where == "argument" else None
    with pytest.raises(UninitializedReadError, match="never written") as err:
        read_workspace.launch(1, (workspace, 16), strict=True)
    assert (err.value.instruction, err.value.operand, err.value.value) == ("data_copy", "src byte address", 0)
    with pytest.warns(UninitializedReadWarning, match="never-written GM workspace byte 0x0"):
        read_workspace.launch(1, (workspace, 16))  # the same read outside strict mode warns
    quiet = asc.gm_alloc(asc.float32, 16, uninit="ignore")
    read_workspace.launch(1, (quiet, 16), strict=True)  # an allocation that opted out stays silent


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    (5, None, "args must be a tuple or list of the kernel's arguments, got int"),
    (np.zeros(4), None, "args must be a tuple or list of the kernel's arguments, got ndarray"),
    ((), [1], "kwargs must be a dict of keyword arguments, got list"),
    ((), {1: 2}, "kwargs keys must be parameter names"),
])
def test_launch_arguments_of_the_wrong_type_are_type_errors(args, kwargs, message):
    """``launch(1, 5)`` and ``launch(1, (), [1])`` were Python's own TypeError / AttributeError."""
    with pytest.raises(TypeError) as err:
        vadd_kernel.launch(1, args, kwargs)
    assert str(err.value).startswith("vadd_kernel.launch: ") and message in str(err.value)
