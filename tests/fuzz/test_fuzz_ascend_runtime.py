"""Fuzzing the Ascend runtime: global memory, the TPipe/TQue/TBuf framework and kernel launches.

Runtime objects carry state of their own (bindings, allocations, queue contents, leases),
so their snapshots include it (``TPipe.state()`` and friends); misuse *sequences* are
fuzzed step by step, each step under the contract.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given

from npusim import ascend as asc
from npusim.errors import NoActiveCoreError

from .harness import FUZZ_SETTINGS, SEQUENCE_SETTINGS, run_contract
from .state import ascend_core, ascend_state
from .strategies import (
    ASCEND_CHIPS,
    ASCEND_DTYPES,
    GM_ELEMS,
    TAPES,
    UB_POSITIONS,
    Tape,
    ascend_chip,
    gm_buffers,
    gm_tensor,
    scalar_arg,
    tapes,
)


# ------------------------------------------------------------- global memory
def gm_state(*tensors) -> tuple:
    """GM contents and shadows behind ``tensors``, and what each GlobalTensor is bound to."""
    bindings = tuple((repr(t), t.get_size()) if repr(t) != "GlobalTensor(unbound)" else None for t in tensors)
    return tuple(b.memory.snapshot() for b in gm_buffers(*tensors)), bindings


GM_CALLS = ("gm_alloc", "address arithmetic", "bind", "view", "get_value", "set_value", "get_phy_addr", "get_size")


@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_global_memory(tape: Tape):
    which = tape.pick("which", GM_CALLS)
    dtype = tape.pick("dtype", ASCEND_DTYPES)
    tensor = gm_tensor(tape, "g", dtype)
    other = gm_tensor(tape, "other", tape.pick("other dtype", ASCEND_DTYPES))
    offset = tape.integer("offset", 0, 64) if tape.calm else tape.hostile_int("offset", -8, GM_ELEMS + 8)
    count = tape.integer("count", 0, 64) if tape.calm else tape.hostile_int("count", 0, 2 * GM_ELEMS)
    size = tape.hostile("size", tape.pick("size", (None, tape.integer("size", 0, 512))))
    value = scalar_arg(tape, "value")
    alloc_dtype = tape.hostile("gm_alloc dtype", dtype)
    uninit = tape.hostile("uninit", tape.pick("uninit", ("warn", "raise", "ignore") if tape.calm else
                                              ("warn", "raise", "ignore", "loud", "")))
    view = tape.pick("view", ("slice", "index", "call") if tape.calm else ("slice", "index", "call", "stop", "step"))
    target = tape.pick("target", ("own address", "other address", "array") if tape.calm else
                       ("own address", "other address", "array", "none", "int", "list"))

    def call():
        if which == "gm_alloc":
            asc.gm_alloc(alloc_dtype, count, uninit=uninit).read(1)
        elif which == "address arithmetic":
            ((tensor.address + offset) - count).read(count)
        elif which == "bind":
            where = {"own address": lambda: tensor.address + offset, "other address": lambda: other.address,
                     "array": lambda: np.zeros(count if type(count) is int and 0 <= count < 10**6 else 4),
                     "none": lambda: None, "int": lambda: 0x1000, "list": lambda: [1.0, 2.0]}[target]()
            tensor.set_global_buffer(where, size)
        elif which == "view":
            {"slice": lambda: tensor[offset:], "index": lambda: tensor[offset], "call": lambda: tensor(offset),
             "stop": lambda: tensor[offset:count], "step": lambda: tensor[::offset]}[view]().get_size()
        elif which == "get_value":
            tensor.get_value(offset)
        elif which == "set_value":
            tensor.set_value(offset, value)
        elif which == "get_phy_addr":
            tensor.get_phy_addr(offset).read(count)
        else:
            tensor.get_size()

    run_contract("ascend.gm", lambda: gm_state(tensor, other), call, tape)


# --------------------------------------------------------- TPipe, TQue, TBuf
PIPE_STEPS = ("alloc_tensor", "enque", "deque", "free_tensor", "use tensor", "tbuf.get", "tbuf.get_with_offset",
              "init_buffer again", "queries", "reset", "destroy", "new pipe", "new allocator", "allocator.alloc")
# A calm example runs the canonical pipeline once per queue (AllocTensor/EnQue/DeQue/FreeTensor), using the
# tensors in between.
CANONICAL = ("alloc_tensor", "use tensor", "enque", "deque", "use tensor", "free_tensor")


class PipeWorld:
    """One core's runtime objects during a fuzzed sequence, and every tensor they handed out."""

    def __init__(self, core: asc.Core) -> None:
        self.core = core
        self.pipe: asc.TPipe | None = None
        self.queues: list[asc.TQue] = []
        self.bufs: list[asc.TBuf] = []
        self.tensors: list[asc.LocalTensor] = []  # live or freed
        self.allocator: asc.LocalMemAllocator | None = None  # only once the pipe is destroyed (§5.36)

    def state(self) -> tuple:
        runtime = ([self.pipe] if self.pipe is not None else []) + self.queues + self.bufs
        head = self.allocator.get_cur_addr() if self.allocator is not None else None
        return ascend_state(self.core, runtime=tuple(runtime)), head

    def keep(self, tensor) -> None:
        if isinstance(tensor, asc.LocalTensor):
            self.tensors.append(tensor)


