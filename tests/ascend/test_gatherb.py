"""gatherb and asc_gather_datablock (离散与聚合/Gatherb(ISASI).md): the page's printed example, its
pseudo-code as a reference model (block ``r*8+j`` of dst at ``r*32*dstRepStride + j*32*dstBlkStride``
takes the 32 bytes at ``src + offset[r*8+j]``), and every rule as a rejected call."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

SETTINGS = settings(max_examples=50, derandomize=True, deadline=None)
P = asc.GatherRepeatParams
U16, U32 = asc.uint16, asc.uint32
FULL = (1 << 64) - 1


def tensors(dtype, src_bytes: int, offsets, dst_bytes: int, src_addr=0, off_addr=0x4000, dst_addr=0x8000):
    src = asc.LocalTensor(dtype, asc.TPosition.VECIN, src_addr, src_bytes // dtype.itemsize)
    off = asc.LocalTensor(U32, asc.TPosition.VECIN, off_addr, max(len(offsets), 8))
    if offsets:
        off.write(list(offsets))
    dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, dst_addr, dst_bytes // dtype.itemsize)
    return dst, src, off


def reference(dst: bytearray, src: bytes, offsets, repeats: int, blk: int, rep: int) -> bytes:
    blk = blk or 1
    for i in range(repeats):
        for j in range(8):
            d = (i * rep + j * blk) * 32
            dst[d : d + 32] = src[offsets[i * 8 + j] : offsets[i * 8 + j] + 32]
    return bytes(dst)


def test_the_pages_example():
    """调用示例: uint16, src 0..127, offsets [224 192 ... 0], repeat 1, params {1, 8}: the blocks reversed."""
    with asc.Core("A2"):
        dst, src, off = tensors(U16, 256, [224, 192, 160, 128, 96, 64, 32, 0], 256)
        src.write(list(range(128)))
        asc.gatherb(dst, src, off, 1, P(1, 8))
        got = dst.read().tolist()
    assert got[:16] == list(range(112, 128)) and got[16:32] == list(range(96, 112)) and got[-16:] == list(range(16))
    assert got == [v for b in reversed(range(8)) for v in range(16 * b, 16 * b + 16)]


CHIP_TYPES = [("A2", U16), ("A3", U32), ("950", asc.int64), ("950", asc.int8), ("950", asc.bfloat16),
              ("310B", asc.float32), ("310B", asc.int64)]


@SETTINGS
@given(st.sampled_from(CHIP_TYPES), st.integers(1, 3), st.integers(1, 3), st.integers(0, 4), st.data())
def test_gatherb_matches_the_pseudo_code(chip_type, repeats, blk, extra_rep, data):
    chip, dtype = chip_type
    rep = 8 * blk - 7 + extra_rep + 7  # at least one repeat's span: no block written twice
    src_blocks = 12
    offsets = data.draw(st.lists(st.integers(0, src_blocks - 1).map(lambda b: b * 32), min_size=repeats * 8,
                                 max_size=repeats * 8))
    dst_bytes = ((repeats - 1) * rep + 7 * blk + 1) * 32
    source = ((np.arange(src_blocks * 32) * 11 + 3) % 256).astype(np.uint8).tobytes()
    fill = bytes([0x5C]) * dst_bytes
    with asc.Core(chip) as core:
        dst, src, off = tensors(dtype, src_blocks * 32, offsets, dst_bytes)
        core.ub_write(0, source)
        core.ub_write(0x8000, fill)
        asc.gatherb(dst, src, off, repeats, P(blk, rep))
        assert core.ub_read(0x8000, dst_bytes) == reference(bytearray(fill), source, offsets, repeats, blk, rep)


def test_a_block_stride_of_zero_counts_as_one_on_the_a2_and_a3_only():
    offsets = [32 * j for j in range(8)]
    with asc.Core("A2") as core:
        dst, src, off = tensors(U16, 256, offsets, 256)
        core.ub_write(0, bytes(range(256)))
        asc.gatherb(dst, src, off, 1, P(0, 8))
        assert core.ub_read(0x8000, 256) == bytes(range(256))
    with asc.Core("950") as core:
        dst, src, off = tensors(U16, 256, offsets, 256)
        core.ub_write(0, bytes(range(256)))
        assert_rejected(core, OverlapError, lambda: asc.gatherb(dst, src, off, 1, P(0, 8)), operand="repeat_params")


def test_the_a2_lowering_resets_the_mask_and_the_950_leaves_it():
    for chip, after in (("A2", (FULL, FULL, 0, 0)), ("950", (5, 0, 0, 0))):
        with asc.Core(chip, trace=True) as core:
            dst, src, off = tensors(U16, 256, [0] * 8, 256)
            core.ub_write(0, bytes(256))
            asc.set_vector_mask(0, 5)
            asc.gatherb(dst, src, off, 1, P(1, 8))
            assert core.mask_words == after
            assert core.trace[-1].registers_written == (("MASK",) if chip == "A2" else ())


def test_repeat_zero_is_a_nop_on_the_a2_and_rejected_on_the_950():
    with asc.Core("A2", trace=True) as core:
        dst, src, off = tensors(U16, 256, [0] * 8, 256)
        before = core.ub.snapshot()
        asc.gatherb(dst, src, off, 0, P(1, 8))
        assert core.ub.snapshot() == before and core.trace[-1].writes == ()
    with asc.Core("950") as core:
        dst, src, off = tensors(U16, 256, [0] * 8, 256)
        assert_rejected(core, ParameterRangeError, lambda: asc.gatherb(dst, src, off, 0, P(1, 8)),
                        operand="repeat_times", value=0)


def rejected(error, call_args, chip="A2", **fields):
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(0x10000))
        dtype, src_bytes, offsets, dst_bytes, addrs, repeats, params = call_args
        dst, src, off = tensors(dtype, src_bytes, offsets, dst_bytes, *addrs)
        err = assert_rejected(core, error, lambda: asc.gatherb(dst, src, off, repeats, params), **fields)
    assert err.instruction == "gatherb"


@pytest.mark.parametrize("args, error, fields", [
    ((U16, 256, [0] * 8, 256, (), 256, P(1, 8)), ParameterRangeError, {"operand": "repeat_times", "value": 256}),
    ((U16, 256, [0, 16] + [0] * 6, 256, (), 1, P(1, 8)), ParameterRangeError, {"operand": "offset[1]", "value": 16}),
    ((U16, 256, [0, 2] + [0] * 6, 256, (), 1, P(1, 8)), ParameterRangeError, {"operand": "offset[1]", "value": 2}),
    ((U16, 256, [256] + [0] * 7, 256, (), 1, P(1, 8)), OutOfBoundsError, {}),
    ((U16, 256, [0] * 8, 256, (0, 0x4000, 0x8000), 2, P(1, 0)), OverlapError, {"operand": "repeat_params"}),
    ((U16, 512, [256] + [0] * 7, 256, (0, 0x4000, 0x100), 1, P(1, 8)), OverlapError,
     {"operand": "dst byte address"}),
    ((U16, 256, [0] * 8, 256, (0, 0x8000, 0x8000), 1, P(1, 8)), OverlapError, {"operand": "dst byte address"}),
    ((asc.float16, 256, [0] * 8, 256, (), 1, P(1, 8)), UnsupportedError, {"operand": "dst dtype"}),
    ((U16, 256, [0] * 8, 256, (), 1, P(256, 8)), ParameterRangeError, {"operand": "repeat_params.dst_blk_stride"}),
])
def test_rejected_calls_change_nothing(args, error, fields):
    rejected(error, args, **fields)


@pytest.mark.parametrize("chip, dtype, operand", [("310P", U16, "product"), ("910", U16, "product"),
                                                  ("310B", asc.uint64, "dst dtype"), ("950", asc.float64, "dst dtype")])
def test_products_and_dtypes(chip, dtype, operand):
    rejected(UnsupportedError, (dtype, 256, [0] * 8, 256, (), 1, P(1, 8)), chip, operand=operand)


def test_offset_and_src_types():
    with asc.Core("A2") as core:
        dst, src, _ = tensors(U16, 256, [0] * 8, 256)
        bad = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0x4000, 8)
        core.ub_write(0x4000, bytes(32))
        assert_rejected(core, ParameterRangeError, lambda: asc.gatherb(dst, src, bad, 1, P(1, 8)),
                        operand="offset dtype")
        other = asc.LocalTensor(U32, asc.TPosition.VECIN, 0, 64)
        assert_rejected(core, ParameterRangeError, lambda: asc.gatherb(dst, other, bad, 1, P(1, 8)),
                        operand="src0 dtype")


# ------------------------------------------------------------------ the C API
def test_asc_gather_datablock_is_the_bare_vgatherb():
    offsets = [0, 64, 32, 96, 128, 160, 224, 192]
    source = bytes(range(256))
    with asc.Core("A2", trace=True) as core:
        dst, src, off = tensors(U16, 256, offsets, 512)
        core.ub_write(0, source)
        core.ub_write(0x8000, bytes(512))
        asc.set_vector_mask(0, 3)
        asc.asc_gather_datablock(dst, src, off, 16, 2, 1)
        assert core.ub_read(0x8000, 512) == reference(bytearray(512), source, offsets, 1, 2, 16)
        assert core.mask_words == (3, 0, 0, 0)
        assert core.trace[-1].registers_written == ()
        asc.asc_gather_datablock_sync(dst, src, off, 16, 2, 1)
        assert core.trace[-1].instruction == "asc_gather_datablock_sync"
    with asc.Core("950") as core:
        dst, src, off = tensors(U16, 256, offsets, 512)
        assert_rejected(core, UnsupportedError, lambda: asc.asc_gather_datablock(dst, src, off, 16, 2, 1))
