"""mrg_sort (both forms), mrg_sort4, get_mrg_sort_result and the C API asc_mrgsort4 / asc_get_vms4_sr
against the merge model of tests/ascend/sort_reference.py, raw bytes; VMS4_SR; every rule of the pages."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import sort_reference as ref
from .conftest import assert_rejected

UB_IMAGE = 96 * 1024
SRC, DST = 0, 65536
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
SPECIAL = {2: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x3C00, 0xBC00, 0x0001],
           4: [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3F800000, 0xBF800000, 0x00000001]}


def image(seed: int) -> bytearray:
    return bytearray(np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes())


def sorted_queue(rng, ub: bytearray, at: int, n: int, record: int, score_at: int, itemsize: int, tidy: bool) -> None:
    """Write n structures at ``at`` whose scores are sorted largest first (by the model's order) when ``tidy``."""
    kind = np.uint16 if itemsize == 2 else np.uint32
    raw = rng.choice(np.array(SPECIAL[itemsize] + list(rng.integers(0, 1 << (8 * itemsize), 4)), kind), n)
    values = [raw[i:i + 1].tobytes() for i in range(n)]
    if tidy:
        values.sort(key=lambda b: ref.sort_key(ref.score(b, itemsize)), reverse=True)
    for j, b in enumerate(values):
        ub[at + j * record + score_at: at + j * record + score_at + itemsize] = b


def run_merge(chip, dtype, ub, starts, lengths, valid_bit, suspend, repeats=1, api="mrg_sort"):
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(ub))
        size = 16384 // dtype.itemsize
        queues = [asc.LocalTensor(dtype, VECIN, s, size) for s in starts]
        z = asc.LocalTensor(dtype, VECOUT, DST, 16384 // dtype.itemsize)
        if api == "mrg_sort":
            asc.mrg_sort(z, asc.MrgSortSrcList(dtype, *queues), asc.MrgSort4Info(lengths, suspend, valid_bit, repeats))
        elif api == "mrg_sort4":
            asc.mrg_sort4(z, asc.MrgSortSrcList(dtype, *queues), asc.MrgSort4Info(lengths, suspend, valid_bit,
                                                                                  repeats))
        elif api == "counts":
            counts = [9, 9, 9, 9]
            asc.mrg_sort(z, asc.MrgSortSrcList(dtype, *queues), lengths, counts, valid_bit, repeats, suspend)
            return core.ub_read(0, UB_IMAGE), core.vms4_sr, counts
        else:
            asc.asc_mrgsort4(z, queues, repeats, *lengths, suspend, valid_bit)
        return core.ub_read(0, UB_IMAGE), core.vms4_sr, None


def expected_merge(ub, starts, lengths, valid_bit, suspend, record, score_at, itemsize, repeats=1):
    out = bytearray(ub)
    queues = {3: 2, 7: 3, 15: 4}[valid_bit]
    per_repeat = sum(lengths[:queues]) if repeats < 2 else 4 * lengths[0]
    taken = None
    for r in range(repeats):
        shift = r * per_repeat * record
        taken = ref.merge(out, DST + shift, [s + shift for s in starts[:queues]], list(lengths[:queues]), record,
                          score_at, itemsize, suspend)
    return bytes(out), tuple(taken + [0] * (4 - queues)) if suspend else None


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), half=st.booleans(), valid_bit=st.sampled_from([3, 7, 15]),
       suspend=st.booleans(), tidy=st.booleans(), lengths=st.lists(st.integers(0, 40), min_size=4, max_size=4))
def test_mrg_sort_matches_the_model(seed, half, valid_bit, suspend, tidy, lengths):
    dtype = asc.float16 if half else asc.float32
    rng = np.random.default_rng(seed)
    ub = image(seed % 997)
    starts = [SRC + q * 4096 + 8 * int(rng.integers(0, 4)) for q in range(4)]  # queues 8-byte aligned
    for s, n in zip(starts, lengths, strict=True):
        sorted_queue(rng, ub, s, n, 8, 0, dtype.itemsize, tidy)
    out, sr, _ = run_merge("A2", dtype, ub, starts, lengths, valid_bit, suspend)
    want, counts = expected_merge(ub, starts, lengths, valid_bit, suspend, 8, 0, dtype.itemsize)
    assert out == want
    assert sr == counts


@pytest.mark.parametrize("chip", ["A3", "310B", "950"])
def test_mrg_sort_on_every_product_and_repeats(chip):
    rng = np.random.default_rng(3)
    ub = image(3)
    n = 24
    starts = [SRC + q * n * 8 for q in range(4)]  # contiguous, one length: repeats may exceed 1
    for r in range(3):
        for s in starts:
            sorted_queue(rng, ub, s + r * 4 * n * 8, n, 8, 0, 4, True)
    out, sr, _ = run_merge(chip, asc.float32, ub, starts, [n] * 4, 15, False, repeats=3)
    want, _ = expected_merge(ub, starts, [n] * 4, 15, False, 8, 0, 4, repeats=3)
    assert out == want and sr is None


