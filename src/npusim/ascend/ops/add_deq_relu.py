"""AddDeqRelu: ``dst = relu(deq(src0 + src1))``, int32 sources, a half destination (docs/semantics.md §5.22).

Forms (pyasc ``basic/vec_binary.py``; 复合计算/AddDeqRelu.md 函数原型)::

    add_deq_relu(dst, src0, src1, count)
    add_deq_relu(dst, src0, src1, mask, repeat_times, repeat_params, is_set_mask=True)  # BinaryRepeatParams

A lane: the int32 sum (wrapping), dequantised with SetDeqScale's half scale as Cast's int32 -> half is
(:mod:`.deq_conversion`, §5.21), then relu in half.  The geometry is a compound cast's (:mod:`.cast`): 64
lanes per repeat (int32's), dst addressed with its own element size and strides.

Products (``DequantSupport.add_deq_relu``): the 310P's API is one ``vadddeqrelu``; the 950's a vector function
that takes the max in float before its float -> half step, which gives the same bits (the conversion is
monotone, keeps +0 and NaN, and maps negatives to -0 or below); the A2/A3's a sequence of instructions
(dav_c220 ``AddDeqReluCompute``) in chunks of 2048 lanes (32 repeats) that leaves its intermediates behind:
the int32 sums, then half zeros, in the API scratch; the float products in src0's memory and the unrelued
half results in src1's, both laid out contiguously from each chunk's start.  :class:`StagedPlan` writes
those bytes too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...dtypes import DTYPES
from ...engine.registry import ACCURACY_MODEL, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OverlapError, UnsupportedError
from ...lazy import cached_attribute
from ...sources import semantics
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, check_clear_of_scratch, first_common
from ..operands import NEVER, element_runs
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, MaskMode
from .cast import CastBinding, CastPlan, _planned
from .common import is_int_arg, mask_fast_context, mask_plan_context, require_ub_tensor
from .deq_conversion import DEQ, half_of_products, half_saturates_on, relu_halves, require_half_scale, staged_product
from .elementwise import _binary_forms

__all__ = ["StagedPlan", "add_deq_relu"]

NAME = "add_deq_relu"
PAGE = pages.ADD_DEQ_RELU
RULES = semantics("5.22")
TYPES = ("int32", "float16")  # src0 and src1, dst (AddDeqRelu.md 表3)
CHUNK_REPEATS = 32  # TMP_UB_SIZE / sizeof(int32_t) / 64: the A2/A3 API's 8 KiB of sums per pass
CHUNK_LANES = 64 * CHUNK_REPEATS
SCRATCH_BYTES = 4 * CHUNK_LANES
_UINT32 = DTYPES["int32"].raw


def _lowering(chip) -> str | None:
    return chip.dequant.add_deq_relu if chip.dequant is not None else None


def _support(chip):
    return frozenset({TYPES}) if _lowering(chip) else None


def _compile(core: Core, form: str, bound: dict) -> CastPlan:
    """Every rule of AddDeqRelu.md, then the plan: a compound cast's, staged on the A2/A3."""
    lowering = _lowering(core.chip)
    if lowering is None:
        raise unsupported_on(core.chip, NAME, "AddDeqRelu", lambda c: _lowering(c) is not None,
                             f"{PAGE} 产品支持情况; {RULES}")
    tensors = {label: require_ub_tensor(NAME, label, bound[label], core) for label in ("dst", "src0", "src1")}
    types = tuple(tensors[label].dtype.name for label in ("src0", "src1", "dst"))
    if types != (TYPES[0], TYPES[0], TYPES[1]):
        raise UnsupportedError(NAME, "src0/src1/dst dtypes", " / ".join(types), "AddDeqRelu adds int32 sources "
                               "into a half destination", "int32 / int32 / float16", f"{PAGE} 数据类型")
    dst, src0, src1 = tensors.values()
    plan = _planned(NAME, core, form, bound, DEQ, dst, {"src0": src0, "src1": src1}, PAGE, BinaryRepeatParams,
                    operation="add", post="relu")
    if lowering != "staged" or plan.geometry.lanes is None:
        return plan
    if form == "mask":  # after the general checks: the arguments are valid
        _require_staged_mask_form(core, bound)
    return StagedPlan.staged(plan, form == "count", [dst, src0, src1], core.chip.vec_local_bytes)


