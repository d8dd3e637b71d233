"""Element-wise vector instructions against the independent reference model, byte for byte.

Expected bytes come from ``tests/ascend/reference_model.py`` (exact arithmetic, one rounding,
plain loops over repeats and lanes) or from the documents; never from npusim itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OverlapError, ParameterRangeError, RuntimeMisuseError, UnsupportedError

from . import reference_model as ref
from .conftest import assert_fields

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Saturating float types in the power-on CTRL state, transcribed from SetCtrlSpr(ISASI).md tables 3-5
# (950: CTRL[60] = 1, CTRL[48] = 0, half only; A2/A3: CTRL[48] = 0, half and bfloat16).
SATURATING = {"A2": {"float16", "bfloat16"}, "950": {"float16"}, "310P": set(), "910": set()}
DTYPE = {name: getattr(asc, name) for name in ref.FORMATS}
BINARY = ("add", "sub", "mul", "max", "min")
SCALAR = ("adds", "muls")
OPERATION = {"adds": "add", "muls": "mul"}


def special_bits(fmt: str) -> list[int]:
    """±0, ±inf, NaNs with payloads, extremes of normal and subnormal ranges, ±1."""
    size, kind, ebits, mbits = ref.FORMATS[fmt]
    width = 8 * size
    if kind != "float":
        top = 1 << (width - 1)
        return [0, 1, (1 << width) - 1, top, top - 1, top + 1, 2, (1 << width) - 2]
    sign = 1 << (width - 1)
    inf = ((1 << ebits) - 1) << mbits
    one = ((1 << (ebits - 1)) - 1) << mbits
    values = [0, inf, inf | 1, inf | (1 << (mbits - 1)), inf - 1, 1 << mbits, 1, (1 << mbits) - 1, one]
    return values + [v | sign for v in values]


def bits_strategy(fmt: str):
    width = 8 * ref.FORMATS[fmt][0]
    return st.one_of(st.sampled_from(special_bits(fmt)), st.integers(0, (1 << width) - 1))


@st.composite
def vector_cases(draw):
    chip = draw(st.sampled_from(sorted(SATURATING)))
    op = draw(st.sampled_from(BINARY + SCALAR + ("abs", "duplicate")))
    support = asc.CHIPS[chip].vector_dtypes[op]
    form = draw(st.sampled_from(("count", "mask_int", "mask_words")))
    allowed = support.for_form(form == "count") & set(ref.FORMATS)
    fmt = draw(st.sampled_from(sorted(allowed)))
    size = ref.FORMATS[fmt][0]
    lanes = 256 // size
    n_src = {"abs": 1, "duplicate": 0}.get(op, 2 if op in BINARY else 1)
    if form == "count":
        count = draw(st.integers(1, 3 * lanes))
        repeats = -(-count // lanes)
        strides = [(1, 8)] * (1 + n_src)
        mask = count
    else:
        repeats = draw(st.integers(1, 4))
        strides = [(draw(st.integers(1, 3)), draw(st.integers(0, 12)))]
        strides += [(draw(st.integers(0, 3)), draw(st.integers(0, 12))) for _ in range(n_src)]
        if form == "mask_int":
            mask = draw(st.integers(1, lanes))
        else:
            low = draw(st.integers(1, (1 << 64) - 1))
            high = 0 if size == 4 else draw(st.integers(0, (1 << 64) - 1))
            mask = [low, high]
    spans = [((repeats - 1) * rep + 7 * blk + 1) * 32 for blk, rep in strides]
    addrs, cursor = [], 0
    for span in spans:
        addrs.append(cursor)
        cursor += span + 32 * draw(st.integers(0, 2))
    contents = [draw(st.lists(bits_strategy(fmt), min_size=span // size, max_size=span // size)) for span in spans]
    scalar = None
    if op in SCALAR or op == "duplicate":
        if ref.FORMATS[fmt][1] == "float":
            scalar = draw(st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 65504.0, 1e-7, 3.5, 1 + 2**-11 + 2**-30])))
        else:
            info = np.iinfo(DTYPE[fmt].np_dtype)
            scalar = draw(st.integers(int(info.min), int(info.max)))
    return dict(chip=chip, op=op, fmt=fmt, form=form, repeats=repeats, strides=strides, mask=mask,
                addrs=addrs, spans=spans, contents=contents, scalar=scalar, end=cursor)


def run_npusim(case) -> bytes:
    fmt, size = case["fmt"], ref.FORMATS[case["fmt"]][0]
    with asc.Core(case["chip"]) as core:
        tensors = []
        for addr, span, content in zip(case["addrs"], case["spans"], case["contents"], strict=True):
            core.ub_write(addr, b"".join(bits.to_bytes(size, "little") for bits in content))
            tensors.append(asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, addr, span // size))
        dst, srcs = tensors[0], tensors[1:]
        operands = srcs + ([case["scalar"]] if case["scalar"] is not None else [])
        function = getattr(asc, case["op"])
        if case["form"] == "count":
            function(dst, *operands, case["mask"])
        elif case["op"] == "duplicate":
            (blk, rep), = case["strides"]
            function(dst, *operands, case["mask"], case["repeats"], blk, rep)
        else:
            flat = [value for pair in zip(*case["strides"], strict=True) for value in pair]
            params = (asc.BinaryRepeatParams(*flat) if len(srcs) == 2 else asc.UnaryRepeatParams(*flat))
            function(dst, *operands, case["mask"], case["repeats"], params)
        return core.ub_read(0, case["end"])


def run_reference(case) -> bytes:
    fmt, size = case["fmt"], ref.FORMATS[case["fmt"]][0]
    ub = bytearray(case["end"])
    for addr, content in zip(case["addrs"], case["contents"], strict=True):
        for i, bits in enumerate(content):
            ref.store(ub, addr + i * size, size, bits)
    lanes = 256 // size
    if case["form"] == "count":
        count = case["mask"]

        def active(r):
            return [j for j in range(lanes) if r * lanes + j < count]
    else:
        chosen = ref.active_lanes_normal(case["mask"], size)

        def active(r):
            return chosen
    scalar = None if case["scalar"] is None else ref.scalar_to_bits(case["scalar"], fmt)
    operation = "duplicate" if case["op"] == "duplicate" else OPERATION.get(case["op"], case["op"])
    ref.elementwise(ub, operation, fmt, case["addrs"][0], case["addrs"][1:], scalar, case["repeats"], active,
                    case["strides"], saturate=fmt in SATURATING[case["chip"]])
    return bytes(ub)


def _overlaps_forbidden(case) -> bool:
    """Whether a source and dst share a byte (these cases are tested separately)."""
    dst_lo, dst_hi = case["addrs"][0], case["addrs"][0] + case["spans"][0]
    return any(lo < dst_hi and dst_lo < lo + span for lo, span in zip(case["addrs"][1:], case["spans"][1:],
                                                                         strict=True))


@SETTINGS
@given(vector_cases())
def test_matches_reference_model(case):
    assert not _overlaps_forbidden(case)
    assert run_npusim(case) == run_reference(case)


# -------------------------------------------------------------- float rules
def _one_lane(chip: str, op: str, fmt: str, a_bits: int, b_bits: int) -> int:
    size = ref.FORMATS[fmt][0]
    with asc.Core(chip) as core:
        core.ub_write(0, (a_bits.to_bytes(size, "little")) * (32 // size))
        core.ub_write(32, (b_bits.to_bytes(size, "little")) * (32 // size))
        core.ub_write(64, bytes(32))
        x, y, z = (asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, addr, 32 // size) for addr in (0, 32, 64))
        getattr(asc, op)(z, x, y, 32 // size)
        return int.from_bytes(core.ub_read(64, size), "little")


def test_half_overflow_saturates_on_a2_but_not_on_310p():
    # 65504 + 65504 overflows half: ±MAX (0x7BFF) in A2's saturating state (SetCtrlSpr table 5), inf elsewhere
    assert _one_lane("A2", "add", "float16", 0x7BFF, 0x7BFF) == 0x7BFF
    assert _one_lane("A2", "add", "float16", 0xFBFF, 0xFBFF) == 0xFBFF
    assert _one_lane("310P", "add", "float16", 0x7BFF, 0x7BFF) == 0x7C00


def test_nan_results_saturate_to_zero_on_a2_and_are_canonical_elsewhere():
    assert _one_lane("A2", "mul", "float16", 0x7C00, 0x0000) == 0x0000        # inf * 0 = NaN -> 0
    assert _one_lane("310P", "mul", "float16", 0x7C00, 0x0000) == 0x7E00      # canonical quiet NaN
    assert _one_lane("A2", "add", "float32", 0x7F800001, 0x3F800000) == 0x7FC00000  # float32 never saturates


def test_set_saturation_flag_turns_saturation_off_on_a2():
    with asc.Core("A2") as core:
        assert asc.get_saturation_flag() is True
        asc.set_saturation_flag(False)
        core.ub_write(0, b"\xff\x7b" * 16)
        x, z = asc.LocalTensor(asc.half, asc.TPosition.VECCALC, 0, 16), asc.LocalTensor(asc.half,
                                                                                          asc.TPosition.VECCALC, 32, 16)
        asc.add(z, x, x, 16)
        assert z.read().view(np.uint16)[0] == 0x7C00
    with asc.Core("310P"), pytest.raises(UnsupportedError, match="SetSaturationFlag"):
        asc.set_saturation_flag(False)


def test_max_min_order_signed_zeros_and_propagate_nan():
    assert _one_lane("310P", "max", "float16", 0x8000, 0x0000) == 0x0000
    assert _one_lane("310P", "min", "float16", 0x0000, 0x8000) == 0x8000
    assert _one_lane("310P", "max", "float32", 0x7FC00001, 0x3F800000) == 0x7FC00000


@pytest.mark.parametrize(("dtype", "sign"), [("float16", 0x8000), ("float32", 0x80000000)])
@pytest.mark.parametrize(("a_negative", "b_negative"), [(False, False), (False, True), (True, False), (True, True)])
def test_max_min_of_signed_zeros_in_either_order(dtype, sign, a_negative, b_negative):
    """IEEE 754-2019 maximum/minimum with -0 < +0: the maximum is -0 only when both zeros are, the
    minimum when either is -- whichever operand comes first."""
    a, b = sign * a_negative, sign * b_negative
    assert _one_lane("310P", "max", dtype, a, b) == (sign if a_negative and b_negative else 0)
    assert _one_lane("310P", "min", dtype, a, b) == (sign if a_negative or b_negative else 0)


def test_max_min_nan_in_either_operand_is_the_quiet_nan():
    for a, b in ((0x7E01, 0x3C00), (0x3C00, 0xFE01), (0xFC00, 0x7D00)):
        assert _one_lane("310P", "max", "float16", a, b) == 0x7E00
        assert _one_lane("310P", "min", "float16", a, b) == 0x7E00


def test_integer_arithmetic_wraps():
    assert _one_lane("A2", "add", "int16", 0x7FFF, 0x0001) == 0x8000
    assert _one_lane("A2", "mul", "int32", 0x10000, 0x10000) == 0
    assert _one_lane("A2", "sub", "int32", 0x80000000, 0x00000001) == 0x7FFFFFFF


# ------------------------------------------------------------ the dst/src1 chain
@pytest.mark.parametrize("fmt", ["float16", "float32", "int32"])
def test_dst_src1_chain_accumulates_repeat_by_repeat(fmt):
    """dst == src1, both repeat strides 0: dst = src0[r] + dst for r = 0..R-1 (ref §1.4 exception)."""
    size, repeats = ref.FORMATS[fmt][0], 5
    rng = np.random.default_rng(7)
    src0 = [int(b) for b in rng.integers(0, 1 << 8 * size, repeats * (256 // size), dtype=np.uint64)]
    if ref.FORMATS[fmt][1] == "float":  # keep values moderate so the sum is meaningful
        src0 = [ref.scalar_to_bits(float(v), fmt) for v in rng.uniform(-4, 4, len(src0))]
    acc = [ref.scalar_to_bits(1.0, fmt) if ref.FORMATS[fmt][1] == "float" else 1] * (256 // size)
    ub = bytearray(256 * repeats + 256)
    for i, bits in enumerate(src0):
        ref.store(ub, i * size, size, bits)
    dst = 256 * repeats
    for i, bits in enumerate(acc):
        ref.store(ub, dst + i * size, size, bits)
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(ub))
        a = asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, 0, repeats * 256 // size)
        d = asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, dst, 256 // size)
        asc.add(d, a, d, 256 // size, repeats, asc.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
        got = core.ub_read(0, len(ub))
    ref.elementwise(ub, "add", fmt, dst, [0, dst], None, repeats, lambda r: list(range(256 // size)),
                    [(1, 0), (1, 8), (1, 0)], saturate=fmt in SATURATING["A2"])
    assert got == bytes(ub)


def test_dst_src0_cross_repeat_overlap_is_rejected_and_memory_unchanged():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(range(256)) * 4)
        before = core.ub.snapshot(), core.register_state()
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 256)
        other = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 512, 256)
        # src0 repeat stride 0 re-reads block 0..7, which repeat 0 wrote: only src1 may chain (ref §1.4)
        with pytest.raises(OverlapError, match="repeat 1 reads a byte that repeat 0 writes"):
            asc.add(t, t, other, 128, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 0, 8))
        assert (core.ub.snapshot(), core.register_state()) == before


def test_chain_exception_needs_a_zero_repeat_stride_and_a_listed_type():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(2048))
        src0 = asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 0, 256)
        d = asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 1024, 512)
        # int16 is not among half/int32/float: the dst/src1 chain is an error
        with pytest.raises(OverlapError):
            asc.add(d, src0, d, 128, 2, asc.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
        d32 = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 1024, 256)
        s32 = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 128)
        # dst repeat stride 2 blocks, src1 4: neither is 0, so repeat 1 reading repeat 0's output is an error
        with pytest.raises(OverlapError):
            asc.add(d32, s32, d32, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 2, 8, 4))


def test_partial_overlap_within_a_repeat_is_rejected():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(1024))
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 128)
        shifted = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 32, 64)
        with pytest.raises(OverlapError, match="partially overlap"):
            asc.abs(shifted, a, 64, 1, asc.UnaryRepeatParams())
        asc.abs(a, a, 64, 1, asc.UnaryRepeatParams())  # exactly in place is allowed


# ---------------------------------------------------------- forms and registers
def test_count_form_leaves_normal_mode_and_full_mask_on_native_products():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(512))
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 256)
        asc.set_vector_mask(0, 5)
        asc.muls(x, x, 2.0, 200)
        assert core.vector_mask == ((1 << 64) - 1, (1 << 64) - 1)
        assert core.mask_mode == asc.MaskMode.NORMAL
        asc.adds(x, x, 1.0, 100, 1, asc.UnaryRepeatParams())
        assert core.vector_mask == ((1 << 36) - 1, (1 << 64) - 1)  # SetMask<half>(100)


def test_mask_forms_leave_registers_alone_on_the_950():
    with asc.Core("950") as core:
        core.ub_write(0, bytes(512))
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 256)
        before = core.register_state()
        asc.adds(x, x, 1.0, 100, 1, asc.UnaryRepeatParams())
        asc.adds(x, x, 1.0, 200)
        assert core.register_state() == before


def test_is_set_mask_false_uses_the_mask_register():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(256))
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        asc.set_vector_mask(0, 0b1010)
        asc.duplicate(x, 7.0, 64, 1, 1, 8, False)
        assert x.read()[:5].tolist() == [0.0, 7.0, 0.0, 7.0, 0.0]


def test_set_vector_mask_takes_one_or_two_words():
    """set_vector_mask is (length) or (mask_high, mask_low); another count of arguments is a TypeError."""
    with asc.Core("A2") as core:
        before = core.register_state()
        for args in ((), (0, 1, 2)):
            forms = r"  set_vector_mask\(mask_high, mask_low, .*\n  set_vector_mask\(length, "
            with pytest.raises(TypeError, match=r"(?s)set_vector_mask: no call form takes .*accepted forms:\n" + forms):
                asc.set_vector_mask(*args, dtype=asc.float32)
        assert core.register_state() == before


def test_no_mask_form_with_a_zero_mask_register_is_rejected_on_310p():
    """Atlas inference products reject a normal-mode mask of 0, also when it comes from the register."""
    with asc.Core("310P") as core:
        core.ub_write(0, bytes(range(256)))
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        asc.set_vector_mask(0, 0)
        before = (core.ub.snapshot(), core.register_state())
        with pytest.raises(ParameterRangeError) as info:
            asc.duplicate(x, 7.0, 64, 1, 1, 8, False)
        assert_fields(info.value, instruction="duplicate", operand="mask", value=0, rule="normal-mode mask of 0")
        assert (core.ub.snapshot(), core.register_state()) == before


def test_masked_write_marks_its_lanes_written_for_strict_reads():
    """A strict core tracks written bytes: lanes a masked duplicate wrote may be read, with no uninitialised error."""
    with asc.Core("A2", strict=True) as core:
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        y = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 256, 64)
        core.ub_write(256, bytes(256))
        asc.duplicate(x, 7.0, [0b1010, 0], 1, 1, 8)  # lanes 1 and 3 only
        asc.adds(y, x, 1.0, [0b1010, 0], 1, asc.UnaryRepeatParams())
        assert core.ub_read(256, 16) == bytes(4) + (0x41000000).to_bytes(4, "little") + bytes(4) \
            + (0x41000000).to_bytes(4, "little")  # 8.0 in IEEE binary32 where the mask is set


def test_duplicate_count_and_strided_forms():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(1024))
        x = asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 0, 512)
        asc.duplicate(x, -3, 20)
        assert x.read()[:21].tolist() == [-3] * 20 + [0]
        asc.duplicate(x, 9, 16, 2, 2, 16)  # 16 lanes = block 0 of repeats 0 and 1, rep stride 16 blocks
        values = x.read()
        assert values[:16].tolist() == [9] * 16 and values[256:272].tolist() == [9] * 16
        assert values[16:20].tolist() == [-3, -3, -3, -3]


def test_zero_count_is_a_nop_on_a2_and_an_error_on_the_950():
    for chip, raises in (("A2", False), ("950", True)):
        with asc.Core(chip) as core:
            core.ub_write(0, bytes(64))
            x = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 16)
            before = core.ub.snapshot()
            if raises:
                with pytest.raises(ParameterRangeError, match="not guaranteed to be a NOP"):
                    asc.add(x, x, x, 0)
            else:
                asc.add(x, x, x, 0)
            assert core.ub.snapshot() == before


def test_dtype_tables_follow_the_documents():
    # Add.md / Abs.md / Duplicate.md "数据类型", transcribed
    assert asc.CHIPS["A2"].vector_dtypes["add"].dtypes == {"int16", "float16", "int32", "float32"}
    assert asc.CHIPS["910"].vector_dtypes["add"].dtypes == {"float16", "int32", "float32"}
    assert asc.CHIPS["310B"].vector_dtypes["abs"].dtypes == {"int16", "float16", "float32"}
    assert asc.CHIPS["KirinX90"].vector_dtypes["duplicate"].dtypes == {"float16"}
    assert asc.CHIPS["950"].vector_dtypes["mul"].count_only == {"int64", "uint64", "complex32", "complex64"}
    assert "add" not in asc.CHIPS["310P-VEC"].vector_dtypes


def test_unsupported_dtype_names_the_product():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(256))
        x = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 64)
        with pytest.raises(UnsupportedError, match="abs does not support this data type") as err:
            asc.abs(x, x, 64)
        assert err.value.value == "int32"
    with asc.Core("310P-VEC"):
        y = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 16)
        with pytest.raises(UnsupportedError, match="products that support it"):
            asc.add(y, y, y, 16)


def test_bad_arguments_are_reported_with_the_instruction():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(512))
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 128)
        with pytest.raises(TypeError, match="add: no call form"):
            asc.add(x, x)
        with pytest.raises(ParameterRangeError, match="repeat_params.dst_rep_stride"):
            asc.add(x, x, x, 128, 1, asc.BinaryRepeatParams(1, 1, 1, 256, 8, 8))
        with pytest.raises(ParameterRangeError, match="dst block stride"):
            asc.add(x, x, x, 128, 1, asc.BinaryRepeatParams(0, 1, 1, 8, 8, 8))
        with pytest.raises(ParameterRangeError, match="scalar"):
            asc.adds(asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 0, 128),
                     asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 0, 128), 40000, 128)
        from npusim.errors import OutOfBoundsError
        with pytest.raises(OutOfBoundsError):
            asc.add(x, x, x, 129)


def test_freed_tensor_is_rejected_by_arithmetic():
    with asc.Core("A2"):
        pipe = asc.TPipe()
        que = asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(que, 1, 256)
        t = que.alloc_tensor(asc.float32)
        t.write(np.zeros(64, np.float32))
        que.free_tensor(t)
        with pytest.raises(RuntimeMisuseError, match="freed"):
            asc.abs(t, t, 64)


# ------------------------------------------------- dense special-value coverage
FLOAT_TARGETS = [("A2", "float16"), ("310P", "float16"), ("950", "bfloat16"), ("A2", "float32")]


@SETTINGS
@given(target=st.sampled_from(FLOAT_TARGETS), op=st.sampled_from(BINARY), data=st.data())
def test_float_lanes_with_special_values_match_reference(target, op, data):
    """One count-form call over many (a, b) pairs rich in ±0, ±inf, NaN payloads, subnormals and extremes."""
    chip, fmt = target
    size = ref.FORMATS[fmt][0]
    n = 256 // size
    a = data.draw(st.lists(bits_strategy(fmt), min_size=n, max_size=n))
    b = data.draw(st.lists(bits_strategy(fmt), min_size=n, max_size=n))
    with asc.Core(chip) as core:
        core.ub_write(0, b"".join(x.to_bytes(size, "little") for x in a + b) + bytes(256))
        x, y, z = (asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, addr, n) for addr in (0, 256, 512))
        getattr(asc, op)(z, x, y, n)
        got = core.ub_read(512, 256)
    expected = b"".join(ref.result_bits(op, fmt, ai, bi, fmt in SATURATING[chip]).to_bytes(size, "little")
                        for ai, bi in zip(a, b, strict=True))
    assert got == expected


@pytest.mark.parametrize("strides", [
    (1, 1, 1, 0, 8, 0),   # dst and src1 fixed: a fold over the repeats
    (1, 1, 1, 8, 8, 0),   # src1 fixed at dst's first repeat: repeats 1.. read repeat 0's result
    (1, 1, 1, 0, 8, 8),   # dst fixed at src1's first repeat: only repeat 0 is in place
])
@pytest.mark.parametrize("op", ["sub", "mul", "max"])
def test_dst_src1_exception_runs_repeats_in_order(strides, op):
    fmt, repeats = "float32", 4
    rng = np.random.default_rng(11)
    ub = bytearray(4096)
    for i, value in enumerate(rng.uniform(-2, 2, 1024)):
        ref.store(ub, i * 4, 4, ref.scalar_to_bits(float(value), fmt))
    src0, dst = 0, 2048
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(ub))
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, src0, 256)
        d = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, dst, 256)
        getattr(asc, op)(d, a, d, 64, repeats, asc.BinaryRepeatParams(*strides))
        got = core.ub_read(0, 4096)
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = strides
    ref.elementwise(ub, op, fmt, dst, [src0, dst], None, repeats, lambda r: list(range(64)),
                    [(d_blk, d_rep), (s0_blk, s0_rep), (s1_blk, s1_rep)])
    assert got == bytes(ub)
