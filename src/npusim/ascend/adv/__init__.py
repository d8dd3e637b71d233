"""Ascend C high-level APIs (``asc.adv`` in pyasc), each a composition of npusim's registered instructions.

One module per API, following the vendor's implementation in ``cannmirror/asc-devkit``
``impl/adv_api/detail/``: :mod:`.softmax` (SoftMax, ND format; its steps in :mod:`.softmax_steps`).
"""

from .softmax import SoftmaxTiling, softmax

__all__ = ["SoftmaxTiling", "softmax"]
