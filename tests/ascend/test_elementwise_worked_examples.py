"""The worked examples printed on the pages of the issue-14 element-wise instructions.

Each page's 调用示例 runs one 512-element tensor through three calls (mask contiguous with
repeat 4 and {1, 1, 8, 8}, mask bit-wise {UINT64_MAX, UINT64_MAX}, and the count form) and
prints the head and tail of the input and of the result.  Every call form is run here and
checked at the printed positions.  Pages print with four significant digits (half) or as
integers; where a page's numbers are not values of the dtype, the test says so and checks
what the page can tell (errata list in docs/numerics.md).  The dtype is not stated by most
pages: the one the printed values fit is used (half for the float pages, int16 for integers).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from npusim import ascend as asc

from . import elementwise_reference as eref
from . import reference_model as ref

N = 512
BASE = "SIMD-API/基础API/Memory矢量计算"


def progression(start, step=1):
    return [start + step * i for i in range(N)]


def place(head, tail, filler):
    """A 512-element input with the printed head and tail and a neutral filler between."""
    values = [filler] * N
    values[:len(head)] = head
    if tail:
        values[N - len(tail):] = tail
    return values


def positions(head, tail):
    return list(range(len(head))) + list(range(N - len(tail), N))


def run_forms(name: str, dtype, sources: list[list], scalar=None, chip="A2") -> list[np.ndarray]:
    """The page's three calls; the result of each (512 elements of dtype)."""
    lanes = 256 // dtype.itemsize
    results = []
    for form in ("mask", "bits", "count"):
        with asc.Core(chip):
            tensors = []
            for k, values in enumerate(sources):
                t = asc.LocalTensor(dtype, asc.TPosition.VECIN, k * N * 4, N)
                t.write(np.array(values, dtype=dtype.np_dtype))
                tensors.append(t)
            dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, len(sources) * N * 4, N)
            dst.write(np.zeros(N, dtype.np_dtype))
            operands = [dst, *tensors] + ([] if scalar is None else [scalar])
            params = asc.BinaryRepeatParams() if len(sources) == 2 else asc.UnaryRepeatParams()
            function = getattr(asc, name)
            if form == "mask":
                function(*operands, lanes, N // lanes, params)
            elif form == "bits":
                function(*operands, [(1 << 64) - 1, (1 << 64) - 1 if dtype.itemsize == 2 else 0], N // lanes,
                         params)
            else:
                function(*operands, N)
            results.append(dst.read())
    return results


def half_bits(value) -> int:
    return ref.scalar_to_bits(float(value), "float16")


def four_digits(value) -> str:
    return f"{float(value):.4g}"


# ------------------------------------------------------------------ integer pages
INTEGER_PAGES = {
    # page: (instruction, sources, scalar, printed output head, tail)
    "逻辑计算/And.md": ("bitwise_and", [progression(1), progression(513, -1)], None, [1, 0, 3], [0]),
    "逻辑计算/Or.md": ("bitwise_or", [progression(1), progression(513, -1)], None, [513, 514, 511], [514]),
    "逻辑计算/ShiftLeft.md": ("shift_left", [progression(1)], 2, [4, 8, 12], [2048]),
    "逻辑计算/ShiftRight.md": ("shift_right", [progression(1)], 2, [0, 0, 0, 1, 1, 1, 1], [128]),
    "基础算术/Maxs.md": ("maxs", [progression(1)], 2, [2, 2, 3], [512]),
    "基础算术/Mins.md": ("mins", [progression(1)], 2, [1, 2, 2], [2]),
}


@pytest.mark.parametrize("page", sorted(INTEGER_PAGES))
def test_integer_page_examples(page):
    name, sources, scalar, head, tail = INTEGER_PAGES[page]
    for result in run_forms(name, asc.int16, sources, scalar):
        assert [int(result[i]) for i in positions(head, tail)] == head + tail, page


def test_not_page_example():
    # 逻辑计算/Not.md: [9 -2 8 ... 9 0] -> [-10 1 -9 ... -10 -1]
    source = place([9, -2, 8], [9, 0], 5)
    for result in run_forms("bitwise_not", asc.int16, [source]):
        assert [int(result[i]) for i in positions([9, -2, 8], [9, 0])] == [-10, 1, -9, -10, -1]


@pytest.mark.parametrize("dtype", [asc.int16, asc.half])
def test_add_relu_and_sub_relu_page_examples(dtype):
    # 复合计算/AddRelu.md: [1 -2 3 ... -6] + [1 3 -4 ... 5] -> [2 1 0 ... 0]
    a, b = place([1, -2, 3], [-6], 1), place([1, 3, -4], [5], 1)
    for result in run_forms("add_relu", dtype, [a, b]):
        assert [float(result[i]) for i in positions([1, 2, 3], [4])] == [2, 1, 0, 0]
    # 复合计算/SubRelu.md: [1 2 3 ... 512] - [0 1 4 ... 513] -> [1 1 0 ... 0]
    b = place([0, 1, 4], [513], 0)
    for result in run_forms("sub_relu", dtype, [progression(1), b]):
        assert [float(result[i]) for i in positions([1, 2, 3], [4])] == [1, 1, 0, 0]


# -------------------------------------------------------------------- float pages
def test_div_page_example():
    # 基础算术/Div.md: [1.0 2.0 ... 512.0] / [2.0 ...] -> [0.5 1.0 1.5 ... 256.0] (every element printed by pattern)
    for result in run_forms("div", asc.half, [progression(1.0), [2.0] * N]):
        assert result.tolist() == progression(0.5, 0.5)


def test_relu_page_example():
    # 基础算术/Relu.md: [6.938 -8.86 -0.2263 ... 1.971 1.778] -> [6.938 0 0 ... 1.971 1.778]
    head, tail = [6.938, -8.86, -0.2263], [1.971, 1.778]
    for result in run_forms("relu", asc.half, [place(head, tail, 1.0)]):
        printed = [6.938, 0, 0, 1.971, 1.778]
        assert [four_digits(result[i]) for i in positions(head, tail)] == [four_digits(v) for v in printed]


def test_leaky_relu_page_example():
    # 基础算术/LeakyRelu.md, scalar 0.001: printed with three decimals
    head = [-287.0, 246.0, -438.0, 177.0, 596.0, -950.0, -293.0, 322.0]
    printed = ["-0.287", "246.000", "-0.438", "177.000", "596.000", "-0.950", "-0.293", "322.000", "-0.900"]
    for result in run_forms("leaky_relu", asc.half, [place(head, [-900.0], 1.0)], 0.001):
        assert [f"{float(result[i]):.3f}" for i in positions(head, [-900.0])] == printed


@pytest.mark.parametrize("name, inputs, printed", [
    ("sqrt", [1.0, 2.0, 3.0, 4.0], [1.0, 1.414, 1.732, 2.0]),     # 基础算术/Sqrt.md
    ("exp", [0.0, 1.0, 2.0, 3.0], [1.0, 2.719, 7.391, 20.08]),    # 基础算术/Exp.md
])
def test_correctly_rounded_pages_print_what_npusim_computes(name, inputs, printed):
    for result in run_forms(name, asc.half, [place(inputs, [], 1.0)]):
        assert [four_digits(result[i]) for i in range(4)] == [four_digits(v) for v in printed]


def test_ln_page_prints_exact_logarithms_not_half_values():
    # 基础算术/Ln.md prints [0 0.6931 1.0986 1.3863] for [1 2 3 4]: exact ln to four decimals, not half values
    # (erratum B1); npusim's half results lie within one half ulp of them.
    printed = [0.0, 0.6931, 1.0986, 1.3863]
    for result in run_forms("ln", asc.half, [place([1.0, 2.0, 3.0, 4.0], [], 1.0)]):
        for i, value in enumerate(printed):
            assert eref.ulps_apart(int(result[i:i + 1].view(np.uint16)[0]), half_bits(value), "float16") <= 1


@pytest.mark.parametrize("name, head, tail, printed_head, printed_tail, offsets", [
    # 基础算术/Reciprocal.md: the printed magnitudes lie -1, 0, 0, +2, -4 half ulps from the correctly rounded ones
    ("reciprocal", [-7.152, -7.24, 1.771], [-1.339, 4.473], [-0.1396, -0.1382, 0.5645], [-0.748, 0.2231],
     [-1, 0, 0, 2, -4]),
    # 基础算术/Rsqrt.md: -2, +3, -1, -3, -1 half ulps
    ("rsqrt", [0.8335, 2.2, 2.672], [2.312, 5.36], [1.094, 0.676, 0.6113], [0.6562, 0.4316], [-2, 3, -1, -3, -1]),
])
def test_low_accuracy_pages_differ_from_the_model_by_the_documented_ulps(name, head, tail, printed_head,
                                                                          printed_tail, offsets):
    """npusim's accuracy model is the correctly rounded result; the hardware's (the page's) is a few ulps off."""
    for result in run_forms(name, asc.half, [place(head, tail, 1.0)]):
        got = result.view(np.uint16)
        for i, printed, offset in zip(positions(head, tail), printed_head + printed_tail, offsets, strict=True):
            expected = eref.lane_bits(name, "float16", half_bits(([*head, *tail])[positions(head, tail).index(i)]),
                                      None, True)
            assert int(got[i]) == expected
            assert half_bits(printed) - int(got[i]) == offset, (name, i, printed)  # in ulps of the magnitude


# ---------------------------------------------------------------- multiply-add pages
MULTIPLY_ADD_DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "multiply_add_examples.json")
                               .read_text(encoding="utf-8"))


