"""BilinearInterpolation (基础算术/BilinearInterpolation(ISASI).md): gather DataBlocks, weight them, sum over h.

Forms (pyasc ``basic/vec_bilinear_interpolation.py``; the page's 函数原型)::

    bilinear_interpolation(dst, src0, src0_offset, src1, mask, h_repeat, repeat_mode, dst_blk_stride,
                           v_r_offset, v_repeat, shared_tmp_buffer)        # mask: int, or [low, high] words

What a call computes (功能说明, steps 1-4), for ``R = h_repeat * v_repeat`` iterations ``r``:

1. iteration ``r`` gathers 8 DataBlocks of ``src0``: block ``b`` starts ``src0_offset[8r + b]`` *bytes*
   after src0's start (the offsets are data, read and checked on every call);
2. each of its 128 halves is multiplied by ``src1[r]`` (``repeat_mode=False``) or block ``b`` by
   ``src1[8r + b]`` (``repeat_mode=True``), the product rounded to half;
3. vertical repeat ``v`` sums the products of its ``h_repeat`` iterations ``r = v * h_repeat + h`` in the
   order h = 0, 1, ... (each add rounded to half), then adds 0 (so -0 becomes +0), and writes the active
   lanes of the mask to ``dst``: lane ``16 b + k`` at element ``v * v_r_offset + b * 16 * dst_blk_stride + k``.

The order and the roundings are the vendor's lowering: on the A2/A3
(``impl/basic_api/dav_c220/kernel_operator_vec_bilinearinterpolation_impl.h``) Gatherb and Brcb into the
shared tmp buffer, one Mul of everything, an Add chain over h (``acc = p[h] + acc``, dst/src1 repeat
stride 0) and an Adds of 0 that writes dst; on the 950 (``dav_3510``) a register loop
``acc = 0; acc = p[h] + acc``; both give the same bits, IEEE round-to-nearest-even per step (with the
product's half saturation, CTRL).  Masked-off lanes of dst are left unchanged.  The mask is applied in
normal mode whatever the core's mode: the A2/A3 and 310P lowerings call ``SetMaskNorm`` first (npusim
assumes the same of the 950's).  No ``asc_*`` C API function maps to this page.

The shared tmp buffer: the bytes each product's lowering writes there are in the call's writes and are
left *undefined* (``Memory.mark_undefined``; their values are not modelled): on the A2/A3 the gathered
blocks and the broadcast src1 (``(R + src1.size // 8) * 256`` bytes), on the 310P the offsets plus
src0's address as int32 (``src0_offset.size * 4`` bytes, ``dav_m200``), on the 950 none.  The page's
minimum size (sharedTmpBuffer空间说明) is checked; the device does not check it, so under the hardware
policy a smaller buffer is a :class:`~npusim.errors.TmpBufferSizeWarning` and the call writes the bytes
its lowering needs (past the tensor, inside UB: :class:`~npusim.errors.UbPastTensorEndWarning`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES
from ...engine.registry import IEEE_RNE, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OverlapError, ParameterRangeError, TmpBufferSizeWarning, UnsupportedError
from ...memory import run_start
from ...overloads import Form, Param
from ...validate import is_list_like, require_bool, require_int, require_uint
from .. import pages
from ..addressing import BLOCK_BYTES, FULL_WORD, ActiveLanes
from ..chips import OpDtypes, unsupported_on
from ..core import Core
from ..footprint import OVERLAP_SOURCE, Footprint, check_clear_of_scratch, first_common, strided_footprint
from ..masking import MaskWords, normal_lanes_from_mask_arg
from ..operands import NEVER
from ..tensor import LocalTensor
from ..tolerance import tolerate
from ..types import MaskMode
from . import arith
from .common import RangesAfterRun, is_bool_arg, is_int_arg, is_tensor, mask_registers_left, require_ub_tensor
from .elementwise import DST, DST_STRIDE_SOURCE

__all__ = ["BILINEAR_DTYPES", "bilinear_interpolation"]

NAME = "bilinear_interpolation"
PAGE = pages.BILINEAR_INTERPOLATION
CONSTRAINTS = f"{PAGE} 约束说明"
#: T per product (产品支持情况, 数据类型: half only)
BILINEAR_DTYPES: dict[str, OpDtypes] = {name: OpDtypes(frozenset({"float16"})) for name in ("950", "A2", "A3", "310P")}
HALF = DTYPES["float16"]
LANES = 128  # halves per iteration: 8 DataBlocks of 16
BLOCKS = 8
MAX_REPEAT = 255
V_R_OFFSET_MAX = 65534  # [128, 65535)
#: the products whose lowering passes vROffset * 2 / 32 as Adds's uint8_t dstRepStride (dav_c220)
REPEAT_STRIDE_U8 = frozenset({"A2", "A3"})
LOWERING_SOURCE = f"{PAGE} 参数说明 (vROffset: the A2/A3 lowering in impl/basic_api/dav_c220 writes dst with an Adds " \
                  "whose uint8_t dstRepStride is vROffset * sizeof(half) / 32)"

ITERATIONS_SOURCE = f"{PAGE} 参数说明 (hRepeat, vRepeat: the A2/A3 lowering in impl/basic_api/dav_c220 issues " \
                    "Gatherb and Mul for uint8_t innerRepeatTimes = hRepeat * vRepeat)"


def _is_mask_words(value) -> bool:
    return is_list_like(value) and not isinstance(value, (str, bytes))


def _forms() -> tuple[Form, ...]:
    tail = (Param("h_repeat", is_int_arg), Param("repeat_mode", is_bool_arg), Param("dst_blk_stride", is_int_arg),
            Param("v_r_offset", is_int_arg), Param("v_repeat", is_int_arg), Param("shared_tmp_buffer", is_tensor))
    head = (DST, Param("src0", is_tensor), Param("src0_offset", is_tensor), Param("src1", is_tensor))
    return (Form("mask", (*head, Param("mask", is_int_arg), *tail)),
            Form("bitmask", (*head, Param("mask", _is_mask_words), *tail)))


# ----------------------------------------------------------------- planning
def _tmp_bytes(chip: str, iterations: int, src0: LocalTensor, src0_offset: LocalTensor,
               src1: LocalTensor) -> tuple[int, int]:
    """(the page's minimum sharedTmpBuffer bytes, the bytes the product's lowering writes there)."""
    if chip in ("A2", "A3"):
        return (src0.tile_size + src1.tile_size) * 32, (iterations + src1.tile_size // BLOCKS) * BLOCKS * BLOCK_BYTES
    if chip == "310P":
        return src0_offset.tile_size * 4, src0_offset.tile_size * 4
    return 0, 0


def _compile(core: Core, form: str, bound: dict) -> BilinearPlan:
    chip = core.chip
    support = BILINEAR_DTYPES.get(chip.name)
    if support is None:
        raise unsupported_on(chip, NAME, NAME, lambda c: c.name in BILINEAR_DTYPES, f"{PAGE} 产品支持情况")
    dst = require_ub_tensor(NAME, "dst", bound["dst"], core)
    src0 = require_ub_tensor(NAME, "src0", bound["src0"], core)
    src0_offset = require_ub_tensor(NAME, "src0_offset", bound["src0_offset"], core)
    src1 = require_ub_tensor(NAME, "src1", bound["src1"], core)
    tmp = require_ub_tensor(NAME, "shared_tmp_buffer", bound["shared_tmp_buffer"], core)
    for label, tensor, allowed in (("dst", dst, support.dtypes), ("src0", src0, support.dtypes),
                                   ("src1", src1, support.dtypes), ("src0_offset", src0_offset, {"uint32"}),
                                   ("shared_tmp_buffer", tmp, {"uint8"})):
        if tensor.dtype.name not in allowed:
            raise UnsupportedError(NAME, f"{label} dtype", tensor.dtype.name,
                                   f"{label} must be LocalTensor<{_c_type(allowed)}> on {chip.product}",
                                   ", ".join(sorted(allowed)), f"{PAGE} 函数原型, 数据类型")
    h = require_int(NAME, "h_repeat", bound["h_repeat"], 1, MAX_REPEAT, f"{PAGE} 约束说明",
                    rule="the horizontal repeat count")
    repeat_mode = require_bool(NAME, "repeat_mode", bound["repeat_mode"])
    blk = require_uint(NAME, "dst_blk_stride", bound["dst_blk_stride"], 16, f"{PAGE} 函数原型")
    if blk == 0:
        raise ParameterRangeError(NAME, "dst_blk_stride", 0, "a destination block stride of 0 is undefined "
                                  "behaviour (the lowering's Adds writes dst with it)", "at least 1", DST_STRIDE_SOURCE)
    v_r_offset = require_int(NAME, "v_r_offset", bound["v_r_offset"], 128, V_R_OFFSET_MAX, f"{PAGE} 约束说明",
                             rule="vROffset lies in [128, 65535)")
    if v_r_offset * HALF.itemsize % BLOCK_BYTES:
        raise ParameterRangeError(NAME, "v_r_offset", v_r_offset, "vROffset * sizeof(T) must be a multiple of 32 "
                                  "bytes", "multiples of 16 in [128, 65534]", f"{PAGE} 参数说明")
    if chip.name in REPEAT_STRIDE_U8 and v_r_offset * HALF.itemsize // BLOCK_BYTES > 255:
        raise ParameterRangeError(NAME, "v_r_offset", v_r_offset, f"on {chip.product} the lowering's uint8_t "
                                  "repeat stride vROffset / 16 would wrap past 255", "multiples of 16 in [128, 4080]",
                                  LOWERING_SOURCE)
    v = require_int(NAME, "v_repeat", bound["v_repeat"], 1, MAX_REPEAT, f"{PAGE} 约束说明",
                    rule="the vertical repeat count")
    iterations = h * v
    if chip.name in REPEAT_STRIDE_U8 and iterations > MAX_REPEAT:
        raise ParameterRangeError(NAME, "h_repeat * v_repeat", iterations, f"on {chip.product} the lowering counts "
                                  "the iterations in a uint8_t (innerRepeatTimes), which would wrap past 255",
                                  "at most 255", ITERATIONS_SOURCE)
    lanes, words = normal_lanes_from_mask_arg(core, NAME, bound["mask"], v, HALF.itemsize)
    used = iterations * (BLOCKS if repeat_mode else 1)
    broadcast = src1.tile_size // BLOCKS * BLOCKS if chip.name in ("A2", "A3") else src1.tile_size
    if used > broadcast:
        rule = ("with repeatMode true src1's valid length * 16 must be at least src0's gathered length"
                if repeat_mode else "each iteration takes one src1 value")
        grouping = " (the A2/A3 lowering broadcasts src1 in groups of 8: Brcb)" if broadcast < src1.tile_size else ""
        raise ParameterRangeError(NAME, "src1 size", src1.tile_size, f"{rule}: {iterations} iterations use {used} "
                                  f"src1 elements{grouping}", f"at least {used} usable elements", f"{PAGE} 约束说明")
    minimum, scratch = _tmp_bytes(chip.name, iterations, src0, src0_offset, src1)
    if tmp.nbytes < minimum:
        error = ParameterRangeError(NAME, "shared_tmp_buffer size", tmp.nbytes, f"the page asks for at least "
                                    f"{minimum} bytes on {chip.product}", f"at least {minimum} bytes",
                                    f"{PAGE} sharedTmpBuffer空间说明, 约束说明")
        tolerate(core.tolerance, error, TmpBufferSizeWarning,
                 f"the device does not check it; the lowering writes {scratch} bytes from the buffer's start")
    plan = BilinearPlan(
        repeat_mode, h, v, lanes, strided_footprint("dst", 0, lanes, 2, blk, v_r_offset // 16),
        Footprint("src0_offset", np.arange(iterations * BLOCKS, dtype=np.int64) * 4,
                  np.repeat(np.arange(iterations, dtype=np.int64), BLOCKS), 4),
        broadcast if chip.name in ("A2", "A3") else used, scratch, _registers_left(chip.name, form, words),
        ("CTRL",) if HALF.name in chip.float_saturation_dtypes else ())
    plan.placed(dst, src0, src0_offset, src1, tmp)
    return plan


def _c_type(allowed) -> str:
    return {"float16": "half", "uint32": "uint32_t", "uint8": "uint8_t"}[sorted(allowed)[0]]


def _registers_left(chip: str, form: str, words: MaskWords) -> tuple[MaskWords | None, MaskMode | None]:
    """What the lowering leaves in the mask registers: the A2/A3 end with an Adds that sets the mask (after
    SetMaskNorm); the 310P with ResetMask after set_mask_norm; the 950 sets the register only for mask[]."""
    if chip in ("A2", "A3"):
        return words, MaskMode.NORMAL
    if chip == "310P":
        return (FULL_WORD, FULL_WORD, 0, 0), MaskMode.NORMAL
    return (words if form == "bitmask" else None), None


# ---------------------------------------------------------- plan and binding
@dataclass(eq=False)
class BilinearPlan:
    """A checked call, relative to its tensors.

    Attributes:
        repeat_mode, h, v: the page's repeatMode, hRepeat, vRepeat.
        lanes: the mask's lanes in each of the v vertical repeats.
        dst: dst's active lanes, relative to dst.
        offsets: the src0_offset elements read (8 per iteration), relative to src0_offset.
        src1_read: the src1 elements the lowering reads (from the start).
        scratch_bytes: the bytes written from the tmp buffer's start (left undefined).
        left: the mask words and mode the lowering leaves (``None``: untouched).
        registers: the registers a call reads (CTRL: half saturation).
    """

    repeat_mode: bool
    h: int
    v: int
    lanes: ActiveLanes
    dst: Footprint
    offsets: Footprint
    src1_read: int
    scratch_bytes: int
    left: tuple[MaskWords | None, MaskMode | None]
    registers: tuple[str, ...]
    operands = ("dst", "src0", "src0_offset", "src1", "shared_tmp_buffer")

    def bind(self, core: Core, tensors: list[LocalTensor]) -> BilinearBinding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(NAME, label, tensor, core)
        return BilinearBinding(self, tensors, *self.placed(*tensors))

    def placed(self, dst: LocalTensor, src0: LocalTensor, src0_offset: LocalTensor, src1: LocalTensor,
               tmp: LocalTensor) -> tuple[Footprint, Footprint, Footprint]:
        """dst's lanes, the offsets and src1 at these tensors, checked: bounds; the vertical repeats' dst regions
        disjoint; src1, src0_offset and dst pairwise disjoint; none of them in the tmp buffer's scratch."""
        dst_fp, offsets = self.dst.moved(dst.addr), self.offsets.moved(src0_offset.addr)
        src1_fp = Footprint("src1", src1.addr + np.arange(self.src1_read, dtype=np.int64) * 2,
                            np.zeros(self.src1_read, dtype=np.int64), 2)
        for fp, tensor in ((dst_fp, dst), (offsets, src0_offset), (src1_fp, src1)):
            fp.check_in(NAME, tensor)
        if self.scratch_bytes:
            tmp.check_span(NAME, "shared_tmp_buffer", tmp.addr, tmp.addr + self.scratch_bytes)
        index, first = np.unique(dst_fp.elem_index, return_index=True)
        if index.size < dst_fp.elem_index.size:
            again = np.setdiff1d(np.arange(dst_fp.elem_index.size), first)[0]
            raise OverlapError(NAME, "dst byte address", int(dst_fp.addrs[again]), "the destination regions of two "
                               "vertical repeats must not overlap", "disjoint regions (v_r_offset at least the span of "
                               "one repeat's blocks)", f"{PAGE} 约束说明")
        _require_disjoint(offsets, src1_fp, f"{PAGE} 约束说明")
        for fp in (offsets, src1_fp):
            _require_disjoint(dst_fp, fp, OVERLAP_SOURCE)
        if self.scratch_bytes:
            check_clear_of_scratch(NAME, tmp.addr, self.scratch_bytes, [dst_fp, offsets, src1_fp],
                                   "shared_tmp_buffer", "that the lowering uses for its intermediate results",
                                   f"{PAGE} sharedTmpBuffer空间说明")
        return dst_fp, offsets, src1_fp


