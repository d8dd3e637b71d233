"""Several cores in several threads: the process-wide caches are shared, the results are not.

Each thread runs its own cores of both vendors and issues calls whose plan keys no other
thread uses, so every cache keeps missing, storing and evicting at once (the engine's plan
cache shared between cores is bounded: with four threads it evicts on almost every store).
The interpreter is made to switch threads as often as it can, which turns a race into a
failure within the test's run (before: ``KeyError`` from ``plans._store``).  Every thread's
bytes must equal a single-threaded run.
"""

from __future__ import annotations

import hashlib
import sys
import threading

import numpy as np
import pytest

from npusim import ascend as asc
from npusim import sophgo as tpu
from npusim.engine.dispatch import PLANS
from npusim.errors import NoActiveCoreError
from npusim.sophgo.core import current_core as sophgo_current_core

THREADS = 4
ROUNDS, COPIES = 2, 600  # data_copy calls per thread: each round moves the UB tensor, so every key is new
MIXED = 60  # calls per thread of the other instructions
VECIN = asc.TPosition.VECIN


def _copies(seed: int, digest) -> None:
    """data_copy calls with plan keys no other seed uses: the UB tensor's address and extent are in the key."""
    with asc.Core("A2") as core:
        gm = np.arange(1 << 12, dtype=np.float32) * (seed + 1)
        g = asc.GlobalTensor()
        g.set_global_buffer(gm)
        for round_ in range(ROUNDS):
            for call in range(COPIES):
                ub = asc.LocalTensor(asc.float32, VECIN, 32 * round_, 64 + 8 * (seed * COPIES + call))
                asc.data_copy(ub, g[call + round_:], 64)
                digest.update(core.ub_read(32 * round_, 256))


def _ascend_calls(seed: int, digest) -> None:
    """adds (new scalars), compare_scalar, select and trans_data_to_5hd (new plans) on one core."""
    with asc.Core("A2") as core:
        core.ub_write(0, (np.arange(4096, dtype=np.float32) * (seed + 1)).tobytes())
        for call in range(MIXED):
            key = seed * MIXED + call
            ub = asc.LocalTensor(asc.float32, VECIN, 32 * (key % 64), 2048)
            asc.adds(ub, ub, 0.25 * key, 256)  # a new scalar for the scalar memo
            mask = asc.LocalTensor(asc.uint8, VECIN, 0x2A000, 256)
            asc.compare_scalar(mask, ub, float(key), asc.CMPMODE.LT, 256)
            out = asc.LocalTensor(asc.float32, VECIN, 0x2B000, 256)
            asc.select(out, mask, ub, ub[8 * (key % 16):], asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 256)
            src = [asc.LocalTensor(asc.float16, VECIN, 0x2C000 + 32 * i, 16) for i in range(16)]
            dst = [asc.LocalTensor(asc.float16, VECIN, 0x2D000 + 32 * ((i + key) % 16), 16) for i in range(16)]
            core.ub_write(0x2C000, np.arange(256, dtype=np.float16).tobytes())
            asc.trans_data_to_5hd(dst, src, asc.TransDataTo5HDParams(False, False, 1, 0, 0))
            digest.update(core.ub_read(0, 1024) + core.ub_read(0x2A000, 32) + core.ub_read(0x2B000, 1024)
                          + core.ub_read(0x2D000, 512))


def _sophgo_calls(seed: int, digest) -> None:
    """GDMA copies, set_C and selects with shapes no other seed uses (the lru_cache plans)."""
    with tpu.Core("BM1684X", global_mem_bytes=1 << 20) as core:
        core.write_global(0, np.arange(1 << 16, dtype=np.int32) * (seed + 1))
        for call in range(MIXED):
            key = seed * MIXED + call
            shape = tpu.dim4(1, 1 + key % 64, 1, 1 + key // 64 % 16)
            tpu.tpu_gdma_cpy_S2L(0, 4 * call, shape, None, None, tpu.DT_INT32)
            tpu.tpu_bdc_set_C(0x4000, tpu.scalar_t(s32=key), shape, None, tpu.DT_INT32)
            value = tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(s32=-key))
            tpu.tpu_bdc_greater_select(0x8000, tpu.variable_t(type=tpu.TENSOR, addr=0),
                                       tpu.variable_t(type=tpu.TENSOR, addr=0x4000),
                                       tpu.variable_t(type=tpu.TENSOR, addr=0), value, shape,
                                       tpu.DT_INT32, tpu.DT_INT32)
            digest.update(core.read_local(0x8000, shape, tpu.DT_INT32).tobytes())


