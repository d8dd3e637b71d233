"""The dequantisation instructions: ``SetDeqScale`` (DEQSCALE), ``CastDequant`` and their C API functions.

Pages (docs/semantics.md §5.21): Memory矢量计算/类型转换/寄存器配置说明/SetDeqScale.md,
复合计算/CastDequant.md; C API vector_compute/asc_set_deq_scale.md, asc_deq_int322half.md,
asc_deq_int162b8.md, asc_vdeq_int162b8.md.  pyasc (``basic/vec_vconv.py``) names them
``set_deq_scale`` and ``cast_deq``::

    set_deq_scale(scale)                             # half scale: int32 -> half (Cast, CastDequant)
    set_deq_scale(scale, offset, sign_mode)          # float scale, 9-bit offset, sign: int16 -> b8
    set_deq_scale(vdeq, vdeq_info)                   # 16 parameter sets packed into a uint64 UB tensor
    cast_deq(dst, src, count, is_vec_deq=True, half_block=True)
    cast_deq(dst, src, mask, repeat_times, repeat_params, is_set_mask=True, is_vec_deq=True, half_block=True)

**The register.**  ``Core.deqscale`` (``DEQSCALE`` in access records) is ``None`` until the first
SetDeqScale: the documents give no power-on value, so a dequantising call before one is a
``RuntimeMisuseError``, as is a call whose prototype does not match the last SetDeqScale
(CastDequant.md 约束说明, the mapping table).  On the A2/A3 and 310P the prototypes share one
hardware register, on the 950 the API keeps the half scale apart (:class:`~npusim.ascend.chips.DequantSupport`).

**int16 -> b8** (``vconv_deqs162b8h/l``, ``vconv_vdeqs162b8h/l``): a repeat has 128 int16 lanes (the
wider type), the mask counts them; lane ``k`` of a repeat reads its source element as an int16
operand does, and writes one byte in dst's DataBlock ``k // 16``: byte ``k % 16`` of the block's
upper half (``half_block=True``, the ``_h`` C functions; bytes 16-31) or lower half (bytes 0-15).
The other half of each block is not written.  dst's block and repeat strides count 32-byte blocks
as everywhere, so contiguous data needs ``{1, 1, 8, 8}`` and dst is as many bytes as src.  With
``is_vec_deq`` the lane uses parameter set ``k % 16`` of the table DEQSCALE points at, read from UB
per call.  int32 -> half is Cast's conversion (:mod:`.cast`), on Cast's plan.  The arithmetic of a
lane is :mod:`.deq_conversion` (an accuracy model, docs/numerics.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES
from ...engine.plan import SelfBinding
from ...engine.registry import ACCURACY_MODEL, BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError, RuntimeMisuseError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...rounding import float_bits
from ...sources import semantics
from ...validate import require_bool, require_int, require_uint
from .. import pages
from ..addressing import (
    BLOCK_BYTES,
    BLOCKS_PER_REPEAT,
    ActiveLanes,
    counter_mode_lanes,
    lane_offsets,
    lanes_per_repeat,
)
from ..chips import unsupported_on
from ..core import Core, DeqScale
from ..footprint import Footprint, check_overlap
from ..masking import lanes_from_register, mask_form_lanes
from ..operands import OperandAccess, StridedOperand
from ..scalars import is_scalar, require_scalar
from ..tensor import LocalTensor
from ..types import MaskMode, RoundMode, UnaryRepeatParams, VdeqInfo
from . import cast as cast_module
from .common import (
    DST,
    c_api_page,
    count_form_context,
    is_bool_arg,
    is_int_arg,
    is_mask_arg,
    is_tensor,
    is_unary_params,
    record_pipe_barrier,
    require_repeat_params,
    require_ub_tensor,
)
from .deq_conversion import DEQ, FoldedB8, fold_b8, int16_to_b8, pack_word, require_word, word_fields
from .elementwise import DST_STRIDE_SOURCE, _count_form_registers

__all__ = ["cast_deq", "set_deq_scale"]

SET_PAGE, CAST_PAGE = pages.SET_DEQ_SCALE, pages.CAST_DEQUANT
RULES = semantics("5.21")
VDEQ_ENTRIES = 16
VDEQ_BYTES = VDEQ_ENTRIES * 8  # "大小为128Byte"
SRC_LANES = lanes_per_repeat(2)  # 128 int16 lanes per repeat
HALF_BLOCK_BYTES = 16
_FLOAT16, _FLOAT32 = DTYPES["float16"], DTYPES["float32"]


def _anything(_value) -> bool:
    return True  # checked by the plan step, naming the parameter


def require_dequant(core: Core, instruction: str, page: str):
    """The product's :class:`~npusim.ascend.chips.DequantSupport`; UnsupportedError where the page says 不支持."""
    support = core.chip.dequant
    if support is None:
        raise unsupported_on(core.chip, instruction, page.rsplit("/", 1)[-1][:-3], lambda c: c.dequant is not None,
                             f"{page} 产品支持情况; {RULES}")
    return support


# ==================================================================== SetDeqScale
def _half_bits(instruction: str, scale) -> int:
    # the C++ half parameter: rounded once, to nearest even
    return float_bits(require_scalar(instruction, "scale", scale), _FLOAT16)


