"""``Select`` (``vsel``): per lane, take src0 where the selection bit is 1, else src1.

Semantics (Select.md; docs/semantics.md §2):

* ``tmp = bit ? src0 : src1`` (mode 1: src1 is a scalar); active lanes get ``dst = tmp``,
  masked-off lanes keep their old dst value.
* Mode 0 (``VSEL_CMPMASK_SPR``): ``bit(r, j)`` = CMPMASK bit ``j``, the same in every repeat.
  The tensor forms first load the first 16 bytes of selMask into CMPMASK.
* Modes 1 and 2: ``bit(r, j)`` = selMask bit ``r * E + j`` (LSB first): the bit stream is
  consumed contiguously, ``E / 8`` bytes per repeat, whatever the strides or the mask.
* dst, src0 and src1 follow the repeat/DataBlock address formula of docs/semantics.md §1.1.

Side effects of the native (``vsel``) lowering on A2/A3 and 310P (docs/semantics.md §2.3): modes 1
and 2 write 32 scalar copies or 32 copies of the 32-bit selMask address to the UB scratch
at ``TMP_UB_OFFSET`` and load CMPMASK from there; mode 0 loads CMPMASK from selMask; mask
forms leave their mask in the vector mask register; count forms end in normal mode with
the register all ones.  Vector-function lowerings (950, 310B, Kirin) leave CMPMASK alone;
on the 950 and Kirin the bitwise-mask forms leave ``mask[]`` in the vector mask register
(``SelectSupport.bitwise_mask_sets_register``), the other forms leave it alone.  The whole
call is planned and checked before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from operator import itemgetter

import numpy as np

from ...dtypes import DType
from ...errors import ParameterRangeError, UnsupportedError
from ...overloads import Form, Param, bind_values
from ...sources import semantics
from ...validate import is_integer, require_bool
from .. import pages
from ..addressing import BLOCKS_PER_REPEAT, ActiveLanes, elems_per_block
from ..chips import SEL_MASK_DTYPES, SelectSupport, unsupported_on
from ..core import CMPMASK_BYTES, FULL_WORD, Core, current_core
from ..footprint import Footprint, check_clear_of_scratch, check_overlap, strided_footprint
from ..masking import MaskWords, lanes_from_count, lanes_from_mask_arg, lanes_from_register
from ..operands import ByteSpan, OperandAccess, StridedOperand, choose_layout
from ..plans import (
    Shortcut,
    call_key,
    find_plan,
    find_shortcut,
    keep_plan,
    keep_shortcut,
    per_call_flags,
    require_usable,
    shortcut_key,
)
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, MaskMode, SelMode
from .common import (
    is_scalar,
    is_tensor,
    require_dtype,
    require_repeat_params,
    require_ub_tensor,
    scalar_bits_cached,
)

__all__ = ["SELECT_FORMS", "SelectCall", "SelectPlan", "plan_vsel_cmpmask", "run_select", "select"]

DEFAULT_STRIDES = (1, 1, 1, 8, 8, 8)
SCRATCH_COPIES = 32  # Duplicate of ONE_BLK_SIZE elements into the scratch (docs/semantics.md §2.3)
SCALAR_LANES_UP_TO = 1024  # lanes: up to here a mode-1 scalar is repeated into an array (SelectPlan._scalar_lanes)


_is_int = is_integer

AVAILABILITY_SOURCE = f"{pages.SELECT} 产品支持情况; {semantics('2.4')}"
DTYPE_SOURCE = f"{pages.SELECT} 数据类型; {semantics('2.4')}"
MODE_SOURCE = f"{pages.SELECT} 功能说明; {semantics('2.4')}"  # "Atlas 训练系列产品，仅支持模式0"
PARAMETER_SOURCE = f"{pages.SELECT} 参数说明; {semantics('2.2')}"
DST_STRIDE_SOURCE = f"{pages.HIGH_DIM} 地址间隔配置; {semantics('1.2')}"


def _is_mask(v) -> bool:
    return is_integer(v) or (isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, (str, bytes)))


def _is_params(v) -> bool:
    return isinstance(v, BinaryRepeatParams)


def _any(_v) -> bool:
    return True


SELECT_FORMS = (
    Form("count", (
        Param("sel_mask", is_tensor), Param("src0", is_tensor),
        Param("src1", lambda v: is_tensor(v) or is_scalar(v)), Param("sel_mode", _is_int), Param("count", _is_int),
    )),
    Form("mask", (
        Param("sel_mask", is_tensor), Param("src0", is_tensor),
        Param("src1", lambda v: is_tensor(v) or is_scalar(v)), Param("sel_mode", _is_int),
        Param("mask", _is_mask), Param("repeat_times", _is_int), Param("repeat_params", _is_params),
        Param("is_set_mask", _any, True),
    )),
    Form("no_mask_scalar", (
        Param("sel_mask", is_tensor), Param("src0", is_tensor), Param("repeat_times", _is_int),
        Param("repeat_params", _is_params),
    )),
    Form("no_mask", (
        Param("src0", is_tensor), Param("src1", is_tensor), Param("repeat_times", _is_int),
        Param("repeat_params", _is_params), Param("sel_mode", _is_int),
    )),
)


@dataclass
class SelectCall:
    """A resolved Select call: operands, lanes and where bits, scalar and register effects come from.

    Everything here depends only on the call's parameters and register configuration,
    never on memory contents, so a checked call can be cached as a :class:`SelectPlan`.
    """

    instruction: str
    core: Core
    dtype: DType
    mode: int
    dst: LocalTensor
    src0: LocalTensor
    src1: LocalTensor | None
    lanes: ActiveLanes
    strides: tuple[int, ...]
    sel: LocalTensor | None = None
    bits_from: str = "stream"  # "stream" (selMask r*E+j), "selmask_head" (selMask j), "cmpmask" (CMPMASK j)
    sel_addr: int | None = None
    scalar_from: str | None = None  # "argument" or "cmpmask" (mode 1)
    sel_addr_from_cmpmask: bool = False  # no-mask mode 2: the selMask address was read from CMPMASK
    cmpmask_after: str | None = None  # "selmask" (16 B of selMask) or "scratch" (first 16 B of the copies)
    scratch_kind: str | None = None  # "scalar", "address" or "cmpmask" (what the copies hold)
    scratch_addr: int | None = None
    mask_words_after: MaskWords | None = None
    mask_mode_after: MaskMode | None = None


def select(dst: LocalTensor, *args, **kwargs) -> None:
    """``asc.select`` in every form of Select.md (pyasc parameter names).

    Forms::

        select(dst, sel_mask, src0, src1, sel_mode, count)               # first count elements
        select(dst, sel_mask, src0, src1, sel_mode, mask, repeat_times, repeat_params)
        select(dst, sel_mask, src0, repeat_times, repeat_params)          # mode 1, mask set before
        select(dst, src0, src1, repeat_times, repeat_params, sel_mode)    # modes 0/2, mask set before

    ``src1`` is a tensor in modes 0 and 2 and a scalar in mode 1.  ``mask`` is an int
    (contiguous mode) or a list of uint64 words (bitwise mode).
    """
    run_select("select", dst, args, kwargs)


def run_select(instruction: str, dst, args: tuple, kwargs: dict) -> None:
    raw = (dst, *args)
    core, short_key = shortcut_key(instruction, raw, kwargs)  # a repeated positional call: try its shortcut
    if short_key is not None and (shortcut := find_shortcut(core, short_key)) is not None:
        plan = shortcut.checked(instruction, core, raw)
        plan.run(core, raw[shortcut.value_at] if shortcut.value_at is not None else None)
        return
    form, values = bind_values(instruction, SELECT_FORMS, args, kwargs)
    core = current_core(instruction)
    shape = _SHAPES[form.name]
    key = _plan_key(instruction, shape, dst, values, core)
    plan = find_plan(core, key)
    if plan is None:
        plan = SelectPlan.compile(_plan(instruction, core, form.name, dst, dict(zip(form.names, values, strict=True))))
        keep_plan(core, key, plan)
    else:
        require_usable(instruction, core, (dst, *shape.pick_tensors(values)), shape.tensor_names)
    plan.run(core, values[shape.src1] if shape.src1 is not None else None)
    if short_key is not None and not (form.name == "no_mask" and values[_NO_MASK_MODE] == 2):
        keep_shortcut(core, short_key, shape.shortcut(plan, raw))


@dataclass(frozen=True)
class _FormShape:
    """Where a form's arguments sit in its values: what keys a plan, what is checked per call."""

    form: str
    per_call: tuple[bool, ...]  # for (dst, *values): src1 may be a scalar, read per call
    tensor_names: tuple[str, ...]  # dst and the tensor parameters, in the order planning checks them
    pick_tensors: itemgetter  # values -> those tensor parameters
    tensor_positions: tuple[int, ...]  # where dst and those tensors sit in (dst, *values)
    src1: int | None  # position of src1

    @classmethod
    def of(cls, form: Form) -> _FormShape:
        index = {name: i for i, name in enumerate(form.names)}
        names = tuple(name for name in ("src0", "src1", "sel_mask") if name in index)
        return cls(form.name, per_call_flags(("dst", *form.names), frozenset({"src1"})), ("dst", *names),
                   itemgetter(*(index[name] for name in names)), (0, *(1 + index[name] for name in names)),
                   index.get("src1"))

    def shortcut(self, plan: SelectPlan, raw: tuple) -> Shortcut:
        """The shortcut of a positional call of this form with raw arguments ``(dst, *args)``."""
        return Shortcut.of(plan, raw, self.tensor_positions, self.tensor_names,
                           None if self.src1 is None else 1 + self.src1)


