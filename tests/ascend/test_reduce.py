"""whole_reduce_* / block_reduce_* / pair_reduce_sum / repeat_reduce_sum: the pages' worked examples,
every documented constraint, and properties against the plain reference (reduce_reference.py).

Worked examples: 归约计算/ReduceRepeat.md (MAX, MIN, four orders each), ReduceDataBlock.md (MAX, MIN,
SUM), ReducePairElem.md, and the legacy pages (asc-devkit 3825d1c98~1) WholeReduceMax.md,
WholeReduceMin.md, BlockReduceMax/Min/Sum.md, PairReduceSum.md, RepeatReduceSum.md; the pages print
heads and tails only, so the inputs are rebuilt from what they print (a constant per repeat or block
with one larger / smaller element, whose lane the printed index gives) and only printed values are
asserted.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.ops.reduce import REDUCE_OPS
from npusim.engine.registry import by_name
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import reduce_reference as model
from . import test_elementwise_access_records as records
from .conftest import assert_rejected, fill

F16, F32 = asc.float16, asc.float32
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
O = asc.ReduceOrder
FULL = [2**64 - 1, 2**64 - 1]
SRC, DST = 0x0, 0x2000


def tensors(core, src_dtype=F16, dst_dtype=F16, src_size=512, dst_size=256, src=SRC, dst=DST):
    return asc.LocalTensor(src_dtype, VECIN, src, src_size), asc.LocalTensor(dst_dtype, VECOUT, dst, dst_size)


def put(core, addr, values, dtype=np.float16):
    core.ub_write(addr, np.asarray(values, dtype=dtype).tobytes())


def halves(core, addr, n):
    return np.frombuffer(core.ub_read(addr, 2 * n), np.float16)


def bits16(core, addr, n):
    return np.frombuffer(core.ub_read(addr, 2 * n), np.uint16)


@pytest.fixture
def a2():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(64 * 1024))
        yield core


# ------------------------------------------------------------ the worked examples
def _spiked(base: list[float], spikes: list[tuple[int, float]], per: int = 128) -> np.ndarray:
    data = np.repeat(np.array(base, dtype=np.float16), per)
    for at, value in spikes:
        data[at] = value
    return data


# ReduceRepeat.md / legacy WholeReduceMax.md: repeats of 1, 2, 3 with 11 at lane 52, 12 at lane 100, 13 at
# lane 19 (the printed indices 3.09944e-06, 5.96046e-06, 1.13249e-06 are the half bits 52, 100, 19)
MAX_INPUT = _spiked([1, 2, 3], [(52, 11), (128 + 100, 12), (256 + 19, 13)])
MIN_INPUT = _spiked([10, 20, 30], [(52, 1), (128 + 100, 2), (256 + 19, 3)])
INDEX = {3.09944e-06: 52, 5.96046e-06: 100, 1.13249e-06: 19}


@pytest.mark.parametrize("function, data, values", [
    (asc.whole_reduce_max, MAX_INPUT, (11, 12, 13)), (asc.whole_reduce_min, MIN_INPUT, (1, 2, 3))])
@pytest.mark.parametrize("mask", [128, FULL], ids=["contiguous", "bitwise"])
def test_reduce_repeat_examples_every_order(a2, function, data, values, mask):
    """The four printed outputs: [v, i], [i, v], [v] (with 0 after), [i as uint32]."""
    x, z = tensors(a2)
    put(a2, SRC, data)
    a, b, c = values
    idx = [np.float16(v).view(np.uint16) for v in (3.09944e-06, 5.96046e-06, 1.13249e-06)]
    assert [int(i) for i in idx] == [52, 100, 19]  # the printed index decimals are these bit patterns
    expected = {
        O.ORDER_VALUE_INDEX: [np.float16(a).view(np.uint16), 52, np.float16(b).view(np.uint16), 100,
                              np.float16(c).view(np.uint16), 19],
        O.ORDER_INDEX_VALUE: [52, np.float16(a).view(np.uint16), 100, np.float16(b).view(np.uint16), 19,
                              np.float16(c).view(np.uint16)],
        O.ORDER_ONLY_VALUE: [np.float16(v).view(np.uint16) for v in (a, b, c)] + [0, 0, 0],
        O.ORDER_ONLY_INDEX: [52, 0, 100, 0, 19, 0],
    }
    for order, printed in expected.items():
        a2.ub_write(DST, bytes(64))
        function(z, x, mask, 3, 1, 1, 8, order)
        assert bits16(a2, DST, 6).tolist() == [int(v) for v in printed], order.name
    for default in ((), (None,)):  # the default order (pyasc: Optional[ReduceOrder], None too) is ORDER_VALUE_INDEX
        a2.ub_write(DST, bytes(64))
        function(z, x, mask, 3, 1, 1, 8, *default)
        assert bits16(a2, DST, 6).tolist() == [int(v) for v in expected[O.ORDER_VALUE_INDEX]]


@pytest.mark.parametrize("values, lanes, expected", [
    ({5: 7.0, 70: 7.0}, 128, (7.0, 5)),  # ties: the smallest index (约束说明)
    ({3: -0.0, 9: 0.0, 20: -0.0}, 128, (0.0, 9)),  # max(-0, +0) = +0
    ({30: np.nan, 40: np.nan, 1: np.inf}, 128, (np.nan, 30)),  # a NaN wins, the first one's index
    ({100: 9.0, 63: -0.5}, 64, (-0.5, 63)),  # lane 100 masked off
])
def test_max_index_rules(a2, values, lanes, expected):
    x, z = tensors(a2)
    data = np.full(128, -1, np.float16)
    for lane, value in values.items():
        data[lane] = value
    put(a2, SRC, data)
    asc.whole_reduce_max(z, x, lanes, 1, 1, 1, 8)
    value, index = bits16(a2, DST, 2)
    want = 0x7E00 if np.isnan(expected[0]) else int(np.float16(expected[0]).view(np.uint16))
    assert (int(value), int(index)) == (want, expected[1])


def test_min_of_zeros_is_minus_zero(a2):
    x, z = tensors(a2)
    data = np.zeros(128, np.float16)
    data[[4, 50]] = -0.0
    put(a2, SRC, data)
    asc.whole_reduce_min(z, x, 128, 1, 1, 1, 8)
    assert bits16(a2, DST, 2).tolist() == [0x8000, 4]


def test_whole_reduce_min_index_90(a2):
    """Legacy WholeReduceMin.md 约束说明: the slot after the value reads 5.364e-06, i.e. index 90."""
    x, z = tensors(a2)
    data = np.full(128, 0.998, np.float16)
    data[90] = 0.25
    put(a2, SRC, data)
    asc.whole_reduce_min(z, x, 128, 1, 1, 1, 8)
    assert bits16(a2, DST + 2, 1)[0] == 90
    assert f"{halves(a2, DST + 2, 1)[0]:.3e}" == "5.364e-06"


def _blocks(base: list[float], spikes: dict[int, tuple[int, float]]) -> np.ndarray:
    data = np.repeat(np.array(base, dtype=np.float16), 16)
    for block, (lane, value) in spikes.items():
        data[16 * block + lane] = value
    return data


@pytest.mark.parametrize("call", ["legacy", "contiguous", "bitwise"])
def test_reduce_data_block_max_example(a2, call):
    """ReduceDataBlock.md / BlockReduceMax.md: 2 in block 0 (lane 10), 3 in block 1 (lane 13), 4 in
    block 7 (lane 3), ones elsewhere -> [2, 3, ..., 4]."""
    x, z = tensors(a2)
    put(a2, SRC, _blocks([1] * 8, {0: (10, 2), 1: (13, 3), 7: (3, 4)}))
    mask = FULL if call == "bitwise" else 256 // 2
    asc.block_reduce_max(z, x, 1, mask, 1, 1, 8)
    out = halves(a2, DST, 8)
    assert (out[0], out[1], out[7]) == (2, 3, 4)
    assert out[2:7].tolist() == [1] * 5


def test_reduce_data_block_min_example(a2):
    """ReduceDataBlock.md / BlockReduceMin.md: 10s with 2 (block 0 lane 11), -3 (block 1 lane 13), 4 (block 7
    lane 9) -> [2, -3, ..., 4]."""
    x, z = tensors(a2)
    put(a2, SRC, _blocks([10] * 8, {0: (11, 2), 1: (13, -3), 7: (9, 4)}))
    asc.block_reduce_min(z, x, 1, FULL, 1, 1, 8)
    out = halves(a2, DST, 8)
    assert (out[0], out[1], out[7]) == (2, -3, 4)


def test_reduce_data_block_sum_example(a2):
    """ReduceDataBlock.md / BlockReduceSum.md: blocks of 16 ones, 16 twos, ..., 16 threes -> [16, 32, ..., 48]."""
    x, z = tensors(a2)
    put(a2, SRC, np.repeat(np.array([1, 2, 1, 1, 1, 1, 1, 3], np.float16), 16))
    asc.block_reduce_sum(z, x, 1, FULL, 1, 1, 8)
    out = halves(a2, DST, 8)
    assert (out[0], out[1], out[7]) == (16, 32, 48)


@pytest.mark.parametrize("mask", [128, FULL], ids=["contiguous", "bitwise"])
def test_reduce_pair_elem_example(a2, mask):
    """ReducePairElem.md / PairReduceSum.md: [1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4, ...] ->
    [2, 0, 4, 1, 6, 2, 8, 2, ...]."""
    x, z = tensors(a2)
    data = np.ones(128, np.float16)
    data[:16] = [1, 1, 1, -1, 2, 2, -1, 2, 3, 3, 3, -1, 4, 4, -2, 4]
    put(a2, SRC, data)
    asc.pair_reduce_sum(z, x, 1, mask, 1, 1, 8)
    assert halves(a2, DST, 8).tolist() == [2, 0, 4, 1, 6, 2, 8, 2]
    assert halves(a2, DST + 16, 56).tolist() == [2] * 56


def test_repeat_reduce_sum_example(a2):
    """Legacy RepeatReduceSum.md: repeats of 128 ones, twos, threes, mask 128, dst_rep_stride 1 -> [128 256 ... 384]."""
    x, z = tensors(a2)
    put(a2, SRC, np.repeat(np.array([1, 2, 3], np.float16), 128))
    asc.repeat_reduce_sum(z, x, 3, 128, 0, 1, 1, 8)
    assert halves(a2, DST, 3).tolist() == [128, 256, 384]


@pytest.mark.parametrize("function", ["whole_reduce_sum", "block_reduce_sum"])
def test_saturation_example(a2, function):
    """ReduceDataBlock.md 约束说明 (and the legacy WholeReduceSum/RepeatReduceSum pages), half in the
    saturation mode: [60000, 60000, -30000, 100] -> 65504 + (-29900) = "35604".  That is decimal arithmetic
    (erratum, docs/numerics.md): in half -29900 is -29904 and 65504 - 29904 = 35600 rounds (tie, even) to
    35584.  Without saturation 60000 + 60000 overflows to inf and so does the sum."""
    x, z = tensors(a2)
    put(a2, SRC, [60000, 60000, -30000, 100])
    call = {"whole_reduce_sum": lambda: asc.whole_reduce_sum(z, x, 4, 1, 1, 1, 8),
            "block_reduce_sum": lambda: asc.block_reduce_sum(z, x, 1, 4, 1, 1, 8)}[function]
    call()
    assert halves(a2, DST, 1)[0] == 35584
    assert bits16(a2, DST, 1)[0] == model.tree_sum([int(v) for v in np.array([60000, 60000, -30000, 100], np.float16)
                                                    .view(np.uint16)], "float16", "float16", True)
    asc.set_saturation_flag(False)
    call()
    assert bits16(a2, DST, 1)[0] == 0x7C00


def test_tree_order_not_sequential(a2):
    """The adjacent-pair tree, not a running sum: 2048 + 1 + 1 + ... in half gives 2048 sequentially
    (each +1 is a tie that rounds back to 2048) but 2174 by the tree: 2048 + 1 -> 2048, then
    + 2 + 4 + 8 + 16 + 32 + 64 (the other ones pair up first), all exact."""
    x, z = tensors(a2)
    data = np.ones(128, np.float16)
    data[0] = 2048
    put(a2, SRC, data)
    asc.whole_reduce_sum(z, x, 128, 1, 1, 1, 8)
    assert halves(a2, DST, 1)[0] == 2174
    running = np.float16(0)
    for value in data:
        running = np.float16(running + value)
    assert running == 2048
    tree = model.tree_sum([int(v) for v in data.view(np.uint16)], "float16", "float16", False)
    assert bits16(a2, DST, 1)[0] == tree


@pytest.mark.parametrize("subnormal_sources", [0, 16, 1000])
def test_half_sums_of_subnormal_data_follow_the_tree(a2, subnormal_sources):
    """Half sums whose sources and nodes are subnormal (magnitudes below 2**-14, the nodes rounded to nearest
    even there too): none, a few and almost all of 8 repeats' sources, so the sum's every rounding path runs
    (docs/performance.md: how many subnormal sources decide which rounds the nodes)."""
    rng = np.random.default_rng(subnormal_sources)
    bits = rng.integers(0x0400, 0x5000, 1024, dtype=np.uint16)  # normal magnitudes up to 32
    tiny = rng.choice(1024, subnormal_sources, replace=False)
    bits[tiny] = rng.integers(1, 0x0400, subnormal_sources, dtype=np.uint16)
    bits[rng.choice(1024, 64, replace=False)] = 0  # zeros among them
    bits |= (rng.integers(0, 2, 1024, dtype=np.uint16) << 15)  # either sign: sums that cancel
    x, z = tensors(a2, src_size=1024)
    put(a2, SRC, bits.view(np.float16))
    for function, width in (("block_reduce_sum", 16), ("whole_reduce_sum", 128)):
        results = 8 * (128 // width)
        call = {"block_reduce_sum": lambda: asc.block_reduce_sum(z, x, 8, 128, 1, 1, 8),
                "whole_reduce_sum": lambda: asc.whole_reduce_sum(z, x, 128, 8, 1, 1, 8)}[function]
        call()
        expected = [model.tree_sum([int(v) for v in group], "float16", "float16", True)
                    for group in bits.reshape(results, width)]
        assert bits16(a2, DST, results).tolist() == expected, function


# ------------------------------------------------------------------ products
def test_950_integer_sum_widens():
    """ReduceRepeat.md 数据类型 (950): int16 -> int32 and uint16 -> uint32 sums, modulo 2^32."""
    with asc.Core("950") as core:
        core.ub_write(0, bytes(64 * 1024))
        x, z = tensors(core, asc.int16, asc.int32, dst_size=64)
        put(core, SRC, np.full(128, -32768, np.int16), np.int16)
        asc.whole_reduce_sum(z, x, 128, 1, 1, 1, 8)
        assert np.frombuffer(core.ub_read(DST, 4), np.int32)[0] == -32768 * 128
        x, z = tensors(core, asc.uint32, asc.uint32, dst_size=64)
        put(core, SRC, np.full(64, 0xFFFFFFFF, np.uint32), np.uint32)
        asc.whole_reduce_sum(z, x, 64, 1, 1, 1, 8)
        assert np.frombuffer(core.ub_read(DST, 4), np.uint32)[0] == (64 * 0xFFFFFFFF) & 0xFFFFFFFF
        x, z = tensors(core, asc.int16, asc.int16, dst_size=64)
        data = np.arange(128, dtype=np.int16) - 60
        put(core, SRC, data, np.int16)
        asc.whole_reduce_min(z, x, 128, 1, 1, 1, 8)
        assert np.frombuffer(core.ub_read(DST, 4), np.int16).tolist() == [-60, 0]


@pytest.mark.parametrize("chip, expected", [("A2", 0x1234), ("310P", 0x1234), ("910", 0x1234),
                                            ("310B", 0xFBFF), ("950", 0xFC00)])
def test_empty_block_of_block_reduce_max(chip, expected):
    """ReduceDataBlock.md 约束说明: a DataBlock with no active lane keeps dst on the A2/A3 (and by the
    legacy page's "other products" elsewhere); the 310B writes -65504 for half, the 950 -inf."""
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(64 * 1024))
        x, z = tensors(core)
        put(core, SRC, np.arange(128, dtype=np.float16))
        core.ub_write(DST, bytes.fromhex("3412") * 8)
        asc.block_reduce_max(z, x, 1, 32, 1, 1, 8)  # blocks 0 and 1 active
        out = bits16(core, DST, 8)
        assert halves(core, DST, 2).tolist() == [15, 31]
        assert out[2:].tolist() == [expected] * 6


