"""The routes the compound and arith float rows take for speed (docs/performance.md, "Compound and ternary rows"):
each route sent data that goes down it, every byte against the per-lane references (``elementwise_reference``,
``isasi_reference``, which share no code with npusim), and the route's outcome recorded, so that a broken route
fails a test and a route no test reaches shows.

* float32 AddRelu / SubRelu (the A2's mask forms), AbsSub / Prelu (the 950's count form), ``ops/float32_lanes``:
  finite data, which the route computes (into dst's view, or a new array when dst is a source, or the strided and
  masked operands' buffers), and data with NaN, infinities and overflowing sums, for which it gives up and
  ``arith.compute`` runs the call.  Both carry -0, subnormals, signed zeros' sums and differences, and values near
  the largest float.
* the half -> float widening of MulAddDst / Axpy's mixed form (``mixed_multiply_add.floats_of_halves``, from 2048
  lanes): every finite half against the reference's decoding, and calls with and without infinite and NaN halves.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.ops import float32_lanes
from npusim.ascend.ops.mixed_multiply_add import MANY_HALVES, floats_of_halves

from . import elementwise_reference as eref
from . import isasi_reference as iref
from . import reference_model as ref

V, O = asc.TPosition.VECIN, asc.TPosition.VECOUT
FINITE_EDGES = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000,
                0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0xFF000000, 0x33800000, 0xB3800000]
SPECIAL_EDGES = [0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7F7FFFFF, 0x7F7FFFFF]


def _finite(count: int, seed: int, top: int = 253) -> np.ndarray:
    """float32 bit patterns: values of exponent fields 0 (subnormals and zeros) to ``top - 1`` (253: below 2**126,
    so no sum or difference overflows; 188: no product does), and the edges."""
    rng = np.random.default_rng(seed)
    exponents = rng.integers(0, top, count).astype(np.uint32)
    bits = (rng.integers(0, 2, count).astype(np.uint32) << 31) | (exponents << 23) | \
        rng.integers(0, 1 << 23, count).astype(np.uint32)
    bits[: len(FINITE_EDGES)] = FINITE_EDGES
    bits[len(FINITE_EDGES): 2 * len(FINITE_EDGES)] = FINITE_EDGES[::-1]
    return bits


def _pair(count: int, seed: int, special: bool, top: int = 253) -> tuple[np.ndarray, np.ndarray]:
    """Two sources: :func:`_finite` lanes, every 7th of the second the first's negation and the next the same
    (x + -x, x - x: zeros of both signs); ``special``: also infinities, NaNs and sums that overflow."""
    a, b = _finite(count, seed, top), _finite(count, seed + 1, top)
    if top < 253:  # no product may overflow: the edges near the largest float go
        a[np.isin(a, [0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0xFF000000])] = 0x3F800000
        b[np.isin(b, [0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0xFF000000])] = 0x3F800000
    b[: 2 * len(FINITE_EDGES)] = [FINITE_EDGES[i % 10] for i in range(2 * len(FINITE_EDGES))]  # the largest's partners
    b[32::7] = a[32::7] ^ np.uint32(0x80000000)
    b[33::7] = a[33::7]
    if special:
        a[40: 40 + len(SPECIAL_EDGES)] = SPECIAL_EDGES
        b[44: 44 + len(SPECIAL_EDGES)] = SPECIAL_EDGES  # inf - inf, NaN + inf, MAX + MAX (overflow) ...
        a[100:110], b[100:110] = 0x7F7FFFFF, 0x7F700000  # sums overflow to infinity
    return a, b


@pytest.fixture
def recorded(monkeypatch):
    """Each route call's (got an output array, computed the lanes) while the test runs."""
    calls = []
    for name, bind in list(float32_lanes.ROUTES.items()):
        def spy_bind(a, b, out, bind=bind):
            route = bind(a, b, out)
            if route is None:
                return None

            def spy():
                bits = route()
                calls.append((out is not None, bits is not None))
                return bits
            return spy
        monkeypatch.setitem(float32_lanes.ROUTES, name, spy_bind)
    return calls


