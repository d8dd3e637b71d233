"""Ascend instruction benchmarks on an emulated Atlas A2, each beside its numpy equivalent.

Every case uses half (float16) data, 128 lanes per repeat.  At repeat 160 an operand is
160 x 256 B = 40 KiB, so three operands plus a selection bitmask fit in UB (192 KiB,
the top 8 KiB reserved as API scratch).  Layouts:

* dense: the default strides (block stride 1, repeat stride 8), operands back to back;
* strided: block stride 2 and repeat stride 16 for every strided operand, two operands
  interleaved DataBlock by DataBlock in one 80 KiB region (e.g. dst at 0x0 and src0 at
  0x20), so every view is non-contiguous.

The numpy side works on contiguous arrays holding the same elements (for Select the
selection bits already unpacked to bools), i.e. plain numpy doing the same job with
none of the addressing.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench
from ub_image import Placement, place, read_back

from npusim import ascend as asc

__all__ = ["compare_bench", "compare_count_bench", "elementwise_bench", "moving_copy_bench", "ne_scalar_bench",
           "reduce_all_bench", "reduce_bench", "select_bench", "trans_tile_bench"]
__all__ = ["c_api_add_count_bench", "compare_bench", "compare_count_bench", "elementwise_bench", "gather_bench",
           "moving_copy_bench", "ne_scalar_bench", "select_bench", "slice_copy_bench", "trans_tile_bench"]

UB_USED = 0x2C000  # every layout below ends before this byte
LANES = 128  # half lanes per repeat
SCALAR = 0.5
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT

DENSE = {"dst": Placement(0x00000), "src0": Placement(0x0A000), "src1": Placement(0x14000), "sel": 0x1E000}
STRIDED = {"dst": Placement(0x00000, 2, 16), "src0": Placement(0x00020, 2, 16),
           "src1": Placement(0x14000, 2, 16), "sel": 0x28000}
# Compare: the bitmask is packed (no dst strides), the two sources interleave when strided.
CMP_DENSE = {"src0": Placement(0x00000), "src1": Placement(0x0A000), "dst": 0x14000}
CMP_STRIDED = {"src0": Placement(0x00000, 2, 16), "src1": Placement(0x00020, 2, 16), "dst": 0x14000}


def _half_data(rng: np.random.Generator, n: int, dtype=np.float16) -> np.ndarray:
    """Normal values with NaN, infinities and both zeros sprinkled in (compares must get them right)."""
    values = rng.standard_normal(n).astype(dtype)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, SCALAR], dtype=dtype)
    picks = rng.integers(0, n, n // 16)
    values[picks] = specials[rng.integers(0, specials.size, picks.size)]
    return values


def _fresh_core() -> tuple[ExitStack, asc.Core]:
    """A new A2 core, active until the returned stack closes."""
    stack = ExitStack()
    return stack, stack.enter_context(asc.Core("A2"))


def _tensor(dtype, pos, addr: int, nbytes: int) -> asc.LocalTensor:
    return asc.LocalTensor(dtype, pos, addr, nbytes // dtype.itemsize)


def select_bench(mode: int, repeats: int, strided: bool) -> Bench:
    """``asc.select`` mask form (mask 128) vs ``np.where(bits, src0, src1)``."""
    rng = np.random.default_rng(mode)
    layout = STRIDED if strided else DENSE
    n = repeats * LANES
    a, b = _half_data(rng, n), _half_data(rng, n)
    sel_bytes = rng.integers(0, 256, max(repeats, 1) * LANES // 8, dtype=np.uint8)
    bits = np.unpackbits(sel_bytes, bitorder="little").astype(bool)
    cond = np.tile(bits[:LANES], repeats) if mode == 0 else bits[:n]  # mode 0: CMPMASK, same bits each repeat

    image = np.zeros(UB_USED, np.uint8)
    place(image, layout["src0"], a, repeats)
    place(image, layout["src1"], b, repeats)
    image[layout["sel"] : layout["sel"] + sel_bytes.size] = sel_bytes

    stack, core = _fresh_core()
    core.ub_write(0, image.tobytes())
    span = max(layout[k].span(max(repeats, 1)) for k in ("dst", "src0", "src1"))
    dst = _tensor(asc.half, VECOUT, layout["dst"].base, span)
    src0 = _tensor(asc.half, VECIN, layout["src0"].base, span)
    src1 = _tensor(asc.half, VECIN, layout["src1"].base, span)
    sel = _tensor(asc.uint8, VECIN, layout["sel"], sel_bytes.size)
    d, s0, s1 = layout["dst"], layout["src0"], layout["src1"]
    params = asc.BinaryRepeatParams(d.blk, s0.blk, s1.blk, d.rep, s0.rep, s1.rep)
    other = SCALAR if mode == 1 else src1
    other_np = np.float16(SCALAR) if mode == 1 else b

    return Bench(
        npusim=lambda: asc.select(dst, sel, src0, other, mode, LANES, repeats, params),
        numpy=lambda: np.where(cond, a, other_np),
        npusim_output=lambda: read_back(core.ub_read(0, UB_USED), d, np.float16, repeats),
        numpy_output=lambda: np.where(cond, a, other_np).tobytes(),
        resources=stack,
    )


def compare_bench(repeats: int, strided: bool, scalar: bool) -> Bench:
    """``asc.compare`` / ``asc.compare_scalar`` (LT, mask form) vs ``np.packbits(a < b, bitorder="little")``."""
    rng = np.random.default_rng(10 + scalar)
    layout = CMP_STRIDED if strided else CMP_DENSE
    n = repeats * LANES
    a, b = _half_data(rng, n), _half_data(rng, n)
    image = np.zeros(UB_USED, np.uint8)
    place(image, layout["src0"], a, repeats)
    place(image, layout["src1"], b, repeats)

    stack, core = _fresh_core()
    core.ub_write(0, image.tobytes())
    s0, s1 = layout["src0"], layout["src1"]
    span = max(s0.span(max(repeats, 1)), s1.span(max(repeats, 1)))
    src0 = _tensor(asc.half, VECIN, s0.base, span)
    src1 = _tensor(asc.half, VECIN, s1.base, span)
    dst = _tensor(asc.uint8, VECOUT, layout["dst"], max(repeats, 1) * LANES // 8)
    lt = asc.CMPMODE.LT
    unary = asc.UnaryRepeatParams(1, s0.blk, 8, s0.rep)
    binary = asc.BinaryRepeatParams(1, s0.blk, s1.blk, 8, s0.rep, s1.rep)

    def run() -> None:
        if scalar:
            asc.compare_scalar(dst, src0, SCALAR, lt, LANES, repeats, unary)
        else:
            asc.compare(dst, src0, src1, lt, LANES, repeats, binary)

    other = np.float16(SCALAR) if scalar else b
    return Bench(
        npusim=run,
        numpy=lambda: np.packbits(a < other, bitorder="little"),
        npusim_output=lambda: core.ub_read(layout["dst"], n // 8),
        numpy_output=lambda: np.packbits(a < other, bitorder="little").tobytes(),
        resources=stack,
    )


def compare_count_bench(n: int) -> Bench:
    """``asc.compare`` count form (LT) on float32 vs ``np.packbits(a < b, bitorder="little")``."""
    rng = np.random.default_rng(12)
    a, b = _half_data(rng, n, np.float32), _half_data(rng, n, np.float32)
    src0_at, src1_at, dst_at = 0x0, a.nbytes, 2 * a.nbytes

    stack, core = _fresh_core()
    core.ub_write(src0_at, a.tobytes())
    core.ub_write(src1_at, b.tobytes())
    src0 = _tensor(asc.float32, VECIN, src0_at, a.nbytes)
    src1 = _tensor(asc.float32, VECIN, src1_at, b.nbytes)
    dst = _tensor(asc.uint8, VECOUT, dst_at, n // 8)
    lt = asc.CMPMODE.LT
    return Bench(
        npusim=lambda: asc.compare(dst, src0, src1, lt, n),
        numpy=lambda: np.packbits(a < b, bitorder="little"),
        npusim_output=lambda: core.ub_read(dst_at, n // 8),
        numpy_output=lambda: np.packbits(a < b, bitorder="little").tobytes(),
        resources=stack,
    )


def ne_scalar_bench(repeats: int, strided: bool, dtype=np.float16) -> Bench:
    """C API ``asc_ne_scalar`` vs ``np.packbits(a != value, bitorder="little")``."""
    rng = np.random.default_rng(20)
    src_at = (CMP_STRIDED if strided else CMP_DENSE)["src0"]
    dst_at = CMP_DENSE["dst"]
    asc_dtype = asc.float32 if dtype == np.float32 else asc.half
    n = repeats * 256 // asc_dtype.itemsize
    a = _half_data(rng, n, dtype)
    image = np.zeros(UB_USED, np.uint8)
    place(image, src_at, a, repeats)

    stack, core = _fresh_core()
    core.ub_write(0, image.tobytes())
    src = _tensor(asc_dtype, VECIN, src_at.base, src_at.span(max(repeats, 1)))
    dst = _tensor(asc.uint8, VECOUT, dst_at, n // 8)
    value = dtype(SCALAR)
    return Bench(
        npusim=lambda: asc.asc_ne_scalar(dst, src, SCALAR, repeats, 1, src_at.blk, 8, src_at.rep),
        numpy=lambda: np.packbits(a != value, bitorder="little"),
        npusim_output=lambda: core.ub_read(dst_at, n // 8),
        numpy_output=lambda: np.packbits(a != value, bitorder="little").tobytes(),
        resources=stack,
    )


def trans_tile_bench(dtype=asc.half) -> Bench:
    """One TransDataTo5HD call on a 16-channel 32x32 tile (seed 002 recipe: 16-bit data repeat 64,
    dst stride 16, src stride 1; float32: repeat 128, D[2e + h][k] = S[8h + k][e] filling two
    blocks per position) vs numpy's transpose of the same (16, 1024) tile."""
    channels, hw = 16, 32 * 32
    size = dtype.itemsize
    src_addr, dst_addr = 0x0000, channels * hw * size
    rng = np.random.default_rng(30)
    tile = _half_data(rng, channels * hw).astype(dtype.np_dtype).reshape(channels, hw)

    stack, core = _fresh_core()
    core.ub_write(src_addr, tile.tobytes())
    core.ub_write(dst_addr, bytes(tile.nbytes))
    src_list = [src_addr + c * hw * size for c in range(channels)]  # channel planes
    dst_list = [dst_addr + i * 32 for i in range(16)]  # 16 consecutive DataBlocks (b32: 2 per position)
    params = asc.TransDataTo5HDParams(False, False, hw * size // 32, 16, 1)
    return Bench(
        npusim=lambda: asc.trans_data_to_5hd(dst_list, src_list, params, dtype=dtype),
        numpy=lambda: tile.T.copy(),
        npusim_output=lambda: core.ub_read(dst_addr, tile.nbytes),
        numpy_output=lambda: tile.T.copy().tobytes(),
        resources=stack,
    )


def moving_copy_bench(dtype=asc.half, count: int = 256, tiles: int = 64, c_api: bool = False) -> Bench:
    """``data_copy(ub, x_gm[offset:], count)`` GM -> UB, the GM offset moving to the next tile every
    call as in a kernel loop (the GlobalTensor view made per call, as a kernel makes it), vs numpy's
    copy of the same tile into a UB-sized array.  ``c_api``: the C API's ``asc_copy_gm2ub(ub, x_gm[offset:],
    count * sizeof(T))`` instead (A2: the same DataCopy plan)."""
    np_type = np.dtype(dtype.np_dtype)
    x = _half_data(np.random.default_rng(50), count * tiles).astype(np_type)
    stack, core = _fresh_core()
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x)
    ub = asc.LocalTensor(dtype, VECIN, 0x1000, count)
    ub_np = np.zeros(count, np_type)
    nbytes = ub_np.nbytes
    moving = {"npusim": 0, "numpy": 0}

    def copy() -> None:
        offset = moving["npusim"] = (moving["npusim"] + count) % x.size
        asc.data_copy(ub, x_gm[offset:], count)

    def copy_c_api() -> None:
        offset = moving["npusim"] = (moving["npusim"] + count) % x.size
        asc.asc_copy_gm2ub(ub, x_gm[offset:], nbytes)

    def copy_np() -> None:
        offset = moving["numpy"] = (moving["numpy"] + count) % x.size
        ub_np[...] = x[offset : offset + count]

    return Bench(npusim=copy_c_api if c_api else copy, numpy=copy_np,
                 npusim_output=lambda: core.ub_read(0x1000, ub_np.nbytes),
                 numpy_output=ub_np.tobytes, resources=stack)


