"""The C API forms of the element-wise instructions and the mask-register writes (``asc_add`` ...,
vector_compute/asc_*.md; impl/c_api/instr_impl/npu_arch_2201/vector_compute_impl).

Three independent checks: the bytes equal the pyasc-form call each function aliases (the same plan
reached through another door), the per-lane reference model of ``elementwise_reference.py`` (written
from the pages, no npusim), and the pages' printed 调用示例 data.  Then the registers each form
leaves, the ``_sync`` barrier, and every documented constraint as a ConstraintError with nothing
changed.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.ops.arith_c_api import C_FUNCTIONS
from npusim.engine.registry import by_name
from npusim.errors import ConstraintError, ParameterRangeError, UnsupportedError

from . import elementwise_reference as eref
from . import reference_model as ref

UB_IMAGE = 64 * 1024
FULL = (1 << 64) - 1
DST, SRC0, SRC1 = 32768, 0, 16384
TYPES = {"float16": asc.float16, "float32": asc.float32, "int16": asc.int16, "uint16": asc.uint16,
         "int32": asc.int32, "uint32": asc.uint32, "bfloat16": asc.bfloat16, "int8": asc.int8, "uint8": asc.uint8}
# the pyasc name of what each function lowers to (asc_sub_scalar: adds with the negated scalar)
PYASC = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "max": "max", "min": "min",
         "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_not": "bitwise_not", "adds": "adds",
         "muls": "muls", "maxs": "maxs", "mins": "mins", "abs": "abs", "exp": "exp", "ln": "ln", "sqrt": "sqrt",
         "rsqrt": "rsqrt", "reciprocal": "reciprocal", "relu": "relu", "leaky_relu": "leaky_relu",
         "shift_left": "shift_left", "shift_right": "shift_right", "add_relu": "add_relu", "sub_relu": "sub_relu",
         "fused_mul_add": "fused_mul_add", "fused_mul_add_relu": "fused_mul_add_relu", "mul_add_dst": "mul_add_dst",
         "axpy": "axpy", "duplicate": "duplicate", "mul_cast": "mul_cast"}


def image(seed: int = 5, signed: bool = True) -> bytes:
    """Random UB bytes, half and float lanes finite and below 2 in magnitude (the top exponent bit of each
    odd byte cleared), of both signs unless ``signed`` is False (asc_sqrt takes positive sources only)."""
    raw = np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8)
    raw[1::2] &= 0xBF if signed else 0x3F
    return raw.tobytes()


def tensors(src_type: str, dst_type: str | None = None):
    s, d = TYPES[src_type], TYPES[dst_type or src_type]
    return (asc.LocalTensor(d, asc.TPosition.VECOUT, DST, 8192 // d.itemsize),
            asc.LocalTensor(s, asc.TPosition.VECIN, SRC0, 8192 // s.itemsize),
            asc.LocalTensor(s, asc.TPosition.VECIN, SRC1, 8192 // s.itemsize))


def run(call, src_type: str, dst_type: str | None = None, chip: str = "A2", setup=None, ub: bytes | None = None,
        signed: bool = True):
    with asc.Core(chip) as core:
        core.ub_write(0, ub if ub is not None else image(signed=signed))
        if setup:
            setup()
        call(*tensors(src_type, dst_type))
        return core.ub_read(0, UB_IMAGE), core.mask_words[:2], core.mask_mode, [r.kind for r in core.sync_log]


def _value(dtype: str):
    return {"int16": -7, "uint16": 7, "int32": 100003, "uint32": 9, "float16": 1.25, "float32": -0.75,
            "bfloat16": 2.5}[dtype]


def _operands(function, z, x, y, value):
    if function.kind == "binary":
        return (z, x, y)
    if function.kind == "unary":
        return (z, x)
    if function.kind == "scalar":
        return (z, x, value)
    return (z, value)


def _pyasc_value(function, value, dtype):
    if function.negate:  # 0 - (float)value, converted back to T
        return -value
    return value


CASES = [(f.name, src, dst) for f in C_FUNCTIONS.values() if f.operation is None  # (no pyasc roundEn)
         for src, dst in [(t, t) for t in sorted(f.dtypes)] + sorted(f.casts) + sorted(f.mixed)]


def _pyasc_name(function, src, dst) -> str:
    """The compound cast for a mixed-type row, the instruction itself for its half-source float-dst rows."""
    return function.cast_base if (src, dst) in function.casts else PYASC[function.base]


def _pyasc_count(function, src, dst, count):
    name = _pyasc_name(function, src, dst)
    value = _value(src) if function.kind in ("scalar", "fill") else None
    if function.base in ("shift_left", "shift_right"):
        value = 3

    def c_api(z, x, y):
        getattr(asc, function.name)(*_operands(function, z, x, y, value), count)

    def pyasc(z, x, y):
        getattr(asc, name)(*_operands(function, z, x, y, _pyasc_value(function, value, src)), count)
    return c_api, pyasc


@pytest.mark.parametrize("name, src, dst", CASES)
def test_count_form_bytes_equal_the_pyasc_count_form(name, src, dst):
    """asc_f(dst, ..., count) writes what f(dst, ..., count) writes; the C form leaves the mask (count, 0)."""
    function = C_FUNCTIONS[name]
    c_api, pyasc = _pyasc_count(function, src, dst, 300)
    signed = function.base != "sqrt"
    got, want = run(c_api, src, dst, signed=signed), run(pyasc, src, dst, signed=signed)
    assert got[0] == want[0]
    assert got[1] == (300, 0) and want[1] == (FULL, FULL)
    assert got[2] == want[2] == asc.MaskMode.NORMAL
    sync = run(lambda z, x, y: getattr(asc, f"{name}_sync")(*_operands(
        function, z, x, y, 3 if function.base.startswith("shift") else _value(src) if function.kind in (
            "scalar", "fill") else None), 300), src, dst, signed=signed)
    assert sync[0] == got[0] and sync[3] == ["pipe_barrier"] and got[3] == []


def _repeat_params(function, strides):
    if function.kind == "binary":
        return asc.BinaryRepeatParams(*strides)
    if function.kind == "fill":
        return strides
    return asc.UnaryRepeatParams(*strides)


@pytest.mark.parametrize("name, src, dst", CASES)
def test_repeat_form_bytes_equal_the_pyasc_mask_form_without_setting_the_mask(name, src, dst):
    """The bare instruction under the register: f(..., mask, repeat, params, is_set_mask=False)."""
    function = C_FUNCTIONS[name]
    narrowing = TYPES[dst].itemsize < TYPES[src].itemsize  # half -> int8: 4 dst blocks a repeat
    strides = {"binary": (1, 2, 1, 5 if narrowing else 10, 9, 8),
               "unary": (2, 1, 17, 8), "scalar": (1, 3, 8, 25), "fill": (2, 17)}[function.kind]
    value = (3 if function.base.startswith("shift") else _value(src)) if function.kind in ("scalar", "fill") else None

    def mask():
        asc.set_vector_mask(0x0F0F, 0xF0F0F0F0F0F0F0F1)

    def c_api(z, x, y):
        getattr(asc, name)(*_operands(function, z, x, y, value), 3, *strides)

    def pyasc(z, x, y):
        operands = _operands(function, z, x, y, _pyasc_value(function, value, src))
        params = _repeat_params(function, strides)
        if function.kind == "fill":
            getattr(asc, PYASC[function.base])(*operands, 0, 3, *params, False)
        else:
            getattr(asc, _pyasc_name(function, src, dst))(*operands, 0, 3, params, False)
    signed = function.base != "sqrt"
    got, want = run(c_api, src, dst, setup=mask, signed=signed), run(pyasc, src, dst, setup=mask, signed=signed)
    assert got == want
    assert got[1] == (0xF0F0F0F0F0F0F0F1, 0x0F0F)  # neither form touches the register


# ------------------------------------------------------------------ the reference model
def _reference(ub: bytearray, op: str, fmt: str, scalar, count=None, repeat=None, strides=None, words=None,
               sources=2) -> bytearray:
    size = ref.FORMATS[fmt][0]
    if count is not None:
        lanes = ref.counter_lanes(count, size)
        strides = [(1, 8)] * (1 + sources)
    else:
        lanes = ref.normal_lanes(words[0], words[1], repeat, size)
    srcs = [SRC0, SRC1][:sources]
    scalar_bits = None if scalar is None else ref.scalar_to_bits(scalar, fmt)
    eref.elementwise(ub, op, fmt, DST, srcs, scalar_bits, lanes.repeats,
                     lambda r: [j for j in range(lanes.lanes) if lanes.active(r, j)], strides)
    return ub


REFERENCE = [("asc_add", "add", "float16", None, 2), ("asc_add", "add", "int16", None, 2),
             ("asc_sub", "sub", "int32", None, 2), ("asc_max", "max", "float32", None, 2),
             ("asc_and", "and", "uint16", None, 2), ("asc_relu", "relu", "int32", None, 1),
             ("asc_sqrt", "sqrt", "float32", None, 1), ("asc_add_relu", "add_relu", "float16", None, 2),
             ("asc_mul_scalar", "mul", "float16", 0.3, 1), ("asc_shiftleft", "shift_left", "int16", 5, 1),
             ("asc_shiftright", "shift_right", "int32", 7, 1), ("asc_fma", "mul_add_dst", "float32", None, 2),
             ("asc_mul_add", "fused_mul_add", "float16", None, 2), ("asc_axpy", "axpy", "float32", 1.5, 1),
             ("asc_leakyrelu", "leaky_relu", "float16", 0.125, 1)]


@pytest.mark.parametrize("name, op, fmt, scalar, sources", REFERENCE)
def test_count_form_matches_the_reference_model(name, op, fmt, scalar, sources):
    ub = image(11, signed=op != "sqrt")
    got = run(lambda z, x, y: getattr(asc, name)(*(z, x, y)[:1 + sources], *([scalar] if scalar is not None else []),
                                                 333), fmt, ub=ub)[0]
    want = _reference(bytearray(ub), op, fmt, scalar, count=333, sources=sources)
    assert got == bytes(want)


def test_asc_sub_scalar_is_adds_of_the_value_negated_in_float():
    """asc_sub_scalar_impl: tmp = (float)value; tmp = 0 - tmp; vadds(..., (T)tmp): an int32 value beyond
    2^24 is rounded to float first, so src - 16777217 adds -16777216 (the float of 16777217)."""
    ub = image(3)
    got = run(lambda z, x, y: asc.asc_sub_scalar(z, x, 16777217, 200), "int32", ub=ub)[0]
    want = _reference(bytearray(ub), "add", "int32", -16777216, count=200, sources=1)
    assert got == bytes(want)
    # and 0 - (+0.0) is +0.0: -0.0 - 0.0 gives +0.0 (an exact subtraction would give -0.0)
    zeros = bytearray(ub)
    zeros[SRC0:SRC0 + 128] = np.full(64, -0.0, np.float16).tobytes()
    out = run(lambda z, x, y: asc.asc_sub_scalar(z, x, 0.0, 64), "float16", ub=bytes(zeros))[0]
    assert np.frombuffer(out[DST:DST + 128], np.uint16).tolist() == [0] * 64


def _rounded_shift(value: int, n: int, width: int) -> int:
    """ShiftRight.md roundEn: arithmetic_right_shift(src, n) + 1 where bit n - 1 of src is 1 (the page's
    example: 17 >> 5 = 0, bit 4 of 17 is 1, so 1); the result as raw bits of the width."""
    shifted = value >> n
    if n and (value >> (n - 1)) & 1:
        shifted += 1
    return shifted % (1 << width)


@pytest.mark.parametrize("fmt, n", [("int16", 5), ("int16", 1), ("int16", 0), ("int16", 16), ("int32", 7),
                                    ("int32", 31), ("int32", 32)])
def test_asc_shiftright_round_matches_the_page_formula(fmt, n):
    ub = image(8)
    size = ref.FORMATS[fmt][0]
    got = run(lambda z, x, y: asc.asc_shiftright_round(z, x, n, 300), fmt, ub=ub)[0]
    want = bytearray(ub)
    for i in range(300):
        value = ref.number(ref.load(want, SRC0 + i * size, size), fmt)
        ref.store(want, DST + i * size, size, _rounded_shift(value, n, 8 * size))
    assert got == bytes(want)
    with asc.Core("A2") as core:  # the page's example: 17 >> 5 with rounding is 1, without 0
        x = asc.LocalTensor(TYPES[fmt], asc.TPosition.VECIN, 0, 32)
        z = asc.LocalTensor(TYPES[fmt], asc.TPosition.VECOUT, 256, 32)
        x.write([17] * 32)
        asc.asc_shiftright_round_sync(z, x, 5, 32)
        assert np.frombuffer(core.ub_read(256, 32 * size), TYPES[fmt].np_dtype).tolist() == [1] * 32
        assert [r.kind for r in core.sync_log] == ["pipe_barrier"]
        assert core.mask_words[:2] == (32, 0)  # in normal mode that is lane 5 alone
        asc.asc_set_vector_mask(0, (1 << 32) - 1)
        asc.asc_shiftright(z, x, 5, 1, 1, 1, 8, 8)
        assert np.frombuffer(core.ub_read(256, 32 * size), TYPES[fmt].np_dtype).tolist() == [0] * 32


def _float32(value: float) -> float:
    """The C conversion to float: round to nearest even (struct packs a double to binary32 so)."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


