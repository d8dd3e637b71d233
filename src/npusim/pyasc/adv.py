"""pyasc's argument handling of the ``asc.language.adv`` APIs that differ from :mod:`npusim.ascend.adv`'s.

pyasc's ``adv.quant`` (``python/asc/language/adv/quantization.py``) turns ``scale`` and ``offset`` into
constants of the source's element type before the C++ ``AscendQuant`` takes them as ``float``: a half
source's scale is rounded to half once, from the Python float; a float source's to float, then to half.
"""

from __future__ import annotations

import numpy as np

from ..ascend.adv import quant as ascend_quant
from ..ascend.tensor import LocalTensor

__all__ = ["quant"]


def quant(dst, src, scale, offset, count=None, temp_buffer=None, reuse_source=False, config=None) -> None:
    """pyasc's ``asc.adv.quant``: :func:`npusim.ascend.adv.quant` with scale and offset in src's type first."""
    if isinstance(src, LocalTensor) and src.dtype.is_float:
        with np.errstate(over="ignore"):
            scale, offset = (src.dtype.np_dtype.type(v) if isinstance(v, (int, float)) and not isinstance(v, bool)
                             else v for v in (scale, offset))
    ascend_quant(dst, src, scale, offset, count, temp_buffer, reuse_source, config)