def plus_zero(results: np.ndarray) -> np.ndarray:
    """``x + (+0)`` in half for ``x`` a result of :func:`.arith.compute` (the lowering's final Adds of 0), in place.

    IEEE 754 (round to nearest): ``x + (+0)`` is ``x`` for every ``x`` but ``-0``, which gives ``+0``; a
    NaN stays the NaN it is, and arith's results are already canonical (its NaN, or saturated).  The
    identity is checked against arith for every half pattern (tests/ascend/test_bilinear.py).
    """
    results[results == NEGATIVE_ZERO] = 0
    return results


NEGATIVE_ZERO = np.uint16(0x8000)


def _require_disjoint(a: Footprint, b: Footprint, source: str) -> None:
    if a.empty or b.empty or a.hi <= b.lo or b.hi <= a.lo:
        return
    shared = first_common(a.byte_addrs()[0], b.byte_addrs()[0])
    if shared is not None:
        raise OverlapError(NAME, f"{a.name} byte address", shared, f"{a.name} and {b.name} must not overlap",
                           "disjoint byte ranges", source)


class BilinearBinding(RangesAfterRun):
    """A :class:`BilinearPlan` at one placement; each call reads and checks the offsets, then computes."""

    def __init__(self, plan: BilinearPlan, tensors: list[LocalTensor], dst: Footprint, offsets: Footprint,
                 src1: Footprint) -> None:
        self.plan = plan
        self.dst_tensor, self.src0, _, _, tmp = tensors
        self.dst, self.offsets, self.src1 = dst, offsets, src1
        self.scratch = (tmp.addr, tmp.addr + plan.scratch_bytes)
        self.registers_read = plan.registers
        self.registers_written = mask_registers_left(*plan.left)
        iterations = plan.h * plan.v
        lane_block = np.arange(LANES) // 16
        at = np.arange(iterations)[:, None] * BLOCKS + lane_block if plan.repeat_mode else \
            np.broadcast_to(np.arange(iterations)[:, None], (iterations, LANES))
        self.weight_index = src1.elem_index[at]  # the src1 element each product lane takes
        self.offset_index, self.dst_index = offsets.elem_index, dst.elem_index  # computed once per placement
        self.offset_run = slice(offsets.lo // 4, offsets.hi // 4)  # the offsets are consecutive uint32
        self.dst_run = run_start(self.dst_index)  # dst's active lanes one run of halves (written as a slice), or None
        self.in_block = np.arange(16, dtype=np.int64)
        self.starts = np.empty(0, np.int64)  # the byte address of each DataBlock the last call read
        # the shadow epochs in which the offsets and src1, and all of src0, were seen written (the scratch a
        # call leaves undefined moves the epoch only where it had written bytes: Memory.mark_undefined)
        self.sources_seen = self.src0_seen = NEVER
        # what no gathered block may share a byte with, and the page saying so
        self.clear_of_src0 = ((offsets, CONSTRAINTS), (src1, CONSTRAINTS), (dst, OVERLAP_SOURCE))

    def run(self, core: Core, values: tuple) -> None:
        """Read and check the offsets, gather, multiply, sum over h, then commit dst, the scratch, the mask."""
        plan, ub = self.plan, core.ub
        if self.sources_seen != ub.shadow_epoch:  # both contiguous
            if ub.fully_written or all(ub.written[fp.lo:fp.hi].all() for fp in (self.offsets, self.src1)):
                self.sources_seen = ub.shadow_epoch
            else:
                for fp in (self.offsets, self.src1):
                    ub.check_initialized_span(NAME, fp.name, fp.lo, fp.hi)
        starts, lo, hi = self._block_starts(ub.data.view(np.uint32)[self.offset_run].astype(np.int64))
        self._check_src0(ub, lo, hi, starts)
        raw = ub.data.view(np.uint16)
        # every start is 32-byte aligned (checked): the blocks are rows of UB seen as DataBlocks of 16 halves
        blocks = raw.reshape(-1, 16).take(starts >> 5, axis=0).reshape(plan.h * plan.v, LANES)
        saturate = core.float_saturation and HALF.name in core.chip.float_saturation_dtypes
        products = arith.compute("mul", HALF, [raw.take(self.weight_index), blocks], saturate)
        products = products.reshape(plan.v, plan.h, LANES)
        total = products[:, 0]
        for step in range(1, plan.h):
            total = arith.compute("add", HALF, [products[:, step], total], saturate)
        result = plus_zero(total)
        self._commit(core, plan.lanes.select(result), starts)

    def _commit(self, core: Core, lanes: np.ndarray, starts: np.ndarray) -> None:
        """dst's active lanes, the scratch left undefined, the mask registers the lowering leaves."""
        plan = self.plan
        if self.dst_run is not None:
            core.ub.store_run(self.dst_run, lanes)
        else:
            core.ub.scatter(self.dst_index, lanes)
        if plan.scratch_bytes:
            core.ub.mark_undefined(slice(*self.scratch))
        words, mode = plan.left
        if words is not None:
            core.set_mask_words(*words)
        if mode is not None:
            core.set_mask_mode(mode)
        self.starts = starts

    def _check_src0(self, ub, lo: int, hi: int, starts: np.ndarray) -> None:
        """Report a never-written src0 element (at once when the blocks, bytes ``[lo, hi)``, lie in src0 and all
        of it is written, which stays so until the shadow epoch moves)."""
        src0 = self.src0
        if src0.addr <= lo and hi <= src0.end:
            if self.src0_seen == ub.shadow_epoch:
                return
            if ub.fully_written or ub.written[src0.addr:src0.end].all():
                self.src0_seen = ub.shadow_epoch
                return
        ub.check_initialized(NAME, "src0", self._elements(starts), 2)

    def _elements(self, starts: np.ndarray) -> np.ndarray:
        """The half elements of the DataBlocks at byte addresses ``starts``, block by block."""
        return ((starts >> 1)[:, None] + self.in_block).reshape(-1)

    def _block_starts(self, offsets: np.ndarray) -> tuple[np.ndarray, int, int]:
        """The byte address of each gathered DataBlock, after the page's checks on the offsets (约束说明), and
        bytes ``[lo, hi)`` that hold every block."""
        src0, source = self.src0, CONSTRAINTS
        starts = src0.addr + offsets
        # one OR clears the usual call: src0's address and every offset multiples of 32 make every start one
        if (int(np.bitwise_or.reduce(offsets)) | src0.addr) % BLOCK_BYTES and \
                ((offsets % HALF.itemsize).any() or (starts % BLOCK_BYTES).any()):
            bad = np.flatnonzero(offsets % HALF.itemsize)
            if bad.size:
                k = int(bad[0])
                raise ParameterRangeError(NAME, f"src0_offset[{k}]", int(offsets[k]), "an offset must be aligned "
                                          "to the element width of src0 (2 bytes)", "multiples of 2", source)
            k = int(np.flatnonzero(starts % BLOCK_BYTES)[0])
            raise ParameterRangeError(NAME, f"src0_offset[{k}]", int(offsets[k]), "src0's address plus the offset "
                                      f"must be 32-byte aligned (src0 at {src0.addr:#x})", "multiples of 32", source)
        # [lo, hi) holds every block: from src0's address (no offset is negative: no minimum needed) to the end of
        # the highest block
        lo, hi = src0.addr, int(np.maximum.reduce(starts)) + BLOCK_BYTES
        if hi > src0.end:  # the error names the blocks' exact span, and the first offset of the highest block
            far = int(np.argmax(starts))
            src0.check_span(NAME, f"src0 (block of src0_offset[{far}])", int(np.minimum.reduce(starts)), hi)
        scratch_lo, scratch_hi = self.scratch
        if self.plan.scratch_bytes and lo < scratch_hi and scratch_lo < hi:
            blocks = Footprint("src0", starts, np.zeros(starts.size, dtype=np.int64), BLOCK_BYTES)
            check_clear_of_scratch(NAME, scratch_lo, self.plan.scratch_bytes, [blocks], "shared_tmp_buffer",
                                   "that the lowering uses for its intermediate results",
                                   f"{PAGE} sharedTmpBuffer空间说明")
        for fp, where in self.clear_of_src0:
            if fp.lo < hi and lo < fp.hi:  # only then can a block share a byte with it
                block_bytes = (starts[:, None] + np.arange(BLOCK_BYTES, dtype=np.int64)).reshape(-1)
                shared = first_common(block_bytes, fp.byte_addrs()[0])
                if shared is not None:
                    raise OverlapError(NAME, "src0 byte address", shared, f"src0 and {fp.name} must not overlap",
                                       "disjoint byte ranges", where)
        return starts, lo, hi

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        read = np.concatenate([self.offsets.byte_addrs()[0], self.src1.byte_addrs()[0],
                               (self._elements(self.starts)[:, None] * 2 + np.arange(2)).reshape(-1)])
        scratch = [("UB", *self.scratch)] if self.plan.scratch_bytes else []
        return (merge_ranges(ranges_of_addresses("UB", read)),
                merge_ranges([*ranges_of_addresses("UB", self.dst.byte_addrs()[0]), *scratch]))


# ------------------------------------------------------------------ the API
_SETUP = ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
          "x.write([(i % 61) * 0.25 - 7 for i in range(512)])\n"
          "off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, 32)\n"
          "off.write([(31 - i) * 32 for i in range(32)])\n"
          "w = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1152, 32)\n"
          "w.write([0.5 * i - 3 for i in range(32)])\n"
          "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1280, 1024)\n"
          "tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, 17408)\n")

bilinear_interpolation = register(Instruction(
    NAME, "ascend", "arith", "V", _forms(), _compile, f"{PAGE} 功能说明, 约束说明",
    support=lambda chip: BILINEAR_DTYPES.get(chip.name), exactness=IEEE_RNE,
    fast_context=lambda core: (),  # the plan reads no register: the mask applies in normal mode whatever the mode
    summary="dst_v = sum over h of src0[blocks at src0_offset] * src1 (products and sums rounded to half, h in order)",
    examples=(_SETUP + "asc.bilinear_interpolation(z, x, off, w, 128, 2, False, 1, 128, 2, tmp)",
              _SETUP + "asc.bilinear_interpolation(z, x, off, w, [0x0F0F0F0F0F0F0F0F, 0xFFFF], 4, True, 2, 512, 1, "
                       "tmp)",
              _SETUP + "asc.bilinear_interpolation(z, x, off, w, 77, 1, False, 1, 144, 4, tmp)"),
    doc=f"Gather + weight + sum over h ({PAGE}): each product and each add rounded to half in the vendor's order "
        "(h = 0, 1, ...); the src0 offsets are bytes, read and checked on every call; the tmp buffer's bytes the "
        "lowering writes are left undefined.",
))