def _require_staged_mask_form(core: Core, bound: dict) -> None:
    """The A2/A3 mask forms npusim models: ``is_set_mask`` True, normal mode, a contiguous mask of at most 64.

    Otherwise the API's relu step runs under a half mask of more than 64 lanes (``isSetMask = false``
    leaves it the all-ones mask its Duplicate step sets; a contiguous mask above 64 sets as many half lanes),
    or its Duplicate step ends counter mode, and it reads half lanes it never computed (§5.22)."""
    why = None
    if bound["is_set_mask"] is False:
        why = ("is_set_mask", "False", "the relu step then runs under the all-ones mask the API's Duplicate step "
               "leaves, over 128 half lanes of which 64 were never computed")
    elif core.mask_mode == MaskMode.COUNTER:
        why = ("mask mode", "counter", "the API's Duplicate step ends counter mode in the middle of the call")
    elif is_int_arg(bound["mask"]) and int(bound["mask"]) > 64:
        why = ("mask", str(int(bound["mask"])), "a contiguous mask above 64 enables as many half lanes in the "
               "relu step, past the 64 computed per repeat")
    if why is not None:
        operand, value, rule = why
        raise UnsupportedError(NAME, operand, value, f"not modelled on the A2/A3: {rule}",
                               "is_set_mask=True, normal mode, mask at most 64", f"{PAGE} 函数原型; {RULES}")


