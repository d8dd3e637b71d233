"""``asc.runtime.config``: pyasc's backend and platform choice, mapped onto npusim's products.

``set_platform(backend, soc_version=None, device_id=None, check=True)`` behaves as pyasc's:
``Backend.Model`` (the simulator backend, which npusim stands in for) with no SoC means
``Ascend910B1``.  ``Backend.NPU`` is real hardware, which npusim is not: it is an
:class:`~npusim.errors.UnsupportedError` telling the user to select the Model backend.  Every
:class:`Platform` pyasc lists is known; the ones npusim has no product row for are an
:class:`~npusim.errors.UnsupportedError` naming the rows it has (docs/semantics.md §10.7).
"""

from __future__ import annotations

from enum import Enum

from ..ascend.chips import AscendChip, get_chip
from ..errors import UnsupportedError
from ..sources import semantics
from ..validate import require_int
from . import runtime as rt

__all__ = ["Backend", "KernelType", "Platform", "chip_of", "set_platform"]

SOURCE = semantics("10.7")


class Backend(Enum):
    """Where pyasc runs a kernel: ``Model`` (the simulator; under npusim, npusim) or ``NPU`` (hardware)."""

    Model = "Model"
    NPU = "NPU"


class Platform(Enum):
    """The SoC versions pyasc lists (all dav-c220: Atlas A2 ``Ascend910B*``, Atlas A3 ``Ascend910_93*``)."""

    Ascend910B1 = "Ascend910B1"
    Ascend910B2 = "Ascend910B2"
    Ascend910B2C = "Ascend910B2C"
    Ascend910B3 = "Ascend910B3"
    Ascend910B4 = "Ascend910B4"
    Ascend910B4_1 = "Ascend910B4-1"
    Ascend910_9362 = "Ascend910_9362"
    Ascend910_9372 = "Ascend910_9372"
    Ascend910_9381 = "Ascend910_9381"
    Ascend910_9382 = "Ascend910_9382"
    Ascend910_9391 = "Ascend910_9391"
    Ascend910_9392 = "Ascend910_9392"


class KernelType(Enum):
    """pyasc's kernel types (the ``kernel_type`` jit option); npusim runs vector (AIV) code only."""

    AIV_ONLY = 0
    AIC_ONLY = 1
    MIX_AIV_HARD_SYNC = 2
    MIX_AIC_HARD_SYNC = 3
    MIX_AIV_1_0 = 4
    MIX_AIC_1_0 = 5
    MIX_AIC_1_1 = 6
    MIX_AIC_1_2 = 7


def chip_of(platform: Platform | str) -> AscendChip:
    """npusim's product row for a pyasc platform; one npusim does not model is an UnsupportedError."""
    platform = Platform(platform)
    try:
        return get_chip(platform.value)
    except UnsupportedError:
        modelled = [p.value for p in Platform if _modelled(p)]
        raise UnsupportedError("config.set_platform", "soc_version", platform.value,
                               "npusim has no product row for this SoC", ", ".join(modelled), SOURCE) from None


def _modelled(platform: Platform) -> bool:
    try:
        get_chip(platform.value)
    except UnsupportedError:
        return False
    return True


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