def test_the_counts_form_fills_sorted_num_and_the_c_api_is_mrg_sort():
    rng = np.random.default_rng(4)
    ub = image(4)
    starts = [SRC + q * 2048 for q in range(4)]
    lengths = [10, 3, 7, 12]
    for s, n in zip(starts, lengths, strict=True):
        sorted_queue(rng, ub, s, n, 8, 0, 2, True)
    want, counts = expected_merge(ub, starts, lengths, 15, True, 8, 0, 2)
    out, sr, filled = run_merge("A2", asc.float16, ub, starts, lengths, 15, True, api="counts")
    assert out == want and sr == counts and filled == list(counts)
    out, sr, _ = run_merge("A2", asc.float16, ub, starts, lengths, 15, True, api="asc_mrgsort4")
    assert out == want and sr == counts
    with asc.Core("A2") as core:
        core.vms4_sr = counts
        got = [0] * 4
        asc.asc_get_vms4_sr(got)
        assert got == list(counts) and asc.get_mrg_sort_result() == counts


@pytest.mark.parametrize("chip, dtype", [("310P", asc.float16), ("310P", asc.float32), ("910", asc.float16)])
def test_mrg_sort4_merges_region_proposals_by_element_4(chip, dtype):
    rng = np.random.default_rng(6)
    ub = image(6)
    record = 8 * dtype.itemsize
    starts = [SRC + q * 4096 for q in range(4)]
    lengths = [16, 5, 0, 9]
    for s, n in zip(starts, lengths, strict=True):
        sorted_queue(rng, ub, s, n, record, 4 * dtype.itemsize, dtype.itemsize, True)
    out, sr, _ = run_merge(chip, dtype, ub, starts, lengths, 15, False, api="mrg_sort4")
    want, _ = expected_merge(ub, starts, lengths, 15, False, record, 4 * dtype.itemsize, dtype.itemsize)
    assert out == want
    out, sr, _ = run_merge(chip, dtype, ub, starts, [16, 5, 2, 9], 15, True, api="mrg_sort4")
    want, counts = expected_merge(ub, starts, [16, 5, 2, 9], 15, True, record, 4 * dtype.itemsize, dtype.itemsize)
    assert out == want and sr == counts
    if chip == "310P":
        with asc.Core(chip) as core:
            core.vms4_sr = counts
            assert asc.get_mrg_sort_result() == counts
            out, sr, filled = run_merge(chip, dtype, ub, starts, [16, 5, 2, 9], 15, True, api="counts")
            assert out == want and filled == list(counts)


def test_never_written_bytes_travel_with_their_structure():
    """A structure's never-written bytes stay never-written where the merge puts it; Sort32 counts a half
    structure's reserved bytes 2-3 as written (docs/semantics.md §5.15)."""
    with asc.Core("A2", strict=True) as core:
        s = asc.LocalTensor(asc.float16, VECIN, 0, 64)
        s.write([float(i) for i in range(64)])
        ix = asc.LocalTensor(asc.uint32, VECIN, 256, 64)
        ix.write(list(range(64)))
        w = asc.LocalTensor(asc.float16, VECIN, 1024, 256)
        asc.sort32(w, s, ix, 2)
        assert (core.ub.written[1024:1024 + 512] == 1).all()
        core.ub.mark_undefined(np.arange(1024 + 6, 1024 + 512, 64))  # byte 6 (an index byte) of every 8th
        z = asc.LocalTensor(asc.float16, VECOUT, 4096, 256)
        asc.mrg_sort(z, asc.MrgSortSrcList(asc.float16, w[0], w[128]), asc.MrgSort4Info([32, 32, 0, 0], False, 3, 1))
        halves = np.frombuffer(core.ub_read(4096, 512), np.uint16)[0::4].view(np.float16)
        assert halves.tolist() == list(range(63, -1, -1))
        unwritten = set(np.flatnonzero(core.ub.written[4096:4096 + 512] == 0).tolist())
        # structures 0, 8, .. 56 of w hold the scores 31, 23, 15, 7 and 63, 55, 47, 39; output p holds 63 - p
        moved = [63 - score for score in (31, 23, 15, 7, 63, 55, 47, 39)]
        assert unwritten == {8 * p + 6 for p in moved}


def queues(dtype=asc.float32, starts=(0, 1024, 2048, 3072), size=128):
    return [asc.LocalTensor(dtype, VECIN, s, size) for s in starts]


