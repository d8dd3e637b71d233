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
(``SelectSupport.bitwise_mask_sets_register``), the other forms leave it alone.

The flexible scalar position (Select（灵活标量位置）.md, the 950, mode 1 only; docs/semantics.md §2.7): src0 or
src1 is the scalar, a number or a tensor's first element (:mod:`.flexible_scalar`); a selection bit 1 takes
src0 and 0 takes src1 whichever is the scalar (dav_3510 ``SelectSrc0ScalarMode1*``: ``Select(dst, scalarReg,
src1Reg, selMask)``).  A mode-1 call of the plain forms with a tensor src1 is that form with src1's element.

The C API ``asc_select`` / ``asc_select_sync`` is the bare ``vsel`` in mode 0 (CMPMASK
bits, docs/semantics.md §2.6), registered as an alias of the same plans.

On the engine (docs/architecture.md): ``compile`` (:func:`_plan` and the C API's
:func:`_plan_asc_select`) checks every rule with the call's real tensors and plans its
geometry (:class:`SelectPlan`: no tensor address); :meth:`SelectPlan.bind` makes the checks
that depend on where the tensors are (alignment, the CMPMASK load, UB bounds, overlap, the
API scratch) and the views over UB (:class:`SelectBinding`); :meth:`SelectBinding.run`
reads and selects, then commits.  The whole call is checked before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.caches import memoized
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import is_integer, require_bool, require_int, require_uint
from .. import pages
from ..addressing import BLOCKS_PER_REPEAT, ActiveLanes, elems_per_block, lanes_per_repeat
from ..chips import SEL_MASK_DTYPES, SelectSupport, unsupported_on
from ..core import CMPMASK_BYTES, FULL_WORD, Core
from ..footprint import Footprint, check_clear_of_scratch, check_overlap, strided_footprint
from ..masking import (
    COUNTER_MAX,
    MaskWords,
    checked_counter_lanes,
    lanes_from_count,
    lanes_from_mask_arg,
    lanes_from_register,
)
from ..operands import ByteSpan, OperandAccess, StridedOperand, choose_layout
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, MaskMode, SelMode
from .common import (
    c_api_page,
    count_form_context,
    is_scalar,
    is_tensor,
    record_pipe_barrier,
    require_c_api,
    require_dtype,
    require_repeat_params,
    require_ub_tensor,
)
from .flexible_scalar import (
    FLEX_PREFIX,
    FLEXIBLE_PRODUCTS,
    SCALAR_INDEX,
    SRC0,
    SRC1,
    ScalarPosition,
    scalar_position,
    scalar_raw_bits,
    with_element,
)

__all__ = ["SELECT_FORMS", "SelectBinding", "SelectCall", "SelectPlan", "asc_select", "asc_select_sync", "select"]

DEFAULT_STRIDES = (1, 1, 1, 8, 8, 8)
SCRATCH_COPIES = 32  # Duplicate of ONE_BLK_SIZE elements into the scratch (docs/semantics.md §2.3)
SCALAR_LANES_UP_TO = 1024  # lanes: up to here a mode-1 scalar is repeated into an array (SelectBinding._scalar_lanes)
REGISTER_ORDER = ("CMPMASK", "MASK", "MASK_MODE")

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


def _tensor_or_scalar(v) -> bool:
    return is_tensor(v) or is_scalar(v)


DST = Param("dst", _any)  # checked by the plan step, naming dst
SELECT_FORMS = (
    Form("count", (
        DST, Param("sel_mask", is_tensor), Param("src0", is_tensor), Param("src1", _tensor_or_scalar),
        Param("sel_mode", _is_int), Param("count", _is_int),
    )),
    Form("mask", (
        DST, Param("sel_mask", is_tensor), Param("src0", is_tensor), Param("src1", _tensor_or_scalar),
        Param("sel_mode", _is_int), Param("mask", _is_mask), Param("repeat_times", _is_int),
        Param("repeat_params", _is_params), Param("is_set_mask", _any, True),
    )),
    Form("no_mask_scalar", (
        DST, Param("sel_mask", is_tensor), Param("src0", is_tensor), Param("repeat_times", _is_int),
        Param("repeat_params", _is_params),
    )),
    Form("no_mask", (
        DST, Param("src0", is_tensor), Param("src1", is_tensor), Param("repeat_times", _is_int),
        Param("repeat_params", _is_params), Param("sel_mode", _is_int),
    )),
)
#: Select（灵活标量位置）.md 函数原型 (mode 1): src0 and src1 each a number or a tensor
FLEXIBLE_FORMS = (
    Form("flexible_count", (
        DST, Param("sel_mask", is_tensor), SRC0, SRC1, Param("sel_mode", _is_int), Param("count", _is_int),
        SCALAR_INDEX,
    )),
    Form("flexible_mask", (
        DST, Param("sel_mask", is_tensor), SRC0, SRC1, Param("sel_mode", _is_int), Param("mask", _is_mask),
        Param("repeat_times", _is_int), Param("repeat_params", _is_params), Param("is_set_mask", _any, True),
        SCALAR_INDEX,
    )),
)
FLEXIBLE_SOURCE = f"{pages.SELECT_FLEXIBLE} 功能说明; {semantics('2.7')}"
_STRIDE_NAMES = ("dst_block_stride", "src0_block_stride", "src1_block_stride",
                 "dst_repeat_stride", "src0_repeat_stride", "src1_repeat_stride")
