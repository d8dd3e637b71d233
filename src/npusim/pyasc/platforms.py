"""pyasc's enums of backends, SoC versions and kernel types, and the npusim product row of each SoC."""

from __future__ import annotations

from enum import Enum

from ..ascend.chips import AscendChip, get_chip
from ..errors import UnsupportedError
from ..sources import semantics

__all__ = ["Backend", "KernelType", "Platform", "chip_of"]

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
