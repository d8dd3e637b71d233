"""Cast's fast routes against independent references, through the instruction.

* float32 -> half with 4096 lanes or more whose magnitudes are zero or normal-range takes the integer rounding
  of ``npusim.rounding`` (tests/test_half_conversion_routes.py checks it on every half's neighbourhood); here
  dense, strided and masked calls of 160 repeats, and ones with specials that leave the route, under the
  A2's saturation (CTRL[48]: ±infinity to ±65504, NaN to 0, SetCtrlSpr(ISASI).md) and without it (the
  canonical quiet NaN, sign clear; docs/numerics.md).  Expected: ``tests/float_reference.py``'s midpoint model
  of the rounding, with those rules applied here.
* half -> an integer type is one lookup in a table of all 2**16 halves' results per type and mode: every half
  code, in every mode, against a model of precision_conversion.md's rule written here on doubles (a half is
  exact in a double; floor, ceil, trunc and rint of a double are exact; ties away and odd rounding decided from
  the fraction), saturated to the type's range, NaN -> 0 (docs/numerics.md, "Ascend: Cast").  int4b_t's
  every-code test is tests/ascend/test_cast_int4.py's.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend import RoundMode as R
from npusim.ascend.cast_dtypes import cast_pairs
from npusim.dtypes import DTYPES

from ..float_reference import half_bits_of_singles, half_doubles

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
SRC, DST = 0x00000, 0x14000
REPEATS = 160


def _float_image(values: np.ndarray, blk: int) -> bytes:
    """float32 ``values`` (64 a repeat) laid out with block stride ``blk`` and repeat stride ``8 * blk``."""
    image = np.zeros(0x14000, np.uint8)
    view = np.ndarray((REPEATS, 8, 8), np.float32, buffer=image, offset=0,
                      strides=(8 * blk * 32, blk * 32, 4))
    view[...] = values.reshape(REPEATS, 8, 8)
    return image.tobytes()


def _expected_halves(values: np.ndarray, saturate: bool) -> np.ndarray:
    bits = half_bits_of_singles(values)
    magnitude = bits & 0x7FFF
    if saturate:
        bits = np.where(magnitude == 0x7C00, (bits & 0x8000) | 0x7BFF, bits)
        return np.where(magnitude > 0x7C00, 0, bits).astype(np.uint16)
    return np.where(magnitude > 0x7C00, 0x7E00, bits).astype(np.uint16)


def _long_values(kind: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    values = (rng.standard_normal(REPEATS * 64) * 1000).astype(np.float32)
    if kind == "zeros":
        values[::5] = 0.0
        values[1::9] = -0.0
    elif kind == "specials":
        values.view(np.uint32)[[3, 700, 1500, 2100, 4000, 6000, 8000, 9000, 10000]] = [
            0x7F800000, 0xFF800000, 0x7FC00001, 0xFF800001, 0x477FF000, 0xC77FEFFF, 0x33800000, 0x80000001,
            0x387FFFFF]
    return values


@pytest.mark.parametrize("kind", ["normal", "zeros", "specials"])
@pytest.mark.parametrize("blk", [1, 2])
@pytest.mark.parametrize("saturate", [True, False])
def test_float_to_half_of_160_repeats(kind, blk, saturate):
    values = _long_values(kind)
    with asc.Core("A2") as core:
        if not saturate:
            asc.set_saturation_flag(False)
        core.ub_write(SRC, _float_image(values, blk))
        core.ub_write(DST, bytes(0x8000 if blk == 1 else 0xA000))
        x = asc.LocalTensor(asc.float32, VECIN, SRC)
        z = asc.LocalTensor(asc.float16, VECOUT, DST)
        asc.cast(z, x, R.CAST_RINT, 64, REPEATS, asc.UnaryRepeatParams(blk, blk, 4 * blk, 8 * blk))
        out = np.frombuffer(core.ub_read(DST, REPEATS * 4 * blk * 32), np.uint16)
        source = core.ub_read(SRC, 0x14000)
    lanes = out.reshape(REPEATS, 4, blk, 16)[:, :, 0, :].reshape(-1)
    assert lanes.tobytes() == _expected_halves(values, saturate).tobytes()
    if blk == 2:
        assert not out.reshape(REPEATS, 4, 2, 16)[:, :, 1, :].any()  # the blocks between stay as they were
    assert source == _float_image(values, blk)


def test_float_to_half_under_a_mask_of_half_the_lanes():
    """5120 active lanes of 10240 (each repeat's odd 32-lane halves): the active ones converted, the rest kept."""
    values = _long_values("zeros")
    mask = [0xFFFFFFFF00000000, 0]
    with asc.Core("A2") as core:
        core.ub_write(SRC, _float_image(values, 1))
        core.ub_write(DST, bytes(range(256)) * 128)
        x = asc.LocalTensor(asc.float32, VECIN, SRC)
        z = asc.LocalTensor(asc.float16, VECOUT, DST)
        asc.cast(z, x, R.CAST_RINT, mask, REPEATS, asc.UnaryRepeatParams(1, 1, 4, 8))
        out = np.frombuffer(core.ub_read(DST, REPEATS * 128), np.uint16).reshape(REPEATS, 64)
    before = np.frombuffer(bytes(range(256)) * 128, np.uint16)[:REPEATS * 64].reshape(REPEATS, 64)
    expected = _expected_halves(values, True).reshape(REPEATS, 64)
    assert out[:, 32:].tobytes() == expected[:, 32:].tobytes()
    assert out[:, :32].tobytes() == before[:, :32].tobytes()


# ------------------------------------------------------------------ half -> integers, every code
HALF_CODES = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
INTEGER_TARGETS = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-(2**15), 2**15 - 1),
                   "int32": (-(2**31), 2**31 - 1)}
