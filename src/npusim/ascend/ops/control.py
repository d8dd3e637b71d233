"""The control register bits npusim models: floating-point saturation (CTRL[48]).

In its power-on state CTRL[48] = 0 makes half and bfloat16 computations saturate: an
infinite result becomes ±MAX and a NaN result 0 (特殊寄存器访问/SetCtrlSpr(ISASI).md,
tables 3-5; the 950 applies it to half only).  ``set_saturation_flag(False)`` turns it off
(SetSaturationFlag(ISASI).md, mode FLOAT, Atlas A2/A3 only).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.plan import SelfBinding
from ...engine.registry import Instruction, register
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_bool
from .. import pages
from ..chips import unsupported_on
from ..core import Core

__all__ = ["get_saturation_flag", "set_saturation_flag"]

SOURCE = f"{pages.SET_SATURATION_FLAG} 产品支持情况; {semantics('5.3')}"


@dataclass(eq=False)
class SaturationFlag(SelfBinding):
    """Write CTRL[48] (``enable`` given) or read it (``enable`` None)."""

    enable: bool | None

    def __post_init__(self) -> None:
        self.registers_read, self.registers_written = ((), ("CTRL",)) if self.enable is not None else (("CTRL",), ())

    def run(self, core: Core, values: tuple) -> bool | None:
        if self.enable is None:
            return core.float_saturation
        self._commit(core)
        return None

    def _commit(self, core: Core) -> None:
        core.float_saturation = self.enable


def _compile(name: str, what: str):
    def compile(core: Core, form: str, values: dict) -> SaturationFlag:
        if not core.chip.saturation_flag_api:
            raise unsupported_on(core.chip, name, what, lambda c: c.saturation_flag_api, SOURCE)
        if "enable_sat" not in values:
            return SaturationFlag(None)
        return SaturationFlag(require_bool(name, "enable_sat", values["enable_sat"]))

    return compile


set_saturation_flag = register(Instruction(
    "set_saturation_flag", "ascend", "register", "S", (Form("", (Param("enable_sat", lambda _v: True),)),),
    _compile("set_saturation_flag", "SetSaturationFlag"), SOURCE,
    support=lambda chip: chip.saturation_flag_api, fast_context=lambda core: (),
    summary="Turn floating-point saturation on (the power-on state) or off (SetSaturationFlag<FLOAT>)",
    examples=("asc.set_saturation_flag(False)",),
    doc="Turn floating-point saturation on (the power-on state) or off (``SetSaturationFlag<FLOAT>``).",
))
get_saturation_flag = register(Instruction(
    "get_saturation_flag", "ascend", "register", "S", (Form("", ()),),
    _compile("get_saturation_flag", "GetSaturationFlag"), SOURCE,
    support=lambda chip: chip.saturation_flag_api, fast_context=lambda core: (),
    summary="Whether floating-point saturation is on (GetSaturationFlag<FLOAT>)",
    examples=("asc.get_saturation_flag()",), doc="Whether floating-point saturation is on (returns a bool).",
))
