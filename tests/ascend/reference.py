"""An independent, per-element reference model of the Ascend vector instructions under test.

Written from the reference text (ascend-semantics.md §1.1-1.4) and the API documents,
with plain Python loops and exact rational arithmetic.  It deliberately shares no code
with npusim: addresses, masks, float rounding and integer wrapping are all redone here
the obvious way, on a ``bytearray`` model of the Unified Buffer.

* lane j of repeat r of an operand at ``base`` lives at byte
  ``base + r*rep*32 + (j // B)*blk*32 + (j % B)*size`` with ``B = 32 // size`` (§1.1);
* normal mask: lane j active iff bit j of the mask (LSB first; word 0 = lanes 0..63);
  contiguous mask n: the first min(n, E) lanes (§1.2); count form: the first ``count``
  elements in order, ``ceil(count / E)`` repeats (§1.3);
* floats: the exact result of the operation, rounded once to the destination format,
  to nearest even (IEEE 754); saturation and NaN rules as documented in npusim's README
  of this instruction family (SetCtrlSpr(ISASI).md);
* integers: two's complement, results wrap modulo 2**bits.
"""

from __future__ import annotations

from fractions import Fraction

from ..float_reference import expected_bits

BLOCK = 32
REPEAT = 256

# name: (size in bytes, kind, exponent bits, mantissa bits)
FORMATS = {
    "float16": (2, "float", 5, 10),
    "bfloat16": (2, "float", 8, 7),
    "float32": (4, "float", 8, 23),
    "int16": (2, "int", 0, 0),
    "uint16": (2, "uint", 0, 0),
    "int32": (4, "int", 0, 0),
    "uint32": (4, "uint", 0, 0),
    "int8": (1, "int", 0, 0),
    "uint8": (1, "uint", 0, 0),
}


# ------------------------------------------------------------------ floats
def decode(bits: int, fmt: str):
    """A float's value: a Fraction, or "nan", "+inf", "-inf"; zeros as ("zero", sign)."""
    _size, _kind, ebits, mbits = FORMATS[fmt]
    sign = bits >> (ebits + mbits)
    exponent = (bits >> mbits) & ((1 << ebits) - 1)
    mantissa = bits & ((1 << mbits) - 1)
    bias = (1 << (ebits - 1)) - 1
    if exponent == (1 << ebits) - 1:
        if mantissa:
            return "nan"
        return "-inf" if sign else "+inf"
    if exponent == 0:
        if mantissa == 0:
            return ("zero", sign)
        value = Fraction(mantissa, 1 << mbits) * Fraction(2) ** (1 - bias)
    else:
        value = (1 + Fraction(mantissa, 1 << mbits)) * Fraction(2) ** (exponent - bias)
    return -value if sign else value


def encode(value, fmt: str, *, sign_of_zero: int = 0) -> int:
    """Round an exact value (Fraction, "nan", "+inf", "-inf", ("zero", s)) to ``fmt``, ties to even."""
    _size, _kind, ebits, mbits = FORMATS[fmt]
    bias = (1 << (ebits - 1)) - 1
    max_exp_field = (1 << ebits) - 1
    sign_bit = 1 << (ebits + mbits)
    if value == "nan":
        return (max_exp_field << mbits) | (1 << (mbits - 1))  # canonical quiet NaN, sign clear
    if value == "+inf":
        return max_exp_field << mbits
    if value == "-inf":
        return sign_bit | (max_exp_field << mbits)
    if isinstance(value, tuple):
        return sign_bit if value[1] else 0
    if value == 0:
        return sign_bit if sign_of_zero else 0
    sign = sign_bit if value < 0 else 0
    magnitude = abs(value)
    # find e with 2**e <= magnitude < 2**(e+1)
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    while Fraction(2) ** e > magnitude:
        e -= 1
    while Fraction(2) ** (e + 1) <= magnitude:
        e += 1
    e = max(e, 1 - bias)  # subnormals share the smallest exponent
    scaled = magnitude / Fraction(2) ** e * (1 << mbits)  # significand in units of the last place
    whole = scaled.numerator // scaled.denominator
    rest = scaled - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1):
        whole += 1
    if whole == 0:
        return sign
    if whole >= (2 << mbits):  # rounding carried into the next binade
        whole //= 2
        e += 1
    if whole < (1 << mbits):  # subnormal
        return sign | whole
    exponent_field = e + bias
    if exponent_field >= max_exp_field:
        return sign | (max_exp_field << mbits)
    return sign | (exponent_field << mbits) | (whole - (1 << mbits))


def _sign_of(value) -> int:
    if isinstance(value, tuple):
        return value[1]
    if value == "-inf":
        return 1
    if value == "+inf":
        return 0
    return 1 if value < 0 else 0


def _as_number(value):
    """Zeros as Fraction 0 (for arithmetic); infinities and NaN unchanged."""
    return Fraction(0) if isinstance(value, tuple) else value


def _float_binary(op: str, a, b):
    """Exact IEEE result of a op b; returns a value for :func:`encode` (zeros with their sign)."""
    if a == "nan" or b == "nan":
        return "nan"
    if op in ("max", "min"):
        key = {"-inf": (0, 0), "+inf": (2, 0)}
        def order(v):
            if isinstance(v, str):
                return key[v]
            if isinstance(v, tuple):
                return (1, Fraction(0), -1 if v[1] else 1)  # -0 sorts below +0
            return (1, v, 0)
        pick_a = order(a) > order(b) if op == "max" else order(a) < order(b)
        return a if pick_a or order(a) == order(b) else b
    inf_a, inf_b = isinstance(a, str), isinstance(b, str)
    if op == "mul":
        if inf_a or inf_b:
            if (not inf_a and _as_number(a) == 0) or (not inf_b and _as_number(b) == 0):
                return "nan"
            return "-inf" if _sign_of(a) ^ _sign_of(b) else "+inf"
        product = _as_number(a) * _as_number(b)
        if product == 0:
            return ("zero", _sign_of(a) ^ _sign_of(b))
        return product
    if op == "sub":
        b = _negate(b)
    if inf_a and inf_b:
        return a if a == b else "nan"
    if inf_a:
        return a
    if inf_b:
        return b
    total = _as_number(a) + _as_number(b)
    if total == 0:
        both_negative_zero = isinstance(a, tuple) and isinstance(b, tuple) and a[1] and b[1]
        return ("zero", 1 if both_negative_zero else 0)  # x + (-x) = +0 when rounding to nearest
    return total


