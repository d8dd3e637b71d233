"""The routes the dequantising conversions take for speed (docs/performance.md, "Dequantisation speed"): each
route sent data that goes down it, every byte against the per-element references (``dequant_reference``,
``add_deq_relu_reference``, which share no code with npusim), and the route the binding took named, so that a
broken route fails a test and a route no test reaches shows.

* int16 -> b8 (CastDequant): the steps folded into one clip (``FoldedB8``) for finite scales below 2**112, else
  ``int16_to_b8``; src and dst as UB views, or by index (``layout == "flat"``); the table form's 16 sets folded
  per table contents.
* int32 -> half (Cast, CastDequant, AddDeqRelu): the products clipped to ±65504 before the float -> half for
  finite scales of 0 or at least 2**-14 (``half_scale(...).clipped``), with the overflow lanes made ±infinity
  where the step does not saturate; below 4096 lanes by two ufuncs and numpy's conversion, from 4096 by
  ``np.clip`` and rounding on the integer bits (``normal_halves``, also checked against numpy's conversion on
  every rounding boundary); relu as one int16 maximum for finite scales.
* AddDeqRelu on the A2/A3: the intermediates and the scratch as slices of their runs, or by index; their
  written-shadow marked once per shadow epoch.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.ops.deq_conversion import half_scale, normal_halves

from . import add_deq_relu_reference as aref
from . import dequant_reference as ref
from .conftest import binding_of, fill

V, O, C = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC
B8_EDGES = [0, 1, -1, 2, -2, 3, -3, 5, -5, 127, 128, -128, -129, 255, 256, 257, -256, -257, -258, 511, 512, 513,
            -511, -512, -513, 1000, -1000, 32767, -32768, 32766, -32767]


def _int16s(count: int, seed: int) -> np.ndarray:
    values = np.random.default_rng(seed).integers(-(1 << 15), 1 << 15, count).astype(np.int16)
    values[: len(B8_EDGES)] = B8_EDGES
    values[len(B8_EDGES): 2 * len(B8_EDGES)] = np.array(B8_EDGES) // 3  # small values: ties under scale 0.5
    return values


def _b8_expected(before: bytes, lanes, src_at, dst_at, strides, upper, words, signed, vector) -> bytes:
    """The bytes after the call: each active lane (issue order, a later lane's byte winning) by the reference."""
    d_blk, s_blk, d_rep, s_rep = strides
    expected = bytearray(before)
    for r, k in lanes:
        s = src_at + r * s_rep * 32 + (k // 16) * s_blk * 32 + (k % 16) * 2
        d = dst_at + r * d_rep * 32 + (k // 16) * d_blk * 32 + 16 * upper + k % 16
        expected[d] = ref.b8_lane(int.from_bytes(before[s:s + 2], "little", signed=True),
                                  words[k % 16 if vector else 0], signed)
    return bytes(expected)


def _b8_call(core, dst, src, form: str, repeats: int, strides, upper: bool, vector: bool):
    """(call, its lanes): the count form of ``repeats`` lanes, or a mask form (``form`` the mask)."""
    if form == "count":
        count = repeats
        return (lambda: asc.cast_deq(dst, src, count, vector, upper)), [(i // 128, i % 128) for i in range(count)]
    params = asc.UnaryRepeatParams(*strides)
    mask = 128 if form == "full" else [0x5555_0000_FFFF_0001, 0x8000_0000_00F0_0F00]
    bits = (1 << 128) - 1 if form == "full" else mask[0] | mask[1] << 64
    lanes = [(r, k) for r in range(repeats) for k in range(128) if bits >> k & 1]
    return (lambda: asc.cast_deq(dst, src, mask, repeats, params, True, vector, upper)), lanes


def _b8_binding(core, dst, src, form, repeats, strides, upper, vector):
    if form == "count":
        return binding_of(core, asc.cast_deq, dst, src, repeats, vector, upper)
    mask = 128 if form == "full" else [0x5555_0000_FFFF_0001, 0x8000_0000_00F0_0F00]
    return binding_of(core, asc.cast_deq, dst, src, mask, repeats, asc.UnaryRepeatParams(*strides), True, vector,
                      upper)


# ------------------------------------------------------------------ int16 -> b8, one parameter set
# (scale, offset, signed dst, folded?): finite scales below 2**112 fold; the others, and uint8 with offset -256
# (whose two clip ranges do not overlap), take int16_to_b8
WORDS = [
    (0.5, 3, True, True), (0.5, -256, True, True), (0.5, 255, True, True), (0.1, -100, True, True),
    (1.0009765625, 0, False, True), (0.5, 200, False, True), (2.0, -255, False, True), (-0.75, 7, False, True),
    (-0.0, 5, True, True), (1.0e-45, -3, True, True), (2.0 ** 111, 0, True, True), (-(2.0 ** 111), 1, False, True),
    (2.0 ** 112, 0, True, False), (3.0e38, -2, False, False), (float("inf"), 4, True, False),
    (float("-inf"), 0, False, False), (float("nan"), 9, True, False), (0.5, -256, False, False),
]


@pytest.mark.parametrize("scale, offset, signed, folded", WORDS)
def test_one_parameter_set_folds_where_it_may_and_every_lane_is_the_reference(scale, offset, signed, folded):
    with asc.Core("A2") as core:
        fill(core, 0, 0x10000)
        core.ub_write(0, _int16s(384, 1).tobytes())
        src = asc.LocalTensor(asc.int16, V, 0, 384)
        dst = asc.LocalTensor(asc.int8 if signed else asc.uint8, O, 0x8000, 768)
        asc.set_deq_scale(scale, offset, signed)
        binding = _b8_binding(core, dst, src, "full", 3, (1, 1, 8, 8), True, False)
        assert (binding.plan.folded_word is not None) == folded
        assert binding.layout == "view"
        before = core.ub_read(0, 0x10000)
        call, lanes = _b8_call(core, dst, src, "full", 3, (1, 1, 8, 8), True, False)
        call()
        word = ref.word(scale, offset, signed)
        assert core.ub_read(0, 0x10000) == _b8_expected(before, lanes, 0, 0x8000, (1, 1, 8, 8), True, [word], signed,
                                                        False)


# (form, repeats or count, strides, where src sits, layout): the views (dense, masked, strided) and by index (a
# count form whose last repeat's view would leave UB; a dst written twice: repeat stride 0)
LAYOUTS = [
    ("full", 3, (1, 1, 8, 8), 0, "view"),
    ("bits", 3, (1, 1, 8, 8), 0, "view"),
    ("full", 2, (2, 2, 17, 16), 0, "view"),
    ("count", 200, (1, 1, 8, 8), 0, "view"),
    ("count", 200, (1, 1, 8, 8), "end", "flat"),
    ("full", 3, (1, 1, 0, 8), 0, "flat"),
]


@pytest.mark.parametrize("table", [None, "finite", "a NaN"])  # one set; 16 folded; 16 by int16_to_b8
@pytest.mark.parametrize("form, repeats, strides, src_at, layout", LAYOUTS)
def test_the_views_and_the_index_route_write_the_reference_bytes(form, repeats, strides, src_at, layout, table):
    vector = table is not None
    with asc.Core("A2") as core:
        ub_bytes = core.chip.ub_bytes
        # "end": 208 int16 up to UB's end, where the full view of a second repeat would leave UB
        src_at = ub_bytes - 416 if src_at == "end" else src_at
        fill(core, 0, ub_bytes)
        core.ub_write(src_at, _int16s(208 if src_at else 1024, 2).tobytes())
        src = asc.LocalTensor(asc.int16, V, src_at, 208 if src_at else 1024)
        dst = asc.LocalTensor(asc.int8, O, 0x8000, 4096)
        params = [(0.25 * (j + 1) * (-1) ** j, j * 13 - 100, True) for j in range(16)]
        if table == "a NaN":
            params[5] = (float("nan"), 17, True)  # a used set: its lanes are 0 + 17
        if vector:
            vdeq = asc.LocalTensor(asc.uint64, C, 0xC000, 16)
            asc.set_deq_scale(vdeq, asc.VdeqInfo(*(list(p) for p in zip(*params, strict=True))))
            words = [ref.word(*p) for p in params]
        else:
            asc.set_deq_scale(*params[3])
            words = [ref.word(*params[3])]
        upper = form != "bits"
        binding = _b8_binding(core, dst, src, form, repeats, strides, upper, vector)
        assert binding.layout == layout
        before = core.ub_read(0, ub_bytes)
        call, lanes = _b8_call(core, dst, src, form, repeats, strides, upper, vector)
        call()
        expected = _b8_expected(before, lanes, src_at, 0x8000, strides, upper, words, True, vector)
        assert core.ub_read(0, ub_bytes) == expected
        binding.run(core, ())  # the same lanes again, on the binding looked at: the same bytes
        assert core.ub_read(0, ub_bytes) == expected
        if vector:
            assert (binding._table[1][3] is None) == (table == "a NaN")  # the 16 sets folded, or not


def test_the_table_form_folds_per_contents_and_leaves_unused_entries_alone():
    """Lanes of a contiguous mask of 8 use sets 0-7: sets 8-15 may hold a NaN scale and the other sign mode
    (folded as harmless sets); a used NaN scale takes int16_to_b8; new table bytes are read on the next call, and
    the first contents again give the first bytes."""
    with asc.Core("A2") as core:
        fill(core, 0, 0x10000)
        core.ub_write(0, _int16s(512, 3).tobytes())
        src = asc.LocalTensor(asc.int16, V, 0, 512)
        dst = asc.LocalTensor(asc.uint8, O, 0x8000, 1024)
        table = asc.LocalTensor(asc.uint64, C, 0xC000, 16)
        params = asc.UnaryRepeatParams(1, 1, 8, 8)
        contents = [
            [(0.5 + j, j, False) for j in range(8)] + [(float("nan"), 1, True)] * 8,  # folded
            [(0.5 + j, j, False) for j in range(7)] + [(float("nan"), 3, False)] + [(1.0, 0, True)] * 8,  # not
            [(-0.125 * j, 100 - j, False) for j in range(8)] + [(float("inf"), 0, True)] * 8,  # folded
        ]
        results = []
        binding = None
        for number, sets in enumerate(contents + contents[:1]):
            asc.set_deq_scale(table, asc.VdeqInfo(*(list(p) for p in zip(*sets, strict=True))))
            binding = binding or binding_of(core, asc.cast_deq, dst, src, 8, 4, params, True, True, True)
            before = core.ub_read(0, 0x10000)
            binding.run(core, ())
            lanes = [(r, k) for r in range(4) for k in range(8)]
            words = [ref.word(*p) for p in sets]
            after = core.ub_read(0, 0x10000)
            assert after == _b8_expected(before, lanes, 0, 0x8000, (1, 1, 8, 8), True, words, False, True)
            assert (binding._table[1][3] is None) == (number == 1)
            results.append(after)
        assert results[3] == results[0]


# ------------------------------------------------------------------ int32 -> half
INT32_EDGES = [0, 1, -1, 2**31 - 1, -2**31, 65504, -65504, 65519, 65520, -65520, 655040, 655200, 655201, -655200,
               -655201, 16777217, 3, -3, 10, -10]


def _int32s(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = np.concatenate([rng.integers(-(1 << 31), 1 << 31, count // 2),
                             rng.integers(-(1 << 20), 1 << 20, count - count // 2)]).astype(np.int32)
    values[: len(INT32_EDGES)] = INT32_EDGES
    return values


# (half scale bits, clipped?): finite scales of 0 or at least 2**-14 clip; subnormal and special ones convert
HALF_SCALES = [(0x2E66, True), (0x3C00, True), (0x7BFF, True), (0x0400, True), (0xBC00, True), (0x0000, True),
               (0x8000, True), (0x03FF, False), (0x0001, False), (0x83FF, False), (0x7C00, False), (0xFC00, False),
               (0x7E00, False)]


@pytest.mark.parametrize("count", [200, 5000])  # two ufuncs and numpy's conversion below 4096 lanes, else not
@pytest.mark.parametrize("chip, api, saturate", [("A2", "cast_deq", True), ("310P", "cast", False),
                                                 ("950", "cast_deq", False)])
@pytest.mark.parametrize("bits, clipped", HALF_SCALES)
def test_int32_to_half_clips_where_it_may_and_every_lane_is_the_reference(bits, clipped, chip, api, saturate, count):
    assert half_scale(bits).clipped == clipped
    scale = float(np.uint16(bits).view(np.float16))
    stored = int(np.float16(scale).view(np.uint16)) if bits != 0x7E00 else 0x7E00
    values = _int32s(count, bits)
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        core.ub_write(0, values.tobytes())
        x = asc.LocalTensor(asc.int32, V, 0, 8192)
        h = asc.LocalTensor(asc.float16, O, 0x10000, 8192)
        asc.set_deq_scale(scale)
        if api == "cast":
            asc.cast(h, x, asc.RoundMode.CAST_NONE, count)
        else:
            asc.cast_deq(h, x, count)
        out = np.frombuffer(core.ub_read(0x10000, 2 * count), np.uint16)
        assert out.tolist() == [ref.half_lane(int(v), stored, saturate) for v in values]


# ------------------------------------------------------------------ AddDeqRelu
SRC0, SRC1, DST = 0, 48 * 1024, 96 * 1024
SCRATCH = 184 * 1024  # the A2's TMP_UB_OFFSET (docs/semantics.md §1.7)


def _add_deq_relu(core, kind: str, count: int, repeats: int, strides, bits_scale: int):
    """Run one call; return (before, lanes, strides used)."""
    dst = asc.LocalTensor(asc.float16, O, DST, 16384)
    src0, src1 = (asc.LocalTensor(asc.int32, V, at, 12288) for at in (SRC0, SRC1))
    asc.set_deq_scale(float(np.uint16(bits_scale).view(np.float16)))
    before = core.ub_read(0, core.chip.ub_bytes)
    if kind == "count":
        asc.add_deq_relu(dst, src0, src1, count)
        return before, [(i // 64, i % 64) for i in range(count)], (1, 1, 1, 4, 8, 8)
    word = 0x7FFF_0F0F_00FF_F00F
    asc.add_deq_relu(dst, src0, src1, [word, 0], repeats, asc.BinaryRepeatParams(*strides))
    return before, [(r, k) for r in range(repeats) for k in range(64) if word >> k & 1], strides


def _add_deq_relu_expected(before: bytes, lanes, kind, repeats, strides, scale: int, staged: bool) -> bytes:
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = strides
    expected = bytearray(before)
    sums, halves = [], []
    for r, k in lanes:
        s0 = SRC0 + r * s0_rep * 32 + (k // 8) * s0_blk * 32 + (k % 8) * 4
        s1 = SRC1 + r * s1_rep * 32 + (k // 8) * s1_blk * 32 + (k % 8) * 4
        sums.append(aref.wrapped_sum(int.from_bytes(before[s0:s0 + 4], "little", signed=True),
                                     int.from_bytes(before[s1:s1 + 4], "little", signed=True)))
        halves.append(aref.half_result(sums[-1], scale, staged))
    if staged:
        places, scratch = aref.staged_layout(lanes, kind == "count", repeats, s0_rep, s1_rep)
        for (f_at, h_at), total, half in zip(places, sums, halves, strict=True):
            expected[SRC0 + f_at:SRC0 + f_at + 4] = aref.product_bits(total, scale).to_bytes(4, "little")
            expected[SRC1 + h_at:SRC1 + h_at + 2] = half.to_bytes(2, "little")
        for offset, what in scratch.items():
            expected[SCRATCH + offset] = (0 if what[0] == "zero" else
                                          (sums[what[1]] & 0xFFFFFFFF).to_bytes(4, "little")[what[2]])
    for (r, k), half in zip(lanes, halves, strict=True):
        d = DST + r * d_rep * 32 + (k // 16) * d_blk * 32 + (k % 16) * 2
        expected[d:d + 2] = aref.relu(half).to_bytes(2, "little")
    return bytes(expected)


def _fill_sources(core, seed: int) -> None:
    fill(core, 0, 144 * 1024, seed)
    for at in (SRC0, SRC1):  # sums that overflow 65504 / scale, and small ones
        core.ub_write(at, _int32s(12288, seed + at).tobytes())


# (form, count, repeats, strides, runs?): the count form over three passes, and its intermediates and scratch as
# runs; a mask with holes, whose products and halves break into many runs (written by index)
STAGED_FORMS = [("count", 5000, 79, (1, 1, 1, 4, 8, 8), True), ("bits", 0, 40, (1, 2, 1, 4, 16, 8), False)]


@pytest.mark.parametrize("bits", [0x2E66, 0x7BFF, 0x0001, 0x7E00, 0xFC00])
@pytest.mark.parametrize("kind, count, repeats, strides, runs", STAGED_FORMS)
def test_the_a2_writes_its_intermediates_by_runs_or_by_index(kind, count, repeats, strides, runs, bits):
    with asc.Core("A2") as core:
        _fill_sources(core, bits)
        dst = asc.LocalTensor(asc.float16, O, DST, 16384)
        src0, src1 = (asc.LocalTensor(asc.int32, V, at, 12288) for at in (SRC0, SRC1))
        asc.set_deq_scale(float(np.uint16(bits).view(np.float16)))
        binding = (binding_of(core, asc.add_deq_relu, dst, src0, src1, count) if kind == "count" else
                   binding_of(core, asc.add_deq_relu, dst, src0, src1, [0x7FFF_0F0F_00FF_F00F, 0], repeats,
                              asc.BinaryRepeatParams(*strides)))
        assert (binding.product_runs is not None, binding.half_runs is not None) == (runs, runs)
        assert (binding.scratch_pieces is not None) == (kind == "count")
        stored = int(np.uint16(bits)) if bits != 0x7E00 else 0x7E00
        before, lanes, used = _add_deq_relu(core, kind, count, repeats, strides, bits)
        after = core.ub_read(0, core.chip.ub_bytes)
        assert after == _add_deq_relu_expected(before, lanes, kind, repeats, used, stored, True)


@pytest.mark.parametrize("chip", ["310P", "950"])
@pytest.mark.parametrize("bits", [0x2E66, 0x7BFF, 0x0001, 0x7E00, 0x7C00])
def test_the_one_step_products_relu_their_halves(chip, bits):
    """A finite scale: relu as one int16 maximum (±infinity among the halves where the step does not saturate);
    a NaN or infinite one: the arithmetic's relu."""
    with asc.Core(chip) as core:
        _fill_sources(core, bits)
        stored = int(np.uint16(bits)) if bits != 0x7E00 else 0x7E00
        before, lanes, used = _add_deq_relu(core, "count", 3000, 47, None, bits)
        after = core.ub_read(0, core.chip.ub_bytes)
        assert after == _add_deq_relu_expected(before, lanes, "count", 47, used, stored, False)


def test_the_shadow_is_marked_once_per_epoch_and_again_after_it_changes():
    """The A2's scratch (never written by the host) and dst are marked written by the first call; a call in the
    same epoch writes their values alone; after bytes lose their written mark (a new epoch) a call marks them
    again."""
    with asc.Core("A2") as core:
        _fill_sources(core, 5)
        scratch = slice(SCRATCH, SCRATCH + 8192)
        assert not core.ub.written[scratch].any()
        for _ in range(2):  # the second call reads the first call's intermediates: other sums, other bytes
            before, lanes, used = _add_deq_relu(core, "count", 5000, 79, None, 0x2E66)
            assert core.ub_read(0, core.chip.ub_bytes) == _add_deq_relu_expected(before, lanes, "count", 79, used,
                                                                                 0x2E66, True)
            assert core.ub.written[scratch].all() and core.ub.written[DST:DST + 10000].all()
        core.ub.mark_undefined(np.r_[np.arange(SCRATCH, SCRATCH + 8192), np.arange(DST, DST + 10000)])
        _add_deq_relu(core, "count", 5000, 79, None, 0x2E66)
        assert core.ub.written[scratch].all() and core.ub.written[DST:DST + 10000].all()


def test_integer_rounding_of_normal_halves_is_numpys_conversion():
    """``normal_halves`` against numpy's float32 -> half (IEEE's, rounding.py) on every float32 in the half
    normal range whose 13 dropped bits lie at a rounding boundary (0, 1, just below, at and above a tie, all
    ones), for every exponent and kept fraction, both signs, and the zeros; plus random values of the range."""
    low, high = (int(np.float32(v).view(np.uint32)) for v in (2.0 ** -14, 65504.0))
    kept = np.arange(low >> 13, (high >> 13) + 1, dtype=np.uint32) << np.uint32(13)
    tails = np.array([0, 1, 0xFFE, 0xFFF, 0x1000, 0x1001, 0x1FFE, 0x1FFF], np.uint32)
    bits = (kept[:, None] | tails).reshape(-1)
    bits = bits[bits <= high]
    rng = np.random.default_rng(11)
    bits = np.concatenate([bits, rng.integers(low, high + 1, 200_000).astype(np.uint32), np.zeros(1, np.uint32)])
    values = np.concatenate([bits, bits | np.uint32(0x80000000)]).view(np.float32)
    assert np.array_equal(normal_halves(values.copy()), values.astype(np.float16).view(np.uint16))
