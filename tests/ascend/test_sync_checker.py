"""The sync checker on whole kernels: a racy and a clean version of each bug class (docs/semantics.md §11).

Each racy kernel leaves out exactly one synchronisation call of its clean twin; the checker must
name the right two calls (instruction and source line, found by the marker comment on the line)
and stay silent on the twin.  Expected findings follow from §11 by hand.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import ConstraintError, SyncError, SyncWarning

N = 128  # halves per tile: 256 bytes, a whole number of 32-byte blocks
SOURCE = Path(__file__).read_text().splitlines()
E = asc.HardEvent


def line_of(marker: str) -> str:
    """``"test_sync_checker.py:<line>"`` of the line ending in ``# <marker>``."""
    lines = [i for i, text in enumerate(SOURCE, 1) if text.rstrip().endswith(f"# {marker}")]
    assert len(lines) == 1, marker
    return f"{Path(__file__).name}:{lines[0]}"


def gm(address) -> asc.GlobalTensor:
    tensor = asc.GlobalTensor()
    tensor.set_global_buffer(address)
    return tensor


def ub(addr: int, pos=asc.TPosition.VECCALC) -> asc.LocalTensor:
    return asc.LocalTensor(asc.float16, pos, addr, N)


def flags(event, skip: str, name: str, event_id: int = 0) -> None:
    """set_flag/wait_flag of ``event``, unless this variant skips the pair called ``name``."""
    if skip != name:
        asc.set_flag(event, event_id)
        asc.wait_flag(event, event_id)


# ------------------------------------------------------------------ kernels
@asc.jit
def add_kernel(x, y, z, skip: str):
    """pyasc tutorial 01_add's shape: two loads, an add, a store, ordered by two flag pairs."""
    xl, yl, zl = ub(0), ub(256), ub(512)
    asc.data_copy(xl, gm(x), N)  # load x
    asc.data_copy(yl, gm(y), N)  # load y
    flags(E.MTE2_V, skip, "MTE2_V")
    asc.add(zl, xl, yl, N)  # add
    flags(E.V_MTE3, skip, "V_MTE3")
    asc.data_copy(gm(z), zl, N)  # store z


@asc.jit
def reuse_kernel(x, z, skip: str):
    """Two tiles through one UB buffer: the second load overwrites what the first store reads (WAR)."""
    buf = ub(0)
    for tile in range(2):
        asc.data_copy(buf, gm(x)[tile * N:], N)  # load tile
        flags(E.MTE2_MTE3, skip, "MTE2_MTE3")
        asc.data_copy(gm(z)[tile * N:], buf, N)  # store tile
        flags(E.MTE3_MTE2, skip, "MTE3_MTE2")


@asc.jit
def overwrite_kernel(x, z, skip: str):
    """The vector unit fills a buffer, then MTE2 loads over it (WAW), then it is stored."""
    buf = ub(0)
    asc.duplicate(buf, 1.0, N)  # fill
    flags(E.V_MTE2, skip, "V_MTE2")
    asc.data_copy(buf, gm(x), N)  # load over
    flags(E.MTE2_MTE3, skip, "MTE2_MTE3")
    asc.data_copy(gm(z), buf, N)


@asc.jit
def queue_kernel(x, z, skip: str):
    """The framework's way: TQue enque/deque imply the flags; skipping the deque leaves the add unordered."""
    pipe = asc.TPipe()
    que_in, que_out = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(que_in, 1, N * 2)
    pipe.init_buffer(que_out, 1, N * 2)
    x_local = que_in.alloc_tensor(asc.float16)
    asc.data_copy(x_local, gm(x), N)  # queue load
    que_in.enque(x_local)
    if skip != "deque":
        x_local = que_in.deque(asc.float16)
    z_local = que_out.alloc_tensor(asc.float16)
    asc.adds(z_local, x_local, 1.0, N)  # queue adds
    que_out.enque(z_local)
    z_local = que_out.deque(asc.float16)
    asc.data_copy(gm(z), z_local, N)
    que_out.free_tensor(z_local)
    if skip != "deque":
        que_in.free_tensor(x_local)


