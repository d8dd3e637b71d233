"""The hardware-tolerance policy of a core: where the device tolerates what the documents forbid.

``"strict"`` (a bare :class:`~npusim.ascend.core.Core`'s default) raises the documented error;
``"hardware"`` (the pyasc entry points' default) does what the device does and warns with the
tolerance's own :class:`~npusim.errors.HardwareToleranceWarning` subclass, whose message is the
error's (instruction, operand, bytes, rule, source) plus what the device does
(docs/semantics.md §10.7).  Each call site says which error it would raise; this module only
decides between raising and warning.
"""

from __future__ import annotations

import warnings
from typing import Literal

from ..errors import ConstraintError, HardwareToleranceWarning, ParameterRangeError
from ..memory import user_stacklevel
from ..sources import semantics

__all__ = ["TOLERANCE_POLICIES", "TolerancePolicy", "require_tolerance_policy", "tolerate"]

TolerancePolicy = Literal["strict", "hardware"]
TOLERANCE_POLICIES = ("strict", "hardware")
TOLERANCE_SOURCE = semantics("10.7")


def require_tolerance_policy(who: str, policy) -> TolerancePolicy:
    """``policy`` checked as ``"strict"`` or ``"hardware"``."""
    if not isinstance(policy, str):
        raise TypeError(f"{who}: tolerance must be 'strict' or 'hardware', got {type(policy).__name__}")
    if policy not in TOLERANCE_POLICIES:
        raise ParameterRangeError(who, "tolerance", policy, "unknown hardware-tolerance policy",
                                  "'strict', 'hardware'", TOLERANCE_SOURCE)
    return policy  # type: ignore[return-value]


def tolerate(policy: TolerancePolicy, error: ConstraintError, warning: type[HardwareToleranceWarning],
             device_does: str) -> None:
    """Raise ``error`` under ``"strict"``; under ``"hardware"`` warn with its message and ``device_does``."""
    if policy == "strict":
        raise error
    warnings.warn(warning(f"{error} (tolerated, policy 'hardware': {device_does})"), stacklevel=user_stacklevel())
