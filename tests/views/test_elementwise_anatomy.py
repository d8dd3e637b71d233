"""Element-wise calls split per repeat by their own plans: every family and form, against the address formula.

Each case runs one call on a traced core and checks every operand's lane addresses and active lanes against
an independent model written from docs/semantics.md §1.1-1.4: lane ``k`` of repeat ``r`` of an operand of
``B = 32 / size`` elements a DataBlock lies at ``base + r * rep_stride * 32 + (k // B) * blk_stride * 32 +
(k % B) * size``; a contiguous mask ``m`` runs lanes ``0 .. m-1``, a bitwise mask the set bits of its words
(bit ``k % 64`` of word ``k // 64``), a count form lanes ``r * E + k < count``.  A conversion's operands take as
many lanes a repeat as the wider element holds (Cast.md 约束说明); a half source of a float dst (Axpy, §5.26)
steps 4 DataBlocks a repeat; a packed int4b_t operand is split per byte (two lanes a byte); Abs of a complex
source has the source's lanes (§5.29).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from npusim import ascend as asc
from npusim.engine.trace import ByteRange
from npusim.views.anatomy import anatomy
from npusim.views.explain import explain

from .helpers import traced


def lane_addresses(base: int, size: int, blk: int, rep: int, repeats: int, lanes: int) -> list[list[int]]:
    """docs/semantics.md §1.1-1.2: every lane's first byte."""
    per_block = 32 // size
    return [[base + r * rep * 32 + (k // per_block) * blk * 32 + (k % per_block) * size for k in range(lanes)]
            for r in range(repeats)]


def count_lanes(count: int, width: int, repeats: int, lanes: int) -> list[list[bool]]:
    """§1.4: lane k of repeat r runs when r * E + k < count (E = ``width``, the call's lanes a repeat)."""
    return [[r * width + k < count for k in range(lanes)] for r in range(repeats)]


def mask_lanes(mask, repeats: int, lanes: int) -> list[list[bool]]:
    """§1.3: a contiguous mask runs lanes 0 .. mask-1; a bitwise mask its set bits; the same in every repeat."""
    if isinstance(mask, int):
        row = [k < mask for k in range(lanes)]
    else:
        row = [bool(mask[k // 64] >> (k % 64) & 1) for k in range(lanes)]
    return [row] * repeats


@dataclass(frozen=True)
class Expected:
    """One operand: its name and role, base address, element size, strides, repeats and active lanes."""

    name: str
    role: str
    base: int
    size: int
    blk: int
    rep: int
    active: list[list[bool]]
    unit: str = "lane"


def _t(dtype: str, addr: int, n: int, pos: str = "VECIN") -> str:
    return f"asc.LocalTensor(asc.{dtype}, asc.TPosition.{pos}, {addr}, {n})"


def _case(name, chip, setup, call, expected):
    return pytest.param(chip, setup + call, expected, id=name)


CASES = [
    _case("div, contiguous mask 40 (arith, binary)", "A2",
          f"x = {_t('float32', 0, 256)}\ny = {_t('float32', 1024, 256)}\nz = {_t('float32', 2048, 256, 'VECOUT')}\n",
          "asc.div(z, x, y, 40, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))",
          [Expected(n, role, base, 4, 1, 8, mask_lanes(40, 4, 64))
           for n, role, base in (("dst", "write", 2048), ("src0", "read", 0), ("src1", "read", 1024))]),
    _case("relu, count 300 (arith, unary)", "A2",
          f"x = {_t('float16', 0, 512)}\nz = {_t('float16', 1024, 512, 'VECOUT')}\n", "asc.relu(z, x, 300)",
          [Expected("dst", "write", 1024, 2, 1, 8, count_lanes(300, 128, 3, 128)),
           Expected("src", "read", 0, 2, 1, 8, count_lanes(300, 128, 3, 128))]),
    _case("bitwise_and, bitwise mask, dst block stride 2 (logic)", "A2",
          f"x = {_t('int16', 0, 512)}\ny = {_t('int16', 1024, 512)}\nz = {_t('int16', 2048, 512, 'VECOUT')}\n",
          "asc.bitwise_and(z, x, y, [0xFFFF0000FFFF0000, 0xFF], 2, asc.BinaryRepeatParams(2, 1, 1, 16, 8, 8))",
          [Expected("dst", "write", 2048, 2, 2, 16, mask_lanes([0xFFFF0000FFFF0000, 0xFF], 2, 128)),
           Expected("src0", "read", 0, 2, 1, 8, mask_lanes([0xFFFF0000FFFF0000, 0xFF], 2, 128)),
           Expected("src1", "read", 1024, 2, 1, 8, mask_lanes([0xFFFF0000FFFF0000, 0xFF], 2, 128))]),
    _case("shift_left by a scalar, src strides 2 / 16 (logic, shift)", "A2",
          f"x = {_t('int32', 0, 256)}\nz = {_t('int32', 1024, 256, 'VECOUT')}\n",
          "asc.shift_left(z, x, 1, [0x00FF00FF00FF00FF, 0], 2, asc.UnaryRepeatParams(1, 2, 8, 16))",
          [Expected("dst", "write", 1024, 4, 1, 8, mask_lanes([0x00FF00FF00FF00FF, 0], 2, 64)),
           Expected("src", "read", 0, 4, 2, 16, mask_lanes([0x00FF00FF00FF00FF, 0], 2, 64))]),
    _case("leaky_relu, dst block stride 2 (binary-scalar)", "A2",
          f"x = {_t('float32', 0, 256)}\nz = {_t('float32', 1024, 256, 'VECOUT')}\n",
          "asc.leaky_relu(z, x, 0.5, 32, 2, asc.UnaryRepeatParams(2, 1, 16, 8))",
          [Expected("dst", "write", 1024, 4, 2, 16, mask_lanes(32, 2, 64)),
           Expected("src", "read", 0, 4, 1, 8, mask_lanes(32, 2, 64))]),
    _case("fused_mul_add, count 100: dst read and written (compound)", "A2",
          f"x = {_t('float32', 0, 256)}\ny = {_t('float32', 1024, 256)}\nz = {_t('float32', 2048, 256, 'VECOUT')}\n",
          "asc.fused_mul_add(z, x, y, 100)",
          [Expected("dst", "write", 2048, 4, 1, 8, count_lanes(100, 64, 2, 64)),
           Expected("dst", "read", 2048, 4, 1, 8, count_lanes(100, 64, 2, 64)),
           Expected("src0", "read", 0, 4, 1, 8, count_lanes(100, 64, 2, 64)),
           Expected("src1", "read", 1024, 4, 1, 8, count_lanes(100, 64, 2, 64))]),
    _case("axpy, half source, float dst, count 200 (compound, two element sizes)", "A2",
          f"x = {_t('float16', 0, 512)}\nz = {_t('float32', 2048, 256, 'VECOUT')}\n", "asc.axpy(z, x, 1.5, 200)",
          [Expected("dst", "write", 2048, 4, 1, 8, count_lanes(200, 64, 4, 64)),
           Expected("dst", "read", 2048, 4, 1, 8, count_lanes(200, 64, 4, 64)),
           Expected("src", "read", 0, 2, 1, 4, count_lanes(200, 64, 4, 64))]),
    _case("cast half -> int32, src repeat stride 4 (cast)", "A2",
          f"x = {_t('float16', 0, 512)}\nz = {_t('int32', 1024, 512, 'VECOUT')}\n",
          "asc.cast(z, x, asc.RoundMode.CAST_CEIL, 64, 3, asc.UnaryRepeatParams(1, 1, 8, 4))",
          [Expected("dst", "write", 1024, 4, 1, 8, mask_lanes(64, 3, 64)),
           Expected("src", "read", 0, 2, 1, 4, mask_lanes(64, 3, 64))]),
    _case("cast half -> int4b_t: dst per byte, two lanes a byte (cast, packed)", "A2",
          f"x = {_t('float16', 0, 512)}\nz = {_t('int4b_t', 1024, 512, 'VECOUT')}\n",
          "asc.cast(z, x, asc.RoundMode.CAST_CEIL, 128, 2, asc.UnaryRepeatParams(1, 1, 2, 8))",
          [Expected("dst", "write", 1024, 1, 1, 2, mask_lanes(64, 2, 64), unit="byte"),
           Expected("src", "read", 0, 2, 1, 8, mask_lanes(128, 2, 128))]),
    _case("asc_deq_int322half under the mask register (dequant cast, C API)", "A2",
          f"asc.asc_set_deq_scale(2.0)\nx = {_t('int32', 0, 256)}\nz = {_t('float16', 2048, 256, 'VECOUT')}\n"
          "asc.set_vector_mask(0, 0xFFFFFFFF)\n", "asc.asc_deq_int322half(z, x, 2, 1, 1, 4, 8)",
          [Expected("dst", "write", 2048, 2, 1, 4, mask_lanes(32, 2, 64)),
           Expected("src", "read", 0, 4, 1, 8, mask_lanes(32, 2, 64))]),
    _case("asc_add under the mask register (C API alias)", "A2",
          f"x = {_t('float32', 0, 256)}\ny = {_t('float32', 1024, 256)}\nz = {_t('float32', 2048, 256, 'VECOUT')}\n"
          "asc.set_vector_mask(0, 0xFFFF00FF)\n", "asc.asc_add(z, x, y, 2, 1, 1, 1, 8, 8, 8)",
          [Expected(n, role, base, 4, 1, 8, mask_lanes([0xFFFF00FF, 0], 2, 64))
           for n, role, base in (("dst", "write", 2048), ("src0", "read", 0), ("src1", "read", 1024))]),
    _case("asc_exp, count 200 (C API alias, unary)", "A2",
          f"x = {_t('float32', 0, 256)}\nz = {_t('float32', 2048, 256, 'VECOUT')}\n", "asc.asc_exp(z, x, 200)",
          [Expected("dst", "write", 2048, 4, 1, 8, count_lanes(200, 64, 4, 64)),
           Expected("src", "read", 0, 4, 1, 8, count_lanes(200, 64, 4, 64))]),
    _case("duplicate, dst strides 2 / 16 (fill)", "A2", f"z = {_t('int16', 0, 512, 'VECOUT')}\n",
          "asc.duplicate(z, -3, 96, 2, 2, 16)", [Expected("dst", "write", 0, 2, 2, 16, mask_lanes(96, 2, 128))]),
    _case("copy, bitwise mask, dst strides 2 / 16 (data movement)", "A2",
          f"x = {_t('float32', 0, 1152)}\nz = {_t('float32', 8192, 1152, 'VECOUT')}\n",
          "asc.copy(z, x, [0x0F0F0F0F0F0F0F0F, 0], 3, asc.CopyRepeatParams(2, 1, 16, 8))",
          [Expected("dst", "write", 8192, 4, 2, 16, mask_lanes([0x0F0F0F0F0F0F0F0F, 0], 3, 64)),
           Expected("src", "read", 0, 4, 1, 8, mask_lanes([0x0F0F0F0F0F0F0F0F, 0], 3, 64))]),
    _case("abs of complex64 -> float32, count 100 (950, complex)", "950",
          f"x = {_t('complex64', 0, 128)}\nz = {_t('float32', 2048, 128, 'VECOUT')}\n", "asc.abs(z, x, 100)",
          [Expected("dst", "write", 2048, 4, 1, 4, count_lanes(100, 32, 4, 32)),
           Expected("src", "read", 0, 8, 1, 8, count_lanes(100, 32, 4, 32))]),
    _case("add of complex32, count 100 (950, complex)", "950",
          f"x = {_t('complex32', 0, 128)}\ny = {_t('complex32', 1024, 128)}\n"
          f"z = {_t('complex32', 2048, 128, 'VECOUT')}\n", "asc.add(z, x, y, 100)",
          [Expected(n, role, base, 4, 1, 8, count_lanes(100, 64, 2, 64))
           for n, role, base in (("dst", "write", 2048), ("src0", "read", 0), ("src1", "read", 1024))]),
    _case("duplicate of hifloat8, count 300 (950, coded 8-bit)", "950", f"z = {_t('hifloat8', 0, 512, 'VECOUT')}\n",
          "asc.duplicate(z, 14.0, 300)", [Expected("dst", "write", 0, 1, 1, 8, count_lanes(300, 256, 2, 256))]),
]


def _operand(parts, name: str, role: str):
    return next(o for o in parts.operands if o.name == name and o.role == role)


@pytest.mark.parametrize(("chip", "code", "expected"), CASES)
def test_every_lane_lies_where_the_address_formula_puts_it(chip, code, expected):
    record = traced(lambda core: exec(code, {"asc": asc}), chip)[-1]
    parts = anatomy(record, chip)
    assert parts.decomposed, parts.notes
    assert parts.ranges("read") == record.reads and parts.ranges("write") == record.writes
    assert sorted((o.name, o.role) for o in parts.operands) == sorted((e.name, e.role) for e in expected)
    for want in expected:
        operand = _operand(parts, want.name, want.role)
        repeats, lanes = len(want.active), len(want.active[0])
        assert (operand.unit, operand.unit_bytes) == (want.unit, want.size), want.name
        assert operand.addresses.tolist() == lane_addresses(want.base, want.size, want.blk, want.rep, repeats,
                                                            lanes), want.name
        assert operand.active.tolist() == want.active, want.name
    str(explain(record, chip))
    assert 'class="unit"' in explain(record, chip).svg()


def b8_addresses(base: int, blk: int, rep: int, repeats: int, upper: bool) -> list[list[int]]:
    """int16 -> b8 (CastDequant.md, docs/semantics.md §5.21): lane k's byte sits in its int16 lane's DataBlock
    (16 lanes a block), at byte k % 16 of the lower or upper half."""
    return [[base + r * rep * 32 + (k // 16) * blk * 32 + 16 * upper + k % 16 for k in range(128)]
            for r in range(repeats)]


@pytest.mark.parametrize("upper", [True, False])
def test_int16_to_b8_places_each_lane_in_its_half_block(upper):
    code = (f"asc.set_deq_scale(0.5, 3, True)\nx = {_t('int16', 0, 256)}\nz = {_t('int8', 1024, 1024, 'VECOUT')}\n"
            f"asc.cast_deq(z, x, 200, False, {upper})")
    record = traced(lambda core: exec(code, {"asc": asc}))[-1]
    parts = anatomy(record)
    assert parts.decomposed, parts.notes
    dst, src = _operand(parts, "dst", "write"), _operand(parts, "src", "read")
    assert dst.addresses.tolist() == b8_addresses(1024, 1, 8, 2, upper)
    assert src.addresses.tolist() == lane_addresses(0, 2, 1, 8, 2, 128)
    assert dst.active.tolist() == src.active.tolist() == count_lanes(200, 128, 2, 128)
    assert dst.per_block == 16


def test_the_vdeq_table_is_the_read_the_lanes_leave():
    """is_vec_deq=True: the 16 parameter sets at DEQSCALE's address, 8 bytes each (SetDeqScale.md, §5.21)."""
    code = (f"t = {_t('uint64', 4096, 16, 'VECCALC')}\n"
            "asc.set_deq_scale(t, asc.VdeqInfo([0.5] * 16, list(range(16)), [True] * 16))\n"
            f"x = {_t('int16', 0, 256)}\nz = {_t('int8', 1024, 1024, 'VECOUT')}\n"
            "asc.cast_deq(z, x, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8), is_vec_deq=True, half_block=False)")
    record = traced(lambda core: exec(code, {"asc": asc}))[-1]
    parts = anatomy(record)
    assert parts.decomposed, parts.notes
    assert _operand(parts, "vdeq table", "read").addresses.tolist() == [[4096 + 8 * i for i in range(16)]]
    assert _operand(parts, "dst", "write").addresses.tolist() == b8_addresses(1024, 1, 8, 2, False)


def test_add_deq_relu_on_the_a2_shows_its_staged_intermediates_and_the_scratch():
    """AddDeqRelu's A2/A3 lowering (docs/semantics.md §5.22), count 100 of int32 (2 repeats of 64 lanes): lane
    (r, k) is lane p = 64 r + k of the one pass; its float32 sum is staged at src0 + 4 p, its half at src1 + 2 p,
    and the sums' 4 * 100 bytes at the API scratch (184 KiB, §1.7)."""
    code = (f"x = {_t('int32', 0, 512)}\ny = {_t('int32', 4096, 512)}\nz = {_t('float16', 8192, 512, 'VECOUT')}\n"
            "asc.set_deq_scale(0.5)\nasc.add_deq_relu(z, x, y, 100)")
    record = traced(lambda core: exec(code, {"asc": asc}))[-1]
    parts = anatomy(record)
    assert parts.decomposed, parts.notes
    lanes = [list(range(64)), list(range(36))]
    products = _operand(parts, "src0 (float intermediates)", "write")
    halves = _operand(parts, "src1 (half intermediates)", "write")
    for repeat, row in enumerate(lanes):
        assert products.addresses[repeat][products.active[repeat]].tolist() == [4 * (64 * repeat + k) for k in row]
        assert halves.addresses[repeat][halves.active[repeat]].tolist() == [4096 + 2 * (64 * repeat + k) for k in row]
    assert _operand(parts, "dst", "write").addresses.tolist() == lane_addresses(8192, 2, 1, 4, 2, 64)
    assert parts.side_writes == (ByteRange("UB", 184 * 1024, 184 * 1024 + 400),)


def test_a_tensor_element_as_the_scalar_is_read_once():
    """The 950's Adds with its scalar a LocalTensor's element (scalar_tensor_index=0): src0's first element is
    read once, src1 per lane (Adds（灵活标量位置）参数说明)."""
    code = (f"x = {_t('float32', 0, 256)}\ns = {_t('float32', 1024, 8)}\nz = {_t('float32', 2048, 256, 'VECOUT')}\n"
            "asc.adds(z, s, x, 64, 3, asc.UnaryRepeatParams(1, 1, 8, 8), scalar_tensor_index=0)")
    record = traced(lambda core: exec(code, {"asc": asc}), "950")[-1]
    parts = anatomy(record, "950")
    assert parts.decomposed, parts.notes
    scalar = _operand(parts, "src0", "read")
    assert (scalar.addresses.tolist(), scalar.unit_bytes) == ([[1024]], 4)
    assert _operand(parts, "src1", "read").addresses.tolist() == lane_addresses(0, 4, 1, 8, 3, 64)


def test_is_set_mask_false_runs_the_lanes_the_register_holds():
    """is_set_mask=False: the mask argument is not written, the call runs under the register (0xFF: lanes 0-7 of
    each repeat, §1.3), whose value the record does not hold; the lanes the record shows are the active ones."""
    def body(core):
        asc.set_vector_mask(0, 0xFF)
        asc.adds(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 512),
                 asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512), 1.0, 64, 2, asc.UnaryRepeatParams(), False)

    record = traced(body)[-1]
    parts = anatomy(record)
    assert parts.decomposed and "vector mask register" in parts.notes[-1]
    assert _operand(parts, "dst", "write").active.tolist() == mask_lanes(8, 2, 128)
    assert _operand(parts, "src", "read").addresses.tolist() == lane_addresses(0, 2, 1, 8, 2, 128)


def test_a_mask_form_on_a_core_in_counter_mode_is_shown_whole():
    """The record does not hold the mask mode or the register: planned in normal mode under a full mask, one repeat
    of 128 lanes is not the record's 200 lanes (the count the register holds, §1.4)."""
    def body(core):
        asc.set_mask_count()
        asc.set_vector_mask(0, 200)
        asc.relu(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 512),
                 asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512), 200, 1, asc.UnaryRepeatParams(), False)

    record = traced(body)[-1]
    parts = anatomy(record)
    assert not parts.decomposed
    assert parts.ranges("read") == record.reads and parts.ranges("write") == record.writes


# ------------------------------------------------------------------ reductions: src per lane, dst per result slot
def _groups(active: list[list[bool]], width: int) -> list[list[bool]]:
    """A result is written where its group of ``width`` lanes has an active lane (the A2 leaves the others)."""
    return [[any(row[g * width:(g + 1) * width]) for g in range(len(row) // width)] for row in active]


REDUCTIONS = [
    # (id, call, src blk / rep, mask, repeats, dst result bytes, dst bytes per repeat, pitch, group width)
    ("whole_reduce_sum: one half per repeat", "asc.whole_reduce_sum(z, x, 100, 3, 1, 2, 16)", (2, 16), 100, 3,
     2, 2, 2, 128),
    ("whole_reduce_max: value and index, 2 elements per repeat", "asc.whole_reduce_max(z, x, 64, 3, 1, 1, 8)", (1, 8),
     64, 3, 4, 4, 4, 128),
    ("block_reduce_sum: 8 results per repeat, dst repeat stride 2", "asc.block_reduce_sum(z, x, 2, "
     "[0x00FF00FF00FF00FF, 0], 2, 1, 8)", (1, 8), [0x00FF00FF00FF00FF, 0], 2, 2, 32, 2, 16),
    ("pair_reduce_sum: 64 results per repeat", "asc.pair_reduce_sum(z, x, 2, 40, 1, 1, 8)", (1, 8), 40, 2,
     2, 128, 2, 2),
]


@pytest.mark.parametrize(("call", "src_strides", "mask", "repeats", "size", "unit", "pitch", "width"),
                         [r[1:] for r in REDUCTIONS], ids=[r[0] for r in REDUCTIONS])
def test_a_reduction_reads_lanes_and_writes_one_slot_per_group(call, src_strides, mask, repeats, size, unit, pitch,
                                                               width):
    """ReduceRepeat.md / ReduceDataBlock.md / ReducePairElem.md 表3 (half): result g of repeat r at
    dst + r * dst_rep_stride * (its unit) + g * (a result's size); groups with no active lane left as they were."""
    code = f"x = {_t('float16', 0, 1024)}\nz = {_t('float16', 4096, 512, 'VECOUT')}\n" + call
    record = traced(lambda core: exec(code, {"asc": asc}))[-1]
    parts = anatomy(record)
    assert parts.decomposed, parts.notes
    src, dst = _operand(parts, "src", "read"), _operand(parts, "dst", "write")
    active = mask_lanes(mask, repeats, 128)
    assert src.addresses.tolist() == lane_addresses(0, 2, *src_strides, repeats, 128)
    assert src.active.tolist() == active
    groups = 128 // width
    assert (dst.unit, dst.unit_bytes) == ("entry", size)
    assert dst.addresses.tolist() == [[4096 + r * unit + g * pitch for g in range(groups)] for r in range(repeats)]
    assert dst.active.tolist() == _groups(active, width)
    assert explain(record).svg().startswith("<svg")


def test_a_reduction_under_the_mask_register_writes_the_groups_the_record_shows():
    """asc_datablock_reduce_max's repeat form runs under the register (lanes 0-7 and 32-39 of half here): only
    DataBlocks 0 and 2 have an active lane, so only their results are written on the A2 (§1.3)."""
    code = (f"x = {_t('float16', 0, 1024)}\nz = {_t('float16', 4096, 512, 'VECOUT')}\n"
            "asc.set_vector_mask(0, 0xFF000000FF)\nasc.asc_datablock_reduce_max(z, x, 2, 1, 1, 8)")
    record = traced(lambda core: exec(code, {"asc": asc}))[-1]
    parts = anatomy(record)
    assert parts.decomposed and "vector mask register" in " ".join(parts.notes)
    assert _operand(parts, "dst", "write").active.tolist() == [[g in (0, 2) for g in range(8)]] * 2


# ------------------------------------------------------------------ explaining never raises
ROBUST = [
    (f"x = {_t('float16', 0, 512)}\ny = {_t('float16', 1024, 512)}\nz = {_t('float16', 2048, 512, 'VECOUT')}\n"
     "asc.add(z, x, y, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))", "A2"),
    (f"x = {_t('float16', 0, 512)}\nz = {_t('int32', 1024, 512, 'VECOUT')}\n"
     "asc.cast(z, x, asc.RoundMode.CAST_RINT, 300)", "A2"),
    (f"x = {_t('complex64', 0, 128)}\nz = {_t('float32', 2048, 128, 'VECOUT')}\nasc.abs(z, x, 100)", "950"),
    (f"x = {_t('float16', 0, 1024)}\nz = {_t('float16', 4096, 512, 'VECOUT')}\n"
     "asc.whole_reduce_max(z, x, 64, 3, 1, 1, 8)", "A2"),
]
GARBAGE = (None, "garbage", -1, 10**9, [1, 2], {"x": 1}, 0.5, "(1+2j)")


@pytest.mark.parametrize(("code", "chip"), ROBUST, ids=["add", "cast", "abs complex64", "whole_reduce_max"])
def test_a_record_with_parameters_that_cannot_be_read_back_is_shown_whole_and_nothing_raises(code, chip):
    """Every parameter dropped or replaced by values of other kinds, and an unknown chip: the anatomy's bytes
    are still the record's (shown whole where the call cannot be planned again), and table and picture draw."""
    from dataclasses import replace

    record = traced(lambda core: exec(code, {"asc": asc}), chip)[-1]
    variants = [(record, "no such chip")]
    for name in record.params:
        variants.append((replace(record, params={k: v for k, v in record.params.items() if k != name}), chip))
        variants += [(replace(record, params={**record.params, name: value}), chip) for value in GARBAGE]
    for variant, where in variants:
        explanation = explain(variant, where)
        parts = explanation.anatomy
        assert parts.ranges("read") == variant.reads and parts.ranges("write") == variant.writes, variant.params
        assert str(explanation) and explanation.svg().startswith("<svg")
    assert anatomy(record, chip).decomposed
