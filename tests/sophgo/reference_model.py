"""A tiny, obviously correct per-element model of the select instructions, for tests only.

Everything here is written straight from the reference text in plain Python (ints,
floats, ``struct``), one element at a time, sharing no code with ``npusim.sophgo``:

* layout (sophgo-semantics §3.3): element (n, c, h, w) of an aligned tensor at ``addr``
  lives in lane ``(s + c) % NPU`` at byte ``addr % LMS + size*(n*ns + ((s+c)//NPU)*cs + h*W + w)``
  with ``cs = align(H*W, EU_BYTES/size)`` and ``ns = ceil((s + C)/NPU) * cs``;
* operands (§0, §4.5): TENSOR -> own element, VECTOR -> lane ``(s + c) % NPU`` at the
  vector's offset, SCALAR -> the low ``bits`` bits of ``u32``;
* compare (§4.4 "Model"): decode FP32/BF16 with exponent 0 as ±0, FP16 exactly, FP8 (SG2260)
  exactly as e5m2 / e4m3fn with subnormals kept (§5.1, the SG2260 emulator);
  ``greater = ordered and a > b``; ``less = not((ordered and a >= b) or bits equal)``;
  ``equal = bits equal``; max/min dst0 flushes FP32/BF16 subnormals to a signed zero.
* dtype rules (§4.1, seed 000): which compare/dst types a chip's selects take, and which pairs.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

# name -> (NPU_NUM, LOCAL_MEM_SIZE, EU bytes): sophgo-semantics §3.1
CHIPS = {"BM1684X": (64, 262144, 64), "BM1688": (32, 131072, 16), "SG2260": (64, 262144, 64)}

# vendor code -> (bits, kind)
DTYPES = {
    0: (8, "uint"), 1: (8, "int"), 3: (16, "fp16"), 5: (32, "fp32"), 6: (16, "uint"), 7: (16, "int"),
    8: (32, "uint"), 9: (32, "int"), 11: (16, "bf16"), 15: (8, "e5m2"), 47: (8, "e4m3fn"),
}  # fmt: skip
FLOAT_KINDS = ("fp16", "fp32", "bf16", "e5m2", "e4m3fn")

# The types a chip's selects take (compare and dst alike): precision codes 0..5 everywhere, FP8 on SG2260.
_NINE = (0, 1, 3, 5, 6, 7, 8, 9, 11)
SELECT_DTYPES = {"BM1684X": _NINE, "BM1688": _NINE, "SG2260": (*_NINE, 15, 47)}
# Chips whose cmodel asserts AB_type_size == CD_type_size: a float compare needs a dst of its own width.
FLOAT_DST_SAME_WIDTH = ("BM1684X", "BM1688")
MIN_MAX = ("maximum_greater_select", "minimum_less_select")


def legal_pairs(func: str, chip: str) -> list[tuple[int, int]]:
    """(compare, dst) type pairs of a legal call: the document's widths (max/min equal, else compare
    <= dst), and on the BM chips an equal-width dst for a float compare."""
    pairs = []
    for a in SELECT_DTYPES[chip]:
        for b in SELECT_DTYPES[chip]:
            (abits, akind), bbits = DTYPES[a], DTYPES[b][0]
            equal = func in MIN_MAX or (akind in FLOAT_KINDS and chip in FLOAT_DST_SAME_WIDTH)
            if abits == bbits if equal else abits <= bbits:
                pairs.append((a, b))
    return pairs


def aligned_location(chip: str, addr: int, shape, size: int, n: int, c: int, h: int, w: int):
    """(lane, in-lane byte offset) of element (n, c, h, w)."""
    npu, lms, eu_bytes = CHIPS[chip]
    s, base = addr // lms, addr % lms
    eu_num = eu_bytes // size
    cs = -(-(shape[2] * shape[3]) // eu_num) * eu_num
    ns = -(-(s + shape[1]) // npu) * cs
    return (s + c) % npu, base + size * (n * ns + ((s + c) // npu) * cs + h * shape[3] + w)


def decode(bits: int, code: int) -> float | int:
    """The value the compare unit sees."""
    width, kind = DTYPES[code]
    if kind == "uint":
        return bits
    if kind == "int":
        return bits - (1 << width) if bits >> (width - 1) else bits
    if kind == "fp16":
        return struct.unpack("<e", bits.to_bytes(2, "little"))[0]  # subnormals kept
    if kind == "e5m2":
        return fp8(bits, 5, 2, ieee=True)
    if kind == "e4m3fn":
        return fp8(bits, 4, 3, ieee=False)
    as_fp32 = bits << 16 if kind == "bf16" else bits
    if (as_fp32 >> 23) & 0xFF == 0:  # zero or subnormal: flushed to a signed zero
        return -0.0 if as_fp32 >> 31 else 0.0
    return struct.unpack("<f", as_fp32.to_bytes(4, "little"))[0]


def fp8(bits: int, exponent_bits: int, mantissa_bits: int, ieee: bool) -> float:
    """An FP8 code's value, subnormals kept.  ``ieee``: an all-ones exponent is inf (mantissa 0) or
    NaN (e5m2); otherwise only all-ones exponent and mantissa is NaN (e4m3fn, no infinities)."""
    sign = -1.0 if bits >> 7 else 1.0
    exponent = (bits >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    bias = (1 << (exponent_bits - 1)) - 1
    if exponent == (1 << exponent_bits) - 1:
        if ieee:
            return sign * math.inf if mantissa == 0 else math.nan
        if mantissa == (1 << mantissa_bits) - 1:
            return math.nan
    if exponent == 0:
        return sign * math.ldexp(mantissa, 1 - bias - mantissa_bits)
    return sign * math.ldexp((1 << mantissa_bits) + mantissa, exponent - bias - mantissa_bits)


def condition(name: str, a_bits: int, b_bits: int, code: int) -> bool:
    a, b = decode(a_bits, code), decode(b_bits, code)
    ordered = not (isinstance(a, float) and math.isnan(a)) and not (isinstance(b, float) and math.isnan(b))
    if name == "greater":
        return ordered and a > b
    if name == "less":
        return not ((ordered and a >= b) or a_bits == b_bits)
    return a_bits == b_bits


def flush_chosen(bits: int, code: int) -> int:
    """max/min dst0: an FP32/BF16 subnormal becomes a zero that keeps only the sign bit."""
    kind = DTYPES[code][1]
    if kind == "fp32" and (bits >> 23) & 0xFF == 0:
        return bits & 0x80000000
    if kind == "bf16" and (bits >> 7) & 0xFF == 0:
        return bits & 0x8000
    return bits


@dataclass
class Operand:
    """``kind`` TENSOR/VECTOR/SCALAR; ``addr``; ``values`` (list of raw ints: NCHW for TENSOR,
    one per channel for VECTOR) or ``u32`` for SCALAR."""

    kind: str
    addr: int = 0
    values: list[int] | None = None
    u32: int = 0


def element(op: Operand, code: int, shape, n: int, c: int, h: int, w: int, npu: int) -> int:
    """Raw bits of the operand for output element (n, c, h, w)."""
    bits = DTYPES[code][0]
    if op.kind == "SCALAR":
        return op.u32 & ((1 << bits) - 1)
    if op.kind == "VECTOR":
        return op.values[c % npu]
    _, cc, hh, ww = shape
    return op.values[((n * cc + c) * hh + h) * ww + w]


def select(chip: str, func: str, shape, cmp_code: int, val_code: int, srcs: list[Operand]) -> list[list[int]]:
    """Expected dst values (NCHW raw ints): ``[dst]`` or ``[dst0, dst1]`` for maximum/minimum."""
    npu = CHIPS[chip][0]
    cond_name = {"greater_select": "greater", "less_select": "less", "equal_select": "equal",
                 "maximum_greater_select": "greater", "minimum_less_select": "less"}[func]  # fmt: skip
    min_max = func in MIN_MAX
    dst0, dst1 = [], []
    for n in range(shape[0]):
        for c in range(shape[1]):
            for h in range(shape[2]):
                for w in range(shape[3]):
                    a, b = (element(op, cmp_code, shape, n, c, h, w, npu) for op in srcs[:2])
                    x, y = (element(op, val_code, shape, n, c, h, w, npu) for op in srcs[2:])
                    chosen = condition(cond_name, a, b, cmp_code)
                    if min_max:
                        dst0.append(flush_chosen(a if chosen else b, cmp_code))
                    dst1.append(x if chosen else y)
    return [dst0, dst1] if min_max else [dst1]
