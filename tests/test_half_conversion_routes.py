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


# (description, float32 bit patterns put among long normal data): each keeps the array off the integer route
OFF_ROUTE = [
    ("the smallest half subnormal", [0x33800000]),
    ("just below 2**-14", [0x387FFFFF]),
    ("a float32 subnormal", [0x00000001]),
    ("zeros and one tiny value", [0x00000000, 0x80000000, 0x33000001]),
    ("65520: rounds to infinity", [0x477FF000]),
    ("just below 65520", [0x477FEFFF]),
    ("the largest float32, negative", [0xFF7FFFFF]),
    ("infinities", [0x7F800000, 0xFF800000]),
    ("NaNs with payloads, signalling and negative", [0x7FC00001, 0x7F800001, 0xFFBFFFFF, 0xFFC00000]),
]


@pytest.mark.parametrize("where, patterns", OFF_ROUTE, ids=[c[0] for c in OFF_ROUTE])
@pytest.mark.parametrize("size", [LONG - 1, LONG, 3 * LONG])
def test_values_off_the_integer_route_round_by_the_other_routes(where, patterns, size):
    values = np.resize(_long_normal(), size)
    at = np.linspace(0, size - 1, len(patterns)).astype(int)
    values.view(np.uint32)[at] = patterns
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