@settings(max_examples=60, deadline=None)
@given(fmt=st.sampled_from(["int16", "int32"]), value=st.integers(-(1 << 31), (1 << 31) - 1), seed=st.integers(0, 3))
def test_asc_sub_scalar_property(fmt, value, seed):
    """For integers: dst = src + (T)(0 - (float)value) lane by lane, or a rejection when that does not fit T
    (and when value itself does not fit T)."""
    bits = 8 * ref.FORMATS[fmt][0]
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    value = low + value % (high - low + 1) if seed else value  # mostly in range; seed 0 tries any int32
    ub = image(seed)
    negated = 0.0 - _float32(float(value))
    if not (low <= value <= high and low <= negated <= high):
        with asc.Core("A2") as core:
            core.ub_write(0, ub)
            with pytest.raises(ParameterRangeError):
                asc.asc_sub_scalar(*tensors(fmt)[:2], value, 100)
            assert core.ub_read(0, UB_IMAGE) == ub
        return
    got = run(lambda z, x, y: asc.asc_sub_scalar(z, x, value, 100), fmt, ub=ub)[0]
    assert got == bytes(_reference(bytearray(ub), "add", fmt, int(negated), count=100, sources=1))


@settings(max_examples=40, deadline=None)
@given(fmt=st.sampled_from(["float16", "float32", "int16", "int32"]), repeat=st.integers(0, 4),
       blk=st.tuples(st.integers(1, 4), st.integers(0, 4), st.integers(0, 4)),
       rep=st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12)),
       low=st.integers(0, FULL), high=st.integers(0, FULL), seed=st.integers(0, 5))
