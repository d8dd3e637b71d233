"""Kernels and launches, as in pyasc: ``@asc.jit`` and ``kernel[block_dim](*args)``.

A launch runs the kernel function once per block, **sequentially, in block order
0, 1, ..., block_dim - 1**, each on a fresh :class:`~npusim.ascend.core.Core` of the
chosen product: every block has its own Unified Buffer and registers, and
``get_block_idx()`` / ``get_block_num()`` tell it which it is.  Global memory is shared:
every numpy array (or CPU torch tensor) argument becomes one GM buffer over the array's
own bytes, which the kernel receives as an :class:`~npusim.ascend.runtime.gm.GlobalAddress`;
what the blocks write there is in the array as soon as they write it.  An array of any
layout or byte order works, and arguments that share memory (``k[1](x, x)``,
``k[1](x, x[::2])``) see each other's writes, as one GM would
(:meth:`~npusim.ascend.runtime.gm.GmBuffer.from_array`).  Other arguments pass through
unchanged.

Because blocks run one after another, a kernel whose blocks communicate through GM in
both directions (spin-waiting on each other) cannot run here; kernels whose blocks work
on disjoint data, as the programming model intends, give the hardware's result.

Example::

    @asc.jit
    def scale(x: asc.GlobalAddress, n: asc.ConstExpr[int]): ...

    scale[8](x_array, 1024)                       # default chip (asc.set_default_chip)
    scale.launch(8, (x_array, 1024), chip="950")  # explicit chip, returns the Launch
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ...engine.trace import CoreTrace, collecting
from ...errors import RuntimeMisuseError
from ...memory import core_uninit_policy, strict_reads
from ...sources import semantics
from ...validate import require_int
from ...views.progress import progress
from .. import pages
from ..chips import AscendChip, get_chip, get_default_chip
from ..core import MAX_BLOCK_NUM, Core, current_core
from ..sync_check import BlockRaces, sync_checker
from ..tolerance import require_tolerance_policy
from .gm import GlobalAddress, GmBuffer, is_array_like
from .pipe import tensors_in_use

__all__ = ["ConstExpr", "JitFunction", "Launch", "get_block_idx", "get_block_num", "jit"]

T = TypeVar("T")

_RUNNING: contextvars.ContextVar[Launch | None] = contextvars.ContextVar("npusim_ascend_launch", default=None)


class ConstExpr(Generic[T]):
    """pyasc ``ConstExpr[int]``: marks a compile-time constant parameter.

    npusim runs the kernel as Python, so the annotation only documents intent; the value
    passes through unchanged.  ``ConstExpr.unwrap(v)`` returns ``v.value`` for a wrapped value.
    """

    def __init__(self, value: T) -> None:
        self.value = self.unwrap(value)

    @staticmethod
    def unwrap(value):
        return value.value if isinstance(value, ConstExpr) else value

    def __repr__(self) -> str:
        return f"ConstExpr({self.value!r})"


@dataclass
class Launch:
    """What one launch ran: the kernel, its block count, the chip and the GM buffers of its array arguments.

    It holds no core: each block's core is freed when the block returns, so a launch of
    65,535 blocks needs the memory of one.  To look at a block's core (its UB, its sync
    log), pass ``after_block`` to :meth:`JitFunction.launch`.
    """

    kernel: str
    block_dim: int
    chip: AscendChip
    gm: list[GmBuffer] = field(default_factory=list)
    trace: list[CoreTrace] | None = None  # every block's access records, when traced (launch(..., trace=...))


class JitFunction:
    """A kernel (or a helper it calls) marked with ``@asc.jit``.

    ``kernel[block_dim]`` or ``kernel[block_dim, stream]`` returns the launcher; the stream
    is accepted and ignored.  Calling the function directly is allowed only while a launch
    is running (helpers called from a kernel).
    """

    def __init__(self, fn: Callable, **options) -> None:
        self.fn = fn
        self.options = options
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<npusim jit kernel {self.fn.__qualname__}>"

    def __getitem__(self, launch_options) -> Callable[..., Launch]:
        if isinstance(launch_options, tuple):
            if not 1 <= len(launch_options) <= 2:
                raise TypeError(f"{self.fn.__name__}[...]: expected [block_dim] or [block_dim, stream], "
                                f"got {len(launch_options)} items")
            block_dim = launch_options[0]
        else:
            block_dim = launch_options

        def launcher(*args, **kwargs) -> Launch:
            return self.launch(block_dim, args, kwargs)

        return launcher

    def __call__(self, *args, **kwargs):
        if _RUNNING.get() is None:
            raise RuntimeMisuseError(
                self.fn.__name__, "call", "outside a launch", "a jit kernel runs on NPU cores and is launched "
                "with a block count", f"{self.fn.__name__}[block_dim](...); helpers may be called from a kernel",
                f"{pages.KERNEL_LAUNCH} 核函数配置; {semantics('5.7')}",
            )
        return self.fn(*args, **kwargs)

    def launch(self, block_dim: int, args: tuple | list = (), kwargs: dict | None = None, *,
               chip: str | AscendChip | None = None, strict: bool = False, sync: str | None = None,
               schedule_seed: int | None = None, tolerance: str = "strict",
               after_block: Callable[[Core], object] | None = None,
               trace: bool | str | os.PathLike = False) -> Launch:
        """Run the kernel on ``block_dim`` blocks, in order; return what ran.

        Args:
            block_dim: number of blocks (cores), 1 to 65535.
            args, kwargs: the kernel's arguments (a tuple or list, a dict); arrays become GM buffers.
            chip: the product; default :func:`~npusim.ascend.chips.get_default_chip`.
            strict: reads of never-written UB or GM raise instead of warning; GM from
                :func:`~npusim.ascend.runtime.gm.gm_alloc` included, unless it was made with
                ``uninit="ignore"``.
            sync: the pipe synchronisation checker of every block (docs/semantics.md §11):
                ``"warn"``, ``"raise"`` or ``"off"``; ``None``: :data:`DEFAULT_SYNC`, which is
                ``"off"`` (checking costs about 3x a plain launch today, docs/performance.md) and
                ``"warn"`` under ``npusim run`` (``--sync`` chooses).
                Blocks share one record of GM bytes, for races between blocks.
            schedule_seed: fuzz each block's pipe schedule with this seed (``Core(schedule_seed=)``):
                a kernel that is properly synchronised gives the same bytes under every seed.
            tolerance: every block's ``Core(tolerance=...)``: ``"strict"`` raises where the
                documents forbid what the device tolerates, ``"hardware"`` warns
                (docs/semantics.md §10.7); pyasc launches pass their entry point's policy.
            after_block: called with each block's core when the block has returned, before the
                core is freed (to look at its UB or sync log; npusim keeps no core).
            trace: ``True`` keeps every block's access records in ``Launch.trace``; a path
                also writes them there as a Chrome trace-event file (:mod:`npusim.views.chrome`).
        """
        name = self.fn.__name__
        who = f"{name}.launch"
        block_dim = require_int(name, "block_dim", block_dim, 1, MAX_BLOCK_NUM,
                                f"{pages.KERNEL_LAUNCH} 核函数配置; {semantics('5.7')}")
        if not isinstance(args, (tuple, list)):
            raise TypeError(f"{who}: args must be a tuple or list of the kernel's arguments, got {type(args).__name__}")
        if kwargs is None:
            kwargs = {}
        elif not isinstance(kwargs, dict):
            raise TypeError(f"{who}: kwargs must be a dict of keyword arguments, got {type(kwargs).__name__}")
        elif not all(isinstance(key, str) for key in kwargs):
            raise TypeError(f"{who}: kwargs keys must be parameter names (str), got "
                            f"{[key for key in kwargs if not isinstance(key, str)][0]!r}")
        if not isinstance(trace, (bool, str, os.PathLike)):
            raise TypeError(f"{who}: trace must be a bool or a file path, got {type(trace).__name__}")
        if after_block is not None and not callable(after_block):
            raise TypeError(f"{who}: after_block must be callable (it receives each block's Core), "
                            f"got {type(after_block).__name__}")
        product = get_default_chip() if chip is None else get_chip(chip)
        uninit = core_uninit_policy(name, strict, None)
        tolerance = require_tolerance_policy(name, tolerance)
        if sync is None:
            sync = DEFAULT_SYNC.get()
        sync_checker(name, sync, product.hard_event_ids, schedule_seed=schedule_seed)  # checked before anything runs
        blocks = BlockRaces() if sync != "off" and block_dim > 1 else None  # one block races no other
        launch = Launch(name, block_dim, product)
        call_args = [self._bind(launch, value, f"arg {i}", uninit) for i, value in enumerate(args)]
        call_kwargs = {key: self._bind(launch, value, key, uninit) for key, value in kwargs.items()}
        token = _RUNNING.set(launch)
        traced = None
        try:
            with strict_reads(strict), collecting() if trace is not False else contextlib.nullcontext() as traced:
                for block_idx in progress(range(block_dim), f"{name}[{block_dim}]", block_dim, "block"):
                    core = Core(product, strict=strict, block_idx=block_idx, block_num=block_dim,
                                tolerance=tolerance)
                    core.observer = sync_checker(name, sync, product.hard_event_ids, blocks,
                                                 None if schedule_seed is None else schedule_seed + block_idx,
                                                 core.ub)
                    self._run_block(launch, core, call_args, call_kwargs, after_block)
                    del core  # the block's core is freed when the block returns
        finally:
            _RUNNING.reset(token)
            if traced is not None:  # also when a block failed: the trace shows what ran up to it
                launch.trace = traced.cores
                if trace is not True:
                    from ...views.chrome import write_trace

                    write_trace(trace, traced.cores)
        return launch

    def _run_block(self, launch: Launch, core: Core, args: list, kwargs: dict, after_block) -> None:
        """One block on its own core; the core is referred to only from here, so it is freed on return."""
        with core:
            try:
                self.fn(*args, **kwargs)
                if core.observer is not None:
                    core.observer.finish(launch.kernel, tensors_in_use(core))
            except Exception as err:
                if hasattr(err, "add_note"):
                    err.add_note(f"(npusim: in block {core.block_idx} of {launch.block_dim}, kernel {launch.kernel}, "
                                 f"chip {launch.chip.name})")
                raise
        if after_block is not None:
            after_block(core)

    def _bind(self, launch: Launch, value: Any, label: str, uninit: str) -> Any:
        if isinstance(value, GlobalAddress):
            return value
        if is_array_like(value):
            buffer = GmBuffer.from_array(value, f"GM {label} of {launch.kernel}", uninit)  # type: ignore[arg-type]
            launch.gm.append(buffer)
            return GlobalAddress(buffer, 0, buffer.dtype)
        return value


#: the sync policy of launches that name none (``npusim run --sync`` sets it for its script)
DEFAULT_SYNC: contextvars.ContextVar[str] = contextvars.ContextVar("npusim_default_sync", default="off")


def jit(fn: Callable | None = None, **options) -> JitFunction | Callable[[Callable], JitFunction]:
    """Mark a kernel or helper (pyasc ``@asc.jit``, also ``@asc.jit(**options)``; options are ignored)."""
    if fn is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(fn, **options)


def get_block_idx() -> int:
    """Index of the running block, ``0 .. get_block_num() - 1`` (GetBlockIdx.md)."""
    return current_core("get_block_idx").block_idx


def get_block_num() -> int:
    """Number of blocks in the running launch (GetBlockNum.md)."""
    return current_core("get_block_num").block_num
