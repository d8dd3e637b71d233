"""Property tests: npusim against the per-element reference model (tests/sophgo/reference_model.py).

Cases are random but derandomised (fixed examples in CI).  Each checks every byte of every
dst window - all lanes, padding and guard bands - against the sentinel with the model's
values written at the model's own layout positions, so layout, padding and semantics are
all checked without the cmodel.  A fuzz test feeds bad parameters: the only outcomes allowed
are success or a ConstraintError with local memory unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from npusim import sophgo as tpu
from npusim.errors import ConstraintError
from npusim.sophgo.ops.fused_compare import compare, flush_chosen

from . import reference_model as ref
from .oracle_replay import MIN_MAX, call, dst_dtypes, dst_window, sentinel, setup

FUNCS = ("greater_select", "less_select", "equal_select", *MIN_MAX)
SPECIALS = {  # the §4.4 values plus the largest subnormal and smallest normal
    5: [0x0, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
        0x7F800001, 0x7FFFFFFF, 0x1, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x007FFFFF, 0x80800000],
    3: [0x0, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0xFE00,
        0x7C01, 0x7FFF, 0x1, 0x8001, 0x7BFF, 0xFBFF, 0x03FF, 0x8400],
    11: [0x0, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0,
         0x7F81, 0x7FFF, 0x1, 0x8001, 0x7F7F, 0xFF7F, 0x007F, 0x8080],
    15: [0x00, 0x80, 0x3C, 0xBC, 0x7C, 0xFC, 0x7E, 0xFE, 0x7D, 0x7F, 0x01, 0x81, 0x7B, 0xFB, 0x03, 0x84],  # e5m2
    47: [0x00, 0x80, 0x38, 0xB8, 0x78, 0xF8, 0x7F, 0xFF, 0x77, 0x7E, 0x01, 0x81, 0xFE, 0x07, 0x87, 0x08],  # e4m3fn
}  # fmt: skip
SETTINGS = settings(
    max_examples=120, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _values(rng: np.random.Generator, code: int, count: int, like: list[int] | None) -> list[int]:
    """Raw bits: specials / small ints, random patterns, and copies of ``like`` (equal pairs)."""
    bits = ref.DTYPES[code][0]
    out = rng.integers(0, 1 << bits, size=count, dtype=np.uint64)
    pool = np.array(SPECIALS.get(code, [0, 1, 2, (1 << bits) - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1]))
    out = np.where(rng.random(count) < 0.5, pool[rng.integers(0, len(pool), count)], out)
    if like is not None:
        out = np.where(rng.random(count) < 0.3, np.array(like, dtype=np.uint64), out)
    return [int(v) for v in out]


def _shapes(npu: int, eu_bytes: int) -> st.SearchStrategy[list[int]]:
    """Many channels (C around NPU_NUM, short rows), or a few long rows: H*W beyond EU_NUM even for
    8-bit types (up to 3 EU rows), so the c stride pads the last row of every channel."""
    many_channels = st.tuples(st.integers(1, 2), st.sampled_from([1, npu, npu + 1]) | st.integers(1, npu + 6),
                              st.integers(1, 3), st.integers(1, 5))
    long_rows = st.integers(1, 3).flatmap(
        lambda h: st.tuples(st.integers(1, 2), st.integers(1, 4), st.just(h),
                            st.integers(eu_bytes // h + 1, 3 * eu_bytes // h)))
    return st.one_of(many_channels, long_rows).map(list)


@st.composite
def select_cases(draw):
    """A legal case in the oracle fixture format (see tools/sophgo_cmodel_oracle.py)."""
    chip = draw(st.sampled_from(sorted(ref.CHIPS)))
    npu, lms, eu = ref.CHIPS[chip]
    func = draw(st.sampled_from(FUNCS))
    cmp_dt, val_dt = draw(st.sampled_from(ref.legal_pairs(func, chip)))
    lane = draw(st.sampled_from([0, npu - 1, npu // 2]) | st.integers(0, npu - 1))
    shape = draw(_shapes(npu, eu))
    kinds = [draw(st.sampled_from(["TENSOR", "VECTOR", "SCALAR"])) for _ in range(2)]
    kinds += [draw(st.sampled_from(["TENSOR", "SCALAR"])) for _ in range(2)]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    base = lane * lms
    jitter = lambda: eu * draw(st.integers(0, 3))  # noqa: E731
    dst = [base + 0x1000 * k + jitter() for k in range(2 if func in MIN_MAX else 1)]
    srcs, previous = [], None
    for k, (kind, dt) in enumerate(zip(kinds, [cmp_dt, cmp_dt, val_dt, val_dt], strict=True)):
        size = ref.DTYPES[dt][0] // 8
        if kind == "SCALAR":
            garbage = int(rng.integers(0, 1 << (32 - 8 * size))) << (8 * size) if size < 4 else 0
            srcs.append({"kind": kind, "u32": garbage | _values(rng, dt, 1, None)[0]})
            previous = None
            continue
        count = int(np.prod(shape)) if kind == "TENSOR" else min(shape[1], npu)
        like = previous if k == 1 and previous is not None and len(previous) == count else None
        values = _values(rng, dt, count, like)
        addr = base + 0x1000 * (2 + k) + (jitter() if kind == "TENSOR" else size * draw(st.integers(0, 15)))
        srcs.append({"kind": kind, "addr": addr, "data": np.array(values, dtype=f"<u{size}").tobytes().hex()})
        previous = values
    if kinds[0] == "TENSOR" and ref.DTYPES[cmp_dt][0] == ref.DTYPES[dst_dtypes({"func": func, "dtypes": [
            cmp_dt, val_dt]})[0]][0] and draw(st.booleans()):  # fmt: skip
        srcs[0]["addr"] = dst[0]  # in place
    return {"id": "property", "chip": chip, "func": func, "shape": shape, "dtypes": [cmp_dt, val_dt],
            "dst": dst, "src": srcs}  # fmt: skip


def _expected_windows(case: dict) -> list[bytes]:
    """Sentinel windows with the reference model's values at the reference layout's positions."""
    chip, shape = case["chip"], case["shape"]
    npu = ref.CHIPS[chip][0]
    operands = []
    for src, dt in zip(case["src"], [*[case["dtypes"][0]] * 2, *[case["dtypes"][1]] * 2], strict=True):
        if src["kind"] == "SCALAR":
            operands.append(ref.Operand("SCALAR", u32=src["u32"]))
        else:
            size = ref.DTYPES[dt][0] // 8
            raw = bytes.fromhex(src["data"])
            values = [int.from_bytes(raw[i : i + size], "little") for i in range(0, len(raw), size)]
            operands.append(ref.Operand(src["kind"], src["addr"], values))
    results = ref.select(chip, case["func"], shape, *case["dtypes"], operands)
    windows = []
    for addr, dt, values in zip(case["dst"], dst_dtypes(case), results, strict=True):
        size = ref.DTYPES[dt][0] // 8
        lo, hi = dst_window(chip, addr, shape, size)
        lanes = [bytearray(sentinel(lane, lo, hi)) for lane in range(npu)]
        i = 0
        for n in range(shape[0]):
            for c in range(shape[1]):
                for h in range(shape[2]):
                    for w in range(shape[3]):
                        lane, off = ref.aligned_location(chip, addr, shape, size, n, c, h, w)
                        lanes[lane][off - lo : off - lo + size] = values[i].to_bytes(size, "little")
                        i += 1
        windows.append(b"".join(lanes))
    return windows


@SETTINGS
@given(select_cases())
def test_select_matches_the_per_element_model_byte_for_byte(case):
    expected = _expected_windows(case)
    with tpu.Core(case["chip"]) as core:
        windows = setup(core, case)
        call(case)
        for k, (lo, hi) in enumerate(windows):
            got = b"".join(core.local_bytes(lane, lo, hi - lo) for lane in range(core.chip.npu_num))
            if got != expected[k]:
                first = next(i for i in range(len(got)) if got[i] != expected[k][i])
                lane, offset = divmod(first, hi - lo)
                raise AssertionError(
                    f"dst{k} differs at lane {lane} offset {lo + offset:#x}: "
                    f"got {got[first]:#04x}, model {expected[k][first]:#04x}"
                )


@pytest.mark.parametrize("chip", sorted(ref.CHIPS))
def test_the_cases_reach_channels_of_several_eu_rows(chip):
    """H*W beyond the 8-bit EU_NUM (= EU bytes), with an FP8 or 8-bit compare where the chip has one:
    the multi-row c-stride padding is part of what the property test checks."""
    eu_bytes = ref.CHIPS[chip][2]
    case = find(select_cases(), lambda c: c["chip"] == chip and c["shape"][2] * c["shape"][3] > 2 * eu_bytes
                and ref.DTYPES[c["dtypes"][0]][0] == 8, settings=settings(database=None, max_examples=2000))
    assert case["shape"][2] * case["shape"][3] > 2 * eu_bytes


@SETTINGS
@given(
    st.sampled_from(sorted(ref.DTYPES)),
    st.sampled_from(["greater", "less", "equal"]),
    st.integers(0, 2**32 - 1),
)
def test_compare_and_flush_match_the_model_on_every_pair(code, name, seed):
    """fused_compare on arrays of raw bits vs the model one pair at a time (specials included)."""
    rng = np.random.default_rng(seed)
    a = _values(rng, code, 64, None)
    b = _values(rng, code, 64, a)
    raw = np.dtype(f"<u{ref.DTYPES[code][0] // 8}")
    dtype = tpu.data_type_t(code)
    got = compare(name, np.array(a, raw), np.array(b, raw), dtype)
    assert got.tolist() == [ref.condition(name, x, y, code) for x, y in zip(a, b, strict=True)]
    assert flush_chosen(np.array(a, raw), dtype).tolist() == [ref.flush_chosen(x, code) for x in a]


@pytest.mark.parametrize("name", ["greater", "less", "equal"])
@pytest.mark.parametrize("code", [15, 47], ids=["e5m2", "e4m3fn"])
def test_fp8_compare_matches_the_model_on_all_65536_pairs(code, name):
    """Every (src0, src1) pair of FP8 codes, NaNs, infinities, subnormals and both zeros included;
    maximum/minimum keep the chosen code unchanged (no flush of FP8 subnormals)."""
    codes = np.arange(256, dtype=np.uint8)
    a, b = np.repeat(codes, 256), np.tile(codes, 256)
    got = compare(name, a, b, tpu.data_type_t(code))
    want = [ref.condition(name, x, y, code) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert got.tolist() == want
    assert flush_chosen(codes, tpu.data_type_t(code)).tolist() == [ref.flush_chosen(x, code) for x in range(256)]


# ------------------------------------------------------------------ fuzz

_ADDRESSES = st.one_of(
    st.integers(0, 8).map(lambda k: k * 0x1000),
    st.integers(-(2**33), 2**33),
    st.integers(0, 64 * 256 * 1024 + 64),
    st.integers(0, 2**18).map(lambda k: 256 * 1024 - k),
)
_OPERANDS = st.one_of(
    st.builds(lambda a: tpu.variable_t(type=tpu.TENSOR, addr=a), _ADDRESSES),
    st.builds(lambda a: tpu.variable_t(type=tpu.VECTOR, addr=a), _ADDRESSES),
    st.builds(
        lambda u: tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=u)), st.integers(0, 2**32 - 1)
    ),
)
_DIMS = st.one_of(
    st.integers(1, 4), st.sampled_from([0, -1, 65535, 65536, 2**31]), st.integers(-(2**40), 2**40)
)
_DTYPE_CODES = st.one_of(st.sampled_from([int(d) for d in tpu.data_type_t]), st.integers(-5, 100))


@settings(max_examples=200, derandomize=True, deadline=None)
@given(
    st.sampled_from(["BM1684X", "BM1688", "SG2260", "CV184X"]),
    st.sampled_from(FUNCS),
    st.lists(_ADDRESSES, min_size=2, max_size=2),
    st.lists(_OPERANDS, min_size=4, max_size=4),
    st.builds(tpu.dim4, _DIMS, _DIMS, _DIMS, _DIMS),
    _DTYPE_CODES,
    _DTYPE_CODES,
)
def test_bad_parameters_only_ever_raise_constraint_errors(chip, func, dsts, srcs, shape, dt0, dt1):
    fn = getattr(tpu, f"tpu_bdc_{func}")
    pattern = bytes(range(256)) * 64
    with tpu.Core(chip, uninit="ignore") as core:
        core.lmem.write_bytes(0, pattern)
        try:
            fn(*dsts[: 2 if func in MIN_MAX else 1], *srcs, shape, dt0, dt1)
        except ConstraintError as err:
            assert err.instruction == f"tpu_bdc_{func}" and err.operand and err.allowed
            # unchanged: the pattern, and nothing else ever written (cheaper than two 2 x 16 MiB snapshots)
            data, written = core.lmem.data, core.lmem.written
            assert data[: len(pattern)].tobytes() == pattern and written[: len(pattern)].all()
            assert not data[len(pattern) :].any() and not written[len(pattern) :].any()