def _write(core, addr: int, bits: np.ndarray, size: int, blk: int, rep: int, lanes: int) -> None:
    for i, value in enumerate(bits.tolist()):
        core.ub_write(ref.lane_address(addr, i // lanes, i % lanes, size, blk, rep),
                      int(value).to_bytes(size, "little"))


SRC_AT, DST_AT = [0x0000, 0x6000], 0xA020  # src0 and dst take 0x5000 bytes with a repeat stride of 16
MASK_LAYOUTS = {  # name: (mask, strides (dst, src0, src1), in place)
    "dense": (64, [(1, 8), (1, 8), (1, 8)], False),
    "in place": (64, [(1, 8), (1, 8), (1, 8)], True),
    "strided": (64, [(2, 16), (2, 16), (1, 8)], False),
    "masked": ([0xF0F0_0000_FFFF_0001, 0], [(1, 8), (1, 8), (1, 8)], False),
}


@pytest.mark.parametrize("special", [False, True], ids=["finite", "special"])
@pytest.mark.parametrize("layout", list(MASK_LAYOUTS))
@pytest.mark.parametrize("name", ["add_relu", "sub_relu"])
def test_relu_of_sum_routes_match_the_reference(recorded, name, layout, special):
    mask, strides, in_place = MASK_LAYOUTS[layout]
    repeats, lanes = 40, 64
    a, b = _pair(repeats * lanes, 7, special)
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x10000))
        _write(core, SRC_AT[0], a, 4, *strides[1], lanes)
        _write(core, SRC_AT[1], b, 4, *strides[2], lanes)
        image = bytearray(core.ub_read(0, 0x10000))
        dst = asc.LocalTensor(asc.float32, O, DST_AT, 0x1400)
        src0, src1 = (asc.LocalTensor(asc.float32, V, at, 0x1400) for at in SRC_AT)
        params = asc.BinaryRepeatParams(*(s[0] for s in strides), *(s[1] for s in strides))
        getattr(asc, name)(src0 if in_place else dst, src0, src1, mask, repeats, params)
        got = core.ub_read(0, 0x10000)
    chosen = ref.active_lanes_normal(mask, 4) if isinstance(mask, list) else list(range(lanes))
    eref.elementwise(image, name, "float32", SRC_AT[0] if in_place else DST_AT, SRC_AT, None, repeats,
                     lambda r: chosen, strides)
    assert got == bytes(image)
    # dst's view, or the buffer of a strided or masked dst; a new array when dst is src0
    assert recorded == [(not in_place, not special)]


@pytest.mark.parametrize("special", [False, True], ids=["finite", "special"])
@pytest.mark.parametrize("in_place", [False, True], ids=["dst apart", "dst is src0"])
@pytest.mark.parametrize("count", [64 * 48, 64 * 48 - 13])
@pytest.mark.parametrize("name", ["abs_sub", "prelu"])
def test_count_form_routes_match_the_reference(recorded, name, count, in_place, special):
    a, b = _pair(count, 11, special, 188 if name == "prelu" else 253)
    with asc.Core("950") as core:
        core.ub_write(0, bytes(0x10000))
        core.ub_write(0x0000, a.astype("<u4").tobytes())
        core.ub_write(0x4000, b.astype("<u4").tobytes())
        image = bytearray(core.ub_read(0, 0x10000))
        src0, src1 = (asc.LocalTensor(asc.float32, V, at, 0x1000) for at in (0x0000, 0x4000))
        dst = src0 if in_place else asc.LocalTensor(asc.float32, O, 0x8000, 0x1000)
        getattr(asc, name)(dst, src0, src1, count)
        got = core.ub_read(0, 0x10000)
    lane = iref.prelu_bits if name == "prelu" else iref.abs_sub_bits
    at = 0x0000 if in_place else 0x8000
    for i in range(count):
        ref.store(image, at + 4 * i, 4, lane("float32", int(a[i]), int(b[i]), False))
    assert got == bytes(image)
    # the tail of a count that is no multiple of 64 is a masked repeat: the route computes into dst's buffer
    assert recorded == [(count % 64 != 0 or not in_place, not special)]