_SHAPES = {form.name: _FormShape.of(form) for form in SELECT_FORMS}


def _plan_key(instruction: str, shape: _FormShape, dst, values: tuple, core: Core) -> tuple:
    """Everything a Select plan depends on (``plans`` module docstring): the arguments, the
    mask mode, and what the no-mask forms read from the registers while planning."""
    form = shape.form
    if form == "no_mask":
        words, address = core.mask_words, core.cmpmask[:8] if values[_NO_MASK_MODE] == 2 else None
    elif form == "no_mask_scalar":
        words, address = core.mask_words, None
    else:
        words = address = None
    return call_key((instruction, form, int(core.mask_mode), words, address), (dst, *values), shape.per_call)


_NO_MASK_MODE = next(form for form in SELECT_FORMS if form.name == "no_mask").names.index("sel_mode")


# ----------------------------------------------------------------- planning
def _support(core: Core, instruction: str) -> SelectSupport:
    support = core.chip.select
    if support is None:
        raise unsupported_on(core.chip, instruction, "Select", lambda c: c.select is not None, AVAILABILITY_SOURCE)
    return support


def _mode(instruction: str, value, support: SelectSupport, core: Core, allowed=None) -> int:
    mode = int(value)
    if mode not in (0, 1, 2):
        raise ParameterRangeError(instruction, "sel_mode", mode, "unknown SELMODE", "0, 1, 2 (asc.SelMode)",
                                  PARAMETER_SOURCE)
    allowed = support.modes if allowed is None else allowed
    if mode not in allowed:
        raise UnsupportedError(
            instruction, "sel_mode", SelMode(mode).name, f"this form does not support mode {mode} on "
            f"{core.chip.product}", ", ".join(SelMode(m).name for m in sorted(allowed)) or "none",
            MODE_SOURCE,
        )
    return mode


