"""gather / scatter (离散与聚合/Gather.md, Scatter(ISASI).md): the pages' worked examples, a per-element
model of their pseudo-code, and every documented constraint on the offsets.

Model (the pages' pseudo-code, the offsets in bytes from the tensor's start plus the base): Gather lane
``i`` (count form) or lane ``j`` of repeat ``r`` (mask forms, ``i = r * E + j``) reads the element at byte
``src + base + offset[i]`` and writes dst at ``i`` (count) or ``r * dst_rep_stride * 32 + j * sizeof(T)``;
Scatter the other way round.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UninitializedReadError, UnsupportedError

UB_IMAGE = 64 * 1024
FULL = (1 << 64) - 1
SRC, OFF, DST = 0, 16384, 32768


def image(seed: int = 11) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes()


def active(mask, itemsize: int, repeats: int) -> list[tuple[int, int]]:
    lanes = 256 // itemsize
    bits = list(range(min(mask, lanes))) if isinstance(mask, int) else \
        [j for j in range(lanes) if (mask[j // 64] >> (j % 64)) & 1]
    return [(r, j) for r in range(repeats) for j in bits]


def model(ub: bytes, kind: str, itemsize: int, offsets: list[int], base: int, pairs, rep: int) -> bytes:
    lanes = 256 // itemsize
    out = bytearray(ub)
    moves = []
    for r, j in pairs:
        i = r * lanes + j
        dense = r * rep * 32 + j * itemsize
        indexed = base + offsets[i]
        s, d = (SRC + indexed, DST + dense) if kind == "gather" else (SRC + dense, DST + indexed)
        moves.append((d, ub[s:s + itemsize]))
    for d, payload in moves:
        out[d:d + itemsize] = payload
    return bytes(out)


def run(chip, kind, dtype, offsets, call, size=8192):
    dt = getattr(asc, dtype)
    with asc.Core(chip) as core:
        core.ub_write(0, image())
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, len(offsets))
        off.write(np.array(offsets, np.uint32))
        x = asc.LocalTensor(dt, asc.TPosition.VECIN, SRC, size // dt.itemsize)
        z = asc.LocalTensor(dt, asc.TPosition.VECOUT, DST, size // dt.itemsize)
        call(getattr(asc, kind), z, x, off)
        return core.ub_read(0, UB_IMAGE), core


def with_offsets(offsets) -> bytes:
    ub = bytearray(image())
    ub[OFF:OFF + 4 * len(offsets)] = np.array(offsets, np.uint32).tobytes()
    return bytes(ub)


@pytest.mark.parametrize("chip, kind", [("A2", "gather"), ("310P", "gather"), ("310P", "scatter"),
                                         ("310B", "scatter"), ("950", "scatter")])
def test_page_worked_example(chip, kind):
    """offsets [254 252 ... 0] over 128 half 0..127 -> [127 126 ... 0]."""
    with asc.Core(chip) as core:
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 128)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 128)
        x.write(np.arange(128, dtype=np.float16))
        off.write(np.arange(254, -1, -2, dtype=np.uint32))
        z.write(np.zeros(128, np.float16))
        getattr(asc, kind)(z, x, off, 0, 128)
        out = np.frombuffer(core.ub_read(1024, 256), np.float16)
    assert out.tolist() == list(range(127, -1, -1))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["gather", "scatter"]), dtype=st.sampled_from(["int16", "float16", "int32", "float32"]),
       data=st.data())
def test_mask_and_count_forms_against_the_model(kind, dtype, data):
    chip = "A2" if kind == "gather" else "310P"
    if kind == "scatter" and dtype.startswith("int"):
        dtype = "u" + dtype
    itemsize = getattr(asc, dtype).itemsize
    lanes = 256 // itemsize
    repeats = data.draw(st.integers(1, 3), "repeats")
    base = itemsize * data.draw(st.integers(0, 16), "base elements")
    n = repeats * lanes
    if kind == "gather":
        offsets = [itemsize * data.draw(st.integers(0, 1000)) for _ in range(n)]
    else:
        offsets = [itemsize * k for k in data.draw(st.permutations(range(1500)))[:n]]
    if data.draw(st.booleans(), "count form"):
        count = data.draw(st.integers(1, n), "count")
        got, _ = run(chip, kind, dtype, offsets, lambda f, z, x, off: f(z, x, off, base, count))
        pairs = [divmod(i, lanes) for i in range(count)]
        rep = 8
    else:
        mask = data.draw(st.one_of(st.integers(1, lanes), st.lists(st.integers(1, FULL), min_size=2, max_size=2)
                                   .map(lambda w: w if itemsize == 2 else [w[0], 0])), "mask")
        rep = data.draw(st.integers(0, 12), "rep stride")
        if kind == "scatter" and rep < 8 and repeats > 1:
            rep = 8
        got, _ = run(chip, kind, dtype, offsets, lambda f, z, x, off: f(z, x, off, base, mask, repeats, rep))
        pairs = active(mask, itemsize, repeats)
    assert got == model(with_offsets(offsets), kind, itemsize, offsets, base, pairs, rep)


def test_count_form_leaves_the_tail_mask_on_the_a2():
    _, core = run("A2", "gather", "float16", [0] * 256, lambda f, z, x, off: f(z, x, off, 0, 200))
    assert core.mask_words[:2] == (FULL, (1 << 8) - 1)  # SetMask<half>(200 % 128 = 72)


def test_mask_form_leaves_its_mask():
    _, core = run("A2", "gather", "float32", [0] * 64, lambda f, z, x, off: f(z, x, off, 0, 10, 1, 8))
    assert core.mask_words[:2] == ((1 << 10) - 1, 0)


# ------------------------------------------------------------------ errors
def _count(count=64, base=0):
    return lambda f, z, x, off: f(z, x, off, base, count)


ERRORS = [
    ("A2", "gather", "float16", [1] + [0] * 63, _count(), ParameterRangeError, "src_offset[0]"),  # not aligned
    ("A2", "gather", "float16", [0, 4096] + [0] * 62, _count(), OutOfBoundsError, "src byte range"),
    ("A2", "gather", "float16", [0] * 64, _count(base=3), ParameterRangeError, "src_base"),
    ("A2", "gather", "float16", [0] * 64, _count(base=4096), ParameterRangeError, "src_base"),
    ("310P", "scatter", "float16", [0, 2, 2] + [4 + 2 * k for k in range(61)], _count(), ParameterRangeError,
     "dst_offset[2]"),  # distinct offsets
    ("A2", "scatter", "float16", [0] * 64, _count(), UnsupportedError, "product"),
    ("910", "gather", "float16", [0] * 64, _count(), UnsupportedError, "product"),
    ("A2", "gather", "int8", [0] * 64, _count(), UnsupportedError, "dst dtype"),
    ("310B", "gather", "int8", [0] * 64, lambda f, z, x, off: f(z, x, off, 0, 64, 1, 8), UnsupportedError,
     "dst dtype"),  # 8-bit: the count form only
    ("310P", "scatter", "int16", [0] * 64, _count(), UnsupportedError, "dst dtype"),
    ("A2", "gather", "float16", [0] * 64, lambda f, z, x, off: f(z, x, off, 0, 64, 256, 8), ParameterRangeError,
     "repeat_times"),
    ("A2", "gather", "float16", [0] * 64, lambda f, z, x, off: f(z, x, off, 0, 64, 1, 65536), ParameterRangeError,
     "dst_rep_stride"),
    ("310P", "scatter", "float16", [0] * 64, lambda f, z, x, off: f(z, x, off, 0, 64, 1, 256), ParameterRangeError,
     "src_rep_stride"),
    ("A2", "gather", "float16", [0] * 64, _count(count=200), OutOfBoundsError, "src_offset byte range"),
    ("950", "gather", "float16", [0] * 64, _count(count=0), ParameterRangeError, "count"),
]


@pytest.mark.parametrize("chip, kind, dtype, offsets, call, error, operand", ERRORS)
def test_rejected_calls_name_the_rule_and_leave_memory(chip, kind, dtype, offsets, call, error, operand):
    dt = getattr(asc, dtype)
    with asc.Core(chip) as core:
        core.ub_write(0, with_offsets(offsets))
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, len(offsets))
        x = asc.LocalTensor(dt, asc.TPosition.VECIN, SRC, 4096 // dt.itemsize)
        z = asc.LocalTensor(dt, asc.TPosition.VECOUT, DST, 4096 // dt.itemsize)
        words = core.mask_words
        with pytest.raises(error) as info:
            call(getattr(asc, kind), z, x, off)
        assert core.ub_read(0, UB_IMAGE) == with_offsets(offsets) and core.mask_words == words
    assert info.value.instruction == kind and info.value.operand == operand and info.value.source


def test_narrow_offsets_on_the_310b():
    """310B / 950: 16-bit offsets at most 2^17 - 1 (约束说明); the A2 takes any uint32."""
    offsets = [1 << 17] + [0] * 63
    for chip, ok in (("310B", False), ("A2", True)):
        with asc.Core(chip) as core:
            core.ub_write(0, bytes(core.chip.ub_bytes))
            core.ub_write(0, with_offsets(offsets))
            off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, 64)
            x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 80000)
            z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 163840, 64)
            if ok:
                asc.gather(z, x, off, 0, 64)
            else:
                with pytest.raises(ParameterRangeError) as info:
                    asc.gather(z, x, off, 0, 64)
                assert info.value.operand == "src_offset[0]" and info.value.value == 1 << 17


def test_gather_dst_may_not_overlap_what_it_reads():
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, 64)
        off.write(np.arange(64, dtype=np.uint32) * 2)
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        with pytest.raises(OverlapError) as info:
            asc.gather(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 64, 64), x, off, 0, 64)
        assert info.value.operand == "dst byte address"
        with pytest.raises(OverlapError):
            asc.gather(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, OFF, 64), x, off, 0, 64)


def test_access_records_follow_the_offsets():
    with asc.Core("A2", trace=True) as core:
        core.ub_write(0, image())
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, 64)
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 64)
        for shift in (0, 1024):
            off.write(np.arange(64, dtype=np.uint32) * 8 + shift)
            asc.gather(z, x, off, 0, 64)
            record = core.trace[-1]
            reads = {(r.start, r.stop) for r in record.reads}
            assert (OFF, OFF + 256) in reads and (shift, shift + 4) in reads and len(reads) == 65
            assert [(r.start, r.stop) for r in record.writes] == [(DST, DST + 256)]


def test_a_huge_count_is_rejected_from_the_count_alone():
    """count = 2^31 - 1 names the dst bytes it would need; no array of that size is built (a fuzzed call
    once took the machine's memory)."""
    with asc.Core("A2") as core:
        core.ub_write(0, image())
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, 64)
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 128)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 128)
        with pytest.raises(OutOfBoundsError) as info:
            asc.gather(z, x, off, 0, (1 << 31) - 1)
        assert info.value.operand.startswith("dst byte")
        with pytest.raises(OutOfBoundsError):
            asc.asc_gather(z, x, off, (1 << 32) - 1)


