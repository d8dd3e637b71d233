"""Printed worked examples of the Memory-level and C API pages that no other test reproduced.

Each test runs the page's 调用示例 (or 更多样例) calls on the printed inputs and compares the raw bytes
of the result with the printed output (docs/worked-examples.md lists every printed example and the
test that reproduces it).  Where a page abbreviates a tensor as ``[a b c ... z]``, the inputs are the
progressions it states and the check covers the printed positions and the progression the ellipsis
stands for.  The pages do not say the dtype of the counting examples: the one the printed values fit
is used (half, and int16 where every value is an integer in range).
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.adv import quant
from npusim.errors import ParameterRangeError

from .test_elementwise_worked_examples import N, place, positions, progression, run_forms

ALL_ONES = (1 << 64) - 1
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT


def bits(values, dtype) -> bytes:
    return np.array(values, dtype=dtype.np_dtype).tobytes()


# ------------------------------------------------------------------ 基础算术: the two-source pages
BINARY_PAGES = {
    # page: (instruction, src0, src1, printed head, printed tail, the progression the ellipsis stands for)
    "基础算术/Add.md": ("add", progression(1), progression(513), [514, 516, 518], [1536], progression(514, 2)),
    "基础算术/Sub.md": ("sub", progression(1), progression(513), [-512] * 3, [-512], [-512] * N),
    "基础算术/Mul.md": ("mul", progression(1), [2] * N, [2, 4, 6], [1024], progression(2, 2)),
    "基础算术/Max.md": ("max", progression(1), progression(513, -1), [513, 512, 511], [512],
                      [max(a, b) for a, b in zip(progression(1), progression(513, -1), strict=True)]),
    "基础算术/Min.md": ("min", progression(1), progression(513, -1), [1, 2, 3], [2],
                      [min(a, b) for a, b in zip(progression(1), progression(513, -1), strict=True)]),
}


@pytest.mark.parametrize("dtype", [asc.half, asc.int16], ids=["half", "int16"])
@pytest.mark.parametrize("page", sorted(BINARY_PAGES))
def test_binary_page_examples(page, dtype):
    """mask 128 x 4 {1, 1, 1, 8, 8, 8}, the bit-wise mask {UINT64_MAX, UINT64_MAX} and the count form 512."""
    name, src0, src1, head, tail, whole = BINARY_PAGES[page]
    assert [whole[i] for i in positions(head, tail)] == head + tail  # the printed positions of the progression
    for result in run_forms(name, dtype, [src0, src1]):
        assert result.tobytes() == bits(whole, dtype), page


SCALAR_PAGES = {
    # page: (instruction, scalar, printed head, printed tail, the progression)
    "基础算术/Adds.md": ("adds", 2, [3, 4, 5], [514], progression(3)),
    "基础算术/Muls.md": ("muls", 2, [2, 4, 6], [1024], progression(2, 2)),
}


@pytest.mark.parametrize("dtype", [asc.half, asc.int16], ids=["half", "int16"])
@pytest.mark.parametrize("page", sorted(SCALAR_PAGES))
def test_scalar_page_examples(page, dtype):
    """[1 2 3 ... 512] with the scalar 2, in the page's three call forms."""
    name, scalar, head, tail, whole = SCALAR_PAGES[page]
    assert [whole[i] for i in positions(head, tail)] == head + tail
    for result in run_forms(name, dtype, [progression(1)], scalar):
        assert result.tobytes() == bits(whole, dtype), page


def test_abs_page_example():
    """基础算术/Abs.md: [0.0 -1.0 2.0 -3.0 ...] -> [0.0 1.0 2.0 3.0 ...], printed once per call form
    (mask 128 x 4 {1, 1, 8, 8}, bit-wise, count 512); the elided lanes hold a filler of -5."""
    source = place([0.0, -1.0, 2.0, -3.0], [], -5.0)
    expected = [0.0, 1.0, 2.0, 3.0] + [5.0] * (N - 4)
    for result in run_forms("abs", asc.half, [source]):
        assert result.tobytes() == bits(expected, asc.half)