def _word(instruction: str, label: str, scale, offset, sign_mode) -> int:
    """One parameter set packed as SetDeqScale stores it (offset: an int16_t, of which the low 9 bits count)."""
    scale_bits = float_bits(require_scalar(instruction, f"{label}scale", scale), _FLOAT32)
    return pack_word(scale_bits, *_offset_sign(instruction, label, offset, sign_mode))


def _offset_sign(instruction: str, label: str, offset, sign_mode) -> tuple[int, bool]:
    if not is_int_arg(offset):
        raise TypeError(f"{instruction}: {label}offset must be an int, got {type(offset).__name__}")
    offset = require_int(instruction, f"{label}offset", offset, -(1 << 15), (1 << 15) - 1,
                         f"{SET_PAGE} 参数说明 (int16_t); {RULES}", rule="offset is an int16_t")
    return offset, require_bool(instruction, f"{label}sign_mode", sign_mode)


@dataclass(eq=False)
class DeqScaleWrite(SelfBinding):
    """A checked scalar SetDeqScale: the half scale (``fields`` None) or the int16 -> b8 word it leaves in
    DEQSCALE.  The scale is read per call (a float's sign is never part of a plan key), offset and sign mode
    are the plan's."""

    fields: tuple[int, bool] | None  # (offset, sign_mode) of the word prototype
    shared: bool  # the prototypes share one register (DequantSupport.shared_register)
    registers_written: tuple[str, ...] = ("DEQSCALE",)
    pipe: str = "S"

    def __post_init__(self) -> None:
        self.registers_read = () if self.shared else ("DEQSCALE",)  # the 950 keeps the other prototype's part

    def run(self, core: Core, values: tuple) -> None:
        scale = values[0]  # "scale" comes first in both scalar forms
        if self.fields is None:
            state = _next_state(core.deqscale, self.shared, _half_bits("set_deq_scale", scale), None, False)
        else:
            state = _next_state(core.deqscale, self.shared, None, pack_word(float_bits(scale, _FLOAT32),
                                                                            *self.fields), False)
        core.deqscale = state


def _next_state(old: DeqScale | None, shared: bool, half: int | None, word: int | None, vector: bool) -> DeqScale:
    """DEQSCALE after a SetDeqScale that wrote ``half`` or ``word`` (the other ``None``)."""
    if shared or old is None:
        return DeqScale(half, word, vector)
    if half is not None:
        return old._replace(half=half)
    return DeqScale(old.half, word, vector)


@dataclass(eq=False)
class DeqTableWrite:
    """A checked vector SetDeqScale: 16 packed words into ``vdeq`` (relative to it), then DEQSCALE -> its address."""

    instruction: str
    words: np.ndarray  # 16 uint64
    address_shift: int
    shared: bool
    operands: tuple[str, ...] = ("vdeq",)  # the C API calls it tmp
    pipe: str = "S"

    def bind(self, core: Core, tensors: list[LocalTensor]) -> DeqTableBinding:
        (vdeq,) = tensors
        _checked_table(self.instruction, core, vdeq)
        return DeqTableBinding(self, vdeq.addr)


class DeqTableBinding:
    def __init__(self, plan: DeqTableWrite, addr: int) -> None:
        self.plan, self.addr = plan, addr
        self.reads: tuple[ByteRange, ...] = ()
        self.writes = (ByteRange("UB", addr, addr + VDEQ_BYTES),)
        self.registers_read = () if plan.shared else ("DEQSCALE",)
        self.registers_written = ("DEQSCALE",)

    def run(self, core: Core, values: tuple) -> None:
        plan = self.plan
        self._commit(core, _next_state(core.deqscale, plan.shared, None, self.addr >> plan.address_shift, True))

    def _commit(self, core: Core, state: DeqScale) -> None:
        """The table's 16 words, then the register (nothing is computed here)."""
        core.ub.write_bytes(self.addr, self.plan.words.view(np.uint8), who=self.plan.instruction)
        core.deqscale = state


def _checked_table(instruction: str, core: Core, vdeq) -> LocalTensor:
    """A 32-byte aligned uint64 UB tensor of at least 128 bytes (SetDeqScale.md 表2, 约束说明; CastDequant.md)."""
    page = c_api_page(instruction) if instruction.startswith("asc_") else SET_PAGE
    vdeq = require_ub_tensor(instruction, "vdeq", vdeq, core, align_source=f"{page} 约束说明; {RULES}")
    if vdeq.dtype.name != "uint64":
        raise UnsupportedError(instruction, "vdeq dtype", vdeq.dtype.name, "the table tensor holds uint64_t words",
                               "uint64", f"{SET_PAGE} 参数说明 (表2); {RULES}")
    if vdeq.tile_size < VDEQ_ENTRIES:
        raise ParameterRangeError(instruction, "vdeq size", f"{vdeq.tile_size * 8} bytes", "the table needs 16 "
                                  "words of 8 bytes (less may give wrong results)", "at least 128 bytes",
                                  f"{CAST_PAGE} 约束说明; {SET_PAGE} 参数说明; {RULES}")
    vdeq.check_span(instruction, "vdeq", vdeq.addr, vdeq.addr + VDEQ_BYTES)
    return vdeq


