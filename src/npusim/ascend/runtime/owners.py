"""Who hands out a core's UB: its TPipe (:mod:`.pipe`), its LocalMemAllocator (:mod:`.allocator`) and the pool of
its LocalTensorAuto buffers (:mod:`.auto`, which pyasc's insert_sync turns into TPipe buffers).

Static-Tensor programming is not mixed with a TPipe (LocalMemAllocator简介.md; docs/semantics.md §5.36), so each of
them asks here whether another one owns the core's UB; the registries live in this module so that none of the three
needs to import another.  Both sides of each registry are weak: an owner refers to its core, so strong values would
keep every core (and its UB arrays) alive for the life of the process.
"""

from __future__ import annotations

import weakref
from typing import Any

from ..core import Core

__all__ = ["AUTO_POOLS", "allocator_of", "live_pipe_of", "set_allocator", "set_pipe"]

_PIPES: weakref.WeakKeyDictionary[Core, weakref.ref] = weakref.WeakKeyDictionary()
_ALLOCATORS: weakref.WeakKeyDictionary[Core, weakref.ref] = weakref.WeakKeyDictionary()
#: each core's LocalTensorAuto pool (:class:`.auto._AutoPool`), made by its first LocalTensorAuto
AUTO_POOLS: weakref.WeakKeyDictionary[Core, Any] = weakref.WeakKeyDictionary()


def set_pipe(core: Core, pipe) -> None:
    _PIPES[core] = weakref.ref(pipe)


def live_pipe_of(core: Core):
    """``core``'s TPipe, unless it has none or it was destroyed."""
    ref = _PIPES.get(core)
    pipe = ref() if ref is not None else None
    return None if pipe is None or pipe.destroyed else pipe


def set_allocator(core: Core, allocator) -> None:
    _ALLOCATORS[core] = weakref.ref(allocator)


def allocator_of(core: Core):
    """``core``'s LocalMemAllocator while the object lives, else None."""
    ref = _ALLOCATORS.get(core)
    return ref() if ref is not None else None