# ------------------------------------------------------------------ 基础算术/更多样例-9.md: Add with gaps
def _add_once(dtype, mask, repeats, params) -> np.ndarray:
    sentinel = 7
    with asc.Core("A2"):
        a = asc.LocalTensor(dtype, VECIN, 0, N)
        b = asc.LocalTensor(dtype, VECIN, 2048, N)
        dst = asc.LocalTensor(dtype, VECOUT, 4096, N)
        a.write(np.array(progression(1), dtype.np_dtype))
        b.write(np.array(progression(513), dtype.np_dtype))
        dst.write(np.full(N, sentinel, dtype.np_dtype))
        asc.add(dst, a, b, mask, repeats, asc.BinaryRepeatParams(*params))
        return dst.read()


def _expect(written: dict[int, int], dtype) -> bytes:
    """The printed values at their lanes; "undefined" lanes are not written (they keep dst's 7)."""
    out = [7] * N
    for lane, value in written.items():
        out[lane] = value
    return bits(out, dtype)


@pytest.mark.parametrize("dtype", [asc.half, asc.int16], ids=["half", "int16"])
@pytest.mark.parametrize("mask", [64, [ALL_ONES, 0]], ids=["mask-64", "bitwise-first-64"])
def test_more_examples_first_64_of_each_repeat(mask, dtype):
    """The first two examples: [514 516 518 ... 640 undefined ...] per repeat row (770 ... 896, 1026 ...
    1152, 1282 ... 1408): lane 128r + k of repeat r gets (128r + k + 1) + (128r + k + 513)."""
    printed_rows = [(514, 640), (770, 896), (1026, 1152), (1282, 1408)]
    written = {128 * r + k: 514 + 2 * (128 * r + k) for r in range(4) for k in range(64)}
    for r, (first, last) in enumerate(printed_rows):
        assert written[128 * r] == first and written[128 * r + 63] == last
    assert _add_once(dtype, mask, 4, (1, 1, 1, 8, 8, 8)).tobytes() == _expect(written, dtype)


@pytest.mark.parametrize("dtype", [asc.half, asc.int16], ids=["half", "int16"])
def test_more_examples_src0_repeat_stride_16(dtype):
    """{1, 1, 1, 8, 16, 8}, 2 repeats: [514 516 518 ... 768 898 900 902 ... 1150 1152 undefined ...]."""
    written = {k: 514 + 2 * k for k in range(128)}
    written.update({128 + j: (257 + j) + (641 + j) for j in range(128)})
    assert [written[i] for i in (0, 1, 2, 127, 128, 129, 130, 254, 255)] == [514, 516, 518, 768, 898, 900, 902,
                                                                             1150, 1152]
    assert _add_once(dtype, 128, 2, (1, 1, 1, 8, 16, 8)).tobytes() == _expect(written, dtype)


@pytest.mark.parametrize("dtype", [asc.half, asc.int16], ids=["half", "int16"])
def test_more_examples_src0_block_stride_2(dtype):
    """{1, 2, 1, 8, 16, 8}, 2 repeats: DataBlock b of repeat r reads src0's block 16r + 2b: the printed
    runs 514 ... 544, 562 ... 592, ..., 1234 ... 1264 (16 lanes each), then undefined."""
    written = {}
    for r in range(2):
        for b in range(8):
            for i in range(16):
                lane = 128 * r + 16 * b + i
                written[lane] = (256 * r + 32 * b + i + 1) + (lane + 513)
    runs = [(written[16 * k], written[16 * k + 15]) for k in range(16)]
    assert runs == [(514, 544), (562, 592), (610, 640), (658, 688), (706, 736), (754, 784), (802, 832),
                    (850, 880), (898, 928), (946, 976), (994, 1024), (1042, 1072), (1090, 1120), (1138, 1168),
                    (1186, 1216), (1234, 1264)]
    assert _add_once(dtype, 128, 2, (1, 2, 1, 8, 16, 8)).tobytes() == _expect(written, dtype)


# ------------------------------------------------------------------ 数据填充/Duplicate.md
@pytest.mark.parametrize("form", ["mask", "bits", "count"])
def test_duplicate_page_example(form):
    """half 18.0: mask 128 x 2 (dst block stride 1, repeat stride 8), the bit-wise mask, count 256 ->
    [18.0 18.0 18.0 ... 18.0 18.0]."""
    with asc.Core("A2"):
        dst = asc.LocalTensor(asc.half, VECOUT, 0, 256)
        dst.write(np.zeros(256, np.float16))
        if form == "count":
            asc.duplicate(dst, 18.0, 256)
        else:
            asc.duplicate(dst, 18.0, 128 if form == "mask" else [ALL_ONES, ALL_ONES], 2, 1, 8)
        assert dst.read().tobytes() == bits([18.0] * 256, asc.half)