@asc.jit
def wait_kernel(x, z, skip: str):
    buf = ub(0)
    asc.data_copy(buf, gm(x), N)
    if skip != "set":
        asc.set_flag(E.MTE2_MTE3, 3)
    asc.wait_flag(E.MTE2_MTE3, 3)  # the wait
    asc.data_copy(gm(z), buf, N)


@asc.jit
def blocks_kernel(x, z, skip: str):
    """Every block stores a tile; the racy version has every block store the same tile."""
    tile = 0 if skip == "offset" else asc.get_block_idx()
    buf = ub(0)
    asc.data_copy(buf, gm(x)[tile * N:], N)
    flags(E.MTE2_MTE3, skip, "MTE2_MTE3")
    asc.data_copy(gm(z)[tile * N:], buf, N)  # block store


def run(kernel, skip: str, blocks: int = 1, sync: str = "raise", tiles: int = 2):
    x = np.arange(tiles * N, dtype=np.float16)
    y = np.ones(N, dtype=np.float16)
    z = np.zeros(tiles * N, dtype=np.float16)
    args = (x, y, z, skip) if kernel is add_kernel else (x, z, skip)
    kernel.launch(blocks, args, sync=sync)
    return z


def race(kernel, skip: str, **options) -> SyncError:
    with pytest.raises(SyncError) as caught:
        run(kernel, skip, **options)
    assert isinstance(caught.value, ConstraintError)
    return caught.value


# ------------------------------------------------------------------ clean twins
@pytest.mark.parametrize("kernel", [add_kernel, reuse_kernel, overwrite_kernel, queue_kernel, wait_kernel,
                                    blocks_kernel], ids=lambda k: k.fn.__name__)
def test_the_clean_kernels_raise_nothing_and_warn_nothing(kernel):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyncWarning)
        z = run(kernel, "", blocks=2 if kernel is blocks_kernel else 1)
    assert z.tobytes() != bytes(z.nbytes) or kernel is overwrite_kernel


# ------------------------------------------------------------------ racy versions
def test_raw_mte2_to_v():
    err = race(add_kernel, "MTE2_V")
    assert err.instruction == "add"
    assert f"data_copy at {line_of('load x')}" in str(err) and f"add at {line_of('add')}" in str(err)
    assert "read after write" in str(err) and "missing set_flag/wait_flag(MTE2_V)" in str(err)


def test_raw_v_to_mte3():
    err = race(add_kernel, "V_MTE3")
    assert err.instruction == "data_copy"
    assert f"add at {line_of('add')}" in str(err) and f"data_copy at {line_of('store z')}" in str(err)
    assert "missing set_flag/wait_flag(V_MTE3)" in str(err)


def test_war_mte3_to_mte2_reusing_a_buffer():
    err = race(reuse_kernel, "MTE3_MTE2")
    assert "write after read" in str(err) and "missing set_flag/wait_flag(MTE3_MTE2)" in str(err)
    assert f"data_copy at {line_of('store tile')}" in str(err) and f"data_copy at {line_of('load tile')}" in str(err)


def test_waw_v_then_mte2():
    err = race(overwrite_kernel, "V_MTE2")
    assert "write after write" in str(err) and "missing set_flag/wait_flag(V_MTE2)" in str(err)
    assert f"duplicate at {line_of('fill')}" in str(err) and f"data_copy at {line_of('load over')}" in str(err)
    assert err.operand == "UB" and err.value == (0, 2 * N)


def test_a_tensor_used_without_deque():
    err = race(queue_kernel, "deque")
    assert f"data_copy at {line_of('queue load')}" in str(err) and f"adds at {line_of('queue adds')}" in str(err)
    assert "missing set_flag/wait_flag(MTE2_V)" in str(err)


def test_wait_without_set():
    err = race(wait_kernel, "set")
    assert (err.instruction, err.operand, err.value) == ("wait_flag", "event", "MTE2_MTE3 id 3")
    assert f"wait_flag at {line_of('the wait')} has no matching set_flag" in str(err)