@pytest.mark.parametrize("chip, expected", [("A2", 0x1234), ("310P", 0x1234), ("310B", 0), ("950", 0)])
def test_empty_pair(chip, expected):
    """ReducePairElem.md 约束说明: both lanes of a pair masked: unchanged on A2/A3/310P, 0 on the 950 and 310B."""
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(64 * 1024))
        x, z = tensors(core)
        put(core, SRC, np.ones(128, np.float16))
        core.ub_write(DST, bytes.fromhex("3412") * 64)
        asc.pair_reduce_sum(z, x, 1, 125, 1, 1, 8)
        out = bits16(core, DST, 64)
        assert halves(core, DST, 62).tolist() == [2] * 62
        assert halves(core, DST + 124, 1)[0] == 1  # lane 124 alone: 1 + 0
        assert out[63] == expected


# ------------------------------------------------------------------ constraints
def _call(name, x, z, **kw):
    args = {"whole_reduce_sum": (128, 1, 1, 1, 8), "whole_reduce_max": (128, 1, 1, 1, 8),
            "block_reduce_sum": (1, 128, 1, 1, 8), "pair_reduce_sum": (1, 128, 1, 1, 8),
            "repeat_reduce_sum": (1, 128, 0, 1, 1, 8)}[name]
    return lambda: getattr(asc, name)(z, x, *args, **kw)


