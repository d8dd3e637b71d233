"""Sophgo access records and plan reuse: exact ranges on worked calls, and one plan for a moving kernel.

Expected ranges come from the per-element reference model (``reference_model.aligned_location``)
or from the documented layout formulas written out here, never from npusim.  The generic
exactness properties of every instruction's examples are in ``tests/engine/test_access_records.py``.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from npusim import sophgo as tpu
from npusim.engine import caches
from npusim.errors import AlignmentError

from .helpers import S, T, V
from .reference_model import aligned_location

LMS = 262144  # BM1684X LOCAL_MEM_SIZE
D = tpu.dim4


@pytest.fixture
def core():
    with tpu.Core("BM1684X", global_mem_bytes=1 << 20, trace=True, uninit="ignore") as c:
        yield c


def merged(spans) -> list[tuple[str, int, int]]:
    """Sorted ``(space, start, stop)`` byte spans with touching ones joined (independent of the engine's merge)."""
    out: list[list] = []
    for space, start, stop in sorted(spans):
        if out and out[-1][0] == space and start <= out[-1][2]:
            out[-1][2] = max(out[-1][2], stop)
        else:
            out.append([space, start, stop])
    return [tuple(span) for span in out]


def plain(ranges) -> list[tuple[str, int, int]]:
    assert all(r.buffer is None for r in ranges)
    return [(r.space, r.start, r.stop) for r in ranges]


def aligned_tensor(addr: int, shape: tuple, size: int) -> list[tuple[str, int, int]]:
    """The LOCAL bytes of every element of an aligned tensor (reference model), padding excluded."""
    spans = []
    for n, c, h, w in np.ndindex(*shape):
        lane, offset = aligned_location("BM1684X", addr, shape, size, n, c, h, w)
        spans.append(("LOCAL", lane * LMS + offset, lane * LMS + offset + size))
    return merged(spans)


def test_trace_is_off_by_default_and_must_be_a_bool():
    assert tpu.Core("BM1688").trace is None
    assert tpu.Core("BM1688", trace=True).trace == []
    with pytest.raises(TypeError, match="trace"):
        tpu.Core("BM1688", trace="yes")


def test_a_select_from_lane_5_records_its_tensor_and_vector_reads_and_only_dst_elements_as_writes(core):
    lane5 = 5 * LMS
    shape = (1, 70, 2, 3)
    tpu.tpu_bdc_greater_select(lane5 + 0x8000, T(lane5 + 0x0), V(lane5 + 0x1000), S(1), S(2), D(*shape),
                               tpu.DT_FP32, tpu.DT_FP32)
    (record,) = core.trace
    vector = merged(("LOCAL", (5 + c) % 64 * LMS + 0x1000, (5 + c) % 64 * LMS + 0x1004) for c in range(64))
    assert plain(record.reads) == merged(aligned_tensor(lane5, shape, 4) + vector)
    assert plain(record.writes) == aligned_tensor(lane5 + 0x8000, shape, 4)
    # the aligned layout pads each channel's 6 floats to 16: a quarter of dst's rows is padding
    assert sum(r.stop - r.start for r in record.writes) == 70 * 6 * 4
    assert (record.instruction, record.vendor, record.pipe, record.registers_read, record.registers_written) == (
        "tpu_bdc_greater_select", "sophgo", "BDC", (), ())
    assert record.source.startswith("test_trace.py:")
    params = json.loads(json.dumps(record.params, allow_nan=False))
    assert params["dst_addr"] == lane5 + 0x8000 and params["src0"]["type"] == "TENSOR"
    assert params["shape"] == {"n": 1, "c": 70, "h": 2, "w": 3} and params["dst_dtype"] == "DT_FP32"


def test_maximum_select_writes_both_dsts(core):
    tpu.tpu_bdc_maximum_greater_select(0x8000, 0x9000, S(1), T(0x0), T(0x1000), S(3), D(2, 3, 1, 5),
                                       tpu.DT_INT16, tpu.DT_UINT16)
    (record,) = core.trace
    assert plain(record.writes) == merged(aligned_tensor(0x8000, (2, 3, 1, 5), 2)
                                          + aligned_tensor(0x9000, (2, 3, 1, 5), 2))
    assert plain(record.reads) == merged(aligned_tensor(0x0, (2, 3, 1, 5), 2) + aligned_tensor(0x1000, (2, 3, 1, 5), 2))


def test_gdma_records_global_bytes_by_address_and_local_elements_by_lane():
    with tpu.Core("BM1684X", global_mem_bytes=1 << 20, trace=True) as c:
        c.write_global(0x100, np.zeros(2 * 3 * 4 * 10, np.int16))
        tpu.tpu_gdma_cpy_S2L(3 * LMS + 0x40, 0x100, D(2, 3, 4, 5), D(80, 24, 6, 1), D(120, 40, 10, 2), tpu.DT_INT16)
        tpu.tpu_gdma_cpy_L2S(0x8000, 3 * LMS + 0x40, D(2, 3, 4, 5), None, D(80, 24, 6, 1), tpu.DT_INT16)
    s2l, l2s = c.trace
    local_at = [(3 + ch) * LMS + 0x40 + 2 * (n * 80 + h * 6 + w) for n, ch, h, w in np.ndindex(2, 3, 4, 5)]
    global_at = [0x100 + 2 * (n * 120 + ch * 40 + h * 10 + w * 2) for n, ch, h, w in np.ndindex(2, 3, 4, 5)]
    local = merged(("LOCAL", a, a + 2) for a in local_at)
    strided = merged(("GLOBAL", a, a + 2) for a in global_at)
    assert (s2l.pipe, plain(s2l.reads), plain(s2l.writes)) == ("GDMA", strided, local)
    assert (plain(l2s.reads), plain(l2s.writes)) == (local, [("GLOBAL", 0x8000, 0x8000 + 2 * 120)])  # continuous


def test_set_c_reads_nothing_and_writes_its_elements(core):
    tpu.tpu_bdc_set_C(0x0, tpu.scalar_t(f32=1.5), D(2, 70, 3, 5), None, tpu.DT_FP32)
    (record,) = core.trace
    assert record.reads == () and plain(record.writes) == aligned_tensor(0x0, (2, 70, 3, 5), 4)


def test_rejected_and_untraced_calls_leave_no_record(core):
    with pytest.raises(AlignmentError):
        tpu.tpu_bdc_set_C(0x4, tpu.scalar_t(u32=0), D(1, 1, 1, 1), None, tpu.DT_FP32)
    assert core.trace == []
    with tpu.Core("BM1684X") as quiet:
        tpu.tpu_bdc_set_C(0x0, tpu.scalar_t(u32=0), D(1, 1, 1, 1), None, tpu.DT_FP32)
    assert quiet.trace is None


def plans() -> int:
    return caches.stats().get("plans", 0)


def test_a_kernel_walking_a_lane_and_global_memory_compiles_each_instruction_once():
    caches.clear_all()
    with tpu.Core("BM1684X", global_mem_bytes=1 << 22) as c, warnings.catch_warnings():
        warnings.simplefilter("error")
        c.write_global(0, np.arange(1 << 18, dtype=np.float32))
        tile = D(1, 64, 4, 8)
        for i in range(8):  # one tile per iteration: new global and local addresses every time
            local = 0x1000 * i
            tpu.tpu_gdma_cpy_S2L(local, 8192 * i, tile, None, None, tpu.DT_FP32)
            tpu.tpu_bdc_greater_select(local + 0x10000, T(local), S(0), T(local), S(0), tile, tpu.DT_FP32,
                                       tpu.DT_FP32)
            tpu.tpu_bdc_set_C(local + 0x20000, tpu.scalar_t(f32=i), tile, None, tpu.DT_FP32)
            tpu.tpu_gdma_cpy_L2S(0x200000 + 8192 * i, local + 0x10000, tile, None, None, tpu.DT_FP32)
        kept = caches.enabled()  # with NPUSIM_CACHES=off nothing is kept (and the bytes below agree)
        assert plans() == 4 * kept  # one per instruction: the addresses bind per call
        assert len(c.bindings) == 32 * kept
        tpu.tpu_bdc_set_C(5 * LMS, tpu.scalar_t(f32=0), tile, None, tpu.DT_FP32)  # another start lane: another plan
        assert plans() == 5 * kept
        out = c.read_global(0x200000, (8, 64 * 4 * 8), tpu.DT_FP32)
    x = np.arange(8 * 2048, dtype=np.float32).reshape(8, 2048)
    assert out.tobytes() == np.where(x > 0, x, 0).astype(np.float32).tobytes()
