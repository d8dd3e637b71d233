"""asc.sort (高阶API/排序操作/Sort.md, the form without SortConfig): the page's printed example, the model
(per 32 without full sort; the stable descending sort of every (score, index) pair with it, tmp then a copy
of dst), the vendor's sequence of instructions, and the page's rules (checked before anything runs)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.ops.sort_api import merge_levels
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import sort_reference as ref
from .conftest import assert_rejected

VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
CONCAT, INDEX, DST, TMP = 0x0000, 0x4000, 0x8000, 0x18000


def run(dtype, scores: bytes, indices: bytes, repeats: int, full: bool, chip: str = "A2", trace: bool = False):
    with asc.Core(chip, trace=trace) as core:
        core.ub_write(0, np.random.default_rng(repeats).integers(0, 256, 0x28000, dtype=np.uint8).tobytes())
        core.ub_write(CONCAT, scores)
        core.ub_write(INDEX, indices)
        concat = asc.LocalTensor(dtype, VECIN, CONCAT, 0x4000 // dtype.itemsize)
        index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 0x1000)
        dst = asc.LocalTensor(dtype, VECOUT, DST, 0x10000 // dtype.itemsize)
        tmp = asc.LocalTensor(dtype, VECCALC, TMP, 0x10000 // dtype.itemsize)
        before = core.ub_read(0, 0x28000)
        asc.sort(dst, concat, index, tmp, repeats, full)
        n = 8 * 32 * repeats
        names = [r.instruction for r in core.trace] if trace else None
        return before, core.ub_read(DST, n), core.ub_read(TMP, n), core.ub_read(0, 0x28000), names


def test_page_example_128_halves_full_sort():
    """调用示例 (A2/A3/950): 128 halves [31 .. 0, 63 .. 32, 95 .. 64, 127 .. 96], the indices the same; the
    printed output (after Extract) is the values 127 .. 0 and the indices 127 .. 0."""
    values = [float(v) for block in range(4) for v in range(32 * block + 31, 32 * block - 1, -1)]
    indices = [int(v) for v in values]
    _, out, _, _, _ = run(asc.float16, struct.pack("<128e", *values), struct.pack("<128I", *indices), 4, True)
    halves = struct.unpack("<512e", out)
    assert list(halves[0::4]) == [float(v) for v in range(127, -1, -1)]
    assert list(struct.unpack("<256I", out)[1::2]) == list(range(127, -1, -1))


def expected(dtype, scores: bytes, indices: bytes, repeats: int, full: bool, dst_before: bytes) -> bytes:
    size = dtype.itemsize
    if not full:
        image = bytearray(scores.ljust(0x4000, b"\0") + indices.ljust(0x4000, b"\0") + dst_before)
        ref.sort32(image, 0x8000, 0, 0x4000, repeats, size)
        return bytes(image[0x8000:0x8000 + 256 * repeats])
    n = 32 * repeats
    key = [ref.sort_key(ref.score(scores[i * size:(i + 1) * size], size)) for i in range(n)]
    slot = [0] * n  # where Sort32 puts element i: its block's slot of its rank; the reserved bytes stay there
    for r in range(repeats):
        block = sorted(range(32 * r, 32 * r + 32), key=lambda i: key[i], reverse=True)
        for k, i in enumerate(block):
            slot[i] = 32 * r + k
    out = bytearray()
    for i in sorted(range(n), key=lambda i: key[i], reverse=True):
        reserved = dst_before[8 * slot[i] + 2:8 * slot[i] + 4] if size == 2 else b""
        out += scores[i * size:(i + 1) * size] + reserved + indices[4 * i:4 * i + 4]
    return bytes(out)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), repeats=st.integers(1, 40), half=st.booleans(), full=st.booleans(),
       ties=st.booleans())
def test_sort_matches_the_model(seed, repeats, half, full, ties):
    dtype = asc.float16 if half else asc.float32
    rng = np.random.default_rng(seed)
    n = 32 * repeats
    kind = np.float16 if half else np.float32
    values = rng.integers(-4, 4, n).astype(kind) if ties else rng.standard_normal(n).astype(kind)
    values[rng.integers(0, n, n // 16)] = np.array([np.nan, -0.0, 0.0, np.inf], kind)[rng.integers(0, 4, n // 16)]
    scores, indices = values.tobytes(), rng.permutation(n).astype(np.uint32).tobytes()
    before, out, tmp, _, _ = run(dtype, scores, indices, repeats, full)
    dst_before = bytes(before[DST:DST + 8 * n])
    assert out == expected(dtype, scores, indices, repeats, full, dst_before)
    if full:
        assert tmp == out


def test_the_vendors_sequence_of_instructions():
    """DoFullSort for 5 repeats: Sort32, DataCopy(tmp, dst); level 1: one MrgSort of 4 queues, the lone
    fifth copied, DataCopy(tmp, dst); level 2: the two queues (128 + 32) merged, DataCopy(tmp, dst); a
    PipeBarrier(PIPE_V) wherever the vendor has one."""
    n = 160
    scores = np.random.default_rng(2).standard_normal(n).astype(np.float32).tobytes()
    *_, names = run(asc.float32, scores, np.arange(n, dtype=np.uint32).tobytes(), 5, True, trace=True)
    b = "pipe_barrier"
    assert names == ["sort32", b, "data_copy", b, "mrg_sort", b, "data_copy", b, "data_copy", b,
                     b, "mrg_sort", b, "data_copy", b]
    assert [merge_levels(r) for r in (1, 2, 4, 5, 16, 17, 64, 65, 255)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]


@pytest.mark.parametrize("chip", ["A3", "950"])
def test_other_products(chip):
    n = 32 * 9
    values = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    indices = np.arange(n, dtype=np.uint32)
    before, out, _, _, _ = run(asc.float32, values.tobytes(), indices.tobytes(), 9, True, chip)
    assert out == expected(asc.float32, values.tobytes(), indices.tobytes(), 9, True, before[DST:DST + 8 * n])


def operands(dtype=asc.float32, tmp_addr=TMP, tmp_size=4096, index_dtype=asc.uint32, concat_dtype=None):
    return (asc.LocalTensor(dtype, VECOUT, DST, 4096), asc.LocalTensor(concat_dtype or dtype, VECIN, CONCAT, 1024),
            asc.LocalTensor(index_dtype, VECIN, INDEX, 1024), asc.LocalTensor(dtype, VECCALC, tmp_addr, tmp_size))


def test_rejected_calls_change_nothing():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(0x28000))
        assert_rejected(core, UnsupportedError, lambda: asc.sort(*operands(asc.int32), 4, True), operand="dst dtype")
        assert_rejected(core, UnsupportedError, lambda: asc.sort(*operands(concat_dtype=asc.float16), 4),
                        operand="concat dtype")
        assert_rejected(core, UnsupportedError, lambda: asc.sort(*operands(index_dtype=asc.int32), 4),
                        operand="index dtype")
        assert_rejected(core, ParameterRangeError, lambda: asc.sort(*operands(), 256), operand="repeat_time")
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort(*operands(tmp_size=100), 4, True),
                        operand="tmp byte range")
        assert_rejected(core, OverlapError, lambda: asc.sort(*operands(tmp_addr=DST + 512), 4, True),
                        operand="tmp byte address")
        assert_rejected(core, TypeError, lambda: asc.sort(*operands(), 4, "yes"))
        asc.sort(*operands(tmp_size=100), 4, False)  # tmp is not used without full sort


@pytest.mark.parametrize("chip", ["310B", "310P-VEC", "910", "KirinX90"])
def test_products_npusim_does_not_sort_on(chip):
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, lambda: asc.sort(*operands(asc.float16), 4, True), instruction="sort")
