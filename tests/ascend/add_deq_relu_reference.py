"""An independent per-element reference for AddDeqRelu (docs/semantics.md §5.22), one lane at a time.

Written from AddDeqRelu.md (``dst = Relu(Deq(src0 + src1))``, ``Deq(x) = Cast(x * scale)`` with RINT, ``Relu(x) =
max(0, x)``), the int32 -> half lane of ``dequant_reference`` (§5.21's accuracy model) and, for what the A2/A3
API leaves behind, the steps of dav_c220 ``AddDeqReluCompute`` / ``AddDeqReluImpl`` as §5.22 describes them:
passes of 32 repeats (2048 lanes); per pass the sums into the scratch, the float products into src0 and the
halves into src1 from the pass's start, then half zeros over the pass's lanes in the scratch.  It shares no
code with npusim.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..float_reference import expected_bits
from . import dequant_reference as deq
from .cast_reference import decode

FLOAT_NAN = 0x7FC00000
HALF_NAN = 0x7E00


def wrapped_sum(a: int, b: int) -> int:
    """The int32 sum, modulo 2**32 (Add's integer rule)."""
    total = (a + b) & 0xFFFFFFFF
    return total - (1 << 32) if total >= 1 << 31 else total


def half_result(total: int, scale_bits: int, saturate: bool) -> int:
    """The half before relu: Cast(total * scale), RINT (the int32 -> half lane of §5.21)."""
    return deq.half_lane(total, scale_bits, saturate)


def relu(bits: int) -> int:
    """max(0, x) on half bits: negatives and -0 give +0, a NaN stays the canonical NaN."""
    if bits & 0x7C00 == 0x7C00 and bits & 0x3FF:
        return HALF_NAN
    return 0 if bits & 0x8000 else bits


def lane(a: int, b: int, scale_bits: int, saturate: bool) -> int:
    """dst's half bits of one lane."""
    return relu(half_result(wrapped_sum(a, b), scale_bits, saturate))


def product_bits(total: int, scale_bits: int) -> int:
    """float32 bits of float(total) * scale, rounded once (what the A2/A3 API leaves in src0; float32 never
    saturates there)."""
    source = decode("float32", expected_bits(Fraction(total), "float32", "rint"))
    scale = decode("float16", scale_bits)
    negative = (source < 0) != bool(scale_bits & 0x8000)
    sign = 0x80000000 if negative else 0
    if isinstance(scale, float) and (math.isnan(scale) or (math.isinf(scale) and source == 0)):
        return FLOAT_NAN
    if isinstance(scale, float) and math.isinf(scale):
        return sign | 0x7F800000
    product = Fraction(source) * (0 if isinstance(scale, float) else scale)
    if product == 0:
        return sign
    return expected_bits(product, "float32", "rint")


def staged_layout(lanes: list[tuple[int, int]], count_form: bool, repeats: int, src0_rep: int, src1_rep: int):
    """Per active lane (issue order): (src0 byte offset of its float, src1 byte offset of its half); and the
    scratch: byte offset -> ("sum", lane index, byte) or ("zero",), in the order the passes leave it."""
    places = []
    scratch: dict[int, tuple] = {}
    passes: dict[int, list[int]] = {}
    for index, (r, k) in enumerate(lanes):
        passes.setdefault(r // 32, []).append(index)
        p = (r % 32) * 64 + k
        places.append(((r // 32) * 32 * 32 * src0_rep + 4 * p, (r // 32) * 32 * 32 * src1_rep + 2 * p))
    for number in range(-(-repeats // 32)):  # every pass runs, with or without active lanes
        for index in passes.get(number, []):
            r, k = lanes[index]
            p = (r % 32) * 64 + k
            for byte in range(4):
                scratch[4 * p + byte] = ("sum", index, byte)
        zeroed = len(passes.get(number, [])) if count_form else min(64 * repeats, 2048)
        for offset in range(2 * zeroed):
            scratch[offset] = ("zero",)
    return places, scratch
