"""Ascend C high-level APIs (``asc.adv`` in pyasc), each a composition of npusim's registered instructions.

One module per API, following the vendor's implementation in ``cannmirror/asc-devkit``
``impl/adv_api/detail/`` step by step, so its results are the bits of those instructions and a call's
access records are the records of the instructions it issues: :mod:`.softmax` (SoftMax, ND format;
its steps in :mod:`.softmax_steps`), :mod:`.quant` (AscendQuant: per tensor, and per channel in
:mod:`.quant_channel`; QuantConfig and the shared checks in :mod:`.quant_common`).  On the register-ISA
products AscendQuant is one vector function, not a composition: :mod:`.quant_register` (per tensor and per
channel, the 950 and Kirin), :mod:`.quant_group` (PER_TOKEN / PER_GROUP, the 950), their lanes in
:mod:`.quant_lanes`; each call is one access record.  :mod:`.rounding`: the exact math functions Floor, Ceil,
Trunc, Round and Frac (A2/A3); :mod:`.sign`: Sign (A2/A3 and the 310P).
"""

from .quant import AscendQuantParam, AscendQuantPolicy, QuantConfig, quant
from .rounding import ceil, floor, frac, trunc
from .rounding import round_ as round  # noqa: A004 - pyasc's name
from .sign import sign
from .softmax import SoftmaxTiling, softmax

__all__ = ["AscendQuantParam", "AscendQuantPolicy", "QuantConfig", "SoftmaxTiling", "ceil", "floor", "frac", "quant",
           "round", "sign", "softmax", "trunc"]