@pytest.mark.parametrize("name, offset", [("whole_reduce_sum", 2), ("block_reduce_sum", 16), ("pair_reduce_sum", 32),
                                          ("repeat_reduce_sum", 32), ("whole_reduce_max", 4)])
def test_dst_alignment(a2, name, offset):
    """ReduceRepeat.md 表3 (half SUM 2 B, MAX with index 4 B), ReduceDataBlock.md (16 B half), ReducePairElem.md
    and RepeatReduceSum.md (32 B): the first offset that is aligned runs, half of it is rejected."""
    x, _ = tensors(a2)
    z = asc.LocalTensor(F16, VECOUT, DST + offset, 128)
    _call(name, x, z)()
    bad = asc.LocalTensor(F16, VECOUT, DST + offset // 2, 128)
    assert_rejected(a2, AlignmentError, _call(name, x, bad), instruction=name, operand="dst address",
                    value=DST + offset // 2)


def test_src_alignment(a2):
    _x, z = tensors(a2)
    x = asc.LocalTensor(F16, VECIN, 16, 128)
    assert_rejected(a2, AlignmentError, _call("whole_reduce_sum", x, z), instruction="whole_reduce_sum",
                    operand="src address", value=16)


@pytest.mark.parametrize("chip, name", [("KirinX90", "pair_reduce_sum"), ("310B", "repeat_reduce_sum"),
                                        ("Kirin9030", "repeat_reduce_sum"), ("310P-VEC", "whole_reduce_sum")])
def test_unsupported_products(chip, name):
    with asc.Core(chip) as core:
        x, z = tensors(core)
        assert_rejected(core, UnsupportedError, _call(name, x, z), instruction=name, operand="product")


@pytest.mark.parametrize("chip, src, dst", [("A2", asc.int16, asc.int32), ("910", F32, F32),
                                            ("A2", asc.int32, asc.int32)])
def test_unsupported_dtypes(chip, src, dst):
    with asc.Core(chip) as core:
        x, z = tensors(core, src, dst)
        assert_rejected(core, UnsupportedError, _call("whole_reduce_sum", x, z), instruction="whole_reduce_sum",
                        operand="dst dtype", value=dst.name)


def test_src_dtype_must_fit_dst():
    with asc.Core("950") as core:
        x, z = tensors(core, asc.uint16, asc.int32)
        assert_rejected(core, UnsupportedError, _call("whole_reduce_sum", x, z), instruction="whole_reduce_sum",
                        operand="src dtype", value="uint16")
    with asc.Core("A2") as core:
        x, z = tensors(core, F32, F16)
        assert_rejected(core, UnsupportedError, _call("block_reduce_sum", x, z), operand="src dtype", value="float32")


@pytest.mark.parametrize("chip, order", [("310B", O.ORDER_INDEX_VALUE), ("310P", O.ORDER_ONLY_VALUE),
                                         ("910", O.ORDER_INDEX_VALUE), ("KirinX90", O.ORDER_ONLY_INDEX)])
def test_unsupported_orders(chip, order):
    """ReduceRepeat.md 约束说明: the orders per product."""
    with asc.Core(chip) as core:
        x, z = tensors(core)
        assert_rejected(core, UnsupportedError, lambda: asc.whole_reduce_max(z, x, 128, 1, 1, 1, 8, order),
                        instruction="whole_reduce_max", operand="order", value=order.name)


def test_order_out_of_range(a2):
    x, z = tensors(a2)
    assert_rejected(a2, ParameterRangeError, lambda: asc.whole_reduce_min(z, x, 128, 1, 1, 1, 8, 4),
                    instruction="whole_reduce_min", operand="order", value=4)


@pytest.mark.parametrize("name, operand", [
    ("whole_reduce_sum", "src_rep_stride"), ("block_reduce_sum", "dst_rep_stride"),
    ("pair_reduce_sum", "src_blk_stride"), ("repeat_reduce_sum", "dst_blk_stride")])
def test_strides_are_uint16(a2, name, operand):
    x, z = tensors(a2)
    entry = getattr(asc, name).instruction
    names = entry.forms[0].names
    values = {"whole_reduce_sum": (128, 1, 1, 1, 8), "block_reduce_sum": (1, 128, 1, 1, 8),
              "pair_reduce_sum": (1, 128, 1, 1, 8), "repeat_reduce_sum": (1, 128, 0, 1, 1, 8)}[name]
    args = dict(zip(names[2:2 + len(values)], values, strict=True))
    args[operand] = 65536
    assert_rejected(a2, ParameterRangeError, lambda: getattr(asc, name)(z, x, **args), instruction=name,
                    operand=operand, value=65536)


@pytest.mark.parametrize("name", ["whole_reduce_sum", "block_reduce_sum", "pair_reduce_sum"])
def test_910_rejects_dst_rep_stride_0(name):
    """"Atlas 训练系列产品不支持配置0" (dstRepStride)."""
    with asc.Core("910") as core:
        x, z = tensors(core)
        call = {"whole_reduce_sum": lambda: asc.whole_reduce_sum(z, x, 128, 2, 0, 1, 8),
                "block_reduce_sum": lambda: asc.block_reduce_sum(z, x, 2, 128, 0, 1, 8),
                "pair_reduce_sum": lambda: asc.pair_reduce_sum(z, x, 2, 128, 0, 1, 8)}[name]
        assert_rejected(core, ParameterRangeError, call, instruction=name, operand="dst_rep_stride", value=0)


def test_repeat_time_range(a2):
    x, z = tensors(a2)
    assert_rejected(a2, ParameterRangeError, lambda: asc.whole_reduce_sum(z, x, 128, 256, 1, 1, 8),
                    instruction="whole_reduce_sum", operand="repeat_times", value=256)


def test_zero_repeat_and_mask_are_nops_on_a2_not_on_950(a2):
    x, z = tensors(a2)
    before = a2.ub_read(0, 64 * 1024)
    asc.whole_reduce_sum(z, x, 128, 0, 1, 1, 8)
    asc.block_reduce_sum(z, x, 1, 0, 1, 1, 8)
    assert a2.ub_read(0, 64 * 1024) == before
    with asc.Core("950") as core:
        x, z = tensors(core)
        assert_rejected(core, ParameterRangeError, lambda: asc.pair_reduce_sum(z, x, 0, 128, 1, 1, 8),
                        instruction="pair_reduce_sum", operand="repeat_time", value=0)
        assert_rejected(core, ParameterRangeError, lambda: asc.whole_reduce_sum(z, x, 0, 1, 1, 1, 8),
                        instruction="whole_reduce_sum", operand="mask", value=0)


def test_overlap_rules(a2):
    """通用地址重叠约束: a repeat may not read what an earlier one wrote, nor overlap dst partially."""
    x = asc.LocalTensor(F16, VECIN, SRC, 512)
    fill(a2, SRC, 1024)
    z = asc.LocalTensor(F16, VECOUT, SRC + 256, 128)  # repeat 0 writes into repeat 1's source
    assert_rejected(a2, OverlapError, lambda: asc.whole_reduce_sum(z, x, 128, 2, 1, 1, 8),
                    instruction="whole_reduce_sum")
    z = asc.LocalTensor(F16, VECOUT, SRC, 128)  # in place: one result over its own repeat's lanes
    assert_rejected(a2, OverlapError, lambda: asc.block_reduce_sum(z, x, 1, 128, 1, 1, 8),
                    instruction="block_reduce_sum")


def test_bounds(a2):
    x, _ = tensors(a2)
    z = asc.LocalTensor(F16, VECOUT, DST, 8)
    assert_rejected(a2, OutOfBoundsError, lambda: asc.whole_reduce_sum(z, x, 128, 2, 8, 1, 8),
                    instruction="whole_reduce_sum")
    x = asc.LocalTensor(F16, VECIN, SRC, 128)
    z = asc.LocalTensor(F16, VECOUT, DST, 256)
    assert_rejected(a2, OutOfBoundsError, lambda: asc.pair_reduce_sum(z, x, 2, 128, 1, 1, 8),
                    instruction="pair_reduce_sum")


def test_repeat_reduce_sum_takes_a_contiguous_mask_only(a2):
    x, z = tensors(a2)
    with pytest.raises(TypeError):
        asc.repeat_reduce_sum(z, x, 1, FULL, 0, 1, 1, 8)


def test_is_set_mask_false_uses_the_register(a2):
    x, z = tensors(a2)
    put(a2, SRC, np.arange(128, dtype=np.float16))
    asc.set_vector_mask(0, 0b1100)
    asc.whole_reduce_max(z, x, 0, 1, 1, 1, 8, O.ORDER_VALUE_INDEX, False)
    assert bits16(a2, DST, 2).tolist() == [np.float16(3).view(np.uint16), 3]


def test_native_mask_left_in_register(a2):
    x, z = tensors(a2)
    put(a2, SRC, np.arange(128, dtype=np.float16))
    asc.whole_reduce_sum(z, x, [0xF, 0], 1, 1, 1, 8)
    assert a2.mask_words[:2] == (0xF, 0)
    assert halves(a2, DST, 1)[0] == 6


# ------------------------------------------------------------------ properties
CHIPS = ("A2", "310B", "950")
KINDS = {"whole_reduce_sum": ("repeat", "sum"), "whole_reduce_max": ("repeat", "max"),
         "whole_reduce_min": ("repeat", "min"), "block_reduce_sum": ("block", "sum"),
         "block_reduce_max": ("block", "max"), "block_reduce_min": ("block", "min"),
         "pair_reduce_sum": ("pair", "sum"), "repeat_reduce_sum": ("repeat", "sum")}
SPECIAL = {"float16": [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01, 0x0001, 0x7BFF, 0xFBFF, 0x3C00],
           "float32": [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00001, 1, 0x7F7FFFFF,
                       0x3F800000]}  # NaNs the canonical quiet NaN and others (a result must be the canonical one)


@st.composite
def calls(draw):
    name = draw(st.sampled_from(sorted(KINDS)))
    kind, op = KINDS[name]
    chip = draw(st.sampled_from(("A2", "950") if name == "repeat_reduce_sum" else CHIPS))
    fmt = draw(st.sampled_from(["float16", "float32"]))
    size = 2 if fmt == "float16" else 4
    lanes = 256 // size
    repeats = draw(st.integers(1, 3))
    if name == "repeat_reduce_sum" or draw(st.booleans()):
        mask = draw(st.one_of(st.just(lanes), st.integers(1, lanes)))  # every lane active: the common call
    else:
        words = [draw(st.integers(1, 2**64 - 1)), draw(st.integers(0, 2**64 - 1)) if size == 2 else 0]
        mask = words
    blk = draw(st.integers(1, 2))
    rep = draw(st.integers(8 * blk, 8 * blk + 4))
    dst_rep = draw(st.integers(1, 3))
    order = draw(st.sampled_from(list(O))) if op != "sum" and kind == "repeat" else None
    if order is not None and chip == "310B":
        order = draw(st.sampled_from([O.ORDER_VALUE_INDEX, O.ORDER_ONLY_VALUE]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = 2048 // size
    values = rng.integers(0, 2 ** (8 * size), n, dtype=np.uint64)
    if draw(st.booleans()):  # small magnitudes, so that sums round rather than overflow
        values = np.array(rng.standard_normal(n), dtype=np.float16 if size == 2 else np.float32).view(
            np.uint16 if size == 2 else np.uint32).astype(np.uint64)
    if draw(st.booleans()):  # few distinct values: ties, whose first lane the index must name
        values = rng.choice(np.array(SPECIAL[fmt][:4] + SPECIAL[fmt][-2:], dtype=np.uint64), n)
    special = rng.random(n) < draw(st.sampled_from([0.0, 0.05, 0.3]))
    values[special] = rng.choice(SPECIAL[fmt], int(special.sum()))
    values = values.tolist()
    saturate = draw(st.booleans())
    return name, kind, op, chip, fmt, repeats, mask, blk, rep, dst_rep, order, values, saturate


def _active(mask, lanes: int, repeats: int) -> list[list[bool]]:
    if isinstance(mask, int):
        on = [j < mask for j in range(lanes)]
    else:
        bits = mask[0] | (mask[1] << 64)
        on = [bool(bits >> j & 1) for j in range(lanes)]
    return [on] * repeats


@settings(max_examples=60, deadline=None)
@given(calls())
def test_matches_reference(case):
    name, kind, op, chip, fmt, repeats, mask, blk, rep, dst_rep, order, values, saturate = case
    size = 2 if fmt == "float16" else 4
    dtype = F16 if fmt == "float16" else F32
    with asc.Core(chip) as core:
        payload = np.array(values, dtype=np.uint16 if size == 2 else np.uint32).tobytes()
        core.ub_write(0, payload)
        core.ub_write(DST, bytes(range(256)) * 8)
        if not saturate and core.chip.saturation_flag_api:
            asc.set_saturation_flag(False)
        x = asc.LocalTensor(dtype, VECIN, SRC, len(payload) // size)
        z = asc.LocalTensor(dtype, VECOUT, DST, 2048 // size)
        before = bytearray(core.ub_read(0, 0x3000))
        args = {"repeat": (mask, repeats, dst_rep, blk, rep), "block": (repeats, mask, dst_rep, blk, rep),
                "pair": (repeats, mask, dst_rep, blk, rep)}[kind]
        if name == "repeat_reduce_sum":
            args = (repeats, mask, 0, blk, dst_rep, rep)
        if order is not None:
            args = (*args, order)
        getattr(asc, name)(z, x, *args)
        saturating = core.float_saturation and fmt in core.chip.float_saturation_dtypes
        expected = model.run(before, op=op, kind=kind, dst_fmt=fmt, src_fmt=fmt, dst=DST, src=SRC,
                             active=_active(mask, 256 // size, repeats), dst_rep_stride=dst_rep, blk=blk, rep=rep,
                             order=(order.name.removeprefix("ORDER_").lower() if order is not None else "value_index"),
                             saturate=saturating, fills_empty=chip in ("310B", "950") and kind != "repeat",
                             chip=chip)
        assert core.ub_read(0, 0x3000) == bytes(expected)


@pytest.mark.parametrize("fmt", ["float16", "float32"])
@pytest.mark.parametrize("name", ["whole_reduce_max", "whole_reduce_min", "block_reduce_max", "block_reduce_min"])
@pytest.mark.parametrize("repeats", [1, 3])
def test_extrema_of_zeros_and_nans_over_every_lane(name, fmt, repeats):
    """Every lane active (the call numpy's own argmax / argmin may serve): repeats whose extremum is a zero
    of either sign, a NaN that is not the canonical one (the result must be), or a plain number, against
    the reference model."""
    size = 2 if fmt == "float16" else 4
    lanes, raw = 256 // size, (np.uint16 if size == 2 else np.uint32)
    zero, minus_zero, one, nan = ((0, 0x8000, 0x3C00, 0xFE01) if size == 2 else (0, 0x80000000, 0x3F800000,
                                                                                  0x7F800001))
    rows = [[minus_zero, zero] * (lanes // 2), [one] * 5 + [nan] + [one] * (lanes - 6), list(range(1, lanes + 1))]
    kind, op = KINDS[name]
    for chosen in ([[row] for row in rows] if repeats == 1 else [rows]):  # one call per row, or one for all
        values = [v for row in chosen for v in row]
        with asc.Core("A2") as core:
            payload = np.array(values + [0] * (2048 // size - len(values)), dtype=raw).tobytes()
            core.ub_write(0, payload)
            core.ub_write(DST, bytes(range(256)) * 8)
            dtype = F16 if size == 2 else F32
            x, z = asc.LocalTensor(dtype, VECIN, SRC, 2048 // size), asc.LocalTensor(dtype, VECOUT, DST, 2048 // size)
            before = bytearray(core.ub_read(0, 0x3000))
            args = (lanes, repeats, 1, 1, 8) if kind == "repeat" else (repeats, lanes, 1, 1, 8)
            getattr(asc, name)(z, x, *args)
            expected = model.run(before, op=op, kind=kind, dst_fmt=fmt, src_fmt=fmt, dst=DST, src=SRC,
                                 active=_active(lanes, lanes, repeats), dst_rep_stride=1, blk=1, rep=8,
                                 order="value_index", saturate=False, fills_empty=False, chip="A2")
            assert core.ub_read(0, 0x3000) == bytes(expected)


# ------------------------------------------------------------------ access records
@pytest.mark.parametrize("name, index", [(name, i) for name, op in REDUCE_OPS.items()
                                         for i in range(len(by_name("ascend", name).examples))])
def test_access_record_is_exact(name, index):
    """Every changed byte lies in the record's writes; the written bytes depend on nothing outside reads + writes."""
    snippet = by_name("ascend", name).examples[index]
    rng = np.random.default_rng(index)
    image = rng.integers(0, 256, records.SPAN, dtype=np.uint8)
    after, record = records.run(snippet, image.tobytes())
    assert record.instruction == name
    writes, reads = records.covered(record.writes), records.covered(record.reads)
    changed = after != image
    assert not (changed & ~writes).any()
    assert writes.any() and not (writes & reads).any()
    other = image.copy()
    outside = ~(reads | writes)
    other[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)
    again, _ = records.run(snippet, other.tobytes())
    assert (again[writes] == after[writes]).all()


# ------------------------------------------------------------------ the C API
def test_c_api_example(a2):
    """asc_repeat_reduce_sum.md 调用示例: 256 ones, repeat 2, strides 1, 1, 8 -> [128, 128] (mask register all ones)."""
    x, z = tensors(a2)
    put(a2, SRC, np.ones(256, np.float16))
    asc.set_vector_mask(2**64 - 1, 2**64 - 1)
    asc.asc_repeat_reduce_sum(z, x, 2, 1, 1, 8)
    assert halves(a2, DST, 2).tolist() == [128, 128]


@pytest.mark.parametrize("name, cpp, args, order", [
    ("asc_datablock_reduce_max", "block_reduce_max", (), None), ("asc_pair_reduce_sum", "pair_reduce_sum", (), None),
    ("asc_repeat_reduce_sum", "whole_reduce_sum", (), None),
    ("asc_repeat_reduce_min_index_value", "whole_reduce_min", (), O.ORDER_INDEX_VALUE),
    ("asc_repeat_reduce_max_only_index", "whole_reduce_max", (), O.ORDER_ONLY_INDEX)])
def test_c_api_is_the_instruction(a2, name, cpp, args, order):
    """Each C API function is registered as an alias of its instruction and computes the same bytes:
    the repeat form with is_set_mask=False, the count form as counter mode over the first count elements."""
    entry = getattr(asc, name).instruction
    assert entry.alias_of == cpp and getattr(asc, f"{name}_sync").instruction.alias_of == cpp
    x, z = tensors(a2, dst_size=2048)
    fill(a2, SRC, 1024, seed=3)
    a2.ub_write(SRC, np.random.default_rng(1).standard_normal(512).astype(np.float16).tobytes())
    asc.set_vector_mask(0xFFFF0000FFFF, 0xF0)
    getattr(asc, name)(z, x, 3, 2, 1, 8)
    via_c = a2.ub_read(DST, 4096)
    a2.ub_write(DST, bytes(4096))
    orders = () if cpp == "whole_reduce_sum" else (order or O.ORDER_VALUE_INDEX,)
    if cpp.startswith(("block", "pair")):
        getattr(asc, cpp)(z, x, 3, 0, 2, 1, 8, False)
    else:
        getattr(asc, cpp)(z, x, 0, 3, 2, 1, 8, *orders, False)
    assert a2.ub_read(DST, 4096) == via_c
    a2.ub_write(DST, bytes(4096))
    getattr(asc, f"{name}_sync")(z, x, 300)
    synced = a2.ub_read(DST, 4096)
    assert a2.sync_log[-1].kind == "pipe_barrier"
    asc.set_mask_count()
    asc.set_vector_mask(0, 300)
    a2.ub_write(DST, bytes(4096))
    if cpp.startswith(("block", "pair")):
        getattr(asc, cpp)(z, x, 1, 0, 1, 1, 8, False)
    else:
        getattr(asc, cpp)(z, x, 0, 1, 1, 1, 8, *orders, False)
    asc.set_mask_norm()
    assert a2.ub_read(DST, 4096) == synced


def test_c_api_rules():
    with asc.Core("310P") as core:
        x, z = tensors(core)
        assert_rejected(core, UnsupportedError, lambda: asc.asc_pair_reduce_sum(z, x, 128), operand="product")
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(64 * 1024))
        x, _ = tensors(core)
        z = asc.LocalTensor(F16, VECOUT, DST + 16, 64)  # 16 B is enough for block_reduce_sum, not for the C API
        asc.block_reduce_sum(z, x, 1, 128, 1, 1, 8)
        assert_rejected(core, AlignmentError, lambda: asc.asc_datablock_reduce_sum(z, x, 128), operand="dst address")
        z = asc.LocalTensor(F16, VECOUT, DST + 2, 64)  # only_value: 2 B for ReduceRepeat, 4 B for the C API
        asc.whole_reduce_max(z, x, 128, 1, 1, 1, 8, O.ORDER_ONLY_VALUE)
        assert_rejected(core, AlignmentError, lambda: asc.asc_repeat_reduce_max_only_value(z, x, 128),
                        operand="dst address")
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_repeat_reduce_sum(z, x, 1, 65536, 1, 8),
                        operand="dst_repeat_stride", value=65536)