def pipe_step(tape: Tape, world: PipeWorld, step: str, que: asc.TQue | None = None):
    """The call one step makes (a closure), its arguments decoded from the tape."""
    if que is None:
        que = tape.pick("queue", world.queues) if world.queues else asc.TQue()
    buf = tape.pick("buf", world.bufs) if world.bufs else asc.TBuf()
    dtype = tape.hostile("dtype", tape.pick("dtype", (asc.float16,) if tape.calm else ASCEND_DTYPES))
    tensor = tape.pick("tensor", world.tensors[-1:] if tape.calm else world.tensors) if world.tensors else None
    tensor = tape.hostile("tensor", tensor)
    size = tape.integer("size", 1, 16) if tape.calm else tape.hostile_int("size", 0, 200)
    offset = 32 * tape.integer("offset / 32", 0, 1) if tape.calm else tape.hostile_int("offset", 0, 100)
    num, length = tape.hostile_int("num", 1, 4), tape.hostile_int("len", 1, 4096)

    def use():  # an instruction and a host access on the tensor (rejected once its buffer is freed)
        asc.duplicate(tensor, 1, 16)
        tensor.read(1)

    return {
        "alloc_tensor": lambda: world.keep(que.alloc_tensor(dtype)),
        "enque": lambda: que.enque(tensor),
        "deque": lambda: world.keep(que.deque(dtype)),
        "free_tensor": lambda: que.free_tensor(tensor),
        "use tensor": use,
        "tbuf.get": lambda: world.keep(buf.get(dtype, size)),
        "tbuf.get_with_offset": lambda: world.keep(buf.get_with_offset(size, offset, dtype)),
        "init_buffer again": lambda: world.pipe.init_buffer(que, num, length),
        "queries": lambda: (que.get_tensor_count_in_que(), que.has_tensor_in_que(), que.vacant_in_que(),
                            que.has_idle_buffer(), que.free_all_event(), world.pipe.init()),
        "reset": lambda: world.pipe.reset(),
        "destroy": lambda: world.pipe.destroy(),
        "new pipe": lambda: setattr(world, "pipe", asc.TPipe()),
        "new allocator": lambda: setattr(world, "allocator", asc.LocalMemAllocator()),
        "allocator.alloc": lambda: world.keep(world.allocator.alloc(
            tape.hostile("pos", tape.pick("pos", UB_POSITIONS)), dtype, size)) if world.allocator else None,
    }[step]


@SEQUENCE_SETTINGS
@given(tape=tapes(192))
def test_fuzz_pipe_sequences(tape: Tape):
    family = "ascend.pipe"
    chip = ascend_chip(tape, lambda c: c.vec_local_bytes is not None)
    core = ascend_core(chip)
    world = PipeWorld(core)
    with core:
        # construction: the pipe, two queues and a scratch buffer, each under the contract
        run_contract(family, world.state, lambda: setattr(world, "pipe", asc.TPipe()), tape)
        for i in range(2):
            pos = tape.hostile(f"que{i}.pos", tape.pick(f"que{i}.pos", UB_POSITIONS))
            depth = tape.integer(f"que{i}.depth", 1, 2) if tape.calm else tape.hostile_int(f"que{i}.depth", 0, 4)
            run_contract(family, world.state, lambda pos=pos, depth=depth: world.queues.append(asc.TQue(pos, depth)),
                         tape)
        pos = tape.hostile("buf.pos", tape.pick("buf.pos", UB_POSITIONS))
        run_contract(family, world.state, lambda: world.bufs.append(asc.TBuf(pos)), tape)
        if world.pipe is None:
            return
        for que in world.queues:
            num = tape.integer("num", 1, 2) if tape.calm else tape.hostile_int("num", 1, 70)
            length = tape.integer("len", 32, 2048) if tape.calm else tape.hostile_int("len", 1, 300_000)
            run_contract(family, world.state, lambda que=que, num=num, length=length: world.pipe.init_buffer(
                que, num, length), tape)
        for buf in world.bufs:
            length = tape.integer("len", 32, 2048) if tape.calm else tape.hostile_int("len", 1, 300_000)
            form = tape.pick("init form", ("positional", "len="))
            init = (lambda buf=buf, length=length: world.pipe.init_buffer(buf, length)) if form == "positional" else (
                lambda buf=buf, length=length: world.pipe.init_buffer(buf=buf, len=length))
            run_contract(family, world.state, init, tape)
        # the sequence
        if tape.calm:
            steps = [(step, que) for que in world.queues for step in CANONICAL]
        else:
            steps = [(tape.pick("step", PIPE_STEPS), None) for _ in range(tape.integer("steps", 1, 8))]
        for step, que in steps:
            run_contract(family, world.state, pipe_step(tape, world, step, que), tape)