def multiply_add_forms(name: str, src0, src1, dst) -> list[np.ndarray]:
    """The page's three calls (mask 128 / bit-wise, repeat 2, {1, 1, 1, 8, 8, 8}; count 256), each on fresh data."""
    results = []
    for form in ("mask", "bits", "count"):
        with asc.Core("A2"):
            a, b, d = (asc.LocalTensor(asc.half, asc.TPosition.VECIN, k * 1024, 256) for k in range(3))
            a.write(np.array(src0)), b.write(np.array(src1)), d.write(np.array(dst))
            function = getattr(asc, name)
            if form == "count":
                function(d, a, b, 256)
            else:
                mask = 128 if form == "mask" else [(1 << 64) - 1, (1 << 64) - 1]
                function(d, a, b, mask, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
            results.append(d.read().view(np.uint16))
    return results


@pytest.mark.parametrize("page, name", [("复合计算/FusedMulAdd.md", "fused_mul_add"),
                                        ("复合计算/MulAddRelu.md", "fused_mul_add_relu")])
def test_multiply_add_pages_every_printed_element(page, name):
    """All 256 printed results, bit for bit (the printed four digits pin each half): the A2's two roundings.
    A single fused rounding would miss 70 (FusedMulAdd) and 38 (MulAddRelu) of them (docs/numerics.md)."""
    data = MULTIPLY_ADD_DATA[page]
    printed = [half_bits(v) for v in data["out"]]
    for result in multiply_add_forms(name, data["src0"], data["src1"], data["dst"]):
        assert result.tolist() == printed
    fused = [eref.multiply_add_bits(name, "float16", [half_bits(x), half_bits(y), half_bits(z)], True, True)
             for x, y, z in zip(data["src0"], data["src1"], data["dst"], strict=True)]
    misses = sum(f != p for f, p in zip(fused, printed, strict=True))
    assert misses == {"fused_mul_add": 70, "fused_mul_add_relu": 38}[name]


def test_axpy_page_example():
    # 复合计算/Axpy.md: dst = 0, src = [1 2 ... 512], scalar (half)2.0 -> [2 4 ... 1024]; the page's calls:
    # mask 128 x 4 {1,1,8,8}, bit-wise x 4, and the count form
    for form in ("mask", "bits", "count"):
        with asc.Core("A2"):
            src = asc.LocalTensor(asc.half, asc.TPosition.VECIN, 0, N)
            dst = asc.LocalTensor(asc.half, asc.TPosition.VECOUT, 2048, N)
            src.write(np.array(progression(1.0))), dst.write(np.zeros(N))
            if form == "count":
                asc.axpy(dst, src, 2.0, N)
            else:
                mask = 128 if form == "mask" else [(1 << 64) - 1, (1 << 64) - 1]
                asc.axpy(dst, src, 2.0, mask, 4, asc.UnaryRepeatParams(1, 1, 8, 8))
            assert dst.read().tolist() == progression(2.0, 2.0)
    # and its half-source float-dst call: mask 64 x 8, {1, 1, 8, 4} ("每次迭代选取源操作数前4个datablock")
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.half, asc.TPosition.VECIN, 0, N)
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, N)
        src.write(np.array(progression(1.0))), dst.write(np.zeros(N))
        asc.axpy(dst, src, 2.0, 64, 8, asc.UnaryRepeatParams(1, 1, 8, 4))
        assert dst.read().tolist() == progression(2.0, 2.0)


