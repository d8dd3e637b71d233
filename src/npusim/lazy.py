"""Attributes computed on first use, without a lock.

``functools.cached_property`` on Python 3.10 and 3.11 takes one lock for *every* instance of
the class while it computes.  An exception raised at the wrong moment (a ``KeyboardInterrupt``
between acquiring that lock and entering the ``with`` block) leaves it held by the thread
that was interrupted, and from then on every other thread that reads the property waits
forever.  npusim's lazy attributes are pure functions of the object, so two threads that
both compute one get equal values; nothing needs a lock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["cached_attribute"]

T = TypeVar("T")


class cached_attribute(Generic[T]):  # noqa: N801 - used like the decorator it replaces
    """``@cached_attribute`` on a method: computed once per instance, then a plain attribute.

    Works on frozen dataclasses too (the value goes straight into the instance ``__dict__``).
    """

    def __init__(self, function: Callable[[Any], T]) -> None:
        self.function = function
        self.name = function.__name__
        self.__doc__ = function.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.function(instance)
        instance.__dict__[self.name] = value
        return value
