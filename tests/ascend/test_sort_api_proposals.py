"""asc.sort on the Atlas inference AI Core (高阶API/排序操作/Sort.md 排布方式二, region proposals): the page's
printed 310P example, the model (tests/ascend/sort_reference.py: the indices written into concat's y1 and
label, then a stable descending sort of whole proposals, per 16 or over all), the vendor's sequence of
instructions (kernel_operator_proposal_intf_impl.h Sort, dav_m200 DoFullSort), GetSortLen/GetSortOffset in a
kernel, and the rules (checked before anything runs)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim import errors
from npusim.ascend.ops.sort_api_steps import proposal_levels
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import sort_reference as ref
from .conftest import assert_rejected

VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
CONCAT, INDEX, DST, TMP, END = 0x00000, 0x10000, 0x14000, 0x24000, 0x34000
KINDS = {2: np.float16, 4: np.float32}


def run(dtype, concat_bytes: bytes, indices: bytes | None, repeats: int, full: bool, concat_size: int | None = None,
        trace: bool = False):
    """One asc.sort on a 310P whose UB is random bytes but for concat and index; returns UB before and after,
    and the trace's instruction names.  ``indices`` None: an empty index tensor."""
    with asc.Core("310P", trace=trace) as core:
        core.ub_write(0, np.random.default_rng(repeats).integers(0, 256, END, dtype=np.uint8).tobytes())
        core.ub_write(CONCAT, concat_bytes)
        if indices is not None:
            core.ub_write(INDEX, indices)
        size = concat_size or 128 * max(repeats, 1)
        concat = asc.LocalTensor(dtype, VECIN, CONCAT, size)
        index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 0x1000)
        if indices is None:
            index = index[index.get_size():]
        dst = asc.LocalTensor(dtype, VECOUT, DST, 0x10000 // dtype.itemsize)
        tmp = asc.LocalTensor(dtype, VECCALC, TMP, 0x10000 // dtype.itemsize)
        before = core.ub_read(0, END)
        asc.sort(dst, concat, index, tmp, repeats, full)
        names = [r.instruction for r in core.trace if r.instruction != "pipe_barrier"] if trace else None
        return before, core.ub_read(0, END), names


def proposals_of(values: np.ndarray, rng) -> bytes:
    """Region proposals with ``values`` as scores (element 4) and random bytes in every other element."""
    itemsize = values.dtype.itemsize
    raw = bytearray(rng.integers(0, 256, values.size * 8 * itemsize, dtype=np.uint8).tobytes())
    for i, v in enumerate(values.tobytes()[k:k + itemsize] for k in range(0, values.nbytes, itemsize)):
        at = (8 * i + 4) * itemsize
        raw[at:at + itemsize] = v
    return bytes(raw)


def check(dtype, concat_bytes, indices, repeats, full, before, after):
    """dst, concat, tmp and every other UB byte against the model."""
    size, n = dtype.itemsize, 16 * repeats
    fields = ref.proposal_fields(concat_bytes, indices, n, size)
    nbytes = n * 8 * size
    expected = ref.proposal_sort(fields, size, full)
    assert after[DST:DST + nbytes] == expected
    assert after[CONCAT:CONCAT + nbytes] == b"".join(bytes(f) for f in fields)  # Sort writes the indices there
    assert after[TMP:TMP + nbytes] == (expected if full and n else before[TMP:TMP + nbytes])
    for lo, hi in ((CONCAT + nbytes, DST), (DST + nbytes, TMP), (TMP + nbytes, END)):
        assert after[lo:hi] == before[lo:hi]


PAGE_VALUES = [float(v) for block in range(4) for v in range(16 * block + 15, 16 * block - 1, -1)]


def sort_page_input(core, full: bool) -> asc.LocalTensor:
    """The 310P examples of Sort.md and MrgSort-93.md: 64 halves [15 .. 0, 31 .. 16, 47 .. 32, 63 .. 48], the
    indices the same, Concat (on the 310P: ProposalConcat to the score), then Sort of 4 repeats; the sorted."""
    core.ub_write(0, np.random.default_rng(7).integers(0, 256, END, dtype=np.uint8).tobytes())
    value = asc.LocalTensor(asc.float16, VECIN, 0x30000, 64)
    value.write(PAGE_VALUES)
    index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 64)
    index.write([int(v) for v in PAGE_VALUES])
    concat = asc.LocalTensor(asc.float16, VECCALC, CONCAT, 512)
    sorted_local = asc.LocalTensor(asc.float16, VECOUT, DST, 512)
    asc.proposal_concat(concat, value, 4, 4)
    asc.sort(sorted_local, concat, index, asc.LocalTensor(asc.float16, VECCALC, TMP, 512), 64 // 16, full)
    return sorted_local


def test_page_example_64_halves_full_sort():
    """调用示例 (Atlas inference AI Core): Sort with full sort, then Extract (ProposalExtract of the score;
    GatherMask pattern 4 of the index halves y1 and label): dstValue and dstIndex both [63 62 ... 0]."""
    with asc.Core("310P") as core:
        sorted_ = sort_page_input(core, True)
        dst_value = asc.LocalTensor(asc.float16, VECOUT, 0x31000, 64)
        dst_index = asc.LocalTensor(asc.uint32, VECOUT, 0x32000, 64)
        asc.proposal_extract(dst_value, sorted_, 4, 4)  # Extract on the 310P
        asc.gather_mask(dst_index.reinterpret_cast(asc.float16), sorted_, 4, False, 0, asc.GatherMaskParams(1, 4, 8, 0))
        out_values = struct.unpack("<64e", core.ub_read(0x31000, 128))
        out_indices = struct.unpack("<64I", core.ub_read(0x32000, 256))
    assert list(out_values) == [float(v) for v in range(63, -1, -1)]
    assert list(out_indices) == list(range(63, -1, -1))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), repeats=st.integers(1, 40), half=st.booleans(), full=st.booleans(),
       ties=st.booleans(), empty_index=st.booleans())