def call(dst_addr=DST, starts=(0, 1024, 2048, 3072), lengths=(8, 8, 8, 8), suspend=False, valid=15, repeats=1,
         dtype=asc.float32, size=128):
    z = asc.LocalTensor(dtype, VECOUT, dst_addr, 1024)
    src = asc.MrgSortSrcList(dtype, *queues(dtype, starts, size))
    return lambda: asc.mrg_sort(z, src, asc.MrgSort4Info(list(lengths), suspend, valid, repeats))


def test_rejected_merges():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(UB_IMAGE))
        assert_rejected(core, ParameterRangeError, call(valid=5), operand="valid_bit", value=5)
        assert_rejected(core, ParameterRangeError, call(lengths=(4096, 8, 8, 8)), operand="element_lengths[0]")
        assert_rejected(core, ParameterRangeError, call(repeats=256), operand="repeat_times", value=256)
        assert_rejected(core, ParameterRangeError, call(repeats=2, valid=7), "validBit = 15", operand="repeat_times")
        assert_rejected(core, ParameterRangeError, call(repeats=2, lengths=(8, 8, 8, 4)), "one length")
        assert_rejected(core, ParameterRangeError, call(repeats=2, suspend=True), "ifExhaustedSuspension")
        assert_rejected(core, ParameterRangeError, call(repeats=2), "one after the other", operand="repeat_times")
        assert_rejected(core, AlignmentError, call(starts=(4, 1024, 2048, 3072)), operand="sort_list.src1 address")
        assert_rejected(core, AlignmentError, call(dst_addr=DST + 8), operand="dst address")
        assert_rejected(core, OutOfBoundsError, call(lengths=(8, 200, 8, 8), size=128),
                        operand="sort_list.src2 byte range")
        assert_rejected(core, OverlapError, call(dst_addr=2048), operand="dst byte address")
        assert_rejected(core, UnsupportedError, call(dtype=asc.int32), operand="dst dtype")
        z = asc.LocalTensor(asc.float32, VECOUT, DST, 1024)
        mixed = asc.MrgSortSrcList(asc.float32, *queues()[:3], asc.LocalTensor(asc.float16, VECIN, 3072, 128))
        assert_rejected(core, UnsupportedError, lambda: asc.mrg_sort(z, mixed, asc.MrgSort4Info([8] * 4, False, 15, 1)),
                        operand="sort_list.src4 dtype")
        two = asc.MrgSortSrcList(asc.float32, *queues()[:2])
        asc.mrg_sort(z, two, asc.MrgSort4Info([8, 8, 0, 0], False, 3, 1))  # src3/src4 may be absent for validBit 3
        with pytest.raises(TypeError):
            asc.mrg_sort(z, two, asc.MrgSort4Info([8, 8, 8, 0], False, 7, 1))
        assert_rejected(core, ParameterRangeError,
                        lambda: asc.mrg_sort(z, two, [8, 8, 0, 0], [0] * 4, 3, 0), operand="repeat_times", value=0)


def test_repeat_zero_is_a_nop_on_the_a2_and_rejected_on_the_950():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(image(2)))
        before = core.ub_read(0, UB_IMAGE)
        call(repeats=0)()
        assert core.ub_read(0, UB_IMAGE) == before
    with asc.Core("950") as core:
        assert_rejected(core, ParameterRangeError, call(repeats=0), "NOP", operand="repeat_times", value=0)


@pytest.mark.parametrize("chip, api", [("310P", "mrg_sort"), ("910", "mrg_sort"), ("A2", "mrg_sort4"),
                                       ("310B", "mrg_sort4"), ("910", "get_mrg_sort_result"),
                                       ("310B", "asc_mrgsort4"), ("950", "asc_get_vms4_sr")])
def test_products_without_the_api(chip, api):
    with asc.Core(chip) as core:
        z = asc.LocalTensor(asc.float16, VECOUT, DST, 1024)
        src = asc.MrgSortSrcList(asc.float16, *queues(asc.float16))
        calls = {"mrg_sort": lambda: asc.mrg_sort(z, src, asc.MrgSort4Info([8] * 4)),
                 "mrg_sort4": lambda: asc.mrg_sort4(z, src, asc.MrgSort4Info([8] * 4)),
                 "get_mrg_sort_result": asc.get_mrg_sort_result,
                 "asc_mrgsort4": lambda: asc.asc_mrgsort4(z, queues(asc.float16), 1, 8, 8, 8, 8, False, 15),
                 "asc_get_vms4_sr": lambda: asc.asc_get_vms4_sr([0] * 4)}
        assert_rejected(core, UnsupportedError, calls[api], instruction=api)


