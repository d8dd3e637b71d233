"""Narrowing a number to a floating-point element type: one rounding, to nearest even, from the exact value.

Every place where npusim turns a caller's number into an element of a float type goes
through this module: the scalar operands of every instruction and C-API function of both
vendors, ``duplicate``, Sophgo's ``scalar_t``, golden-data ``init`` values, and host data
written into tensors or memory with a change of type.  The rule (IEEE 754-2019 §7.4 with
roundTiesToEven, §4.3.1), and nothing else:

* **The exact value is converted.**  A Python ``int`` is that integer (``2**60 + 2**36 + 1``
  becomes the float32 ``2**60 + 2**37``; it is not first rounded to a double), a Python
  ``float`` is its double, a numpy scalar or array element its own value, a
  :class:`~fractions.Fraction` its rational value.
* **It is rounded once** to the nearest value of the target format; a tie goes to the one
  whose last significand bit is 0.  Below the smallest normal the result is subnormal; a
  value that rounds to zero keeps its sign (``-1e-30`` becomes ``-0.0`` in every format).
* **Overflow**: a value whose rounded magnitude is beyond the largest finite one (with an
  unbounded exponent, so from the largest finite value plus half an ulp upwards) becomes
  ±infinity, and ±infinity stays ±infinity.  ``float8_e4m3fn`` has no infinity: there,
  overflow and ±infinity saturate to ±448 (0x7E / 0xFE).  That is the saturating conversion
  the Ascend documents give as the default ("溢出默认按照饱和模式处理",
  数据结构/precision_conversion.md; CTRL[48] = 0 covers fp8_e4m3fn_t conversions,
  特殊寄存器访问/SetCtrlSpr(ISASI).md table 3); the Sophgo sources offer both modes.
* **NaN** becomes the target's quiet NaN with the input's sign bit and no payload:
  0x7E00 (float16), 0x7FC0 (bfloat16), 0x7FC00000 (float32), 0x7FF8000000000000 (float64),
  0x7E (float8_e5m2), 0x7F (float8_e4m3fn, whose only NaN is S.1111.111); with the sign
  set, 0xFE00, 0xFFC0 ... 0xFF.
* **A value that already has the target type is not converted**: its bits are kept, a NaN's
  payload included.

**Other rounding modes** (the Ascend ``RoundMode`` of a Cast, 数据结构/precision_conversion.md
表1) replace only the decision whether the kept part goes up by one unit, made from the kept
part's last bit, the first dropped bit, whether any later dropped bit is set, and the sign
(:func:`round_increment`): ``"rint"`` (the rule above), ``"round"`` (ties away from zero),
``"trunc"`` (toward zero), ``"floor"``, ``"ceil"`` and ``"odd"`` (the last kept bit set
whenever anything was dropped).  An overflow goes to infinity in the modes that round away
from zero there and to the largest finite value in the others (IEEE 754-2019 §7.4).  The
same decision rounds a number to an integer (:func:`integral_array`).

numpy's and ml_dtypes' own casts are not used for any of this, because they differ between
versions (ml_dtypes before 0.7 rounds float64 -> bfloat16 through float32, twice).  Scalars
are rounded with exact integer arithmetic, arrays with the same steps on 64-bit integer
views; integers beyond 2**53 and long doubles, which a double cannot hold exactly, take the
scalar path.  Integer targets are not handled here: callers check that an integer fits.
"""

from __future__ import annotations

import math
import numbers
import struct
from dataclasses import dataclass

import numpy as np

from .dtypes import DType, from_numpy
from .lazy import cached_attribute

__all__ = [
    "FLOAT_FORMATS", "MODES", "FloatFormat", "float_array_bits", "float_bits", "float_format", "integral_array",
    "may_hold_special", "narrowed_bits", "normal_halves", "round_increment", "special_results",
]

#: the rounding modes (precision_conversion.md 表1: CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD)
MODES = ("rint", "floor", "ceil", "round", "trunc", "odd")


