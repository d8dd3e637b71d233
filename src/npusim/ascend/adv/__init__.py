"""Ascend C high-level APIs (``asc.adv`` in pyasc), each a composition of npusim's registered instructions.

One module per API, following the vendor's implementation in ``cannmirror/asc-devkit``
``impl/adv_api/detail/`` step by step, so its results are the bits of those instructions and a call's
access records are the records of the instructions it issues: :mod:`.softmax` (SoftMax, ND format;
its steps in :mod:`.softmax_steps`), :mod:`.quant` (AscendQuant: per tensor, and per channel in
:mod:`.quant_channel`; QuantConfig and the shared checks in :mod:`.quant_common`).
"""

from .quant import QuantConfig, quant
from .softmax import SoftmaxTiling, softmax

__all__ = ["QuantConfig", "SoftmaxTiling", "quant", "softmax"]