def _plan(instruction: str, core: Core, form: str, dst, bound: dict) -> SelectCall:
    """Check every parameter-dependent rule and resolve the call (nothing is read or written)."""
    support = _support(core, instruction)
    dst = require_ub_tensor(instruction, "dst", dst, core)
    dtype = dst.dtype
    src0 = require_ub_tensor(instruction, "src0", bound["src0"], core)
    allowed_t = support.count_dtypes if form == "count" else support.dtypes
    require_dtype(instruction, "dst", dtype, allowed_t, f"Select does not support this data type on {core.chip.name}",
                  DTYPE_SOURCE)
    _require_same_dtype(instruction, "src0", src0, dtype)

    if form == "no_mask_scalar":
        mode = _mode(instruction, SelMode.VSEL_TENSOR_SCALAR_MODE, support, core, support.no_mask_modes)
    else:
        # the tensor-only no-mask form serves modes 0 and 2; mode 1 has its own form (with sel_mask)
        mode = _mode(instruction, bound["sel_mode"], support, core,
                     support.no_mask_modes - {1} if form == "no_mask" else None)
    if dtype.itemsize == 8 and mode == 0:
        raise UnsupportedError(
            instruction, "sel_mode", "VSEL_CMPMASK_SPR", "mode 0 with 64-bit data reuses selMask bits in a "
            "pattern the documents leave unresolved; npusim does not guess it", "modes 1 and 2",
            f"{pages.SELECT} 功能说明; {semantics('2.5')}",
        )

    src1 = bound.get("src1")
    if form in ("count", "mask"):
        if mode == 1 and not is_scalar(src1):
            raise TypeError(f"{instruction}: src1 must be a scalar in mode 1 (VSEL_TENSOR_SCALAR_MODE), "
                            f"got {type(src1).__name__}")
        if mode != 1 and not is_tensor(src1):
            raise TypeError(f"{instruction}: src1 must be a LocalTensor in mode {mode}, got {type(src1).__name__}")
    if is_tensor(src1):
        src1 = require_ub_tensor(instruction, "src1", src1, core)
        _require_same_dtype(instruction, "src1", src1, dtype)
    else:
        src1 = None

    sel = bound.get("sel_mask")
    if sel is not None:
        sel = require_ub_tensor(instruction, "sel_mask", sel, core)
        require_dtype(instruction, "sel_mask", sel.dtype, SEL_MASK_DTYPES, "selMask must be an unsigned integer tensor",
                      DTYPE_SOURCE)

    call = SelectCall(instruction, core, dtype, mode, dst, src0, src1, lanes=None,  # type: ignore[arg-type]
                      strides=DEFAULT_STRIDES, sel=sel)
    native = support.lowering == "native"
    itemsize = dtype.itemsize
    if form == "count":
        call.lanes = lanes_from_count(instruction, bound["count"], itemsize)
        if native:
            call.mask_words_after = (FULL_WORD, FULL_WORD, 0, 0)
            call.mask_mode_after = MaskMode.NORMAL
        _plan_tensor_form_registers(call, support)
    elif form == "mask":
        if not require_bool(instruction, "is_set_mask", bound["is_set_mask"]):
            raise ParameterRangeError(
                instruction, "is_set_mask", False, "is_set_mask is reserved for Select; to use a mask set "
                "beforehand call a form without the mask parameter", "True", PARAMETER_SOURCE,
            )
        call.strides = require_repeat_params(instruction, bound["repeat_params"], BinaryRepeatParams)
        call.lanes, words = lanes_from_mask_arg(core, instruction, bound["mask"], bound["repeat_times"], itemsize,
                                                lowering_counts_raw=not native)
        if native or (support.bitwise_mask_sets_register and not is_integer(bound["mask"])):
            call.mask_words_after = words
        _plan_tensor_form_registers(call, support)
    else:
        call.strides = require_repeat_params(instruction, bound["repeat_params"], BinaryRepeatParams)
        call.lanes = lanes_from_register(core, instruction, bound["repeat_times"], itemsize)
        _plan_no_mask_registers(call, support)
    if call.strides[0] == 0:
        raise ParameterRangeError(instruction, "repeat_params.dst_blk_stride", 0,
                                  "a destination block stride of 0 is undefined behaviour", "[1, 255]",
                                  DST_STRIDE_SOURCE)
    return call


