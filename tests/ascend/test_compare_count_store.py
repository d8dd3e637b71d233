"""The bytes a count-form compare stores on the 950, past the result bits (docs/semantics.md §3.3).

The 950's library compares 64-bit data (int64, uint64, double) 64 elements per loop iteration, two registers
(dav_3510 ``CompareLevel2``, ``CompareScalarLevel2``, ``CompareSrc0ScalarLevel2``, ``CompareScalarLevel2B64``:
``repeatElm = GetVecLen() / sizeof(T) * 2``), and stores each iteration's MaskReg with ``StoreUnAlign`` as
uint32: 8 bytes (Reg数据搬出/MaskReg非对齐搬出（StoreUnAlign）.md 关键特性说明).  A count of an odd number of
32-element repeats (allowed: the page asks only for ``count * 8`` to be a multiple of 256) ends with a store whose
upper 4 bytes hold lanes past ``count``: inactive in ``UpdateMask``, so 0 bits (Reg 比较与选择/Compare.md 约束说明).
The other element sizes store exactly ``count / 8`` bytes (one register per iteration, ``E`` lanes each).

Here: every 64-bit count form (Compare, Compares, the flexible forms with a number or an element on either side),
odd and even repeat counts, data that would compare true past ``count`` too (so the tail's zeros are not the
lanes' results); dst's bytes before and after the call; the extent check (dst's tensor, a reused plan),
the access record; the other element sizes pinned to ``count / 8`` bytes.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.trace import ByteRange
from npusim.errors import OutOfBoundsError

from . import reference_model as ref
from .conftest import assert_rejected

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
SENTINEL = 0xA5
SRC0, SRC1, ELEMENT, DST = 0x0, 0x2000, 0x4000, 0x5000
B64 = ("int64", "uint64", "float64")
#: how the scalar or second operand is given: Compare; Compares (scalar after); the flexible forms (a number
#: first; src1's element after; src0's element first, scalar_tensor_index 0)
KINDS = ("compare", "compares", "number_first", "element_after", "element_first")
VALUE = {"int64": -7, "uint64": (1 << 63) + 5, "float64": 1.5, "int8": -3, "uint8": 200, "int16": -300,
         "uint16": 60000, "float16": 0.5, "bfloat16": 2.0, "int32": -70000, "uint32": 3_000_000_000,
         "float32": 0.25}
OTHER = ("int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32")


def tensor(dtype: str, addr: int, size: int, position=VECIN) -> asc.LocalTensor:
    return asc.LocalTensor(getattr(asc, dtype), position, addr, size)


def value_bytes(dtype: str, n: int) -> bytes:
    """``n`` copies of VALUE[dtype] as raw bytes (little-endian)."""
    code = {"int64": "<q", "uint64": "<Q", "float64": "<d", "int8": "<b", "uint8": "<B", "int16": "<h",
            "uint16": "<H", "int32": "<i", "uint32": "<I", "float32": "<f"}.get(dtype)
    if code is None:  # the 16-bit floats: 0.5 and 2.0 are exact
        one = {"float16": b"\x00\x38", "bfloat16": b"\x00\x40"}[dtype]
    else:
        one = np.array([VALUE[dtype]], dtype=np.dtype(code)).tobytes()
    return one * n


def run(core: asc.Core, kind: str, dtype: str, count: int, dst: asc.LocalTensor) -> None:
    """One EQ compare of ``count`` elements of src0 (every element VALUE) against the same VALUE."""
    size = ref.FORMATS[dtype][0]
    n = 0x2000 // size
    src0, src1 = tensor(dtype, SRC0, n), tensor(dtype, SRC1, n)
    element = tensor(dtype, ELEMENT, 32 // size)
    eq = asc.CMPMODE.EQ
    if kind == "compare":
        asc.compare(dst, src0, src1, eq, count)
    elif kind == "compares":
        asc.compare_scalar(dst, src0, VALUE[dtype], eq, count)
    elif kind == "number_first":
        asc.compare_scalar(dst, VALUE[dtype], src1, eq, count)
    elif kind == "element_after":
        asc.compare_scalar(dst, src0, element, eq, count)
    else:
        asc.compare_scalar(dst, element, src1, eq, count, scalar_tensor_index=0)


def prepared(core: asc.Core, dtype: str) -> bytes:
    """UB with both sources and the element all VALUE (every lane, past count too, compares true) and dst's
    region all SENTINEL; the UB image."""
    size = ref.FORMATS[dtype][0]
    core.ub_write(SRC0, value_bytes(dtype, 0x2000 // size))
    core.ub_write(SRC1, value_bytes(dtype, 0x2000 // size))
    core.ub_write(ELEMENT, value_bytes(dtype, 32 // size))
    core.ub_write(DST, bytes([SENTINEL]) * 256)
    return core.ub_read(0, 0x6000)


@pytest.mark.parametrize("repeats", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", B64)
def test_a_64_bit_count_form_stores_whole_8_byte_words(dtype, kind, repeats):
    """count = 32 * repeats: bytes [0, count/8) all ones, then zeros up to the next multiple of 8, then dst as it
    was; with an even number of repeats nothing past count/8."""
    count = 32 * repeats
    with asc.Core("950") as core:
        before = prepared(core, dtype)
        run(core, kind, dtype, count, tensor("uint8", DST, 256, VECOUT))
        after = core.ub_read(0, 0x6000)
    ones, stored = count // 8, -(-count // 64) * 8
    assert stored - ones == (4 if repeats % 2 else 0)
    dst = after[DST:DST + 256]
    assert dst[:ones] == b"\xff" * ones
    assert dst[ones:stored] == bytes(stored - ones)
    assert dst[stored:] == bytes([SENTINEL]) * (256 - stored)
    assert after[:DST] == before[:DST] and after[DST + 256:] == before[DST + 256:]
    # the independent model gives the same bytes
    bits = [1] * count
    assert dst[:stored] == ref.count_bitmask(bits, 8)


@pytest.mark.parametrize("repeats", [1, 3])
@pytest.mark.parametrize("kind", ["compare", "compares", "number_first", "element_first"])
@pytest.mark.parametrize("dtype", OTHER)
def test_other_sizes_store_exactly_count_over_8_bytes(dtype, kind, repeats):
    """One register per iteration (E lanes, E/8 bytes; 8-bit data StoreAlign of 32 bytes per 256 lanes): the
    bytes stored are exactly the result bits, whatever the number of repeats."""
    size = ref.FORMATS[dtype][0]
    count = repeats * 256 // size
    with asc.Core("950") as core:
        before = prepared(core, dtype)
        run(core, kind, dtype, count, tensor("uint8", DST, 256, VECOUT))
        after = core.ub_read(0, 0x6000)
    ones = count // 8
    assert after[DST:DST + ones] == b"\xff" * ones
    assert after[DST + ones:] == before[DST + ones:] and after[:DST] == before[:DST]
    assert ref.count_bitmask([1] * count, size) == b"\xff" * ones


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", B64)
def test_the_tail_must_fit_dst(dtype, kind):
    """32 elements store 8 bytes: a 4-byte dst (enough for the 32 bits) is rejected, nothing changed; 8 bytes
    pass.  64 elements store exactly 8 bytes."""
    with asc.Core("950") as core:
        prepared(core, dtype)
        small = tensor("uint8", DST, 4, VECOUT)
        assert_rejected(core, OutOfBoundsError, lambda: run(core, kind, dtype, 32, small),
                        "[0x5000, 0x5008)", "allowed: [0x5000, 0x5004)", operand="dst byte range")
        run(core, kind, dtype, 32, tensor("uint8", DST, 8, VECOUT))
        run(core, kind, dtype, 64, tensor("uint8", DST, 8, VECOUT))
        assert core.ub_read(DST, 8) == b"\xff" * 8


def test_a_reused_plan_checks_the_tail_against_each_dst():
    """The plan made for one dst checks another's extent with the tail included (the bind step)."""
    with asc.Core("950") as core:
        prepared(core, "int64")
        run(core, "compare", "int64", 96, tensor("uint8", DST, 16, VECOUT))
        small = tensor("uint8", DST + 0x20, 12, VECOUT)
        assert_rejected(core, OutOfBoundsError, lambda: run(core, "compare", "int64", 96, small),
                        "[0x5020, 0x5030)", operand="dst byte range")