def test_vms4_sr_is_undefined_until_a_suspending_merge():
    """GetMrgSortResult.md 约束说明: it must follow a MrgSort with ifExhaustedSuspension = true."""
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(UB_IMAGE))
        assert_rejected(core, UnsupportedError, asc.get_mrg_sort_result, operand="VMS4_SR")
        call(suspend=True)()
        assert asc.get_mrg_sort_result() == (8, 0, 0, 0)  # equal (zero) scores: queue 1 first, exhausted first
        call(suspend=False)()
        assert_rejected(core, UnsupportedError, asc.get_mrg_sort_result, operand="VMS4_SR")
        assert_rejected(core, UnsupportedError, lambda: asc.asc_get_vms4_sr([0] * 4), operand="VMS4_SR")


def test_a_queue_empty_from_the_start_stops_a_suspending_merge_at_once():
    ub = image(12)
    starts = [SRC + q * 1024 for q in range(4)]
    out, sr, _ = run_merge("A2", asc.float32, ub, starts, [5, 0, 5, 5], 15, True)
    assert out == bytes(ub) and sr == (0, 0, 0, 0)


def test_mrg_sort4_rules():
    with asc.Core("310P") as core:
        core.ub_write(0, bytes(UB_IMAGE))
        z = asc.LocalTensor(asc.float16, VECOUT, DST, 1024)
        src = asc.MrgSortSrcList(asc.float16, *queues(asc.float16, (0, 1024, 2048, 3072)))
        zero = asc.MrgSort4Info([8] * 4, False, 15, 0)
        assert_rejected(core, ParameterRangeError, lambda: asc.mrg_sort4(z, src, zero), operand="repeat_times", value=0)
        odd = asc.MrgSortSrcList(asc.float16, *queues(asc.float16, (8, 1024, 2048, 3072)))
        assert_rejected(core, AlignmentError, lambda: asc.mrg_sort4(z, odd, asc.MrgSort4Info([8] * 4)),
                        operand="src.src1 address")
    with asc.Core("910") as core:
        z = asc.LocalTensor(asc.float32, VECOUT, DST, 1024)
        src = asc.MrgSortSrcList(asc.float32, *queues())
        assert_rejected(core, UnsupportedError, lambda: asc.mrg_sort4(z, src, asc.MrgSort4Info([8] * 4)),
                        operand="dst dtype")


def test_the_c_api_rules():
    with asc.Core("A2") as core:
        z = asc.LocalTensor(asc.float32, VECOUT, DST, 1024)
        odd = queues(starts=(8, 1024, 2048, 3072))
        assert_rejected(core, AlignmentError, lambda: asc.asc_mrgsort4(z, odd, 1, 8, 8, 8, 8, False, 15),
                        operand="src[0] address")
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_mrgsort4(z, queues(), 256, 8, 8, 8, 8, False, 15),
                        operand="repeat")
        assert_rejected(core, TypeError, lambda: asc.asc_mrgsort4(z, queues()[:3], 1, 8, 8, 8, 8, False, 15))
        sync = asc.asc_mrgsort4_sync
        core.ub_write(0, bytes(UB_IMAGE))
        sync(z, queues(), 1, 8, 8, 8, 8, False, 15)
        assert [r.kind for r in core.sync_log] == ["pipe_barrier"]


def test_page_example_of_mrg_sort_repeat_two():
    """MrgSort.md 调用示例: 8 sorted queues of 32 (score, index) structures, repeatTimes 2, contiguous: each
    repeat merges its 4 queues (the page prints no output; the model gives it)."""
    rng = np.random.default_rng(21)
    ub = image(21)
    values = rng.permutation(256).astype(np.float32)
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(ub))
        s = asc.LocalTensor(asc.float32, VECIN, 0, 256)
        s.write(values)
        ix = asc.LocalTensor(asc.uint32, VECIN, 1024, 256)
        ix.write(list(range(256)))
        work = asc.LocalTensor(asc.float32, VECIN, 4096, 512)
        asc.sort32(work, s, ix, 8)
        z = asc.LocalTensor(asc.float32, VECOUT, 8192, 512)
        src = asc.MrgSortSrcList(asc.float32, work[0], work[64], work[128], work[192])
        asc.mrg_sort(z, src, asc.MrgSort4Info([32, 32, 32, 32], False, 15, 2))
        out = struct.unpack("<1024f", core.ub_read(8192, 4096))
    scores, indices = out[0::2], [struct.unpack("<I", struct.pack("<f", v))[0] for v in out[1::2]]
    for r in range(2):
        block = values[128 * r:128 * (r + 1)]
        assert list(scores[128 * r:128 * (r + 1)]) == sorted(block.tolist(), reverse=True)
        assert [values[i] for i in indices[128 * r:128 * (r + 1)]] == list(scores[128 * r:128 * (r + 1)])
