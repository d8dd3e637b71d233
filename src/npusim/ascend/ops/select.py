"""``Select`` (``vsel``): per lane, take src0 where the selection bit is 1, else src1.

Semantics (seed 003; ref §2):

* ``tmp = bit ? src0 : src1`` (mode 1: src1 is a scalar); active lanes get ``dst = tmp``,
  masked-off lanes keep their old dst value.
* Mode 0 (``VSEL_CMPMASK_SPR``): ``bit(r, j)`` = CMPMASK bit ``j``, the same in every repeat.
  The tensor forms first load the first 16 bytes of selMask into CMPMASK.
* Modes 1 and 2: ``bit(r, j)`` = selMask bit ``r * E + j`` (LSB first): the bit stream is
  consumed contiguously, ``E / 8`` bytes per repeat, whatever the strides or the mask.
* dst, src0 and src1 follow the repeat/DataBlock address formula of ref §1.1.

Side effects of the native (``vsel``) lowering on A2/A3 and 310P (ref §2.2, §2.6): modes 1
and 2 write 32 scalar copies or 32 copies of the 32-bit selMask address to the UB scratch
at ``TMP_UB_OFFSET`` and load CMPMASK from there; mode 0 loads CMPMASK from selMask; mask
forms leave their mask in the vector mask register; count forms end in normal mode with
the register all ones.  Vector-function lowerings (950, 310B, Kirin) leave the registers
alone.  The whole call is planned and checked before anything is written.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...overloads import Form, Param, bind
from ...validate import require_bool
from ..addressing import ActiveLanes, mask_word_bits
from ..chips import SEL_MASK_DTYPES, SelectSupport, unsupported_on
from ..core import CMPMASK_BYTES, FULL_WORD, Core, current_core
from ..footprint import Footprint, check_overlap, strided_footprint
from ..masking import MaskWords, lanes_from_count, lanes_from_mask_arg, lanes_from_register
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, MaskMode, SelMode
from .common import is_scalar, is_tensor, require_dtype, require_repeat_params, require_ub_tensor, scalar_bits

__all__ = ["SELECT_FORMS", "run_select", "select"]

DEFAULT_STRIDES = (1, 1, 1, 8, 8, 8)
SCRATCH_COPIES = 32  # Duplicate of ONE_BLK_SIZE elements into the scratch (ref §2.6)


def _is_int(v) -> bool:
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_mask(v) -> bool:
    return _is_int(v) or (isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, (str, bytes)))


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
    """A fully resolved Select call: operands, lanes and the register/scratch effects to commit."""

    instruction: str
    core: Core
    dtype: DType
    mode: int
    dst: LocalTensor
    src0: LocalTensor
    src1: LocalTensor | None
    scalar_raw: np.ndarray | None
    lanes: ActiveLanes
    strides: tuple[int, ...]
    sel: LocalTensor | None = None
    sel_addr: int | None = None
    cmpmask_for_bits: bytes | None = None
    scratch: tuple[int, bytes] | None = None
    cmpmask_after: bytes | None = None
    mask_words_after: MaskWords | None = None
    mask_mode_after: MaskMode | None = None


def select(dst: LocalTensor, *args, **kwargs) -> None:
    """``asc.select`` in every form of seed 003 (pyasc parameter names).

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
    form, bound = bind(instruction, SELECT_FORMS, args, kwargs)
    core = current_core(instruction)
    call = _plan(instruction, core, form, dst, bound)
    _execute(call)


# ----------------------------------------------------------------- planning
def _support(core: Core, instruction: str) -> SelectSupport:
    support = core.chip.select
    if support is None:
        raise unsupported_on(core.chip, instruction, "Select", lambda c: c.select is not None)
    return support


def _mode(instruction: str, value, support: SelectSupport, core: Core, allowed=None) -> int:
    mode = int(value)
    if mode not in (0, 1, 2):
        raise ParameterRangeError(instruction, "sel_mode", mode, "unknown SELMODE", "0, 1, 2 (asc.SelMode)")
    allowed = support.modes if allowed is None else allowed
    if mode not in allowed:
        raise UnsupportedError(
            instruction, "sel_mode", SelMode(mode).name, f"this form does not support mode {mode} on "
            f"{core.chip.product}", ", ".join(SelMode(m).name for m in sorted(allowed)) or "none",
            "Select.md 'Availability'; ref §2.4",
        )
    return mode


