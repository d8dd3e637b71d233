"""The printed example of the sort pages: GetMrgSortResult.md 调用示例 (the MrgSort form).

Its program: Sort32 of srcList = 1 .. 128 with the indices workLocal = 0 (128 zeros) into 4 queues of 32,
then MrgSort of the 4 queues with ifExhaustedSuspension = true and GetMrgSortResult.  The page prints
dstLocal = (128, 0), (127, 0), ... (1, 0): all 128 structures.  With suspension the merge stops once queue 4
(scores 128 .. 97) is exhausted, after 32 structures; the printed 256 values are those of the merge without
suspension (erratum, docs/numerics.md "Errata in the sort pages").  Both are checked: the call as printed
writes the first 32 printed structures, leaves the rest of dst, and VMS4_SR holds (0, 0, 0, 32); without
suspension all 256 printed values come out.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc

SRC_LIST = [float(i) for i in range(1, 129)]  # the printed srcList
WORK_LOCAL = [0] * 128  # the printed workLocal: the indices
DST_LOCAL = [v for k in range(128, 0, -1) for v in (float(k), 0.0)]  # the printed dstLocal (256 values)


def sorted_queues(sort32) -> tuple:
    """The page's first step on the active core: ``sort32`` (or its C API) of srcList with the indices
    workLocal into 4 queues of 32; returns them and the dst tensor."""
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
    src.write(SRC_LIST)
    index = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 512, 128)
    index.write(WORK_LOCAL)
    work = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 256)
    sort32(work, src, index, 4)
    return [work[0], work[32 * 1 * 2], work[32 * 2 * 2], work[32 * 3 * 2]], \
        asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 256)


def run(suspend: bool):
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(16384))
        queues, dst = sorted_queues(asc.sort32)
        asc.mrg_sort(dst, asc.MrgSortSrcList(asc.float32, *queues), asc.MrgSort4Info([32, 32, 32, 32], suspend, 15, 1))
        result = asc.get_mrg_sort_result() if suspend else None
        return core.ub_read(4096, 1024), result


def test_the_call_as_printed_stops_after_queue_4():
    raw, result = run(True)
    assert result == (0, 0, 0, 32)
    assert raw[:256] == np.array(DST_LOCAL[:64], np.float32).tobytes()
    assert raw[256:] == bytes(768)  # not written


def test_without_suspension_the_printed_dst_comes_out():
    raw, _ = run(False)
    assert raw == np.array(DST_LOCAL, np.float32).tobytes()


@pytest.mark.parametrize("name", ["asc_mrgsort4", "asc_mrgsort4_sync"])
def test_the_c_api_gives_the_printed_dst(name):
    with asc.Core("A2") as core:
        queues, dst = sorted_queues(asc.asc_bitsort)
        getattr(asc, name)(dst, queues, 1, 32, 32, 32, 32, True, 15)
        got = [0] * 4
        asc.asc_get_vms4_sr(got)
        assert got == [0, 0, 0, 32]
        assert core.ub_read(4096, 256) == np.array(DST_LOCAL[:64], np.float32).tobytes()
