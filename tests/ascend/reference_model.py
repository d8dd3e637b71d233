"""The per-element reference model of the Ascend instructions under test: the one copy, for every test.

Written from the reference text (``shared/reference/ascend-semantics.md``, "ref") and the API
documents, deliberately naive and independent of npusim: Python loops over repeats and lanes,
byte arithmetic on a ``bytearray`` model of the Unified Buffer, exact rational arithmetic, no
numpy and no import from ``npusim``.  The vectorised emulator is tested against it.

* lane j of repeat r of an operand at ``base`` lives at byte
  ``base + r*rep*32 + (j // B)*blk*32 + (j % B)*size`` with ``B = 32 // size`` (ref §1.1);
* normal mask: lane j active iff bit j of the mask (LSB first; word 0 = lanes 0..63);
  contiguous mask n: ``SetMask<T>(len)``, the first min(n, E) lanes (ref §1.2); counter mode
  and the count forms: the first ``count`` elements in order, ``ceil(count / E)`` repeats (ref §1.3);
* floats: the exact result of the operation, rounded once to the destination format, to
  nearest even (IEEE 754); saturation and NaN rules as SetCtrlSpr(ISASI).md gives them;
  integers: two's complement, results wrap modulo 2**bits;
* Select (ref §2), the Compare family's packed LSB-first bitmask and IEEE comparisons
  (ref §3.1, §3.7), TransDataTo5HD's block mappings and repeat offsets (ref §4.2-4.3).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from fractions import Fraction

BLOCK = 32
REPEAT = 256
FULL = (1 << 64) - 1


# ------------------------------------------------------------ addresses and masks
def lane_address(base: int, r: int, j: int, size: int, blk: int, rep: int) -> int:
    """ref §1.1: base + r*rep*32 + floor(j/B)*blk*32 + (j mod B)*size, B = 32/size."""
    per_block = BLOCK // size
    return base + r * rep * BLOCK + (j // per_block) * blk * BLOCK + (j % per_block) * size


def set_mask_words(length: int, size: int) -> tuple[int, int]:
    """ref §1.2, ``SetMask<T>(len)``: 64 -> (~0, 0); E or >= 128 -> all ones; else the low bits."""
    lanes = REPEAT // size
    if length == 64:
        return FULL, 0
    if length == lanes or length >= 128:
        return FULL, FULL
    if length > 64:
        return FULL, (1 << (length - 64)) - 1
    return (1 << length) - 1, 0


@dataclass
class Lanes:
    """Which (repeat, lane) pairs are active: a normal-mode bit pattern or a counter-mode count."""

    repeats: int
    lanes: int
    low: int = FULL
    high: int = FULL
    count: int | None = None

    def active(self, r: int, j: int) -> bool:
        if self.count is not None:
            return r * self.lanes + j < self.count
        word = self.low if j < 64 else self.high
        return (word >> (j % 64)) & 1 == 1


def normal_lanes(low: int, high: int, repeats: int, size: int) -> Lanes:
    return Lanes(repeats, REPEAT // size, low, high)


def counter_lanes(count: int, size: int) -> Lanes:
    lanes = REPEAT // size
    return Lanes(-(-count // lanes), lanes, count=count)


def get_bit(stream: bytes | bytearray, index: int) -> int:
    """ref §2.1: bit i = (byte[i >> 3] >> (i & 7)) & 1."""
    return (stream[index >> 3] >> (index & 7)) & 1


@dataclass
class SelectCase:
    """One Select call in the model's terms (addresses are UB byte offsets)."""

    mode: int
    size: int
    dst: int
    src0: int
    src1: int | None  # None in mode 1
    scalar: bytes | None  # raw bits of the mode-1 scalar
    sel: int | None  # selMask address (modes 1/2, or mode 0 read directly from selMask)
    cmpmask: bytes  # CMPMASK as the vsel sees it (mode 0)
    lanes: Lanes
    strides: tuple[int, int, int, int, int, int] = (1, 1, 1, 8, 8, 8)
    accesses: list = field(default_factory=list)
    scalar_first: bool = False  # mode 1 with the scalar as src0 (the 950's flexible forms): the vector is src1