def test_repeat_form_matches_the_reference_model(fmt, repeat, blk, rep, low, high, seed):
    """asc_add / asc_mul_scalar under random strides, repeats and masks, lane by lane as the reference
    (a call the overlap rules reject must be rejected with UB unchanged)."""
    size = ref.FORMATS[fmt][0]
    lanes = 256 // size
    high = high if lanes > 64 else 0
    if lanes < 64:
        low &= (1 << lanes) - 1
    low = low or 1
    ub = image(seed)
    strides = list(zip(blk, rep, strict=True))
    for name, op, scalar, sources in (("asc_add", "add", None, 2), ("asc_mul_scalar", "mul", 3, 1)):
        with asc.Core("A2") as core:
            core.ub_write(0, ub)
            asc.asc_set_vector_mask(high, low)
            z, x, y = tensors(fmt)
            args = (z, x, y)[:1 + sources] + ((scalar,) if scalar is not None else ())
            flat = [s[0] for s in strides[:1 + sources]] + [s[1] for s in strides[:1 + sources]]
            try:
                getattr(asc, name)(*args, repeat, *flat)
            except ConstraintError:
                assert core.ub_read(0, UB_IMAGE) == ub
                continue
            got = core.ub_read(0, UB_IMAGE)
        want = _reference(bytearray(ub), op, fmt, scalar, repeat=repeat, strides=strides[:1 + sources],
                          words=(low, high), sources=sources)
        assert got == bytes(want)


