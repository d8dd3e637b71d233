"""The C API vector data movement (asc_copy_gm2ub ... asc_set_ub2gm_loop_size, docs/semantics.md §5.17).

Expected bytes come from a reference model written here from the pages' parameter tables (plain loops
over bursts and bytes): A2/A3 bursts of ``32 * len_burst`` bytes with gaps in DataBlocks; the 950's bursts
of ``len_burst`` bytes with strides start to start; the ``_align`` copies' UB rows ``[left pad][data]
[right pad][dummy]`` padded to 32 bytes, the pads holding the padding register (or, on the 950 without
``enable_constant_pad``, the burst's first element), the bytes after unpadded data its first element
(DataCopyPad's page, §5.2); on the 950 each copy repeated over the loop registers (iteration ``(i2, i1)``
moves both sides by ``i1 * loop1 stride + i2 * loop2 stride``).  The pages' 调用示例 print no data: they
run here on random data against the same model.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.dtypes import by_name as dtype_named
from npusim.engine.registry import by_name
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

SETTINGS = settings(max_examples=30, derandomize=True, deadline=None)
UB_BYTES, GM_BYTES = 16384, 8192
SRC_UB, DST_UB = 0, 8192  # the UB source and destination regions


def ub_image(seed: int = 3) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, UB_BYTES, dtype=np.uint8).tobytes()


def gm_image(seed: int = 5) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, GM_BYTES, dtype=np.uint8)


def gm(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def align32(n: int) -> int:
    return (n + 31) // 32 * 32


# ------------------------------------------------------------------ the reference model
def ref_bursts(dst: bytearray, dst_base: int, src: bytes, src_base: int, count: int, length: int,
               src_pitch: int, dst_pitch: int) -> None:
    """Burst i: ``length`` bytes from ``src_base + i * src_pitch`` to ``dst_base + i * dst_pitch``."""
    for i in range(count):
        for b in range(length):
            dst[dst_base + i * dst_pitch + b] = src[src_base + i * src_pitch + b]


def ref_padded(ub: bytearray, dst_base: int, src: bytes, src_base: int, count: int, length: int, src_pitch: int,
               dst_pitch: int, left: int, right: int, itemsize: int, fill: bytes | None, first: bool,
               packed: bool = False) -> None:
    """GM -> UB rows: element slot by slot, the data, else the pads (``fill`` or the first element), the
    bytes after unpadded data the first element.  ``fill`` None: the pad bytes are left as they were."""
    row = length if packed else align32(left + length + right)
    for i in range(count):
        s, d = src_base + i * src_pitch, dst_base + i * dst_pitch
        first_element = src[s : s + itemsize]
        for at in range(0, row, itemsize):
            if left <= at < left + length:
                value = src[s + at - left : s + at - left + itemsize]
            elif first or (left == 0 and right == 0):
                value = first_element
            elif fill is not None:
                value = fill
            else:
                continue
            ub[d + at : d + at + itemsize] = value


def looped(call, loops: tuple[int, int, int, int, int, int]) -> None:
    """``call(src_offset, dst_offset)`` for every loop iteration, the outer loop slowest."""
    loop1, loop2, s1, d1, s2, d2 = loops
    for i2 in range(loop2):
        for i1 in range(loop1):
            call(i1 * s1 + i2 * s2, i1 * d1 + i2 * d2)


# ------------------------------------------------------------------ running a call
def run(chip: str, call, dtype=asc.uint8, gm_offset: int = 0, setup=None, trace: bool = False):
    """``call(ub_dst, ub_src, gm_tensor)`` on a fresh core: the UB bytes and the GM bytes after it."""
    array = gm_image().view(dtype.np_dtype)
    with asc.Core(chip, trace=trace) as core:
        core.ub_write(0, ub_image())
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC_UB, 8192 // dtype.itemsize)
        dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, DST_UB, 8192 // dtype.itemsize)
        g = gm(array)
        if setup:
            setup()
        call(dst, src, g[gm_offset // dtype.itemsize :] if gm_offset else g)
        return core.ub_read(0, UB_BYTES), array.view(np.uint8).tobytes(), list(core.sync_log), list(core.trace or ())


def expect_ub(fill) -> bytes:
    ub = bytearray(ub_image())
    fill(ub)
    return bytes(ub)


def expect_gm(fill) -> bytes:
    out = bytearray(gm_image().tobytes())
    fill(out)
    return bytes(out)


# ------------------------------------------------------------------ registration
ALIASES = {
    **{n: "data_copy" for n in ("asc_copy_gm2ub", "asc_copy_ub2gm", "asc_copy_ub2ub", "asc_copy_ub2l1")},
    **{n: "data_copy_pad" for n in ("asc_copy_gm2ub_align", "asc_copy_ub2gm_align")},
    "asc_set_copy_pad_val": "set_pad_value",
    **{f"asc_set_{p}_{r}": "set_loop_mode_para" for p in ("gm2ub", "ub2gm")
       for r in ("loop_size", "loop1_stride", "loop2_stride")},
}


def test_every_function_is_an_alias_of_the_copy_it_lowers_to():
    for name, base in ALIASES.items():
        assert by_name("ascend", name).alias_of == base
        assert callable(getattr(asc, name))
        if name.startswith("asc_copy"):
            assert by_name("ascend", f"{name}_sync").alias_of == base


def test_pipes():
    pipes = {n: by_name("ascend", n).pipe for n in ("asc_copy_gm2ub", "asc_copy_ub2gm", "asc_copy_ub2ub",
                                                    "asc_copy_gm2ub_align", "asc_set_gm2ub_loop_size")}
    assert pipes == {"asc_copy_gm2ub": "MTE2", "asc_copy_ub2gm": "MTE3", "asc_copy_ub2ub": "V",
                     "asc_copy_gm2ub_align": "MTE2", "asc_set_gm2ub_loop_size": "S"}


# ------------------------------------------------------------------ the pages' 调用示例
@pytest.mark.parametrize("chip", ["A2", "A3", "950"])
def test_page_examples_of_the_void_copies_move_128_halves(chip):
    """asc_copy_gm2ub(dst, src, total_length * sizeof(half)) with total_length 128 (and ub2gm, ub2ub)."""
    size = 128 * 2
    got_ub, _, _, _ = run(chip, lambda d, s, g: asc.asc_copy_gm2ub(d, g, size), asc.float16)
    assert got_ub == expect_ub(lambda ub: ref_bursts(ub, DST_UB, gm_image().tobytes(), 0, 1, size, 0, 0))
    _, got_gm, _, _ = run(chip, lambda d, s, g: asc.asc_copy_ub2gm(g, s, size), asc.float16)
    assert got_gm == expect_gm(lambda out: ref_bursts(out, 0, ub_image(), SRC_UB, 1, size, 0, 0))
    got_ub, _, _, _ = run(chip, lambda d, s, g: asc.asc_copy_ub2ub(d, s, size), asc.float16)
    assert got_ub == expect_ub(lambda ub: ref_bursts(ub, DST_UB, ub_image(), SRC_UB, 1, size, 0, 0))


@pytest.mark.parametrize("chip", ["A2", "950"])
def test_page_examples_of_the_align_copies_move_128_bytes(chip):
    """asc_copy_gm2ub_align(dst, src, total_length * sizeof(uint8_t)), total_length 128, and ub2gm_align."""
    got_ub, _, _, _ = run(chip, lambda d, s, g: asc.asc_copy_gm2ub_align(d, g, 128))
    assert got_ub == expect_ub(lambda ub: ref_bursts(ub, DST_UB, gm_image().tobytes(), 0, 1, 128, 0, 0))
    _, got_gm, _, _ = run(chip, lambda d, s, g: asc.asc_copy_ub2gm_align(g, s, 128))
    assert got_gm == expect_gm(lambda out: ref_bursts(out, 0, ub_image(), SRC_UB, 1, 128, 0, 0))


PAGE_LOOPS = (2, 2, 96, 128, 192, 288)  # loop_size(2, 2), loop1_stride(96, 128), loop2_stride(192, 288)


def test_page_example_gm2ub_align_under_the_loop_registers():
    """asc_copy_gm2ub_align_arch_3510.md / asc_set_gm2ub_loop*.md: two packed 48-byte int8 bursts per
    iteration (src_stride = dst_stride = 48), 2 x 2 iterations, then loop_size(1, 1)."""
    def call(d, s, g):
        asc.asc_set_gm2ub_loop_size(2, 2)
        asc.asc_set_gm2ub_loop1_stride(96, 128)
        asc.asc_set_gm2ub_loop2_stride(192, 288)
        asc.asc_copy_gm2ub_align(d, g, 2, 48 * 1, 0, 0, False, 0, 48 * 1, 48 * 1)
        asc.asc_set_gm2ub_loop_size(1, 1)

    got, _, _, _ = run("950", call, asc.int8)
    source = gm_image().tobytes()
    assert got == expect_ub(lambda ub: looped(lambda so, do: ref_bursts(ub, DST_UB + do, source, so, 2, 48, 48, 48),
                                              PAGE_LOOPS))


def test_page_example_ub2gm_align_under_the_loop_registers():
    """asc_copy_ub2gm_align_arch_3510.md: the same loops on the UB -> GM registers."""
    def call(d, s, g):
        asc.asc_set_ub2gm_loop_size(2, 2)
        asc.asc_set_ub2gm_loop1_stride(96, 128)
        asc.asc_set_ub2gm_loop2_stride(192, 288)
        asc.asc_copy_ub2gm_align(g, s, 2, 48 * 1, 0, 48 * 1, 48 * 1)
        asc.asc_set_ub2gm_loop_size(1, 1)

    _, got, _, _ = run("950", call, asc.int8)
    assert got == expect_gm(lambda out: looped(lambda so, do: ref_bursts(out, do, ub_image(), SRC_UB + so, 2, 48, 48,
                                                                         48), PAGE_LOOPS))


def test_page_example_of_asc_set_copy_pad_val_writes_both_bursts_to_one_place():
    """asc_set_copy_pad_val.md: asc_copy_gm2ub_align(dst, src, 2, 48, 0, 0, true, 0, 0, 0) — dst_stride 0
    puts both bursts at one UB address, which npusim does not model (§5.17 errata)."""
    with asc.Core("950") as core:
        core.ub_write(0, ub_image())
        dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST_UB, 4096)
        g = gm(gm_image().view(np.int8))
        asc.asc_set_copy_pad_val(0)
        assert_rejected(core, UnsupportedError, lambda: asc.asc_copy_gm2ub_align(dst, g, 2, 48, 0, 0, True, 0, 0, 0),
                        "overlap", instruction="asc_copy_gm2ub_align", operand="dst_stride")


# ------------------------------------------------------------------ every form against the model
@SETTINGS
@given(count=st.integers(1, 6), blocks=st.integers(1, 4), src_gap=st.integers(0, 3), dst_gap=st.integers(0, 3),
       offset=st.sampled_from([0, 32, 96]), chip=st.sampled_from(["A2", "A3"]))
def test_a2_bursts_in_datablocks(count, blocks, src_gap, dst_gap, offset, chip):
    length, sp, dp = 32 * blocks, 32 * (blocks + src_gap), 32 * (blocks + dst_gap)
    source = gm_image().tobytes()
    got, _, _, _ = run(chip, lambda d, s, g: asc.asc_copy_gm2ub(d, g, count, blocks, src_gap, dst_gap),
                       gm_offset=offset)
    assert got == expect_ub(lambda ub: ref_bursts(ub, DST_UB, source, offset, count, length, sp, dp))
    _, got, _, _ = run(chip, lambda d, s, g: asc.asc_copy_ub2gm(g, s, count, blocks, src_gap, dst_gap),
                       gm_offset=offset)
    assert got == expect_gm(lambda out: ref_bursts(out, offset, ub_image(), SRC_UB, count, length, sp, dp))
    got, _, _, _ = run(chip, lambda d, s, g: asc.asc_copy_ub2ub(d, s, count, blocks, src_gap, dst_gap))
    assert got == expect_ub(lambda ub: ref_bursts(ub, DST_UB, ub_image(), SRC_UB, count, length, sp, dp))


@SETTINGS
@given(count=st.integers(1, 6), blocks=st.integers(1, 4), src_gap=st.integers(0, 3), dst_gap=st.integers(0, 3))
def test_950_ub2ub_counts_datablocks_too(count, blocks, src_gap, dst_gap):
    got, _, _, _ = run("950", lambda d, s, g: asc.asc_copy_ub2ub(d, s, count, blocks, src_gap, dst_gap))
    assert got == expect_ub(lambda ub: ref_bursts(ub, DST_UB, ub_image(), SRC_UB, count, 32 * blocks,
                                                  32 * (blocks + src_gap), 32 * (blocks + dst_gap)))


@SETTINGS
@given(count=st.integers(1, 5), length=st.integers(1, 100), src_extra=st.integers(0, 40),
       ub_extra=st.integers(0, 2), packed=st.booleans(), offset=st.integers(0, 64), keywords=st.booleans())
def test_950_void_copies_in_bytes(count, length, src_extra, ub_extra, packed, offset, keywords):
    gm_pitch = length + src_extra
    ub_pitch = length if packed else align32(length) + 32 * ub_extra
    source = gm_image().tobytes()

    def gm2ub(d, s, g):
        if keywords:
            asc.asc_copy_gm2ub(d, g, n_burst=count, len_burst=length, src_stride=gm_pitch, dst_stride=ub_pitch)
        else:
            asc.asc_copy_gm2ub(d, g, count, length, gm_pitch, ub_pitch)

    got, _, _, _ = run("950", gm2ub, gm_offset=offset)
    assert got == expect_ub(lambda ub: ref_padded(ub, DST_UB, source, offset, count, length, gm_pitch, ub_pitch, 0, 0,
                                                  1, None, True, packed))

    def ub2gm(d, s, g):
        if keywords:
            asc.asc_copy_ub2gm(g, s, n_burst=count, len_burst=length, dst_stride=gm_pitch, src_stride=ub_pitch)
        else:
            asc.asc_copy_ub2gm(g, s, count, length, gm_pitch, ub_pitch)  # the 950 order: dst_stride, src_stride

    _, got, _, _ = run("950", ub2gm, gm_offset=offset)
    assert got == expect_gm(lambda out: ref_bursts(out, offset, ub_image(), SRC_UB, count, length, ub_pitch, gm_pitch))


DTYPES = [asc.int8, asc.uint8, asc.int16, asc.float16, asc.int32, asc.float32]


def pad_bits(value, dtype) -> bytes:
    return np.array([value]).astype(dtype.np_dtype).tobytes()


@SETTINGS
@given(dtype=st.sampled_from(DTYPES), count=st.integers(1, 5), elems=st.integers(1, 30), data=st.data(),
       src_gap=st.integers(0, 40), dst_gap=st.integers(0, 2), register=st.booleans())
def test_a2_align_gm2ub(dtype, count, elems, data, src_gap, dst_gap, register):
    size = dtype.itemsize
    left, right = (data.draw(st.integers(0, 32 // size)) for _ in range(2))
    length = elems * size
    row = align32((left + right) * size + length)
    source = gm_image().tobytes()
    setup = (lambda: asc.asc_set_copy_pad_val(7)) if register else None
    got, _, _, _ = run("A2", lambda d, s, g: asc.asc_copy_gm2ub_align(d, g, count, length, left, right, src_gap,
                                                                      dst_gap), dtype, setup=setup)
    # without asc_set_copy_pad_val the pads are undefined ("随机值"): their bytes stay as they were
    fill = pad_bits(7, dtype) if register else None
    assert got == expect_ub(lambda ub: ref_padded(ub, DST_UB, source, 0, count, length, length + src_gap,
                                                  row + 32 * dst_gap, left * size, right * size, size, fill, False))


@SETTINGS
@given(dtype=st.sampled_from([*DTYPES, asc.int64, asc.uint64, asc.float64]), count=st.integers(1, 5),
       elems=st.integers(1, 30), src_gap=st.integers(0, 2), dst_gap=st.integers(0, 40))
def test_a2_align_ub2gm(dtype, count, elems, src_gap, dst_gap):
    length = elems * dtype.itemsize
    _, got, _, _ = run("A2", lambda d, s, g: asc.asc_copy_ub2gm_align(g, s, count, length, 0, 0, src_gap, dst_gap),
                       dtype)
    assert got == expect_gm(lambda out: ref_bursts(out, 0, ub_image(), SRC_UB, count, length,
                                                   align32(length) + 32 * src_gap, length + dst_gap))


@SETTINGS
@given(dtype=st.sampled_from(DTYPES), count=st.integers(1, 5), elems=st.integers(1, 30), data=st.data(),
       gm_extra=st.integers(0, 40), ub_extra=st.integers(0, 2), constant=st.booleans())
def test_950_align_gm2ub(dtype, count, elems, data, gm_extra, ub_extra, constant):
    size = dtype.itemsize
    left, right = (data.draw(st.integers(0, 32 // size)) for _ in range(2))
    length = elems * size
    gm_pitch, ub_pitch = length + gm_extra, align32((left + right) * size + length) + 32 * ub_extra
    source = gm_image().tobytes()
    got, _, _, _ = run("950", lambda d, s, g: asc.asc_copy_gm2ub_align(d, g, count, length, left, right, constant, 0,
                                                                       gm_pitch, ub_pitch), dtype,
                       setup=lambda: asc.asc_set_copy_pad_val(3))
    assert got == expect_ub(lambda ub: ref_padded(ub, DST_UB, source, 0, count, length, gm_pitch, ub_pitch,
                                                  left * size, right * size, size, pad_bits(3, dtype), not constant))


@pytest.mark.parametrize("dtype", [dtype_named("float8_e5m2"), dtype_named("float8_e4m3fn")])
@pytest.mark.parametrize("pad", [-8, 0x7E, 0, 255])
def test_950_align_gm2ub_of_fp8_pads_with_the_registers_byte(dtype, pad):
    """asc_set_copy_pad_val.md (950): fp8_e5m2_t / fp8_e4m3fn_t data "需转换成int8_t" before the call (there is no
    overload of theirs), so the pads are the int8_t's byte, not the number converted to the fp8 type."""
    count, length, left, right = 2, 20, 3, 5
    gm_pitch, ub_pitch = length, align32(left + right + length)
    source = gm_image().tobytes()
    got, _, _, _ = run("950", lambda d, s, g: asc.asc_copy_gm2ub_align(d, g, count, length, left, right, True, 0,
                                                                       gm_pitch, ub_pitch), dtype,
                       setup=lambda: asc.asc_set_copy_pad_val(pad))
    assert got == expect_ub(lambda ub: ref_padded(ub, DST_UB, source, 0, count, length, gm_pitch, ub_pitch, left,
                                                  right, 1, bytes([pad & 0xFF]), False))


