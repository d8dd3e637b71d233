"""Host values of a coded element type (hifloat8_t, fp8_e8m0_t, and the packed fp4x2_e2m1_t): each one the type holds
exactly, as its code.

A host write (``LocalTensor.write``, ``GlobalAddress.write``) is exact: a value the type does not hold is a
``ParameterRangeError`` (rounding to the type is ``cast``'s, with a RoundMode).  Python numbers (a
``Fraction``, an int beyond int64) are compared exactly, not through their nearest double (docs/semantics.md
§5.32, §5.34).
"""

from __future__ import annotations

import numpy as np

from ..dtypes import CodedDType, PackedFloatDType
from ..errors import ParameterRangeError
from ..validate import to_elements
from . import pages

__all__ = ["coded_codes", "coded_source", "exact_doubles", "is_its_double"]


def coded_source(dtype: CodedDType | PackedFloatDType) -> str:
    """Where a coded type's values are documented: 内置数据类型.md's part of it and its section (hifloat8: §5.32,
    fp4x2_e2m1_t: §5.33, fp8_e8m0_t: §5.34)."""
    return f"{pages.BUILTIN_TYPES} {dtype.page_part}; {dtype.section}"


def coded_codes(instruction: str, values, dtype: CodedDType | PackedFloatDType) -> np.ndarray:
    """The codes of ``values`` (a number, a sequence or an array), each a value ``dtype`` holds exactly."""
    source = coded_source(dtype)
    array = to_elements(instruction, "values", values, np.dtype(np.float64), source)
    given = np.asarray(values).reshape(-1)
    held = dtype.holds(array) & exact_doubles(given, array)
    if not held.all():
        at = int(np.flatnonzero(~held)[0])
        bad = given[at] if given.dtype.kind in "Oiu" else float(array[at])
        raise ParameterRangeError(instruction, "values", bad, f"{dtype} holds no such value (host writes are "
                                  "exact; cast() rounds to it with a RoundMode)", dtype.values_text, source)
    return dtype.encode(array)


_DOUBLE_EXACT = 2 ** 53  # every integer up to this magnitude is a double


def exact_doubles(given: np.ndarray, doubles: np.ndarray) -> np.ndarray:
    """Which of the numbers ``given`` (1-D: Python numbers as objects, numpy integers or floats) are the doubles
    ``doubles`` made of them exactly (NaN counts as exact): an integer beyond 2**53 or a Fraction need not be
    (float(2**62 + 1) is 2**62, a value fp8_e8m0_t holds); float16 / float32 / float64 always are."""
    if given.dtype.kind == "O":
        return np.array([is_its_double(v, f) for v, f in zip(given.tolist(), doubles.tolist(), strict=True)], bool)
    if given.dtype.kind in "iu":
        exact = np.ones(given.shape, bool)
        for at in np.flatnonzero((given > _DOUBLE_EXACT) | (given < -_DOUBLE_EXACT)):
            exact[at] = int(given[at]) == int(doubles[at])
        return exact
    return np.ones(given.shape, bool)


def is_its_double(value, double: float) -> bool:
    """Whether the number ``value`` is the double ``double`` (NaN: a NaN); a numpy integer is compared as the
    integer (numpy's own comparison would round it to a double first), a Fraction or a Python int exactly."""
    if double != double:
        return True
    if isinstance(value, np.integer):
        value = int(value)
    return double == value
