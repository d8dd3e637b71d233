"""pyasc's scalar APIs (``asc.scalar_cast`` ...): npusim's instructions, with pyasc's runtime result types.

pyasc returns an ``int64`` runtime value from the bit computations and an ``int32`` one from ``scalar_cast`` to
``asc.int32`` (``python/asc/language/basic/scalar.py``: ``PlainValue`` of ``KT.int64`` / the target type);
under npusim they are :class:`~.cint.CInt64` / :class:`~.cint.CInt32`, with C's arithmetic (docs/semantics.md
§5.35, §10.9).  Outside a pyasc kernel npusim's functions return Python ints.
"""

from __future__ import annotations

import functools

from .. import ascend
from .cint import CInt32, CInt64

__all__ = ["scalar_names"]

#: the pyasc names whose result is an int64_t
INT64_RESULTS = ("scalar_get_count_of_value", "scalar_count_leading_zero", "count_bits_cnt_same_as_sign_bit",
                 "scalar_get_sff_value")


def _int64_result(function):
    @functools.wraps(function)
    def call(*args, **kwargs):
        return CInt64(function(*args, **kwargs))

    return call


@functools.wraps(ascend.scalar_cast)
def scalar_cast(value_in, dtype, round_mode):
    result = ascend.scalar_cast(value_in, dtype, round_mode)
    return CInt32(result) if isinstance(result, int) else result


def scalar_names() -> dict:
    """pyasc's scalar names, bound to npusim's instructions."""
    found = {name: _int64_result(getattr(ascend, name)) for name in INT64_RESULTS}
    found["scalar_cast"] = scalar_cast
    return found