def test_950_align_gm2ub_of_fp8_rejects_a_pad_value_that_is_no_byte():
    with asc.Core("950") as core:
        e4m3 = dtype_named("float8_e4m3fn")
        dst = asc.LocalTensor(e4m3, asc.TPosition.VECOUT, 0, 256)
        g = gm(gm_image().view(e4m3.np_dtype))
        for value in (1.5, 256, -129):
            asc.asc_set_copy_pad_val(value)
            assert_rejected(core, ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(dst, g, 1, 20, 2, 0, True, 0,
                                                                                         20, 32),
                            "int8_t", "asc_set_copy_pad_val.md")


@SETTINGS
@given(dtype=st.sampled_from(DTYPES), count=st.integers(1, 5), elems=st.integers(1, 30), gm_extra=st.integers(0, 40),
       ub_extra=st.integers(0, 2), packed=st.booleans())
def test_950_align_ub2gm(dtype, count, elems, gm_extra, ub_extra, packed):
    length = elems * dtype.itemsize
    gm_pitch, ub_pitch = length + gm_extra, length if packed else align32(length) + 32 * ub_extra
    _, got, _, _ = run("950", lambda d, s, g: asc.asc_copy_ub2gm_align(g, s, count, length, 0, gm_pitch, ub_pitch),
                       dtype)
    assert got == expect_gm(lambda out: ref_bursts(out, 0, ub_image(), SRC_UB, count, length, ub_pitch, gm_pitch))