# ------------------------------------------------------------------ 数据搬运: the identity copies
def _gm(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


@pytest.mark.parametrize("form", ["count", "params"], ids=["GM与UB连续数据搬运", "GM与UB高维切分数据搬运"])
def test_data_copy_gm_ub_gm_page_examples(form):
    """[1 2 3 ... 512] half GM -> UB -> GM, count 512 (连续) or DataCopyParams {1, 32, 0, 0} (高维切分):
    both pages print the input unchanged on each side."""
    printed = np.arange(1, 513, dtype=np.float16)
    out = np.zeros(512, np.float16)
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(asc.half, VECIN, 0, 512)
        how = (512,) if form == "count" else (asc.DataCopyParams(1, 512 * 2 // 32, 0, 0),)
        asc.data_copy(ub, _gm(printed.copy()), *how)
        assert core.ub_read(0, 1024) == printed.tobytes()
        asc.data_copy(_gm(out), ub, *how)
    assert out.tobytes() == printed.tobytes()


def test_data_copy_ub_to_ub_page_example():
    """UBToUB连续数据搬运(DataCopy).md: [1 2 3 ... 512] -> [1 2 3 ... 512] (count 512)."""
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.half, VECIN, 0, 512)
        dst = asc.LocalTensor(asc.half, VECOUT, 2048, 512)
        src.write(np.arange(1, 513, dtype=np.float16))
        asc.data_copy(dst, src, 512)
        assert core.ub_read(2048, 1024) == np.arange(1, 513, dtype=np.float16).tobytes()


# ------------------------------------------------------------------ the C API pages
def _c_run(call, dtype, src_values, dst_length, chip="A2", src_length=None):
    with asc.Core(chip) as core:
        n = src_length or len(src_values)
        src = asc.LocalTensor(dtype, VECIN, 0, n)
        dst = asc.LocalTensor(dtype, VECOUT, 0x4000, dst_length)
        src.write(np.array(src_values, dtype.np_dtype))
        dst.write(np.zeros(dst_length, dtype.np_dtype))
        call(dst, src)
        return core.ub_read(0x4000, dst_length * dtype.itemsize)


def test_asc_brcb_page_example():
    """asc_brcb.md: uint16 src [1 2 3 ... 16], asc_brcb(dst, src, 1, 8, 2) -> 16 copies of each."""
    out = _c_run(lambda z, x: asc.asc_brcb(z, x, 1, 8, 2), asc.uint16, range(1, 17), 256)
    assert out == bits(np.repeat(np.arange(1, 17), 16), asc.uint16)


@pytest.mark.parametrize("name, source, printed", [
    ("asc_datablock_reduce_max", range(1, 257), [16 * (b + 1) for b in range(16)]),  # [16 32 ... 256]
    ("asc_datablock_reduce_min", range(1, 257), [16 * b + 1 for b in range(16)]),  # [1 17 ... 225]
    ("asc_datablock_reduce_sum", [1] * 256, [16] * 16),  # [16 16 16 ... 16]
])
def test_asc_datablock_reduce_page_examples(name, source, printed):
    """256 halves, mask register all ones (normal mode), asc_datablock_reduce_*(dst, src, 2, 1, 1, 8)."""
    def call(z, x):
        asc.asc_set_mask_norm()
        asc.asc_set_vector_mask(ALL_ONES, ALL_ONES)
        getattr(asc, name)(z, x, 2, 1, 1, 8)
    assert _c_run(call, asc.half, list(source), 16) == bits(printed, asc.half)


def test_asc_pair_reduce_sum_page_example():
    """asc_pair_reduce_sum.md: [1 2 3 ... 256] -> [3 7 ... 511] (repeat 2, strides 1, 1, 8; mask register
    all ones, the core's state at start).  The page declares dst[16]: the 128 sums need 128 (erratum E10,
    docs/worked-examples.md)."""
    def call(z, x):
        asc.asc_set_vector_mask(ALL_ONES, ALL_ONES)
        asc.asc_pair_reduce_sum(z, x, 2, 1, 1, 8)
    out = _c_run(call, asc.half, list(range(1, 257)), 128)
    assert out == bits([4 * k + 3 for k in range(128)], asc.half)  # 1+2, 3+4, ..., 255+256


@pytest.mark.parametrize("name, source, value", [
    ("asc_repeat_reduce_max_value_index", range(1, 257), [128, 256]),  # [128, 7.6e-6, 256, 7.6e-6]
    ("asc_repeat_reduce_min_value_index", range(256, 0, -1), [129, 1]),  # [129, 7.6e-6, 1, 7.6e-6]
])
def test_asc_repeat_reduce_value_index_page_examples(name, source, value):
    """Repeat 2, dst_repeat_stride 1, src strides 1 and 8: per repeat (value, index 127).  The page prints the
    index slot as the half 7.6e-6, "0x007F read as uint32": the slot's two bytes are 0x007F."""
    def call(z, x):
        asc.set_vector_mask(ALL_ONES, ALL_ONES)
        getattr(asc, name)(z, x, 2, 1, 1, 8)
    out = _c_run(call, asc.half, list(source), 4)
    index = np.array([0x007F], np.uint16).view(np.float16)[0]
    assert f"{float(index):.2g}" == "7.6e-06"
    assert out == bits([value[0], index, value[1], index], asc.half)


def test_asc_eq_scalar_page_example():
    """asc_eq_scalar.md: half [1 2 3 ... 128] == 20, repeat 1, strides 1, 1, 8, 8: dst [0, 0, 8, ..., 0]."""
    def call(z, x):
        asc.set_vector_mask(ALL_ONES, ALL_ONES)
        asc.asc_eq_scalar(z, x, 20, 1, 1, 1, 8, 8)
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.half, VECIN, 0, 128)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x4000, 32)
        src.write(np.arange(1, 129, dtype=np.float16))
        dst.write(np.zeros(32, np.uint8))
        call(dst, src)
        out = core.ub_read(0x4000, 16)
    assert out == bytes([0, 0, 0b00001000] + [0] * 13)