# ------------------------------------------------------------------ the pages' 调用示例
def _written(call, dtype, values=None, dst_values=None, length=256):
    with asc.Core("A2") as core:
        x = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC0, length)
        y = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC1, length)
        z = asc.LocalTensor(dtype, asc.TPosition.VECOUT, DST, length)
        if values is not None:
            x.write(values[0])
            if len(values) > 1:
                y.write(values[1])
        if dst_values is not None:
            z.write(dst_values)
        call(z, x, y)
        return np.frombuffer(core.ub_read(DST, length * dtype.itemsize), dtype.np_dtype)


def test_page_examples():
    counting = [float(i) for i in range(1, 257)]
    # asc_duplicate.md: dst [18 18 ... 18] (uint16, 128)
    out = _written(lambda z, x, y: asc.asc_duplicate(z, 18, 128), asc.uint16, length=128)
    assert out.tolist() == [18] * 128
    # asc_max_scalar.md: src [1 .. 256], value 3 -> [3, 3, 3, 4, ...] (the page prints 5 for the fourth)
    out = _written(lambda z, x, y: asc.asc_max_scalar(z, x, 3, 256), asc.float16, [counting])
    assert out.view(np.uint16).tolist() == np.array([3, 3, 3] + counting[3:], np.float16).view(np.uint16).tolist()
    # asc_min_scalar.md: src [1 .. 32], value 3 -> [1, 2, 3, 3, ..., 3]
    out = _written(lambda z, x, y: asc.asc_min_scalar(z, x, 3, 32), asc.float16, [counting[:32]], length=32)
    assert out.view(np.uint16).tolist() == np.array([1, 2] + [3] * 30, np.float16).view(np.uint16).tolist()
    # asc_mul_add.md: dst = src0 * dst + src1; src0 [1 .. 128], src1 1, dst 2 -> [3, 5, 7, ..., 257]
    out = _written(lambda z, x, y: asc.asc_mul_add(z, x, y, 128), asc.float16, [counting[:128], [1.0] * 128],
                   [2.0] * 128, length=128)
    assert out.view(np.uint16).tolist() == np.array([2 * i + 1 for i in range(1, 129)],
                                                    np.float16).view(np.uint16).tolist()
    # asc_rcp.md: src [1, 2, ..., 128] -> [1, 0.5, ..., 0.0078125] (the ends, exact in half)
    out = _written(lambda z, x, y: asc.asc_rcp(z, x, 128), asc.float16, [counting[:128]], length=128)
    assert out[0] == 1.0 and out[1] == 0.5 and out[127] == 0.0078125
    # asc_relu.md: [6.938, -8.86, -0.2263, ..., 1.778] -> [6.938, 0, 0, ..., 1.778]
    src = [6.938, -8.86, -0.2263] + [0.5] * 252 + [1.778]
    out = _written(lambda z, x, y: asc.asc_relu(z, x, 256), asc.float16, [src])
    assert out.view(np.uint16).tolist() == np.array([6.938, 0, 0] + [0.5] * 252 + [1.778],
                                                    np.float16).view(np.uint16).tolist()