@SETTINGS
@given(loop1=st.integers(1, 3), loop2=st.integers(1, 3), length=st.integers(1, 40), count=st.integers(1, 2))
def test_950_copies_follow_the_loop_registers_the_setters_write(loop1, loop2, length, count):
    row = align32(length)
    burst_span = count * row
    loops = (loop1, loop2, 64, burst_span, 64 * loop1, burst_span * loop1)
    source = gm_image().tobytes()

    def gm2ub(d, s, g):
        asc.asc_set_gm2ub_loop_size(loop1, loop2)
        asc.asc_set_gm2ub_loop1_stride(64, burst_span)
        asc.asc_set_gm2ub_loop2_stride(64 * loop1, burst_span * loop1)
        asc.asc_copy_gm2ub(d, g, count, length, length, row)

    got, _, _, _ = run("950", gm2ub)
    assert got == expect_ub(lambda ub: looped(lambda so, do: ref_padded(ub, DST_UB + do, source, so, count, length,
                                                                        length, row, 0, 0, 1, None, True), loops))

    def ub2gm(d, s, g):
        asc.asc_set_ub2gm_loop_size(loop1, loop2)
        asc.asc_set_ub2gm_loop1_stride(64, burst_span)
        asc.asc_set_ub2gm_loop2_stride(64 * loop1, burst_span * loop1)
        asc.asc_copy_ub2gm(g, s, count, length, row, row)

    _, got, _, _ = run("950", ub2gm)
    assert got == expect_gm(lambda out: looped(lambda so, do: ref_bursts(out, do, ub_image(), SRC_UB + so, count,
                                                                         length, row, row), loops))