def run_select(ub: bytearray, case: SelectCase) -> bytearray:
    """Execute ``vsel`` repeat by repeat, lane by lane (reads of a repeat before its writes)."""
    out = bytearray(ub)
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = case.strides
    size, lanes = case.size, case.lanes
    for r in range(lanes.repeats):
        writes = []
        for j in range(lanes.lanes):
            if not lanes.active(r, j):
                continue
            if case.mode == 0:
                bit = get_bit(case.cmpmask, j) if case.sel is None else get_bit(out, case.sel * 8 + j)
            else:
                bit = get_bit(out, case.sel * 8 + r * lanes.lanes + j)
            if case.mode == 1 and bool(bit) == case.scalar_first:  # Select（灵活标量位置）.md: bit 1 takes src0
                value = case.scalar
            elif bit:
                a = lane_address(case.src0, r, j, size, s0_blk, s0_rep)
                value = out[a : a + size]
            else:
                a = lane_address(case.src1, r, j, size, s1_blk, s1_rep)
                value = out[a : a + size]
            writes.append((lane_address(case.dst, r, j, size, d_blk, d_rep), bytes(value)))
        for address, value in writes:
            out[address : address + size] = value
    return out


def footprints(case: SelectCase) -> tuple[list[set], list[set]]:
    """Per repeat: bytes written, bytes read (for the overlap oracle)."""
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = case.strides
    size, lanes = case.size, case.lanes
    written, read = [], []
    for r in range(lanes.repeats):
        w, rd = set(), set()
        for j in range(lanes.lanes):
            if not lanes.active(r, j):
                continue
            a = lane_address(case.dst, r, j, size, d_blk, d_rep)
            w.update(range(a, a + size))
            a = lane_address(case.src0, r, j, size, s0_blk, s0_rep)
            rd.update(range(a, a + size))
            if case.src1 is not None:
                a = lane_address(case.src1, r, j, size, s1_blk, s1_rep)
                rd.update(range(a, a + size))
            if case.sel is not None:
                bit = j if case.mode == 0 else r * lanes.lanes + j
                rd.add(case.sel + (bit >> 3))
        written.append(w)
        read.append(rd)
    return written, read


def violates_overlap_rules(case: SelectCase) -> bool:
    """ref §1.4: a later repeat reads what an earlier one wrote, or a repeat overlaps partially.

    "Partial" here: a repeat's written and read bytes intersect while the operand is not
    exactly in place (same address lane for lane, same element size).
    """
    written, read = footprints(case)
    for r, w in enumerate(written):
        for later in read[r + 1 :]:
            if w & later:
                return True
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = case.strides
    size, lanes = case.size, case.lanes
    operands = [(case.src0, s0_blk, s0_rep)]
    if case.src1 is not None:
        operands.append((case.src1, s1_blk, s1_rep))
    for r in range(lanes.repeats):
        active = [j for j in range(lanes.lanes) if lanes.active(r, j)]
        dst_addrs = [lane_address(case.dst, r, j, size, d_blk, d_rep) for j in active]
        dst_bytes = {a + k for a in dst_addrs for k in range(size)}
        for base, blk, rep in operands:
            src_addrs = [lane_address(base, r, j, size, blk, rep) for j in active]
            src_bytes = {a + k for a in src_addrs for k in range(size)}
            if dst_bytes & src_bytes and src_addrs != dst_addrs:
                return True
        if case.sel is not None:
            sel_bytes = {case.sel + ((j if case.mode == 0 else r * lanes.lanes + j) >> 3) for j in active}
            if dst_bytes & sel_bytes:
                return True
    return False