def test_a_short_prelu_takes_no_route(recorded):
    """Below PRELU_LANES lanes (its repeats') Prelu runs by arith.compute (np.where is the quicker there)."""
    count = float32_lanes.PRELU_LANES - 65  # the lanes of 15 repeats, the last masked
    a, b = _pair(count, 13, False, 188)
    with asc.Core("950") as core:
        core.ub_write(0, bytes(0x10000))
        core.ub_write(0x0000, a.astype("<u4").tobytes())
        core.ub_write(0x4000, b.astype("<u4").tobytes())
        image = bytearray(core.ub_read(0, 0x10000))
        src0, src1 = (asc.LocalTensor(asc.float32, V, at, 0x1000) for at in (0x0000, 0x4000))
        asc.prelu(asc.LocalTensor(asc.float32, O, 0x8000, 0x1000), src0, src1, count)
        got = core.ub_read(0, 0x10000)
    for i in range(count):
        ref.store(image, 0x8000 + 4 * i, 4, iref.prelu_bits("float32", int(a[i]), int(b[i]), False))
    assert got == bytes(image)
    assert recorded == []


def test_every_finite_half_widens_to_its_value():
    """floats_of_halves against the reference's decoding of every finite half (and None with an inf or NaN)."""
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    finite = halves[(halves & 0x7C00) != 0x7C00]
    got = floats_of_halves(finite)
    expected = [ref.encode(ref.decode(int(h), "float16"), "float32") for h in finite.tolist()]
    assert got.tolist() == expected
    for special in (0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFFFF):
        with_one = finite.copy()
        with_one[1234] = special
        assert floats_of_halves(with_one) is None


@pytest.mark.parametrize("special", [False, True], ids=["finite", "special"])
@pytest.mark.parametrize("name", ["mul_add_dst", "axpy"])
def test_mixed_form_from_many_lanes_matches_the_reference(name, special):
    """The mixed form's count form of MANY_HALVES + 40 lanes (widened by floats_of_halves, or with an infinite or
    NaN half by numpy's cast) against the per-lane reference."""
    count = MANY_HALVES + 40
    rng = np.random.default_rng(5)
    halves = [rng.integers(0, 1 << 16, count).astype(np.uint16) for _ in range(2)]
    for h in halves:
        h[(h & 0x7C00) == 0x7C00] &= 0xBFFF  # finite: the exponent field below 31
        h[:6] = [0x0000, 0x8000, 0x0001, 0x83FF, 0x7BFF, 0xFBFF]
    if special:
        halves[0][50:54] = [0x7C00, 0xFC00, 0x7E00, 0xFE01]
    old = _finite(count, 9)
    old[:4] = [0x80000000, 0x00000000, 0x7F7FFFFF, 0xFF7FFFFF]
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x10000))
        core.ub_write(0x0000, halves[0].astype("<u2").tobytes())
        core.ub_write(0x2000, halves[1].astype("<u2").tobytes())
        core.ub_write(0x4000, old.astype("<u4").tobytes())
        image = bytearray(core.ub_read(0, 0x10000))
        x, y = (asc.LocalTensor(asc.float16, V, at, 0x1000) for at in (0x0000, 0x2000))
        dst = asc.LocalTensor(asc.float32, O, 0x4000, 0x1000)
        if name == "axpy":
            asc.axpy(dst, x, 1.5, count)
        else:
            asc.mul_add_dst(dst, x, y, count)
        got = core.ub_read(0, 0x10000)
    scalar = 0x3E00  # 1.5 as a half
    for i in range(count):
        operands = [int(halves[0][i])] + ([] if name == "axpy" else [int(halves[1][i])]) + [int(old[i])]
        if name == "axpy":
            operands.append(scalar)
        ref.store(image, 0x4000 + 4 * i, 4, eref.mixed_multiply_add_bits(name, operands))
    assert got == bytes(image)