def test_asc_gather_page_example():
    """asc_gather.md: half [1 2 ... 128], byte offsets [254 252 ... 0] -> [128 127 ... 1] (count 128)."""
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.half, VECIN, 0, 128)
        offsets = asc.LocalTensor(asc.uint32, VECIN, 0x1000, 128)
        dst = asc.LocalTensor(asc.half, VECOUT, 0x4000, 128)
        src.write(np.arange(1, 129, dtype=np.float16))
        offsets.write(np.arange(254, -1, -2, dtype=np.uint32))
        asc.asc_gather(dst, src, offsets, 128)
        assert core.ub_read(0x4000, 256) == np.arange(128, 0, -1, dtype=np.float16).tobytes()


def test_asc_gather_datablock_page_example():
    """asc_gather_datablock.md: uint32 [1 2 ... 128], block offsets [0 32 ... 480], the call
    (dst, src, src_offset, 8, 1, 2): dst_repeat_stride 8, dst_block_stride 1, 2 repeats -> [1 2 ... 128]."""
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.uint32, VECIN, 0, 128)
        offsets = asc.LocalTensor(asc.uint32, VECIN, 0x1000, 16)
        dst = asc.LocalTensor(asc.uint32, VECOUT, 0x4000, 256)
        src.write(np.arange(1, 129, dtype=np.uint32))
        offsets.write(np.arange(0, 512, 32, dtype=np.uint32))
        dst.write(np.zeros(256, np.uint32))
        asc.asc_gather_datablock(dst, src, offsets, 8, 1, 2)
        out = core.ub_read(0x4000, 1024)
    assert out == np.arange(1, 129, dtype=np.uint32).tobytes() + bytes(512)


@pytest.mark.parametrize("name, source, printed", [
    ("asc_shiftright", 0b1010, 0b0101),
    ("asc_shiftright_round", 0b1010, 0b0101),  # the bit shifted out is 0: not rounded up
    ("asc_shiftright_round", 0b1001, 0b0101),  # the bit shifted out is 1: rounded up
])
def test_asc_shiftright_page_examples(name, source, printed):
    """asc_shiftright.md: int16, value 1, 128 elements: src[0] -> dst[0] as printed (the other lanes 0)."""
    out = _c_run(lambda z, x: getattr(asc, name)(z, x, 1, 128), asc.int16, [source] + [0] * 127, 128)
    assert out == bits([printed] + [0] * 127, asc.int16)