def test_the_setters_write_one_field_pair_each_and_keep_the_rest():
    with asc.Core("950") as core:
        asc.set_loop_mode_para(asc.LoopModeParams(3, 4, 32, 64, 96, 128), asc.DataCopyMVType.OUT_TO_UB)
        asc.asc_set_gm2ub_loop1_stride(1 << 39, 1 << 20)
        assert core.loop_gm_to_ub == (3, 4, 1 << 39, 1 << 20, 96, 128)
        asc.asc_set_gm2ub_loop_size(0, 7)
        asc.asc_set_ub2gm_loop2_stride(64, 5)
        assert core.loop_gm_to_ub == (0, 7, 1 << 39, 1 << 20, 96, 128)
        assert core.loop_ub_to_gm == (1, 1, 0, 0, 64, 5)


SYNC_CALLS = {  # name: (call, its plain twin)
    "asc_copy_gm2ub_sync": lambda f, d, s, g: f(d, g, 64),
    "asc_copy_ub2gm_sync": lambda f, d, s, g: f(g, s, 64),
    "asc_copy_ub2ub_sync": lambda f, d, s, g: f(d, s, 64),
    "asc_copy_gm2ub_align_sync": lambda f, d, s, g: f(d, g, 40),
    "asc_copy_ub2gm_align_sync": lambda f, d, s, g: f(g, s, 40),
}