def test_sort_matches_the_model(seed, repeats, half, full, ties, empty_index):
    dtype = asc.float16 if half else asc.float32
    kind = KINDS[dtype.itemsize]
    rng = np.random.default_rng(seed)
    n = 16 * repeats
    values = rng.integers(-3, 3, n).astype(kind) if ties else rng.standard_normal(n).astype(kind)
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf], kind)
    values[rng.integers(0, n, n // 8)] = special[rng.integers(0, special.size, n // 8)]
    concat_bytes = proposals_of(values, rng)
    indices = None if empty_index else rng.integers(0, 2**32, n, dtype=np.uint32).tobytes()
    before, after, _ = run(dtype, concat_bytes, indices, repeats, full)
    check(dtype, concat_bytes, indices, repeats, full, before, after)


TAIL_REPEATS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 18, 19, 20, 21, 22, 23, 24, 33, 37, 64]


# 65 repeats in half only: three float tensors of 65 repeats do not fit the layout
@pytest.mark.parametrize(("repeats", "half"), [(r, h) for r in TAIL_REPEATS for h in (True, False)] + [(65, True)])
def test_full_sort_with_every_tail(repeats, half):
    """Repeat counts whose merge levels end in a lone queue (copied), 2 or 3 queues, or 4 with a shorter last."""
    dtype = asc.float16 if half else asc.float32
    rng = np.random.default_rng(repeats)
    values = rng.integers(-50, 50, 16 * repeats).astype(KINDS[dtype.itemsize])
    concat_bytes = proposals_of(values, rng)
    indices = np.arange(16 * repeats, dtype=np.uint32).tobytes()
    before, after, _ = run(dtype, concat_bytes, indices, repeats, True)
    check(dtype, concat_bytes, indices, repeats, True, before, after)


def test_255_repeats_half():
    rng = np.random.default_rng(255)
    values = rng.standard_normal(16 * 255).astype(np.float16)
    concat_bytes, indices = proposals_of(values, rng), rng.permutation(16 * 255).astype(np.uint32).tobytes()
    before, after, _ = run(asc.float16, concat_bytes, indices, 255, True)
    check(asc.float16, concat_bytes, indices, 255, True, before, after)


def test_a_larger_concat_adds_levels_that_copy():
    """dav_m200 counts the levels from concat.GetSize(): 16384 elements give 5 (16384 -> 4096 -> 1024 -> 256 ->
    64 -> 16) where 6 repeats need 2.  Level 1: MrgSort4 of 4 queues, the tail pair merged; level 2: the two
    queues (64 + 32) merged; levels 3-5: the lone queue copied.  DataCopy(tmp, dst) first and after every
    level: 1 + 5 + 3 copies.  The result is the same."""
    rng = np.random.default_rng(3)
    values = rng.standard_normal(16 * 6).astype(np.float32)
    concat_bytes, indices = proposals_of(values, rng), np.arange(96, dtype=np.uint32).tobytes()
    before, after, names = run(asc.float32, concat_bytes, indices, 6, True, concat_size=0x4000, trace=True)
    check(asc.float32, concat_bytes, indices, 6, True, before, after)
    assert names.count("mrg_sort4") == 3 and names.count("data_copy") == 1 + 5 + 3
    assert [proposal_levels(n) for n in (16, 17, 67, 68, 0x4000, 69631, 69632)] == [0, 1, 1, 2, 5, 6, 7]


def test_the_vendors_sequence_of_instructions():
    """half, 5 repeats, concat of 640 elements (3 levels: 640 -> 160 -> 40 -> 10): the index's low halves
    gathered into dst and put to y1, its high halves to label, RpSort16; DoFullSort: DataCopy(tmp, dst);
    level 1 (queues of 16): MrgSort4 of 4 queues, the lone fifth copied, DataCopy(tmp, dst); level 2 (64):
    the two queues (64 + 16) merged, DataCopy(tmp, dst); level 3 (256): the lone queue copied, DataCopy."""
    rng = np.random.default_rng(5)
    values = rng.standard_normal(80).astype(np.float16)
    concat_bytes, indices = proposals_of(values, rng), np.arange(80, dtype=np.uint32).tobytes()
    with asc.Core("310P", trace=True) as core:
        core.ub_write(0, np.random.default_rng(1).integers(0, 256, END, dtype=np.uint8).tobytes())
        core.ub_write(CONCAT, concat_bytes)
        core.ub_write(INDEX, indices)
        concat = asc.LocalTensor(asc.float16, VECIN, CONCAT, 640)
        index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 80)
        dst = asc.LocalTensor(asc.float16, VECOUT, DST, 640)
        tmp = asc.LocalTensor(asc.float16, VECCALC, TMP, 640)
        asc.sort(dst, concat, index, tmp, 5, True)
        calls = [(r.instruction, r.params) for r in core.trace]
    names = [name for name, _ in calls]
    barrier = "pipe_barrier"
    assert names == [
        "gather_mask", barrier, "proposal_concat", barrier, "gather_mask", barrier, "proposal_concat", barrier,
        "rp_sort16", barrier,
        "data_copy", barrier,
        "mrg_sort4", barrier, "data_copy", barrier, "data_copy", barrier,
        barrier, "mrg_sort4", barrier, "data_copy", barrier,
        barrier, "data_copy", barrier, "data_copy", barrier,
    ]
    params = [p for name, p in calls if name != barrier]
    assert params[0]["src1_pattern"] == 1 and params[2]["src1_pattern"] == 2
    assert params[1]["mode_number"] == 1 and params[3]["mode_number"] == 5
    copies = [p["count"] for name, p in calls if name == "data_copy"]
    # the whole 80 proposals are 640 halves; the lone tail copies take 4 halves per proposal (the vendor's
    # DataCopy(..., elementCountTail * 4), half of each proposal: dst already equals tmp there)
    assert copies == [640, 64, 640, 640, 320, 640]