def _table_words(instruction: str, scales, offsets, signs) -> np.ndarray:
    """The 16 words of a parameter table (VdeqInfo's three arrays, or the C API's)."""
    names = ("scale", "offset", "sign_mode")
    for name, values in zip(names, (scales, offsets, signs), strict=True):
        if not isinstance(values, (list, tuple, np.ndarray)):
            raise TypeError(f"{instruction}: {name} must be a sequence of 16 values, got {type(values).__name__}")
        if len(values) != VDEQ_ENTRIES:
            raise ParameterRangeError(instruction, f"{name} length", len(values), "VdeqInfo holds 16 parameter "
                                      "sets", "exactly 16", f"{SET_PAGE} 参数说明 (表4); {RULES}")
    words = [_word(instruction, f"[{j}].", scales[j], offsets[j], signs[j]) for j in range(VDEQ_ENTRIES)]
    return np.array(words, dtype=np.uint64)


def _compile_set(core: Core, form: str, values: dict):
    name = "set_deq_scale"
    return _set_plan(name, core, form, values, SET_PAGE)


def _set_plan(name: str, core: Core, form: str, values: dict, page: str):
    support = require_dequant(core, name, page)
    if form == "half":
        _half_bits(name, values["scale"])  # the type check; the value is read per call
        return DeqScaleWrite(None, support.shared_register)
    if form == "word":
        _word(name, "", values["scale"], values["offset"], values["sign_mode"])
        return DeqScaleWrite(_offset_sign(name, "", values["offset"], values["sign_mode"]), support.shared_register)
    if form == "vector":
        info = values["vdeq_info"]
        words = _table_words(name, info.scale, info.offset, info.sign_mode)
        vdeq = values["vdeq"]
    else:  # the C API's table form
        words = _table_words(name, values["scale_arr"], values["offset_arr"], values["sign_mode_arr"])
        vdeq = values["tmp"]
    _checked_table(name, core, vdeq)
    operand = "vdeq" if form == "vector" else "tmp"
    return DeqTableWrite(name, words, support.vdeq_address_shift, support.shared_register, (operand,))


SET_FORMS = (
    Form("half", (Param("scale", is_scalar),)),
    Form("word", (Param("scale", is_scalar), Param("offset", _anything), Param("sign_mode", _anything))),
    Form("vector", (Param("vdeq", is_tensor), Param("vdeq_info", lambda v: isinstance(v, VdeqInfo)))),
)
_TABLE_SETUP = "t = asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 4096, 16)\n"

set_deq_scale = register(Instruction(
    "set_deq_scale", "ascend", "register", "S", SET_FORMS, _compile_set, f"{SET_PAGE} 功能说明; {RULES}",
    support=lambda chip: chip.dequant, exactness=BIT_EXACT,
    summary="Load DEQSCALE: a half scale (int32 -> half), or a float scale, 9-bit offset and sign mode "
            "(int16 -> b8), or 16 such sets packed into a uint64 UB tensor (SetDeqScale)",
    examples=("asc.set_deq_scale(0.5)", "asc.set_deq_scale(0.25, -3, True)",
              _TABLE_SETUP + "asc.set_deq_scale(t, asc.VdeqInfo([0.5] * 16, list(range(16)), [True] * 16))"),
    per_call=frozenset({"scale"}), fast_context=lambda core: (),
    doc="``asc.set_deq_scale(scale)`` (half), ``asc.set_deq_scale(scale, offset, sign_mode)`` (float, int16, "
        "bool) or ``asc.set_deq_scale(vdeq, vdeq_info)`` (C++ ``SetDeqScale``; A2/A3, 310P AI Core, 950).  "
        "The word packs the float's bits 0-31, ``offset & 0x1ff`` at bit 37 and the sign mode at bit 46; the "
        "table form writes 16 such words into ``vdeq`` and stores its address (in 32-byte units on the A2/A3 "
        "and 310P).",
))


# ==================================================================== CastDequant, int16 -> b8
@dataclass(frozen=True)
class B8Geometry:
    """What one int16 -> b8 call converts: lanes, strides, half block, parameters and register effects."""

    name: str
    lanes: ActiveLanes
    strides: tuple[tuple[int, int], tuple[int, int]]  # dst's, src's (block stride, repeat stride)
    upper_half: bool
    signed: bool  # dst is int8
    vector: bool
    word: int  # the packed parameters, or the table's encoded address
    table_addr: int | None
    words_after: tuple[int, int, int, int] | None
    mode_after: MaskMode | None
    registers: tuple[str, ...]
    sync: bool = False