def test_gm_race_between_blocks():
    err = race(blocks_kernel, "offset", blocks=2)
    assert err.instruction == "data_copy" and err.operand.startswith("GM buffer")
    assert re.search(r"block 1 \(data_copy at .*\) and block 0", str(err))
    assert line_of("block store") in str(err)


def test_warn_reports_each_race_and_runs_to_the_end():
    with pytest.warns(SyncWarning, match="MTE2_V") as caught:
        z = run(add_kernel, "MTE2_V", sync="warn")
    assert len([w for w in caught if issubclass(w.category, SyncWarning)]) == 2  # x and y, one race each
    assert z[:N].tobytes() == (np.arange(N, dtype=np.float16) + np.float16(1)).tobytes()


def test_off_checks_nothing_and_the_policy_is_validated():
    run(add_kernel, "MTE2_V", sync="off")
    with pytest.raises(ConstraintError, match="sync"):
        run(add_kernel, "", sync="sometimes")
    with pytest.raises(TypeError, match="sync"):
        asc.Core("A2", sync=True)


def test_a_flag_left_set_at_the_end_is_reported():
    @asc.jit
    def left_set(x, z, skip: str):
        asc.set_flag(E.V_MTE3, 5)  # never waited

    with pytest.raises(SyncError, match="never waited") as caught:
        left_set.launch(1, (np.zeros(N, np.float16), np.zeros(N, np.float16), ""), sync="raise")
    assert caught.value.value == "V_MTE3 id 5" and line_of("never waited") in str(caught.value)


def test_a_queue_tensor_still_allocated_at_the_end_is_reported():
    @asc.jit
    def keeps_a_tensor(x, z, skip: str):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, N * 2)
        x_local = que.alloc_tensor(asc.float16)
        asc.data_copy(x_local, gm(x), N)
        if skip != "free":
            que.free_tensor(x_local)

    args = (np.zeros(N, np.float16), np.zeros(N, np.float16))
    keeps_a_tensor.launch(1, (*args, ""), sync="raise")
    with pytest.raises(SyncError, match="still allocated when the kernel ended") as caught:
        keeps_a_tensor.launch(1, (*args, "free"), sync="raise")
    assert caught.value.operand == "queue buffer" and "VECIN queue buffer at 0x0" in str(caught.value.value)


# ------------------------------------------------------------------ schedule fuzzing
def fuzzed(kernel, skip: str, seed: int) -> bytes:
    x = np.arange(2 * N, dtype=np.float16)
    y = np.ones(N, dtype=np.float16)
    z = np.zeros(2 * N, dtype=np.float16)
    args = (x, y, z, skip) if kernel is add_kernel else (x, z, skip)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the racy runs warn of their races and of stale reads
        kernel.launch(1, args, sync="warn", schedule_seed=seed)
    return z.tobytes()


@pytest.mark.parametrize(("kernel", "skip"), [(add_kernel, "MTE2_V"), (reuse_kernel, "MTE3_MTE2")])
def test_a_fuzzed_schedule_shows_the_race_and_never_changes_a_clean_kernel(kernel, skip):
    """A held data copy lets a later call of another pipe overtake it.  (A vector call that sets the mask
    registers, as every count form does, runs at issue but lands its bytes when scheduled: see
    test_a_fuzzed_schedule_replays_races_whose_earlier_side_sets_the_mask_registers.)"""
    clean = run(kernel, "", sync="off").tobytes()
    assert {fuzzed(kernel, "", seed) for seed in range(12)} == {clean}
    racy = {fuzzed(kernel, skip, seed) for seed in range(12)}
    assert clean in racy or len(racy) > 1  # program order is one of the schedules ...
    assert racy - {clean}, "... and some seed reorders the unsynchronised pipes and changes the bytes"


def test_schedule_fuzzing_needs_the_checker():
    with pytest.raises(ConstraintError, match="schedule"):
        asc.Core("A2", sync="off", schedule_seed=1)