def test_the_float_sequence():
    """float, 5 repeats: the index bits ProposalConcat to label, RpSort16, then the same merges; the lone tail
    copies take 2 floats per proposal (elementCountTail * 2)."""
    rng = np.random.default_rng(6)
    values = rng.standard_normal(80).astype(np.float32)
    with asc.Core("310P", trace=True) as core:
        core.ub_write(0, np.random.default_rng(1).integers(0, 256, END, dtype=np.uint8).tobytes())
        core.ub_write(CONCAT, proposals_of(values, rng))
        concat = asc.LocalTensor(asc.float32, VECIN, CONCAT, 640)
        index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 80)
        dst = asc.LocalTensor(asc.float32, VECOUT, DST, 640)
        tmp = asc.LocalTensor(asc.float32, VECCALC, TMP, 640)
        asc.sort(dst, concat, index, tmp, 5, True)
        calls = [(r.instruction, r.params) for r in core.trace if r.instruction != "pipe_barrier"]
    assert [name for name, _ in calls] == ["proposal_concat", "rp_sort16", "data_copy", "mrg_sort4", "data_copy",
                                           "data_copy", "mrg_sort4", "data_copy", "data_copy", "data_copy"]
    assert calls[0][1]["mode_number"] == 5
    assert [p["count"] for name, p in calls if name == "data_copy"] == [640, 32, 640, 640, 160, 640]