def _plan(instruction: str, core: Core, form: str, dst, bound: dict) -> SelectCall:
    support = _support(core, instruction)
    dst = require_ub_tensor(instruction, "dst", dst, core)
    dtype = dst.dtype
    src0 = require_ub_tensor(instruction, "src0", bound["src0"], core)
    allowed_t = support.count_dtypes if form == "count" else support.dtypes
    require_dtype(instruction, "dst", dtype, allowed_t, f"Select does not support this data type on {core.chip.name}")
    if src0.dtype != dtype:
        raise UnsupportedError(instruction, "src0 dtype", src0.dtype.name, "src0 must have dst's dtype", dtype.name)

    if form == "no_mask_scalar":
        mode = _mode(instruction, SelMode.VSEL_TENSOR_SCALAR_MODE, support, core, support.no_mask_modes)
    else:
        mode = _mode(instruction, bound["sel_mode"], support, core,
                     support.no_mask_modes if form == "no_mask" else None)
    if dtype.itemsize == 8 and mode == 0:
        raise UnsupportedError(
            instruction, "sel_mode", "VSEL_CMPMASK_SPR", "mode 0 with 64-bit data reuses selMask bits in a "
            "pattern the documents leave unresolved; npusim does not guess it", "modes 1 and 2", "ref §9.5",
        )

    src1 = bound.get("src1")
    scalar_raw = None
    if form in ("count", "mask"):
        if mode == 1:
            if not is_scalar(src1):
                raise TypeError(f"{instruction}: src1 must be a scalar in mode 1 (VSEL_TENSOR_SCALAR_MODE), "
                                f"got {type(src1).__name__}")
            scalar_raw = scalar_bits(instruction, "src1", src1, dtype)
            src1 = None
        elif not is_tensor(src1):
            raise TypeError(f"{instruction}: src1 must be a LocalTensor in mode {mode}, got {type(src1).__name__}")
    if is_tensor(src1):
        src1 = require_ub_tensor(instruction, "src1", src1, core)
        if src1.dtype != dtype:
            raise UnsupportedError(instruction, "src1 dtype", src1.dtype.name, "src1 must have dst's dtype",
                                   dtype.name)
    else:
        src1 = None

    sel = bound.get("sel_mask")
    if sel is not None:
        sel = require_ub_tensor(instruction, "sel_mask", sel, core)
        require_dtype(instruction, "sel_mask", sel.dtype, SEL_MASK_DTYPES, "selMask must be an unsigned integer tensor")

    call = SelectCall(instruction, core, dtype, mode, dst, src0, src1, scalar_raw,
                      lanes=None, strides=DEFAULT_STRIDES, sel=sel)  # type: ignore[arg-type]
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
                "beforehand call a form without the mask parameter", "True", "Select.md 'isSetMask'",
            )
        call.strides = require_repeat_params(instruction, bound["repeat_params"], BinaryRepeatParams)
        call.lanes, words = lanes_from_mask_arg(core, instruction, bound["mask"], bound["repeat_times"], itemsize,
                                                lowering_counts_raw=not native)
        if native:
            call.mask_words_after = words
        _plan_tensor_form_registers(call, support)
    else:
        call.strides = require_repeat_params(instruction, bound["repeat_params"], BinaryRepeatParams)
        call.lanes = lanes_from_register(core, instruction, bound["repeat_times"], itemsize)
        _plan_no_mask_registers(call, support)
    if call.strides[0] == 0:
        raise ParameterRangeError(instruction, "repeat_params.dst_blk_stride", 0,
                                  "a destination block stride of 0 is undefined behaviour", "[1, 255]",
                                  "ref §1.1 (高维切分.md)")
    return call


