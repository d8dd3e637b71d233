"""Half add, sub and mul of up to 1024 lanes by numpy's own half loop (``arith._plain_halves``), against a model:
the exact sum, difference or product of the two halves (a double holds it: at most 40 significant bits) rounded
once to nearest even half by ``tests/float_reference.py``'s midpoint model, then docs/numerics.md's rules for the
special results: a NaN result is the canonical quiet NaN 0x7E00, or +0 under saturation (CTRL[48],
SetCtrlSpr(ISASI).md), where an infinite one is ±65504.  Every pair of a set of halves that holds every exponent
(subnormals and both zeros included), the largest and smallest significands, ±infinity and NaNs with payloads;
results that overflow, underflow to subnormals and cancel to ±0.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim.ascend.ops import arith
from npusim.dtypes import DTYPES

from ..float_reference import half_bits_of_singles, half_doubles

HALF = DTYPES["float16"]


def _halves() -> np.ndarray:
    exponents = np.arange(32) << 10
    mantissas = np.array([0, 1, 2, 0x155, 0x200, 0x2AB, 0x3FE, 0x3FF])
    codes = (exponents[:, None] | mantissas).reshape(-1)
    codes = np.concatenate([codes, [0x7E00, 0x7C01, 0x7D55]])  # NaNs: quiet, signalling, a payload
    return np.concatenate([codes, codes | 0x8000]).astype(np.uint16)


CODES = _halves()


def _expected(operation: str, a: np.ndarray, b: np.ndarray, saturate: bool) -> np.ndarray:
    x, y = half_doubles(a), half_doubles(b)
    with np.errstate(invalid="ignore"):
        exact = {"add": x + y, "sub": x - y, "mul": x * y}[operation]  # exact in doubles for finite halves
    bits = half_bits_of_singles(exact)
    if operation in ("add", "sub"):  # an exact zero sum of non-zero halves is +0 (IEEE 754 §6.3, to nearest)
        signed = {"add": np.signbit(x) & np.signbit(y), "sub": np.signbit(x) & ~np.signbit(y)}[operation]
        bits = np.where(exact == 0, np.where(signed, 0x8000, 0), bits).astype(np.uint16)
    magnitude = bits & 0x7FFF
    if saturate:
        bits = np.where(magnitude == 0x7C00, (bits & 0x8000) | 0x7BFF, bits)
        return np.where(magnitude > 0x7C00, 0, bits).astype(np.uint16)
    return np.where(magnitude > 0x7C00, 0x7E00, bits).astype(np.uint16)


@pytest.mark.parametrize("operation", ["add", "sub", "mul"])
@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("lanes", [128, 1024])
def test_every_pair_of_the_set(operation, saturate, lanes):
    a = np.repeat(CODES, CODES.size)
    b = np.tile(CODES, CODES.size)
    pad = -a.size % lanes
    a, b = np.concatenate([a, a[:pad]]), np.concatenate([b, b[:pad]])
    out = np.concatenate([arith.compute(operation, HALF, [a[k:k + lanes], b[k:k + lanes]], saturate)
                          for k in range(0, a.size, lanes)])
    assert out.tobytes() == _expected(operation, a, b, saturate).tobytes()


@pytest.mark.parametrize("operation", ["add", "mul"])
def test_a_scalar_operand(operation):
    rng = np.random.default_rng(4)
    a = rng.integers(0, 1 << 16, 128).astype(np.uint16)
    a[(a & 0x7C00) == 0x7C00] = 0x3C00  # finite lanes, so the numpy loop's result stands unless a result overflows
    for scalar in (0x3C00, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0x7E01):
        b = np.array([scalar], np.uint16)
        for saturate in (True, False):
            got = arith.compute(operation, HALF, [a, b], saturate)
            assert got.tobytes() == _expected(operation, a, np.full(128, scalar, np.uint16), saturate).tobytes()


def test_the_route_is_taken_for_short_calls(monkeypatch):
    """No widening when no result is special (the route's decision, with its fallback's absence shown)."""
    a = np.full(128, 0x3C00, np.uint16)
    monkeypatch.setattr(arith, "narrowed_bits", lambda *args: (_ for _ in ()).throw(AssertionError("widened")))
    assert arith.compute("mul", HALF, [a, a], True).tolist() == [0x3C00] * 128
    with pytest.raises(AssertionError, match="widened"):
        arith.compute("mul", HALF, [a, np.full(128, 0x7C00, np.uint16)], True)  # infinite results: the rules
