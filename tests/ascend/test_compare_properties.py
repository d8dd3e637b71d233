"""Property tests: every compare form against a per-element reference model.

The model is ``tests/ascend/reference_model.py`` (ref §1.1 address formula, §3.1 bit layout,
§3.2 mask rules, §3.7 IEEE semantics, exact values); the CMPMASK rules of ref §3.5 are
restated here.  It shares no code with npusim.  Each test
compares the whole UB (and the registers) before and after a call with what the model says:
the result bytes, and nothing else changed.

Documented per-product expectations are restated here, independently of ``chips.py``:

* mask honoured (masked-off bits written 0): 950 and 310B (Compare.md / Compares.md 'mask');
* CMPMASK keeps masked-off bits: A2, A3, 310P (asc_lt.md); the 950 rewrites it (zeros);
* forms whose mask stays in the vector mask register (is_set_mask): A2/A3/310P both
  compare-to-register forms (SetMask); 950 every ``mask[]`` form (SetVectorMask);
  310B ``Compares`` with ``mask[]``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc

from . import reference_model as ref

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
FULL = 2**64 - 1

MODES = ("EQ", "GE", "GT", "LE", "LT", "NE")
SIZE = {name: ref.FORMATS[name][0] for name in ref.FORMATS}

HONOURS_MASK = {"950", "310B"}
KEEPS_CMPMASK_BITS = {"A2", "A3", "310P"}
MASK_LEFT_IN_REGISTER = {
    "A2": {"register"}, "A3": {"register"}, "310P": {"register"},
    "950": {"compare_bits", "compares_bits", "register_bits"}, "310B": {"compares_bits"},
}
# Compare / Compares T per product (Compare.md, Compares.md 数据类型; high-dim forms).
COMPARE_T = {
    "A2": ["float16", "float32", "int32"], "A3": ["float16", "float32", "int32"], "310P": ["float16", "float32"],
    "910": ["float16", "float32"], "310B": ["float16", "float32"], "KirinX90": ["float16", "float32", "int32"],
    "950": ["float16", "bfloat16", "int16", "uint16", "int32", "uint32", "float32"],
}
COMPARES_T = {
    "A2": ["float16", "float32", "int32"], "A3": ["float16", "float32", "int32"], "310P": ["float16", "float32"],
    "310B": ["int16", "uint16", "float16", "int32", "uint32", "float32"], "KirinX90": ["float16", "float32", "int32"],
    "950": ["float16", "bfloat16", "int16", "uint16", "int32", "uint32", "float32"],
}
COUNT_ONLY_950 = ["int8", "uint8", "int64", "uint64", "float64"]
EQ_ONLY = {("A2", "int32"), ("A3", "int32"), ("KirinX90", "int32")}
SCALAR_EQ_ONLY = EQ_ONLY | {("950", "float64")}
UB_BYTES = {"A2": 192 * 1024, "A3": 192 * 1024, "310P": 256 * 1024, "910": 256 * 1024, "310B": 248 * 1024,
            "KirinX90": 118 * 1024, "950": 256 * 1024}
SCRATCH_950 = 248 * 1024

# Raw bit patterns worth hitting: zeros of both signs, subnormals, infinities, NaNs (quiet,
# signalling, negative), +-1, extremes.
SPECIALS = {
    "float16": [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE00, 0x3C00,
                0xBC00, 0x7BFF, 0xFBFF],
    "bfloat16": [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC0, 0x3F80,
                 0xBF80, 0x7F7F],
    "float32": [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F800000, 0xFF800000,
                0x7FC00000, 0x7F800001, 0xFFC00000, 0x3F800000, 0xBF800000, 0x7F7FFFFF],
    "float64": [0, 1 << 63, 1, (1 << 63) | 1, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                0x7FF0000000000001, 0x3FF0000000000000, 0xBFF0000000000000],
}


# --------------------------------------------------------------- data helpers
def fill(rng: np.random.Generator, dtype: str, count: int) -> bytes:
    """``count`` elements of raw bits: mostly specials and a few repeated values, some random."""
    size = SIZE[dtype]
    pool = SPECIALS.get(dtype)
    if pool is None:  # integers: extremes, small values
        bits = 8 * size
        pool = [0, 1, 2, (1 << bits) - 1, (1 << (bits - 1)) - 1, 1 << (bits - 1), 1 << (bits - 2)]
    raw_type = np.dtype(f"<u{size}")
    choice = rng.integers(0, len(pool), count)
    values = np.array(pool, dtype=np.uint64)[choice].astype(raw_type)
    random_bits = rng.integers(0, 256, count * size, dtype=np.uint8).view(raw_type)
    use_random = rng.random(count) < 0.3
    values[use_random] = random_bits[use_random]
    return values.tobytes()


def extent(repeats: int, blk: int, rep: int) -> int:
    return 0 if repeats == 0 else (repeats - 1) * rep * 32 + 7 * blk * 32 + 32


def align32(n: int) -> int:
    return (n + 31) // 32 * 32


def strides_fitting(draw, repeats: int, ub_bytes: int, operands: int) -> tuple[int, int]:
    blk = draw(st.integers(0, 4))
    budget = (ub_bytes - 8 * 1024) // operands  # room for dst and slack
    cap = 20 if repeats <= 1 else max(0, min(20, (budget - 7 * blk * 32 - 64) // ((repeats - 1) * 32)))
    return blk, draw(st.integers(0, cap))


def special_pairs(dtype: str) -> list[tuple[int, int]]:
    """(src0, src1) raw bits every example compares somewhere: for floats NaN/NaN (two payloads), +0/-0,
    -0/+0, -0/-0, equal numbers, NaN against a number both ways (ref §3.7); for integers equal values
    and the extremes both ways."""
    size, kind, ebits, mbits = ref.FORMATS[dtype]
    width = 8 * size
    if kind != "float":
        low, high = (1 << (width - 1), (1 << (width - 1)) - 1) if kind == "int" else (0, (1 << width) - 1)
        return [(5, 5), (low, high), (high, low), (high, high)]
    sign = 1 << (width - 1)
    quiet_nan = ((1 << ebits) - 1) << mbits | 1 << (mbits - 1)
    one = ((1 << (ebits - 1)) - 1) << mbits
    return [(quiet_nan, quiet_nan | 1), (0, sign), (sign, 0), (sign, sign), (one, one), (quiet_nan, one),
            (one, quiet_nan | sign)]


def scalar_pairs(dtype: str, scalar_bits: int) -> list[tuple[int, int]]:
    """Lanes worth comparing against one scalar: itself, its sign flipped (+0 against -0), a NaN."""
    size, kind, ebits, mbits = ref.FORMATS[dtype]
    if kind != "float":
        return [(scalar_bits, scalar_bits), ((scalar_bits + 1) % (1 << 8 * size), scalar_bits)]
    quiet_nan = ((1 << ebits) - 1) << mbits | 1 << (mbits - 1)
    return [(scalar_bits, scalar_bits), (scalar_bits ^ 1 << (8 * size - 1), scalar_bits), (quiet_nan, scalar_bits)]


def draw_scalar_bits(rng: np.random.Generator, dtype: str) -> int:
    """A scalar's raw bits: half the time NaN, +0 or -0 (so lanes compare NaN/NaN and +0/-0), else any special."""
    size, kind, ebits, mbits = ref.FORMATS[dtype]
    if kind == "float" and rng.random() < 0.5:
        quiet_nan = ((1 << ebits) - 1) << mbits | 1 << (mbits - 1)
        return [quiet_nan, 0, 1 << (8 * size - 1)][rng.integers(0, 3)]
    return int.from_bytes(fill(rng, dtype, 1), "little")