def _require_same_dtype(instruction: str, name: str, tensor: LocalTensor, dtype: DType) -> None:
    if tensor.dtype != dtype:
        raise UnsupportedError(instruction, f"{name} dtype", tensor.dtype.name, f"{name} must have dst's dtype",
                               dtype.name, DTYPE_SOURCE)


def _plan_tensor_form_registers(call: SelectCall, support: SelectSupport) -> None:
    """CMPMASK, scratch and selMask source for the forms that take a selMask tensor (docs/semantics.md §2.2, §2.3)."""
    sel = call.sel
    call.scalar_from = "argument" if call.mode == 1 else None
    call.sel_addr = sel.addr
    if support.lowering != "native":
        call.bits_from = "selmask_head" if call.mode == 0 else "stream"
        return
    if call.mode == 0:
        sel.check_span(call.instruction, "sel_mask (CMPMASK load)", sel.addr, sel.addr + CMPMASK_BYTES)  # UB too
        call.bits_from, call.cmpmask_after = "cmpmask", "selmask"
        return
    call.cmpmask_after = "scratch"
    call.scratch_kind = "scalar" if call.mode == 1 else "address"
    call.scratch_addr = support.scratch_offset_bytes


def _plan_no_mask_registers(call: SelectCall, support: SelectSupport) -> None:
    """Where the no-mask forms take their bits, scalar or selMask address from: CMPMASK (docs/semantics.md §2.2)."""
    core = call.core
    if call.mode == 0:
        call.bits_from = "cmpmask"
        if support.no_mask_spill_offset_bytes is not None:
            call.scratch_kind, call.scratch_addr = "cmpmask", support.no_mask_spill_offset_bytes
    elif call.mode == 1:
        call.scalar_from = "cmpmask"
        call.sel_addr = call.sel.addr
    else:
        width = 4 if support.lowering == "native" else 8
        address = int.from_bytes(core.cmpmask[:width], "little")
        if address % 32 or address >= core.ub.size_bytes:
            raise ParameterRangeError(
                call.instruction, "CMPMASK (selMask address)", address,
                "mode 2 reads selMask at the UB address held in CMPMASK; it must be a 32-byte aligned UB address",
                f"multiples of 32 below {core.ub.size_bytes:#x}", f"{pages.SET_CMP_MASK} 功能说明; {semantics('2.2')}",
            )
        call.sel_addr = address
        call.sel_addr_from_cmpmask = True