MIXED_DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "mul_add_dst_mixed_example.json")
                        .read_text(encoding="utf-8"))


def test_mul_add_dst_half_sources_float_dst_page_example():
    """复合计算/MulAddDst.md: half src0, src1 and a float dst, 256 lanes, every one printed.  The printed tokens
    are numpy's shortest representations (half: up to 4 digits; float: 8 or 9 significant digits), so each
    pins one value; all 256 results come out bit for bit from each of the page's three calls (mask 64 and
    bit-wise {UINT64_MAX, 0}, repeat 4, {1, 1, 1, 8, 4, 4}; count 256), on the A2 and the 950."""
    src0, src1 = (np.array([np.float16(float(v)) for v in MIXED_DATA[k]]) for k in ("src0", "src1"))
    old = np.array([np.float32(float(v)) for v in MIXED_DATA["dst"]])
    printed = np.array([np.float32(float(v)) for v in MIXED_DATA["out"]]).view(np.uint32)
    for chip in ("A2", "950"):
        for form in ("mask", "bits", "count"):
            with asc.Core(chip):
                a, b = (asc.LocalTensor(asc.half, asc.TPosition.VECIN, k * 512, 256) for k in range(2))
                d = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 256)
                a.write(src0), b.write(src1), d.write(old)
                if form == "count":
                    asc.mul_add_dst(d, a, b, 256)
                else:
                    mask = 64 if form == "mask" else [(1 << 64) - 1, 0]
                    asc.mul_add_dst(d, a, b, mask, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 4, 4))
                assert d.read().view(np.uint32).tolist() == printed.tolist(), (chip, form)
    # the independent reference agrees; rounding the product to half first would miss every lane
    bits = [[int(v) for v in x.view(np.uint16 if x.dtype == np.float16 else np.uint32)] for x in (src0, src1, old)]
    assert [eref.mixed_multiply_add_bits("mul_add_dst", list(t)) for t in zip(*bits, strict=True)] == printed.tolist()
    product_in_half = (src0 * src1).astype(np.float32) + old
    assert int((product_in_half.view(np.uint32) != printed).sum()) == 256