CHUNK = 8192  # codes per call: 16 KiB of halves, at most 32 KiB of int32


def _integral(x: np.ndarray, mode: str) -> np.ndarray:
    """precision_conversion.md 表1 on doubles: the integer chosen by each mode (exact: x is a half)."""
    whole = np.trunc(x)
    away = np.copysign(1.0, x)
    with np.errstate(invalid="ignore"):  # inf - inf, NaN: those lanes are replaced by the caller
        fraction = np.abs(x - whole)
        if mode == "rint":  # to nearest, a tie to the even integer
            up = (fraction > 0.5) | ((fraction == 0.5) & (np.fmod(whole, 2) != 0))
        elif mode == "round":  # to nearest, a tie away from zero
            up = fraction >= 0.5
        elif mode == "floor":
            up = (fraction > 0) & (x < 0)
        elif mode == "ceil":
            up = (fraction > 0) & (x > 0)
        elif mode == "trunc":
            up = np.zeros(x.shape, bool)
        else:  # odd: away from zero when something is dropped and the truncated integer is even
            up = (fraction > 0) & (np.fmod(whole, 2) == 0)
    return whole + np.where(up, away, 0.0)


MODES = {R.CAST_NONE: "rint", R.CAST_RINT: "rint", R.CAST_FLOOR: "floor", R.CAST_CEIL: "ceil",
         R.CAST_ROUND: "round", R.CAST_TRUNC: "trunc"}


def _expected_integers(dst: str, mode: str) -> np.ndarray:
    low, high = INTEGER_TARGETS[dst]
    x = half_doubles(HALF_CODES)
    integral = np.clip(np.nan_to_num(_integral(x, mode), nan=0.0, posinf=high, neginf=low), low, high)
    return integral.astype(np.int64).astype(DTYPES[dst].raw)


def _pairs():
    chip = asc.get_chip("A2")
    for (src, dst), modes in cast_pairs(chip).items():
        if src == "float16" and dst in INTEGER_TARGETS and modes != "deq":
            for mode in sorted(modes):
                if R(mode) in MODES:
                    yield dst, R(mode)


@pytest.mark.parametrize("dst, mode", list(_pairs()), ids=lambda v: getattr(v, "name", v))
def test_every_half_code_to_an_integer_type(dst, mode):
    d = DTYPES[dst]
    out = []
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float16, VECIN, 0, CHUNK)
        z = asc.LocalTensor(d, VECOUT, 0x8000, CHUNK)
        for start in range(0, HALF_CODES.size, CHUNK):
            core.ub_write(0, HALF_CODES[start:start + CHUNK].tobytes())
            asc.cast(z, x, mode, CHUNK)
            out.append(np.frombuffer(core.ub_read(0x8000, CHUNK * d.itemsize), d.raw))
    assert np.concatenate(out).tobytes() == _expected_integers(dst, MODES[mode]).tobytes()


def test_a_strided_masked_half_to_int8_call():
    """Two repeats, src block stride 2, dst block stride 3, a mask of every third lane: the table's lookup on the
    gathered lanes, written to their places, the other bytes unchanged."""
    codes = np.random.default_rng(11).integers(0, 1 << 16, 256).astype(np.uint16)
    codes[:6] = [0x7C00, 0xFC00, 0x7E01, 0xFE00, 0x3800, 0xB800]  # ±inf, NaNs, ±0.5
    words = [int("".join("1" if j % 3 == 0 else "0" for j in range(64))[::-1], 2)] * 2
    src = np.zeros((2, 8, 2, 16), np.uint16)
    src[:, :, 0, :] = codes.reshape(2, 8, 16)
    with asc.Core("A2") as core:
        core.ub_write(0, src.tobytes())
        core.ub_write(0x2000, bytes(range(256)) * 12)
        x = asc.LocalTensor(asc.float16, VECIN, 0)
        z = asc.LocalTensor(asc.int8, VECOUT, 0x2000)
        asc.cast(z, x, R.CAST_ROUND, words, 2, asc.UnaryRepeatParams(3, 2, 12, 16))
        out = np.frombuffer(core.ub_read(0x2000, 3072), np.uint8).copy()
    expected = np.frombuffer(bytes(range(256)) * 12, np.uint8).copy()
    integers = _expected_integers("int8", "round").view(np.uint8)[codes]
    for k in range(256):
        r, j = divmod(k, 128)
        if j % 64 % 3 == 0:
            expected[r * 12 * 32 + (j // 32) * 3 * 32 + j % 32] = integers[k]
    assert out.tobytes() == expected.tobytes()
