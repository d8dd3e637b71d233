"""The routes the reductions take for speed (docs/performance.md, "Reduction speed"): each route sent data
that goes down it, every byte against the plain reference (``reduce_reference``, which shares no code with
npusim), and the route the call took named, so that a broken route fails a test and a route no test reaches
shows.

* A half / float32 sum whose sources all lie below ``2**(emax - k)`` (rows of ``2**k`` lanes): numpy's adds
  in T into the binding's buffers (``PairTree.sum``), from 8192 half sources in float32 with the rounding to
  half on the bits (``_half_tree_in_singles``); the root straight into dst when the results fill one run of
  it, else through the result bytes.  Any source at the bound or beyond, an infinity, a NaN, sums that
  overflow (with and without saturation): the other routes (``_finite_tree_sum``, node by node).
* ``tree_sum`` without a binding (ReduceSum): ``bounded_tree_sum``, the float32 route from 8192 sources; the
  A2 count form's in-order adds of the repeat sums by ``np.add.accumulate`` below their bound
  (``bounded_running_sum``), else one at a time.
* A max / min of one repeat of every lane (half / float32): found on Python integers (``_one_extremum``),
  every order, MAX_MIN_CNT too; a zero or NaN extremum: the keys.
* ``sort_order.rank``: every half pattern and the float32 edges against the definition.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.ops import reduce as reduce_module
from npusim.ascend.ops import reduce_all as reduce_all_module
from npusim.ascend.ops import reduce_tree
from npusim.ascend.ops.reduce import ReduceBinding
from npusim.ascend.ops.reduce_tree import PairTree
from npusim.ascend.ops.sort_order import rank

from . import reduce_reference as model
from .test_reduce_all import ref_sum

VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
SRC, DST, SPAN = 0x0, 0x10000, 0x18000
FORMATS = {"float16": (asc.float16, np.uint16, 0x7C00, 0x8000), "float32": (asc.float32, np.uint32, 0x7F800000,
                                                                           0x80000000)}
WIDTH = {"block_reduce_sum": ("block", lambda lanes: lanes // 8), "whole_reduce_sum": ("repeat", lambda lanes: lanes),
         "repeat_reduce_sum": ("repeat", lambda lanes: lanes), "pair_reduce_sum": ("pair", lambda lanes: 2)}


@pytest.fixture
def routes(monkeypatch):
    """The routes a call took: ``(label, whether it gave the result)`` in call order."""
    taken = []

    def spy(owner, name, label):
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            result = original(*args, **kwargs)
            taken.append((label, result is not None and result is not False))
            return result
        monkeypatch.setattr(owner, name, wrapper)
    spy(PairTree, "sum", "tree")
    spy(reduce_tree, "_half_tree_in_singles", "singles")
    spy(reduce_module, "bounded_tree_sum", "bounded")
    spy(reduce_module, "_finite_tree_sum", "finite")
    spy(reduce_all_module, "bounded_running_sum", "running")
    spy(ReduceBinding, "_one_extremum", "one extremum")
    return taken


def _bound_bits(fmt: str, width: int) -> int:
    """The magnitude bits of ``2**(emax - k)``, written from the module's rule (not from its code)."""
    bias, mantissa = (15, 10) if fmt == "float16" else (127, 23)
    return (bias + bias - (width.bit_length() - 1)) << mantissa


def _sources(fmt: str, width: int, n: int, kind: str, seed: int) -> np.ndarray:
    """``n`` source bit patterns: ``"small"`` below the bound (subnormals, zeros of both signs, the largest
    magnitude just below it, both signs); ``"bound"`` the first one exactly at it; ``"special"`` NaN, infinities
    and sums that overflow."""
    _dtype, raw, inf, sign = FORMATS[fmt]
    rng = np.random.default_rng(seed)
    bound = _bound_bits(fmt, width)
    bits = rng.integers(0, bound, n, dtype=np.uint64)
    bits[rng.random(n) < 0.1] = 0
    subnormal = rng.random(n) < 0.1
    bits[subnormal] = rng.integers(1, 1 << (10 if fmt == "float16" else 23), int(subnormal.sum()))
    bits[rng.random(n) < 0.05] = bound - 1
    if fmt == "float16":  # plain normal data too, whose sums round
        normal = np.array(rng.standard_normal(n), np.float16).view(np.uint16) & np.uint16(0x7FFF)
        take = (rng.random(n) < 0.4) & (normal < bound)
        bits[take] = normal[take]
    if kind == "bound":  # in lane 0 of repeat 0, which every call reads
        bits[0] = bound
    elif kind == "special":
        big = 0x7BFF if fmt == "float16" else 0x7F7FFFFF  # the largest finite: neighbours overflow
        picks = np.array([inf, inf | 1, 0x7E00 if fmt == "float16" else 0x7FC00000, big, big - 1, bound], np.uint64)
        special = rng.random(n) < 0.2
        bits[special] = rng.choice(picks, int(special.sum()))
    bits |= rng.integers(0, 2, n, dtype=np.uint64) * sign
    bits[rng.integers(0, n)] = sign  # a -0
    return bits.astype(raw)