@pytest.mark.parametrize("name", sorted(SYNC_CALLS))
def test_sync_forms_are_the_copy_then_the_barrier(name):
    call = SYNC_CALLS[name]
    plain = run("A2", lambda d, s, g: call(getattr(asc, name.removesuffix("_sync")), d, s, g))
    synced = run("A2", lambda d, s, g: call(getattr(asc, name), d, s, g), trace=True)
    assert synced[:2] == plain[:2] and plain[2] == []
    assert [(r.kind, r.arg) for r in synced[2]] == [("pipe_barrier", int(asc.PipeID.PIPE_ALL))]
    assert synced[3][-1].instruction == name


# ------------------------------------------------------------------ access records
def test_access_records_name_the_registers_and_the_bytes():
    with asc.Core("950", trace=True) as core:
        core.ub_write(0, ub_image())
        dst = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, DST_UB, 2048)
        g = gm(gm_image().view(np.int16))
        asc.asc_set_gm2ub_loop_size(1, 1)
        assert core.trace[-1].registers_written == ("LOOP_OUTTOUB",) and core.trace[-1].pipe == "S"
        asc.asc_set_ub2gm_loop1_stride(0, 0)
        assert core.trace[-1].registers_written == ("LOOP_UBTOOUT",)
        asc.asc_set_copy_pad_val(5)
        assert core.trace[-1].registers_written == ("PAD",)
        asc.asc_copy_gm2ub_align(dst, g[3:], 2, 10, 1, 0, True, 0, 12, 64)
        record = core.trace[-1]
        assert record.instruction == "asc_copy_gm2ub_align" and record.pipe == "MTE2"
        assert set(record.registers_read) == {"PAD", "LOOP_OUTTOUB"}
        assert [(r.space, r.start, r.stop) for r in record.reads] == [("GM", 6, 16), ("GM", 18, 28)]
        assert [(r.space, r.start, r.stop) for r in record.writes] == [("UB", DST_UB, DST_UB + 32),
                                                                        ("UB", DST_UB + 64, DST_UB + 96)]
        asc.asc_copy_gm2ub_align(dst, g, 2, 10, 1, 0, False, 0, 12, 64)
        assert core.trace[-1].registers_read == ("LOOP_OUTTOUB",)  # the pads are the first element: no PAD
    with asc.Core("A2", trace=True) as core:
        core.ub_write(0, ub_image())
        src = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, SRC_UB, 4096)
        g = gm(gm_image())
        asc.asc_copy_ub2gm(g[32:], src, 2, 1, 1, 2)
        record = core.trace[-1]
        assert record.registers_read == () and record.pipe == "MTE3"
        assert [(r.space, r.start, r.stop) for r in record.reads] == [("UB", 0, 32), ("UB", 64, 96)]
        assert [(r.space, r.start, r.stop) for r in record.writes] == [("GM", 32, 64), ("GM", 128, 160)]


# ------------------------------------------------------------------ constraints
class Rig:
    """A core with a UB source and destination and a GM tensor, for rejected calls."""

    def __init__(self, chip: str, dtype=asc.uint8) -> None:
        self.chip, self.dtype = chip, dtype

    def __enter__(self):
        self.core = asc.Core(self.chip).__enter__()
        self.core.ub_write(0, ub_image())
        count = 8192 // self.dtype.itemsize
        self.src = asc.LocalTensor(self.dtype, asc.TPosition.VECIN, SRC_UB, count)
        self.dst = asc.LocalTensor(self.dtype, asc.TPosition.VECOUT, DST_UB, count)
        self.array = gm_image().view(self.dtype.np_dtype)
        self.g = gm(self.array)
        return self

    def __exit__(self, *exc):
        return self.core.__exit__(*exc)

    def rejects(self, error, call, *parts, **fields):
        before = self.array.tobytes()
        assert_rejected(self.core, error, call, *parts, **fields)
        assert self.array.tobytes() == before  # no GM byte either