# ------------------------------------------- the paths a Gather's call may take
def gather_run(chip, dtype, offsets, base=0, src_elems=None, dst_addr=DST, tolerance="strict", call=None):
    """A Gather count form (or ``call``) over the random image, src at SRC with ``src_elems`` elements."""
    dt = getattr(asc, dtype)
    with asc.Core(chip, tolerance=tolerance) as core:
        core.ub_write(0, with_offsets(offsets))
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, len(offsets))
        x = asc.LocalTensor(dt, asc.TPosition.VECIN, SRC, src_elems or 8192 // dt.itemsize)
        z = asc.LocalTensor(dt, asc.TPosition.VECOUT, dst_addr, len(offsets))
        if call is None:
            asc.gather(z, x, off, base, len(offsets))
        else:
            call(z, x, off)
        return core.ub_read(0, UB_IMAGE)


def gather_model(ub: bytes, itemsize: int, offsets: list[int], base: int, dst_addr: int = DST) -> bytes:
    out = bytearray(ub)
    for i, offset in enumerate(offsets):
        at = SRC + base + offset
        out[dst_addr + i * itemsize:dst_addr + (i + 1) * itemsize] = ub[at:at + itemsize]
    return bytes(out)


@pytest.mark.parametrize("chip, dtype", [("310B", "int8"), ("950", "uint8"), ("950", "int64"), ("950", "float16"),
                                         ("A2", "float32"), ("A2", "bfloat16")])
def test_every_element_width_against_the_model(chip, dtype):
    """8-bit offsets need no shift, 64-bit ones a shift of 3; a base moves where the elements count from."""
    itemsize = getattr(asc, dtype).itemsize
    rng = np.random.default_rng(itemsize)
    for base in (0, 6 * itemsize):
        offsets = [itemsize * int(k) for k in rng.integers(0, 8192 // itemsize - 6, 300)]
        got = gather_run(chip, dtype, offsets, base)
        assert got == gather_model(with_offsets(offsets), itemsize, offsets, base)


def test_a_dst_inside_src_is_fine_while_no_read_meets_it():
    """dst lies inside src's extent: the call looks for a shared element, finds none, and gathers."""
    offsets = [2 * k for k in range(64)]  # src elements 0..63 (bytes 0..127); dst from byte 4096
    got = gather_run("A2", "float16", offsets, dst_addr=4096)
    assert got == gather_model(with_offsets(offsets), 2, offsets, 0, dst_addr=4096)
    with pytest.raises(OverlapError):  # the same layout, one read on dst's first element
        gather_run("A2", "float16", offsets[:-1] + [4096], dst_addr=4096)


def test_reads_past_src_under_the_hardware_policy_take_the_ub_bytes_there():
    """The hardware policy lets an offset reach past src inside UB (UbPastTensorEndWarning): the general path
    reads those bytes; the strict policy rejects the same call with memory unchanged."""
    from npusim.errors import UbPastTensorEndWarning

    offsets = [2 * k for k in range(64)]
    offsets[5] = 2 * 700  # past a src of 512 halves
    with pytest.warns(UbPastTensorEndWarning):
        got = gather_run("A2", "float16", offsets, src_elems=512, tolerance="hardware")
    assert got == gather_model(with_offsets(offsets), 2, offsets, 0)
    with pytest.raises(OutOfBoundsError) as info:
        gather_run("A2", "float16", offsets, src_elems=512)
    assert info.value.operand == "src byte range" and info.value.value == "[0x578, 0x57a)"


def test_a_never_written_src_element_is_reported_at_its_byte():
    with asc.Core("A2", strict=True) as core:
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, 64)
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 512)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 64)
        x.write(np.zeros(100, np.float16))  # elements 0..99 written
        offsets = np.arange(64, dtype=np.uint32) * 2
        off.write(offsets)
        asc.gather(z, x, off, 32, 64)  # elements 16..79: all written
        offsets[9] = 2 * 200
        off.write(offsets)
        before = core.ub_read(0, UB_IMAGE)
        with pytest.raises(UninitializedReadError) as info:
            asc.gather(z, x, off, 32, 64)
        assert info.value.value == 1024 + 32 + 400 and core.ub_read(0, UB_IMAGE) == before


