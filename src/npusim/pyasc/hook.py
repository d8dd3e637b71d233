"""The import hook: while active, ``import asc`` (and its submodules) gives npusim's stand-ins.

A finder at the front of ``sys.meta_path`` answers every name of
:data:`.namespaces.MODULES`, so it wins over a real pyasc on ``sys.path``; a name pyasc has
and the stand-in does not (``asc._C``, ``asc.codegen`` ...) is a ``ModuleNotFoundError``
saying so.  :func:`activate` installs it and drops already-imported ``asc`` modules;
:func:`deactivate` undoes both.  No package named ``asc`` is ever put on ``sys.path``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from .namespaces import MODULES, PACKAGES, module_names

__all__ = ["activate", "active", "deactivate"]

LANGUAGE_SUBMODULES = ("adv", "basic", "core", "fwk")


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        return types.ModuleType(spec.name, f"npusim stand-in for pyasc's {spec.name}")

    def exec_module(self, module) -> None:
        module.__dict__.update(module_names(module.__name__))
        module.__npusim__ = True
        if module.__name__ in ("asc", "asc.language"):
            for sub in LANGUAGE_SUBMODULES:
                setattr(module, sub, importlib.import_module(f"asc.language.{sub}"))
            if module.__name__ == "asc":
                module.language = importlib.import_module("asc.language")


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "asc" and not fullname.startswith("asc."):
            return None
        if fullname not in MODULES:
            raise ModuleNotFoundError(f"No module named {fullname!r}: npusim's pyasc stand-in has no such module "
                                      f"(it provides {', '.join(sorted(MODULES))})", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, _LOADER, is_package=fullname in PACKAGES)


_LOADER = _Loader()
_FINDER = _Finder()


def _drop_asc_modules() -> None:
    for name in [name for name in sys.modules if name == "asc" or name.startswith("asc.")]:
        del sys.modules[name]


def active() -> bool:
    return _FINDER in sys.meta_path


def activate() -> None:
    """Make ``import asc`` resolve to npusim (idempotent)."""
    if not active():
        _drop_asc_modules()
        sys.meta_path.insert(0, _FINDER)


def deactivate() -> None:
    """Remove the hook and the stand-in modules it made."""
    if active():
        sys.meta_path.remove(_FINDER)
        _drop_asc_modules()
