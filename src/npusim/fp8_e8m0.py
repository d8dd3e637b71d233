"""FP8 E8M0 (the Ascend 950's ``fp8_e8m0_t``): its 256 codes and their values.

The encoding (数据结构/内置数据类型.md, 浮点数: 表5 — no sign bit, 8 exponent bits, no mantissa bits, range
[2**-127, 2**127] — and the note that its bits are those of a bfloat16 with the sign and the mantissa dropped;
docs/semantics.md §5.34): a code is the unsigned exponent field E, and with the page's normal-number formula
(``M_v = 0``, ``Bias = 2**(8 - 1) - 1 = 127``) its value is ``2**(E - 127)``.  表5's range starts at 2**-127, so the
code 0x00 is 2**-127 and not a zero: the type has no zero, no sign and no infinity.  The all-ones code 0xFF is the
NaN (Reg矢量计算/类型转换/Cast.md, 约束说明: "fp8_e8m0_t nan = 0b11111111"; its largest value is 0b11111110, 2**127).
Every value is exact in float32 (2**-127 as a float32 subnormal).
"""

from __future__ import annotations

import numpy as np

__all__ = ["E8M0_MAX", "E8M0_NAN", "decode_table", "encode_exact", "holds"]

E8M0_NAN = 0xFF  # Reg Cast.md 约束说明: fp8_e8m0_t nan = 0b11111111
E8M0_MAX = 0xFE  # 2**127, the largest value (Reg Cast.md 约束说明: 0b11111110)
BIAS = 127  # 2**(Ebits - 1) - 1 with Ebits = 8

_TABLE = np.array([np.ldexp(1.0, code - BIAS) for code in range(E8M0_NAN)] + [np.nan], dtype=np.float32)
_TABLE.setflags(write=False)
_FINITE = _TABLE[:E8M0_NAN].astype(np.float64)  # ascending: the code is the index


def decode_table() -> np.ndarray:
    """The value of every code, index = code (float32, exact; read-only; 0xFF is NaN)."""
    return _TABLE


def holds(values: np.ndarray) -> np.ndarray:
    """Which float values are E8M0 values exactly: a power of two from 2**-127 to 2**127, or NaN."""
    values = np.asarray(values, dtype=np.float64)
    return np.isin(values, _FINITE) | np.isnan(values)


def encode_exact(values: np.ndarray) -> np.ndarray:
    """The codes of ``values``, each one the type holds (:func:`holds`); NaN is 0xFF."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    codes = np.clip(np.searchsorted(_FINITE, values), 0, E8M0_NAN - 1)
    return np.where(np.isnan(values), E8M0_NAN, codes).astype(np.uint8)