# ------------------------------------------------------------------ 高阶API/排序操作/MrgSort-93.md
@pytest.mark.parametrize("chip", ["A2", "A3", "950"])
def test_high_level_mrg_sort_page_example_128_halves(chip):
    """处理128个half类型数据: values and indices [31 .. 0, 63 .. 32, 95 .. 64, 127 .. 96], Sort32 per 32
    (sortRepeatTimes 4), then MrgSort<half, false>(sortTmpLocal, 4 queues at GetSortOffset<half>(32) apart,
    {32, 32, 32, 32}, sortedNum, 0b1111, 1): dstValueGm = dstIndexGm = [127 126 125 ... 2 1 0] (the page's
    Extract reads the score and the index of each structure)."""
    values = [v for block in range(4) for v in range(32 * block + 31, 32 * block - 1, -1)]
    with asc.Core(chip) as core:
        score = asc.LocalTensor(asc.half, VECIN, 0, 128)
        index = asc.LocalTensor(asc.uint32, VECIN, 0x400, 128)
        sorted_local = asc.LocalTensor(asc.half, asc.TPosition.VECCALC, 0x1000, 512)
        merged = asc.LocalTensor(asc.half, VECOUT, 0x2000, 512)
        score.write(np.array(values, np.float16))
        index.write(np.array(values, np.uint32))
        asc.sort32(sorted_local, score, index, 4)
        offset = asc.get_sort_offset(32, asc.half)
        queues = asc.MrgSortSrcList(asc.half, *(sorted_local[k * offset:] for k in range(4)))
        sorted_num = [0] * 4
        asc.mrg_sort(merged, queues, [32] * 4, sorted_num, 0b1111, 1)
        out = core.ub_read(0x2000, 128 * 8)
    structures = np.frombuffer(out, dtype=[("score", "<f2"), ("reserved", "<u2"), ("index", "<u4")])
    assert structures["score"].tobytes() == np.arange(127, -1, -1, dtype=np.float16).tobytes()
    assert structures["index"].tobytes() == np.arange(127, -1, -1, dtype=np.uint32).tobytes()


# ------------------------------------------------------------------ 高阶API/量化操作/AscendQuant.md
def test_ascend_quant_per_tensor_page_example():
    """PER_TENSOR: float [-512. -511. ... 511.], scale 0.02, offset 0.9 -> [-9 -9 -9 ... 11 51. 51.1].  The call
    passes calCount = 1022, which the page's 约束说明 forbids (every operand's length a multiple of 32 bytes:
    32 int8 elements) and npusim rejects; the printed tail shows the two lanes that count leaves unwritten
    (51., 51.1 are no int8 results).  Erratum E9 in docs/worked-examples.md: run with 1024, the written lanes
    as printed."""
    with asc.Core("A2") as core:
        src = asc.LocalTensor(asc.float32, VECIN, 0, 1024)
        dst = asc.LocalTensor(asc.int8, VECOUT, 0x1000, 1024)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 0x2000, 4096)
        src.write(np.arange(-512, 512, dtype=np.float32))
        dst.write(np.zeros(1024, np.int8))
        before = core.ub_read(0, 0x3000)
        with pytest.raises(ParameterRangeError):
            quant(dst, src, 0.02, 0.9, 1022, tmp)
        assert core.ub_read(0, 0x3000) == before
        quant(dst, src, 0.02, 0.9, 1024, tmp)
        out = dst.read()
    assert out[:3].tolist() == [-9, -9, -9] and out[1021] == 11


# ------------------------------------------------------------------ 比较与选择/Compare.md: the misprinted outputs
COMPARE_SRC0 = [v for v in (2, 3, 5, 7, 11, 13, 17, 19) for _ in range(8)]
COMPARE_SRC1 = [v for v in (2, 4, 6, 8, 10, 12, 14, 16) for _ in range(8)]