def _plan_tensor_form_registers(call: SelectCall, support: SelectSupport) -> None:
    """CMPMASK, scratch and selMask source for the forms that take a selMask tensor."""
    sel = call.sel
    if support.lowering != "native":
        call.sel_addr = sel.addr
        return
    if call.mode == 0:
        call.core.ub.check_span(call.instruction, "sel_mask (CMPMASK load)", sel.addr, sel.addr + CMPMASK_BYTES)
        sel.check_span(call.instruction, "sel_mask (CMPMASK load)", sel.addr, sel.addr + CMPMASK_BYTES)
        call.cmpmask_after = bytes(call.core.ub.data[sel.addr : sel.addr + CMPMASK_BYTES])
        call.cmpmask_for_bits = call.cmpmask_after
        return
    call.sel_addr = sel.addr
    if call.mode == 1:
        copies = np.repeat(call.scalar_raw, SCRATCH_COPIES).tobytes()
    else:
        copies = np.full(SCRATCH_COPIES, sel.addr, dtype="<u4").tobytes()
    call.cmpmask_after = copies[:CMPMASK_BYTES]
    if support.scratch_offset_bytes is not None:
        call.scratch = (support.scratch_offset_bytes, copies)


def _plan_no_mask_registers(call: SelectCall, support: SelectSupport) -> None:
    """Where the no-mask forms take their bits, scalar or selMask address from: CMPMASK (ref §2.3)."""
    core = call.core
    if not core.cmpmask_written:
        core.report_unset_cmpmask(call.instruction)
    cmpmask = core.cmpmask
    if call.mode == 0:
        call.cmpmask_for_bits = cmpmask
        if support.no_mask_spill_offset_bytes is not None:
            spill = cmpmask[: 16 if call.dtype.itemsize == 2 else 8]
            call.scratch = (support.no_mask_spill_offset_bytes, spill)
    elif call.mode == 1:
        call.scalar_raw = np.frombuffer(cmpmask[: call.dtype.itemsize], dtype=call.dtype.raw).copy()
        call.sel_addr = call.sel.addr
    else:
        width = 4 if support.lowering == "native" else 8
        address = int.from_bytes(cmpmask[:width], "little")
        if address % 32 or address >= core.ub.size_bytes:
            raise ParameterRangeError(
                call.instruction, "CMPMASK (selMask address)", address,
                "mode 2 reads selMask at the UB address held in CMPMASK; it must be a 32-byte aligned UB address",
                f"multiples of 32 below {core.ub.size_bytes:#x}", "SetCmpMask(ISASI).md; ref §2.3",
            )
        call.sel_addr = address


# ---------------------------------------------------------------- execution
def _sel_bit_positions(call: SelectCall) -> tuple[np.ndarray, Footprint | None]:
    """Per active lane, the bit of the selMask stream (or of CMPMASK) that chooses it."""
    lanes = call.lanes
    grid_r = np.arange(lanes.repeats, dtype=np.int64)[:, None]
    grid_j = np.arange(lanes.lanes, dtype=np.int64)[None, :]
    if call.mode == 0:
        positions = lanes.select(np.broadcast_to(grid_j, (lanes.repeats, lanes.lanes)))
    else:
        positions = lanes.select(grid_r * lanes.lanes + grid_j)
    if call.sel_addr is None:
        return positions, None
    repeats = lanes.select(np.broadcast_to(grid_r, (lanes.repeats, lanes.lanes)))
    return positions, Footprint("sel_mask", call.sel_addr + (positions >> 3), repeats, 1)