def _run(core, name: str, fmt: str, repeats: int, mask, blk: int, rep: int, dst_rep: int, data: np.ndarray,
         saturate: bool) -> tuple[bytes, bytes]:
    """The call's UB and the reference's, ``[0, SPAN)``."""
    dtype, _raw, _inf, _sign = FORMATS[fmt]
    size = 2 if fmt == "float16" else 4
    lanes = 256 // size
    if not saturate:
        asc.set_saturation_flag(False)
    core.ub_write(SRC, data.tobytes())
    core.ub_write(DST, bytes(range(256)) * ((SPAN - DST) // 256))
    x = asc.LocalTensor(dtype, VECIN, SRC, DST // size)
    z = asc.LocalTensor(dtype, VECOUT, DST, (SPAN - DST) // size)
    before = bytearray(core.ub_read(0, SPAN))
    kind = WIDTH[name][0]
    if name == "repeat_reduce_sum":
        asc.repeat_reduce_sum(z, x, repeats, mask, 0, blk, dst_rep, rep)
    elif kind == "repeat":
        getattr(asc, name)(z, x, mask, repeats, dst_rep, blk, rep)
    else:
        getattr(asc, name)(z, x, repeats, mask, dst_rep, blk, rep)
    if isinstance(mask, int):
        on = [j < mask for j in range(lanes)]
    else:
        on = [bool((mask[0] | mask[1] << 64) >> j & 1) for j in range(lanes)]
    saturating = core.float_saturation and fmt in core.chip.float_saturation_dtypes
    expected = model.run(before, op="sum", kind=kind, dst_fmt=fmt, src_fmt=fmt, dst=DST, src=SRC,
                         active=[on] * repeats, dst_rep_stride=dst_rep, blk=blk, rep=rep, saturate=saturating,
                         fills_empty=core.chip.name in ("310B", "950") and kind != "repeat", chip=core.chip.name)
    return core.ub_read(0, SPAN), bytes(expected)


SUM_CASES = [  # name, fmt, repeats, mask (None: every lane), blk, rep, dst_rep, chip
    ("block_reduce_sum", "float16", 1, None, 1, 8, 1, "A2"),
    ("block_reduce_sum", "float16", 3, None, 2, 16, 1, "A2"),
    ("block_reduce_sum", "float16", 3, None, 1, 8, 2, "A2"),
    ("block_reduce_sum", "float16", 2, 100, 1, 8, 1, "A2"),
    ("block_reduce_sum", "float16", 2, [0x00FF00FF0F0F0F0F, 0x8000000000000001], 1, 9, 1, "A2"),
    ("block_reduce_sum", "float16", 2, [0x00FF00FF0F0F0F0F, 0x8000000000000001], 1, 8, 1, "950"),
    ("block_reduce_sum", "float32", 1, None, 1, 8, 1, "A2"),
    ("block_reduce_sum", "float32", 3, None, 2, 17, 1, "A2"),
    ("block_reduce_sum", "float32", 2, 40, 1, 8, 1, "A2"),
    ("whole_reduce_sum", "float16", 1, None, 1, 8, 1, "A2"),
    ("whole_reduce_sum", "float16", 3, None, 1, 8, 3, "A2"),
    ("whole_reduce_sum", "float16", 2, 77, 2, 16, 1, "A2"),
    ("whole_reduce_sum", "float32", 3, None, 1, 8, 1, "A2"),
    ("whole_reduce_sum", "float32", 2, [0xF0F0F0F0F0F0F0F1, 0], 1, 8, 1, "A2"),
    ("pair_reduce_sum", "float16", 1, None, 1, 8, 1, "A2"),
    ("pair_reduce_sum", "float16", 2, 125, 1, 8, 1, "A2"),
    ("pair_reduce_sum", "float32", 2, None, 2, 16, 2, "A2"),
    ("repeat_reduce_sum", "float16", 3, None, 1, 8, 1, "A2"),
    ("repeat_reduce_sum", "float32", 2, 33, 2, 16, 1, "A2"),
]


@pytest.mark.parametrize("kind", ["small", "bound", "special"])
@pytest.mark.parametrize("case, saturate", [(case, saturate) for case in SUM_CASES for saturate in (True, False)
                                            if saturate or case[-1] != "950"],  # the 950 has no switch to set
                         ids=lambda value: "-".join(map(str, value)) if isinstance(value, tuple) else str(value))
def test_sum_routes(routes, case, kind, saturate):
    name, fmt, repeats, mask, blk, rep, dst_rep, chip = case
    lanes = 256 // (2 if fmt == "float16" else 4)
    width = WIDTH[name][1](lanes)
    with asc.Core(chip) as core:
        data = _sources(fmt, width, DST // (2 if fmt == "float16" else 4), kind, seed=repeats * 100 + blk * 10 + rep)
        got, want = _run(core, name, fmt, repeats, lanes if mask is None else mask, blk, rep, dst_rep, data,
                         saturate)
    assert got == want
    tree = [given for label, given in routes if label == "tree"]
    assert tree == [kind == "small"]
    if kind != "small":
        assert ("finite", True) in routes or ("finite", False) in routes


@pytest.mark.parametrize("name, blk, rep, dst_rep", [("block_reduce_sum", 1, 8, 1), ("block_reduce_sum", 2, 16, 1),
                                                     ("whole_reduce_sum", 1, 8, 1), ("pair_reduce_sum", 1, 8, 1)])
@pytest.mark.parametrize("kind", ["small", "special"])
def test_half_sums_in_float32_from_8192_sources(routes, name, blk, rep, dst_rep, kind):
    """80 repeats of 128 halves (10240 sources, every lane): the float32 route; the root into dst's run."""
    width = WIDTH[name][1](128)
    with asc.Core("A2") as core:
        data = _sources("float16", width, 160 * 128, kind, seed=blk + rep)
        got, want = _run(core, name, "float16", 80, 128, blk, rep, dst_rep, data, True)
    assert got == want
    assert [given for label, given in routes if label == "singles"] == ([True] if kind == "small" else [])


def test_bounded_sums_without_a_binding(routes):
    """ReduceSum (the count form, 方式一 on the A2) sums each repeat by ``tree_sum`` (10240 halves below the
    bound: the float32 route; 1000 halves and float32: numpy's adds in T), then adds the repeat sums in order
    by ``bounded_running_sum`` when they lie below its bound (small data), else one add at a time (every
    source 200: repeat sums of 25600, whose running total overflows)."""
    rng = np.random.default_rng(9)
    for fmt, count, data in (
            ("float16", 10240, _sources("float16", 128, 10240, "small", seed=1)),
            ("float16", 10240, (rng.standard_normal(10240) * 0.01).astype(np.float16).view(np.uint16)),
            ("float16", 10240, np.full(10240, 200, np.float16).view(np.uint16)),
            ("float16", 1000, (rng.standard_normal(1000) * 0.1).astype(np.float16).view(np.uint16)),
            ("float32", 3000, _sources("float32", 64, 3000, "small", seed=2)),
            ("float32", 3000, rng.standard_normal(3000).astype(np.float32).view(np.uint32))):
        dtype, raw, _inf, _sign = FORMATS[fmt]
        per = 256 // np.dtype(raw).itemsize
        routes.clear()
        with asc.Core("A2") as core:
            asc.set_saturation_flag(False)
            core.ub_write(SRC, data.tobytes())
            x = asc.LocalTensor(dtype, VECIN, SRC, count)
            w = asc.LocalTensor(dtype, VECCALC, 0xC000, 1024)
            z = asc.LocalTensor(dtype, VECOUT, 0xE000, 16)
            asc.reduce_sum(z, x, w, count)
            got = int(np.frombuffer(core.ub_read(0xE000, np.dtype(raw).itemsize), raw)[0])
        values = data.tolist()
        assert got == ref_sum(values, fmt, 1, per, False)
        assert ("bounded", True) in routes
        assert [given for label, given in routes if label == "singles"] == ([True] if count >= 8192 else [])
        sums = [model.tree_sum(values[i:i + per] + [0] * (per - len(values[i:i + per])), fmt, fmt, False)
                for i in range(0, count, per)]
        bound = _bound_bits(fmt, 1 << (len(sums) - 1).bit_length())
        assert routes[-1] == ("running", all(v & (_sign - 1) < bound for v in sums))


def _extremum_rows(fmt: str) -> dict[str, np.ndarray]:
    _dtype, raw, inf, sign = FORMATS[fmt]
    lanes = 256 // np.dtype(raw).itemsize
    rng = np.random.default_rng(lanes)
    np_float = np.float16 if fmt == "float16" else np.float32
    plain = np.array(rng.standard_normal(lanes), np_float).view(raw)
    ties = np.array(rng.integers(-3, 4, lanes), np_float).view(raw)  # the extremum several times: the first
    tiny = rng.integers(1, 1 << (10 if fmt == "float16" else 23), lanes).astype(raw)  # subnormals, either sign
    tiny |= (rng.integers(0, 2, lanes) * sign).astype(raw)
    infinite = plain.copy()
    infinite[[5, 9]] = [inf, inf | sign]
    zeros = np.where(rng.random(lanes) < 0.5, sign, 0).astype(raw)  # a zero extremum (-0 < +0): the keys
    nan = plain.copy()
    nan[7] = inf | 3  # a NaN that is not the canonical one: the keys
    return {"plain": plain, "ties": ties, "tiny": tiny, "infinite": infinite, "zeros": zeros, "nan": nan}


@pytest.mark.parametrize("order", list(asc.ReduceOrder))
@pytest.mark.parametrize("fmt", ["float16", "float32"])
@pytest.mark.parametrize("name", ["whole_reduce_max", "whole_reduce_min"])
def test_one_repeat_extremum_route(routes, name, fmt, order):
    dtype, raw, _inf, _sign = FORMATS[fmt]
    lanes = 256 // np.dtype(raw).itemsize
    maximum = name == "whole_reduce_max"
    for label, row in _extremum_rows(fmt).items():
        routes.clear()
        with asc.Core("A2") as core:
            core.ub_write(SRC, row.tobytes())
            core.ub_write(DST, bytes(range(256)))
            before = bytearray(core.ub_read(0, SPAN))
            x, z = asc.LocalTensor(dtype, VECIN, SRC, lanes), asc.LocalTensor(dtype, VECOUT, DST, 64)
            getattr(asc, name)(z, x, lanes, 1, 1, 1, 8, order)
            expected = model.run(before, op="max" if maximum else "min", kind="repeat", dst_fmt=fmt, src_fmt=fmt,
                                 dst=DST, src=SRC, active=[[True] * lanes], dst_rep_stride=1, blk=1, rep=8,
                                 order=order.name.removeprefix("ORDER_").lower())
            assert core.ub_read(0, SPAN) == bytes(expected), label
            value, lane = model.extremum(row.tolist(), [True] * lanes, fmt, maximum)
            state = core.max_min_cnt
            assert (state.value_bits, state.index) == (value, lane), label
        assert routes == [("one extremum", label not in ("zeros", "nan"))], label


def _rank_reference(bits: int, fmt: str) -> int:
    """docs/semantics.md §5.15's order as an integer: +x its magnitude bits, -x minus them, a NaN above +inf."""
    _dtype, _raw, inf, sign = FORMATS[fmt]
    magnitude = bits & (sign - 1)
    if magnitude > inf:
        return inf + 1
    return -magnitude if bits & sign else magnitude


@pytest.mark.parametrize("fmt", ["float16", "float32"])
def test_rank_is_the_documented_order(fmt):
    dtype, raw, inf, sign = FORMATS[fmt]
    if fmt == "float16":
        bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    else:
        edges = [0, 1, inf - 1, inf, inf + 1, 0x7FC00000, 0x7FFFFFFF, 0x3F800000]
        bits = np.array(edges + [e | sign for e in edges]
                        + np.random.default_rng(3).integers(0, 1 << 32, 4096).tolist(), np.uint64).astype(np.uint32)
    keys = rank(bits.reshape(-1, 32) if bits.size % 32 == 0 else bits, dtype).reshape(-1)
    assert keys.tolist() == [_rank_reference(int(b), fmt) for b in bits]
    assert rank(np.empty(0, raw), dtype).size == 0


@pytest.mark.parametrize("call, nbytes", [
    (lambda z, x: asc.block_reduce_sum(z, x, 2, 128, 1, 1, 8), 32),  # the tree's root straight into dst
    (lambda z, x: asc.whole_reduce_max(z, x, 128, 1, 1, 1, 8), 4),  # one extremum, value and index
    (lambda z, x: asc.whole_reduce_sum(z, x, 128, 2, 1, 1, 8), 4),  # the tree: 2 results, one run
])
def test_results_in_one_run_mark_dst_written(call, nbytes):
    """A result run stored as a slice marks its bytes written (once per shadow epoch: again after the shadow
    forgot them), and no byte beside them."""
    with asc.Core("A2") as core:
        core.ub_write(SRC, np.linspace(-3, 3, 256).astype(np.float16).tobytes())
        x, z = asc.LocalTensor(asc.float16, VECIN, SRC, 256), asc.LocalTensor(asc.float16, VECOUT, DST, 64)
        for _ in range(2):
            call(z, x)
            assert core.ub.written[DST - 32 : DST + nbytes + 32].tolist() == [0] * 32 + [1] * nbytes + [0] * 32
            core.ub.mark_undefined(np.arange(DST, DST + nbytes))
            assert not core.ub.written[DST : DST + nbytes].any()
