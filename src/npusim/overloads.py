"""Choosing among a function's documented call forms (C++ overloads in Python).

Vendor APIs overload one name many ways (``Select`` has eight forms).  A
:class:`Form` lists a form's parameters in order, each with a type test and an
optional default; :func:`bind` maps a call's positional and keyword arguments
onto the first form whose parameters and types fit.  No form fitting is a
``TypeError`` that lists every accepted form, so a wrong Python type is always
reported against the documented signatures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["REQUIRED", "Form", "Param", "bind"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Param:
    """One parameter of a form: name, type test, default (``REQUIRED`` if none).

    ``accepts`` must depend on the value's type only (``bind`` caches by argument types).
    """

    name: str
    accepts: Callable[[Any], bool]
    default: Any = REQUIRED


@dataclass(frozen=True)
class Form:
    """One call form: a name (for dispatch) and its parameters in order."""

    name: str
    params: tuple[Param, ...]

    def signature(self) -> str:
        parts = [p.name if p.default is REQUIRED else f"{p.name}={p.default!r}" for p in self.params]
        return f"({', '.join(parts)})"

    def assign(self, args: tuple, kwargs: dict) -> dict:
        """Arguments by name, defaults filled in, for a call whose argument types already fit."""
        bound = dict(zip(self.names, args, strict=False))
        bound.update(kwargs)
        for param in self.params[len(args):]:
            if param.name not in bound:
                bound[param.name] = param.default
        return bound

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def try_bind(self, args: tuple, kwargs: dict) -> dict | None:
        if len(args) > len(self.params):
            return None
        names = [p.name for p in self.params]
        if any(k not in names for k in kwargs):
            return None
        bound: dict[str, Any] = {}
        for param, value in zip(self.params, args, strict=False):
            bound[param.name] = value
        for key, value in kwargs.items():
            if key in bound:
                return None
            bound[key] = value
        for param in self.params:
            if param.name not in bound:
                if param.default is REQUIRED:
                    return None
                bound[param.name] = param.default
            elif not param.accepts(bound[param.name]):
                return None
        return bound


_FORM_BY_TYPES: dict = {}


def bind(instruction: str, forms: tuple[Form, ...], args: tuple, kwargs: dict) -> tuple[str, dict]:
    """The first form that fits the call, and the call's arguments by parameter name.

    Every ``Param.accepts`` test depends only on the argument's type, so the form chosen for
    a given tuple of argument types is remembered and the next such call skips the search.
    """
    key = (id(forms), tuple(map(type, args)), tuple((k, type(v)) for k, v in kwargs.items()))
    known = _FORM_BY_TYPES.get(key)
    if known is not None:
        return known.name, known.assign(args, kwargs)
    for form in forms:
        bound = form.try_bind(args, kwargs)
        if bound is not None:
            _FORM_BY_TYPES[key] = form
            return form.name, bound
    given = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    accepted = "\n  ".join(f"{instruction}{f.signature()}" for f in forms)
    raise TypeError(f"{instruction}: no call form takes ({given}); accepted forms:\n  {accepted}")