# ------------------------------------------------------------------ the scalar (S) pipe
# A scalar read or write of UB / GM (LocalTensor and GlobalTensor get_value / set_value) issues on S
# (``__inout_pipe__(S)`` in GetValue.md / SetValue.md); its order with V, MTE2 and MTE3 is the
# V_S / S_V / MTE3_S ... flag pairs of the AIV table in 核内同步能力概述.md (docs/semantics.md §11.5).
@asc.jit
def scalar_read_kernel(x, z, skip: str):
    """V fills a buffer, the scalar unit reads one element of it, and writes it back to another one."""
    buf, out = ub(0), ub(256)
    asc.duplicate(buf, 3.0, N)  # vector fill
    asc.duplicate(out, 0.0, N)
    flags(E.V_S, skip, "V_S")
    value = buf.get_value(5)  # scalar read
    out.set_value(0, value)  # scalar write
    flags(E.S_V, skip, "S_V")
    asc.adds(out, out, 1.0, 16)  # vector adds
    flags(E.V_MTE3, skip, "keep")
    asc.data_copy(gm(z), out, 16)


@asc.jit
def scalar_war_kernel(x, z, skip: str):
    """The scalar unit reads an element a later vector call overwrites (WAR, S -> V)."""
    buf = ub(0)
    asc.duplicate(buf, 3.0, N)
    flags(E.V_S, skip, "keep")
    buf.get_value(7)  # scalar read before overwrite
    flags(E.S_V, skip, "S_V")
    asc.duplicate(buf, 4.0, N)  # vector overwrite


@asc.jit
def gm_scalar_kernel(x, z, skip: str):
    """MTE3 stores a tile to GM; the scalar unit then reads one element of it back."""
    buf = ub(0)
    asc.data_copy(buf, gm(x), N)
    flags(E.MTE2_MTE3, skip, "keep")
    asc.data_copy(gm(z), buf, N)  # store for scalar
    flags(E.MTE3_S, skip, "MTE3_S")
    gm(z).get_value(3)  # scalar GM read


def test_a_scalar_read_of_what_v_wrote_needs_v_s():
    err = race(scalar_read_kernel, "V_S")
    assert err.instruction == "get_value" and err.operand == "UB" and err.value == (10, 12)
    assert f"duplicate at {line_of('vector fill')}" in str(err) and f"get_value at {line_of('scalar read')}" in str(err)
    assert "read after write" in str(err) and "missing set_flag/wait_flag(V_S)" in str(err)


def test_a_vector_read_of_what_s_wrote_needs_s_v():
    err = race(scalar_read_kernel, "S_V")
    assert err.instruction == "adds" and err.value == (256, 258)
    assert f"set_value at {line_of('scalar write')}" in str(err) and f"adds at {line_of('vector adds')}" in str(err)
    assert "read after write" in str(err) and "missing set_flag/wait_flag(S_V)" in str(err)


def test_a_vector_write_over_what_s_read_needs_s_v():
    err = race(scalar_war_kernel, "S_V")
    assert "write after read" in str(err) and "missing set_flag/wait_flag(S_V)" in str(err)
    assert f"get_value at {line_of('scalar read before overwrite')}" in str(err)
    assert f"duplicate at {line_of('vector overwrite')}" in str(err) and err.value == (14, 16)


def test_a_scalar_gm_read_of_what_mte3_stored_needs_mte3_s():
    err = race(gm_scalar_kernel, "MTE3_S")
    assert err.instruction == "GlobalTensor.get_value" and err.operand.startswith("GM buffer") and err.value == (6, 8)
    assert f"data_copy at {line_of('store for scalar')}" in str(err)
    assert f"GlobalTensor.get_value at {line_of('scalar GM read')}" in str(err)
    assert "missing set_flag/wait_flag(MTE3_S)" in str(err)


@pytest.mark.parametrize("kernel", [scalar_read_kernel, scalar_war_kernel, gm_scalar_kernel],
                         ids=lambda k: k.fn.__name__)
def test_the_clean_scalar_kernels_are_silent(kernel):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyncWarning)
        z = run(kernel, "")
    if kernel is scalar_read_kernel:  # 3.0 read by S, written to out[0], plus 1.0 on V
        assert z[:1].tobytes() == np.float16(4.0).tobytes()