def test_sort_len_and_offset_in_a_kernel():
    """GetSortLen / GetSortOffset on the 310P count 8 elements per proposal: a kernel that reads the second
    sorted block of a non-full sort through them finds RpSort16's second 16 proposals."""
    rng = np.random.default_rng(11)
    values = rng.standard_normal(32).astype(np.float16)
    concat_bytes, indices = proposals_of(values, rng), np.arange(32, dtype=np.uint32).tobytes()
    with asc.Core("310P") as core:
        core.ub_write(0, np.random.default_rng(2).integers(0, 256, END, dtype=np.uint8).tobytes())
        core.ub_write(CONCAT, concat_bytes)
        core.ub_write(INDEX, indices)
        concat = asc.LocalTensor(asc.float16, VECIN, CONCAT, 256)
        index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 32)
        dst = asc.LocalTensor(asc.float16, VECOUT, DST, asc.get_sort_len(32, asc.float16))
        tmp = asc.LocalTensor(asc.float16, VECCALC, TMP, 256)
        asc.sort(dst, concat, index, tmp, 2)
        second = dst[asc.get_sort_offset(16, asc.float16):]
        scores = asc.LocalTensor(asc.float16, VECOUT, 0x30000, 16)
        asc.proposal_extract(scores, second, 1, 4)
        got = core.ub_read(0x30000, 32)
    expected = ref.proposal_sort(ref.proposal_fields(concat_bytes, indices, 32, 2), 2, False)
    assert dst.get_size() == 256
    assert got == b"".join(expected[16 * p + 8:16 * p + 10] for p in range(16, 32))  # the score: bytes 8-9


def test_zero_repeats_write_nothing():
    for full in (False, True):
        before, after, _ = run(asc.float16, bytes(32), np.arange(16, dtype=np.uint32).tobytes(), 0, full,
                               concat_size=64)
        assert after == before


def operands(dtype=asc.float16, dst_size=0x800, concat_addr=CONCAT, concat_size=0x800, index_addr=INDEX,
             index_size=0x100, tmp_addr=TMP, tmp_size=0x800):
    return (asc.LocalTensor(dtype, VECOUT, DST, dst_size), asc.LocalTensor(dtype, VECIN, concat_addr, concat_size),
            asc.LocalTensor(asc.uint32, VECIN, index_addr, index_size),
            asc.LocalTensor(dtype, VECCALC, tmp_addr, tmp_size))


