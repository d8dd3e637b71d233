"""Axpy and MulAddDst with half sources and a float dst (docs/semantics.md §5.26), against the per-lane
reference of :mod:`.elementwise_reference` (exact rationals, one rounding), and their documented rules."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import elementwise_reference as eref
from . import reference_model as ref
from .test_elementwise import SETTINGS, bits_strategy, special_bits

F16, F32 = asc.float16, asc.float32
CALC = asc.TPosition.VECCALC
LANES = eref.MIXED_LANES
# the products whose 数据类型 tables list "half | half | float" (Axpy.md, MulAddDst.md)
CHIPS = {"axpy": ("A2", "A3", "310B", "310P", "910", "950", "KirinX90"),
         "mul_add_dst": ("A2", "A3", "310P", "950", "Kirin9030")}
FORMS = ("count", "mask_int", "mask_words", "register")


def half_number(bits: int) -> float:
    return ref.python_number(bits, "float16")


@st.composite
def cases(draw):
    op = draw(st.sampled_from(sorted(CHIPS)))
    chip = draw(st.sampled_from(CHIPS[op]))
    form = draw(st.sampled_from(FORMS))
    n_src = 2 if op == "mul_add_dst" else 1
    if form == "count":
        count = draw(st.integers(1, 5 * LANES))
        repeats, mask = -(-count // LANES), count
        strides = [(1, 8)] + [(1, 4)] * n_src
        spans = [-(-count * 4 // 32) * 32] + [-(-count * 2 // 32) * 32] * n_src
    else:
        repeats = draw(st.integers(1, 4))
        blk = draw(st.integers(1, 3))
        strides = [(blk, 8 * blk + draw(st.integers(0, 4)))]  # dst's repeats apart: it is read too
        strides += [(draw(st.integers(0, 3)), draw(st.integers(0, 12))) for _ in range(n_src)]
        spans = [((repeats - 1) * strides[0][1] + 7 * blk + 1) * 32]
        spans += [((repeats - 1) * rep + 3 * b + 1) * 32 for b, rep in strides[1:]]  # the first 4 blocks
        if form == "mask_int":
            mask = draw(st.integers(1, LANES))
        else:  # a bit-wise mask, or the register's words (only the low one selects float lanes)
            mask = [draw(st.integers(1, (1 << 64) - 1)),
                    0 if form == "mask_words" else draw(st.integers(0, (1 << 64) - 1))]
    addrs, cursor = [], 0
    for span in spans:
        addrs.append(cursor)
        cursor += span + 32 * draw(st.integers(0, 2))
    contents = [draw(st.lists(bits_strategy("float32"), min_size=spans[0] // 4, max_size=spans[0] // 4))]
    contents += [draw(st.lists(bits_strategy("float16"), min_size=span // 2, max_size=span // 2))
                 for span in spans[1:]]
    scalar = draw(bits_strategy("float16")) if op == "axpy" else None
    return dict(op=op, chip=chip, form=form, repeats=repeats, mask=mask, strides=strides, spans=spans,
                addrs=addrs, contents=contents, scalar=scalar, end=cursor)


def image(case) -> bytearray:
    ub = bytearray(case["end"])
    for k, (addr, content) in enumerate(zip(case["addrs"], case["contents"], strict=True)):
        size = 4 if k == 0 else 2
        for i, bits in enumerate(content):
            ref.store(ub, addr + i * size, size, bits)
    return ub


def run_npusim(case) -> bytes:
    with asc.Core(case["chip"]) as core:
        core.ub_write(0, bytes(image(case)))
        dst, *srcs = (asc.LocalTensor(F32 if k == 0 else F16, CALC, addr, span // (4 if k == 0 else 2))
                      for k, (addr, span) in enumerate(zip(case["addrs"], case["spans"], strict=True)))
        operands = [*srcs] + ([half_number(case["scalar"])] if case["scalar"] is not None else [])
        function = getattr(asc, case["op"])
        params = (asc.BinaryRepeatParams if case["op"] == "mul_add_dst" else asc.UnaryRepeatParams)(
            *(s[0] for s in case["strides"]), *(s[1] for s in case["strides"]))
        if case["form"] == "count":
            function(dst, *operands, case["mask"])
        elif case["form"] == "register":
            asc.set_vector_mask(case["mask"][1], case["mask"][0])
            function(dst, *operands, 0, case["repeats"], params, False)
        else:
            function(dst, *operands, case["mask"], case["repeats"], params)
        return core.ub_read(0, case["end"])


def run_reference(case) -> bytes:
    ub = image(case)
    if case["form"] == "count":
        def active(r):
            return [j for j in range(LANES) if r * LANES + j < case["mask"]]
    else:
        chosen = ref.active_lanes_normal(case["mask"], 4)  # 64 lanes: a register's high word selects none

        def active(r):
            return chosen
    eref.mixed_multiply_add(ub, case["op"], case["addrs"][0], case["addrs"][1:], case["scalar"], case["repeats"],
                            active, case["strides"])
    return bytes(ub)


@SETTINGS
@given(cases())
def test_matches_the_per_lane_reference(case):
    """Every form, strides (block 0-3, repeat 0-12 for the sources), masks, and NaN, inf, subnormal, signed-zero
    lanes: the bytes of the reference's exact product plus dst, rounded once to float."""
    assert run_npusim(case) == run_reference(case)