def test_scalar_accesses_outside_a_checked_core_are_not_recorded():
    """A host-side set_value on a core without the checker, and on one with it, before any vector call."""
    with asc.Core("A2", sync="raise"):
        t = ub(0)
        t.set_value(0, 1.0)  # S writes, nothing else touched the bytes: no race
        assert t.get_value(0) == np.float16(1.0)


def test_address_tensors_set_by_the_scalar_unit_need_no_flag_before_trans_data_to_5hd():
    """The address-tensor form reads its tables with GetValue on S and then sets and waits S_V itself
    (asc-devkit kernel_operator_vec_transpose_intf_impl.h), so set_value into the tables is ordered."""
    with asc.Core("A2", sync="raise"):
        src = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 256)
        dst = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 512, 256)
        src.write(np.arange(256, dtype=np.int16))
        dst_list = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 1024, 16)
        src_list = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 1152, 16)
        for i in range(16):
            dst_list.set_value(i, dst[16 * i].get_phy_addr())
            src_list.set_value(i, src[16 * i].get_phy_addr())
        asc.trans_data_to_5hd(dst_list, src_list, asc.TransDataTo5HDParams(False, False, 1, 0, 0), dtype=asc.int16)
        assert dst.read().reshape(16, 16).T.tolist() == np.arange(256).reshape(16, 16).tolist()


# ------------------------------------------------------------------ fuzzing past mask-setting vector calls
@asc.jit
def chain_kernel(x, z, skip: str):
    """Count-form vector calls (each sets the mask registers) feeding each other on V, then a store."""
    a, b = ub(0), ub(256)
    asc.data_copy(a, gm(x), N)
    flags(E.MTE2_V, skip, "MTE2_V")
    asc.adds(b, a, 1.0, N)
    asc.set_vector_mask(0, 0xFFFF, dtype=asc.float16)  # S: a register the next calls' masks come from
    asc.muls(b, b, 2.0, N)
    asc.add(a, a, b, N)
    flags(E.V_MTE3, skip, "V_MTE3")
    asc.data_copy(gm(z), a, N)


@pytest.mark.parametrize(("kernel", "skip"), [(add_kernel, "V_MTE3"), (overwrite_kernel, "V_MTE2"),
                                              (chain_kernel, "V_MTE3"), (scalar_read_kernel, "V_S")])
def test_a_fuzzed_schedule_replays_races_whose_earlier_side_sets_the_mask_registers(kernel, skip):
    """add / duplicate / adds in their count form set MASK and MASK_MODE: the schedule runs them at issue
    (so every later call sees the registers in program order) but lands their UB writes when it schedules
    them, so a copy on another pipe with no flag after them may read or overwrite the bytes first."""
    clean = run(kernel, "", sync="off").tobytes()
    assert {fuzzed(kernel, "", seed) for seed in range(12)} == {clean}
    racy = {fuzzed(kernel, skip, seed) for seed in range(12)}
    assert racy - {clean}, "some seed lets the copy overtake the vector call and changes the bytes"


def test_the_chain_kernel_computes_its_documented_value_under_every_seed():
    """(x + 1) * 2 + x, in half, with every flag in place: fuzzing never changes a synchronised kernel."""
    want = np.array([(v + 1) * 2 + v for v in range(N)], dtype=np.float16)  # small integers: exact in half
    for seed in range(8):
        assert fuzzed(chain_kernel, "", seed)[: 2 * N] == want.tobytes()


@asc.jit
def scalar_blocks_kernel(x, z, skip: str):
    """Every block writes one GM element with the scalar unit; the racy version has all write element 0."""
    element = 0 if skip == "offset" else asc.get_block_idx()
    gm(z).set_value(element, 1.0)  # block scalar store


def test_scalar_gm_writes_of_two_blocks_to_the_same_bytes_race():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyncWarning)
        z = run(scalar_blocks_kernel, "", blocks=2)
    assert z[:2].tobytes() == np.ones(2, np.float16).tobytes()
    err = race(scalar_blocks_kernel, "offset", blocks=2)
    assert err.instruction == "GlobalTensor.set_value" and err.operand.startswith("GM buffer") and err.value == 0
    assert re.search(r"block 1 \(GlobalTensor.set_value at .*\) and block 0", str(err))
    assert line_of("block scalar store") in str(err)