def test_mask_register_functions_as_on_the_pages():
    """asc_set_mask_count.md / asc_set_mask_norm.md examples: counter mode with 64 elements, then normal mode
    with every lane, then the repeat form of asc_add (one repeat of 128 halves)."""
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        z, x, y = tensors("float16")
        asc.asc_set_mask_count()
        asc.asc_set_vector_mask(0, 64)
        assert core.mask_mode == asc.MaskMode.COUNTER and core.mask_words[:2] == (64, 0)
        asc.asc_add(z, x, y, 1, 1, 1, 1, 8, 8, 8)  # counter mode: 64 elements whatever repeat says
        counted = core.ub_read(DST, 256)
        asc.asc_set_mask_norm()
        asc.asc_set_vector_mask(FULL, FULL)
        assert core.mask_mode == asc.MaskMode.NORMAL and core.mask_words[:2] == (FULL, FULL)
        asc.asc_add(z, x, y, 1, 1, 1, 1, 8, 8, 8)
        full = core.ub_read(DST, 256)
    want = run(lambda z, x, y: asc.add(z, x, y, 128), "float16")[0]
    assert full == want[DST:DST + 256] and counted[:128] == want[DST:DST + 128] and counted[128:] == image()[
        DST + 128:DST + 256]


def test_aliases_and_forms_are_registered():
    for function in C_FUNCTIONS.values():
        entry, sync = by_name("ascend", function.name), by_name("ascend", f"{function.name}_sync")
        assert entry.alias_of == sync.alias_of == function.base
        assert [f.name for f in entry.forms] == ["count", "repeat"] and [f.name for f in sync.forms] == ["count"]
        assert set(entry.products) == set(sync.products) == {"A2", "A3"}
    for name, base in (("asc_set_mask_count", "set_mask_count"), ("asc_set_mask_norm", "set_mask_norm"),
                       ("asc_set_vector_mask", "set_vector_mask")):
        assert by_name("ascend", name).alias_of == base and set(by_name("ascend", name).products) == {"A2", "A3"}