def slice_copy_bench(rows: int) -> Bench:
    """``data_copy`` with SliceInfo GM -> UB, the page's shape scaled up: from a (2 * rows, 200) float32
    tensor, every other row, 4 runs of 24 elements 8 apart from column 16, into a (rows, 96) UB tensor;
    vs numpy's assignment of the same strided slice (GM与UB切片数据搬运(DataCopy).md)."""
    x = np.random.default_rng(51).standard_normal((2 * rows, 200)).astype(np.float32)
    stack, core = _fresh_core()
    x_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x.reshape(-1))
    ub = asc.LocalTensor(asc.float32, VECIN, 0x1000, rows * 96)
    src = [asc.SliceInfo(16, 135, 8, 3, 200), asc.SliceInfo(0, 2 * rows - 2, 1, 1, 2 * rows)]
    dst = [asc.SliceInfo(0, 95, 0, 3, 96), asc.SliceInfo(0, rows - 1, 0, 1, rows)]
    ub_np = np.zeros((rows, 4, 24), np.float32)

    def copy_np() -> None:
        ub_np[...] = x[::2, 16:144].reshape(rows, 4, 32)[:, :, :24]

    return Bench(npusim=lambda: asc.data_copy(ub, x_gm, dst, src, 2), numpy=copy_np,
                 npusim_output=lambda: core.ub_read(0x1000, ub_np.nbytes), numpy_output=ub_np.tobytes,
                 resources=stack)


