"""Interleave and DeInterleave (数据重排（ISASI）, the 950): the pages' examples, a reference property on raw
bytes across every element type, the constraints, and exact access records on the registered examples.

The reference is the pages' formulas, element by element in Python (no numpy): Interleave ``z = src0[0],
src1[0], src0[1], src1[1], ...`` and ``dst0 = z[:count]``, ``dst1 = z[count:]``; DeInterleave ``z = src0 ++
src1`` (or ``src``), ``dst0 = z[0::2]``, ``dst1 = z[1::2]``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import reference_model as ref
from .conftest import fill
from .interrupts import Machine, sweep
from .test_elementwise_isasi import rejected

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
N = 512
SPAN = 0x10000
TYPES = ["int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32", "int64", "uint64"]


def t(dtype, addr: int, size: int = N, position=VECIN) -> asc.LocalTensor:
    return asc.LocalTensor(dtype, position, addr, size)


def _tensors(dtype, values0, values1=None):
    a = t(dtype, 0, len(values0))
    a.write(np.array(values0, dtype.np_dtype))
    b = None
    if values1 is not None:
        b = t(dtype, 0x2000, len(values1))
        b.write(np.array(values1, dtype.np_dtype))
    return a, b, t(dtype, 0x4000, len(values0), VECOUT), t(dtype, 0x6000, len(values0), VECOUT)


def test_interleave_worked_example():
    """Interleave.md: [1 ... 512] and [513 ... 1024] -> dst0 [1 513 2 ... 768], dst1 [257 769 258 ... 1024]."""
    with asc.Core("950"):
        a, b, z0, z1 = _tensors(asc.int16, range(1, 513), range(513, 1025))
        asc.interleave(z0, z1, a, b, 512)
        d0, d1 = z0.read().tolist(), z1.read().tolist()
    assert d0[:3] == [1, 513, 2] and d0[-1] == 768 and d1[:3] == [257, 769, 258] and d1[-1] == 1024
    assert d0 + d1 == [v for i in range(512) for v in (1 + i, 513 + i)]


def test_de_interleave_worked_examples():
    """DeInterleave.md: two inputs [1 ... 512], [513 ... 1024] -> [1 3 5 ... 1023], [2 4 6 ... 1024];
    one input [1 ... 512] -> [1 3 5 ... 511], [2 4 6 ... 512]."""
    with asc.Core("950"):
        a, b, z0, z1 = _tensors(asc.int16, range(1, 513), range(513, 1025))
        asc.de_interleave(z0, z1, a, b, 512)
        assert z0.read().tolist() == list(range(1, 1024, 2)) and z1.read().tolist() == list(range(2, 1025, 2))
        asc.de_interleave(z0, z1, a, 512)
        assert z0.read(256).tolist() == list(range(1, 512, 2)) and z1.read(256).tolist() == list(range(2, 513, 2))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), fmt=st.sampled_from(TYPES), form=st.sampled_from(["interleave", "de_interleave 2",
                                                                          "de_interleave 1"]),
       half=st.integers(1, 150))
def test_rearranges_match_the_formulas(data, fmt, form, half):
    count = 2 * half
    size = ref.FORMATS[fmt][0]
    width = 8 * size
    dtype = getattr(asc, fmt)
    src0, src1 = (data.draw(st.lists(st.integers(0, (1 << width) - 1), min_size=count, max_size=count))
                  for _ in range(2))
    with asc.Core("950") as core:
        fill(core, 0, SPAN)
        a, b = t(dtype, 0, 300), t(dtype, 0x1000, 300)
        a.write(np.array(src0, dtype.raw).view(dtype.np_dtype))
        b.write(np.array(src1, dtype.raw).view(dtype.np_dtype))
        z0, z1 = t(dtype, 0x4000, 300, VECOUT), t(dtype, 0x6000, 300, VECOUT)
        before = bytearray(core.ub_read(0, SPAN))
        if form == "interleave":
            asc.interleave(z0, z1, a, b, count)
        elif form == "de_interleave 2":
            asc.de_interleave(z0, z1, a, b, count)
        else:
            asc.de_interleave(z0, z1, a, count)
        after = core.ub_read(0, SPAN)
    if form == "interleave":
        z = [v for i in range(count) for v in (src0[i], src1[i])]
        dst0, dst1 = z[:count], z[count:]
    else:
        z = src0 + src1 if form == "de_interleave 2" else src0
        dst0, dst1 = z[0::2], z[1::2]
    for base, values in ((0x4000, dst0), (0x6000, dst1)):
        for i, bits in enumerate(values):
            ref.store(before, base + i * size, size, bits)
    assert after == bytes(before)


C = VECOUT
I16 = asc.int16
CASES = [
    ("another product", "A2", lambda: asc.interleave(t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C), t(I16, 0, 64),
                                                     t(I16, 0x1000, 64), 64),
     UnsupportedError, "interleave", "product"),
    ("an odd count", "950", lambda: asc.interleave(t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C), t(I16, 0, 64),
                                                   t(I16, 0x1000, 64), 63),
     ParameterRangeError, "interleave", "count"),
    ("an odd src_count", "950", lambda: asc.de_interleave(t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C),
                                                          t(I16, 0, 64), 63),
     ParameterRangeError, "de_interleave", "src_count"),
    ("count 0", "950", lambda: asc.de_interleave(t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C), t(I16, 0, 64),
                                                 t(I16, 0x1000, 64), 0),
     ParameterRangeError, "de_interleave", "count"),
    ("dst1 of another type", "950", lambda: asc.interleave(t(I16, 0x4000, 64, C), t(asc.uint16, 0x6000, 64, C),
                                                           t(I16, 0, 64), t(I16, 0x1000, 64), 64),
     UnsupportedError, "interleave", "dst1 dtype"),
    ("src in place on dst0", "950", lambda: asc.interleave(t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C),
                                                           t(I16, 0x4000, 64), t(I16, 0x1000, 64), 64),
     OverlapError, "interleave", "src0 / dst0"),
    ("src partly over dst1", "950", lambda: asc.de_interleave(t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C),
                                                              t(I16, 0x6020, 64), 64),
     OverlapError, "de_interleave", "src / dst1"),
    ("dst0 over dst1", "950", lambda: asc.de_interleave(t(I16, 0x4000, 64, C), t(I16, 0x4020, 64, C),
                                                        t(I16, 0, 64), t(I16, 0x1000, 64), 64),
     OverlapError, "de_interleave", "dst0 / dst1"),
    ("count past src1", "950", lambda: asc.de_interleave(t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C),
                                                         t(I16, 0, 64), t(I16, 0x1000, 32), 64),
     OutOfBoundsError, "de_interleave", "src1 byte range"),
    ("one source: dsts hold half", "950", lambda: asc.de_interleave(t(I16, 0x4000, 16, C), t(I16, 0x6000, 64, C),
                                                                    t(I16, 0, 64), 64),
     OutOfBoundsError, "de_interleave", "dst0 byte range"),
]


@pytest.mark.parametrize(("chip", "call", "error", "instruction", "operand"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_constraints(chip, call, error, instruction, operand):
    rejected(call, error, chip, instruction=instruction, operand=operand)


def test_one_source_de_interleave_writes_half_of_src_count_to_each_dst():
    with asc.Core("950") as core:
        fill(core, 0, SPAN)
        a, z0, z1 = t(I16, 0, 64), t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C)
        a.write(np.arange(64, dtype=np.int16))
        before = core.ub_read(0x4000, 128), core.ub_read(0x6000, 128)
        asc.de_interleave(z0, z1, a, 64)
        assert z0.read(32).tolist() == list(range(0, 64, 2)) and core.ub_read(0x4040, 64) == before[0][64:]
        assert z1.read(32).tolist() == list(range(1, 64, 2)) and core.ub_read(0x6040, 64) == before[1][64:]


def test_an_interrupted_rearrange_changes_nothing():
    core = asc.Core("950")
    with core:
        fill(core, 0, SPAN, seed=5)
    calls = (lambda: asc.interleave(t(I16, 0x4000, 256, C), t(I16, 0x6000, 256, C), t(I16, 0, 256),
                                    t(I16, 0x1000, 256), 200),
             lambda: asc.de_interleave(t(I16, 0x4000, 256, C), t(I16, 0x6000, 256, C), t(I16, 0, 256), 256))
    for call in calls:
        assert sweep(Machine(core), call, fresh_plans=True)
        assert sweep(Machine(core), call, fresh_plans=False)


@pytest.mark.parametrize("fmt", TYPES)
@pytest.mark.parametrize("form", ["interleave", "de_interleave 2", "de_interleave 1"])
def test_every_element_width_takes_its_path(fmt, form):
    """1-, 2- and 4-byte elements move as pairs in one wide integer, 8-byte ones by strided copies: every type, a
    count of two whole repeats and a tail, against the formulas on random bits."""
    size = ref.FORMATS[fmt][0]
    dtype = getattr(asc, fmt)
    count = 2 * (256 // size) + 6
    rng = np.random.default_rng(size)
    src0, src1 = (rng.integers(0, 256, count * size, dtype=np.uint8).tobytes() for _ in range(2))
    with asc.Core("950") as core:
        fill(core, 0, 0x8000)
        core.ub_write(0, src0)
        core.ub_write(0x1000, src1)
        a, b = t(dtype, 0, count), t(dtype, 0x1000, count)
        z0, z1 = t(dtype, 0x4000, count, VECOUT), t(dtype, 0x6000, count, VECOUT)
        if form == "interleave":
            asc.interleave(z0, z1, a, b, count)
        elif form == "de_interleave 2":
            asc.de_interleave(z0, z1, a, b, count)
        else:
            asc.de_interleave(z0, z1, a, count)
        n = count if form != "de_interleave 1" else count // 2
        got = core.ub_read(0x4000, n * size), core.ub_read(0x6000, n * size)
    e0, e1 = ([x[i:i + size] for i in range(0, len(x), size)] for x in (src0, src1))
    if form == "interleave":
        z = [v for i in range(count) for v in (e0[i], e1[i])]
        want = z[:count], z[count:]
    else:
        z = e0 + e1 if form == "de_interleave 2" else e0
        want = z[0::2], z[1::2]
    assert got == (b"".join(want[0]), b"".join(want[1]))


def test_a_never_written_source_byte_is_reported_on_every_call_until_written():
    """The sources' written-shadow is looked at until a call finds it all written, and again once bytes became
    undefined (the shadow epoch moved)."""
    from npusim.errors import UninitializedReadError

    with asc.Core("950", strict=True) as core:
        a, b = t(I16, 0, 64), t(I16, 0x1000, 64)
        z0, z1 = t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C)
        a.write(np.arange(64, dtype=np.int16))
        b.write(np.arange(63, dtype=np.int16))  # element 63 never written
        for _ in range(2):
            with pytest.raises(UninitializedReadError) as info:
                asc.interleave(z0, z1, a, b, 64)
            assert info.value.value == 0x1000 + 126
        b.write(np.arange(64, dtype=np.int16))
        asc.interleave(z0, z1, a, b, 64)  # all written: the epoch is remembered
        core.ub.mark_undefined(np.arange(0x1000 + 10, 0x1000 + 12))
        with pytest.raises(UninitializedReadError) as info:
            asc.interleave(z0, z1, a, b, 64)
        assert info.value.value == 0x1000 + 10


def test_the_destinations_are_marked_written_again_after_their_bytes_became_undefined():
    """Both destinations are marked written once per shadow epoch: bytes of them made undefined since are written
    (and marked) again by the next call."""
    with asc.Core("950", strict=True) as core:
        a, b = t(I16, 0, 64), t(I16, 0x1000, 64)
        z0, z1 = t(I16, 0x4000, 64, C), t(I16, 0x6000, 64, C)
        a.write(np.arange(64, dtype=np.int16))
        b.write(np.arange(64, 128, dtype=np.int16))
        asc.interleave(z0, z1, a, b, 64)
        core.ub.mark_undefined(np.r_[0x4000 + 6:0x4000 + 8, 0x6000 + 100:0x6000 + 102])
        asc.interleave(z0, z1, a, b, 64)
        assert core.ub.written[0x4000:0x4080].all() and core.ub.written[0x6000:0x6080].all()
        z = [v for i in range(64) for v in (i, 64 + i)]
        assert z0.read().tolist() == z[:64] and z1.read().tolist() == z[64:]