# ---------------------------------------------------------------- numbers
# name: (size in bytes, kind, exponent bits, mantissa bits)
FORMATS = {
    "float16": (2, "float", 5, 10),
    "bfloat16": (2, "float", 8, 7),
    "float32": (4, "float", 8, 23),
    "float64": (8, "float", 11, 52),
    "int16": (2, "int", 0, 0),
    "uint16": (2, "uint", 0, 0),
    "int32": (4, "int", 0, 0),
    "uint32": (4, "uint", 0, 0),
    "int8": (1, "int", 0, 0),
    "uint8": (1, "uint", 0, 0),
    "int64": (8, "int", 0, 0),
    "uint64": (8, "uint", 0, 0),
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
    width = 8 * FORMATS[fmt][0]
    a = number(a_bits, fmt)
    b = number(b_bits, fmt) if b_bits is not None else None
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
    """A Python number converted to ``fmt`` (floats round to nearest even)."""
    size, kind, _e, _m = FORMATS[fmt]
    if kind == "float":
        if value != value:
            return encode("nan", fmt)
        if value in (float("inf"), float("-inf")):
            return encode("+inf" if value > 0 else "-inf", fmt)
        if value == 0:
            return encode(("zero", 1 if struct.pack(">d", value)[0] & 0x80 else 0), fmt)
        return encode(Fraction(value), fmt)
    return int(value) % (1 << (8 * size))


# ---------------------------------------------------------------- Compare
def number(bits: int, fmt: str):
    """A lane's value: an int for integer formats, :func:`decode`'s value for floats."""
    size, kind, _e, _m = FORMATS[fmt]
    if kind == "uint":
        return bits
    if kind == "int":
        return bits - (1 << 8 * size) if bits >> (8 * size - 1) else bits
    return decode(bits, fmt)


def python_number(bits: int, fmt: str):
    """The same value as a Python int or float (exact for every format here), to pass as a scalar argument."""
    value = number(bits, fmt)
    if isinstance(value, int):
        return value
    if isinstance(value, tuple):
        return -0.0 if value[1] else 0.0
    if isinstance(value, str):
        return float(value)
    return float(value)


def _order(value):
    """IEEE order of a non-NaN value: -inf < finite (zeros equal) < +inf."""
    if value == "-inf":
        return (0, 0)
    if value == "+inf":
        return (2, 0)
    return (1, _as_number(value))


def compares(mode: str, a, b) -> bool:
    """``a <mode> b`` on :func:`number` values, IEEE-754: NaN is unordered (only NE holds), +0 == -0 (ref §3.7)."""
    if a == "nan" or b == "nan":
        return mode == "NE"
    x, y = _order(a), _order(b)
    return {"LT": x < y, "GT": x > y, "EQ": x == y, "LE": x <= y, "GE": x >= y, "NE": x != y}[mode]


def compare_bits(ub: bytes, fmt: str, mode: str, src0: int, src1: int | None, scalar_bits: int | None, repeats: int,
                 strides: tuple[int, int, int, int], active=lambda r, j: True, scalar_first: bool = False) -> list[int]:
    """Result bit of every lane of every repeat, repeat-major; inactive lanes give 0 (ref §3.1-3.2).

    ``strides`` are ``(src0_blk, src0_rep, src1_blk, src1_rep)``; against a scalar ``src1`` is
    ``None`` and ``scalar_bits`` holds the scalar's raw bits in ``fmt``.  ``scalar_first``: the scalar is the
    left operand, ``scalar <mode> lane`` (Compares（灵活标量位置）.md: LT is "src0 小于 src1"); the lanes are
    still read at ``src0`` with the first two strides.
    """
    size = FORMATS[fmt][0]
    s0_blk, s0_rep, s1_blk, s1_rep = strides
    bits = []
    for r in range(repeats):
        for j in range(REPEAT // size):
            if not active(r, j):
                bits.append(0)
                continue
            a = number(load(ub, lane_address(src0, r, j, size, s0_blk, s0_rep), size), fmt)
            b_bits = scalar_bits if src1 is None else load(ub, lane_address(src1, r, j, size, s1_blk, s1_rep), size)
            pair = (number(b_bits, fmt), a) if scalar_first else (a, number(b_bits, fmt))
            bits.append(1 if compares(mode, *pair) else 0)
    return bits


def pack_bits(bits: list[int]) -> bytes:
    """LSB first: bit i goes to byte i // 8, bit i % 8 (ref §3.1)."""
    out = bytearray((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        out[i // 8] |= bit << (i % 8)
    return bytes(out)


def count_bitmask(bits: list[int], size: int) -> bytes:
    """The bytes a count-form compare stores (ref §3.3): the packed bits; for 64-bit T (the 950 only) padded
    with zero bytes to a multiple of 8.  The 950's library compares 64-bit data 64 elements per loop
    iteration (two registers: ``repeatElm = GetVecLen() / sizeof(T) * 2`` in dav_3510
    ``kernel_operator_vec_compare_continuous_impl.h`` CompareLevel2, ``kernel_operator_vec_cmp_impl.h``
    CompareScalarLevel2 / CompareSrc0ScalarLevel2 / CompareScalarLevel2B64) and stores each iteration's
    MaskReg with StoreUnAlign as uint32, 8 bytes (Reg数据搬出/MaskReg非对齐搬出（StoreUnAlign）.md 关键特性说明);
    lanes past ``count`` are outside UpdateMask's mask, and Compare zeroes them (比较与选择/Compare.md 约束说明).
    So an odd number of 32-element repeats ends with 4 zero bytes."""
    out = pack_bits(bits)
    if size == 8:
        out += bytes(-len(out) % 8)
    return out


def mask_active(mask, lanes: int):
    """Normal mode (ref §1.2): an int is a count of leading lanes (clamped); a list is bits, LSB first."""
    if isinstance(mask, int):
        return lambda r, j: j < min(mask, lanes)
    return lambda r, j: (mask[j // 64] >> (j % 64)) & 1 == 1


def register_words(mask, size: int) -> tuple[int, int]:
    """(low, high) of the vector mask register after ``SetMask<T>(len)`` or ``SetMask(high, low)`` (ref §1.2)."""
    return tuple(mask[:2]) if not isinstance(mask, int) else set_mask_words(mask, size)


# --------------------------------------------------------- TransDataTo5HD
def trans_data_to_5hd(ub: bytes, size: int, dst_list, src_list, repeat: int, dst_stride: int, src_stride: int,
                      dst_high: bool, src_high: bool) -> bytes:
    """ref §4.2 mappings, §4.3 offsets: ``off(r) = stride if repeat == 1 else r * stride`` (DataBlocks)."""
    out = bytearray(ub)
    for r in range(repeat):
        off_s = src_stride if repeat == 1 else r * src_stride
        off_d = dst_stride if repeat == 1 else r * dst_stride
        s = [src_list[i] + off_s * BLOCK for i in range(16)]
        d = [dst_list[i] + off_d * BLOCK for i in range(16)]
        if size == 2:  # D[e][k] = S[k][e]
            for e in range(16):
                for k in range(16):
                    out[d[e] + 2 * k : d[e] + 2 * k + 2] = ub[s[k] + 2 * e : s[k] + 2 * e + 2]
        elif size == 4:  # D[2e+h][k] = S[8h+k][e]
            for e in range(8):
                for h in range(2):
                    for k in range(8):
                        to, frm = d[2 * e + h] + 4 * k, s[8 * h + k] + 4 * e
                        out[to : to + 4] = ub[frm : frm + 4]
        else:  # D[e][k + 16 dh] = S[k][e + 16 sh]
            for e in range(16):
                for k in range(16):
                    out[d[e] + k + 16 * dst_high] = ub[s[k] + e + 16 * src_high]
    return bytes(out)
