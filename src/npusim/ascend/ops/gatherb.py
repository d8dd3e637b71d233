"""Gatherb (离散与聚合/Gatherb(ISASI).md): whole DataBlocks gathered by byte offsets read from UB.

The page's pseudo-code: repeat ``r`` (of ``repeat_time``) moves 8 DataBlocks; block ``j`` reads the
32 bytes at ``src + offset[r * 8 + j]`` and writes them at ``dst + r * dst_rep_stride * 32 +
j * dst_blk_stride * 32`` (``dst_blk_stride`` 0 counts as 1 on the A2/A3, 约束说明; on the 950 and
the 310B the vendor's VF lowering stores with the stride as given, dav_3510 ``GatherbImpl``, so 0
puts every block of a repeat in one place, which npusim rejects as blocks written twice).  Bytes
move unchanged: bit-exact.

Rules (约束说明): dst, src and offset 32-byte aligned; src and dst not the same memory (npusim: no
byte both read and written, nor an offset byte overwritten); each offset a multiple of sizeof(T)
and of 32 (the block it names starts aligned), inside UB (and src's tensor, under the tolerance
policy); ``repeat_time`` in [0, 255], 0 a NOP on the A2/A3 (on the 950 not guaranteed: rejected).
The offsets are data: each call reads and checks them before moving anything, and its access
records are known after it ran.  The A2/A3 lowering (dav_c220 ``GatherbImpl``) resets the vector
mask to all ones first: the call leaves MASK written there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OverlapError, ParameterRangeError
from ...overloads import Form, Param
from ...validate import require_int
from .. import pages
from ..addressing import BLOCK_BYTES, BLOCKS_PER_REPEAT
from ..chips import unsupported_on
from ..core import FULL_WORD, Core
from ..footprint import first_common
from ..operands import NEVER
from ..tensor import LocalTensor
from ..types import GatherRepeatParams
from .common import RangesAfterRun, is_int_arg, is_tensor, require_dtype, require_repeat_params, require_ub_tensor

__all__ = ["GatherbBinding", "GatherbPlan", "gatherb", "gatherb_plan"]

PAGE = pages.GATHERB
NAME = "gatherb"
MAX_REPEAT = 255
BLOCK = np.arange(BLOCK_BYTES, dtype=np.int64)


def _compile(core: Core, form: str, values: dict) -> GatherbPlan:
    if not core.chip.gatherb_dtypes:
        raise unsupported_on(core.chip, NAME, "Gatherb", lambda c: bool(c.gatherb_dtypes), f"{PAGE} 产品支持情况")
    dst = require_ub_tensor(NAME, "dst", values["dst"], core)
    src = require_ub_tensor(NAME, "src0", values["src0"], core)
    require_dtype(NAME, "dst", dst.dtype, core.chip.gatherb_dtypes, f"not supported on {core.chip.product}",
                  f"{PAGE} 数据类型")
    if src.dtype != dst.dtype:
        raise ParameterRangeError(NAME, "src0 dtype", src.dtype.name, "src0 must have dst's dtype", dst.dtype.name,
                                  f"{PAGE} 函数原型")
    repeats = require_int(NAME, "repeat_times", values["repeat_times"], 0, MAX_REPEAT, f"{PAGE} 参数说明")
    blk, rep = require_repeat_params(NAME, values["repeat_params"], GatherRepeatParams)
    native = core.chip.vector_lowering == "native"
    if repeats == 0 and not core.chip.zero_repeat_nop:
        raise ParameterRangeError(NAME, "repeat_times", 0, f"on {core.chip.product} a repeat_times of 0 is not "
                                  "guaranteed to be a NOP", "[1, 255]", f"{PAGE} 约束说明")
    return gatherb_plan(NAME, core, dst, src, values["offset"], repeats, blk, rep,
                        (FULL_WORD, FULL_WORD) if native else None, "src0", "offset", one_for_zero=native)


def gatherb_plan(name: str, core: Core, dst: LocalTensor, src: LocalTensor, offset, repeats: int, blk: int,
                 rep: int, mask_after, src_label: str, offset_label: str, *, one_for_zero: bool) -> GatherbPlan:
    """The checked plan of a Gatherb (``name``: the API called) placed at these tensors: the
    destination blocks apart (``one_for_zero``: a block stride of 0 counts as 1), the offsets uint32."""
    offset = require_ub_tensor(name, offset_label, offset, core)
    if offset.dtype.name != "uint32":
        raise ParameterRangeError(name, f"{offset_label} dtype", offset.dtype.name, "the offsets are uint32_t",
                                  "uint32", f"{PAGE} 函数原型")
    if blk == 0 and one_for_zero:
        blk = 1  # 约束说明: dstBlkStride 0 counts as 1
    starts = (np.arange(repeats, dtype=np.int64)[:, None] * rep + np.arange(BLOCKS_PER_REPEAT) * blk) * BLOCK_BYTES
    starts = starts.reshape(-1)
    if np.unique(starts).size != starts.size:
        raise OverlapError(name, "repeat_params", f"dst_blk_stride={blk}, dst_rep_stride={rep}", "two destination "
                           "DataBlocks at one address (the result would depend on the issue order)",
                           "strides that keep the blocks apart", f"{PAGE} 参数说明 (表3)")
    plan = GatherbPlan(dst.dtype, starts, repeats * BLOCKS_PER_REPEAT, mask_after, name,
                       ("dst", src_label, offset_label))
    plan.bind(core, [dst, src, offset])
    return plan


@dataclass(eq=False)
class GatherbPlan:
    """A checked Gatherb, relative to its tensors: the destination block starts, the offsets read."""

    dtype: DType
    dst_starts: np.ndarray  # byte offsets from dst of every block, in issue order
    count: int  # offsets read (8 per repeat)
    mask_after: tuple[int, int] | None  # the mask words the lowering leaves (A2/A3: ResetMask)
    name: str = NAME
    operands: tuple[str, ...] = ("dst", "src0", "offset")

    def bind(self, core: Core, tensors: list[LocalTensor]) -> GatherbBinding:
        dst, src, offset = (require_ub_tensor(self.name, label, t, core) for label, t in
                            zip(self.operands, tensors, strict=True))
        if self.count:
            dst.check_span(self.name, "dst", dst.addr, dst.addr + int(self.dst_starts.max()) + BLOCK_BYTES)
            offset.check_span(self.name, self.operands[2], offset.addr, offset.addr + 4 * self.count)
            written = (dst.addr + self.dst_starts[:, None] + BLOCK).reshape(-1)
            shared = first_common(written, np.arange(offset.addr, offset.addr + 4 * self.count, dtype=np.int64))
            if shared is not None:
                raise OverlapError(self.name, "dst byte address", shared, "dst must not overlap the offsets",
                                   "disjoint byte ranges", f"{PAGE} 约束说明")
        return GatherbBinding(self, dst, src, offset)


class GatherbBinding(RangesAfterRun):
    """A :class:`GatherbPlan` at one placement: each call reads and checks the offsets, then moves."""

    def __init__(self, plan: GatherbPlan, dst: LocalTensor, src: LocalTensor, offset: LocalTensor) -> None:
        self.plan, self.dst, self.src, self.offset = plan, dst, src, offset
        self.written = (dst.addr + plan.dst_starts[:, None] + BLOCK).reshape(-1)
        self.offset_index = offset.addr // 4 + np.arange(plan.count, dtype=np.int64)
        self.registers_read = ()
        self.registers_written = ("MASK",) if plan.mask_after is not None else ()
        self.last_read = np.empty(0, np.int64)
        self.offsets_seen = NEVER

    def run(self, core: Core, values: tuple) -> None:
        plan, ub = self.plan, core.ub
        if not plan.count:
            self.last_read = np.empty(0, np.int64)
            return
        if self.offsets_seen != ub.shadow_epoch:
            ub.check_initialized(plan.name, plan.operands[2], self.offset_index, 4)
            self.offsets_seen = ub.shadow_epoch
        offsets = ub.data.view(np.uint32)[self.offset_index].astype(np.int64)
        bad = np.flatnonzero(offsets % BLOCK_BYTES)
        if bad.size:
            k = int(bad[0])
            raise ParameterRangeError(plan.name, f"{plan.operands[2]}[{k}]", int(offsets[k]), "src + offset must be "
                                      f"32-byte aligned (and a multiple of sizeof(T) = {plan.dtype.itemsize})",
                                      "multiples of 32", f"{PAGE} 约束说明")
        starts = self.src.addr + offsets
        far = np.flatnonzero(starts + BLOCK_BYTES > self.src.end)
        if far.size:  # past src (the tolerance policy) or past UB (always an error)
            k = int(far[0])
            self.src.check_span(plan.name, f"{plan.operands[1]} block of {plan.operands[2]}[{k}]", int(starts[k]),
                                int(starts[k]) + BLOCK_BYTES)
        read = (starts[:, None] + BLOCK).reshape(-1)
        shared = first_common(self.written, read)
        if shared is not None:
            raise OverlapError(plan.name, "dst byte address", shared, "src and dst must not share memory", "disjoint "
                               "byte ranges", f"{PAGE} 约束说明")
        ub.check_initialized(plan.name, plan.operands[1], read, 1)
        moved = ub.data[read]
        ub.scatter(self.written, moved)
        if plan.mask_after is not None:
            core.set_mask_words(*plan.mask_after)
        self.last_read = read

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        if not self.plan.count:
            return (), ()
        offsets = np.arange(self.offset.addr, self.offset.addr + 4 * self.plan.count, dtype=np.int64)
        reads = merge_ranges((*ranges_of_addresses("UB", self.last_read), *ranges_of_addresses("UB", offsets)))
        return reads, merge_ranges(ranges_of_addresses("UB", self.written))


def _is_params(value) -> bool:
    return isinstance(value, GatherRepeatParams)


FORMS = (Form("", (Param("dst", is_tensor), Param("src0", is_tensor), Param("offset", is_tensor),
                   Param("repeat_times", is_int_arg), Param("repeat_params", _is_params))),)

_EXAMPLE = ("x = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 0, 128)\n"
            "x.write(list(range(128)))\n"
            "off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 8)\n"
            "off.write([224, 192, 160, 128, 96, 64, 32, 0])\n"
            "z = asc.LocalTensor(asc.uint16, asc.TPosition.VECOUT, 1024, 256)\n")

gatherb = register(Instruction(
    NAME, "ascend", "gather_scatter", "V", FORMS, _compile, f"{PAGE} 功能说明, 约束说明",
    support=lambda chip: chip.gatherb_dtypes or None, exactness=BIT_EXACT,
    summary="Gather whole 32-byte DataBlocks: dst block r*8+j = src0 bytes at offset[r*8+j] (Gatherb)",
    examples=(_EXAMPLE + "asc.gatherb(z, x, off, 1, asc.GatherRepeatParams(1, 8))",
              _EXAMPLE + "asc.gatherb(z, x, off, 1, asc.GatherRepeatParams(2, 8))"),
    fast_context=lambda core: (),
    doc="``asc.gatherb(dst, src0, offset, repeat_times, repeat_params)`` (Gatherb(ISASI).md): offsets are uint32 "
        "bytes from src0, read and checked on every call.",
))