# One representative per element-wise family (issue 14): its call shape, element type, the numpy
# function doing the same job, and input data for which numpy's result is the emulator's (no NaN
# and no zero divisor, so numpy's NaN sign and inf/saturation rules never come into play).
ELEMENTWISE = {
    "div": ("binary", np.float32, np.divide, lambda rng, n: rng.uniform(0.5, 4.0, n)),
    "maxs": ("scalar", np.float16, lambda a: np.maximum(a, np.float16(SCALAR)), lambda rng, n: rng.standard_normal(n)),
    "sqrt": ("unary", np.float32, np.sqrt, lambda rng, n: rng.uniform(0.0, 100.0, n)),
    "bitwise_and": ("binary", np.int16, np.bitwise_and, lambda rng, n: rng.integers(-32768, 32767, n)),
    "add_relu": ("binary", np.float32, lambda a, b: np.maximum(a + b, np.float32(0)),
                 lambda rng, n: rng.standard_normal(n)),
    "copy": ("copy", np.float32, np.copy, lambda rng, n: rng.standard_normal(n)),  # data movement (issue 14)
}
_NPUSIM_DTYPE = {np.float16: asc.half, np.float32: asc.float32, np.int16: asc.int16}


def elementwise_bench(name: str, repeats: int, strided: bool) -> Bench:
    """``asc.<name>`` mask form (a full repeat) vs the numpy function on contiguous arrays."""
    kind, np_type, numpy_fn, data = ELEMENTWISE[name]
    rng = np.random.default_rng(20)
    layout = STRIDED if strided else DENSE
    dtype = _NPUSIM_DTYPE[np_type]
    lanes = 256 // dtype.itemsize
    n = repeats * lanes
    sources = [data(rng, n).astype(np_type) for _ in range(2 if kind == "binary" else 1)]
    image = np.zeros(UB_USED, np.uint8)
    for label, values in zip(("src0", "src1"), sources, strict=False):
        place(image, layout[label], values, repeats)
    stack, core = _fresh_core()
    core.ub_write(0, image.tobytes())
    span = max(layout[k].span(max(repeats, 1)) for k in ("dst", "src0", "src1"))
    dst, src0, src1 = (_tensor(dtype, VECOUT if k == "dst" else VECIN, layout[k].base, span)
                       for k in ("dst", "src0", "src1"))
    d, s0, s1 = layout["dst"], layout["src0"], layout["src1"]
    function = getattr(asc, name)
    if kind == "binary":
        params = asc.BinaryRepeatParams(d.blk, s0.blk, s1.blk, d.rep, s0.rep, s1.rep)
        call = (dst, src0, src1, lanes, repeats, params)
    elif kind == "copy":
        call = (dst, src0, lanes, repeats, asc.CopyRepeatParams(d.blk, s0.blk, d.rep, s0.rep))
    else:
        params = asc.UnaryRepeatParams(d.blk, s0.blk, d.rep, s0.rep)
        call = (dst, src0, *((SCALAR,) if kind == "scalar" else ()), lanes, repeats, params)
    return Bench(
        npusim=lambda: function(*call),
        numpy=lambda: numpy_fn(*sources),
        npusim_output=lambda: read_back(core.ub_read(0, UB_USED), d, np_type, repeats),
        numpy_output=lambda: numpy_fn(*sources).tobytes(),
        resources=stack,
    )


