"""Every cache npusim keeps, in one place: bounded, thread-safe, clearable, and switchable off.

A cache here is only ever an *exact* shortcut: whatever it returns is what recomputing
would return, so clearing one, or switching all of them off, changes speed and nothing
else (a test runs the whole instruction suite with caching disabled and compares bytes).

* :class:`Cache` — a bounded mapping.  Reads take no lock (a ``dict`` lookup is atomic
  in CPython); writes take the cache's own lock, so several threads, each driving its own
  core, can fill one cache.  When full, the entry stored first is dropped (FIFO):
  cheaper than LRU on every hit, and plans are cheap to rebuild.
* :func:`memoized` — a function memo on top of a :class:`Cache` (in place of
  ``functools.lru_cache``, which :func:`disabled` could not reach).
* :func:`clear_all`, :func:`disabled`, :func:`stats` — act on every cache alive, the
  per-core ones included; ``NPUSIM_CACHES=off`` in the environment disables them for
  the whole process.
"""

from __future__ import annotations

import _thread
import contextlib
import functools
import os
import weakref
from collections.abc import Callable, Hashable, Iterator
from typing import Any, TypeVar

__all__ = ["Cache", "clear_all", "disabled", "enabled", "memoized", "stats"]

F = TypeVar("F", bound=Callable[..., Any])

_ALL: weakref.WeakSet[Cache] = weakref.WeakSet()
_switch_lock = _thread.allocate_lock()
#: > 0 while some caller holds ``disabled()``; ``NPUSIM_CACHES=off`` in the environment starts it at 1,
#: so a whole test run can be repeated with every cache off (tests/engine/test_caches_off.py)
_disabled_depth = 1 if os.environ.get("NPUSIM_CACHES", "").lower() == "off" else 0


class Cache:
    """A bounded, thread-safe mapping whose misses the caller fills.

    Args:
        name: what :func:`stats` calls it.
        limit: the most entries it keeps (at least 1).

    ``get`` of an unhashable key is a miss and ``put`` of one does nothing, so callers
    may build keys from arguments without checking them first.
    """

    __slots__ = ("__weakref__", "_entries", "_lock", "limit", "name")

    def __init__(self, name: str, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"cache {name!r}: limit must be at least 1, got {limit}")
        self.name = name
        self.limit = limit
        self._entries: dict = {}
        self._lock = _thread.allocate_lock()
        with _switch_lock:
            _ALL.add(self)

    def get(self, key: Hashable, default: Any = None) -> Any:
        if _disabled_depth:
            return default
        try:
            return self._entries.get(key, default)
        except TypeError:  # an unhashable key is never stored
            return default

    def put(self, key: Hashable, value: Any) -> None:
        if _disabled_depth:
            return
        try:
            hash(key)
        except TypeError:
            return
        with self._lock:
            entries = self._entries
            if key not in entries and len(entries) >= self.limit:
                del entries[next(iter(entries))]
            entries[key] = value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Cache({self.name!r}, {len(self)}/{self.limit})"


def memoized(name: str, limit: int) -> Callable[[F], F]:
    """Remember a pure function's results by its (hashable) positional arguments.

    The wrapped function keeps ``cache`` (its :class:`Cache`) as an attribute.
    """

    def decorate(function: F) -> F:
        cache = Cache(name, limit)
        missing = object()

        @functools.wraps(function)
        def wrapper(*args):
            found = cache.get(args, missing)
            if found is missing:
                found = function(*args)
                cache.put(args, found)
            return found

        wrapper.cache = cache  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def clear_all() -> None:
    """Empty every cache alive (shared and per-core)."""
    for cache in list(_ALL):
        cache.clear()


def enabled() -> bool:
    """Whether caches answer (``False`` inside :func:`disabled`)."""
    return not _disabled_depth


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Inside this block every cache misses and keeps nothing (process-wide; blocks nest)."""
    global _disabled_depth
    with _switch_lock:
        _disabled_depth += 1
    try:
        yield
    finally:
        with _switch_lock:
            _disabled_depth -= 1


def stats() -> dict[str, int]:
    """Entries held, per cache name (caches of one name, e.g. one per core, are summed)."""
    totals: dict[str, int] = {}
    for cache in list(_ALL):
        totals[cache.name] = totals.get(cache.name, 0) + len(cache)
    return totals
