"""An independent reference for the scalar unit's bit computations (标量计算, docs/semantics.md §5.35).

Written from the pages, the plain way: the argument's 64 bits as a list (bit 63 first), then a loop over
them as each 功能说明 describes (count the zeros from the top until the first 1 ...).  It shares no code
with npusim and uses no int.bit_length / bin tricks.
"""

from __future__ import annotations

WIDTH = 64


def bits_of(value: int) -> list[int]:
    """The 64 bits C passes for ``value`` (an int64_t or uint64_t argument), most significant first."""
    pattern = value & (2**WIDTH - 1)
    return [(pattern >> (WIDTH - 1 - i)) & 1 for i in range(WIDTH)]


def get_bit_count(value: int, count_value: int) -> int:
    """GetBitCount<countValue>: how many bits equal countValue."""
    total = 0
    for bit in bits_of(value):
        if bit == count_value:
            total += 1
    return total


def count_leading_zero(value: int) -> int:
    """CountLeadingZero: zeros from the most significant bit to the first 1 (64 for 0)."""
    zeros = 0
    for bit in bits_of(value):
        if bit == 1:
            break
        zeros += 1
    return zeros


def count_bits_same_as_sign(value: int) -> int:
    """CountBitsCntSameAsSignBit: bits after the sign bit equal to it, counted from the top; -1 for 0 and -1."""
    bits = bits_of(value)
    sign = bits[0]
    for same, bit in enumerate(bits[1:]):
        if bit != sign:
            return same
    return -1  # every bit is the sign: 0 or -1


def get_sff_value(value: int, count_value: int) -> int:
    """GetSFFValue<countValue>: the position (bit 0 = least significant) of the first countValue from the bottom."""
    bits = bits_of(value)
    for position in range(WIDTH):
        if bits[WIDTH - 1 - position] == count_value:
            return position
    return -1


def set_nth_bit(bits: int, idx: int, value: int) -> int:
    """asc_set_nthbit / asc_clear_nthbit: the uint64_t ``bits`` with bit ``idx`` made ``value``."""
    pattern = bits_of(bits)
    pattern[WIDTH - 1 - idx] = value
    result = 0
    for bit in pattern:
        result = result * 2 + bit
    return result