def _pair_tree(rows: np.ndarray) -> np.ndarray:
    """numpy's adjacent-pair tree over each row, in half (numpy adds half exactly as the hardware's order
    asks: each add rounded to half)."""
    level = rows
    while level.shape[1] > 1:
        level = level[:, 0::2] + level[:, 1::2]
    return level[:, 0]


def reduce_bench(name: str, repeats: int, strided: bool) -> Bench:
    """A per-repeat / per-DataBlock / per-pair reduction of half, a full mask, vs numpy doing the same job:
    ``asc.whole_reduce_max`` (value only) or ``whole_reduce_min`` against a max / min of each repeat's 128
    elements, ``block_reduce_max`` of each 16-element block, and the sums (``block_reduce_sum``,
    ``whole_reduce_sum``, ``repeat_reduce_sum``, ``pair_reduce_sum``) against an adjacent-pair tree over
    each block / repeat / pair.  Strided: the source at block stride 2, repeat stride 16."""
    rng = np.random.default_rng(21)
    blk, rep = (2, 16) if strided else (1, 8)
    data = rng.standard_normal(repeats * LANES).astype(np.float16)
    src_place = Placement(0x00000, blk, rep)
    image = np.zeros(UB_USED, np.uint8)
    place(image, src_place, data, repeats)
    stack, core = _fresh_core()
    core.ub_write(0, image.tobytes())
    src = _tensor(asc.half, VECIN, 0, src_place.span(max(repeats, 1)))
    dst_addr = 0x14000
    dst = _tensor(asc.half, VECOUT, dst_addr, repeats * 128)  # pair_reduce_sum: 128 bytes a repeat
    value_only = asc.ReduceOrder.ORDER_ONLY_VALUE
    calls = {  # name: (the call, numpy's job, result bytes per repeat)
        "whole_reduce_max": (lambda: asc.whole_reduce_max(dst, src, LANES, repeats, 1, blk, rep, value_only),
                             lambda: data.reshape(repeats, LANES).max(axis=1), 2),
        "whole_reduce_min": (lambda: asc.whole_reduce_min(dst, src, LANES, repeats, 1, blk, rep, value_only),
                             lambda: data.reshape(repeats, LANES).min(axis=1), 2),
        "block_reduce_max": (lambda: asc.block_reduce_max(dst, src, repeats, LANES, 1, blk, rep),
                             lambda: data.reshape(-1, 16).max(axis=1), 16),
        "block_reduce_sum": (lambda: asc.block_reduce_sum(dst, src, repeats, LANES, 1, blk, rep),
                             lambda: _pair_tree(data.reshape(-1, 16)), 16),
        "whole_reduce_sum": (lambda: asc.whole_reduce_sum(dst, src, LANES, repeats, 1, blk, rep),
                             lambda: _pair_tree(data.reshape(-1, LANES)), 2),
        "repeat_reduce_sum": (lambda: asc.repeat_reduce_sum(dst, src, repeats, LANES, 0, blk, 1, rep),
                              lambda: _pair_tree(data.reshape(-1, LANES)), 2),
        "pair_reduce_sum": (lambda: asc.pair_reduce_sum(dst, src, repeats, LANES, 1, blk, rep),
                            lambda: data[0::2] + data[1::2], 128),
    }
    call, numpy_job, per_repeat = calls[name]
    return Bench(
        npusim=call,
        numpy=numpy_job,
        npusim_output=lambda: core.ub_read(dst_addr, repeats * per_repeat),
        numpy_output=lambda: numpy_job().tobytes(),
        resources=stack,
    )