def _compare(chip, mode, *how) -> bytes:
    with asc.Core(chip) as core:
        src0 = asc.LocalTensor(asc.float32, VECIN, 0, 64)
        src1 = asc.LocalTensor(asc.float32, VECIN, 0x100, 64)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x200, 32)
        src0.write(np.array(COMPARE_SRC0, np.float32))
        src1.write(np.array(COMPARE_SRC1, np.float32))
        dst.write(np.zeros(32, np.uint8))
        asc.compare(dst, src0, src1, asc.CMPMODE[mode], *how)
        return core.ub_read(0x200, 8)


def test_compare_first_n_lt_example_by_its_inputs():
    """tensor前n个数据计算, LT: the page prints [0 127 127 127 0 0 0 0]; elements 8-31 (3<4, 5<6, 7<8) are all
    less, so bytes 1-3 are 0b11111111 = 255 (erratum E3: 127 has bit 7 clear, element 15 / 23 / 31 is 7 < 8)."""
    assert _compare("A2", "LT", 64) == bytes([0, 255, 255, 255, 0, 0, 0, 0])


@pytest.mark.parametrize("chip", ["950", "310B", "A2"])
def test_compare_mask_28_le_example_by_its_inputs(chip):
    """Tensor高维切分计算, mask连续模式, LE, mask 28, repeat 1 {1, 1, 1, 1, 8, 8}: the page prints
    [127 127 127 16 0 0 0 0].  Elements 0-31 are LE, 32-63 not: with lanes 0-27 active the bytes are
    255 255 255 15 on the products that write masked-off bits as 0 (950, 310B; the rule the page's bit-wise
    example shows), and 255 255 255 255 on the A2, where the mask is reserved (docs/semantics.md; erratum E4:
    127 and 16 are neither)."""
    expected = [255, 255, 255, 255] if chip == "A2" else [255, 255, 255, 15]
    assert _compare(chip, "LE", 28, 1, asc.BinaryRepeatParams(1, 1, 1, 1, 8, 8)) == bytes(expected + [0] * 4)


# ------------------------------------------------------------------ 类型转换/Cast.md: the mask forms
CAST_SIX = [1.4, 1.5, 1.6, 2.4, 2.5, 2.6]
CAST_PRINTED = {"CAST_CEIL": [2, 2, 2, 3, 3, 3], "CAST_RINT": [1, 2, 2, 2, 2, 3], "CAST_FLOOR": [1, 1, 1, 2, 2, 2],
                "CAST_ROUND": [1, 2, 2, 2, 3, 3], "CAST_TRUNC": [1, 1, 1, 2, 2, 2]}


@pytest.mark.parametrize("mode", sorted(CAST_PRINTED))
def test_cast_page_examples_in_the_mask_forms(mode):
    """half [1.4, 1.5, 1.6, 2.4, 2.5, 2.6, ... 2.6] -> int32 as printed per RoundMode, in the page's mask form
    (mask 64, 8 repeats, {1, 1, 8, 4}; the count form: tests/ascend/test_cast.py).  The page's bit-wise snippet
    passes {0, UINT64_MAX}: for 32-bit data the high word must be 0 (掩码/通用说明.md), so npusim rejects it
    (erratum E5) and runs {UINT64_MAX, 0}, the mask that selects the 64 lanes."""
    values = np.array((CAST_SIX * 86)[:511] + [2.6], np.float16)
    printed = CAST_PRINTED[mode]
    expected = bits((printed * 86)[:511] + printed[-1:], asc.int32)
    for mask in (64, [ALL_ONES, 0], [0, ALL_ONES]):
        with asc.Core("A2") as core:
            src = asc.LocalTensor(asc.half, VECIN, 0, 512)
            dst = asc.LocalTensor(asc.int32, VECOUT, 1024, 512)
            src.write(values)
            dst.write(np.zeros(512, np.int32))
            args = (dst, src, asc.RoundMode[mode], mask, 8, asc.UnaryRepeatParams(1, 1, 8, 4))
            if mask == [0, ALL_ONES]:
                before = core.ub_read(0, 3072)
                with pytest.raises(ParameterRangeError):
                    asc.cast(*args)
                assert core.ub_read(0, 3072) == before
            else:
                asc.cast(*args)
                assert core.ub_read(1024, 2048) == expected