def _run(seed: int) -> bytes:
    digest = hashlib.sha256()
    _copies(seed, digest)
    _ascend_calls(seed, digest)
    _sophgo_calls(seed, digest)
    return digest.digest()


@pytest.fixture
def frequent_thread_switches():
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def _in_threads(work) -> dict[int, object]:
    """``work(seed)`` in one thread per seed, all at once; the results by seed (a failure fails the test)."""
    results: dict[int, object] = {}
    failures: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            results[seed] = work(seed)
        except BaseException as err:  # noqa: BLE001 - reported below
            failures.append(err)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, f"{len(failures)} threads failed, the first with {failures[0]!r}"
    return results


def test_cores_in_several_threads_give_the_single_threaded_bytes(frequent_thread_switches):
    assert _in_threads(_run) == {seed: _run(seed) for seed in range(THREADS)}


def test_the_shared_plan_cache_survives_threads_storing_at_once(frequent_thread_switches):
    """The engine's plan cache, shared by every core, while four threads store new keys into it
    as fast as they can (before: two threads evicting the same oldest entry raised KeyError)."""
    plan = object()

    def store(seed: int):
        for i in range(20_000):
            PLANS.put(("thread test", seed, i), plan)

    _in_threads(store)
    try:
        assert len(PLANS) == PLANS.limit  # full, and never beyond its bound
        assert any(PLANS.get(("thread test", seed, 19_999)) is plan for seed in range(THREADS))  # the newest kept
    finally:
        PLANS.clear()


def test_each_thread_has_its_own_active_cores():
    """The active-core stacks are per thread (contextvars): a core entered in one thread is not
    active in another, and a thread's own nesting is undisturbed by the others."""
    seen: dict[str, tuple] = {}
    entered, release = threading.Event(), threading.Event()

    def holder() -> None:
        with asc.Core("310P"), tpu.Core("BM1688"):
            entered.set()
            release.wait(10)
            seen["holder"] = active_chips()

    def other() -> None:
        seen["other before"] = active_chips()
        with asc.Core("950"), tpu.Core("BM1684X"):
            seen["other"] = active_chips()

    first = threading.Thread(target=holder)
    first.start()
    entered.wait(10)
    second = threading.Thread(target=other)
    second.start()
    second.join()
    release.set()
    first.join()
    assert seen == {"other before": (None, None), "other": ("950", "BM1684X"), "holder": ("310P", "BM1688")}


def active_chips() -> tuple[str | None, str | None]:
    """The chip names of the active Ascend and Sophgo cores of this thread (None: no core)."""
    names = []
    for current in (asc.current_core, sophgo_current_core):
        try:
            names.append(current("test").chip.name)
        except NoActiveCoreError:
            names.append(None)
    return tuple(names)


def test_no_lazy_attribute_takes_a_class_wide_lock():
    """functools.cached_property on Python < 3.12 holds one lock for every instance while it computes;
    an interrupt between taking it and entering its ``with`` block leaves it held, and every other
    thread that reads the attribute then waits forever (seen: four threads blocked in
    TransPlan.src_index after the interrupted-call tests).  npusim.lazy.cached_attribute has no lock."""
    import ast
    from pathlib import Path

    import npusim

    offenders = []
    for path in Path(npusim.__file__).parent.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "functools" and any(
                    alias.name == "cached_property" for alias in node.names):
                offenders.append(str(path))
    assert offenders == []
