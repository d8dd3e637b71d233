"""float32 -> half (RINT) on each of its routes in ``npusim.rounding``: numpy's conversion, the integer rounding
of long arrays whose magnitudes are all zero or in [2**-14, 65520), and the slow elements rounded directly.

The expected bits come from ``tests/float_reference.py``'s midpoint model of float32 -> half
(:func:`half_bits_of_singles`), itself checked here against the exact-rational reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import rounding
from npusim.dtypes import by_name
from npusim.rounding import float_array_bits, narrowed_bits

from .float_reference import expected_bits, half_bits_of_singles, half_midpoints, half_values

HALF = by_name("float16")
LONG = rounding._INTEGER_ROUTE


def test_the_model_agrees_with_the_exact_rational_half_bits_of_singles():
    rng = np.random.default_rng(1)
    sample = np.concatenate([rng.standard_normal(300) * 10.0 ** rng.integers(-9, 6, 300),
                             [0.0, -0.0, 65504, 65519.996, 65520, 2.0**-24, 2.0**-25, 3 * 2.0**-26, 1e-45,
                              np.inf, -np.inf, np.nan]]).astype(np.float32)
    assert half_bits_of_singles(sample).tolist() == [expected_bits(float(v), "float16") for v in sample]


def _neighbourhoods(top: int = 0x7BFE) -> np.ndarray:
    """Positive float32 values at and around every normal half code up to ``top`` and its midpoint to the next:
    the code's value, the float32 just above it, the midpoint and the float32 on either side of it."""
    codes = np.arange(0x0400, top + 1)
    exact = half_values()[codes].astype(np.float32)
    middle = half_midpoints()[codes].astype(np.float32)
    up, down = np.float32(np.inf), np.float32(0)
    return np.concatenate([exact, np.nextafter(exact, up), middle, np.nextafter(middle, up),
                           np.nextafter(middle, down)])


def _without_numpy_conversion(monkeypatch):
    def refuse(single, fmt):
        raise AssertionError("numpy's conversion was used: the integer route was expected")
    monkeypatch.setattr(rounding, "_numpy_singles_to_half", refuse)


@pytest.mark.parametrize("sign", [1, -1])
def test_every_normal_half_neighbourhood_by_the_integer_route(monkeypatch, sign):
    values = _neighbourhoods() * np.float32(sign)
    _without_numpy_conversion(monkeypatch)
    bits, special = narrowed_bits(values, HALF)
    assert bits.tobytes() == half_bits_of_singles(values).tobytes()
    assert special is False


def test_zeros_of_both_signs_among_the_values_take_the_integer_route_too(monkeypatch):
    values = _neighbourhoods()
    values[::3] *= -1
    values[::7] = 0.0
    values[5::11] = -0.0
    _without_numpy_conversion(monkeypatch)
    bits, special = narrowed_bits(values, HALF)
    assert bits.tobytes() == half_bits_of_singles(values).tobytes()
    assert not special


@pytest.mark.parametrize("step", [2, 3])
def test_a_strided_array_by_the_integer_route(monkeypatch, step):
    values = _neighbourhoods()
    values[1::2] *= -1
    _without_numpy_conversion(monkeypatch)
    view = values[::step]
    assert float_array_bits(view, HALF).tobytes() == half_bits_of_singles(view).tobytes()


def _long_normal(seed: int = 3) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(LONG) * 100).astype(np.float32)


# (description, float32 bit patterns put among long normal data): the integer route's elements below 2**-14
SMALL = [
    ("the smallest half subnormal", [0x33800000]),
    ("just below 2**-14", [0x387FFFFF]),
    ("a tie at the top subnormal, rounding up to 2**-14", [0x387FE000]),
    ("ties between subnormals", [0x33000000, 0x33C00000, 0xB4200000]),
    ("float32 subnormals", [0x00000001, 0x807FFFFF]),
    ("zeros and tiny values", [0x00000000, 0x80000000, 0x33000001, 0xB3000001]),
]
# ... and the values that keep an array off the integer route
OFF_ROUTE = [
    ("65520: rounds to infinity", [0x477FF000]),
    ("the largest float32, negative", [0xFF7FFFFF]),
    ("infinities", [0x7F800000, 0xFF800000]),
    ("NaNs with payloads, signalling and negative", [0x7FC00001, 0x7F800001, 0xFFBFFFFF, 0xFFC00000]),
    ("an infinity and subnormal results", [0x7F800000, 0x33800000, 0x387FFFFF, 0x00000001]),
]


def _with(patterns: list[int], size: int, sampled: bool) -> np.ndarray:
    values = np.resize(_long_normal(), size)
    at = np.linspace(0, size - 1, len(patterns)).astype(int) // 64 * 64 + (0 if sampled else 1)
    values.view(np.uint32)[at] = patterns
    return values


@pytest.mark.parametrize("where, patterns", SMALL, ids=[c[0] for c in SMALL])
def test_results_below_the_normal_range_on_the_integer_route(monkeypatch, where, patterns):
    values = _with(patterns, 2 * LONG, False)
    _without_numpy_conversion(monkeypatch)
    bits, special = narrowed_bits(values, HALF)
    assert bits.tobytes() == half_bits_of_singles(values).tobytes()
    assert special is False


def test_an_array_of_subnormal_results_on_the_integer_route(monkeypatch):
    """The benchmark's values near 1e-5 (most results subnormal and inexact), with every half subnormal's
    neighbourhood: each is rounded as the small elements are."""
    rng = np.random.default_rng(23)
    units = np.arange(1024, dtype=np.float64)
    grid = np.concatenate([units, units + 0.5, units + 0.25, units + 0.75]) * 2.0**-24
    values = np.concatenate([rng.standard_normal(10240) * 1e-5, grid, -grid]).astype(np.float32)
    _without_numpy_conversion(monkeypatch)
    assert float_array_bits(values, HALF).tobytes() == half_bits_of_singles(values).tobytes()


@pytest.mark.parametrize("where, patterns", SMALL + OFF_ROUTE, ids=[c[0] for c in SMALL + OFF_ROUTE])
@pytest.mark.parametrize("size", [LONG - 1, LONG, 3 * LONG])
@pytest.mark.parametrize("sampled", [True, False])
def test_values_off_the_integer_route_round_by_the_other_routes(where, patterns, size, sampled):
    """Below :data:`LONG` elements and off the route: where the 1-in-64 sample sees the first such value (the
    slow elements rounded directly) and where it sees none (numpy converts them all)."""
    values = _with(patterns, size, sampled)
    bits, special = narrowed_bits(values, HALF)
    expected = half_bits_of_singles(values)
    assert bits.tobytes() == expected.tobytes()
    assert special == bool(((expected & 0x7FFF) >= 0x7C00).any())


def test_the_integer_route_boundaries_are_the_fast_ranges():
    """The route's bounds are 2**-14 (the smallest normal half) and 65520; 65519.996 and 2**-14 stay on it."""
    values = _long_normal()
    values[:4] = [2.0**-14, -(2.0**-14), 65519.996, -65519.996]
    bits, special = narrowed_bits(values, HALF)
    assert bits[:4].tolist() == [0x0400, 0x8400, 0x7BFF, 0xFBFF]
    assert bits.tobytes() == half_bits_of_singles(values).tobytes()
    assert not special
