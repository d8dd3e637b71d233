"""The flexible scalar position of Adds, Subs, Muls, Divs, Maxs, Mins (基础算术/*（灵活标量位置）.md, the 950),
and of Ands, Ors (逻辑计算; their examples are in test_elementwise_isasi.py):
the scalar on either side, a number or a tensor's first element.

* the pages' worked examples, every one of their six calls (mask 128, mask {UINT64_MAX, UINT64_MAX} with
  repeat 4 and {1, 1, 8, 8}, the count 512; scalar after and before); Subs prints the scalar-after result
  for its scalar-first call (erratum A1 in docs/numerics.md): the formula is tested;
* a hypothesis property against the independent lane reference (``elementwise_reference.lane_bits``,
  operands in the order the page's formula takes them) across forms, strides, masks, dtypes, special
  values and both scalar kinds, on raw UB bytes;
* the constraints (both scalars, the 950 only, the element over dst, the index, dtypes).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OverlapError, ParameterRangeError, UnsupportedError

from . import elementwise_reference as eref
from . import reference_model as ref
from .conftest import fill
from .test_elementwise_isasi import bits_of, read_bits, rejected, special_bits, write_bits

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
N = 512
SPAN = 0x10000
NAMES = ("adds", "subs", "muls", "divs", "maxs", "mins", "ands", "ors")  # ands/ors: 逻辑计算/Ands.md, Ors.md
OPERATION = {"adds": "add", "subs": "sub", "muls": "mul", "divs": "div", "maxs": "max", "mins": "min",
             "ands": "and", "ors": "or"}
DTYPES = {"adds": ["float16", "float32", "bfloat16", "int16", "int32", "int8", "uint8", "int64", "uint64"],
          "subs": ["float16", "float32", "bfloat16", "int16", "int32", "int64", "uint64"],
          "muls": ["float16", "float32", "bfloat16", "int16", "int32", "int64", "uint64"],
          "divs": ["float16", "float32"],
          "maxs": ["float16", "float32", "bfloat16", "int16", "int32", "int8", "uint8", "int64", "uint64"],
          "mins": ["float16", "float32", "bfloat16", "int16", "int32", "int8", "uint8", "int64", "uint64"],
          "ands": ["int16", "uint16", "int64", "uint64"], "ors": ["int16", "uint16", "int64", "uint64"]}
COUNT_ONLY = {"int8", "uint8", "int64", "uint64"}


def t(dtype, addr: int, size: int = N, position=VECIN) -> asc.LocalTensor:
    return asc.LocalTensor(dtype, position, addr, size)


def six_calls(name: str):
    fn = getattr(asc, name)
    params = asc.UnaryRepeatParams(1, 1, 8, 8)
    full = [(1 << 64) - 1, (1 << 64) - 1]
    for scalar_first in (False, True):
        for mask in (128, full, None):
            def call(dst, src0, src1, mask=mask, scalar_first=scalar_first):
                index = {"scalar_tensor_index": 0} if scalar_first else {}
                if mask is None:
                    return fn(dst, src0, src1, 512, **index)
                return fn(dst, src0, src1, mask, 4, params, **index)
            yield scalar_first, call


# (name, src0, src1, scalar-first printed, scalar-after printed): the pages' 结果示例 (the whole arithmetic
# progressions they abbreviate), half data
EXAMPLES = [
    ("adds", range(1, 513), range(1, 513), [v + 1 for v in range(1, 513)], [v + 1 for v in range(1, 513)]),
    ("subs", range(1, 513), range(1, 513), list(range(0, 512)), list(range(0, 512))),
    ("muls", range(1, 513), [2] * 512, [2] * 512, [2 * v for v in range(1, 513)]),
    ("maxs", range(1, 513), [2] * 512, [2] * 512, [max(v, 2) for v in range(1, 513)]),
    ("mins", range(1, 513), [2] * 512, [1] * 512, [min(v, 2) for v in range(1, 513)]),
]


@pytest.mark.parametrize(("name", "src0", "src1", "first", "after"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_worked_examples(name, src0, src1, first, after):
    src0, src1 = list(src0), list(src1)
    operation = {"adds": lambda s, x: s + x, "subs": lambda s, x: s - x, "muls": lambda s, x: s * x,
                 "maxs": max, "mins": min}[name]
    by_formula_first = [operation(src0[0], x) for x in src1]  # dst_i = src0[0] op src1_i
    by_formula_after = [operation(x, src1[0]) if name != "subs" else x - src1[0] for x in src0]
    assert by_formula_after == after
    if name == "subs":
        assert by_formula_first[:4] == [0, -1, -2, -3] != first[:4]  # erratum A1: the page repeats the after line
    else:
        assert by_formula_first == first
    for scalar_first, call in six_calls(name):
        with asc.Core("950"):
            a, b, dst = t(asc.float16, 0), t(asc.float16, 2048), t(asc.float16, 4096, position=VECOUT)
            write_bits(a, bits_of(src0, "float16"))
            write_bits(b, bits_of(src1, "float16"))
            call(dst, a, b)
            assert read_bits(dst) == bits_of(by_formula_first if scalar_first else by_formula_after, "float16")


def test_divs_worked_examples():
    """Divs（灵活标量位置）.md: [2 4 ... 1024] / [2] = [1 2 ... 512]; [1024] / [2 2 ... 2] = [512 ... 512]."""
    for scalar_first, call in six_calls("divs"):
        with asc.Core("950"):
            a, b, dst = t(asc.float16, 0), t(asc.float16, 2048), t(asc.float16, 4096, position=VECOUT)
            write_bits(a, bits_of([1024] * N if scalar_first else range(2, 1025, 2), "float16"))
            write_bits(b, bits_of([2] * N, "float16"))
            call(dst, a, b)
            assert read_bits(dst) == bits_of([512] * N if scalar_first else range(1, 513), "float16")


@st.composite
def cases(draw):
    name = draw(st.sampled_from(NAMES))
    fmt = draw(st.sampled_from(DTYPES[name]))
    size = ref.FORMATS[fmt][0]
    lanes = 256 // size
    form = draw(st.sampled_from(["count"] if fmt in COUNT_ONLY else ["count", "mask", "bits"]))
    if form == "count":
        shape = {"count": draw(st.integers(1, 3 * lanes))}
    else:
        words = st.lists(st.integers(0, (1 << 64) - 1), min_size=2, max_size=2).filter(any)
        if size == 4:
            words = st.tuples(st.integers(1, (1 << 64) - 1), st.just(0)).map(list)
        shape = {"mask": draw(st.integers(1, lanes)) if form == "mask" else draw(words),
                 "repeats": draw(st.integers(1, 3)), "blk": (draw(st.integers(1, 2)), draw(st.integers(1, 2))),
                 "rep": (draw(st.integers(8, 16)), draw(st.integers(8, 16)))}
    scalar = draw(special_bits(fmt))
    if ref.FORMATS[fmt][1] != "float":
        scalar = draw(st.integers(0, (1 << (8 * size)) - 1))
    return (name, fmt, form, draw(st.sampled_from(["src0", "src1"])), draw(st.booleans()), scalar, shape,
            draw(st.booleans()))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_flexible_forms_match_the_reference(case):
    name, fmt, form, scalar_side, element, scalar, shape, saturate = case
    dtype = getattr(asc, fmt)
    size = dtype.itemsize
    with asc.Core("950") as core:
        core.float_saturation = saturate
        fill(core, 0, SPAN, seed=len(str(case)))
        vector, dst = t(dtype, 0, 0x4000 // size), t(dtype, 0x8000, 0x4000 // size, VECOUT)
        if element:
            operand = t(dtype, 0x6000, 32 // size)
            write_bits(operand, [scalar] * (32 // size))
        else:
            operand = ref.python_number(scalar, fmt)
        operands = (operand, vector) if scalar_side == "src0" else (vector, operand)
        index = {"scalar_tensor_index": 0 if scalar_side == "src0" else 1} if element else {}
        before = bytearray(core.ub_read(0, SPAN))
        fn = getattr(asc, name)
        if form == "count":
            fn(dst, *operands, shape["count"], **index)
        else:
            params = asc.UnaryRepeatParams(shape["blk"][0], shape["blk"][1], shape["rep"][0], shape["rep"][1])
            fn(dst, *operands, shape["mask"], shape["repeats"], params, **index)
        after = core.ub_read(0, SPAN)
    if form == "count":
        lanes = ref.counter_lanes(shape["count"], size)
        active = [(r, j) for r in range(lanes.repeats) for j in range(lanes.lanes) if lanes.active(r, j)]
        strides = [(1, 8), (1, 8)]
    else:
        active = [(r, j) for r in range(shape["repeats"]) for j in ref.active_lanes_normal(shape["mask"], size)]
        strides = [(shape["blk"][0], shape["rep"][0]), (shape["blk"][1], shape["rep"][1])]
    sat = saturate and fmt == "float16"
    reads = [(r, j, ref.load(before, ref.lane_address(0, r, j, size, *strides[1]), size)) for r, j in active]
    for r, j, bits in reads:
        pair = (scalar, bits) if scalar_side == "src0" else (bits, scalar)
        ref.store(before, ref.lane_address(0x8000, r, j, size, *strides[0]), size,
                  eref.lane_bits(OPERATION[name], fmt, *pair, sat))
    assert after == bytes(before)


C = VECOUT
H = asc.float16
CASES = [
    ("adds scalar first on the A2", "A2", lambda: asc.adds(t(H, 0, 64, C), 1.0, t(H, 256, 64), 64),
     UnsupportedError, "adds", "product"),
    ("muls element on the A3", "A3", lambda: asc.muls(t(H, 0, 64, C), t(H, 256, 64), t(H, 512, 16), 64),
     UnsupportedError, "muls", "product"),
    ("subs on the A2", "A2", lambda: asc.subs(t(H, 0, 64, C), t(H, 256, 64), 1.0, 64),
     UnsupportedError, "subs", "product"),
    ("divs int16", "950", lambda: asc.divs(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64), 2, 64),
     UnsupportedError, "divs", "dst dtype"),
    ("subs int64 in a mask form", "950", lambda: asc.subs(t(asc.int64, 0, 64, C), 3, t(asc.int64, 512, 64), 32, 1,
                                                          asc.UnaryRepeatParams()),
     UnsupportedError, "subs", "dst dtype"),
    ("maxs two scalars", "950", lambda: asc.maxs(t(H, 0, 64, C), 1.0, 2.0, 64), UnsupportedError, "maxs",
     "src0/src1"),
    ("mins scalar_tensor_index -1", "950", lambda: asc.mins(t(H, 0, 64, C), t(H, 256, 64), t(H, 512, 16), 64,
                                                            scalar_tensor_index=-1),
     ParameterRangeError, "mins", "scalar_tensor_index"),
    ("divs element over dst", "950", lambda: asc.divs(t(H, 0, 64, C), t(H, 96, 16), t(H, 256, 64), 64,
                                                      scalar_tensor_index=0),
     OverlapError, "divs", "src0 / dst"),
    ("subs element of another type", "950", lambda: asc.subs(t(H, 0, 64, C), t(H, 256, 64), t(asc.float32, 512, 8),
                                                             64),
     UnsupportedError, "subs", "src1 dtype"),
    ("adds scalar-first number outside int16", "950", lambda: asc.adds(t(asc.int16, 0, 64, C), 40000,
                                                                       t(asc.int16, 256, 64), 64),
     ParameterRangeError, "adds", "src0"),
    ("subs count 0", "950", lambda: asc.subs(t(H, 0, 64, C), 1.0, t(H, 256, 64), 0),
     ParameterRangeError, "subs", "count"),
]


@pytest.mark.parametrize(("chip", "call", "error", "instruction", "operand"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_constraints(chip, call, error, instruction, operand):
    rejected(call, error, chip, instruction=instruction, operand=operand)


def test_the_scalar_after_forms_stay_on_every_product():
    with asc.Core("A2"):
        x, z = t(H, 0, 128), t(H, 256, 128, C)
        write_bits(x, bits_of([3] * 128, "float16"))
        asc.adds(z, x, 1.0, 128)
        assert read_bits(z) == bits_of([4] * 128, "float16")


def test_is_set_mask_false_takes_the_mask_register():
    with asc.Core("950"):
        x, z = t(H, 0, 128), t(H, 256, 128, C)
        write_bits(x, bits_of([3] * 128, "float16"))
        write_bits(z, [0] * 128)
        asc.set_vector_mask(0, 0b101)
        asc.subs(z, 10.0, x, 0, 1, asc.UnaryRepeatParams(), is_set_mask=False)
        assert read_bits(z)[:4] == bits_of([7, 0, 7, 0], "float16")
