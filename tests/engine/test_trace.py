"""Access-record helpers: merged ranges and JSON parameters."""

import enum
import json
from dataclasses import dataclass

import numpy as np

from npusim.engine.trace import ByteRange, json_value, merge_ranges, ranges_of_addresses


def test_merge_sorts_and_joins_touching_and_overlapping_ranges():
    merged = merge_ranges([("UB", 64, 96), ("UB", 0, 32), ("UB", 32, 40), ("UB", 70, 80)])
    assert merged == (ByteRange("UB", 0, 40), ByteRange("UB", 64, 96))


def test_merge_keeps_spaces_and_gm_buffers_apart_and_drops_empty_ranges():
    merged = merge_ranges([("GM", 0, 8, "x"), ("GM", 8, 16, "y"), ("UB", 0, 8), ("UB", 8, 8)])
    assert merged == (ByteRange("GM", 0, 8, "x"), ByteRange("GM", 8, 16, "y"), ByteRange("UB", 0, 8))


def test_ranges_of_addresses_finds_the_runs():
    addrs = np.array([5, 1, 2, 3, 3, 9, 10], dtype=np.int64)
    assert ranges_of_addresses("UB", addrs) == [ByteRange("UB", 1, 4), ByteRange("UB", 5, 6),
                                                ByteRange("UB", 9, 11)]
    assert ranges_of_addresses("UB", np.array([], dtype=np.int64)) == []


class Colour(enum.IntEnum):
    RED = 1


@dataclass
class Params:
    stride: int
    ratio: float


class Described:
    def describe(self):
        return {"tensor": "UB", "addr": 32}


def test_json_value_gives_plain_json_for_every_kind_of_argument():
    values = [1, np.int16(-2), 1.5, float("nan"), Colour.RED, Params(8, float("inf")), Described(), [1, (2, 3)],
              np.array([1, 2], dtype=np.uint8), None, True, "s", object]
    converted = [json_value(v) for v in values]
    assert converted[:10] == [1, -2, 1.5, "nan", "RED", {"stride": 8, "ratio": "inf"}, {"tensor": "UB", "addr": 32},
                              [1, [2, 3]], [1, 2], None]
    json.dumps(converted, allow_nan=False)  # strict JSON: no NaN/inf literals


def test_a_collector_gives_every_core_made_inside_it_a_trace_and_lists_them():
    from npusim import ascend as asc
    from npusim.engine.trace import collecting

    with collecting() as collector:
        first, second = asc.Core("A2"), asc.Core("A2", trace=True, block_idx=1, block_num=2)
    outside = asc.Core("A2")
    assert outside.trace is None
    assert [(c.vendor, c.chip, c.block) for c in collector.cores] == [("ascend", first.chip.name, 0),
                                                                     ("ascend", second.chip.name, 1)]
    assert collector.cores[0].records is first.trace and collector.cores[1].records is second.trace
    with first:
        dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 128)
        asc.duplicate(dst, 1.0, 128)
    assert [r.instruction for r in collector.records()] == ["duplicate"]