def reduce_all_bench(name: str, count: int) -> Bench:
    """The count form of ``asc.reduce_sum`` (the A2's order, ReduceSum.md 方式一: each repeat's
    adjacent-pair tree, then the repeat sums added in order, each add rounded to half) or ``asc.reduce_max``
    with ``cal_index`` (the largest value and its first index), over ``count`` halves, vs numpy doing the
    same job (the in-order adds as an ``np.add.accumulate``, which rounds each step to half)."""
    data = np.random.default_rng(23).standard_normal(count).astype(np.float16)
    stack, core = _fresh_core()
    core.ub_write(0, data.tobytes())
    src = _tensor(asc.half, VECIN, 0, count * 2)
    work = _tensor(asc.half, asc.TPosition.VECCALC, 0x10000, 0x8000)
    dst_addr = 0x18000
    dst = _tensor(asc.half, VECOUT, dst_addr, 64)
    if name == "reduce_sum":
        def call() -> None:
            asc.reduce_sum(dst, src, work, count)

        def numpy_job() -> np.ndarray:
            padded = np.zeros(-(-count // LANES) * LANES, np.float16)
            padded[:count] = data
            return np.add.accumulate(_pair_tree(padded.reshape(-1, LANES)))[-1:]
        out_bytes = 2
    else:
        def call() -> None:
            asc.reduce_max(dst, src, work, count, True)

        def numpy_job() -> np.ndarray:
            lane = int(data.argmax())
            return np.array([data.view(np.uint16)[lane], lane], np.uint16)
        out_bytes = 4
    return Bench(
        npusim=call,
        numpy=numpy_job,
        npusim_output=lambda: core.ub_read(dst_addr, out_bytes),
        numpy_output=lambda: numpy_job().tobytes(),
        resources=stack,
    )


def gather_bench(repeats: int, strided: bool) -> Bench:
    """``asc.gather`` count form (offsets read and checked every call) vs numpy fancy indexing; ``strided``:
    a random permutation of the offsets instead of a reversal."""
    rng = np.random.default_rng(21)
    n = repeats * LANES
    values = _half_data(rng, n)
    order = rng.permutation(n) if strided else np.arange(n)[::-1]
    offsets = (order * 2).astype(np.uint32)
    stack, core = _fresh_core()
    core.ub_write(0x00000, values.tobytes())
    core.ub_write(0x0A000, offsets.tobytes())
    src = _tensor(asc.half, VECIN, 0x00000, n * 2)
    off = _tensor(asc.uint32, VECIN, 0x0A000, n * 4)
    dst = _tensor(asc.half, VECOUT, 0x1E000, n * 2)
    return Bench(
        npusim=lambda: asc.gather(dst, src, off, 0, n),
        numpy=lambda: values[order],
        npusim_output=lambda: core.ub_read(0x1E000, n * 2),
        numpy_output=lambda: values[order].tobytes(),
        resources=stack,
    )


def bilinear_bench(repeats: int, strided: bool) -> Bench:
    """``asc.bilinear_interpolation`` (offsets read and checked every call) vs numpy doing the same job: gather
    the DataBlocks by fancy indexing, multiply by the iteration's weight, sum over h, all in float16.
    Dense: ``h_repeat`` 1, ``v_repeat`` = repeats, dst contiguous; ``strided``: ``h_repeat`` 2, half as many
    vertical repeats, ``v_r_offset`` 256 (a gap after each repeat)."""
    rng = np.random.default_rng(23)
    h = 2 if strided else 1
    v = max(repeats // h, 1)
    iterations = h * v
    values = rng.standard_normal(1024).astype(np.float16)  # 64 DataBlocks, gathered in a random order (repeating)
    blocks = rng.integers(0, 64, iterations * 8)
    weights = rng.standard_normal(-(-iterations // 8) * 8).astype(np.float16)
    v_r_offset = 256 if strided else 128
    stack, core = _fresh_core()
    core.ub_write(0x00000, values.tobytes())
    core.ub_write(0x00800, (blocks * 32).astype(np.uint32).tobytes())
    core.ub_write(0x01C00, weights.tobytes())
    dst_bytes = v * v_r_offset * 2
    core.ub_write(0x02000, bytes(dst_bytes))
    src0 = _tensor(asc.half, VECIN, 0x00000, 2048)
    off = _tensor(asc.uint32, VECIN, 0x00800, iterations * 32)
    src1 = _tensor(asc.half, VECIN, 0x01C00, weights.size * 2)
    dst = _tensor(asc.half, VECOUT, 0x02000, dst_bytes)
    tmp_bytes = max((iterations + weights.size // 8) * 256, (values.size + weights.size) * 32)  # the page's minimum
    tmp = _tensor(asc.uint8, VECIN, 0x0C000, tmp_bytes)
    gather = (blocks[:, None] * 16 + np.arange(16)).reshape(v, h, 128)
    scale = weights[:iterations].reshape(v, h, 1)

    def numpy_job() -> bytes:
        products = values[gather] * scale
        total = products[:, 0]
        for step in range(1, h):
            total = products[:, step] + total
        out = np.zeros((v, v_r_offset), np.float16)
        out[:, :128] = total + np.float16(0)
        return out.tobytes()

    return Bench(
        npusim=lambda: asc.bilinear_interpolation(dst, src0, off, src1, 128, h, False, 1, v_r_offset, v, tmp),
        numpy=numpy_job,
        npusim_output=lambda: core.ub_read(0x02000, dst_bytes),
        numpy_output=numpy_job,
        resources=stack,
    )


def c_api_add_count_bench(count: int) -> Bench:
    """The C API's count form ``asc_add(dst, src0, src1, count)`` on float32 (counter mode, default strides)
    vs numpy's ``a + b`` on the same ``count`` elements."""
    rng = np.random.default_rng(22)
    a, b = (rng.standard_normal(count).astype(np.float32) for _ in range(2))
    dst_at, src0_at, src1_at = DENSE["dst"].base, DENSE["src0"].base, DENSE["src1"].base
    stack, core = _fresh_core()
    core.ub_write(src0_at, a.tobytes())
    core.ub_write(src1_at, b.tobytes())
    dst, src0, src1 = (_tensor(asc.float32, VECOUT if at == dst_at else VECIN, at, 4 * count)
                       for at in (dst_at, src0_at, src1_at))
    return Bench(
        npusim=lambda: asc.asc_add(dst, src0, src1, count),
        numpy=lambda: a + b,
        npusim_output=lambda: core.ub_read(dst_at, 4 * count),
        numpy_output=lambda: (a + b).tobytes(),
        resources=stack,
    )


def squeeze_bench(repeats: int, strided: bool) -> Bench:
    """``asc.asc_squeeze`` (C API; GatherMask by src1's bits, read and checked every call) on uint16 vs numpy
    selecting the same elements by the unpacked bits.  Dense: src0 contiguous (block stride 1, repeat stride
    8); ``strided``: block stride 2, repeat stride 16 (every other DataBlock).  Each repeat's 128 bits lie 32
    bytes after the last one's (src1 repeat stride 1)."""
    rng = np.random.default_rng(29)
    blk, rep = (2, 16) if strided else (1, 8)
    span = repeats * rep * 32
    raw = rng.integers(0, 2**16, span // 2, dtype=np.uint16)
    bits = rng.integers(0, 256, repeats * 32, dtype=np.uint8)
    r, i = np.divmod(np.arange(repeats * LANES), LANES)
    elements = (r * rep * 32 + (i // 16) * blk * 32 + (i % 16) * 2) // 2
    keep = np.unpackbits(bits.reshape(repeats, 32)[:, :16], axis=1, bitorder="little").reshape(-1).astype(bool)
    stack, core = _fresh_core()
    core.ub_write(0x00000, raw.tobytes())
    core.ub_write(0x14000, bits.tobytes())
    src0 = _tensor(asc.uint16, VECIN, 0x00000, span)
    src1 = _tensor(asc.uint16, VECIN, 0x14000, bits.size)
    dst = _tensor(asc.uint16, VECOUT, 0x16000, repeats * LANES * 2)
    kept = int(keep.sum())

    def numpy_side():  # the bits unpacked on every call, as npusim reads the pattern on every call
        chosen = np.unpackbits(bits.reshape(repeats, 32)[:, :16], axis=1, bitorder="little").reshape(-1)
        return raw[elements[chosen.astype(bool)]]

    return Bench(
        npusim=lambda: asc.asc_squeeze(dst, src0, src1, repeats, 1, blk, 1, 8, rep, 1),
        numpy=numpy_side,
        npusim_output=lambda: core.ub_read(0x16000, kept * 2),
        numpy_output=lambda: raw[elements[keep]].tobytes(),
        resources=stack,
    )