def test_a_masked_mask_form_writes_its_lanes_by_index():
    """A mask form whose active lanes are no run (a bit pattern, a repeat stride of 12 DataBlocks) writes dst lane by
    lane: the model's bytes, the masked lanes left as they were."""
    mask = [0xF0F0_0000_FFFF_0F0F, 0x8000_0000_0000_0001]
    offsets = [2 * int(k) for k in np.random.default_rng(9).integers(0, 4000, 256)]
    got, _ = run("A2", "gather", "float16", offsets, lambda f, z, x, off: f(z, x, off, 6, mask, 2, 12))
    assert got == model(with_offsets(offsets), "gather", 2, offsets, 6, active(mask, 2, 2), 12)


def test_dst_is_marked_written_again_after_its_bytes_became_undefined():
    """A dst run is marked written once per shadow epoch: bytes of it made undefined since are written again."""
    with asc.Core("A2", strict=True) as core:
        core.ub_write(0, image())
        off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, OFF, 64)
        off.write(np.arange(64, dtype=np.uint32) * 2)
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 1024)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, UB_IMAGE, 64)  # never written before the call
        asc.gather(z, x, off, 0, 64)
        assert core.ub.written[UB_IMAGE:UB_IMAGE + 128].all()
        core.ub.mark_undefined(np.arange(UB_IMAGE + 10, UB_IMAGE + 14))
        asc.gather(z, x, off, 0, 64)
        assert core.ub.written[UB_IMAGE:UB_IMAGE + 128].all()
        assert z.read().view(np.uint16).tolist() == x.read(64).view(np.uint16).tolist()


@pytest.mark.parametrize("chip", ["A2", "A3"])  # (the 310P rejects a mask of 0)
def test_a_mask_form_of_no_lane_moves_nothing(chip):
    """A continuous mask of 0 lanes has no offset to read: the call moves nothing (the model's bytes: UB as it was)
    and leaves the mask it set; the fast path's maximum over the offsets must not meet an empty array."""
    offsets = [0] * 64
    got, core = run(chip, "gather", "float32", offsets, lambda f, z, x, off: f(z, x, off, 0, 0, 1, 8))
    assert got == model(with_offsets(offsets), "gather", 4, offsets, 0, active(0, 4, 1), 8)
    assert core.mask_words[:2] == (0, 0)
