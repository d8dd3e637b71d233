"""Choosing among a function's documented call forms (C++ overloads in Python).

Vendor APIs overload one name many ways (``Select`` has eight forms).  A
:class:`Form` lists a form's parameters in order, each with a type test and an
optional default; :func:`bind` maps a call's positional and keyword arguments
onto the first form whose parameters and types fit.  No form fitting is a
``TypeError`` that lists every accepted form, so a wrong Python type is always
reported against the documented signatures.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["REQUIRED", "Form", "Param", "bind", "bind_values"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


def _shown(default: Any) -> str:
    """A default as a signature shows it: an enum member by its qualified name (``MaskMode.NORMAL``)."""
    if isinstance(default, enum.Enum):
        return f"{type(default).__name__}.{default.name}"
    return repr(default)


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
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(p.name for p in self.params))

    def signature(self) -> str:
        parts = [p.name if p.default is REQUIRED else f"{p.name}={_shown(p.default)}" for p in self.params]
        return f"({', '.join(parts)})"

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


# call shape -> (form, what completes the call's values; see bind_values).  Shared by every thread: an
# entry depends only on its key, so threads racing to fill one store equal values.
_BINDINGS: dict = {}


def bind_values(instruction: str, forms: tuple[Form, ...], args: tuple, kwargs: dict) -> tuple[Form, tuple]:
    """The first form that fits the call, and the call's argument values in that form's parameter order.

    Parameters the call leaves out get their defaults.  Every ``Param.accepts`` test depends
    only on the argument's type, so the form chosen for a call *shape* (argument types,
    keyword names and types) is remembered with the defaults such a call leaves out, and
    the next call of that shape skips the search.
    """
    if type(args) is not tuple:
        args = tuple(args)
    if kwargs:
        key = (id(forms), tuple(map(type, args)), tuple(kwargs), tuple(map(type, kwargs.values())))
    else:
        key = (id(forms), *map(type, args))
    known = _BINDINGS.get(key)
    if known is None:
        known = _BINDINGS[key] = _resolve(instruction, forms, args, kwargs)
    form, rest = known
    if not kwargs:
        return form, args + rest  # rest: the defaults of the parameters after the positional ones
    return form, args + tuple([kwargs.get(name, default) for name, default in rest])


def bind(instruction: str, forms: tuple[Form, ...], args: tuple, kwargs: dict) -> tuple[str, dict]:
    """The first form that fits the call, and the call's arguments by parameter name (see :func:`bind_values`)."""
    form, values = bind_values(instruction, forms, args, kwargs)
    return form.name, dict(zip(form.names, values, strict=True))


def _resolve(instruction: str, forms: tuple[Form, ...], args: tuple, kwargs: dict) -> tuple[Form, tuple]:
    """The form a call shape binds to, and how its values are completed; ``TypeError`` if none fits."""
    for form in forms:
        if form.try_bind(args, kwargs) is not None:
            later = form.params[len(args):]
            if kwargs:
                return form, tuple((p.name, p.default) for p in later)
            return form, tuple(p.default for p in later)
    given = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    accepted = "\n  ".join(f"{instruction}{f.signature()}" for f in forms)
    raise TypeError(f"{instruction}: no call form takes ({given}); accepted forms:\n  {accepted}")
