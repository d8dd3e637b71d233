"""Where int4b_t lanes lie in memory, the plain way (a reference for tests/ascend/test_cast_int4.py).

Written from Cast.md (约束说明: an int4b_t takes half a byte; its example's repeat strides {1, 1, 2, 8} for
128 half -> int4b_t lanes) and docs/semantics.md §5.23: lane ``2i`` of a run of int4b_t elements is the
low nibble of byte ``i``, lane ``2i + 1`` the high nibble; an int4b_t DataBlock (32 bytes) holds 64
lanes.  One lane's value conversion is ``cast_reference.cast`` with ``"int4"``.  No numpy packing, no
npusim code.
"""

from __future__ import annotations

BLOCK = 32
LANES_PER_BLOCK = 64  # int4b_t lanes in a 32-byte DataBlock


def nibble_address(lane: int, repeat: int, lanes: int, blk_stride: int, rep_stride: int) -> tuple[int, int]:
    """(byte offset, 0 low / 1 high) of lane ``lane`` of repeat ``repeat`` of an int4b_t operand: the
    repeat and block strides count 32-byte blocks, as for any operand."""
    assert 0 <= lane < lanes
    byte = repeat * rep_stride * BLOCK + (lane // LANES_PER_BLOCK) * blk_stride * BLOCK + (lane % LANES_PER_BLOCK) // 2
    return byte, lane % 2


def element_address(index: int) -> tuple[int, int]:
    """(byte offset, nibble) of element ``index`` of a contiguous int4b_t run."""
    return index // 2, index % 2


def get_nibble(memory: bytes | bytearray, byte: int, nibble: int) -> int:
    """The 4-bit code at ``memory[byte]``'s low (0) or high (1) half."""
    return (memory[byte] >> (4 * nibble)) & 0xF


def set_nibble(memory: bytearray, byte: int, nibble: int, code: int) -> None:
    """Store the 4-bit code ``code`` in one half of ``memory[byte]``, keeping the other half."""
    assert 0 <= code <= 0xF
    keep = 0xF0 if nibble == 0 else 0x0F
    memory[byte] = (memory[byte] & keep) | (code << (4 * nibble))


def code_of(value: int) -> int:
    """The 4-bit two's complement code of ``value`` in [-8, 7]."""
    assert -8 <= value <= 7
    return value & 0xF


def value_of(code: int) -> int:
    """The value of a 4-bit two's complement code."""
    return code - 16 if code >= 8 else code


def packed(values: list[int]) -> bytes:
    """A contiguous run of int4b_t values (an even number) as bytes."""
    out = bytearray(len(values) // 2)
    for index, value in enumerate(values):
        set_nibble(out, *element_address(index), code_of(value))
    return bytes(out)