def round_increment(mode: str, kept_odd, first_dropped, rest_dropped, negative):
    """Whether the kept part of a magnitude goes up by one unit of its last place (the one rule).

    ``kept_odd``: the last kept bit is 1; ``first_dropped``: the first dropped bit is 1;
    ``rest_dropped``: a later dropped bit is 1; ``negative``: the number's sign.  Python
    bools or numpy bool arrays (precision_conversion.md 表1, one line per mode).
    """
    inexact = np.logical_or(first_dropped, rest_dropped)
    if mode == "rint":  # the first dropped bit is 1 and (a later one is 1 or the kept part is odd)
        return np.logical_and(first_dropped, np.logical_or(rest_dropped, kept_odd))
    if mode == "round":  # the first dropped bit is 1
        return np.logical_or(first_dropped, False)
    if mode == "trunc":
        return np.logical_and(first_dropped, False)
    if mode == "floor":  # a negative number that lost something
        return np.logical_and(inexact, negative)
    if mode == "ceil":  # a positive number that lost something
        return np.logical_and(inexact, np.logical_not(negative))
    if mode == "odd":  # something was lost and the kept part is even
        return np.logical_and(inexact, np.logical_not(kept_odd))
    raise ValueError(f"unknown rounding mode {mode!r}")


def _overflows_to_infinity(mode: str, negative):
    """An overflow becomes infinity in the modes that round its magnitude up, else the largest finite value."""
    if mode in ("rint", "round"):
        return np.logical_or(negative, True)
    if mode == "floor":
        return np.logical_or(negative, False)
    if mode == "ceil":
        return np.logical_not(negative)
    return np.logical_and(negative, False)  # trunc, odd


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: sign, ``exponent_bits``, ``mantissa_bits`` (without the hidden bit).

    ``finite_only`` formats (float8_e4m3fn) have no infinity: their largest exponent holds
    normal numbers, and only the all-ones significand of it is NaN.
    """

    name: str
    exponent_bits: int
    mantissa_bits: int
    finite_only: bool = False

    @cached_attribute
    def bits(self) -> int:
        return 1 + self.exponent_bits + self.mantissa_bits

    @cached_attribute
    def bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @cached_attribute
    def emin(self) -> int:
        """Exponent of the smallest normal number (subnormals share it)."""
        return 1 - self.bias

    @cached_attribute
    def exponent_all_ones(self) -> int:
        return ((1 << self.exponent_bits) - 1) << self.mantissa_bits

    @cached_attribute
    def max_finite(self) -> int:
        """Bits of the largest finite value."""
        mantissa_ones = (1 << self.mantissa_bits) - 1
        if self.finite_only:
            return self.exponent_all_ones | (mantissa_ones - 1)
        return (self.exponent_all_ones - (1 << self.mantissa_bits)) | mantissa_ones

    @cached_attribute
    def overflow(self) -> int:
        """Bits a positive overflow becomes: infinity, or the largest finite value when there is none."""
        return self.max_finite if self.finite_only else self.exponent_all_ones

    @cached_attribute
    def quiet_nan(self) -> int:
        """The positive quiet NaN (top significand bit set; all ones where that is the only NaN)."""
        if self.finite_only:
            return self.exponent_all_ones | ((1 << self.mantissa_bits) - 1)
        return self.exponent_all_ones | (1 << (self.mantissa_bits - 1))

    @cached_attribute
    def sign_bit(self) -> int:
        return 1 << (self.bits - 1)


FLOAT_FORMATS: dict[str, FloatFormat] = {f.name: f for f in (
    FloatFormat("float16", 5, 10),
    FloatFormat("bfloat16", 8, 7),
    FloatFormat("float32", 8, 23),
    FloatFormat("float64", 11, 52),
    FloatFormat("float8_e5m2", 5, 2),
    FloatFormat("float8_e4m3fn", 4, 3, finite_only=True),
)}


def float_format(dtype: DType) -> FloatFormat:
    """The format of a float element type (``KeyError`` for a type that is not a float)."""
    return FLOAT_FORMATS[dtype.name]


# ------------------------------------------------------------------ scalars
def float_bits(value, dtype: DType, mode: str = "rint") -> int:
    """The bits of ``value`` narrowed to the float type ``dtype`` by the module's rule (``mode``: :data:`MODES`).

    ``value`` is a Python or numpy real number (``bool`` counts as 0 or 1) or a
    :class:`numbers.Rational`; anything else is a ``TypeError``.
    """
    fmt = float_format(dtype)
    if isinstance(value, np.generic) and value.dtype == dtype.np_dtype:
        return int(np.asarray(value).reshape(1).view(dtype.raw)[0])  # already the target type
    if type(value) is float and dtype.name == "float64":
        return int.from_bytes(struct.pack("<d", value), "little")  # a Python float is a double
    exact = _exact(value)
    if exact == "nan":
        return fmt.quiet_nan | (fmt.sign_bit if _sign_of_nan(value) else 0)
    sign, numerator, denominator = exact
    return (fmt.sign_bit if sign else 0) | _round_magnitude(numerator, denominator, fmt, mode, bool(sign))


def _exact(value):
    """``value`` as (sign, numerator, denominator) with numerator/denominator >= 0 its magnitude
    (``denominator == 0`` for infinity), or ``"nan"``."""
    if isinstance(value, (int, np.integer, numbers.Integral)):  # bool included (np.bool_ is below)
        integer = int(value)
        return (integer < 0, abs(integer), 1)
    if isinstance(value, np.floating) and value.dtype.itemsize > 8:  # a long double: not a double
        if np.isnan(value):
            return "nan"
        if np.isinf(value):
            return (bool(value < 0), 1, 0)
        numerator, denominator = value.as_integer_ratio()
        return (bool(np.signbit(value)), abs(numerator), denominator)
    if isinstance(value, numbers.Rational) and not isinstance(value, np.generic):
        return (value < 0, abs(value.numerator), value.denominator)
    if isinstance(value, (numbers.Real, np.floating, np.bool_)):
        double = float(value)  # exact: float16, bfloat16, float32 and float64 values are doubles
        if math.isnan(double):
            return "nan"
        negative = math.copysign(1.0, double) < 0
        if math.isinf(double):
            return (negative, 1, 0)
        numerator, denominator = abs(double).as_integer_ratio()
        return (negative, numerator, denominator)
    raise TypeError(f"expected a real number, got {type(value).__name__}")


def _sign_of_nan(value) -> bool:
    if isinstance(value, np.floating) and value.dtype.itemsize > 8:
        return bool(np.signbit(value))
    return math.copysign(1.0, float(value)) < 0


def _round_magnitude(numerator: int, denominator: int, fmt: FloatFormat, mode: str = "rint",
                     negative: bool = False) -> int:
    """Bits (sign clear) of the nonnegative ``numerator / denominator`` rounded to ``fmt`` (``negative``: its sign)."""
    if denominator == 0:
        return fmt.overflow  # infinity
    if numerator == 0:
        return 0
    # the binade: 2**lead <= numerator / denominator < 2**(lead + 1)
    lead = numerator.bit_length() - denominator.bit_length()
    if (numerator << max(-lead, 0)) < (denominator << max(lead, 0)):
        lead -= 1
    lead = max(lead, fmt.emin)  # below the normal range the spacing stays that of the smallest binade
    last = lead - fmt.mantissa_bits  # exponent of the last significand bit
    scaled, unit = (numerator, denominator << last) if last >= 0 else (numerator << -last, denominator)
    kept, rest = divmod(scaled, unit)  # kept units of the last place, and what is left of one
    if round_increment(mode, bool(kept & 1), 2 * rest >= unit, 2 * rest not in (0, unit), negative):
        kept += 1
    return _encode(lead + fmt.bias, kept, fmt, mode, negative)


def _encode(biased_lead, kept, fmt: FloatFormat, mode: str = "rint", negative=False):
    """Bits of ``kept * 2**(biased_lead - bias - mantissa_bits)``, clamped to the overflow value
    (infinity, or the largest finite value where ``mode`` rounds toward zero there).

    ``kept`` counts units of the last place with the hidden bit in place (``2**m <= kept <=
    2**(m+1)`` for normals; less for subnormals, whose binade is ``emin``), so exponent field
    and significand simply add up: a carry into the next binade, or from the subnormals into
    the normals, lands right.  Works on Python ints and on uint64 arrays alike.
    """
    if isinstance(kept, np.ndarray):
        u64 = np.uint64
        magnitude = (biased_lead << u64(fmt.mantissa_bits)) + kept - u64(1 << fmt.mantissa_bits)
        if mode == "rint":
            return np.where(magnitude > u64(fmt.max_finite), u64(fmt.overflow), magnitude)
        top = np.where(_overflows_to_infinity(mode, negative), u64(fmt.overflow), u64(fmt.max_finite))
        return np.where(magnitude > u64(fmt.max_finite), top, magnitude)
    magnitude = (biased_lead << fmt.mantissa_bits) + kept - (1 << fmt.mantissa_bits)
    if magnitude <= fmt.max_finite:
        return magnitude
    return fmt.overflow if _overflows_to_infinity(mode, negative) else fmt.max_finite


# ------------------------------------------------------------------ arrays
_DOUBLE_EXACT_INT = 1 << 53  # integers up to this magnitude are exact doubles


def float_array_bits(values: np.ndarray, dtype: DType, mode: str = "rint") -> np.ndarray:
    """The elements of a numeric array narrowed to the float type ``dtype``: raw bits, same shape
    (``mode``: :data:`MODES`).

    ``values`` may have any bool, integer or float dtype npusim knows (ml_dtypes types
    included), or ``object`` dtype holding Python numbers (big integers, Fractions); the result
    has dtype ``dtype.raw``.
    """
    fmt = float_format(dtype)
    values = np.asarray(values)
    shape = values.shape
    flat = values.reshape(-1)
    if values.dtype == dtype.np_dtype:
        return flat.view(dtype.raw).reshape(shape).copy()
    if values.dtype == object:
        return _one_by_one(flat, dtype, mode).reshape(shape)
    if values.dtype == np.float32 and mode == "rint" and dtype.np_dtype == _HALF:
        return _singles_to_half(flat, fmt).reshape(shape)  # half arithmetic results, Cast float32 -> half
    if values.dtype == np.float32 and fmt.mantissa_bits < 23 and fmt.emin >= -126 and mode == "rint":
        return _round_singles(flat.view(np.uint32), fmt).astype(dtype.raw).reshape(shape)  # arithmetic results
    doubles, inexact = _as_doubles(flat)
    bits = _round_doubles(doubles, fmt, mode)
    if inexact is not None and inexact.any():
        bits[inexact] = _one_by_one(flat[inexact], dtype, mode).astype(np.uint64)
    return bits.astype(dtype.raw).reshape(shape)


def narrowed_bits(values: np.ndarray, dtype: DType, mode: str = "rint") -> tuple[np.ndarray, bool]:
    """:func:`float_array_bits` of ``values`` and :func:`may_hold_special` of the result, together: for
    float32 -> half RINT (half arithmetic, Cast), the common case, the conversion's own look at the values (the
    range checks of :func:`_singles_to_half_special`) answers the second question without another reduction."""
    fmt = float_format(dtype)
    if values.dtype == _SINGLE and mode == "rint" and dtype.np_dtype == _HALF:
        bits, special = _singles_to_half_special(values.reshape(-1), fmt)
        bits = bits.reshape(values.shape)
        return bits, special if special is not None else may_hold_special(bits, fmt)
    bits = float_array_bits(values, dtype, mode)
    return bits, may_hold_special(bits, fmt)


def _one_by_one(values: np.ndarray, dtype: DType, mode: str = "rint") -> np.ndarray:
    """The scalar rule per element (iterating keeps numpy scalars, so a long double stays exact)."""
    return np.array([float_bits(v, dtype, mode) for v in values], dtype=dtype.raw).reshape(-1)


def _as_doubles(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``flat`` as float64, and a mask of the elements whose value a double does not hold exactly."""
    kind = flat.dtype.kind
    if kind == "b":
        return flat.astype(np.float64), None
    if kind in "iu":
        if flat.dtype.itemsize < 8:
            return flat.astype(np.float64), None
        if kind == "u":
            inexact = flat > np.uint64(_DOUBLE_EXACT_INT)
        else:
            inexact = (flat > np.int64(_DOUBLE_EXACT_INT)) | (flat < np.int64(-_DOUBLE_EXACT_INT))
        return np.where(inexact, 0, flat).astype(np.float64), inexact
    if kind == "f" and flat.dtype.itemsize > 8:  # long double
        return np.zeros(flat.size), np.ones(flat.size, dtype=bool)
    if kind == "f" and flat.dtype.itemsize >= 4:
        with np.errstate(invalid="ignore"):  # a signalling NaN; NaNs are redone by _round_doubles
            return flat.astype(np.float64), None  # float32 -> float64 widens exactly
    known = from_numpy(flat.dtype)
    if known is not None and known.is_float:  # float16, bfloat16, float8: decoded here, not by the library
        return _decode(flat.view(known.raw), float_format(known)), None
    raise TypeError(f"expected numbers, got an array of {flat.dtype}")