def _execute(call: SelectCall) -> None:
    ub = call.core.ub
    lanes = call.lanes
    itemsize = call.dtype.itemsize
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = call.strides
    dst_fp = strided_footprint("dst", call.dst.addr, lanes, itemsize, d_blk, d_rep)
    src0_fp = strided_footprint("src0", call.src0.addr, lanes, itemsize, s0_blk, s0_rep)
    src1_fp = (strided_footprint("src1", call.src1.addr, lanes, itemsize, s1_blk, s1_rep)
               if call.src1 is not None else None)
    bit_positions, sel_fp = _sel_bit_positions(call)

    # --- plan: bounds and overlap (nothing has been written yet)
    dst_fp.check_in(call.instruction, call.dst)
    src0_fp.check_in(call.instruction, call.src0)
    if src1_fp is not None:
        src1_fp.check_in(call.instruction, call.src1)
    if sel_fp is not None and not sel_fp.empty:
        if call.sel is not None:
            sel_fp.check_in(call.instruction, call.sel)
        else:
            ub.check_span(call.instruction, "sel_mask", sel_fp.lo, sel_fp.hi)
    reads = [fp for fp in (src0_fp, src1_fp, sel_fp) if fp is not None]
    for fp in reads:
        check_overlap(call.instruction, dst_fp, fp)
    if call.scratch is not None:
        _check_clear_of_scratch(call, [dst_fp, *reads])

    # --- execute: gather and compute from memory as it is before any write
    for fp in reads:
        if fp.name == "sel_mask":
            ub.check_initialized(call.instruction, fp.name, np.unique(fp.addrs), 1)
        else:
            ub.check_initialized(call.instruction, fp.name, fp.elem_index, itemsize)
    if call.mode == 0 and call.cmpmask_for_bits is not None and call.sel is not None:
        ub.check_initialized_span(call.instruction, "sel_mask", call.sel.addr,
                                  call.sel.addr + max(lanes.lanes // 8, 1))
    raw = call.dtype.raw
    if sel_fp is not None:
        bits = (ub.data[sel_fp.addrs] >> (bit_positions & 7).astype(np.uint8)) & 1
    else:
        bits = mask_word_bits(_words(call.cmpmask_for_bits), lanes.lanes)[bit_positions]
    chosen0 = ub.gather(src0_fp.elem_index, raw)
    chosen1 = ub.gather(src1_fp.elem_index, raw) if src1_fp is not None else call.scalar_raw
    result = np.where(bits.astype(bool), chosen0, chosen1).astype(raw, copy=False)

    # --- commit
    if call.scratch is not None:
        ub.write_bytes(call.scratch[0], call.scratch[1], who=call.instruction)
    if call.cmpmask_after is not None:
        call.core.load_cmpmask(call.cmpmask_after)
    if call.mask_words_after is not None:
        call.core.mask_words = call.mask_words_after
    if call.mask_mode_after is not None:
        call.core.mask_mode = call.mask_mode_after
    if not dst_fp.empty:
        ub.scatter(dst_fp.elem_index, result)


def _words(cmpmask: bytes) -> tuple[int, int]:
    return int.from_bytes(cmpmask[:8], "little"), int.from_bytes(cmpmask[8:16], "little")


def _check_clear_of_scratch(call: SelectCall, footprints: list[Footprint]) -> None:
    start, payload = call.scratch
    stop = start + len(payload)
    for fp in footprints:
        if not fp.empty and fp.lo < stop and start < fp.hi:
            raise OverlapError(
                call.instruction, fp.name, f"bytes [{fp.lo:#x}, {fp.hi:#x})",
                f"the operand lies in the API scratch [{start:#x}, {stop:#x}) that this call overwrites "
                "(reserve the top 8 KiB of UB: 需要预留8KB UB)", f"UB outside [{start:#x}, {stop:#x})",
                "ref §2.6",
            )



def vsel_cmpmask(
    instruction: str, core: Core, dst, src0, src1, lanes: ActiveLanes, strides: tuple[int, ...],
    mask_words_after: MaskWords | None = None, mask_mode_after: MaskMode | None = None,
) -> None:
    """The bare ``vsel`` in mode 0 (CMPMASK bits), as the C API issues it (ref §2.2).

    ``dst``, ``src0`` and ``src1`` are checked as for :func:`select`; the dtype must be one
    of the product's Select dtypes.
    """
    support = _support(core, instruction)
    dst = require_ub_tensor(instruction, "dst", dst, core)
    for name, tensor in (("src0", src0), ("src1", src1)):
        tensor = require_ub_tensor(instruction, name, tensor, core)
        if tensor.dtype != dst.dtype:
            raise UnsupportedError(instruction, f"{name} dtype", tensor.dtype.name, f"{name} must have dst's dtype",
                                   dst.dtype.name)
    require_dtype(instruction, "dst", dst.dtype, support.dtypes, f"not supported on {core.chip.name}")
    if strides[0] == 0:
        raise ParameterRangeError(instruction, "dst_block_stride", 0, "a destination block stride of 0 is "
                                  "undefined behaviour", "[1, 255]", "ref §1.1 (高维切分.md)")
    core.report_unset_cmpmask(instruction)
    call = SelectCall(instruction, core, dst.dtype, 0, dst, src0, src1, None, lanes, strides,
                      cmpmask_for_bits=core.cmpmask, mask_words_after=mask_words_after,
                      mask_mode_after=mask_mode_after)
    _execute(call)