# ------------------------------------------------------------------ constraints
ERRORS = [
    ("310P", "float16", lambda z, x, y: asc.asc_add(z, x, y, 64), UnsupportedError, "asc_add", "product"),
    ("950", "float16", lambda z, x, y: asc.asc_exp_sync(z, x, 64), UnsupportedError, "asc_exp_sync", "product"),
    ("310B", "float16", lambda z, x, y: asc.asc_set_mask_norm(), UnsupportedError, "asc_set_mask_norm", "product"),
    ("A2", "uint16", lambda z, x, y: asc.asc_add(z, x, y, 64), UnsupportedError, "asc_add", "dst dtype"),
    ("A2", "int16", lambda z, x, y: asc.asc_abs(z, x, 64), UnsupportedError, "asc_abs", "dst dtype"),
    ("A2", "float32", lambda z, x, y: asc.asc_and(z, x, y, 64), UnsupportedError, "asc_and", "dst dtype"),
    ("A2", "float16", lambda z, x, y: asc.asc_add(z, x, y, 1 << 32), ParameterRangeError, "asc_add", "count"),
    ("A2", "float16", lambda z, x, y: asc.asc_add(z, x, y, 5000), Exception, "asc_add", "dst byte range"),
    ("A2", "float16", lambda z, x, y: asc.asc_add(z, x, y, 1 << 31), Exception, "asc_add", "dst byte address"),
    ("A2", "float16>int8", lambda z, x, y: asc.asc_mul_cast_half2int8(z, x, y, 1 << 31), Exception,
     "asc_mul_cast_half2int8", "dst byte address"),
    ("A2", "float16", lambda z, x, y: asc.asc_add(z, x, y, 256, 1, 1, 1, 8, 8, 8), ParameterRangeError, "asc_add",
     "repeat"),
    ("A2", "float16", lambda z, x, y: asc.asc_add(z, x, y, 1, 1, 1, 1, 256, 8, 8), ParameterRangeError, "asc_add",
     "dst_repeat_stride"),
    ("A2", "float16", lambda z, x, y: asc.asc_abs(z, x, 1, 1, 1, 1 << 16, 8), ParameterRangeError, "asc_abs",
     "dst_repeat_stride"),
    ("A2", "float16", lambda z, x, y: asc.asc_abs(z, x, 1, 0, 1, 8, 8), ParameterRangeError, "asc_abs",
     "dst block stride"),
    ("A2", "int16", lambda z, x, y: asc.asc_shiftleft(z, x, 17, 64), ParameterRangeError, "asc_shiftleft",
     "distance"),
    ("A2", "int32", lambda z, x, y: asc.asc_shiftright_sync(z, x, -1, 64), ParameterRangeError,
     "asc_shiftright_sync", "value"),
    ("A2", "uint16", lambda z, x, y: asc.asc_shiftright_round(z, x, 1, 64), UnsupportedError,
     "asc_shiftright_round", "dst dtype"),
    ("A3", "int16", lambda z, x, y: asc.asc_shiftright_round(z, x, 17, 64), ParameterRangeError,
     "asc_shiftright_round", "value"),
    ("310P", "int16", lambda z, x, y: asc.asc_shiftright_round(z, x, 1, 64), UnsupportedError,
     "asc_shiftright_round", "product"),
    ("A2", "int16", lambda z, x, y: asc.asc_sub_scalar(z, x, -32768, 64), ParameterRangeError, "asc_sub_scalar",
     "value"),
    ("A2", "int32", lambda z, x, y: asc.asc_sub_scalar(z, x, -2147483584, 64), ParameterRangeError,
     "asc_sub_scalar", "value"),
    ("A2", "int16", lambda z, x, y: asc.asc_add_scalar(z, x, 40000, 64), ParameterRangeError, "asc_add_scalar",
     "value"),
    ("A2", "float16", lambda z, x, y: asc.asc_set_vector_mask(1 << 64, 0), ParameterRangeError,
     "asc_set_vector_mask", "mask1"),
]


