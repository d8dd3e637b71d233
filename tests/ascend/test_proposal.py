"""proposal_concat, proposal_extract, rp_sort16 and mrg_sort4 on region proposals (排序组合 ProposalConcat.md,
ProposalExtract.md, RpSort16.md, MrgSort4.md): the pages' printed examples (tests/ascend/data/sort_examples.json,
copied from the pages), per-element models, raw bytes, and the pages' rules."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import sort_reference as ref
from .conftest import assert_rejected

EXAMPLES = json.loads((Path(__file__).parent / "data" / "sort_examples.json").read_text(encoding="utf-8"))
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
SRC, DST = 0x0000, 0x4000


def as_bytes(values, dtype) -> bytes:
    return np.array(values, {"float16": np.float16, "float32": np.float32}[dtype.name]).tobytes()


def run(chip, dtype, image: bytes, call):
    with asc.Core(chip) as core:
        core.ub_write(0, image)
        src = asc.LocalTensor(dtype, VECIN, SRC, 0x4000 // dtype.itemsize)
        dst = asc.LocalTensor(dtype, VECOUT, DST, 0x4000 // dtype.itemsize)
        call(dst, src)
        return core.ub_read(0, len(image))


# ----------------------------------------------------------------- the printed examples
@pytest.mark.parametrize("name, src_bytes", [("ProposalConcat", 128), ("ProposalExtract", 1024)])
def test_field_move_page_examples(name, src_bytes):
    """ProposalConcat(dstLocal, srcLocal, 2, 4): 32 floats into the score field of 32 proposals (dst zero);
    ProposalExtract(dstLocal, srcLocal, 2, 4): back."""
    example = EXAMPLES[name]
    image = bytearray(0x8000)
    image[SRC:SRC + src_bytes] = as_bytes(example["src"], asc.float32)
    call = asc.proposal_concat if name == "ProposalConcat" else asc.proposal_extract
    out = run("310P", asc.float32, bytes(image), lambda d, s: call(d, s, 2, 4))
    assert out[DST:DST + 4 * len(example["dst"])] == as_bytes(example["dst"], asc.float32)


@pytest.mark.parametrize("chip", ["310P", "910"])
def test_rp_sort16_page_example(chip):
    """ProposalConcat(dst, src, 2, 4) then RpSort16(dst, dst, 2), half: both printed stages."""
    example = EXAMPLES["RpSort16"]
    image = bytearray(0x8000)
    image[SRC:SRC + 64] = as_bytes(example["src"], asc.float16)
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(image))
        src = asc.LocalTensor(asc.float16, VECIN, SRC, 32)
        dst = asc.LocalTensor(asc.float16, VECOUT, DST, 256)
        asc.proposal_concat(dst, src, 2, 4)
        assert core.ub_read(DST, 512) == as_bytes(example["concat"], asc.float16)
        asc.rp_sort16(dst, dst, 2)
        assert core.ub_read(DST, 512) == as_bytes(example["dst"], asc.float16)


def test_mrg_sort4_page_example_scores():
    """MrgSort4.md 调用示例: 64 halves -> ProposalConcat (score) -> RpSort16 -> MrgSort4 of 4 queues of 16.  The
    page prints 456 values where 512 (64 proposals of 8) belong: its rows lose a zero per proposal (erratum,
    docs/numerics.md); the scores it prints, in order, are checked, and every other element is 0."""
    example = EXAMPLES["MrgSort4"]
    printed_scores = [v for v in example["dst_printed"] if v != 0]
    with asc.Core("310P") as core:
        core.ub_write(0, bytes(0x8000))
        src = asc.LocalTensor(asc.float16, VECIN, SRC, 64)
        src.write(example["src"])
        work = asc.LocalTensor(asc.float16, VECIN, 0x1000, 512)
        asc.proposal_concat(work, src, 4, 4)
        asc.rp_sort16(work, work, 4)
        dst = asc.LocalTensor(asc.float16, VECOUT, DST, 512)
        queues = asc.MrgSortSrcList(asc.float16, work[0], work[128], work[256], work[384])
        asc.mrg_sort4(dst, queues, asc.MrgSort4Info([16, 16, 16, 16], False, 15, 1))
        out = np.frombuffer(core.ub_read(DST, 1024), np.float16).reshape(64, 8)
    assert out[:, 4].tobytes() == as_bytes(printed_scores, asc.float16)
    assert not np.delete(out, 4, axis=1).any()


# ----------------------------------------------------------------- models
def concat_model(image: bytearray, dtype, repeats: int, mode: int) -> None:
    size = dtype.itemsize
    for i in range(16 * repeats):
        at = DST + (8 * i + mode) * size
        image[at:at + size] = image[SRC + i * size:SRC + (i + 1) * size]


def extract_model(image: bytearray, dtype, repeats: int, mode: int) -> None:
    size = dtype.itemsize
    for i in range(16 * repeats):
        at = SRC + (8 * i + mode) * size
        image[DST + i * size:DST + (i + 1) * size] = image[at:at + size]


def rp_sort16_model(image: bytearray, dtype, repeats: int, dst: int, src: int) -> None:
    size, record = dtype.itemsize, 8 * dtype.itemsize
    for r in range(repeats):
        base = src + r * 16 * record
        proposals = [bytes(image[base + k * record: base + (k + 1) * record]) for k in range(16)]
        order = sorted(range(16), key=lambda k: ref.sort_key(ref.score(proposals[k][4 * size:5 * size], size)),
                       reverse=True)
        for k, j in enumerate(order):
            at = dst + r * 16 * record + k * record
            image[at:at + record] = proposals[j]


SPECIALS = {2: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x3C00], 4: [0, 0x80000000, 0x7F800000, 0x7FC00001]}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), half=st.booleans(), repeats=st.integers(1, 9), mode=st.integers(0, 5),
       extract=st.booleans())
def test_field_moves_match_the_model(seed, half, repeats, mode, extract):
    dtype = asc.float16 if half else asc.float32
    image = bytearray(np.random.default_rng(seed).integers(0, 256, 0x8000, dtype=np.uint8).tobytes())
    expected = bytearray(image)
    (extract_model if extract else concat_model)(expected, dtype, repeats, mode)
    call = asc.proposal_extract if extract else asc.proposal_concat
    assert run("310P", dtype, bytes(image), lambda d, s: call(d, s, repeats, mode)) == bytes(expected)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), half=st.booleans(), repeats=st.integers(1, 9), in_place=st.booleans(),
       ties=st.booleans())
def test_rp_sort16_matches_the_model(seed, half, repeats, in_place, ties):
    dtype = asc.float16 if half else asc.float32
    rng = np.random.default_rng(seed)
    image = bytearray(rng.integers(0, 256, 0x8000, dtype=np.uint8).tobytes())
    size = dtype.itemsize
    for i in range(16 * repeats):  # scores: few distinct values with specials, or random bits
        at = SRC + (8 * i + 4) * size
        if ties:
            pick = SPECIALS[size][rng.integers(0, len(SPECIALS[size]))]
            image[at:at + size] = int(pick).to_bytes(size, "little")
    expected = bytearray(image)
    target = SRC if in_place else DST
    rp_sort16_model(expected, dtype, repeats, target, SRC)
    with asc.Core("310P") as core:
        core.ub_write(0, bytes(image))
        src = asc.LocalTensor(dtype, VECIN, SRC, 0x4000 // size)
        dst = src if in_place else asc.LocalTensor(dtype, VECOUT, DST, 0x4000 // size)
        asc.rp_sort16(dst, src, repeats)
        assert core.ub_read(0, 0x8000) == bytes(expected)


# ----------------------------------------------------------------- rules
@pytest.mark.parametrize("chip", ["A2", "A3", "310B", "950"])
def test_products_without_region_proposals(chip):
    with asc.Core(chip) as core:
        x, z = asc.LocalTensor(asc.float16, VECIN, 0, 256), asc.LocalTensor(asc.float16, VECOUT, 4096, 512)
        assert_rejected(core, UnsupportedError, lambda: asc.proposal_concat(z, x, 1, 4), instruction="proposal_concat")
        assert_rejected(core, UnsupportedError, lambda: asc.proposal_extract(x, z, 1, 4),
                        instruction="proposal_extract")
        assert_rejected(core, UnsupportedError, lambda: asc.rp_sort16(z, z, 1), instruction="rp_sort16")


def test_rules():
    with asc.Core("910") as core:
        x, z = asc.LocalTensor(asc.float32, VECIN, 0, 256), asc.LocalTensor(asc.float32, VECOUT, 4096, 512)
        assert_rejected(core, UnsupportedError, lambda: asc.rp_sort16(z, x, 1), operand="dst dtype")
    with asc.Core("310P") as core:
        core.ub_write(0, bytes(0x8000))
        x, z = asc.LocalTensor(asc.float16, VECIN, 0, 256), asc.LocalTensor(asc.float16, VECOUT, 4096, 512)
        assert_rejected(core, ParameterRangeError, lambda: asc.proposal_concat(z, x, 1, 6), operand="mode_number",
                        value=6)
        assert_rejected(core, ParameterRangeError, lambda: asc.proposal_extract(x, z, 256, 0), operand="repeat_time")
        assert_rejected(core, OutOfBoundsError, lambda: asc.proposal_concat(z, x, 5, 0))  # dst: 512 < 5 * 128
        assert_rejected(core, OutOfBoundsError, lambda: asc.proposal_extract(x, z, 5, 0))  # src holds 4 repeats
        assert_rejected(core, OutOfBoundsError, lambda: asc.rp_sort16(z, x, 3))  # x: 256 halves, 2 repeats
        shifted = asc.LocalTensor(asc.float16, VECOUT, 128, 256)
        assert_rejected(core, OverlapError, lambda: asc.rp_sort16(shifted, x, 1))  # partial, within a repeat
        odd = asc.LocalTensor(asc.float16, VECOUT, 4096 + 16, 256)
        assert_rejected(core, AlignmentError, lambda: asc.rp_sort16(odd, x, 1), operand="dst address")
        mixed = asc.LocalTensor(asc.float32, VECIN, 0, 256)
        assert_rejected(core, UnsupportedError, lambda: asc.proposal_concat(z, mixed, 1, 0), operand="src dtype")
        before = core.ub_read(0, 0x8000)
        asc.proposal_concat(z, x, 0, 4)
        asc.rp_sort16(z, z, 0)
        assert core.ub_read(0, 0x8000) == before  # repeat 0: a NOP
