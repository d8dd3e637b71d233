"""Stand-ins for the pyasc APIs npusim does not model (cube, Matmul, host tiling, ...).

Importing or naming one works, so a module that merely mentions it loads; calling it, or
reading any attribute of it, raises an :class:`~npusim.errors.UnsupportedError` naming the
API — never an ``AttributeError`` or a silent no-op (docs/semantics.md §10.7).
"""

from __future__ import annotations

from ..errors import UnsupportedError
from ..sources import semantics

__all__ = ["Unmodelled"]

SOURCE = semantics("10.7")


class Unmodelled:
    """pyasc's ``module.name``, which npusim does not emulate."""

    __slots__ = ("_api",)

    def __init__(self, api: str) -> None:
        object.__setattr__(self, "_api", api)

    def _refuse(self, use: str):
        return UnsupportedError(self._api, "API", use, "npusim does not model this pyasc API (it emulates vector "
                                "instructions; the cube, Matmul and the host tiling library are not modelled)",
                                "the APIs npusim models (docs/api.md, `npusim list`)", SOURCE)

    def __call__(self, *args, **kwargs):
        raise self._refuse("call")

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise self._refuse(f"attribute {name}")

    def __setattr__(self, name: str, value) -> None:
        raise self._refuse(f"attribute {name}")

    def __getitem__(self, item):
        raise self._refuse("subscript")

    def __repr__(self) -> str:
        return f"<pyasc {self._api}: not modelled by npusim>"