# ---------------------------------------------------------------- the plan
def _scratch_bytes(call: SelectCall) -> int:
    return {"scalar": SCRATCH_COPIES * call.dtype.itemsize, "address": SCRATCH_COPIES * 4,
            "cmpmask": 16 if call.dtype.itemsize == 2 else 8}[call.scratch_kind]


@cache
def lane_masks(raw: np.dtype) -> np.ndarray:
    """For each byte value, its 8 bits (LSB first) as lanes of ``raw``: all ones or zero, shape ``(256, 8)``.

    ``np.take(lane_masks(raw), packed, axis=0)`` turns packed selection bits into a
    per-lane bit mask, so a select is three bitwise operations on raw bits (docs/semantics.md §2.1):
    ``src1 ^ ((src0 ^ src1) & mask)``.
    """
    bits = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
    masks = np.where(bits.astype(bool), np.array(-1, np.int64).astype(raw), np.zeros((), raw))
    masks.setflags(write=False)
    return masks


@dataclass
class SelectPlan:
    """A checked Select call, compiled to operand accesses; cached per core and re-run.

    ``run`` does only what depends on memory or register contents: uninitialised-read
    checks, reading the selection bits, the select itself and the commit.

    View layout (the usual one): the packed selection bits become a lane mask through
    :func:`lane_masks` and ``dst = src1 ^ ((src0 ^ src1) & mask)`` runs on contiguous
    arrays (``tmp`` and ``mask_rows`` are per-plan scratch: no per-call allocation).  The
    lane mask is a function of the packed bits alone, so it is remade only when a call's
    bits differ from the previous call's (``mask_bits``).  When every repeat selects with
    the same bits (mode 0: 16 bytes of CMPMASK), it is kept repeated to full size
    (``pattern``).
    Flat layout: the active lanes' bits are picked by ``bit_index`` and ``np.where``
    selects.
    """

    call: SelectCall
    dst: OperandAccess
    src0: OperandAccess
    src1: OperandAccess | None
    bit_index: np.ndarray | None  # flat layout: per active lane, its bit in the unpacked bits
    sel_bytes: int  # selMask bytes read (stream / head), 0 if bits come from CMPMASK
    sel_check: np.ndarray | None  # selMask byte offsets holding active bits, None if all of the first sel_bytes
    sel_span: ByteSpan | None = None  # the selMask bytes read, when their check is a span check
    scratch: ByteSpan | None = None  # the UB scratch this call writes (docs/semantics.md §2.3)
    scratch_payload: np.ndarray | None = None  # its bytes when they never change (selMask address copies)
    scratch_cmpmask: bytes | None = None  # CMPMASK loaded from scratch_payload
    scalar_copies: tuple | None = None  # mode 1: (scalar bits, scratch payload, CMPMASK) of the latest scalar
    scalar_lanes: tuple | None = None  # mode 1, view layout: (scalar bits, the scalar in every lane) of the latest
    cmpmask_span: ByteSpan | None = None  # mode 0 tensor forms: the selMask bytes whose check precedes the load
    tmp: np.ndarray | None = None  # view layout: (repeats, 8, B) raw scratch
    lane_table: np.ndarray | None = None  # view layout: lane_masks(raw)
    mask_rows: np.ndarray | None = None  # view layout: (packed bytes read, 8) lane masks, written by np.take
    mask: np.ndarray | None = None  # view layout: the lane masks as (repeats or 1, 8, B); bits past the read are 0
    pattern: np.ndarray | None = None  # view layout, bits the same in every repeat: ``mask`` in every repeat
    mask_bits: bytes | None = None  # view layout: the packed bits ``mask`` (and ``pattern``) were made from

    @classmethod
    def compile(cls, call: SelectCall) -> SelectPlan:
        ub, lanes, itemsize = call.core.ub, call.lanes, call.dtype.itemsize
        d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = call.strides
        dst = StridedOperand(call.dst.addr, strided_footprint("dst", call.dst.addr, lanes, itemsize, d_blk, d_rep),
                             d_blk, d_rep)
        src0 = StridedOperand(call.src0.addr,
                              strided_footprint("src0", call.src0.addr, lanes, itemsize, s0_blk, s0_rep),
                              s0_blk, s0_rep)
        src1 = None
        if call.src1 is not None:
            src1 = StridedOperand(call.src1.addr,
                                  strided_footprint("src1", call.src1.addr, lanes, itemsize, s1_blk, s1_rep),
                                  s1_blk, s1_rep)
        bit_index, sel_fp = _selection_bits(call)

        dst.footprint.check_in(call.instruction, call.dst)
        src0.footprint.check_in(call.instruction, call.src0)
        if src1 is not None:
            src1.footprint.check_in(call.instruction, call.src1)
        if sel_fp is not None and not sel_fp.empty:
            if call.sel is not None and call.sel.addr == call.sel_addr:
                sel_fp.check_in(call.instruction, call.sel)
            else:
                ub.check_span(call.instruction, "sel_mask", sel_fp.lo, sel_fp.hi)
        reads = [op.footprint for op in (src0, src1) if op is not None]
        if sel_fp is not None:
            reads.append(sel_fp)
        for footprint in reads:
            check_overlap(call.instruction, dst.footprint, footprint)
        if call.scratch_kind is not None and call.scratch_addr is not None:
            check_clear_of_scratch(
                call.instruction, call.scratch_addr, _scratch_bytes(call), [dst.footprint, *reads],
                "API scratch", "that this call overwrites (reserve the top 8 KiB of UB: 需要预留8KB UB)",
                f"{pages.SELECT} 约束说明; {semantics('2.3')}")

        operands = [op for op in (dst, src0, src1) if op is not None]
        layout = choose_layout(ub, operands, lanes, dst)
        raw = call.dtype.raw
        accesses = [OperandAccess.build(ub, op, raw, lanes, layout) if op is not None else None
                    for op in (dst, src0, src1)]
        sel_bytes = 0
        sel_check = None
        if sel_fp is not None:
            sel_check = np.unique(sel_fp.addrs) - call.sel_addr
            sel_bytes = int(sel_check[-1]) + 1 if sel_check.size else 0
            if sel_check.size == sel_bytes:
                sel_check = None  # every byte up to sel_bytes holds an active bit: check the span
        plan = cls(call, accesses[0], accesses[1], accesses[2], bit_index, sel_bytes, sel_check)
        if sel_fp is not None and sel_check is None:
            plan.sel_span = ByteSpan("sel_mask", call.sel_addr, call.sel_addr + sel_bytes)
        if call.cmpmask_after == "selmask":
            plan.cmpmask_span = ByteSpan("sel_mask", call.sel_addr, call.sel_addr + max(lanes.lanes // 8, 1))
        if call.scratch_kind is not None and call.scratch_addr is not None:
            plan.scratch = ByteSpan("scratch", call.scratch_addr, call.scratch_addr + _scratch_bytes(call))
            if call.scratch_kind == "address":
                plan.scratch_payload = np.frombuffer(plan._copies(None), dtype=np.uint8)
                plan.scratch_cmpmask = plan.scratch_payload[:CMPMASK_BYTES].tobytes()
        if layout == "view":
            plan.bit_index = None
            plan.tmp = np.empty((lanes.repeats, BLOCKS_PER_REPEAT, elems_per_block(itemsize)), raw)
            plan.lane_table = lane_masks(raw)
            mask_buffer = np.zeros((plan.stream_bytes, 8), raw)
            read = sel_bytes if sel_fp is not None else min(plan.stream_bytes, CMPMASK_BYTES)
            plan.mask_rows = mask_buffer[:read]
            repeats = lanes.repeats if call.bits_from == "stream" else 1
            plan.mask = mask_buffer.reshape(repeats, BLOCKS_PER_REPEAT, elems_per_block(itemsize))
            if call.bits_from != "stream":
                plan.pattern = np.empty_like(plan.tmp)
        return plan

    def run(self, core: Core, src1=None) -> None:
        """Execute on ``core`` (the one planned for); ``src1``: the call's argument (mode 1: the scalar).

        Everything is read and computed first; :meth:`_commit` then stores it (docs/architecture.md).
        """
        call, ub = self.call, core.ub
        instruction = call.instruction

        # --- values that depend on the call's arguments or on register contents
        scalar = scratch = None
        scalar_from = call.scalar_from
        if scalar_from == "argument":
            scalar = scalar_bits_cached(instruction, "src1", src1, call.dtype)
        elif scalar_from == "cmpmask":
            core.report_unset_cmpmask(instruction)
            scalar = np.frombuffer(core.cmpmask[: call.dtype.itemsize], dtype=call.dtype.raw)
        bits = None  # the CMPMASK bits select from, as uint8; None: from selMask in memory
        cmpmask = None  # CMPMASK after the call, None: unchanged
        cmpmask_after = call.cmpmask_after
        if cmpmask_after == "selmask":  # mode 0 tensor forms: CMPMASK = the first 16 bytes of selMask
            self.cmpmask_span.check_initialized(ub, instruction)
            cmpmask = ub.data[call.sel_addr : call.sel_addr + CMPMASK_BYTES].tobytes()
            bits = np.frombuffer(cmpmask, dtype=np.uint8)
        elif call.bits_from == "cmpmask":
            core.report_unset_cmpmask(instruction)
            bits = np.frombuffer(core.cmpmask, dtype=np.uint8)
        if call.sel_addr_from_cmpmask:  # planned with CMPMASK's address (the plan key holds it)
            core.report_unset_cmpmask(instruction)
        if self.scratch is not None:
            scratch, cmpmask_from_scratch = self._scratch_payload(scalar, core)
        if cmpmask_after == "scratch":
            cmpmask = cmpmask_from_scratch if scratch is not None else self._copies(scalar)[:CMPMASK_BYTES]

        # --- reads (memory as it is before any write), then the select
        epoch = ub.shadow_epoch
        if self.src0.seen_written != epoch:
            self.src0.check_initialized(ub, instruction)
        if self.src1 is not None and self.src1.seen_written != epoch:
            self.src1.check_initialized(ub, instruction)
        packed = self._packed_bits(ub, bits)
        if self.tmp is not None:
            blended, second = self._blend(ub, packed, scalar)
            self._commit(core, None, blended, second, scratch, cmpmask)
        else:
            self._commit(core, self._where(ub, packed, scalar), None, None, scratch, cmpmask)

    def _commit(self, core: Core, result, blended, second, scratch, cmpmask: bytes | None) -> None:
        """Store a computed call: dst, the UB scratch, CMPMASK, the mask registers (in that order).

        View layout: ``blended`` is ``(src0 ^ src1) & mask`` (private), and the store is its
        ``^ src1`` straight into the destination: one numpy operation, the dst write, first,
        so that nothing has changed if it fails.
        """
        call, ub = self.call, core.ub
        if blended is not None:
            result = self.dst.output()
            np.bitwise_xor(blended, second, out=result)
        self.dst.write(ub, result)
        if scratch is not None:
            self.scratch.write(ub, scratch)
        if cmpmask is not None:
            core.load_cmpmask(cmpmask)
        if call.mask_words_after is not None:
            core.mask_words = call.mask_words_after
        if call.mask_mode_after is not None:
            core.mask_mode = call.mask_mode_after

    def _blend(self, ub, packed: np.ndarray, scalar) -> tuple[np.ndarray, np.ndarray]:
        """View layout: ``(src0 ^ src1) & mask`` per lane, in the plan's own buffer, and ``src1``.

        The select is ``src1 ^ ((src0 ^ src1) & mask)``; :meth:`_commit` does the last ``^``.
        """
        raw = self.call.dtype.raw
        bits = packed.tobytes()
        if bits != self.mask_bits:  # the lane mask is a function of the bits: remade only when they change
            self.mask_bits = None  # until remade (an interrupted update must not look current)
            self.lane_table.take(packed, axis=0, out=self.mask_rows)
            if self.pattern is not None:
                np.copyto(self.pattern, self.mask)  # ufuncs on equal shapes skip broadcasting
            self.mask_bits = bits
        mask = self.mask if self.pattern is None else self.pattern
        first = self.src0.gather(ub, raw)
        second = self.src1.gather(ub, raw) if self.src1 is not None else self._scalar_lanes(scalar)
        tmp = self.tmp
        np.bitwise_xor(first, second, out=tmp)
        np.bitwise_and(tmp, mask, out=tmp)
        return tmp, second

    def _scalar_lanes(self, scalar: np.ndarray):
        """The scalar as the second operand: its bits in every lane for a short call (ufuncs on equal
        shapes skip broadcasting, which dominates there), else a numpy scalar (no memory to stream)."""
        if self.tmp.size > SCALAR_LANES_UP_TO:
            return scalar[0]
        memo = self.scalar_lanes  # scalar_bits_cached hands out one array per value: compare by identity
        if memo is None or memo[0] is not scalar:
            memo = self.scalar_lanes = (scalar, np.full(self.tmp.shape, scalar[0], dtype=scalar.dtype))
        return memo[1]

    def _where(self, ub, packed: np.ndarray, scalar) -> np.ndarray:
        """Flat layout: ``np.where`` over the active lanes, their bits picked by ``bit_index``."""
        raw = self.call.dtype.raw
        if packed.size < self.stream_bytes:
            packed = np.concatenate([packed, np.zeros(self.stream_bytes - packed.size, np.uint8)])
        bits = np.unpackbits(packed, bitorder="little").view(bool)[self.bit_index]
        chosen1 = self.src1.gather(ub, raw) if self.src1 is not None else scalar
        return np.where(bits, self.src0.gather(ub, raw), chosen1)

    def _packed_bits(self, ub, cmpmask: np.ndarray | None) -> np.ndarray:
        """The packed selection bits a call reads (uint8): CMPMASK's, or selMask's after its check."""
        if cmpmask is not None:
            return cmpmask[: min(self.stream_bytes, CMPMASK_BYTES)]
        if self.sel_span is not None:
            self.sel_span.check_initialized(ub, self.call.instruction)
            return self.sel_span.read(ub)
        start = self.call.sel_addr
        if self.sel_check.size:
            ub.check_initialized(self.call.instruction, "sel_mask", self.sel_check + start, 1)
        return ub.data[start : start + self.sel_bytes]

    def _copies(self, scalar) -> bytes:
        call = self.call
        if call.scratch_kind == "address" or (call.scratch_kind is None and call.mode == 2):
            return np.full(SCRATCH_COPIES, call.sel_addr, dtype="<u4").tobytes()
        return scalar.tobytes() * SCRATCH_COPIES

    def _scratch_payload(self, scalar, core: Core) -> tuple[np.ndarray, bytes]:
        """The bytes this call writes to the UB scratch (docs/semantics.md §2.3), and their first 16
        (CMPMASK's new value)."""
        if self.scratch_payload is not None:
            return self.scratch_payload, self.scratch_cmpmask
        if self.call.scratch_kind == "cmpmask":
            payload = np.frombuffer(core.cmpmask[: _scratch_bytes(self.call)], dtype=np.uint8)
            return payload, payload[:CMPMASK_BYTES].tobytes()
        memo = self.scalar_copies  # scalar_bits_cached hands out one array per value: compare by identity
        if memo is None or memo[0] is not scalar:
            copies = self._copies(scalar)
            memo = self.scalar_copies = (scalar, np.frombuffer(copies, dtype=np.uint8), copies[:CMPMASK_BYTES])
        return memo[1], memo[2]

    @property
    def stream_bytes(self) -> int:
        lanes = self.call.lanes
        return lanes.repeats * lanes.lanes // 8 if self.call.bits_from == "stream" else lanes.lanes // 8


def _selection_bits(call: SelectCall) -> tuple[np.ndarray, Footprint | None]:
    """Per active lane (issue order), the index of its bit in the unpacked selection bits,
    and the footprint of the selMask bytes read (``None`` when bits come from CMPMASK)."""
    lanes = call.lanes
    grid_r = np.arange(lanes.repeats, dtype=np.int64)[:, None]
    grid_j = np.arange(lanes.lanes, dtype=np.int64)[None, :]
    if call.bits_from == "stream":
        positions = lanes.select(grid_r * lanes.lanes + grid_j)
    else:
        positions = lanes.select(np.broadcast_to(grid_j, (lanes.repeats, lanes.lanes)))
    if call.bits_from == "cmpmask":
        return positions, None
    repeats = lanes.select(np.broadcast_to(grid_r, (lanes.repeats, lanes.lanes)))
    return positions, Footprint("sel_mask", call.sel_addr + (positions >> 3), repeats, 1)


def plan_vsel_cmpmask(
    instruction: str, core: Core, dst, src0, src1, lanes: ActiveLanes, strides: tuple[int, ...],
    mask_words_after: MaskWords | None = None, mask_mode_after: MaskMode | None = None,
) -> SelectPlan:
    """The bare ``vsel`` in mode 0 (CMPMASK bits), as the C API issues it (docs/semantics.md §2.6), checked
    and compiled.

    ``dst``, ``src0`` and ``src1`` are checked as for :func:`select`; the dtype must be one
    of the product's Select dtypes.  ``plan.run(core)`` executes the returned plan.
    """
    support = _support(core, instruction)
    dst = require_ub_tensor(instruction, "dst", dst, core)
    for name, tensor in (("src0", src0), ("src1", src1)):
        _require_same_dtype(instruction, name, require_ub_tensor(instruction, name, tensor, core), dst.dtype)
    require_dtype(instruction, "dst", dst.dtype, support.dtypes, f"not supported on {core.chip.name}",
                  f"{pages.C_API}/asc_select.md 函数原型; {semantics('2.6')}")
    if strides[0] == 0:
        raise ParameterRangeError(instruction, "dst_block_stride", 0, "a destination block stride of 0 is "
                                  "undefined behaviour", "[1, 255]", DST_STRIDE_SOURCE)
    return SelectPlan.compile(SelectCall(instruction, core, dst.dtype, 0, dst, src0, src1, lanes, strides,
                                         bits_from="cmpmask", mask_words_after=mask_words_after,
                                         mask_mode_after=mask_mode_after))