def test_rejected_calls_change_nothing():
    with asc.Core("310P") as core:
        core.ub_write(0, np.random.default_rng(0).integers(0, 256, core.ub.size_bytes, dtype=np.uint8).tobytes())
        assert_rejected(core, UnsupportedError, lambda: asc.sort(*operands(asc.int16), 4, True), operand="dst dtype")
        assert_rejected(core, ParameterRangeError, lambda: asc.sort(*operands(), 256), operand="repeat_time")
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort(*operands(index_size=63), 4),
                        operand="index byte range")
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort(*operands(tmp_size=0x200 - 8), 4, True),
                        operand="tmp byte range")
        assert_rejected(core, OverlapError, lambda: asc.sort(*operands(tmp_addr=DST + 0x200), 4, True),
                        operand="tmp byte address")
        # a later step's rules: RpSort16 (the fifth instruction) finds dst one proposal short, after the
        # gathers and concats would have run
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort(*operands(dst_size=0x200 - 8), 4),
                        instruction="rp_sort16")
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort(*operands(asc.float32, dst_size=0x200 - 8), 4),
                        instruction="rp_sort16")
        # ProposalConcat (the second instruction) finds concat overlapping dst's gathered halves
        assert_rejected(core, OverlapError, lambda: asc.sort(*operands(concat_addr=DST + 0x40), 4),
                        instruction="proposal_concat")
        # the half gathers read the indices in 256-byte repeats: one repeat of 16 indices at UB's end
        end = core.ub.size_bytes
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort(*operands(index_addr=end - 64, index_size=16), 1),
                        operand="index byte range")
        assert_rejected(core, ParameterRangeError, lambda: asc.sort(*operands(concat_size=69632), 4, True),
                        operand="concat size")
        assert_rejected(core, ParameterRangeError, lambda: asc.sort(*operands(concat_size=68), 0, True),
                        operand="repeat_time")
        assert_rejected(core, TypeError, lambda: asc.sort(*operands(), 4, "yes"))
        for misaligned in ({"concat_addr": CONCAT + 16}, {"index_addr": INDEX + 16}):  # 32-byte starts (参数说明)
            assert_rejected(core, AlignmentError, lambda kw=misaligned: asc.sort(*operands(**kw), 4))
            assert_rejected(core, AlignmentError, lambda kw=misaligned: asc.sort(*operands(asc.float32, **kw), 4))
        asc.sort(*operands(concat_size=69632), 4)  # without full sort concat's size counts no levels
        asc.sort(*operands(concat_size=67), 0, True)  # one level, which issues nothing
        asc.sort(*operands(index_addr=end - 256, index_size=16), 1)


def test_high_level_mrg_sort_page_example_64_halves():
    """MrgSort-93.md 处理64个half类型数据 (Atlas inference AI Core): the page's input sorted per 16 (Sort
    without full sort), then MrgSort<half, false>(sortTmpLocal, 4 queues GetSortOffset<half>(16) apart,
    {16, 16, 16, 16}, sortedNum, 0b1111, 1): dstValueGm = dstIndexGm = [63 62 61 ... 2 1 0] (the page's
    Extract: the score, and the index halves y1 and label)."""
    with asc.Core("310P") as core:
        sorted_local = sort_page_input(core, False)
        offset = asc.get_sort_offset(16, asc.float16)
        queues = asc.MrgSortSrcList(asc.float16, *(sorted_local[k * offset:] for k in range(4)))
        merged = asc.LocalTensor(asc.float16, VECOUT, 0x28000, 512)
        asc.mrg_sort(merged, queues, [16] * 4, [0] * 4, 0b1111, 1)
        out = core.ub_read(0x28000, 64 * 16)
    proposals = np.frombuffer(out, dtype=np.uint16).reshape(64, 8)
    assert proposals[:, 4].tobytes() == np.arange(63, -1, -1, dtype=np.float16).tobytes()
    assert (proposals[:, 1].astype(np.uint32) | proposals[:, 5].astype(np.uint32) << 16).tolist() == \
        list(range(63, -1, -1))