def plant_pairs(core, dtype: str, pairs, src0: tuple[int, int, int], src1: tuple[int, int, int] | None, repeats: int,
                active) -> int:
    """Write ``pairs`` into active lanes whose elements no other planted lane shares (strides may alias
    lanes), in order: an example with one usable lane compares the first pair (NaN/NaN), one with three
    also +0/-0 and -0/+0.  ``src0`` / ``src1`` are ``(base, blk, rep)``.  Returns how many were planted."""
    size = SIZE[dtype]
    seen0, seen1, planted = set(), set(), 0
    for r in range(repeats):
        for j in range(256 // size):
            if planted == len(pairs):
                return planted
            at0 = ref.lane_address(src0[0], r, j, size, *src0[1:])
            at1 = ref.lane_address(src1[0], r, j, size, *src1[1:]) if src1 is not None else None
            if not active(r, j) or at0 in seen0 or (at1 is not None and at1 in seen1):
                continue
            seen0.add(at0)
            seen1.add(at1)
            a, b = pairs[planted]
            core.ub_write(at0, a.to_bytes(size, "little"))
            if at1 is not None:
                core.ub_write(at1, b.to_bytes(size, "little"))
            planted += 1
    return planted


def any_active(repeats: int, lanes: int, active) -> bool:
    return any(active(0, j) for j in range(lanes)) if repeats else False


# ------------------------------------------------------------ bitmask forms
@st.composite
def bitmask_cases(draw):
    scalar = draw(st.booleans())
    chips = [c for c in (COMPARES_T if scalar else COMPARE_T)]
    chip = draw(st.sampled_from(chips))
    dtype = draw(st.sampled_from((COMPARES_T if scalar else COMPARE_T)[chip]))
    eq_only = (chip, dtype) in (SCALAR_EQ_ONLY if scalar else EQ_ONLY)
    mode = "EQ" if eq_only else draw(st.sampled_from(MODES))
    lanes = 256 // SIZE[dtype]
    counter = chip == "950" and draw(st.booleans())
    if counter:
        count = draw(st.integers(0, lanes * 6))
        mask = count if draw(st.booleans()) else [count, 0]
        repeats = -(-count // lanes)
        repeat_times = draw(st.integers(0, 255))  # ignored in counter mode
    else:
        repeats = repeat_times = draw(st.sampled_from([0, 1, 2, 3, 7, 255]))
        if draw(st.booleans()):
            mask = draw(st.integers(0, lanes + 8))
        else:
            low = draw(st.integers(1, FULL))
            mask = [low, draw(st.integers(0, FULL)) if lanes == 128 else 0]
    operands = 1 if scalar else 2
    s0 = strides_fitting(draw, repeats, UB_BYTES[chip], operands)
    s1 = (0, 0) if scalar else strides_fitting(draw, repeats, UB_BYTES[chip], operands)
    dst_strides = (draw(st.integers(0, 3)), draw(st.integers(0, 20)))  # have no effect (ref §3.1)
    # is_set_mask=False is reserved for Compare; with counter mode on the 950 it is rejected
    # (test_compare_errors), so the model covers it in normal mode only.
    is_set_mask = True if not scalar or counter else draw(st.booleans())
    register_words = (draw(st.integers(1, FULL)), draw(st.integers(0, FULL)) if lanes == 128 else 0)
    return dict(scalar=scalar, chip=chip, dtype=dtype, mode=mode, counter=counter, mask=mask, repeats=repeats,
                repeat_times=repeat_times, s0=s0, s1=s1, dst_strides=dst_strides, is_set_mask=is_set_mask,
                register_words=register_words, seed=draw(st.integers(0, 2**32 - 1)))


def bitmask_lanes(case, lanes: int, low: int, high: int):
    """The lanes a bitmask-form call computes (ref §1.2-1.3, §3.2)."""
    if case["chip"] not in HONOURS_MASK:
        return lambda r, j: True  # reserved mask: every bit computed (ref §3.2)
    if case["counter"]:
        count = case["mask"] if isinstance(case["mask"], int) else case["mask"][0]
        return lambda r, j: r * lanes + j < count
    return ref.mask_active(case["mask"] if case["is_set_mask"] else [low, high], lanes)


@SETTINGS
@given(bitmask_cases())
def test_bitmask_forms_match_the_model(case):
    chip, dtype, mode, scalar = case["chip"], case["dtype"], case["mode"], case["scalar"]
    rng = np.random.default_rng(case["seed"])
    size, lanes = SIZE[dtype], 256 // SIZE[dtype]
    repeats = case["repeats"]
    src0_addr = 0
    src0_len = align32(max(extent(repeats, *case["s0"]), 32))
    src1_addr = src0_addr + src0_len
    src1_len = 0 if scalar else align32(max(extent(repeats, *case["s1"]), 32))
    dst_addr = src1_addr + src1_len
    dst_len = align32(max(repeats * lanes // 8, 32)) + 64
    assert dst_addr + dst_len <= UB_BYTES[chip]
    scalar_bits = None
    with asc.Core(chip) as core:
        core.ub_write(src0_addr, fill(rng, dtype, src0_len // size))
        if not scalar:
            core.ub_write(src1_addr, fill(rng, dtype, src1_len // size))
        core.ub_write(dst_addr, rng.integers(0, 256, dst_len, dtype=np.uint8).tobytes())
        t = getattr(asc, dtype)
        src0 = asc.LocalTensor(t, VECIN, src0_addr, src0_len // size)
        dst = asc.LocalTensor(asc.uint8, VECOUT, dst_addr, dst_len)
        low, high = case["register_words"]
        asc.set_vector_mask(high, low, dtype=t)
        if case["counter"]:
            asc.set_mask_count()
        active = bitmask_lanes(case, lanes, low, high)
        if scalar:
            scalar_bits = draw_scalar_bits(rng, dtype)
            pairs = scalar_pairs(dtype, scalar_bits)
        else:
            pairs = special_pairs(dtype)
        planted = plant_pairs(core, dtype, pairs, (src0_addr, *case["s0"]),
                              None if scalar else (src1_addr, *case["s1"]), repeats, active)
        assert planted >= any_active(repeats, lanes, active)  # NaN/NaN (or the scalar itself) first
        registers_before = (core.mask_words, core.mask_mode)
        before = core.ub_read(0, UB_BYTES[chip])
        if scalar:
            scalar_value = ref.python_number(scalar_bits, dtype)
            asc.compare_scalar(dst, src0, scalar_value, asc.CMPMODE[mode], case["mask"], case["repeat_times"],
                               asc.UnaryRepeatParams(case["dst_strides"][0], case["s0"][0], case["dst_strides"][1],
                                                     case["s0"][1]), is_set_mask=case["is_set_mask"])
        else:
            src1 = asc.LocalTensor(t, VECIN, src1_addr, src1_len // size)
            asc.compare(dst, src0, src1, asc.CMPMODE[mode], case["mask"], case["repeat_times"],
                        asc.BinaryRepeatParams(case["dst_strides"][0], case["s0"][0], case["s1"][0],
                                               case["dst_strides"][1], case["s0"][1], case["s1"][1]))
        after = core.ub_read(0, UB_BYTES[chip])
        registers_after = (core.mask_words, core.mask_mode)

    bits = ref.compare_bits(before, dtype, mode, src0_addr, None if scalar else src1_addr, scalar_bits, repeats,
                            (*case["s0"], *case["s1"]), active)
    expected = bytearray(before)
    expected[dst_addr : dst_addr + len(bits) // 8] = ref.pack_bits(bits)
    assert after == bytes(expected)

    form = ("compares" if scalar else "compare") + ("_len" if isinstance(case["mask"], int) else "_bits")
    left = MASK_LEFT_IN_REGISTER.get(chip, set())
    sets_register = case["is_set_mask"] and not case["counter"] and (form in left)
    expected_words = registers_before[0]
    if sets_register:
        expected_words = (*ref.register_words(case["mask"], size), 0, 0)
    assert registers_after == (expected_words, registers_before[1])


# --------------------------------------------------------------- count forms
@st.composite
def count_cases(draw):
    scalar = draw(st.booleans())
    table = COMPARES_T if scalar else COMPARE_T
    chip = draw(st.sampled_from(sorted(table)))
    dtypes = table[chip] + (COUNT_ONLY_950 if chip == "950" else [])
    dtype = draw(st.sampled_from(dtypes))
    eq_only = (chip, dtype) in (SCALAR_EQ_ONLY if scalar else EQ_ONLY)
    mode = "EQ" if eq_only else draw(st.sampled_from(MODES))
    repeats = draw(st.integers(0, 9))
    return dict(scalar=scalar, chip=chip, dtype=dtype, mode=mode, repeats=repeats,
                count=repeats * 256 // SIZE[dtype], seed=draw(st.integers(0, 2**32 - 1)))


@SETTINGS
@given(count_cases())
def test_count_forms_match_the_model(case):
    """ref §3.3: count*sizeof(T)/256 full repeats, default strides, E/8 bytes each, nothing else (64-bit T:
    a last half-filled 8-byte store's zero bytes too)."""
    chip, dtype, mode, scalar = case["chip"], case["dtype"], case["mode"], case["scalar"]
    rng = np.random.default_rng(case["seed"])
    size, lanes = SIZE[dtype], 256 // SIZE[dtype]
    nbytes = max(case["repeats"] * 256, 256)
    src1_addr, dst_addr = nbytes, 2 * nbytes
    with asc.Core(chip) as core:
        core.ub_write(0, fill(rng, dtype, 2 * nbytes // size))
        core.ub_write(dst_addr, rng.integers(0, 256, 512, dtype=np.uint8).tobytes())
        t = getattr(asc, dtype)
        src0 = asc.LocalTensor(t, VECIN, 0, nbytes // size)
        dst = asc.LocalTensor(asc.uint8 if scalar or chip == "KirinX90" else asc.int8, VECOUT, dst_addr, 512)
        scalar_bits = draw_scalar_bits(rng, dtype) if scalar else None
        pairs = scalar_pairs(dtype, scalar_bits) if scalar else special_pairs(dtype)
        planted = plant_pairs(core, dtype, pairs, (0, 1, 8), None if scalar else (src1_addr, 1, 8),
                              case["repeats"], lambda r, j: True)
        assert planted == (len(pairs) if case["repeats"] else 0)
        before = core.ub_read(0, UB_BYTES[chip])
        registers_before = core.register_state()
        if scalar:
            scalar_value = ref.python_number(scalar_bits, dtype)
            asc.compare_scalar(dst, src0, scalar_value, cmp_mode=asc.CMPMODE[mode], count=case["count"])
        else:
            src1 = asc.LocalTensor(t, VECIN, src1_addr, nbytes // size)
            asc.compare(dst, src0, src1, cmp_mode=asc.CMPMODE[mode], count=case["count"])
        after = core.ub_read(0, UB_BYTES[chip])
        assert core.register_state() == registers_before
    bits = ref.compare_bits(before, dtype, mode, 0, None if scalar else src1_addr, scalar_bits, case["repeats"],
                            (1, 8, 1, 8))
    assert len(bits) == case["count"] == case["repeats"] * lanes
    expected = bytearray(before)
    stored = ref.count_bitmask(bits, size)
    expected[dst_addr : dst_addr + len(stored)] = stored
    assert after == bytes(expected)


# ----------------------------------------------------- compare to CMPMASK
@st.composite
def register_cases(draw):
    chip = draw(st.sampled_from(["A2", "A3", "310P", "950"]))
    dtype = draw(st.sampled_from(["float16", "float32"]))
    lanes = 256 // SIZE[dtype]
    is_set_mask = draw(st.booleans())
    counter = chip == "950" and is_set_mask and draw(st.booleans())
    low_min = 0 if chip != "310P" else 1
    if counter or draw(st.booleans()):
        mask = draw(st.integers(low_min, lanes + 8 if not counter else 3 * lanes))
    else:
        mask = [draw(st.integers(1, FULL)), draw(st.integers(0, FULL)) if lanes == 128 else 0]
    register_words = (draw(st.integers(1, FULL)), draw(st.integers(0, FULL)) if lanes == 128 else 0)
    return dict(chip=chip, dtype=dtype, mode=draw(st.sampled_from(MODES)), is_set_mask=is_set_mask,
                counter=counter, mask=mask, register_words=register_words,
                blk=(draw(st.integers(0, 5)), draw(st.integers(0, 5))),
                cmpmask=draw(st.binary(min_size=16, max_size=16)), seed=draw(st.integers(0, 2**32 - 1)))


@SETTINGS
@given(register_cases())
def test_compare_to_cmpmask_matches_the_model(case):
    chip, dtype, mode = case["chip"], case["dtype"], case["mode"]
    rng = np.random.default_rng(case["seed"])
    size, lanes = SIZE[dtype], 256 // SIZE[dtype]
    (blk0, blk1), region = case["blk"], 2048
    with asc.Core(chip) as core:
        core.ub_write(0, fill(rng, dtype, 2 * region // size))
        t = getattr(asc, dtype)
        src0 = asc.LocalTensor(t, VECIN, 0, region // size)
        src1 = asc.LocalTensor(t, VECIN, region, region // size)
        low, high = case["register_words"]
        asc.set_vector_mask(high, low, dtype=t)
        if case["counter"]:
            asc.set_mask_count()
        core.cmpmask = case["cmpmask"]
        if case["counter"]:
            active = lambda r, j: j < case["mask"]  # noqa: E731 - one repeat, first min(count, E) lanes
        else:
            active = ref.mask_active(case["mask"] if case["is_set_mask"] else [low, high], lanes)
        pairs = special_pairs(dtype)
        planted = plant_pairs(core, dtype, pairs, (0, blk0, 0), (region, blk1, 0), 1, active)
        assert planted >= any_active(1, lanes, active)
        before = core.ub_read(0, UB_BYTES[chip])
        words_before = core.mask_words
        asc.compare(src0, src1, asc.CMPMODE[mode], case["mask"],
                    asc.BinaryRepeatParams(7, blk0, blk1, 3, 99, 200), is_set_mask=case["is_set_mask"])
        after = core.ub_read(0, UB_BYTES[chip])
        cmpmask, words_after = core.cmpmask, core.mask_words

    bits = ref.compare_bits(before, dtype, mode, 0, region, None, 1, (blk0, 0, blk1, 0), active)
    old = [(case["cmpmask"][i // 8] >> (i % 8)) & 1 for i in range(128)]
    if chip in KEEPS_CMPMASK_BITS:
        new = [bits[i] if i < lanes and active(0, i) else old[i] for i in range(128)]
    else:
        new = [bits[i] if i < lanes else 0 for i in range(128)]
    assert cmpmask == ref.pack_bits(new)
    expected = bytearray(before)
    if chip == "950":  # the emulation stages the E result bits at GetRuntimeUBSize() (ref §1.5)
        expected[SCRATCH_950 : SCRATCH_950 + lanes // 8] = ref.pack_bits(bits)
    assert after == bytes(expected)
    left = MASK_LEFT_IN_REGISTER[chip]
    form = "register_bits" if isinstance(case["mask"], list) else "register_len"
    if case["is_set_mask"] and not case["counter"] and ("register" in left or form in left):
        assert words_after == (*ref.register_words(case["mask"], size), 0, 0)
    else:
        assert words_after == words_before


# ----------------------------------------------------------------- C API
@st.composite
def c_api_cases(draw):
    kind = draw(st.sampled_from(["to_ub", "scalar", "to_register"]))
    mode = draw(st.sampled_from(MODES))
    dtypes = ["float16", "float32"] + (["int32"] if mode == "EQ" and kind != "to_register" else [])
    return dict(kind=kind, mode=mode, dtype=draw(st.sampled_from(dtypes)), chip=draw(st.sampled_from(["A2", "A3"])),
                repeat=draw(st.sampled_from([0, 1, 2, 5, 255])), sync=draw(st.booleans()),
                strides=[draw(st.integers(0, 4)) for _ in range(3)] + [draw(st.integers(0, 8)) for _ in range(3)],
                register_words=(draw(st.integers(0, FULL)), draw(st.integers(0, FULL))),
                cmpmask=draw(st.binary(min_size=16, max_size=16)), seed=draw(st.integers(0, 2**32 - 1)))


@SETTINGS
@given(c_api_cases())
def test_c_api_compares_match_the_model(case):
    """asc_<op>, asc_<op>_scalar (and _sync): every bit written; register form under the vector mask."""
    kind, mode, dtype = case["kind"], case["mode"], case["dtype"]
    rng = np.random.default_rng(case["seed"])
    size, lanes = SIZE[dtype], 256 // SIZE[dtype]
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = case["strides"]
    repeats = 1 if kind == "to_register" else case["repeat"]
    len0 = align32(max(extent(repeats, s0_blk, s0_rep), 32))
    len1 = align32(max(extent(repeats, s1_blk, s1_rep), 32))
    dst_addr = len0 + len1
    name = f"asc_{mode.lower()}{'_scalar' if kind == 'scalar' else ''}{'_sync' if case['sync'] else ''}"
    with asc.Core(case["chip"]) as core:
        core.ub_write(0, fill(rng, dtype, (len0 + len1) // size))
        core.ub_write(dst_addr, rng.integers(0, 256, 8192, dtype=np.uint8).tobytes())
        t = getattr(asc, dtype)
        src0 = asc.LocalTensor(t, VECIN, 0, len0 // size)
        src1 = asc.LocalTensor(t, VECIN, len0, len1 // size)
        dst = asc.LocalTensor(asc.uint8, VECOUT, dst_addr, 8192)
        low, high = case["register_words"]
        asc.set_vector_mask(high, low, dtype=t)
        core.cmpmask = case["cmpmask"]
        scalar_bits = draw_scalar_bits(rng, dtype) if kind == "scalar" else None
        pairs = scalar_pairs(dtype, scalar_bits) if kind == "scalar" else special_pairs(dtype)
        active = ref.mask_active([low, high], lanes) if kind == "to_register" else lambda r, j: True
        plant_pairs(core, dtype, pairs, (0, s0_blk, s0_rep if kind != "to_register" else 0),
                    None if kind == "scalar" else (len0, s1_blk, s1_rep if kind != "to_register" else 0), repeats,
                    active)
        before = core.ub_read(0, 192 * 1024)
        function = getattr(asc, name)
        if kind == "to_ub":
            function(dst, src0, src1, case["repeat"], *case["strides"])
        elif kind == "scalar":
            scalar_value = ref.python_number(scalar_bits, dtype)
            function(dst, src0, scalar_value, case["repeat"], d_blk, s0_blk, d_rep, s0_rep)
        else:
            function(src0, src1, case["repeat"], *case["strides"])
        after = core.ub_read(0, 192 * 1024)
        assert [r.kind for r in core.sync_log] == (["pipe_barrier"] if case["sync"] else [])
        cmpmask = core.cmpmask

    expected = bytearray(before)
    if kind == "to_register":
        bits = ref.compare_bits(before, dtype, mode, 0, len0, None, 1, (s0_blk, 0, s1_blk, 0), active)
        old = [(case["cmpmask"][i // 8] >> (i % 8)) & 1 for i in range(128)]
        assert cmpmask == ref.pack_bits([bits[i] if i < lanes and active(0, i) else old[i] for i in range(128)])
    else:
        src1_addr = None if kind == "scalar" else len0
        bits = ref.compare_bits(before, dtype, mode, 0, src1_addr, scalar_bits, repeats,
                                (s0_blk, s0_rep, s1_blk, s1_rep))
        expected[dst_addr : dst_addr + len(bits) // 8] = ref.pack_bits(bits)
        assert cmpmask == case["cmpmask"]
    assert after == bytes(expected)


# ------------------------------------------------------------ float corners
def test_ieee_corners_half_by_hand():
    """NaN: NE true, all else false; +0 == -0; subnormals order; inf compares (ref §3.7)."""
    pairs = [  # (a, b) as float16 bit patterns
        (0x7E00, 0x7E00), (0x7E00, 0x3C00), (0x0000, 0x8000), (0x0001, 0x0000), (0x8001, 0x0000),
        (0x7C00, 0x7BFF), (0xFC00, 0xFBFF), (0x7C00, 0x7C00),
    ]
    a = np.zeros(128, np.uint16)
    b = np.zeros(128, np.uint16)
    for i, (x, y) in enumerate(pairs):
        a[i], b[i] = x, y
    expected = {  # per pair i: bit i of byte 0
        "LT": [0, 0, 0, 0, 1, 0, 1, 0], "GT": [0, 0, 0, 1, 0, 1, 0, 0], "EQ": [0, 0, 1, 0, 0, 0, 0, 1],
        "LE": [0, 0, 1, 0, 1, 0, 1, 1], "GE": [0, 0, 1, 1, 0, 1, 0, 1], "NE": [1, 1, 0, 1, 1, 1, 1, 0],
    }
    for mode, row in expected.items():
        with asc.Core("A2") as core:
            core.ub_write(0, a.tobytes())
            core.ub_write(256, b.tobytes())
            src0 = asc.LocalTensor(asc.half, VECIN, 0, 128)
            src1 = asc.LocalTensor(asc.half, VECIN, 256, 128)
            dst = asc.LocalTensor(asc.uint8, VECOUT, 512, 16)
            asc.compare(dst, src0, src1, asc.CMPMODE[mode], 128)
            assert core.ub_read(512, 1)[0] == sum(bit << i for i, bit in enumerate(row)), mode


def test_scalar_is_rounded_to_the_source_dtype():
    """The C++ parameter is ``T src1Scalar``: 1.0004 rounds to half 1.0 (nearest even)."""
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.half, VECIN, 0, 128)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 256, 16)
        src.write(np.ones(128))
        asc.compare_scalar(dst, src, 1.0004, asc.CMPMODE.EQ, 128)
        assert core.ub_read(256, 16) == bytes([0xFF]) * 16
        asc.compare_scalar(dst, src, 1.0005, asc.CMPMODE.EQ, 128)  # next half above 1.0 is 1.000977
        assert core.ub_read(256, 16) == bytes([0x00]) * 16
