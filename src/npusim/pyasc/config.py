"""``asc.runtime.config``: pyasc's backend and platform choice, mapped onto npusim's products.

``set_platform(backend, soc_version=None, device_id=None, check=True)`` behaves as pyasc's:
``Backend.Model`` (the simulator backend, which npusim stands in for) with no SoC means
``Ascend910B1``.  ``Backend.NPU`` is real hardware, which npusim is not: it is an
:class:`~npusim.errors.UnsupportedError` telling the user to select the Model backend.  Every
:class:`Platform` pyasc lists is known; the ones npusim has no product row for are an
:class:`~npusim.errors.UnsupportedError` naming the rows it has (docs/semantics.md §10.7).
"""

from __future__ import annotations

from ..errors import UnsupportedError
from ..sources import semantics
from ..validate import require_int
from . import runtime as rt
from .platforms import Backend, KernelType, Platform, chip_of

__all__ = ["Backend", "KernelType", "Platform", "chip_of", "set_platform"]

SOURCE = semantics("10.7")


def set_platform(backend: Backend | str, soc_version: Platform | str | None = None, device_id: int | None = None,
                 check: bool = True) -> None:
    """Select the backend and SoC for the launches that follow (pyasc ``config.set_platform``).

    Raises:
        ValueError: an unknown backend or platform name (as pyasc's enums raise).
        UnsupportedError: ``Backend.NPU``, or a platform npusim does not model.
    """
    backend = Backend(backend)
    if backend is Backend.NPU:
        raise UnsupportedError("config.set_platform", "backend", "NPU", "npusim emulates the device on the CPU; "
                               "it stands in for pyasc's simulator backend", "Backend.Model", SOURCE)
    platform = Platform.Ascend910B1 if soc_version is None else Platform(soc_version)
    chip = chip_of(platform)
    if device_id is not None:
        device_id = require_int("config.set_platform", "device_id", device_id, 0, rt.DEVICE_COUNT - 1, SOURCE)
    if not isinstance(check, bool):
        raise TypeError(f"config.set_platform: check must be a bool, got {type(check).__name__}")
    rt.select(platform, chip, device_id)
