"""Host values of a coded element type (hifloat8_t, fp8_e8m0_t): each one the type holds exactly, as its code.

A host write (``LocalTensor.write``, ``GlobalAddress.write``) is exact: a value the type does not hold is a
``ParameterRangeError`` (rounding to the type is ``cast``'s, with a RoundMode).  Python numbers (a
``Fraction``, an int beyond int64) are compared exactly, not through their nearest double (docs/semantics.md
§5.32, §5.34).
"""

from __future__ import annotations

import numpy as np

from ..dtypes import CodedDType
from ..errors import ParameterRangeError
from ..validate import to_elements
from . import pages

__all__ = ["coded_codes", "coded_source"]


def coded_source(dtype: CodedDType) -> str:
    """Where a coded type's values are documented: 内置数据类型.md's part of it and its section (hifloat8: §5.32,
    fp8_e8m0_t: §5.34)."""
    return f"{pages.BUILTIN_TYPES} {dtype.page_part}; {dtype.section}"


def coded_codes(instruction: str, values, dtype: CodedDType) -> np.ndarray:
    """The codes of ``values`` (a number, a sequence or an array), each a value ``dtype`` holds exactly."""
    source = coded_source(dtype)
    array = to_elements(instruction, "values", values, np.dtype(np.float64), source)
    held = dtype.holds(array)
    given = np.asarray(values).reshape(-1)
    if given.dtype.kind == "O":  # Python numbers: exact only if their double is the number itself (NaN aside)
        held &= np.array([f == v or f != f for v, f in zip(given.tolist(), array.tolist(), strict=True)], bool)
    if not held.all():
        at = int(np.flatnonzero(~held)[0])
        bad = given[at] if given.dtype.kind == "O" else float(array[at])
        raise ParameterRangeError(instruction, "values", bad, f"{dtype} holds no such value (host writes are "
                                  "exact; cast() rounds to it with a RoundMode)", dtype.values_text, source)
    return dtype.encode(array)