@pytest.mark.parametrize(("kind", "reads"), [
    ("compare", ((SRC0, SRC0 + 0x100), (SRC1, SRC1 + 0x100))),
    ("compares", ((SRC0, SRC0 + 0x100),)),
    ("number_first", ((SRC1, SRC1 + 0x100),)),
    ("element_after", ((SRC0, SRC0 + 0x100), (ELEMENT, ELEMENT + 8))),
    ("element_first", ((SRC1, SRC1 + 0x100), (ELEMENT, ELEMENT + 8))),
])
@pytest.mark.parametrize(("count", "stored"), [(32, 8), (64, 8), (96, 16)])
def test_the_record_lists_the_tail(kind, reads, count, stored):
    """The access record's writes are the bytes stored, the tail included; the reads the lanes compared."""
    scale = count // 32
    reads = tuple(ByteRange("UB", a, a + (b - a) * scale if b - a == 0x100 else b) for a, b in reads)
    with asc.Core("950", trace=True) as core:
        prepared(core, "int64")
        del core.trace[:]
        run(core, kind, "int64", count, tensor("uint8", DST, 256, VECOUT))
        (record,) = core.trace
    assert record.writes == (ByteRange("UB", DST, DST + stored),)
    assert record.reads == tuple(sorted(reads, key=lambda r: r.start))