def test_a_pipe_kernel_sorts_region_proposals():
    """A kernel written as pyasc's are, on the 310P: GM -> UB through queues, Concat (ProposalConcat to the
    score), Sort with full sort, Extract of the scores, UB -> GM of the scores and of the second half of the
    sorted proposals (GetSortLen / GetSortOffset: 8 elements per proposal)."""
    n = 16 * 12
    rng = np.random.default_rng(19)
    x = rng.integers(-8, 8, n).astype(np.float16)
    ix = rng.permutation(n).astype(np.uint32)
    z, zi = np.zeros(n, np.float16), np.zeros(4 * n, np.float16)

    @asc.jit
    def kernel(x_gm, ix_gm, z_gm, zi_gm):
        xg, ig, zg, pg = (asc.GlobalTensor() for _ in range(4))
        for tensor, address in ((xg, x_gm), (ig, ix_gm), (zg, z_gm), (pg, zi_gm)):
            tensor.set_global_buffer(address)
        length = asc.get_sort_len(n, asc.float16)
        pipe = asc.TPipe()
        q_x, q_ix = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECIN, 1)
        pipe.init_buffer(q_x, 1, 2 * n)
        pipe.init_buffer(q_ix, 1, 4 * n)
        bufs = [asc.TBuf(asc.TPosition.VECCALC) for _ in range(3)]
        for buf in bufs:
            pipe.init_buffer(buf, 2 * length)
        concat, dst, tmp = (buf.get(asc.float16) for buf in bufs)
        asc.duplicate(concat, 0.0, length)  # x1 .. y2 and the reserved elements: the full sort copies them
        scores, index = q_x.alloc_tensor(asc.float16), q_ix.alloc_tensor(asc.uint32)
        asc.data_copy(scores, xg, n)
        asc.data_copy(index, ig, n)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.proposal_concat(concat, scores, n // 16, 4)
        asc.sort(dst, concat, index, tmp, n // 16, True)
        asc.proposal_extract(scores, dst, n // 16, 4)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(zg, scores, n)
        asc.data_copy(pg, dst[asc.get_sort_offset(n // 2, asc.float16):], length // 2)

    kernel.launch(1, (x, ix, z, zi), chip="310P")
    order = sorted(range(n), key=lambda i: -float(x[i]))  # stable
    assert z.tobytes() == x[order].tobytes()
    second = zi.view(np.uint16).reshape(n // 2, 8)  # the index: low half in y1, high half in label
    assert (second[:, 1].astype(np.uint32) | second[:, 5].astype(np.uint32) << 16).tolist() == \
        ix[order[n // 2:]].tolist()


def test_the_half_gathers_read_past_the_indices():
    """5 repeats: 80 indices (320 bytes), the GatherMasks read 2 repeats of 256 bytes; the 192 bytes after the
    indices, never written, are reported as GatherMask's uninitialised reads (their values reach nothing)."""
    with asc.Core("310P") as core:
        concat = asc.LocalTensor(asc.float16, VECIN, CONCAT, 640)
        concat.write(np.zeros(640, np.float16))
        index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 80)
        index.write(list(range(80)))
        dst = asc.LocalTensor(asc.float16, VECOUT, DST, 640)
        with pytest.warns(errors.UninitializedReadWarning, match="gather_mask"):
            asc.sort(dst, concat, index, dst, 5)
        assert struct.unpack("<640e", core.ub_read(DST, 1280))[4::8] == (0.0,) * 80


def test_strict_reads_are_checked_before_the_first_step():
    """With never-written reads raising, what the steps read of the caller's bytes is checked up front (a
    step's own raise would come after earlier steps wrote): the index bytes the half gathers read, concat's
    scores, and with full sort every element of its proposals but y1 and label."""
    with asc.Core("310P", strict=True) as core:
        concat = asc.LocalTensor(asc.float16, VECIN, CONCAT, 512)
        scores = asc.LocalTensor(asc.float16, VECIN, 0x30000, 64)
        scores.write(list(range(64)))
        asc.proposal_concat(concat, scores, 4, 4)  # Concat: the scores alone
        index = asc.LocalTensor(asc.uint32, VECIN, INDEX, 80)
        index.write(list(range(64)))
        dst, tmp = asc.LocalTensor(asc.float16, VECOUT, DST, 640), asc.LocalTensor(asc.float16, VECCALC, TMP, 640)
        assert_rejected(core, errors.UninitializedReadError, lambda: asc.sort(dst, concat, index, tmp, 4, True),
                        instruction="sort", operand="concat byte address")
        asc.sort(dst, concat, index, tmp, 4)  # without full sort only the scores are read
        five = asc.LocalTensor(asc.float16, VECIN, 0x31000, 640)
        five.write(np.zeros(640, np.float16))
        assert_rejected(core, errors.UninitializedReadError, lambda: asc.sort(dst, five, index, tmp, 5, True),
                        instruction="sort", operand="index byte address")
        asc.duplicate(concat, 0.0, 512)
        asc.proposal_concat(concat, scores, 4, 4)
        asc.sort(dst, concat, index, tmp, 4, True)
        assert struct.unpack("<512e", core.ub_read(DST, 1024))[4::8] == tuple(float(v) for v in range(63, -1, -1))
