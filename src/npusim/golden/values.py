"""Values in golden case files: numbers, dtype names, and the ``init`` of an operand (every vendor).

Numbers are JSON numbers or the strings ``"nan"``, ``"inf"``, ``"-inf"``, ``"-0.0"`` and
``"0x..."``.  A number for a float type is rounded once from its exact value, to nearest even
(:mod:`npusim.rounding`; a JSON integer is not first made a double).  An ``init`` object
fills a flat array of ``size`` elements, applying its keys in the order ``fill``, ``random``,
``values``, ``bits``, ``hex`` (docs/golden.md).
"""

from __future__ import annotations

import math

import numpy as np

from ..dtypes import DType, PackedDType, by_name
from ..rounding import float_array_bits, float_bits
from . import CaseError

__all__ = ["INIT_KEYS", "SPECIAL_FLOATS", "dtype_named", "initial_values", "number"]

INIT_KEYS = frozenset({"fill", "values", "bits", "hex", "random"})
SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "-0.0": -0.0, "-0": -0.0}


def number(path: str, value):
    """A JSON number, or one of the strings "nan", "inf", "-inf", "-0.0", "0x..."."""
    if isinstance(value, bool):
        raise CaseError(f"{path}: expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in SPECIAL_FLOATS:
            return SPECIAL_FLOATS[text]
        try:
            return int(text, 0)
        except ValueError:
            pass
    raise CaseError(f"{path}: expected a number (or \"nan\", \"inf\", \"-inf\", \"-0.0\", \"0x...\"), got {value!r}")


def dtype_named(path: str, name) -> DType:
    try:
        dtype = by_name(name)
    except (KeyError, TypeError) as err:
        raise CaseError(f"{path}: {err}") from None
    if isinstance(dtype, PackedDType):  # dumps hold whole-byte elements (docs/golden.md)
        raise CaseError(f"{path}: {name!r} packs {dtype.per_byte} elements a byte; golden cases and their dumps "
                        "take whole-byte types only (docs/semantics.md §5.23)")
    return dtype


def initial_values(path: str, init: dict, dtype: DType, size: int) -> np.ndarray:
    """The ``size`` initial elements an ``init`` object describes, as a flat ``dtype`` array."""
    if not isinstance(init, dict) or not init.keys() <= INIT_KEYS:
        raise CaseError(f"{path}: init is an object with keys from {sorted(INIT_KEYS)}")
    values = np.zeros(size, dtype=dtype.np_dtype)
    if "fill" in init:
        fill = number(f"{path}.fill", init["fill"])
        if dtype.is_float:
            values.view(dtype.raw)[:] = float_bits(fill, dtype)
        else:
            values[:] = np.array([fill]).astype(dtype.np_dtype)
    if "random" in init:
        values[:] = _random(f"{path}.random", init["random"], dtype, size)
    for key in ("values", "bits"):
        if key in init:
            items = init[key]
            if not isinstance(items, list) or len(items) > size:
                raise CaseError(f"{path}.{key}: a list of at most {size} entries")
            numbers = [number(f"{path}.{key}[{i}]", v) for i, v in enumerate(items)]
            if key == "values" and dtype.is_float:  # each JSON number exactly: an int is not made a double first
                values.view(dtype.raw)[: len(numbers)] = float_array_bits(np.array(numbers, dtype=object), dtype)
            else:
                kind = dtype.np_dtype if key == "values" else dtype.raw
                _require_integers(f"{path}.{key}", numbers, np.iinfo(kind))
                values.view(kind)[: len(numbers)] = np.array(numbers, dtype=object).astype(kind)
    if "hex" in init:
        raw = bytes.fromhex(init["hex"])
        if len(raw) > size * dtype.itemsize:
            raise CaseError(f"{path}.hex: {len(raw)} bytes do not fit {size} x {dtype}")
        values.view(np.uint8)[: len(raw)] = np.frombuffer(raw, np.uint8)
    return values


def _require_integers(path: str, numbers: list, info: np.iinfo) -> None:
    for i, value in enumerate(numbers):
        if not isinstance(value, int) or not info.min <= value <= info.max:
            raise CaseError(f"{path}[{i}]: {value!r} is not an integer in [{info.min}, {info.max}]")


def _random(path: str, spec: dict, dtype: DType, size: int) -> np.ndarray:
    if not isinstance(spec, dict) or not spec.keys() <= {"seed", "low", "high"}:
        raise CaseError(f"{path}: random is {{\"seed\": int, \"low\": number, \"high\": number}}")
    rng = np.random.default_rng(spec.get("seed", 0))
    if dtype.is_float:
        low, high = number(f"{path}.low", spec.get("low", -100.0)), number(f"{path}.high", spec.get("high", 100.0))
        return float_array_bits(rng.uniform(low, high, size), dtype).view(dtype.np_dtype)
    info = np.iinfo(dtype.np_dtype)
    low, high = int(spec.get("low", info.min)), int(spec.get("high", info.max))
    return rng.integers(low, high, size, endpoint=True, dtype=np.int64).astype(dtype.np_dtype)