C_API_FORMS = (  # asc_select.md: every parameter is checked by the plan step, as the C signature has no overloads
    Form("count", (DST, Param("src0", _any), Param("src1", _any), Param("count", _any))),
    Form("repeat", (DST, Param("src0", _any), Param("src1", _any), Param("repeat", _any),
                    *(Param(name, _any) for name in _STRIDE_NAMES))),
)
#: mode 1's scalar among the call's values: the same place in the count and mask forms, plain and flexible
_SCALAR_AT = {name: SELECT_FORMS[0].names.index(name) for name in ("src0", "src1")}
_NO_MASK_MODE = next(form for form in SELECT_FORMS if form.name == "no_mask").names.index("sel_mode")


@dataclass
class SelectCall:
    """A checked Select call's geometry: lanes, strides, and where bits, scalar and register effects come from.

    Nothing here is a tensor address (an absolute address read from CMPMASK, and the API
    scratch's, are part of the register configuration and of the product), so a plan made
    from it serves every placement of its tensors.

    Attributes:
        operands: the tensors that bind per call, in the order the plan step checks them.
        bits_from: ``"stream"`` (selMask bit ``r*E+j``), ``"selmask_head"`` (selMask bit ``j``)
            or ``"cmpmask"`` (CMPMASK bit ``j``).
        fixed_sel_addr: no-mask mode 2: the selMask address CMPMASK holds.
        scalar_from: mode 1: ``"argument"`` (the value at ``scalar_at``, named ``scalar_name``) or ``"cmpmask"``.
        cmpmask_after: ``"selmask"`` (its first 16 bytes) or ``"scratch"`` (the first 16 bytes of
            the scratch copies); ``None``: CMPMASK is left alone.
        scratch_kind: what the scratch copies hold: ``"scalar"``, ``"address"`` or ``"cmpmask"``.
        registers_read: the registers the call plans with or reads (``REGISTER_ORDER``).
        sync: a ``*_sync`` C API call: ``pipe_barrier(PIPE_ALL)`` follows.
    """

    instruction: str
    dtype: DType
    mode: int
    lanes: ActiveLanes | None
    strides: tuple[int, ...]
    operands: tuple[str, ...]
    bits_from: str = "stream"
    fixed_sel_addr: int | None = None
    scalar_from: str | None = None
    scalar_at: int | None = None
    scalar_name: str = "src1"
    sel_addr_from_cmpmask: bool = False
    cmpmask_after: str | None = None
    scratch_kind: str | None = None
    scratch_addr: int | None = None
    mask_words_after: MaskWords | None = None
    mask_mode_after: MaskMode | None = None
    registers_read: tuple[str, ...] = ()
    sync: bool = False

    @property
    def registers_written(self) -> tuple[str, ...]:
        return tuple(name for name, written in zip(REGISTER_ORDER, (
            self.cmpmask_after is not None, self.mask_words_after is not None, self.mask_mode_after is not None),
            strict=True) if written)


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


def _plan(instruction: str, core: Core, form: str, bound: dict,
          position: ScalarPosition | None = None) -> tuple[SelectCall, list[LocalTensor]]:
    """Check every rule of a ``select`` call in the plan step's order and resolve it (nothing is read
    or written); also the tensors that bind per call, in ``SelectCall.operands`` order.

    ``position``: a flexible-scalar call's vector and scalar (mode 1; ``form`` names the plain form, count or
    mask); a tensor element as the scalar is left to :func:`.flexible_scalar.with_element`."""
    support = _support(core, instruction)
    dst = require_ub_tensor(instruction, "dst", bound["dst"], core)
    dtype = dst.dtype
    vector = position.vector if position is not None else "src0"
    source = require_ub_tensor(instruction, vector, bound[vector], core)
    allowed_t = support.count_dtypes if form == "count" else support.dtypes
    require_dtype(instruction, "dst", dtype, allowed_t, f"Select does not support this data type on {core.chip.name}",
                  f"{pages.SELECT_FLEXIBLE} 数据类型; {semantics('2.7')}" if position is not None else DTYPE_SOURCE)
    _require_same_dtype(instruction, vector, source, dtype)

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

    tensors = {"dst": dst, vector: source}
    src1 = bound.get("src1")
    # (mode 1 with a tensor src1 is a flexible call, planned with position)
    if form in ("count", "mask") and position is None and mode != 1 and not is_tensor(src1):
        raise TypeError(f"{instruction}: src1 must be a LocalTensor in mode {mode}, got {type(src1).__name__}")
    if is_tensor(src1) and position is None:
        tensors["src1"] = require_ub_tensor(instruction, "src1", src1, core)
        _require_same_dtype(instruction, "src1", src1, dtype)

    sel = bound.get("sel_mask")
    if sel is not None:
        tensors["sel_mask"] = require_ub_tensor(instruction, "sel_mask", sel, core)
        require_dtype(instruction, "sel_mask", sel.dtype, SEL_MASK_DTYPES, "selMask must be an unsigned integer tensor",
                      DTYPE_SOURCE)

    call = SelectCall(instruction, dtype, mode, None, DEFAULT_STRIDES, tuple(tensors))
    if position is not None:
        call.scalar_name = position.scalar  # src0 (not an operand then): bit 1 takes the scalar, bit 0 src1
    native = support.lowering == "native"
    itemsize = dtype.itemsize
    if form == "count":
        call.lanes = lanes_from_count(instruction, bound["count"], itemsize)
        if native:
            call.mask_words_after = (FULL_WORD, FULL_WORD, 0, 0)
            call.mask_mode_after = MaskMode.NORMAL
        _plan_tensor_form_registers(call, support, sel)
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
        _plan_tensor_form_registers(call, support, sel)
        call.registers_read = ("MASK_MODE",)
    else:
        call.strides = require_repeat_params(instruction, bound["repeat_params"], BinaryRepeatParams)
        call.lanes = lanes_from_register(core, instruction, bound["repeat_times"], itemsize)
        _plan_no_mask_registers(call, support, core)
        reads_cmpmask = call.bits_from == "cmpmask" or call.scalar_from == "cmpmask" or call.sel_addr_from_cmpmask
        call.registers_read = ("CMPMASK",) * reads_cmpmask + ("MASK", "MASK_MODE")
    if call.strides[0] == 0:
        raise ParameterRangeError(instruction, "repeat_params.dst_blk_stride", 0,
                                  "a destination block stride of 0 is undefined behaviour", "[1, 255]",
                                  DST_STRIDE_SOURCE)
    return call, list(tensors.values())