def special_lanes():
    """Every (half, half, float) triple of special values (±0, ±inf, NaNs, subnormal and normal extremes, ±1)."""
    return list(itertools.product(special_bits("float16"), special_bits("float16"), special_bits("float32")))


@pytest.mark.parametrize("chip", ["A2", "950"])
def test_mul_add_dst_on_every_triple_of_special_values(chip):
    triples = special_lanes()
    n = len(triples)
    with asc.Core(chip) as core:
        a, b = (asc.LocalTensor(F16, CALC, addr, n) for addr in (0, 0x4000))
        d = asc.LocalTensor(F32, CALC, 0x8000, n)
        for tensor, k, dtype in ((a, 0, "<u2"), (b, 1, "<u2"), (d, 2, "<u4")):
            core.ub_write(tensor.addr, np.array([t[k] for t in triples], dtype).tobytes())
        asc.mul_add_dst(d, a, b, n)
        got = np.frombuffer(core.ub_read(d.addr, 4 * n), "<u4").tolist()
    assert got == [eref.mixed_multiply_add_bits("mul_add_dst", [x, y, z]) for x, y, z in triples]


@pytest.mark.parametrize("scalar", special_bits("float16"))
def test_axpy_with_every_special_scalar(scalar):
    pairs = list(itertools.product(special_bits("float16"), special_bits("float32")))
    n = len(pairs)
    with asc.Core("A2") as core:
        s = asc.LocalTensor(F16, CALC, 0, n)
        d = asc.LocalTensor(F32, CALC, 0x2000, n)
        core.ub_write(s.addr, np.array([p[0] for p in pairs], "<u2").tobytes())
        core.ub_write(d.addr, np.array([p[1] for p in pairs], "<u4").tobytes())
        asc.axpy(d, s, half_number(scalar), n)
        got = np.frombuffer(core.ub_read(d.addr, 4 * n), "<u4").tolist()
    assert got == [eref.mixed_multiply_add_bits("axpy", [x, z, scalar]) for x, z in pairs]


def test_the_product_is_not_rounded_to_half():
    # 1.0009765625**2 = 1 + 2**-9 + 2**-20: exact in float; rounded to half first it would lose the 2**-20
    with asc.Core("A2") as core:
        a = asc.LocalTensor(F16, CALC, 0, 16)
        d = asc.LocalTensor(F32, CALC, 1024, 8)
        core.ub_write(0, np.full(16, 0x3C01, "<u2").tobytes())
        core.ub_write(1024, np.full(8, np.float32(-1.0)).tobytes())
        asc.mul_add_dst(d, a, a, 8)
        assert d.read().tolist() == [2.0 ** -9 + 2.0 ** -20] * 8
        asc.axpy(d, a, 1.0009765625, 8)  # the old dst 2**-9 + 2**-20 plus the same product
        assert d.read().tolist() == [1 + 2.0 ** -8 + 2.0 ** -19] * 8


def test_a_repeat_reads_the_first_four_blocks_of_a_source_repeat():
    """64 lanes a repeat; with {1, 1, 8, 8} the source's blocks 4-7 of each 256-byte repeat are skipped."""
    with asc.Core("A2"):
        s = asc.LocalTensor(F16, CALC, 0, 256)
        d = asc.LocalTensor(F32, CALC, 1024, 128)
        s.write(np.arange(256, dtype=np.float64))
        d.write(np.zeros(128))
        asc.axpy(d, s, 1.0, 64, 2, asc.UnaryRepeatParams(1, 1, 8, 8))
        assert d.read().tolist() == list(range(64)) + list(range(128, 192))
        d.write(np.zeros(128))
        asc.axpy(d, s, 1.0, [0xFFFF_0000_0000_FFFF, 0], 1, asc.UnaryRepeatParams(1, 2, 8, 8))  # blocks 0 and 6
        assert d.read()[:64].tolist() == list(range(16)) + [0.0] * 32 + list(range(96, 112))