@pytest.mark.parametrize("chip", ["A2", "950"])
def test_burst_ranges(chip):
    with Rig(chip) as r:
        for n_burst in (0, 4096):
            r.rejects(ParameterRangeError, lambda n=n_burst: asc.asc_copy_gm2ub(r.dst, r.g, n, 1, 0, 0),
                      instruction="asc_copy_gm2ub", operand="n_burst", value=n_burst, allowed="[1, 4095]")
        for length in (0, 65536):
            r.rejects(ParameterRangeError, lambda n=length: asc.asc_copy_ub2gm(r.g, r.src, 1, n, 32, 32),
                      instruction="asc_copy_ub2gm", operand="len_burst", value=length)
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_ub2ub(r.dst, r.src, 1, 1, 1 << 16, 0), operand="src_gap")
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub(r.dst, r.g, 48), "32-byte aligned", operand="size")
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_ub2ub(r.dst, r.src, 0), operand="size")
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 0), operand="size")
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 1 << 21), operand="size")


def test_950_size_form_fits_the_uint16_len_burst():
    with Rig("950") as r:
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub(r.dst, r.g, 65536), operand="size",
                  allowed="65535")


def test_950_ub_strides_must_be_aligned_unless_packed():
    with Rig("950") as r:
        r.rejects(AlignmentError, lambda: asc.asc_copy_gm2ub(r.dst, r.g, 2, 40, 40, 48), operand="dst_stride")
        r.rejects(AlignmentError, lambda: asc.asc_copy_ub2gm(r.g, r.src, 2, 40, 40, 48), operand="src_stride")
        r.rejects(AlignmentError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 2, 40, 0, 0, True, 0, 40, 50),
                  operand="dst_stride")
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub(r.dst, r.g, 2, 40, 40, 32), "overlap",
                  operand="dst_stride")
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 2, 40, 1, 0, True, 0, 40, 40),
                  "packed", operand="dst_stride")


@pytest.mark.parametrize("chip", ["A2", "950"])
def test_align_padding_and_length_rules(chip):
    with Rig(chip, asc.int16) as r:
        args = (0, 0) if chip == "A2" else (True, 0, 40, 64)
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 1, 40, 17, 0, *args),
                  "exceed 32 bytes", operand="left_padding_num", value=17, allowed="16")
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 1, 40, 0, 256, *args),
                  operand="right_padding_num")
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 1, 41, 0, 0, *args),
                  operand="len_burst", value=41)
        r.rejects(ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 1, 1 << 21, 0, 0, *args),
                  operand="len_burst")


def test_a2_ub2gm_align_padding_is_not_modelled():
    with Rig("A2") as r:
        r.rejects(UnsupportedError, lambda: asc.asc_copy_ub2gm_align(r.g, r.src, 1, 40, 1, 0, 0, 0),
                  operand="left_padding_num / right_padding_num")


def test_each_product_takes_the_prototypes_of_its_page():
    with Rig("A2") as r:
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 1, 40, 0, 0, True, 0, 40, 64),
                  "3510 page", operand="call form")
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub(r.dst, r.g, n_burst=1, len_burst=1, src_stride=32,
                                                               dst_stride=32), operand="call form")
    with Rig("950") as r:
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 1, 40, 0, 0, 0, 0),
                  "2201 page", operand="call form")


@pytest.mark.parametrize("chip", ["310B", "310P"])
def test_unsupported_products(chip):
    with Rig(chip) as r:
        for call in (lambda: asc.asc_copy_gm2ub(r.dst, r.g, 64), lambda: asc.asc_copy_ub2gm_align(r.g, r.src, 64),
                     lambda: asc.asc_copy_ub2ub(r.dst, r.src, 64), lambda: asc.asc_set_copy_pad_val(1)):
            r.rejects(UnsupportedError, call, chip, operand="product")
    with Rig("A2") as r:
        for call in (lambda: asc.asc_set_gm2ub_loop_size(1, 1), lambda: asc.asc_set_ub2gm_loop2_stride(0, 0),
                     lambda: asc.asc_copy_ub2l1(r.dst, r.src, 64)):
            r.rejects(UnsupportedError, call, "950", operand="product")


def test_asc_copy_ub2l1_is_not_modelled():
    with Rig("950") as r:
        l1 = asc.LocalTensor(asc.uint8, asc.TPosition.A1, 0, 256)
        r.rejects(UnsupportedError, lambda: asc.asc_copy_ub2l1(l1, r.src, 256), "L1", operand="dst")
        r.rejects(UnsupportedError, lambda: asc.asc_copy_ub2l1_sync(l1, r.src, 256), "L1")


def test_loop_setter_ranges():
    with Rig("950") as r:
        r.rejects(ParameterRangeError, lambda: asc.asc_set_gm2ub_loop_size(1 << 21, 1), operand="loop1_size")
        r.rejects(ParameterRangeError, lambda: asc.asc_set_gm2ub_loop1_stride(1 << 40, 0), operand="loop1_src_stride")
        r.rejects(ParameterRangeError, lambda: asc.asc_set_gm2ub_loop2_stride(0, 48), "32-byte aligned",
                  operand="loop2_dst_stride")
        r.rejects(ParameterRangeError, lambda: asc.asc_set_ub2gm_loop1_stride(48, 0), "32-byte aligned",
                  operand="loop1_src_stride")
        r.rejects(ParameterRangeError, lambda: asc.asc_set_ub2gm_loop2_stride(0, 1 << 40), operand="loop2_dst_stride")
        r.rejects(ParameterRangeError, lambda: asc.asc_set_ub2gm_loop_size(1, -1), operand="loop2_size")