def _negate(value):
    if value == "+inf":
        return "-inf"
    if value == "-inf":
        return "+inf"
    if isinstance(value, tuple):
        return ("zero", 1 - value[1])
    if value == "nan":
        return "nan"
    return -value


def float_result_bits(op: str, fmt: str, a_bits: int, b_bits: int | None, saturate: bool) -> int:
    """Bits of one lane's result: exact operation, one rounding, then the NaN/saturation rules."""
    a = decode(a_bits, fmt)
    if op == "abs":
        exact = "nan" if a == "nan" else ("+inf" if isinstance(a, str) else
                                          ("zero", 0) if isinstance(a, tuple) else abs(a))
    else:
        exact = _float_binary(op, a, decode(b_bits, fmt))
    bits = encode(exact, fmt)
    _size, _kind, ebits, mbits = FORMATS[fmt]
    max_exp_field = (1 << ebits) - 1
    is_nan = (bits >> mbits) & max_exp_field == max_exp_field and bits & ((1 << mbits) - 1)
    is_inf = (bits >> mbits) & max_exp_field == max_exp_field and not bits & ((1 << mbits) - 1)
    if saturate:
        if is_nan:
            return 0
        if is_inf:
            largest = ((max_exp_field - 1) << mbits) | ((1 << mbits) - 1)
            return (bits & (1 << (ebits + mbits))) | largest
    return bits


# ---------------------------------------------------------------- integers
def int_result_bits(op: str, fmt: str, a_bits: int, b_bits: int | None) -> int:
    size, kind, _e, _m = FORMATS[fmt]
    width = 8 * size

    def signed(bits):
        if kind == "uint":
            return bits
        return bits - (1 << width) if bits >> (width - 1) else bits

    a = signed(a_bits)
    b = signed(b_bits) if b_bits is not None else None
    if op == "add":
        result = a + b
    elif op == "sub":
        result = a - b
    elif op == "mul":
        result = a * b
    elif op == "max":
        result = a if a >= b else b
    elif op == "min":
        result = a if a <= b else b
    elif op == "abs":
        result = -a if a < 0 else a
    else:
        raise ValueError(op)
    return result % (1 << width)


def result_bits(op: str, fmt: str, a_bits: int, b_bits: int | None, saturate: bool) -> int:
    if FORMATS[fmt][1] == "float":
        return float_result_bits(op, fmt, a_bits, b_bits, saturate)
    return int_result_bits(op, fmt, a_bits, b_bits)


# ----------------------------------------------------------- the UB model
def load(ub: bytearray, addr: int, size: int) -> int:
    return int.from_bytes(ub[addr : addr + size], "little")


def store(ub: bytearray, addr: int, size: int, bits: int) -> None:
    ub[addr : addr + size] = bits.to_bytes(size, "little")


def lane_address(base: int, r: int, j: int, size: int, blk: int, rep: int) -> int:
    per_block = BLOCK // size
    return base + r * rep * BLOCK + (j // per_block) * blk * BLOCK + (j % per_block) * size


def active_lanes_normal(mask, size: int) -> list[int]:
    """Lanes a high-dimensional call's mask selects (contiguous int or list of words)."""
    lanes = REPEAT // size
    if isinstance(mask, int):
        return list(range(min(mask, lanes)))
    active = []
    for j in range(lanes):
        word, bit = divmod(j, 64)
        if word < len(mask) and (mask[word] >> bit) & 1:
            active.append(j)
    return active


def elementwise(ub: bytearray, op: str, fmt: str, dst: int, srcs: list[int], scalar_bits: int | None,
                repeats: int, active, strides: list[tuple[int, int]], saturate: bool = False) -> None:
    """Run an element-wise instruction on the UB model, repeat by repeat, lane by lane.

    ``active(r)`` lists the active lanes of repeat r; ``strides`` holds (block, repeat)
    strides of dst then each source.  Repeats run in order and each lane reads memory as
    it is at that moment, which is exactly the in-order semantics of the dst/src1 chain.
    """
    size = FORMATS[fmt][0]
    for r in range(repeats):
        lanes = active(r)
        reads = []
        for j in lanes:
            operands = [load(ub, lane_address(base, r, j, size, *stride), size)
                        for base, stride in zip(srcs, strides[1:], strict=True)]
            if scalar_bits is not None:
                operands.append(scalar_bits)
            reads.append((j, operands))
        for j, operands in reads:
            if op == "duplicate":
                bits = operands[0]
            else:
                bits = result_bits(op, fmt, operands[0], operands[1] if len(operands) > 1 else None, saturate)
            store(ub, lane_address(dst, r, j, size, *strides[0]), size, bits)


def scalar_to_bits(value: float, fmt: str) -> int:
    """A Python number converted to ``fmt``: floats by the narrowing rule (tests/float_reference.py)."""
    size, kind, _e, _m = FORMATS[fmt]
    if kind == "float":
        return expected_bits(value, fmt)
    return int(value) % (1 << (8 * size))