def _require_same_dtype(instruction: str, name: str, tensor: LocalTensor, dtype: DType) -> None:
    if tensor.dtype != dtype:
        raise UnsupportedError(instruction, f"{name} dtype", tensor.dtype.name, f"{name} must have dst's dtype",
                               dtype.name, DTYPE_SOURCE)


def _plan_tensor_form_registers(call: SelectCall, support: SelectSupport, sel: LocalTensor) -> None:
    """CMPMASK, scratch and selMask source for the forms that take a selMask tensor (docs/semantics.md §2.2, §2.3)."""
    if call.mode == 1:
        call.scalar_from, call.scalar_at = "argument", _SCALAR_AT[call.scalar_name]
    if support.lowering != "native":
        call.bits_from = "selmask_head" if call.mode == 0 else "stream"
        return
    if call.mode == 0:
        _check_cmpmask_load(call.instruction, sel)
        call.bits_from, call.cmpmask_after = "cmpmask", "selmask"
        return
    call.cmpmask_after = "scratch"
    call.scratch_kind = "scalar" if call.mode == 1 else "address"
    call.scratch_addr = support.scratch_offset_bytes


def _check_cmpmask_load(instruction: str, sel: LocalTensor) -> None:
    """Mode 0 on the native lowering loads CMPMASK from the first 16 bytes of selMask: they must lie in UB
    and in the tensor."""
    sel.check_span(instruction, "sel_mask (CMPMASK load)", sel.addr, sel.addr + CMPMASK_BYTES)


def _plan_no_mask_registers(call: SelectCall, support: SelectSupport, core: Core) -> None:
    """Where the no-mask forms take their bits, scalar or selMask address from: CMPMASK (docs/semantics.md §2.2)."""
    if call.mode == 0:
        call.bits_from = "cmpmask"
        if support.no_mask_spill_offset_bytes is not None:
            call.scratch_kind, call.scratch_addr = "cmpmask", support.no_mask_spill_offset_bytes
    elif call.mode == 1:
        call.scalar_from = "cmpmask"
    else:
        address = int.from_bytes(core.cmpmask[: _address_width(support)], "little")
        if address % 32 or address >= core.ub.size_bytes:
            raise ParameterRangeError(
                call.instruction, "CMPMASK (selMask address)", address,
                "mode 2 reads selMask at the UB address held in CMPMASK; it must be a 32-byte aligned UB address",
                f"multiples of 32 below {core.ub.size_bytes:#x}", f"{pages.SET_CMP_MASK} 功能说明; {semantics('2.2')}",
            )
        call.fixed_sel_addr = address
        call.sel_addr_from_cmpmask = True


def _address_width(support: SelectSupport | None) -> int:
    """Bytes of CMPMASK that hold no-mask mode 2's selMask address: 32 bits on ``vsel``, 64 on the 950's VF."""
    return 4 if support is not None and support.lowering == "native" else 8