def test_bounds_and_loop_mode_rules():
    with Rig("A2") as r:
        r.rejects(OutOfBoundsError, lambda: asc.asc_copy_gm2ub(r.dst, r.g[GM_BYTES - 32 :], 64))
        r.rejects(OutOfBoundsError, lambda: asc.asc_copy_ub2ub(r.dst, r.src, 4095, 1, 1, 1))
    with Rig("950") as r:
        asc.asc_set_gm2ub_loop_size(2, 1)
        asc.asc_set_gm2ub_loop1_stride(64, 0)
        r.rejects(OverlapError, lambda: asc.asc_copy_gm2ub(r.dst, r.g, 1, 64, 64, 64), "overlap",
                  instruction="asc_copy_gm2ub")
        asc.asc_set_gm2ub_loop1_stride(64, 64)
        r.rejects(AlignmentError, lambda: asc.asc_copy_gm2ub(r.dst, r.g[8:], 1, 64, 64, 64),
                  instruction="asc_copy_gm2ub")
        asc.asc_set_gm2ub_loop_size(0, 1)
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub(r.dst, r.g, 1, 64, 64, 64), "loop size of 0")


def test_wrong_types():
    with Rig("A2") as r:
        with pytest.raises(TypeError, match="GM -> UB"):
            asc.asc_copy_gm2ub(r.dst, r.src, 64)
        with pytest.raises(TypeError, match="UB -> GM"):
            asc.asc_copy_ub2gm(r.dst, r.src, 64)
        with pytest.raises(TypeError):
            asc.asc_copy_ub2ub(r.dst, r.src, 64.0)
        for _ in range(2):  # the value is read per call: the second call reuses the first's plan
            asc.asc_set_copy_pad_val(1)
            with pytest.raises(TypeError, match="asc_set_copy_pad_val: pad_value"):
                asc.asc_set_copy_pad_val("1")
    with Rig("A2", asc.int16) as r:
        other = gm(np.zeros(64, np.float16))
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub_align(r.dst, other, 64), operand="src dtype")
    with Rig("A2", asc.float64) as r:
        r.rejects(UnsupportedError, lambda: asc.asc_copy_gm2ub_align(r.dst, r.g, 64), operand="dst dtype")


# ------------------------------------------------------------------ NDDMA: asc_ndim_copy_gm2ub
def ref_ndim(src: np.ndarray, sizes, lps, rps, src_strides, dst_strides, constant, pad) -> dict[int, object]:
    """asc_ndim_copy_gm2ub.md 表1/表2 per destination element: position j_d over lp_d + size_d + rp_d, the
    source element at sum (j_d - lp_d) * src_stride_d when inside every size_d, else the pad (constant, or the
    nearest value: each index clamped into [0, size_d))."""
    out: dict[int, object] = {}
    extents = [lp + n + rp for lp, n, rp in zip(lps, sizes, rps, strict=True)]
    for flat in range(int(np.prod(extents))):
        j, rest = [], flat
        for e in extents:
            j.append(rest % e)
            rest //= e
        k = [jd - lp for jd, lp in zip(j, lps, strict=True)]
        inside = all(0 <= kd < n for kd, n in zip(k, sizes, strict=True))
        at = sum(jd * s for jd, s in zip(j, dst_strides, strict=True))
        if inside or not constant:
            clamped = [min(max(kd, 0), n - 1) for kd, n in zip(k, sizes, strict=True)]
            out[at] = src[sum(kd * s for kd, s in zip(clamped, src_strides, strict=True))]
        else:
            out[at] = pad
    return out


def ndim_setup(strides, pad_counts, pad_value):
    for d, (dst_stride, src_stride) in enumerate(strides):
        getattr(asc, f"asc_set_ndim_loop{d}_stride")(dst_stride, src_stride)
    config = asc.asc_ndim_pad_count_config()
    for d, (lp, rp) in enumerate(pad_counts, start=1):
        setattr(config, f"loop{d}_lp_count", lp)
        setattr(config, f"loop{d}_rp_count", rp)
    asc.asc_set_ndim_pad_count(config)
    if pad_value is not None:
        asc.asc_set_ndim_pad_value(pad_value)


def run_ndim(x: np.ndarray, dtype, strides, pad_counts, pad_value, sizes, lp0, rp0, constant, nbytes):
    with asc.Core("950", trace=True) as core:
        core.ub_write(0, ub_image())
        dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, DST_UB, 8192 // dtype.itemsize)
        ndim_setup(strides, pad_counts, pad_value)
        asc.asc_ndim_copy_gm2ub(dst, gm(x), *sizes, lp0, rp0, constant, 0)
        return core.ub_read(DST_UB, nbytes), core.trace[-1], core.nddma


def test_page_example_2d_constant_padding():
    """asc_ndim_copy_gm2ub.md 调用示例: half [4, 3] -> [9, 6], loop0 lp 2 / rp 1, loop1 lp 2 / rp 3, pad 88.0."""
    x = np.arange(1, 13, dtype=np.float16)
    strides = [(1, 1), (6, 3), (0, 0), (0, 0), (0, 0)]
    got, record, regs = run_ndim(x, asc.float16, strides, [(2, 3), (0, 0), (0, 0), (0, 0)], 88.0,
                                 (3, 4, 1, 1, 1), 2, 1, True, 54 * 2)
    expected = np.pad(x.reshape(4, 3), ((2, 3), (2, 1)), constant_values=88)
    assert got == expected.tobytes()
    assert record.registers_read == ("NDDMA",) and record.registers_written == () and record.pipe == "MTE2"
    assert regs.pad_value == 88.0 and regs.strides[1] == (6, 3)