# ------------------------------------------------------------------ registers
def test_count_forms_leave_the_registers_as_a_float_count_form():
    with asc.Core("A2") as core:
        s = asc.LocalTensor(F16, CALC, 0, 512)
        d = asc.LocalTensor(F32, CALC, 2048, 512)
        s.write(np.ones(512)), d.write(np.zeros(512))
        core.set_mask_words(5, 6)
        asc.axpy(d, s, 3.0, 300)
        assert core.mask_mode == asc.MaskMode.NORMAL and core.mask_words[:2] == ((1 << 64) - 1,) * 2
        assert d.read().tolist() == [3.0] * 300 + [0.0] * 212
        asc.asc_fma(d, s, s, 100)
        assert core.mask_words[:2] == (100, 0)  # the C API's count form: asc_set_mask_count_begin(count)
        assert d.read().tolist() == [4.0] * 100 + [3.0] * 200 + [0.0] * 212
    with asc.Core("910") as core:  # no counter mode: full repeats, then SetMask<float>(tail)
        s = asc.LocalTensor(F16, CALC, 0, 512)
        d = asc.LocalTensor(F32, CALC, 2048, 512)
        s.write(np.ones(512)), d.write(np.zeros(512))
        asc.axpy(d, s, 3.0, 100)
        assert core.mask_words[:2] == ((1 << 36) - 1, 0) and d.read().tolist() == [3.0] * 100 + [0.0] * 412


def test_the_c_api_repeat_form_takes_the_register():
    with asc.Core("A2"):
        a = asc.LocalTensor(F16, CALC, 0, 512)
        d = asc.LocalTensor(F32, CALC, 2048, 256)
        a.write(np.full(512, 2.0)), d.write(np.full(256, 0.5))
        asc.set_vector_mask((1 << 64) - 1, 0xFF)  # the high word selects no float lane
        asc.asc_fma(d, a, a, 2, 1, 1, 1, 8, 4, 4)
        asc.asc_axpy(d, a, -1.0, 1, 1, 1, 8, 4)
        assert d.read().tolist() == ([2.5] * 8 + [0.5] * 56) * 1 + [4.5] * 8 + [0.5] * 184


# ------------------------------------------------------------------ rejected calls
def rejected(error, call, chip="A2", tolerance="strict", match=None):
    """``call(dst, src0, src1)`` on half sources and a float dst raises ``error`` and changes nothing."""
    with asc.Core(chip, tolerance=tolerance) as core, warnings.catch_warnings():
        warnings.simplefilter("error")
        core.ub_write(0, bytes(0x4000))
        a = asc.LocalTensor(F16, CALC, 0, 1024)
        b = asc.LocalTensor(F16, CALC, 0x800, 1024)
        d = asc.LocalTensor(F32, CALC, 0x1000, 1024)
        before, registers = core.ub.snapshot(), core.register_state()
        with pytest.raises(error, match=match) as info:
            call(d, a, b)
        assert core.ub.snapshot() == before and core.register_state() == registers
    return str(info.value)


B = asc.BinaryRepeatParams(1, 1, 1, 8, 4, 4)
U = asc.UnaryRepeatParams(1, 1, 8, 4)


@pytest.mark.parametrize("tolerance", ["strict", "hardware"])
def test_a_mask_selects_at_most_64_lanes(tolerance):
    message = rejected(ParameterRangeError, lambda d, a, b: asc.mul_add_dst(d, a, b, 65, 1, B), tolerance=tolerance)
    assert message.startswith("mul_add_dst: mask = 0x41") and "at most 64" in message
    assert "MulAddDst.md 约束说明" in message and "§5.26" in message
    message = rejected(ParameterRangeError, lambda d, a, b: asc.axpy(d, a, 1.0, [1, 1], 1, U), tolerance=tolerance)
    assert message.startswith("axpy: mask[1] = 0x1") and "Axpy.md 约束说明" in message