def _plan_asc_select(instruction: str, core: Core, form: str, bound: dict) -> tuple[SelectCall, list[LocalTensor]]:
    """The bare ``vsel`` in mode 0 (CMPMASK bits) as the C API issues it (asc_select.md; docs/semantics.md §2.6).

    The count form is ``set_mask_count(); set_vector_mask(0, count); vsel; set_mask_norm()``:
    afterwards the core is in normal mode with ``count`` left in the mask register's low word.
    """
    require_c_api(core, instruction)
    dst = bound["dst"]
    if not isinstance(dst, LocalTensor):
        raise TypeError(f"{instruction}: dst must be a LocalTensor, got {type(dst).__name__}")
    page = c_api_page(instruction)
    itemsize = dst.dtype.itemsize
    if form == "count":
        count = require_int(instruction, "count", bound["count"], 0, COUNTER_MAX,
                            f"{page} 参数说明 (uint32_t count); {semantics('2.6')}")
        lanes = checked_counter_lanes(instruction, count, lanes_per_repeat(itemsize), "count")
        strides, words_after, mode_after, registers = DEFAULT_STRIDES, (count, 0, 0, 0), MaskMode.NORMAL, ()
    else:
        source = f"{page} 参数说明; {semantics('2.6')}"
        repeat = require_uint(instruction, "repeat", bound["repeat"], 8, source)
        strides = tuple(require_uint(instruction, name, bound[name], 8, source) for name in _STRIDE_NAMES)
        lanes = lanes_from_register(core, instruction, repeat, itemsize)
        words_after = mode_after = None
        registers = ("MASK", "MASK_MODE")

    support = _support(core, instruction)
    dst = require_ub_tensor(instruction, "dst", dst, core)
    tensors = [dst]
    for name in ("src0", "src1"):
        tensor = require_ub_tensor(instruction, name, bound[name], core)
        _require_same_dtype(instruction, name, tensor, dst.dtype)
        tensors.append(tensor)
    require_dtype(instruction, "dst", dst.dtype, support.dtypes, f"not supported on {core.chip.name}",
                  f"{page} 函数原型; {semantics('2.6')}")
    if strides[0] == 0:
        raise ParameterRangeError(instruction, "dst_block_stride", 0, "a destination block stride of 0 is "
                                  "undefined behaviour", "[1, 255]", DST_STRIDE_SOURCE)
    return SelectCall(instruction, dst.dtype, 0, lanes, strides, ("dst", "src0", "src1"), bits_from="cmpmask",
                      mask_words_after=words_after, mask_mode_after=mode_after,
                      registers_read=("CMPMASK", *registers), sync=instruction.endswith("_sync")), tensors


# ---------------------------------------------------------------- the plan
def _scratch_bytes(call: SelectCall) -> int:
    return {"scalar": SCRATCH_COPIES * call.dtype.itemsize, "address": SCRATCH_COPIES * 4,
            "cmpmask": 16 if call.dtype.itemsize == 2 else 8}[call.scratch_kind]


@memoized("select lane masks", 16)
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


@dataclass(eq=False)
class SelectPlan:
    """A checked Select call's geometry, relative to its tensors' addresses (docs/architecture.md).

    Attributes:
        call: the resolved call.
        footprints: dst, src0 and (a tensor) src1's element accesses relative to each tensor.
        sel_fp: the selMask bytes that hold an active lane's bit, relative to sel_mask (absolute
            for no-mask mode 2: at ``call.fixed_sel_addr``); ``None`` when bits come from CMPMASK.
        bit_index: per active lane (issue order), its bit in the unpacked selection bits.
        sel_bytes: selMask bytes read (stream / head), 0 if bits come from CMPMASK.
        sel_check: selMask byte offsets holding active bits, ``None`` if all of the first ``sel_bytes``.
    """

    call: SelectCall
    footprints: list[Footprint]
    sel_fp: Footprint | None
    bit_index: np.ndarray
    sel_bytes: int
    sel_check: np.ndarray | None

    @property
    def operands(self) -> tuple[str, ...]:
        return self.call.operands

    @classmethod
    def compile(cls, call: SelectCall, core: Core, tensors: list[LocalTensor]) -> SelectPlan:
        """The plan of a checked call; the rules that depend on the tensors' addresses are checked for
        ``tensors`` (this call's), as :meth:`bind` checks them for every other placement."""
        lanes, itemsize = call.lanes, call.dtype.itemsize
        d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = call.strides
        footprints = [strided_footprint("dst", 0, lanes, itemsize, d_blk, d_rep)]
        for name, blk, rep in (("src0", s0_blk, s0_rep), ("src1", s1_blk, s1_rep)):
            if name in call.operands:  # the tensor sources (mode 1: one, src0 or src1), in operand order
                footprints.append(strided_footprint(name, 0, lanes, itemsize, blk, rep))
        bit_index, sel_fp = _selection_bits(call)
        sel_bytes, sel_check = 0, None
        if sel_fp is not None:
            sel_check = np.unique(sel_fp.addrs) - (call.fixed_sel_addr or 0)
            sel_bytes = int(sel_check[-1]) + 1 if sel_check.size else 0
            if sel_check.size == sel_bytes:
                sel_check = None  # every byte up to sel_bytes holds an active bit: check the span
        plan = cls(call, footprints, sel_fp, bit_index, sel_bytes, sel_check)
        plan.placed(core, tensors)
        return plan

    def bind(self, core: Core, tensors: list[LocalTensor]) -> SelectBinding:
        """The per-placement checks in the plan step's order (each tensor usable, in UB and aligned; the
        CMPMASK load; bounds, overlap, scratch), then the views over this core's UB."""
        call = self.call
        for name, tensor in zip(call.operands, tensors, strict=True):
            require_ub_tensor(call.instruction, name, tensor, core)
        if call.cmpmask_after == "selmask":
            _check_cmpmask_load(call.instruction, tensors[-1])
        return SelectBinding(self, core, tensors, *self.placed(core, tensors))

    def placed(self, core: Core, tensors: list[LocalTensor]) -> tuple[list[Footprint], int | None, Footprint | None]:
        """The footprints at these tensors' addresses, checked against UB, the tensors' extents, each
        other (docs/semantics.md §1.6) and the API scratch (§2.3); also selMask's address and footprint."""
        call = self.call
        instruction = call.instruction
        footprints = [fp.moved(tensor.addr) for fp, tensor in zip(self.footprints, tensors, strict=False)]
        for fp, tensor in zip(footprints, tensors, strict=False):
            fp.check_in(instruction, tensor)
        sel = tensors[-1] if call.operands[-1] == "sel_mask" else None
        sel_addr = sel.addr if sel is not None else call.fixed_sel_addr
        sel_fp = self.sel_fp
        if sel_fp is not None:
            if sel is not None:
                sel_fp = sel_fp.moved(sel_addr)
                if not sel_fp.empty:
                    sel_fp.check_in(instruction, sel)
            elif not sel_fp.empty:
                core.ub.check_span(instruction, "sel_mask", sel_fp.lo, sel_fp.hi)
        dst, *reads = footprints
        if sel_fp is not None:
            reads.append(sel_fp)
        for footprint in reads:
            check_overlap(instruction, dst, footprint)
        if call.scratch_kind is not None and call.scratch_addr is not None:
            check_clear_of_scratch(
                instruction, call.scratch_addr, _scratch_bytes(call), [dst, *reads],
                "API scratch", "that this call overwrites (reserve the top 8 KiB of UB: 需要预留8KB UB)",
                f"{pages.SELECT} 约束说明; {semantics('2.3')}")
        return footprints, sel_addr, sel_fp