@SETTINGS
@given(data=st.data(), constant=st.booleans(),
       dtype=st.sampled_from([asc.int8, asc.int16, asc.float16, asc.float32, asc.uint32]))
def test_ndim_copy_against_the_model(data, constant, dtype):
    """Dimensions 0 and 1 up to 3 elements and 2 + 2 pads, 2-4 up to 2 elements and a left pad (the
    destination, dense, fits 8 KiB)."""
    sizes = [data.draw(st.integers(1, 3 if d < 2 else 2)) for d in range(5)]
    lps = [data.draw(st.integers(0, 2 if d < 2 else 1)) for d in range(5)]
    rps = [data.draw(st.integers(0, 2 if d < 2 else 0)) for d in range(5)]
    src_strides = [data.draw(st.integers(0, 4)) for _ in range(5)]
    extents = [lp + n + rp for lp, n, rp in zip(lps, sizes, rps, strict=True)]
    dst_strides, span = [], 1
    for e in extents:  # dense row-major destination, dimension 0 innermost
        dst_strides.append(span)
        span *= e
    x = (np.arange(256) % 97 + 1).astype(dtype.np_dtype)
    got, _, _ = run_ndim(x, dtype, list(zip(dst_strides, src_strides, strict=True)),
                         list(zip(lps[1:], rps[1:], strict=True)), 5, sizes, lps[0], rps[0], constant,
                         span * dtype.itemsize)
    model = ref_ndim(x, sizes, lps, rps, src_strides, dst_strides, constant, 5)
    expected = np.zeros(span, dtype.np_dtype)
    for at, value in model.items():
        expected[at] = value
    assert got == expected.tobytes()


def test_data_copy_nddma_loads_the_registers_the_c_api_copy_reads():
    """dav_3510 DataCopyWithNDDMAImpl sets every NDDMA register: a following asc_ndim_copy_gm2ub repeats it."""
    x = np.arange(1, 17, dtype=np.float32)
    info = asc.NdDmaLoopInfo([1, 8], [1, 16], [8, 2], [3, 1], [5, 1])
    with asc.Core("950") as core:
        core.ub_write(0, ub_image())
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 64)
        asc.data_copy(a, gm(x), asc.NdDmaParams(info, 7.0))
        asc.asc_ndim_copy_gm2ub(b, gm(x), 8, 2, 1, 1, 1, 3, 5, True, 0)
        assert core.ub_read(0, 256) == core.ub_read(4096, 256)


def test_ndim_rules():
    with Rig("950", asc.float16) as r:
        r.rejects(ParameterRangeError, lambda: asc.asc_ndim_copy_gm2ub(r.dst, r.g, 0, 1, 1, 1, 1, 0, 0, True, 0),
                  instruction="asc_ndim_copy_gm2ub", operand="loop0_size", allowed="[1, 1048575]")
        r.rejects(ParameterRangeError, lambda: asc.asc_ndim_copy_gm2ub(r.dst, r.g, 1, 1, 1, 1, 1 << 20, 0, 0, True, 0),
                  operand="loop4_size")
        r.rejects(ParameterRangeError, lambda: asc.asc_ndim_copy_gm2ub(r.dst, r.g, 1, 1, 1, 1, 1, 256, 0, True, 0),
                  operand="loop0_lp_count")
        r.rejects(UnsupportedError, lambda: asc.asc_ndim_copy_gm2ub(r.dst, r.g, 4, 1, 1, 1, 1, 1, 0, True, 0),
                  "asc_set_ndim_pad_value", operand="NDDMA pad value register")
        r.rejects(ParameterRangeError, lambda: asc.asc_set_ndim_loop2_stride(1 << 20, 0), operand="dst_stride")
        r.rejects(ParameterRangeError, lambda: asc.asc_set_ndim_loop0_stride(0, 1 << 40), operand="src_stride")
        r.rejects(ParameterRangeError,
                  lambda: asc.asc_set_ndim_pad_count(asc.asc_ndim_pad_count_config(loop3_rp_count=256)),
                  operand="config.loop3_rp_count")
        asc.asc_set_ndim_loop0_stride(1, 1)
        asc.asc_set_ndim_loop1_stride(4, 4)  # loop 1's rows overlap loop 0's 8 elements: written twice
        r.rejects(OverlapError, lambda: asc.asc_ndim_copy_gm2ub(r.dst, r.g, 8, 2, 1, 1, 1, 0, 0, True, 0))
        with pytest.raises(TypeError):
            asc.asc_set_ndim_pad_count(((0, 0),) * 4)
        for _ in range(2):
            asc.asc_set_ndim_pad_value(1.5)
            with pytest.raises(TypeError, match="asc_set_ndim_pad_value: pad_value"):
                asc.asc_set_ndim_pad_value(None)
        assert r.core.nddma.pad_value == 1.5
    with Rig("A2") as r:
        for call in (lambda: asc.asc_ndim_copy_gm2ub(r.dst, r.g, 1, 1, 1, 1, 1, 0, 0, True, 0),
                     lambda: asc.asc_set_ndim_loop3_stride(0, 0), lambda: asc.asc_set_ndim_pad_value(1),
                     lambda: asc.asc_set_ndim_pad_count(asc.asc_ndim_pad_count_config())):
            r.rejects(UnsupportedError, call, "950", operand="product")