def test_sources_and_dst_share_no_byte():
    def overlapping(d, a, b):  # src0's repeat 1 reads bytes dst's repeat 0 writes: fine elsewhere, not here
        asc.mul_add_dst(d, d.reinterpret_cast(F16)[64:], b, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 16, 4, 4))
    message = rejected(OverlapError, overlapping)
    assert message.startswith("mul_add_dst: src0 / dst") and "MulAddDst.md 约束说明" in message
    message = rejected(OverlapError, lambda d, a, b: asc.axpy(d, d.reinterpret_cast(F16), 2.0, 64))
    assert message.startswith("axpy: src / dst") and "Axpy.md 约束说明" in message and "§5.26" in message
    with asc.Core("A2"):  # the two sources may be one tensor
        a = asc.LocalTensor(F16, CALC, 0, 64)
        d = asc.LocalTensor(F32, CALC, 1024, 64)
        a.write(np.full(64, 3.0)), d.write(np.zeros(64))
        asc.mul_add_dst(d, a, a, 64)
        assert d.read().tolist() == [9.0] * 64


def test_products_without_the_row_and_other_type_pairs_are_rejected():
    message = rejected(UnsupportedError, lambda d, a, b: asc.mul_add_dst(d, a, b, 64), chip="310B")
    assert "mul_add_dst with float16 sources and a float32 dst is not supported" in message
    assert "A2" in message and "310B" not in message.split("allowed:")[1] and "MulAddDst.md 数据类型" in message
    message = rejected(UnsupportedError, lambda d, a, b: asc.mul_add_dst(d, a, d, 64))
    assert message.startswith("mul_add_dst: src1 dtype = 'float32'")
    message = rejected(UnsupportedError, lambda d, a, b: asc.axpy(d, a.reinterpret_cast(asc.bfloat16), 1.0, 64),
                       chip="950")
    assert message.startswith("axpy: src dtype = 'bfloat16'") and "float16 -> float32" in message
    message = rejected(UnsupportedError, lambda d, a, b: asc.axpy(d.reinterpret_cast(F16), d, 1.0, 64))
    assert message.startswith("axpy: src dtype = 'float32'")


def test_counts_and_repeats():
    message = rejected(ParameterRangeError, lambda d, a, b: asc.axpy(d, a, 1.0, 0), chip="950")
    assert "count = 0" in message
    rejected(OutOfBoundsError, lambda d, a, b: asc.axpy(d[1000:], a, 1.0, 64), match="dst")  # 24 floats left
    with asc.Core("A2") as core:  # a NOP on the A2; a count of halves needs half as many bytes
        a = asc.LocalTensor(F16, CALC, 0, 100)
        d = asc.LocalTensor(F32, CALC, 1024, 100)
        a.write(np.ones(100)), d.write(np.zeros(100))
        before = core.ub.snapshot()
        asc.mul_add_dst(d, a, a, 0)
        asc.mul_add_dst(d, a, a, 64, 0, B)
        assert core.ub.snapshot() == before
        asc.mul_add_dst(d, a, a, 100)
        assert d.read().tolist() == [1.0] * 100
    with pytest.raises(OutOfBoundsError, match="src0"), asc.Core("A2"):
        asc.mul_add_dst(asc.LocalTensor(F32, CALC, 1024, 100), asc.LocalTensor(F16, CALC, 0, 99),
                        asc.LocalTensor(F16, CALC, 512, 100), 100)


@pytest.mark.parametrize("chip", ["A2", "950"])
def test_in_counter_mode_a_mask_argument_is_taken_as_a_float_forms(chip):
    """The 64-lane rule is a normal-mode rule: in counter mode a mask above 64 does what it does for a float
    source (the 950: a count of 100; the A2: SetMask<float>(100)'s bit pattern, no count, rejected)."""
    outcomes = []
    for src_type, rep in ((F32, 8), (F16, 4)):
        with asc.Core(chip):
            s = asc.LocalTensor(src_type, CALC, 0, 512)
            d = asc.LocalTensor(F32, CALC, 4096, 512)
            s.write(np.ones(512)), d.write(np.zeros(512))
            asc.set_mask_count()
            try:
                asc.axpy(d, s, 1.0, 100, 1, asc.UnaryRepeatParams(1, 1, 8, rep))
                outcomes.append(d.read().tolist())
            except ParameterRangeError as error:
                outcomes.append(error.operand)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] == ([1.0] * 100 + [0.0] * 412 if chip == "950" else "mask (counter-mode count)")