@dataclass(eq=False)
class B8Plan:
    """A checked int16 -> b8 dequantisation, relative to dst's and src's addresses."""

    geometry: B8Geometry
    footprints: list[Footprint]  # dst (bytes), src (int16 elements), relative
    entry: np.ndarray  # per active lane, in issue order: the parameter set it uses (lane % 16)
    operands: tuple[str, ...] = ("dst", "src")

    @cached_attribute
    def word_parameters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The per-tensor form's scale, offset and sign mode (one each, broadcast over the lanes); ``None``
        for the table form, whose parameters are read from UB on every call."""
        if self.geometry.table_addr is not None:
            return None
        return word_fields(np.array([self.geometry.word], dtype=np.uint64))

    @cached_attribute
    def folded_word(self) -> FoldedB8 | None:
        """The per-tensor parameters folded once (:func:`~.deq_conversion.fold_b8`), ``None`` where they fold not."""
        words = self.word_parameters
        return None if words is None else fold_b8(words[0], words[1], self.geometry.signed)

    @cached_attribute
    def used_entries(self) -> np.ndarray:
        """The table entries (parameter sets) some active lane uses, ascending."""
        return np.unique(self.entry)

    def placed(self, tensors: list[LocalTensor]) -> list[Footprint]:
        name = self.geometry.name
        footprints = [fp.moved(tensor.addr) for fp, tensor in zip(self.footprints, tensors, strict=True)]
        for fp, tensor in zip(footprints, tensors, strict=True):
            fp.check_in(name, tensor)
        check_overlap(name, footprints[0], footprints[1])
        return footprints

    def bind(self, core: Core, tensors: list[LocalTensor]) -> B8Binding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.geometry.name, label, tensor, core)
        return B8Binding(self, core, self.placed(tensors), [tensor.addr for tensor in tensors])


_INT16, _UINT8 = np.dtype(np.int16), np.dtype(np.uint8)


class B8Binding:
    """A :class:`B8Plan` at one placement: src's and dst's accesses, in one of two layouts (as the element-wise
    operands', :mod:`..operands`).

    ``"view"``: src as its ``(repeats, 8, 16)`` int16 view, dst as the ``(repeats, 8, 16)`` byte view of the half
    blocks it writes (lane ``k`` of a repeat at ``[k // 16, k % 16]`` in both, so parameter set ``k % 16`` is the
    last axis); used when both views lie in UB and no dst byte is written twice.  ``"flat"``: the active lanes by
    index, in issue order, each lane's parameters taken by its entry."""

    def __init__(self, plan: B8Plan, core: Core, footprints: list[Footprint], bases: list[int]) -> None:
        self.plan = plan
        self.dst, self.src = footprints
        geometry = plan.geometry
        self.registers_read = geometry.registers
        self.registers_written = (("MASK",) if geometry.words_after is not None else ()) + (
            ("MASK_MODE",) if geometry.mode_after is not None else ())
        ub, lanes = core.ub, geometry.lanes
        (d_blk, d_rep), (s_blk, s_rep) = geometry.strides
        source = StridedOperand(bases[1], self.src, s_blk, s_rep)
        dst_base = bases[0] + HALF_BLOCK_BYTES * geometry.upper_half
        dst_end = dst_base + ((lanes.repeats - 1) * d_rep + (BLOCKS_PER_REPEAT - 1) * d_blk) * BLOCK_BYTES \
            + HALF_BLOCK_BYTES
        addrs = self.dst.addrs
        self.layout = "view" if (source.view_end(lanes) <= ub.size_bytes and dst_end <= ub.size_bytes
                                 and np.unique(addrs).size == addrs.size) else "flat"
        self.src_access = OperandAccess.build(ub, source, _INT16, lanes, self.layout)
        if self.layout == "view":
            self.dst_access = _half_blocks(ub, self.dst, dst_base, d_blk, d_rep, lanes)
        else:
            self.dst_access = OperandAccess.build(ub, StridedOperand(dst_base, self.dst, d_blk, d_rep), _UINT8,
                                                  lanes, "flat")
        self._table: tuple[bytes, tuple] | None = None  # the table form's last table bytes and their parameters

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        table = self.plan.geometry.table_addr
        extra = [ByteRange("UB", table, table + VDEQ_BYTES)] if table is not None else []
        return merge_ranges([*ranges_of_addresses("UB", self.src.byte_addrs()[0]), *extra])

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        return merge_ranges(ranges_of_addresses("UB", self.dst.addrs))

    def _table_parameters(self, core: Core) -> tuple:
        """The table form's 16 parameter sets (scale, offset, sign mode, and their :class:`FoldedB8` or ``None``),
        read from UB per call, in the binding's layout (the view's last axis, or per lane); the entries lanes use
        checked against dst's type.  The same 128 bytes as the last call's give the same parameters (they passed
        the check then)."""
        geometry = self.plan.geometry
        start = geometry.table_addr
        core.ub.check_initialized_span(geometry.name, "vdeq table", start, start + VDEQ_BYTES)
        raw = core.ub.data[start:start + VDEQ_BYTES].tobytes()
        if self._table is not None and self._table[0] == raw:
            return self._table[1]
        scale, offset, sign = word_fields(np.frombuffer(raw, np.uint64))
        used = self.plan.used_entries
        wrong = used[sign[used] != geometry.signed]
        if wrong.size:
            j = int(wrong[0])
            raise RuntimeMisuseError(geometry.name, f"vdeq table entry {j} sign_mode", bool(sign[j]),
                                     f"the dst type ({'int8' if geometry.signed else 'uint8'}) needs sign mode "
                                     f"{geometry.signed} in every parameter set a lane uses",
                                     f"sign_mode={geometry.signed}", f"{CAST_PAGE} 约束说明; {RULES}")
        # an entry no lane uses may hold anything (a NaN scale, the other sign mode): folded as a harmless set
        unused = np.ones(VDEQ_ENTRIES, bool)
        unused[used] = False
        folded = fold_b8(np.where(unused, np.float32(1), scale), np.where(unused, 0, offset), geometry.signed)
        if self.layout == "flat":  # each lane's own set
            entry = self.plan.entry
            scale, offset, sign = scale[entry], offset[entry], sign[entry]
            folded = None if folded is None else folded.taken(entry)
        elif folded is not None:  # the view layout: set k % 16 is the last axis
            folded = folded.tiled(self.src_access.values.shape)
        parameters = (scale, offset, sign, folded)
        self._table = (raw, parameters)
        return parameters

    def run(self, core: Core, values: tuple) -> None:
        geometry = self.plan.geometry
        ub = core.ub
        src = self.src_access
        if src.seen_written != ub.shadow_epoch:
            src.check_initialized(ub, geometry.name)
        if geometry.table_addr is None:
            folded, (scale, offset, sign) = self.plan.folded_word, self.plan.word_parameters
        else:
            scale, offset, sign, folded = self._table_parameters(core)
        lanes = src.gather(ub, _INT16)
        result = int16_to_b8(lanes, scale, offset, sign) if folded is None else folded.lanes(lanes)
        self._commit(core, result)
        if geometry.sync:
            record_pipe_barrier(core)

    def _commit(self, core: Core, result: np.ndarray) -> None:
        geometry = self.plan.geometry
        self.dst_access.write(core.ub, result)
        if geometry.words_after is not None:
            core.set_mask_words(*geometry.words_after)
        if geometry.mode_after is not None:
            core.set_mask_mode(geometry.mode_after)


def _half_blocks(ub, footprint: Footprint, base: int, d_blk: int, d_rep: int, lanes: ActiveLanes) -> OperandAccess:
    """dst's access in the view layout: the 16 bytes a repeat's lanes write in each of its 8 blocks, as a
    ``(repeats, 8, 16)`` byte view of UB and of its written-shadow (masked-off lanes never written)."""
    shape = (lanes.repeats, BLOCKS_PER_REPEAT, HALF_BLOCK_BYTES)
    strides = (d_rep * BLOCK_BYTES, d_blk * BLOCK_BYTES, 1)
    values = np.ndarray(shape, _UINT8, buffer=ub.data, offset=base, strides=strides)
    shadow = np.ndarray(shape, _UINT8, buffer=ub.written, offset=base, strides=strides)
    active = None if lanes.mask is None else lanes.mask.reshape(shape)
    return OperandAccess(footprint.name, 1, "view", values, shadow, active, footprint.elem_index)


def _b8_footprints(lanes: ActiveLanes, strides, upper_half: bool) -> tuple[list[Footprint], np.ndarray]:
    """dst's bytes and src's int16 elements of every active lane, relative, and each lane's parameter set."""
    (d_blk, d_rep), (s_blk, s_rep) = strides
    lane = np.arange(SRC_LANES, dtype=np.int64)
    in_block = lane % 16
    src_offsets = lane_offsets(lanes.repeats, 2, s_blk, s_rep)
    # a lane's output byte sits in its dst block at its position in the block (one byte per int16 lane)
    dst_offsets = lane_offsets(lanes.repeats, 2, d_blk, d_rep) - in_block + HALF_BLOCK_BYTES * upper_half
    repeat = np.broadcast_to(np.arange(lanes.repeats, dtype=np.int64)[:, None], (lanes.repeats, SRC_LANES))
    repeats = lanes.select(repeat)
    entry = lanes.select(np.broadcast_to(in_block, (lanes.repeats, SRC_LANES)))
    return [Footprint("dst", lanes.select(dst_offsets), repeats, 1),
            Footprint("src", lanes.select(src_offsets), repeats, 2)], entry


def _b8_plan(name: str, core: Core, dst: LocalTensor, src: LocalTensor, lanes: ActiveLanes, strides,
             upper_half: bool, vector: bool, words_after, mode_after, registers: tuple[str, ...],
             sync: bool = False) -> B8Plan:
    """The plan of an int16 -> b8 call whose lanes and strides are known: DEQSCALE checked against the call."""
    if strides[0][0] == 0:
        raise ParameterRangeError(name, "dst block stride", 0, "a destination block stride of 0 is undefined "
                                  "behaviour", "at least 1", DST_STRIDE_SOURCE)
    signed = dst.dtype.name == "int8"
    word = require_word(core, name, vector)
    table_addr = None
    if vector:
        table_addr = word << core.chip.dequant.vdeq_address_shift
        core.ub.check_span(name, "vdeq table (DEQSCALE)", table_addr, table_addr + VDEQ_BYTES)
    else:
        sign = bool(word_fields(np.array([word], dtype=np.uint64))[2][0])
        if sign != signed:
            raise RuntimeMisuseError(name, "dst dtype", dst.dtype.name, f"DEQSCALE's sign mode is {sign}: "
                                     "sign_mode=True needs an int8 dst, sign_mode=False a uint8 dst",
                                     "int8" if sign else "uint8", f"{CAST_PAGE} 约束说明; {RULES}")
    geometry = B8Geometry(name, lanes, strides, upper_half, signed, vector, word, table_addr, words_after,
                          mode_after, tuple(dict.fromkeys(registers + ("DEQSCALE",))), sync)
    footprints, entry = _b8_footprints(lanes, strides, upper_half)
    plan = B8Plan(geometry, footprints, entry)
    plan.placed([dst, src])
    return plan


@dataclass(eq=False)
class _Nop(SelfBinding):
    """count = 0 or repeat_times = 0 on a product where that is a NOP."""

    pipe: str = "V"

    def run(self, core: Core, values: tuple) -> None:
        return None


def _zero(name: str, core: Core, operand: str, page: str) -> _Nop:
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(name, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{page} 约束说明; {semantics('1.9')}")
    return _Nop()


def _compile_cast_deq(core: Core, form: str, bound: dict):
    """``cast_deq``: every rule of CastDequant.md, then Cast's plan (int32 -> half) or the b8 plan."""
    name = "cast_deq"
    support = require_dequant(core, name, CAST_PAGE)
    dst = require_ub_tensor(name, "dst", bound["dst"], core)
    src = require_ub_tensor(name, "src", bound["src"], core)
    vector = require_bool(name, "is_vec_deq", bound["is_vec_deq"])
    upper_half = require_bool(name, "half_block", bound["half_block"])
    pair = (src.dtype.name, dst.dtype.name)
    if pair not in support.cast_dequant_pairs:
        raise UnsupportedError(name, "src/dst dtypes", f"{pair[0]} -> {pair[1]}",
                               f"CastDequant does not convert this pair on {core.chip.product}",
                               ", ".join(f"{s} -> {d}" for s, d in sorted(support.cast_dequant_pairs)),
                               f"{CAST_PAGE} 数据类型; {RULES}")
    if form != "count" and support.mask_forms_unmodelled:
        raise UnsupportedError(name, "form", "mask", f"not modelled: {support.mask_forms_unmodelled}",
                               "the count form", f"{CAST_PAGE} 约束说明; {RULES}")
    if pair == ("int32", "float16"):  # Cast's int32 -> half (dav_c220 CastDeqImpl calls CastImpl)
        return cast_module._planned(name, core, form, bound, DEQ, dst, {"src": src}, CAST_PAGE, UnaryRepeatParams)
    if support.b8_unmodelled:
        raise UnsupportedError(name, "src/dst dtypes", f"{pair[0]} -> {pair[1]}",
                               f"not modelled: {support.b8_unmodelled}", "int32 -> float16",
                               f"{CAST_PAGE} 约束说明; {RULES}")
    native = core.chip.vector_lowering == "native"
    if form == "count":
        count = require_uint(name, "count", bound["count"], 32, f"{CAST_PAGE} 函数原型; {semantics('1.4')}")
        if count == 0:
            return _zero(name, core, "count", CAST_PAGE)
        src.check_span(name, "src", src.addr, src.addr + 2 * count)
        words_after, mode_after = _count_form_registers(core, count, 2) if native else (None, None)
        return _b8_plan(name, core, dst, src, counter_mode_lanes(count, SRC_LANES), ((1, 8), (1, 8)),
                        upper_half, vector, words_after, mode_after, ())
    d_blk, s_blk, d_rep, s_rep = require_repeat_params(name, bound["repeat_params"], UnaryRepeatParams)
    lanes, words_after, registers = mask_form_lanes(core, name, bound, 2, native)
    if lanes.repeats == 0:
        return _zero(name, core, "repeat_times", CAST_PAGE)
    return _b8_plan(name, core, dst, src, lanes, ((d_blk, d_rep), (s_blk, s_rep)), upper_half, vector,
                    words_after, None, registers)


CAST_DEQ_FORMS = (
    Form("mask", (DST, Param("src", is_tensor), Param("mask", is_mask_arg), Param("repeat_times", is_int_arg),
                  Param("repeat_params", is_unary_params), Param("is_set_mask", is_bool_arg, True),
                  Param("is_vec_deq", is_bool_arg, True), Param("half_block", is_bool_arg, True))),
    Form("count", (DST, Param("src", is_tensor), Param("count", is_int_arg), Param("is_vec_deq", is_bool_arg, True),
                   Param("half_block", is_bool_arg, True))),
)


def _cast_deq_context(core: Core, form: str, values: tuple) -> tuple:
    """The register configuration a plan depends on: DEQSCALE, and for the mask form the mask mode and (when
    ``is_set_mask`` is False) the mask words."""
    if form == "count":
        return (core.deqscale,)
    return (core.deqscale, int(core.mask_mode), None if values[5] else core.mask_words)


def _fast_context(core: Core) -> tuple:
    return (core.deqscale, int(core.mask_mode), core.mask_words)


_B8_SETUP = ("x = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 256)\n"
             "z = asc.LocalTensor(asc.{dst}, asc.TPosition.VECOUT, 1024, 1024)\n")
CAST_DEQ_EXAMPLES = (
    "asc.set_deq_scale(0.5, 3, True)\n" + _B8_SETUP.format(dst="int8") + "asc.cast_deq(z, x, 200, False, True)",
    _TABLE_SETUP + "asc.set_deq_scale(t, asc.VdeqInfo([0.25 * j for j in range(16)], [-j for j in range(16)], "
    "[False] * 16))\n" + _B8_SETUP.format(dst="uint8")
    + "asc.cast_deq(z, x, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8), is_vec_deq=True, half_block=False)",
    "asc.set_deq_scale(2.0, 0, False)\n" + _B8_SETUP.format(dst="uint8")
    + "asc.cast_deq(z, x, [0xFFFF0000FFFF, 0xFF], 2, asc.UnaryRepeatParams(2, 1, 16, 8), is_vec_deq=False)",
    "asc.set_deq_scale(0.125)\nx = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)\n"
    "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2048, 256)\nasc.cast_deq(z, x, 200)",
)
_CAST_DEQ_SUMMARY = ("Dequantise through DEQSCALE: int16 -> int8/uint8 as sat(rint(src * scale) + offset) into "
                     "half DataBlocks, per tensor or per lane (is_vec_deq); int32 -> half as src * scale")

cast_deq = register(Instruction(
    "cast_deq", "ascend", "cast", "V", CAST_DEQ_FORMS, _compile_cast_deq, f"{CAST_PAGE} 功能说明; {RULES}",
    support=lambda chip: chip.dequant and chip.dequant.cast_dequant_pairs, exactness=ACCURACY_MODEL,
    summary=_CAST_DEQ_SUMMARY, examples=CAST_DEQ_EXAMPLES, plan_context=_cast_deq_context,
    fast_context=_fast_context,
    doc=f"``{_CAST_DEQ_SUMMARY}`` (C++ ``CastDequant<T, U, isSetMask, isVecDeq, halfBlock>``; {CAST_PAGE}).\n\n"
        "Accuracy model, not bit-exact: the pages give the formulas but not the hardware's internal precision "
        "or rounding order; npusim computes the steps of the 950's vector-function emulation (scale cut to "
        "(1,8,10), one float multiply, rint to int16, clamp to 9 bits, offset, saturate; docs/numerics.md).  "
        "``half_block=True`` writes each DataBlock's bytes 16-31, ``False`` bytes 0-15; the other half is "
        "left as it was.",
))


# ==================================================================== the C API
def _c_api_set(core: Core, form: str, values: dict):
    name = "asc_set_deq_scale"
    if not core.chip.c_api:
        raise unsupported_on(core.chip, name, "the asc_* C API", lambda c: c.c_api,
                             f"{c_api_page(name)} 产品支持情况; {RULES}")
    return _set_plan(name, core, form, values, c_api_page(name))


C_SET_FORMS = (
    Form("table", (Param("tmp", is_tensor), Param("scale_arr", _anything), Param("offset_arr", _anything),
                   Param("sign_mode_arr", _anything))),
    Form("word", (Param("scale", is_scalar), Param("offset", _anything), Param("sign_mode", _anything))),
    Form("half", (Param("scale", is_scalar),)),
)
asc_set_deq_scale = register(Instruction(
    "asc_set_deq_scale", "ascend", "register", "V", C_SET_FORMS, _c_api_set,
    f"{c_api_page('asc_set_deq_scale')} 函数原型; {RULES}",
    support=lambda chip: chip.dequant if chip.c_api else None, exactness=BIT_EXACT,
    summary="set_deq_scale of the C API: a 16-set table at tmp, a float scale/offset/sign, or a half scale",
    examples=("asc.asc_set_deq_scale(2.0)", "asc.asc_set_deq_scale(1.0, 2, False)",
              _TABLE_SETUP + "asc.asc_set_deq_scale(t, [1.0] * 16, [0] * 16, [True] * 16)"),
    per_call=frozenset({"scale"}), fast_context=lambda core: (), alias_of="set_deq_scale",
    doc="``asc_set_deq_scale(tmp, scale_arr, offset_arr, sign_mode_arr)``, ``(scale, offset, sign_mode)`` or "
        "``(scale)`` (A2/A3): ``set_deq_scale``'s plans (pipe V, as the page says).",
))

_C_STRIDES = cast_module._C_STRIDES  # the C API casts' stride arguments, in their order


def _c_api_b8(name: str, vector: bool, upper_half: bool):
    sync = name.endswith("_sync")
    page = c_api_page(_page_of(name))

    def compile(core: Core, form: str, bound: dict):
        """``asc_[v]deq_int162b8_h/_l``: the bare ``vconv_[v]deqs162b8h/l`` under the vector mask register, or
        the count form (counter mode, mask ``(count, 0)``, the instruction, normal mode; vconv/*_impl.h)."""
        if not core.chip.c_api:
            raise unsupported_on(core.chip, name, "the asc_* C API", lambda c: c.c_api, f"{page} 产品支持情况; {RULES}")
        require_dequant(core, name, page)
        source = f"{page} 参数说明; {RULES}"
        dst = require_ub_tensor(name, "dst", bound["dst"], core)
        src = require_ub_tensor(name, "src", bound["src"], core)
        if src.dtype.name != "int16" or dst.dtype.name not in ("int8", "uint8"):
            raise UnsupportedError(name, "src/dst dtypes", f"{src.dtype.name} -> {dst.dtype.name}",
                                   f"{name} converts int16 to int8 or uint8", "int16 -> int8, int16 -> uint8",
                                   f"{page} 函数原型")
        if form == "count":
            count = require_uint(name, "count", bound["count"], 32, source)
            if count == 0:
                return _zero(name, core, "count", page)
            src.check_span(name, "src", src.addr, src.addr + 2 * count)
            return _b8_plan(name, core, dst, src, counter_mode_lanes(count, SRC_LANES), ((1, 8), (1, 8)),
                            upper_half, vector, (count, 0, 0, 0), MaskMode.NORMAL, ("MASK_MODE",), sync)
        d_blk, s_blk = (require_uint(name, n, bound[n], 16, source) for n in _C_STRIDES[:2])
        d_rep, s_rep = (require_uint(name, n, bound[n], 8, source) for n in _C_STRIDES[2:])
        repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
        lanes = lanes_from_register(core, name, repeat, 2)
        if lanes.repeats == 0:
            return _zero(name, core, "repeat", page)
        return _b8_plan(name, core, dst, src, lanes, ((d_blk, d_rep), (s_blk, s_rep)), upper_half, vector,
                        None, None, ("MASK", "MASK_MODE"), sync)

    return compile


def _page_of(name: str) -> str:
    """``asc_vdeq_int162b8_h_sync`` is on ``asc_vdeq_int162b8.md``."""
    return name.removesuffix("_sync").removesuffix("_h").removesuffix("_l")


def _c_api_b8_context(core: Core, form: str, values: tuple) -> tuple:
    return (core.deqscale,) if form == "count" else (core.deqscale, int(core.mask_mode), core.mask_words)


_C_FORMS = cast_module.C_API_FORMS
_C_SYNC_FORMS = cast_module.C_API_SYNC_FORMS


def _register_c_b8(vector: bool, half: str, sync: bool):
    base = f"asc_{'v' if vector else ''}deq_int162b8"
    name = f"{base}_{half}{'_sync' if sync else ''}"
    upper = half == "h"
    setup = ((_TABLE_SETUP + "asc.asc_set_deq_scale(t, [0.5] * 16, [1] * 16, [True] * 16)\n") if vector else
             "asc.asc_set_deq_scale(0.5, 1, True)\n") + _B8_SETUP.format(dst="int8")
    examples = (setup + f"asc.{name}(z, x, 200)",)
    if not sync:
        examples += (setup + f"asc.{name}(z, x, 2, 1, 1, 8, 8)",)
    where = "bytes 16-31" if upper else "bytes 0-15"
    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if sync else ""
    return register(Instruction(
        name, "ascend", "cast", "V", _C_SYNC_FORMS if sync else _C_FORMS, _c_api_b8(name, vector, upper),
        f"{c_api_page(base)} 功能说明; {RULES}", support=lambda chip: chip.dequant if chip.c_api else None,
        exactness=ACCURACY_MODEL, summary=f"cast_deq int16 -> b8 ({'per lane' if vector else 'per tensor'}) into "
        f"each DataBlock's {where}", examples=examples, plan_context=_c_api_b8_context, fast_context=_fast_context,
        alias_of="cast_deq",
        doc=f"``cast_deq`` int16 -> int8/uint8 with is_vec_deq={vector}, half_block={upper} ({base}.md): a count, "
            f"or ``repeat`` repeats under the vector mask register with the four strides.{barrier}",
    ))


_C_B8_FUNCTIONS = {f"asc_{'v' * vector}deq_int162b8_{half}{'_sync' * sync}": _register_c_b8(vector, half, sync)
                   for vector in (False, True) for half in ("h", "l") for sync in (False, True)}
globals().update(_C_B8_FUNCTIONS)


def _register_c_int322half(sync: bool):
    name = "asc_deq_int322half" + ("_sync" if sync else "")
    setup = ("asc.asc_set_deq_scale(2.0)\nx = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)\n"
             "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2048, 256)\n")
    examples = (setup + f"asc.{name}(z, x, 200)",) + (() if sync else (setup + f"asc.{name}(z, x, 2, 1, 1, 4, 8)",))
    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if sync else ""
    return register(Instruction(
        name, "ascend", "cast", "V", _C_SYNC_FORMS if sync else _C_FORMS,
        cast_module._compile_c_api(name, "asc_deq_int322half", RoundMode.CAST_NONE, ("int32", "float16")),
        f"{c_api_page('asc_deq_int322half')} 功能说明; {RULES}",
        support=lambda chip: chip.dequant if chip.c_api else None, exactness=ACCURACY_MODEL,
        summary="dst = half(src * scale) per lane, the half scale of asc_set_deq_scale", examples=examples,
        plan_context=count_form_context, fast_context=_fast_context, alias_of="cast",
        doc=f"``cast`` int32 -> half through DEQSCALE (asc_deq_int322half.md): a count, or ``repeat`` repeats "
            f"under the vector mask register with the four strides.{barrier}",
    ))


asc_deq_int322half = _register_c_int322half(False)
asc_deq_int322half_sync = _register_c_int322half(True)
__all__ += ["asc_deq_int322half", "asc_deq_int322half_sync", "asc_set_deq_scale", *sorted(_C_B8_FUNCTIONS)]