# ---------------------------------------------------------------------- the A2/A3 lowering
@dataclass(eq=False)
class StagedPlan(CastPlan):
    """A :class:`CastPlan` plus what the A2/A3 API leaves behind, relative to src0, src1 and the scratch.

    Attributes:
        products: src0's float32 intermediates (one per active lane, issue order) relative to src0.
        halves: src1's half intermediates relative to src1.
        scratch_at: the API scratch's UB offset (``TMP_UB_OFFSET``, §1.7).
        scratch_bytes: the scratch bytes the call writes, relative to ``scratch_at``, ascending.
        scratch_source: for each, the byte of the sums (as bytes, issue order) it ends holding, or -1: zero.
        count_form: the count form, whose passes write only bytes they read themselves (contiguous data).
    """

    products: Footprint | None = None
    halves: Footprint | None = None
    scratch_at: int = 0
    scratch_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    scratch_source: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    count_form: bool = False

    @classmethod
    def staged(cls, plan: CastPlan, count_form: bool, tensors: list[LocalTensor], scratch_at: int) -> StagedPlan:
        """The chunks of dav_c220 ``AddDeqReluImpl``: lane ``(r, k)`` is lane ``p = (r % 32) * 64 + k`` of chunk
        ``r // 32``, whose src0 / src1 pointers advance by 32 repeats' strides (8 blocks in the count form)."""
        geometry = plan.geometry
        lanes = geometry.lanes
        grid = np.arange(lanes.repeats * lanes.lanes, dtype=np.int64).reshape(lanes.repeats, lanes.lanes)
        repeat = lanes.select(grid // lanes.lanes)
        chunk = repeat // CHUNK_REPEATS
        position = lanes.select(grid % CHUNK_LANES)
        (_, s0_rep), (_, s1_rep) = geometry.strides[1], geometry.strides[2]
        products = Footprint("src0 (float intermediates)", chunk * CHUNK_REPEATS * 32 * s0_rep + 4 * position,
                             repeat, 4)
        halves = Footprint("src1 (half intermediates)", chunk * CHUNK_REPEATS * 32 * s1_rep + 2 * position, repeat, 2)
        # the scratch, pass by pass: the sums at 4p, then Duplicate's half zeros over the pass's calcSize lanes
        owner = np.full(SCRATCH_BYTES, -2, dtype=np.int64)
        byte = np.arange(4, dtype=np.int64)
        zeroed = min(lanes.repeats * lanes.lanes, CHUNK_LANES)  # the mask forms' calcSize, kept for their tail pass
        for index in range(-(-lanes.repeats // CHUNK_REPEATS)):  # every pass runs, with or without active lanes
            picked = np.flatnonzero(chunk == index)
            owner[(4 * position[picked])[:, None] + byte] = 4 * picked[:, None] + byte
            owner[: 2 * (picked.size if count_form else zeroed)] = -1
        written = np.flatnonzero(owner != -2)
        staged = cls(geometry, plan.footprints, plan.operands, products, halves, scratch_at, written, owner[written],
                     count_form)
        staged.placed(tensors)
        return staged

    def placed(self, tensors: list[LocalTensor]) -> list[Footprint]:
        """The compound cast's checks, then the intermediates': inside src0 / src1, apart from each other, dst
        and the scratch, and written by no pass before a later pass reads them (§5.22)."""
        footprints = super().placed(tensors)
        if self.products is None:
            return footprints
        products, halves = self.products.moved(tensors[1].addr), self.halves.moved(tensors[2].addr)
        products.check_in(NAME, tensors[1])
        halves.check_in(NAME, tensors[2])
        dst, src0, src1 = footprints
        for first, second in ((products, halves), (dst, products), (dst, halves)):
            _require_apart(first, second)
        check_clear_of_scratch(NAME, self.scratch_at, SCRATCH_BYTES, [dst, src0, src1, products, halves],
                               "API scratch", "that this call overwrites (TMP_UB_OFFSET)", f"{PAGE} 约束说明; {RULES}")
        for written in () if self.count_form else (products, halves):
            for read in (src0, src1):
                _require_no_later_read(written, read)
        return footprints + [products, halves]

    def bind(self, core: Core, tensors: list[LocalTensor]) -> CastBinding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(NAME, label, tensor, core)
        return StagedBinding(self, core, self.placed(tensors))


def _require_apart(first: Footprint, second: Footprint) -> None:
    byte_a, byte_b = first.byte_addrs()[0], second.byte_addrs()[0]
    common = first_common(byte_a, byte_b)
    if common is not None:
        raise OverlapError(NAME, second.name, f"byte {common:#x}", f"it is also a byte of {first.name}, which the "
                           "A2/A3 API writes in another step; npusim does not model the aliasing",
                           "disjoint operands", f"{PAGE} 约束说明; {RULES}")


def _require_no_later_read(written: Footprint, read: Footprint) -> None:
    """No byte an earlier pass writes is read by a later pass (passes are 32 repeats)."""
    w_bytes, w_repeat = written.byte_addrs()
    r_bytes, r_repeat = read.byte_addrs()
    if w_repeat.size == 0 or int(w_repeat[-1]) < CHUNK_REPEATS:
        return  # nothing written, or one pass
    order = np.argsort(w_bytes, kind="stable")
    w_sorted = w_bytes[order]
    spot = np.searchsorted(w_sorted, r_bytes)
    hit = (spot < w_sorted.size) & (w_sorted[np.minimum(spot, w_sorted.size - 1)] == r_bytes)
    if not hit.any():
        return
    first_pass = np.minimum.reduceat(w_repeat[order] // CHUNK_REPEATS, np.r_[0, np.flatnonzero(np.diff(w_sorted)) + 1])
    unique = np.unique(w_sorted)
    earlier = first_pass[np.searchsorted(unique, r_bytes[hit])] < r_repeat[hit] // CHUNK_REPEATS
    if earlier.any():
        at = int(r_bytes[hit][np.flatnonzero(earlier)[0]])
        raise OverlapError(NAME, read.name, f"byte {at:#x}", f"an earlier 32-repeat pass of the A2/A3 API writes it "
                           f"({written.name}) before a later pass reads it; npusim does not model that",
                           "strides whose passes keep apart", f"{PAGE} 约束说明; {RULES}")


class StagedBinding(CastBinding):
    """A :class:`StagedPlan` at one placement: dst, then the intermediates and the scratch.

    The intermediates are written as a few slices where their elements form a few ascending runs (the count
    form and dense strides: one run per pass, or one for all), else by index; likewise the scratch, whose
    bytes are runs of zeros and runs of the sums' bytes."""

    def __init__(self, plan: StagedPlan, core: Core, footprints: list[Footprint]) -> None:
        super().__init__(plan, core, footprints[:3])
        self.products, self.halves = footprints[3:]
        self.product_index, self.half_index = self.products.elem_index, self.halves.elem_index
        self.scratch = plan.scratch_at + plan.scratch_bytes
        self.scratch_source = plan.scratch_source
        self.product_runs = element_runs(self.product_index)
        self.half_runs = element_runs(self.half_index)
        self.scratch_pieces = _scratch_pieces(self.scratch, self.scratch_source)
        self.seen_written = NEVER  # the shadow epoch in which the intermediates and scratch were last marked
        # what saturates while CTRL[48] is set (the switch is read per call)
        self.float_saturates = "float32" in core.chip.float_saturation_dtypes
        self.half_saturates = half_saturates_on(core.chip)

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        addresses = np.concatenate([fp.byte_addrs()[0] for fp in (self.footprints[0], self.products, self.halves)]
                                   + [self.scratch])
        return merge_ranges(ranges_of_addresses("UB", addresses))

    def run(self, core: Core, values: tuple) -> None:
        """The API's steps on the lanes: sums, float products, half results, relu; commit last."""
        ub = core.ub
        dst, *sources = self.accesses
        for src in sources:
            if src.seen_written != ub.shadow_epoch:
                src.check_initialized(ub, NAME)
        # Add's int32 rule (arith): modulo 2**32, as the raw uint32 lanes add; read before anything is written
        sums = np.add(sources[0].read(ub, _UINT32), sources[1].read(ub, _UINT32))
        scale = require_half_scale(core, NAME)
        saturating = core.float_saturation
        products = staged_product(sums, scale, saturating and self.float_saturates)
        halves = half_of_products(products.view(np.float32), scale, saturating and self.half_saturates)
        result = relu_halves(halves, scale)  # vmax(0, half): IEEE maximum with +0
        self._commit_staged(core, dst, result, products, halves, sums.view(np.uint8))

    def _commit_staged(self, core: Core, dst, result, products, halves, sum_bytes) -> None:
        ub = core.ub
        dst.write(ub, result)
        marked = self.seen_written == ub.shadow_epoch  # the intermediates and scratch were marked written
        for runs, index, lanes in ((self.product_runs, self.product_index, products),
                                   (self.half_runs, self.half_index, halves)):
            if runs is None:
                ub.scatter(index, lanes)
            else:
                runs.store(ub, lanes, marked)
        if self.scratch_pieces is None:
            ub.scatter(self.scratch, self._scratch_bytes(sum_bytes))
        else:
            data = ub.data
            for begin, end, source in self.scratch_pieces:
                data[begin:end] = 0 if source < 0 else sum_bytes[source:source + end - begin]
                if not marked:
                    ub.mark_written(begin, end)
        self.seen_written = ub.shadow_epoch
        geometry = self.plan.geometry
        if geometry.mask_words_after is not None:
            core.set_mask_words(*geometry.mask_words_after)
        if geometry.mask_mode_after is not None:
            core.set_mask_mode(geometry.mask_mode_after)

    def _scratch_bytes(self, sum_bytes: np.ndarray) -> np.ndarray:
        """The scratch bytes the call leaves, in ``self.scratch``'s order (each a sum's byte, or a zero)."""
        if not sum_bytes.size:  # no active lane: only the passes' zeros
            return np.zeros(self.scratch_source.size, np.uint8)
        return np.where(self.scratch_source >= 0, sum_bytes[np.maximum(self.scratch_source, 0)], 0).astype(np.uint8)


MOST_PIECES = 16  # beyond this many runs a write by index is as quick


def _scratch_pieces(addresses: np.ndarray, source: np.ndarray) -> tuple[tuple[int, int, int], ...] | None:
    """The scratch as ``(begin, end, first sum byte or -1)`` runs of consecutive bytes that are all zeros or
    consecutive bytes of the sums; ``None`` when there are more than :data:`MOST_PIECES`."""
    if not addresses.size:
        return ()
    zero = source < 0
    same = (np.diff(addresses) == 1) & (zero[1:] == zero[:-1]) & (zero[1:] | (np.diff(source) == 1))
    breaks = np.flatnonzero(~same) + 1
    if breaks.size >= MOST_PIECES:
        return None
    starts, stops = np.r_[0, breaks], np.r_[breaks, addresses.size]
    return tuple((int(addresses[a]), int(addresses[a]) + int(b - a), -1 if zero[a] else int(source[a]))
                 for a, b in zip(starts, stops, strict=True))


# ---------------------------------------------------------------------- registration
_SETUP = ("asc.set_deq_scale(0.1)\n"
          "x = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 512)\n"
          "y = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 4096, 512)\n"
          "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 8192, 512)\n")
EXAMPLES = (
    _SETUP + "asc.add_deq_relu(z, x, y, 300)",
    _SETUP + "asc.add_deq_relu(z, x, y, 64, 4, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8))",
    _SETUP + "asc.add_deq_relu(z, x, y, [0xFF00FF, 0], 2, asc.BinaryRepeatParams(1, 2, 1, 4, 16, 8))",
)
_SUMMARY = "dst = relu(half((src0 + src1) * scale)) per lane, int32 -> half through set_deq_scale's half scale"

add_deq_relu = register(Instruction(
    NAME, "ascend", "compound", "V", _binary_forms(), _compile, f"{PAGE} 功能说明; {RULES}", support=_support,
    exactness=ACCURACY_MODEL, summary=_SUMMARY, examples=EXAMPLES, plan_context=mask_plan_context,
    fast_context=mask_fast_context,
    doc=f"``{_SUMMARY}`` (C++ ``AddDeqRelu``; {PAGE}).\n\nThe int32 sum wraps; the dequantisation is Cast's "
        "int32 -> half accuracy model (docs/numerics.md, \"Ascend: dequantisation\"); relu maps -0 to +0 and keeps "
        "NaN.  A repeat has 64 lanes (int32's).  On the A2/A3 the call also leaves the API's intermediates in "
        "src0 (float products), src1 (unrelued halves) and the API scratch (docs/semantics.md §5.22).",
))
