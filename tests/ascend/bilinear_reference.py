"""A per-element model of BilinearInterpolation (基础算术/BilinearInterpolation(ISASI).md 功能说明, steps 1-4),
independent of npusim's plan: each product and each add is one exact-rational operation rounded to half
(``elementwise_reference.float_bits``), in the order of the vendor's lowering (h = 0, 1, ..., then + 0).
"""

from __future__ import annotations

from .elementwise_reference import float_bits


def active_lanes(mask) -> list[int]:
    """The lanes of one repeat a mask argument selects (an int: the first ``mask``; words: the set bits)."""
    if isinstance(mask, int):
        return list(range(min(mask, 128)))
    return [j for j in range(128) if (mask[j // 64] >> (j % 64)) & 1]


def bilinear(ub: bytearray, *, dst: int, src0: int, offsets: list[int], src1: list[int], mask, h: int,
             repeat_mode: bool, blk: int, v_r_offset: int, v: int, saturate: bool = True) -> bytearray:
    """``ub`` after the call: dst's active lanes written, nothing else (the tmp buffer is not modelled).
    ``src1``: the weights as half bits; ``offsets``: src0_offset's values (bytes)."""
    out = bytearray(ub)

    def half(addr: int) -> int:
        return ub[addr] | ub[addr + 1] << 8

    for vv in range(v):
        for lane in active_lanes(mask):
            block, k = divmod(lane, 16)
            total = None
            for hh in range(h):
                r = vv * h + hh
                x = half(src0 + offsets[8 * r + block] + 2 * k)
                w = src1[8 * r + block] if repeat_mode else src1[r]
                product = float_bits("mul", "float16", w, x, saturate)
                total = product if total is None else float_bits("add", "float16", product, total, saturate)
            result = float_bits("add", "float16", total, 0, saturate)
            at = dst + 2 * (vv * v_r_offset + block * 16 * blk + k)
            out[at:at + 2] = result.to_bytes(2, "little")
    return out