def _decode(raw: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Values of raw ``fmt`` bits as float64 (exact: every format here is narrower than a double)."""
    raw = raw.astype(np.int64)
    m = fmt.mantissa_bits
    exponent = (raw >> m) & ((1 << fmt.exponent_bits) - 1)
    mantissa = raw & ((1 << m) - 1)
    normal = exponent != 0
    significand = np.where(normal, mantissa | (1 << m), mantissa).astype(np.float64)
    magnitude = np.ldexp(significand, (np.where(normal, exponent, 1) - fmt.bias - m).astype(np.int32))
    field = raw & (fmt.sign_bit - 1)
    if fmt.finite_only:
        magnitude = np.where(field == fmt.quiet_nan, np.nan, magnitude)
    else:
        top = exponent == (1 << fmt.exponent_bits) - 1
        magnitude = np.where(top, np.where(mantissa == 0, np.inf, np.nan), magnitude)
    return np.where(raw & fmt.sign_bit != 0, -magnitude, magnitude)


def _round_doubles(doubles: np.ndarray, fmt: FloatFormat, mode: str = "rint") -> np.ndarray:
    """Bits (uint64) of each float64 of a 1-D array rounded to ``fmt``: :func:`_round_magnitude`
    done on the integer significands of the doubles.

    A finite double is ``significand * 2**(max(biased, 1) - 1075)``.  Its binade in the target,
    clamped to ``emin``, is ``max(biased - 1023, emin)``: a double subnormal lies below every
    target's normal range (float64 targets only ever receive narrower values).  The target's
    last place is never finer than the double's, so ``drop`` low bits go, 0 to 62 of them.
    """
    u64 = np.uint64
    raw = doubles.view(np.uint64)
    biased = ((raw >> u64(52)) & u64(0x7FF)).astype(np.int64)
    fraction = raw & u64((1 << 52) - 1)
    significand = fraction | (np.minimum(biased, 1).astype(np.uint64) << u64(52))
    lead = np.maximum(biased - 1023, fmt.emin)
    drop = np.clip(lead - fmt.mantissa_bits - np.maximum(biased, 1) + 1075, 0, 62).astype(np.uint64)
    negative = (raw >> u64(63)) != 0
    kept = _shift_rounded(significand << u64(1), drop + u64(1), mode, negative)  # a spare bit: the shift is >= 1
    bits = _encode((lead + fmt.bias).astype(np.uint64), kept, fmt, mode, negative)
    special = biased == 0x7FF
    if special.any():
        bits = np.where(special, np.where(fraction == 0, u64(fmt.overflow), u64(fmt.quiet_nan)), bits)
    return bits | ((raw >> u64(63)) * u64(fmt.sign_bit))


_HALF = np.dtype(np.float16)
_SINGLE = np.dtype(np.float32)


def _singles_to_half(single: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """:func:`_singles_to_half_special`'s bits."""
    return _singles_to_half_special(single, fmt)[0]


def _singles_to_half_special(single: np.ndarray, fmt: FloatFormat) -> tuple[np.ndarray, bool | None]:
    """Bits (uint16) of each float32 of a 1-D array rounded to nearest even half (IEEE 754's conversion:
    normal and subnormal results, ties to even, overflow to infinity), with every NaN made the canonical
    quiet NaN of its sign, as :func:`_round_singles` gives it; and whether a result is a NaN or an infinity
    when the route taken found out on the way (``None``: not known).

    Three routes, all giving those bits (numpy's and the slow elements' checked against :func:`_round_singles`
    for every one of the 2**32 float32 bit patterns, the integer route for every one below 65520, both signs;
    tests/test_half_conversion_routes.py):

    * **numpy's own conversion** (``astype``, about 2 ns an element), for short arrays and whatever the
      other two leave.  numpy raises the underflow or overflow flag element by element, which makes it some
      hundred times slower for an element whose result overflows or is an inexact subnormal (about 0.25 µs
      each: 10240 values near 1e-5 took 1.3 ms instead of 18 µs).
    * **integer rounding** (:func:`_integer_singles_to_half`) of an array of :data:`_INTEGER_ROUTE` elements or
      more whose magnitudes are all below 65520 (one maximum says so: no infinity, NaN or overflow, so no
      result is special): a dozen passes of integer arithmetic that numpy runs faster than its conversion loop
      for the normal results, and the few below 2**-14 (zeros, subnormal results; one minimum says whether
      there is any) rounded as the slow elements below are.
    * **the slow elements rounded here**: in an array of :data:`_SAMPLED` elements or more (off the integer
      route: with an infinity, a NaN or an overflow), one element in :data:`_SAMPLE_STEP` is looked at: when
      none of those is such an element, numpy converts the array (what the sample missed is rare, and costs
      numpy its 0.25 µs each: the result is the same); else such elements are found and rounded here: an
      overflow is infinity, a magnitude below 2**-14 by :func:`_small_halves`.  A smaller array is converted by
      numpy at once: looking would cost more than what it could save, at most ``_SAMPLED`` slow elements."""
    if single.size < _SAMPLED:
        return _numpy_singles_to_half(single, fmt)
    magnitude = None
    if single.size >= _INTEGER_ROUTE:
        magnitude = single.view(np.uint32) & np.uint32(0x7FFFFFFF)
        if int(np.maximum.reduce(magnitude)) < _HALF_OVERFLOW:  # no infinity, NaN or overflow: none is special
            return _integer_singles_to_half(single, magnitude), False
    if not _numpy_may_be_slow(single[::_SAMPLE_STEP]):
        return _numpy_singles_to_half(single, fmt)
    if magnitude is None:
        magnitude = single.view(np.uint32) & np.uint32(0x7FFFFFFF)
    tiny = (magnitude < np.uint32(_HALF_NORMAL_LOW)) & (magnitude != 0)
    slow = tiny | ((magnitude >= np.uint32(_HALF_OVERFLOW)) & (magnitude < np.uint32(0x7F800000)))
    if not np.logical_or.reduce(slow, axis=None):
        return _numpy_singles_to_half(single, fmt)
    bits = np.empty(single.shape, np.uint16)
    fast = ~slow
    bits[fast] = _numpy_singles_to_half(single[fast], fmt)[0]
    slow_values = single[slow]
    sign = (slow_values.view(np.uint32) >> np.uint32(16)).astype(np.uint16) & np.uint16(fmt.sign_bit)
    rounded = np.full(slow_values.shape, np.uint16(fmt.overflow))
    rounded[tiny[slow]] = _small_halves(slow_values[tiny[slow]])
    bits[slow] = rounded | sign
    return bits, None


def _small_halves(single: np.ndarray) -> np.ndarray:
    """The half bits of float32 values of magnitude below 2**-14 (zeros included): scaled by 2**24 (exactly: a
    power of two), the magnitude rounded to an integer (ties to even) is the count of 2**-24 units, the
    subnormal's bits (1024 of them: the smallest normal), and the sign is float32's."""
    units = np.rint(np.abs(single) * np.float32(2**24)).astype(np.uint16)
    return units | ((single.view(np.uint32) >> np.uint32(16)).astype(np.uint16) & np.uint16(0x8000))


def _integer_singles_to_half(single: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """The half bits of float32 ``single`` (1-D) whose magnitudes' bits ``magnitude`` (uint32, overwritten) are
    all below 65520: :func:`_normal_singles_to_half`, then the elements below 2**-14 (zeros, subnormal results;
    one minimum says whether there is any) replaced by :func:`_small_halves`."""
    small = None
    if int(np.minimum.reduce(magnitude)) < _HALF_NORMAL_LOW:
        small = np.flatnonzero(magnitude < np.uint32(_HALF_NORMAL_LOW))
    bits = _normal_singles_to_half(single, magnitude)  # meaningless at ``small``
    if small is not None:
        bits[small] = _small_halves(single[small])
    return bits


def _numpy_may_be_slow(single: np.ndarray) -> bool:
    """Whether some float32 lies where numpy's conversion to half is slow, or is infinite or NaN (rare; then
    :func:`_singles_to_half_special` looks element by element): a non-zero magnitude below 2**-14 (``m - 1``
    wraps a zero to the top, so one minimum finds one), or one from 65520 on (one maximum)."""
    magnitude = single.view(np.uint32) & np.uint32(0x7FFFFFFF)
    return int(np.minimum.reduce(magnitude - np.uint32(1), axis=None)) < _HALF_NORMAL_LOW - 1 or \
        int(np.maximum.reduce(magnitude, axis=None)) >= _HALF_OVERFLOW


def _numpy_singles_to_half(single: np.ndarray, fmt: FloatFormat) -> tuple[np.ndarray, bool]:
    """numpy's float32 -> half conversion as bits, every NaN the canonical quiet NaN of its sign, and whether
    a result is a NaN or an infinity (the largest magnitude among them, which the NaN check finds anyway)."""
    with np.errstate(all="ignore"):  # the cast's flags: the result is the rounding
        bits = single.astype(_HALF).view(np.uint16)
    top = int(np.maximum.reduce(bits & np.uint16(0x7FFF))) if bits.size else 0
    if top > fmt.overflow:  # a NaN
        bits = np.where((bits & np.uint16(0x7FFF)) > fmt.overflow,
                        (bits & np.uint16(fmt.sign_bit)) | np.uint16(fmt.quiet_nan), bits)
    return bits, top >= fmt.overflow


def _normal_singles_to_half(single: np.ndarray, magnitude: np.ndarray) -> np.ndarray:
    """The half bits (uint16), to nearest even, of float32 ``single`` (1-D) whose magnitudes' bits
    ``magnitude`` (uint32, overwritten) are each in [2**-14, 65520) (others give meaningless bits): integer
    rounding, as :func:`_round_singles`' normal path.  Moving float32's exponent bias to half's (``- 112 << 23``)
    leaves the half's exponent and 10 fraction bits above 13 dropped ones, bits 13 to 27 at most; adding
    ``0xFFF`` plus the last kept bit and shifting right by 13 rounds them to nearest even (a carry into the
    exponent is the next binade; 65520 and above, which would carry to infinity, are not given; no carry reaches
    bit 28).  The sign, added as bit 28 (the sums are modulo 2**32 and the result's magnitude lies below it),
    lands in the half's bit 15."""
    sign = single.view(np.uint32) >> _U32(3)
    sign &= _U32(1 << 28)
    magnitude += sign  # an add, not an OR: before the bias moves, the exponent may use bit 28
    odd = np.right_shift(magnitude, _U32(13), out=sign)
    odd &= _U32(1)
    magnitude += odd
    magnitude += _TO_HALF_BIAS_AND_ROUNDING
    magnitude >>= _U32(13)
    return magnitude.astype(np.uint16)


def normal_halves(values: np.ndarray) -> np.ndarray:
    """The half bits (uint16), to nearest even, of float32 ``values`` (any shape) each of magnitude below 65520
    (NaN and infinity excluded): :func:`_integer_singles_to_half`, which numpy runs faster than its own float ->
    half conversion on long arrays (from some 4096 elements)."""
    flat = values.reshape(-1)
    return _integer_singles_to_half(flat, flat.view(np.uint32) & _U32(0x7FFFFFFF)).reshape(values.shape)


# float32 magnitudes (as bits) where numpy's float32 -> half conversion is fast: zero, infinity and NaN, and
# [2**-14, 65520), the half normal range up to the first value that rounds to infinity
_HALF_NORMAL_LOW = 0x38800000  # 2**-14
_HALF_OVERFLOW = 0x477FF000  # 65520 = 65504 + half an ulp: rounds (ties to even) to infinity
_SAMPLE_STEP = 64  # one element in 64 sampled: 10240 elements look at 160
_SAMPLED = 4 * _SAMPLE_STEP
_INTEGER_ROUTE = 4096  # from here on the integer rounding is the quicker (its dozen numpy calls cost some 7 µs)
_U32 = np.uint32
_TO_HALF_BIAS_AND_ROUNDING = _U32((0xFFF - (112 << 23)) % (1 << 32))  # float32's exponent bias moved to half's, + 0xFFF


def _round_singles(single: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Bits (uint32) of each float32 (as uint32 bits, 1-D) rounded to a narrower ``fmt``.

    The float32 fast path of :func:`_round_doubles` (the arithmetic of half and bfloat16 is
    computed in float32): where the result is a normal number of ``fmt``, rebiasing the
    exponent and shifting out a fixed number of significand bits, rounding to nearest even,
    is the whole conversion; the rarer results below ``fmt``'s normal range shift out more.
    """
    u32 = np.uint32
    m = fmt.mantissa_bits
    drop = 23 - m
    magnitude = single & u32(0x7FFFFFFF)
    rebiased = magnitude - u32((127 - fmt.bias) << 23)  # meaningless (wrapped) below the normal range
    bits = _shift_to_nearest_even(rebiased, u32(drop))
    smallest_normal = (fmt.emin + 127) << 23
    # one reduction, not a comparison and an any(), decides whether the rarer paths run (every call does this)
    if magnitude.size and int(magnitude.min()) < smallest_normal:
        below = magnitude < u32(smallest_normal)
        small = magnitude[below]
        exponent = (small >> u32(23)).astype(np.int64)
        significand = (small & u32(0x7FFFFF)) | (np.minimum(exponent, 1).astype(np.uint32) << u32(23))
        shift = np.minimum(drop + fmt.emin + 127 - np.maximum(exponent, 1), 31).astype(np.uint32)
        bits[below] = _shift_to_nearest_even(significand, shift)
    # beyond the largest finite value: the overflow bits, which are max_finite + 1 (infinity) or max_finite
    bits = np.minimum(bits, u32(fmt.overflow))
    if magnitude.size and int(magnitude.max()) > 0x7F800000:  # a NaN
        bits = np.where(magnitude > u32(0x7F800000), u32(fmt.quiet_nan), bits)
    return bits | ((single >> u32(31)) << u32(fmt.bits - 1))


def _shift_rounded(x: np.ndarray, shift, mode: str, negative) -> np.ndarray:
    """``x / 2**shift`` rounded by ``mode`` (:func:`round_increment`), for unsigned arrays and shifts >= 1."""
    if mode == "rint":
        return _shift_to_nearest_even(x, shift)
    one = x.dtype.type(1)
    kept = x >> shift
    dropped = x & ((one << shift) - one)
    half = one << (shift - one)
    up = round_increment(mode, (kept & one) != 0, dropped >= half, (dropped & (half - one)) != 0, negative)
    return kept + up.astype(x.dtype)


def _shift_to_nearest_even(x: np.ndarray, shift) -> np.ndarray:
    """``x / 2**shift`` rounded to nearest even, for unsigned arrays and shifts >= 1 (no overflow):
    add just under half a unit, plus the bit that becomes the last one, and shift."""
    one = x.dtype.type(1)
    return (x + ((one << (shift - one)) - one) + ((x >> shift) & one)) >> shift


# ------------------------------------------------------------------ NaN and infinite results
def may_hold_special(bits: np.ndarray, fmt: FloatFormat) -> bool:
    """Whether raw ``fmt`` bits may hold a NaN or an infinity: a NaN or infinite result has a magnitude at
    least infinity's, so one reduction clears the usual array (a format without infinity always may)."""
    if fmt.finite_only:
        return True
    # the ufunc's own reduce: ndarray.max() adds a Python-level wrapper to every call
    return bool(bits.size) and int(np.maximum.reduce(bits & bits.dtype.type(fmt.sign_bit - 1), axis=None)) \
        >= fmt.overflow


def special_results(bits: np.ndarray, nan: np.ndarray, fmt: FloatFormat, saturate: bool) -> np.ndarray:
    """Raw result bits with the products' NaN and infinity rules applied (docs/numerics.md): the lanes
    ``nan`` become the canonical quiet NaN, or +0 under saturation (CTRL[48]: "inf输出会被饱和为±MAX，
    NaN输出会被饱和为0"), where an infinite result also becomes ±MAX."""
    raw = bits.dtype.type
    any_nan = bool(np.logical_or.reduce(nan, axis=None))  # the ufunc's reduce: ndarray.any() wraps it in Python
    if saturate:
        if may_hold_special(bits, fmt):  # one reduction clears the usual array of infinities
            sign = bits & raw(fmt.sign_bit)
            inf = (bits ^ sign) == raw(fmt.overflow)  # includes finite results that overflowed to infinity
            if inf.any():
                bits = np.where(inf, sign | raw(fmt.max_finite), bits)
        return np.where(nan, raw(0), bits).astype(bits.dtype, copy=False) if any_nan else bits
    return np.where(nan, raw(fmt.quiet_nan), bits).astype(bits.dtype, copy=False) if any_nan else bits


# ------------------------------------------------------------------ integral values
def integral_array(values: np.ndarray, mode: str = "rint") -> np.ndarray:
    """Each element of a float array rounded to an integral value by ``mode``, exact, in the
    array's own float type (float64 for an integer array).

    The same decision as every narrowing (:func:`round_increment`), with the last kept place
    the units: ``-1.5`` gives ``-2`` (rint, round, floor), ``-1`` (ceil, trunc, odd).  A zero
    result keeps the input's sign; NaN and infinities are returned as they are.  ``values``:
    any float dtype npusim knows (float16, bfloat16, float32, float64, float8).

    Exact in the input's type: an integral value nearest a p-bit float is itself a p-bit float,
    and numpy's ``rint``/``floor``/``ceil``/``trunc`` round without error.  ``round`` (ties away)
    and ``odd`` decide from the fraction ``x - trunc(x)``, which is exact too.
    """
    values = np.asarray(values)
    if values.dtype in _NATIVE_FLOATS:
        return _integral(values, mode)
    known = from_numpy(values.dtype)
    doubles = _as_doubles(values.reshape(-1))[0].reshape(values.shape)  # bfloat16, float8: widened exactly
    integral = _integral(doubles, mode)
    return integral.astype(values.dtype) if known is not None and known.is_float else integral


def _integral(x: np.ndarray, mode: str) -> np.ndarray:
    """:func:`integral_array` of a float16/32/64 array, in its type."""
    with np.errstate(invalid="ignore"):
        if mode in _NUMPY_ROUNDING:
            return _NUMPY_ROUNDING[mode](x)
        whole = np.trunc(x)
        if mode == "round":  # away from zero when the fraction is at least a half
            up = np.abs(x - whole) >= x.dtype.type(0.5)
        elif mode == "odd":  # away from zero when something is lost and the integer is even
            up = (x != whole) & np.isfinite(x) & (np.fmod(whole, 2) == 0)
        else:
            raise ValueError(f"unknown rounding mode {mode!r}")
        step = np.where(up, x.dtype.type(1), x.dtype.type(0))
        return np.copysign(np.abs(whole) + step, x)  # the sign of a zero result survives


_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_NUMPY_ROUNDING = {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}