def _selection_bits(call: SelectCall) -> tuple[np.ndarray, Footprint | None]:
    """Per active lane (issue order), the index of its bit in the unpacked selection bits, and the
    footprint of the selMask bytes read (relative to selMask, or at ``call.fixed_sel_addr``; ``None``
    when bits come from CMPMASK)."""
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
    return positions, Footprint("sel_mask", (call.fixed_sel_addr or 0) + (positions >> 3), repeats, 1)


# ------------------------------------------------------------- the binding
class SelectBinding:
    """A :class:`SelectPlan` at one placement on one core: its operands' views, and what it touches.

    ``run`` does only what depends on memory or register contents: uninitialised-read
    checks, reading the selection bits, the select itself and the commit.

    View layout (the usual one): the packed selection bits become a lane mask through
    :func:`lane_masks` and ``dst = src1 ^ ((src0 ^ src1) & mask)`` runs on contiguous
    arrays (``tmp`` and ``mask_rows`` are the binding's scratch: no per-call allocation).
    The lane mask is a function of the packed bits alone, so it is remade only when a
    call's bits differ from the previous call's (``mask_bits``).  When every repeat selects
    with the same bits (mode 0: 16 bytes of CMPMASK), it is kept repeated to full size
    (``pattern``).  Flat layout: the active lanes' bits are picked by ``bit_index`` and
    ``np.where`` selects.
    """

    def __init__(self, plan: SelectPlan, core: Core, tensors: list[LocalTensor], footprints: list[Footprint],
                 sel_addr: int | None, sel_fp: Footprint | None) -> None:
        call = self.call = plan.call
        self.plan, self.footprints, self.sel_addr, self.sel_fp = plan, footprints, sel_addr, sel_fp
        self.registers_read, self.registers_written = call.registers_read, call.registers_written
        ub, lanes, itemsize, raw = core.ub, call.lanes, call.dtype.itemsize, call.dtype.raw
        d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = call.strides
        strides = {"dst": (d_blk, d_rep), "src0": (s0_blk, s0_rep), "src1": (s1_blk, s1_rep)}
        operands = [StridedOperand(tensor.addr, fp, *strides[fp.name])
                    for tensor, fp in zip(tensors, footprints, strict=False)]
        layout = choose_layout(ub, operands, lanes, operands[0])
        accesses = {fp.name: OperandAccess.build(ub, op, raw, lanes, layout)
                    for fp, op in zip(footprints, operands, strict=True)}
        self.dst = accesses["dst"]
        # src0 / src1 as tensors; the one that is mode 1's scalar is None
        self.src0: OperandAccess | None = accesses.get("src0")
        self.src1: OperandAccess | None = accesses.get("src1")
        self.bit_index = plan.bit_index if layout == "flat" else None
        self.sel_span = None  # the selMask bytes read, when their check is a span check
        if sel_fp is not None and plan.sel_check is None:
            self.sel_span = ByteSpan("sel_mask", sel_addr, sel_addr + plan.sel_bytes)
        self.cmpmask_span = None  # mode 0 tensor forms: the selMask bytes whose check precedes the load
        if call.cmpmask_after == "selmask":
            self.cmpmask_span = ByteSpan("sel_mask", sel_addr, sel_addr + max(lanes.lanes // 8, 1))
        self.scratch = None  # the UB scratch this call writes (docs/semantics.md §2.3)
        self.scratch_payload = self.scratch_cmpmask = None  # its bytes, and CMPMASK, when they never change
        if call.scratch_kind is not None and call.scratch_addr is not None:
            self.scratch = ByteSpan("scratch", call.scratch_addr, call.scratch_addr + _scratch_bytes(call))
            if call.scratch_kind == "address":
                self.scratch_payload = np.frombuffer(self._copies(None), dtype=np.uint8)
                self.scratch_cmpmask = self.scratch_payload[:CMPMASK_BYTES].tobytes()
        self.scalar_copies: tuple | None = None  # mode 1: (scalar bits, scratch payload, CMPMASK) of the latest
        self.scalar_lanes: tuple | None = None  # mode 1, view layout: (scalar bits, the scalar in every lane)
        self.tmp = self.lane_table = self.mask_rows = self.mask = self.pattern = None
        self.mask_bits: bytes | None = None  # view layout: the packed bits ``mask`` (and ``pattern``) were made from
        if layout == "view":
            block = elems_per_block(itemsize)
            self.tmp = np.empty((lanes.repeats, BLOCKS_PER_REPEAT, block), raw)  # (repeats, 8, B) raw scratch
            self.lane_table = lane_masks(raw)
            mask_buffer = np.zeros((self.stream_bytes, 8), raw)
            read = plan.sel_bytes if sel_fp is not None else min(self.stream_bytes, CMPMASK_BYTES)
            self.mask_rows = mask_buffer[:read]  # (packed bytes read, 8) lane masks, written by np.take
            repeats = lanes.repeats if call.bits_from == "stream" else 1
            self.mask = mask_buffer.reshape(repeats, BLOCKS_PER_REPEAT, block)  # bits past the read are 0
            if call.bits_from != "stream":
                self.pattern = np.empty_like(self.tmp)  # the bits are the same in every repeat: ``mask`` in each

    # --------------------------------------------------------- access records
    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        ranges = [r for fp in self.footprints[1:] for r in ranges_of_addresses("UB", fp.byte_addrs()[0])]
        if self.sel_fp is not None:
            ranges += ranges_of_addresses("UB", self.sel_fp.addrs)
        if self.call.cmpmask_after == "selmask":
            ranges.append(ByteRange("UB", self.sel_addr, self.sel_addr + CMPMASK_BYTES))
        return merge_ranges(ranges)

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        ranges = ranges_of_addresses("UB", self.footprints[0].byte_addrs()[0])
        if self.scratch is not None:
            ranges.append(ByteRange("UB", self.scratch.start, self.scratch.stop))
        return merge_ranges(ranges)

    # ----------------------------------------------------------------- run
    def run(self, core: Core, values: tuple) -> None:
        """Read, select, then commit (:meth:`_commit`); mode 1 takes its scalar from ``values``."""
        call, ub = self.call, core.ub
        instruction = call.instruction

        # --- values that depend on the call's arguments or on register contents
        scalar = scratch = None
        scalar_from = call.scalar_from
        if scalar_from == "argument":
            scalar = scalar_raw_bits(instruction, call.scalar_name, values[call.scalar_at], call.dtype)
        elif scalar_from == "cmpmask":
            core.report_unset_cmpmask(instruction)
            scalar = np.frombuffer(core.cmpmask[: call.dtype.itemsize], dtype=call.dtype.raw)
        bits = None  # the CMPMASK bits select from, as uint8; None: from selMask in memory
        cmpmask = None  # CMPMASK after the call, None: unchanged
        cmpmask_after = call.cmpmask_after
        if cmpmask_after == "selmask":  # mode 0 tensor forms: CMPMASK = the first 16 bytes of selMask
            self.cmpmask_span.check_initialized(ub, instruction)
            cmpmask = ub.data[self.sel_addr : self.sel_addr + CMPMASK_BYTES].tobytes()
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
        for source in (self.src0, self.src1):
            if source is not None and source.seen_written != epoch:
                source.check_initialized(ub, instruction)
        packed = self._packed_bits(ub, bits)
        if self.tmp is not None:
            blended, second = self._blend(ub, packed, scalar)
            self._commit(core, None, blended, second, scratch, cmpmask)
        else:
            self._commit(core, self._where(ub, packed, scalar), None, None, scratch, cmpmask)

    def _commit(self, core: Core, result, blended, second, scratch, cmpmask: bytes | None) -> None:
        """Store a computed call: dst, the UB scratch, CMPMASK, the mask registers (in that order), and
        a ``*_sync`` C API call's barrier.

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
            core.set_mask_words(*call.mask_words_after)
        if call.mask_mode_after is not None:
            core.set_mask_mode(call.mask_mode_after)
        if call.sync:
            record_pipe_barrier(core)

    def _blend(self, ub, packed: np.ndarray, scalar) -> tuple[np.ndarray, np.ndarray]:
        """View layout: ``(src0 ^ src1) & mask`` per lane, in the binding's own buffer, and ``src1``.

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
        first = self.src0.gather(ub, raw) if self.src0 is not None else self._scalar_lanes(scalar)
        second = self.src1.gather(ub, raw) if self.src1 is not None else self._scalar_lanes(scalar)
        tmp = self.tmp
        np.bitwise_xor(first, second, out=tmp)
        np.bitwise_and(tmp, mask, out=tmp)
        return tmp, second

    def _scalar_lanes(self, scalar: np.ndarray):
        """Mode 1's scalar as an operand: its bits in every lane for a short call (ufuncs on equal
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
        chosen0 = self.src0.gather(ub, raw) if self.src0 is not None else scalar
        chosen1 = self.src1.gather(ub, raw) if self.src1 is not None else scalar
        return np.where(bits, chosen0, chosen1)

    def _packed_bits(self, ub, cmpmask: np.ndarray | None) -> np.ndarray:
        """The packed selection bits a call reads (uint8): CMPMASK's, or selMask's after its check."""
        if cmpmask is not None:
            return cmpmask[: min(self.stream_bytes, CMPMASK_BYTES)]
        if self.sel_span is not None:
            self.sel_span.check_initialized(ub, self.call.instruction)
            return self.sel_span.read(ub)
        start, sel_check = self.sel_addr, self.plan.sel_check
        if sel_check.size:
            ub.check_initialized(self.call.instruction, "sel_mask", sel_check + start, 1)
        return ub.data[start : start + self.plan.sel_bytes]

    def _copies(self, scalar) -> bytes:
        call = self.call
        if call.scratch_kind == "address" or (call.scratch_kind is None and call.mode == 2):
            return np.full(SCRATCH_COPIES, self.sel_addr, dtype="<u4").tobytes()
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


# ------------------------------------------------------------------ the API
def _compiled(planned: tuple[SelectCall, list[LocalTensor]], core: Core) -> SelectPlan:
    call, tensors = planned
    return SelectPlan.compile(call, core, tensors)


def _compile(core: Core, form: str, bound: dict):
    """A ``select`` call's plan: Select.md's forms, or (the 950) Select（灵活标量位置）'s."""
    if form.startswith(FLEX_PREFIX):
        return _compile_flexible(core, form, bound)
    if form in ("count", "mask") and is_tensor(bound["src1"]) and _is_int(bound["sel_mode"]) \
            and int(bound["sel_mode"]) == SelMode.VSEL_TENSOR_SCALAR_MODE:
        # mode 1 with two tensors: the flexible form with src1's first element (BinaryConfig's default index 1)
        return _compile_flexible(core, FLEX_PREFIX + form, {**bound, "scalar_tensor_index": 1})
    return _compiled(_plan("select", core, form, bound), core)


def _compile_flexible(core: Core, form: str, bound: dict):
    """Select（灵活标量位置）(docs/semantics.md §2.7): mode 1 only ("针对模式1，提供灵活标量位置的接口"), which
    source is the scalar (:mod:`.flexible_scalar`), then mode 1's plan with it (a number per call, or the
    element's own bits, read when the call runs)."""
    page = pages.SELECT_FLEXIBLE
    if core.chip.name not in FLEXIBLE_PRODUCTS:
        raise unsupported_on(core.chip, "select", "Select with the scalar first or a tensor element",
                             lambda c: c.name in FLEXIBLE_PRODUCTS,
                             f"{page} 产品支持情况; {semantics('2.7')}")
    names = next(f for f in FLEXIBLE_FORMS if f.name == form).names
    position = scalar_position("select", bound, page, names)
    mode = int(bound["sel_mode"])
    if mode != SelMode.VSEL_TENSOR_SCALAR_MODE:
        raise ParameterRangeError("select", "sel_mode", mode, "the flexible scalar position is mode 1's alone "
                                  "(a scalar or a tensor element as src0 or src1)", "1 (VSEL_TENSOR_SCALAR_MODE)",
                                  FLEXIBLE_SOURCE)
    call, tensors = _plan("select", core, form.removeprefix(FLEX_PREFIX), bound, position)
    if position.element and position.scalar == "src0":
        _check_element_tail_stride(call)
    return with_element(_compiled((call, tensors), core), "select", page, position, bound, call.dtype, core,
                        raw_bits=True)


def _check_element_tail_stride(call: SelectCall) -> None:
    """src0's element and a 32-bit T: the 950 runs the repeats two at a time and places the odd last one of
    src1 with src0's repeat stride (dav_3510 ``SelectBothTensorMode1Level0``, scalarIdx 0: ``offset0`` from
    ``src0RepStride``); the page says src1's.  npusim models neither guess where the two differ."""
    s0_rep, s1_rep = call.strides[4], call.strides[5]
    if call.dtype.itemsize == 4 and call.lanes.repeats % 2 and s0_rep != s1_rep:
        raise UnsupportedError(
            "select", "repeat_params.src0_rep_stride", s0_rep,
            f"with src0's element as the scalar, 32-bit data and an odd number of repeats ({call.lanes.repeats}), "
            f"the 950 places src1's last repeat with src0's repeat stride, not src1's ({s1_rep}); npusim does "
            "not guess which", "src0_rep_stride equal to src1_rep_stride, or an even number of repeats",
            f"{pages.SELECT_FLEXIBLE} 参数说明; {semantics('2.7')}",
        )


def _plan_context(core: Core, form: str, values: tuple) -> tuple:
    """The register configuration a ``select`` plan depends on: none for the count forms; the mask mode
    for the mask forms; the vector mask too for the no-mask forms, and for no-mask mode 2 the CMPMASK
    bytes that hold its selMask address."""
    form = form.removeprefix(FLEX_PREFIX)
    if form == "count":
        return ()
    if form == "mask":
        return (core.mask_mode,)
    if form == "no_mask" and values[_NO_MASK_MODE] == 2:
        return (core.mask_mode, core.mask_words, core.cmpmask[: _address_width(core.chip.select)])
    return (core.mask_mode, core.mask_words)


def _fast_context(core: Core) -> tuple:
    return (core.mask_mode, core.mask_words)


def _fast_ok(form: str, values: tuple) -> bool:
    """No-mask mode 2 plans from CMPMASK, which the raw-argument key does not hold."""
    return form != "no_mask" or values[_NO_MASK_MODE] != 2


_SETUP = ("src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
          "src1 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 256)\n"
          "sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 2048, 32)\n"
          "dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 3072, 256)\n")
SELECT_EXAMPLES = (  # Select.md 调用示例: float32, 256 elements, a uint8 selMask
    _SETUP + "asc.select(dst, sel, src0, src1, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, 256)",
    _SETUP + "asc.select(dst, sel, src0, 0.0, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 64, 4, asc.BinaryRepeatParams())",
    _SETUP + "asc.set_cmp_mask(src1)\n"  # mode 1 without a mask: the scalar is CMPMASK's first element
    "asc.set_vector_mask(0, 0xFFFF_FFFF_FFFF_FFFF)\n"
    "asc.select(dst, sel, src0, 4, asc.BinaryRepeatParams())",
    _SETUP + "asc.set_cmp_mask(sel)\n"
    "asc.select(dst, src0, src1, 4, asc.BinaryRepeatParams(), asc.SelMode.VSEL_CMPMASK_SPR)",
)
#: the 950's complex rows (docs/semantics.md §5.29: count form, a complex scalar in mode 1)
SELECT_EXAMPLES_950 = tuple(
    _SETUP.replace("asc.float32", f"asc.{dtype}") + f"asc.select(dst, sel, src0, {src1}, asc.SelMode.{mode}, 100)"
    for dtype, src1, mode in (("complex64", "src1", "VSEL_TENSOR_TENSOR_MODE"),
                              ("complex32", "0.5 - 1j", "VSEL_TENSOR_SCALAR_MODE"))) + (
    # Select（灵活标量位置）.md 调用示例 (mode 1): src1's element, then src0's; a number first in a mask form
    _SETUP + "asc.select(dst, sel, src0, src1, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 256)",
    _SETUP + "asc.select(dst, sel, src0, src1, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 256, scalar_tensor_index=0)",
    _SETUP + "asc.select(dst, sel, -1.5, src1, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, [(1 << 64) - 1, 0], 2, "
             "asc.BinaryRepeatParams(1, 1, 2, 8, 8, 16))",
    _SETUP.replace("asc.float32", "asc.complex64")
    + "asc.select(dst, sel, src0, src1, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 96, scalar_tensor_index=0)",
)
_C_SETUP = ("src0 = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
            "src1 = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 512, 256)\n"
            "dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)\n"
            "asc.asc_set_cmp_mask(asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 2048, 16))\n")


def _c_api_examples(name: str) -> tuple[str, ...]:
    return (_C_SETUP + f"asc.{name}(dst, src0, src1, 200)",
            _C_SETUP + f"asc.{name}(dst, src0, src1, 2, 1, 1, 1, 8, 8, 8)")


select = register(Instruction(
    "select", "ascend", "select", "V", (*SELECT_FORMS, *FLEXIBLE_FORMS), _compile,
    f"{pages.SELECT} 功能说明; {pages.SELECT_FLEXIBLE} 功能说明; {semantics('2')}",
    support=lambda chip: chip.select, exactness=BIT_EXACT,
    summary="dst = selection bit ? src0 : src1 per lane (mode 0: CMPMASK bits; 1: src1 a scalar; 2: selMask bits)",
    examples=SELECT_EXAMPLES, examples_on={"950": SELECT_EXAMPLES_950}, per_call=frozenset({"src0", "src1"}),
    plan_context=_plan_context,
    fast_context=_fast_context, fast_ok=_fast_ok,
    doc="``asc.select`` in every form of Select.md (pyasc parameter names): per lane, src0 where the selection "
        "bit is 1, else src1.\n\n``src1`` is a tensor in modes 0 and 2 and a scalar in mode 1.  ``mask`` is an "
        "int (contiguous mode) or a list of uint64 words (bitwise mode); the forms without it use the vector "
        "mask register and CMPMASK set beforehand.\n\nThe 950, mode 1: the scalar may be src0 (a selection bit 1 "
        "takes it, 0 takes src1), and either scalar may be a tensor's first element (Select（灵活标量位置）.md; "
        "``scalar_tensor_index`` names it, default 1: a mode-1 call with two tensors takes src1's).",
))


def _register_asc_select(name: str):
    return register(Instruction(
        name, "ascend", "select", "V", C_API_FORMS,
        lambda core, form, values: _compiled(_plan_asc_select(name, core, form, values), core),
        f"{c_api_page(name)}; {semantics('2.6')}", support=lambda chip: chip.select if chip.c_api else None,
        exactness=BIT_EXACT, summary="vsel in mode 0: dst = CMPMASK bit ? src0 : src1 per lane (C API)",
        examples=_c_api_examples(name), plan_context=count_form_context, fast_context=_fast_context, alias_of="select",
        doc="``vsel`` in mode 0: per lane, src0 where the CMPMASK bit is 1, else src1 (asc_select.md).\n\n"
            "The count form is ``set_mask_count(); set_vector_mask(0, count); vsel; set_mask_norm()``: afterwards "
            "the core is in normal mode with ``count`` left in the mask register's low word."
            + ("  Followed by ``pipe_barrier(PIPE_ALL)``." if name.endswith("_sync") else ""),
    ))


asc_select = _register_asc_select("asc_select")
asc_select_sync = _register_asc_select("asc_select_sync")