@pytest.mark.parametrize("chip, dtype, call, error, instruction, operand", ERRORS)
def test_rejected_calls_change_nothing_and_name_the_c_function(chip, dtype, call, error, instruction, operand):
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        state = core.register_state()
        with pytest.raises(error) as info:
            call(*tensors(*dtype.split(">")))  # "src>dst" for the casting functions
        assert core.ub_read(0, UB_IMAGE) == image() and core.register_state() == state and not core.sync_log
    assert info.value.instruction == instruction and info.value.operand == operand and info.value.source


def test_asc_sqrt_rejects_a_negative_source_lane_and_writes_nothing():
    """asc_sqrt.md 约束说明 "src只支持设置为正数" (the Memory-level Sqrt page has no such rule: sqrt(-1) is NaN)."""
    with asc.Core("A2") as core:
        core.ub_write(0, image(signed=False))
        z, x, _ = tensors("float32")
        x[70:].write([-0.5])
        asc.asc_sqrt(z, x, 70)  # lane 70 is not among the first 70
        before, state = core.ub_read(0, UB_IMAGE), core.register_state()
        with pytest.raises(ParameterRangeError) as info:
            asc.asc_sqrt_sync(z, x, 71)
        assert info.value.instruction == "asc_sqrt_sync" and info.value.operand == "src" and "lane 70" in str(
            info.value)
        assert core.ub_read(0, UB_IMAGE) == before and core.register_state() == state and not core.sync_log
        asc.asc_set_vector_mask(0, 0xFF)  # lanes 0-7 of repeat 0: lane 70 inactive
        asc.asc_sqrt(z, x, 1, 1, 1, 8, 8)
        x.write([-0.0])
        asc.asc_sqrt(z, x, 1, 1, 1, 8, 8)  # -0 is not negative: sqrt(-0) = -0
        assert core.ub_read(DST, 4) == np.float32(-0.0).tobytes()
        asc.sqrt(z, x, 71)  # the Memory-level Sqrt has no such rule: lane 70 is NaN
        assert np.isnan(np.frombuffer(core.ub_read(DST + 280, 4), np.float32)[0])


def test_unaligned_operands_are_rejected():
    """dst, src0, src1 的起始地址需要32字节对齐 (every page's 约束说明)."""
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        z, x, y = tensors("float16")
        with pytest.raises(ConstraintError) as info:
            asc.asc_add(z, x[8:], y, 64)
        assert info.value.instruction == "asc_add" and core.ub_read(0, UB_IMAGE) == image()


def test_a_later_call_with_a_bad_scalar_is_rejected_although_the_plan_is_shared():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        z, x, _ = tensors("int16")
        asc.asc_sub_scalar(z, x, 5, 64)
        asc.asc_shiftleft(z, x, 3, 64)
        before = core.ub_read(0, UB_IMAGE)
        with pytest.raises(ParameterRangeError):
            asc.asc_sub_scalar(z, x, -32768, 64)
        with pytest.raises(ParameterRangeError):
            asc.asc_shiftleft(z, x, 17, 64)
        assert core.ub_read(0, UB_IMAGE) == before


def test_count_zero_is_a_nop():
    got = run(lambda z, x, y: asc.asc_add(z, x, y, 0), "float32")
    assert got[0] == image() and got[1] == (FULL, FULL)