# ------------------------------------------------------------------ launches
@asc.jit
def scale_kernel(x, y, n):
    """``y = 2 * x`` on n elements per block; every block reads and writes its own slice."""
    x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    y_gm.set_global_buffer(y)
    offset = asc.get_block_idx() * n
    local = asc.LocalTensor(x_gm.dtype, asc.TPosition.VECIN, 0, n)
    asc.data_copy(local, x_gm[offset:], n)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)  # the pipes ordered, as on the device (docs/semantics.md §11)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.muls(local, local, 2, n)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    asc.data_copy(y_gm[offset:], local, n)


def active_core() -> asc.Core | None:
    try:
        return asc.current_core("fuzz")
    except NoActiveCoreError:
        return None


# Block counts: valid ones stay small (a launch runs its blocks one after another), hostile ones are wrong.
HOSTILE_BLOCK_DIMS = (0, -1, 65536, 2**64, None, 1.5, "3", True, np.array([1, 2]), (1, 2), [2])
HOSTILE_ARGS = (None, 3, "x", [1.0, 2.0], np.float16(1), np.zeros((2, 2, 2), np.float16), np.zeros(16, complex),
                np.zeros(16, object), np.array(2.0, np.float16))  # arrays: too small for any block, or no GM type


def launch_array(tape: Tape, label: str, dtype, elems: int):
    """A GM argument: a fresh array of ``elems`` (calm) or a hostile one: too short even for block 0,
    read-only, strided, of another dtype, never written (gm_alloc), or not an array at all.

    Every hostile argument makes block 0 fail before it writes GM: a launch whose block k fails
    keeps what blocks 0 .. k-1 wrote, as the hardware would, so only then is GM unchanged.
    """
    kind = "array" if tape.calm else tape.pick(f"{label} kind", ("array",) * 6 + (
        "short", "read-only", "strided", "other dtype", "never written", "hostile"))
    if kind == "never written":
        return asc.gm_alloc(dtype, elems)
    if kind == "hostile":
        value = tape.pick(label, HOSTILE_ARGS)
        return value.copy() if isinstance(value, np.ndarray) else value
    if kind == "other dtype":
        dtype = tape.pick(f"{label} dtype", (asc.float32, asc.int8, asc.uint64))
    size = 8 if kind == "short" else elems
    array = np.arange(size * (2 if kind == "strided" else 1)).astype(dtype.np_dtype)
    if kind == "strided":
        array = array[::2]
    if kind == "read-only":
        array.flags.writeable = False
    return array


@FUZZ_SETTINGS
@given(tape=TAPES)
def test_fuzz_launch(tape: Tape):
    chip = tape.pick("chip", ("A2", "950", "310B") if tape.calm else ASCEND_CHIPS)
    block_dim = tape.integer("block_dim", 1, 3)
    n = 16 * tape.integer("n / 16", 1, 4)
    x = launch_array(tape, "x", asc.float16, block_dim * n)
    y = launch_array(tape, "y", asc.float16, block_dim * n)
    block_dim = tape.hostile("block_dim", block_dim, pool=HOSTILE_BLOCK_DIMS)
    n = tape.hostile("n", n, pool=(0, -16, 15, 2**40, 10**30))  # an int: the kernel multiplies by it
    stream = tape.hostile("stream", None)
    strict = tape.hostile("strict", tape.chance("strict", 2))
    form = tape.pick("form", ("[block_dim]", "[block_dim, stream]", "launch", "keywords") if tape.calm else
                     ("[block_dim]", "[block_dim, stream]", "launch", "keywords", "[a, b, c]", "direct call"))
    arrays = [a for a in (x, y) if isinstance(a, np.ndarray)]

    def call():
        if form == "[block_dim]":
            scale_kernel[block_dim](x, y, n)
        elif form == "[block_dim, stream]":
            scale_kernel[block_dim, stream](x, y, n)
        elif form == "launch":
            scale_kernel.launch(block_dim, (x, y, n), chip=chip, strict=strict)
        elif form == "keywords":
            scale_kernel[block_dim](x=x, y=y, n=n)
        elif form == "[a, b, c]":
            scale_kernel[block_dim, stream, 0](x, y, n)
        else:
            scale_kernel(x, y, n)

    def state():  # GM, the default chip, and that no core is left active
        return tuple(a.tobytes() for a in arrays), asc.get_default_chip().name, active_core()

    with asc.using_chip(chip):
        run_contract("ascend.launch", state, call, tape)
