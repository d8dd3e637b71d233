"""RoundMode arguments: the check every Cast-like call makes, and the rounding rule each mode names.

Shared by the vector Cast (:mod:`.cast`) and the scalar Casts (:mod:`.scalar_cast`); the rules themselves are
:mod:`npusim.rounding`'s (数据结构/precision_conversion.md 表1).
"""

from __future__ import annotations

import numpy as np

from ...errors import ParameterRangeError
from .. import pages
from ..types import RoundMode

__all__ = ["MODE_NAMES", "require_round_mode"]

MODE_NAMES = {RoundMode.CAST_NONE: "rint", RoundMode.CAST_RINT: "rint", RoundMode.CAST_FLOOR: "floor",
              RoundMode.CAST_CEIL: "ceil", RoundMode.CAST_ROUND: "round", RoundMode.CAST_TRUNC: "trunc",
              RoundMode.CAST_ODD: "odd", RoundMode.CAST_HYBRID: "hybrid"}
# CAST_NONE: RINT where the value does not fit (RoundMode取值说明); CAST_HYBRID: hifloat8_t targets only (§5.32)


def require_round_mode(name: str, value) -> RoundMode:
    """``round_mode`` as a :class:`RoundMode` (an int of the enum is accepted, as by the C++ enum)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: round_mode must be asc.RoundMode, got {type(value).__name__}")
    try:
        return RoundMode(int(value))
    except ValueError:
        raise ParameterRangeError(name, "round_mode", int(value), "not a RoundMode value",
                                  ", ".join(f"{m.name} ({m.value})" for m in RoundMode),
                                  f"{pages.CAST} RoundMode取值说明") from None
