"""The control register bits npusim models: floating-point saturation (CTRL[48]).

In its power-on state CTRL[48] = 0 makes half and bfloat16 computations saturate: an
infinite result becomes ±MAX and a NaN result 0 (特殊寄存器访问/SetCtrlSpr(ISASI).md,
tables 3-5; the 950 applies it to half only).  ``set_saturation_flag(False)`` turns it off
(SetSaturationFlag(ISASI).md, mode FLOAT, Atlas A2/A3 only).
"""

from __future__ import annotations

from ...sources import semantics
from ...validate import require_bool
from .. import pages
from ..chips import unsupported_on
from ..core import current_core

__all__ = ["get_saturation_flag", "set_saturation_flag"]

SOURCE = f"{pages.SET_SATURATION_FLAG} 产品支持情况; {semantics('5.3')}"


def set_saturation_flag(enable_sat: bool) -> None:
    """Turn floating-point saturation on (the power-on state) or off (``SetSaturationFlag<FLOAT>``)."""
    instruction = "set_saturation_flag"
    core = current_core(instruction)
    if not core.chip.saturation_flag_api:
        raise unsupported_on(core.chip, instruction, "SetSaturationFlag", lambda c: c.saturation_flag_api,
                             SOURCE)
    core.float_saturation = require_bool(instruction, "enable_sat", enable_sat)


def get_saturation_flag() -> bool:
    """Whether floating-point saturation is on (``GetSaturationFlag<FLOAT>``)."""
    instruction = "get_saturation_flag"
    core = current_core(instruction)
    if not core.chip.saturation_flag_api:
        raise unsupported_on(core.chip, instruction, "GetSaturationFlag", lambda c: c.saturation_flag_api,
                             SOURCE)
    return core.float_saturation
