"""``DataCopy`` and ``DataCopyPad``: moving blocks of bytes between GM and UB, and within UB.

Every copy is a list of *blocks*: block ``i`` reads ``n`` bytes at ``src_start(i)`` and
writes them at ``dst_start(i)``.  The forms differ only in how the starts advance:

* ``data_copy(dst, src, count)``: one block of ``count * sizeof(T)`` bytes, which must be a
  multiple of 32 (the hardware would silently round it down: "若未对齐，搬运量会向下取整到32字节对齐").
* ``data_copy(dst, src, DataCopyParams(block_count, block_len, src_stride, dst_stride))``:
  ``block_len`` and both *gaps* (end of one block to start of the next) count 32-byte
  DataBlocks, on both sides (GM与UB高维切分数据搬运(DataCopy).md, 表3).
* ``data_copy_pad`` GM -> UB: ``block_len`` counts bytes, the GM gap bytes, the UB gap
  DataBlocks; in UB each block becomes ``[left pad][data][right pad][dummy]`` padded to a
  multiple of 32 bytes.  UB -> GM: the UB side of each block is 32-byte padded (its dummy
  bytes are dropped), the GM gap counts bytes (GMToUB/UBToGM非对齐数据搬运(DataCopyPad).md).

What the padding bytes hold (GMToUB非对齐数据搬运(DataCopyPad).md, "参数解释"):

* no left/right padding: the dummy bytes repeat the block's first element;
* otherwise the pads and the dummy hold the padding value: ``padding_value`` when
  ``is_pad`` (which also loads it into the padding register), else the register as
  ``set_pad_value`` or an earlier ``is_pad`` copy left it.  With the register never set
  the documents call the bytes "随机值" (random): npusim leaves them undefined, so reading
  them later is reported as an uninitialised read.

All checks (types, dtypes, field ranges, alignment, bounds in UB and GM, overlap of a
UB -> UB copy) run before any byte moves.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...memory import Memory
from ...overloads import Form, Param, bind
from ...sources import semantics
from ...validate import align_up, require_bool, require_int, require_uint
from .. import pages
from ..addressing import BLOCK_BYTES
from ..chips import unsupported_on
from ..core import Core, current_core
from ..operands import NEVER
from ..plans import find_plan, keep_plan, require_usable, value_key
from ..runtime.gm import GlobalTensor, GmBuffer
from ..tensor import LocalTensor
from ..types import DataCopyExtParams, DataCopyPadExtParams, DataCopyPadParams, DataCopyParams, TPosition
from .common import is_scalar, require_dtype, require_repeat_params, require_ub_tensor, scalar_bits

__all__ = ["data_copy", "data_copy_pad", "set_pad_value"]

COPY_DOC = pages.DATA_COPY
PAD_DOC = pages.DATA_COPY_PAD
COPY_RULES = semantics("5.1")
PAD_RULES = semantics("5.2")
MAX_BLOCK_COUNT = 4095  # blockCount ∈ [0, 4095]
MAX_PAD_BLOCK_LEN = 2097151  # DataCopyExtParams.blockLen ∈ [0, 2097151] bytes


def _is_int(value) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_copy_params(value) -> bool:
    return isinstance(value, DataCopyParams)


COPY_FORMS = (
    Form("count", (Param("count", _is_int),)),
    Form("params", (Param("repeat_params", _is_copy_params),)),
)
PAD_FORMS = (
    Form("ext", (Param("data_copy_params", lambda v: isinstance(v, DataCopyExtParams)),
                 Param("pad_params", lambda v: isinstance(v, DataCopyPadExtParams), None))),
    Form("params", (Param("data_copy_params", _is_copy_params),
                    Param("pad_params", lambda v: isinstance(v, DataCopyPadParams), None))),
)


@dataclass
class _Side:
    """One end of a copy: the memory, the byte offset of each block's start, and what it is.

    ``buffer`` is the GM buffer of a GM side (``None`` in UB); ``span`` the bytes its blocks
    of ``nbytes`` reach, from the first block's start to the last one's end.
    """

    name: str
    memory: Memory
    starts: np.ndarray
    is_gm: bool
    buffer: GmBuffer | None = None
    span: tuple[int, int] = (0, 0)

    def byte_index(self, nbytes: int) -> np.ndarray:
        """Every byte of every block, shape ``(blocks, nbytes)``."""
        return self.starts[:, None] + np.arange(nbytes, dtype=np.int64)[None, :]


# ------------------------------------------------------------------- operands
def _endpoint(instruction: str, name: str, operand, core: Core):
    """A checked operand: a usable UB tensor or a bound GlobalTensor."""
    if isinstance(operand, LocalTensor):
        return require_ub_tensor(instruction, name, operand, core)
    if isinstance(operand, GlobalTensor):
        _ = operand.address  # raises RuntimeMisuseError if the tensor was never bound
        return operand
    raise TypeError(f"{instruction}: {name} must be an asc.LocalTensor or asc.GlobalTensor, "
                    f"got {type(operand).__name__}")


def _common_dtype(instruction: str, dst, src, allowed: frozenset[str], core: Core, source: str) -> DType:
    if dst.dtype != src.dtype:
        raise UnsupportedError(instruction, "src dtype", src.dtype.name, "source and destination must have the "
                               "same element type T", dst.dtype.name, source)
    require_dtype(instruction, "dst", dst.dtype, allowed, f"not supported on {core.chip.product}", source)
    return dst.dtype


def _nop_allowed(instruction: str, core: Core, operand: str, doc: str) -> None:
    if not core.chip.data_copy_zero_nop:
        raise ParameterRangeError(
            instruction, operand, 0, f"a zero block count or length is documented as a NOP only on A2/A3 and "
            f"950, not on {core.chip.product}", "at least 1", doc,
        )


def _side(instruction: str, name: str, operand, starts: np.ndarray, nbytes: int) -> _Side:
    """Bounds-check the blocks ``starts[i] .. starts[i] + nbytes`` (relative to the operand) and make a side."""
    lo = int(starts.min())
    hi = int(starts.max()) + nbytes
    if isinstance(operand, LocalTensor):
        absolute = operand.addr + starts
        operand.check_span(instruction, name, operand.addr + lo, operand.addr + hi)
        return _Side(name, operand.core.ub, absolute, is_gm=False)
    base = operand.check_bytes(instruction, name, lo, hi) - lo
    buffer = operand.buffer
    return _Side(name, buffer.memory, base + starts, is_gm=True, buffer=buffer, span=(base + lo, base + hi))


def _check_ub_overlap(instruction: str, dst: _Side, src: _Side, nbytes: int) -> None:
    """A UB -> UB copy may be exactly in place or disjoint, never partially overlapping (docs/semantics.md §1.6)."""
    if dst.is_gm or src.is_gm or dst.memory is not src.memory:
        return
    d_idx, s_idx = dst.byte_index(nbytes), src.byte_index(nbytes)
    if np.array_equal(d_idx, s_idx):
        return
    shared = np.intersect1d(d_idx, s_idx)
    if shared.size:
        raise OverlapError(
            instruction, "src / dst", f"byte {int(shared[0]):#x}", "source and destination partially overlap",
            "identical or disjoint byte ranges", f"{pages.GENERAL} 通用地址重叠约束; {semantics('1.6', '5.1')}",
        )


def _move(instruction: str, dst: _Side, src: _Side, nbytes: int) -> np.ndarray:
    """Check the source is initialised and return its bytes, shape ``(blocks, nbytes)``."""
    index = src.byte_index(nbytes)
    src.memory.check_initialized(instruction, src.name, index.reshape(-1), 1)
    if src.buffer is not None:
        src.buffer.sync_from_host(*src.span)
    return src.memory.data[index]


# ------------------------------------------------------------------ DataCopy
def data_copy(dst, src, *args, **kwargs) -> None:
    """``asc.data_copy``: GM -> UB, UB -> GM or UB -> UB.

    Forms::

        data_copy(dst, src, count)                  # count * sizeof(T) a multiple of 32 bytes
        data_copy(dst, src, asc.DataCopyParams(block_count, block_len, src_stride, dst_stride))

    A checked call is kept as a :class:`DataCopyPlan` (``npusim.ascend.plans``) under a key of
    its UB operands, its GM operands' element types and its count or block geometry; a GM
    operand's address is not part of the key, since a kernel walks GM tile by tile, so its
    bounds are checked on every call (a few integer comparisons).
    """
    instruction = "data_copy"
    core = current_core(instruction)
    key = _copy_key(instruction, dst, src, args, kwargs)
    plan = find_plan(core, key) if key is not None else None
    if plan is None:
        plan = _plan_copy(instruction, core, dst, src, args, kwargs)
        if key is not None:
            keep_plan(core, key, plan)
    else:
        require_usable(instruction, core, (dst, src), ("dst", "src"))
    plan.run(core, dst, src)


def _copy_key(instruction: str, dst, src, args: tuple, kwargs: dict) -> tuple | None:
    """The plan key of a ``data_copy`` call, or ``None`` (keyword arguments, an unbound GM tensor, other types).

    A LocalTensor contributes its ``plan_key`` (its UB extent and dtype), a bound GlobalTensor
    only its element type; the count or ``DataCopyParams`` contribute their values with their
    types (``plans.value_key``).  A key therefore fixes every parameter checked when the plan
    was made except a GM operand's address and extent, which :meth:`DataCopyPlan.run` checks.
    """
    if kwargs or len(args) != 1:
        return None
    dst_part, src_part = _operand_key(dst), _operand_key(src)
    if dst_part is None or src_part is None:
        return None
    return instruction, dst_part, src_part, value_key(args[0])


def _operand_key(operand) -> tuple | None:
    """A LocalTensor's ``plan_key``, ``("GM", dtype name)`` for a bound GlobalTensor, else ``None``."""
    kind = type(operand)
    if kind is LocalTensor:
        return operand.plan_key
    if kind is GlobalTensor:
        address = operand.bound_address
        return None if address is None else ("GM", address.dtype.name)
    return None


def _plan_copy(instruction: str, core: Core, dst, src, args: tuple, kwargs: dict) -> DataCopyPlan:
    """Every check of a call, in the order an uncached call makes them; the plan that moves its bytes."""
    form, bound = bind(instruction, COPY_FORMS, args, kwargs)
    dst = _endpoint(instruction, "dst", dst, core)
    src = _endpoint(instruction, "src", src, core)
    if isinstance(dst, GlobalTensor) and isinstance(src, GlobalTensor):
        raise TypeError(f"{instruction}: GM -> GM is not a data path; one of dst and src must be a LocalTensor")
    dtype = _common_dtype(instruction, dst, src, core.chip.data_copy_dtypes, core,
                          f"{COPY_DOC} 数据类型; {COPY_RULES}")
    if form == "count":
        count = require_uint(instruction, "count", bound["count"], 32, f"{COPY_DOC} 函数原型; {COPY_RULES}")
        nbytes = count * dtype.itemsize
        if nbytes % BLOCK_BYTES:
            raise ParameterRangeError(
                instruction, "count", count,
                f"count * sizeof({dtype}) = {nbytes} bytes is not a multiple of 32 (the hardware would round it "
                f"down to {nbytes // BLOCK_BYTES * BLOCK_BYTES} bytes)",
                f"multiples of {BLOCK_BYTES // dtype.itemsize} elements; use data_copy_pad for a tail",
                f"{COPY_DOC} 约束说明; {COPY_RULES}",
            )
        if nbytes == 0:
            return DataCopyPlan.nop(instruction)
        blocks, block_bytes, src_pitch, dst_pitch = 1, nbytes, nbytes, nbytes
    else:
        block_count, block_len, src_gap, dst_gap = require_repeat_params(instruction, bound["repeat_params"],
                                                                         DataCopyParams)
        block_count = require_int(instruction, "repeat_params.block_count", block_count, 0, MAX_BLOCK_COUNT,
                                  f"{pages.DATA_COPY_PARAMS} 约束说明 (表4); {COPY_RULES}")
        if block_count == 0 or block_len == 0:
            _nop_allowed(instruction, core, "repeat_params.block_count" if block_count == 0 else
                         "repeat_params.block_len", f"{pages.DATA_COPY_PARAMS} 约束说明; {COPY_RULES}")
            return DataCopyPlan.nop(instruction)
        blocks, block_bytes = block_count, block_len * BLOCK_BYTES
        src_pitch, dst_pitch = block_bytes + src_gap * BLOCK_BYTES, block_bytes + dst_gap * BLOCK_BYTES
    order = np.arange(blocks, dtype=np.int64)
    src_side = _side(instruction, "src", src, order * src_pitch, block_bytes)
    dst_side = _side(instruction, "dst", dst, order * dst_pitch, block_bytes)
    if isinstance(dst, GlobalTensor):
        dst.buffer.require_writable(instruction, "dst")
    _check_ub_overlap(instruction, dst_side, src_side, block_bytes)
    plan = DataCopyPlan(instruction, blocks, block_bytes, BlockRun.of(src, src_pitch), BlockRun.of(dst, dst_pitch))
    return plan.bind(core)


@dataclass(frozen=True)
class BlockRun:
    """One end of a copy: ``blocks`` runs of ``nbytes`` bytes, ``pitch`` bytes apart.

    ``ub_base`` is the UB byte address of the first run, or ``None`` for a GM operand, whose
    address comes with each call.
    """

    pitch: int
    ub_base: int | None

    @classmethod
    def of(cls, operand, pitch: int) -> BlockRun:
        return cls(pitch, operand.addr if isinstance(operand, LocalTensor) else None)

    def view(self, array: np.ndarray, start: int, blocks: int, nbytes: int) -> np.ndarray:
        """The runs as a ``(blocks, nbytes)`` view of ``array`` from byte ``start`` (bounds already checked)."""
        if blocks == 1 or self.pitch == nbytes:
            return array[start : start + blocks * nbytes].reshape(blocks, nbytes)
        return np.ndarray((blocks, nbytes), np.uint8, array, start, (self.pitch, 1))


@dataclass
class DataCopyPlan:
    """A checked ``data_copy``: its block geometry and UB views; cached per core, shared between cores.

    A call is a copy between two ``(blocks, nbytes)`` views (:class:`BlockRun`): a slice when
    the runs are contiguous (the count form), else a strided view (the ``DataCopyParams``
    block form), so the bytes move in one numpy assignment.

    What ``run`` still checks per call: a GM operand's bounds (its address is not in the key),
    that a GM destination is writable, and never-written source bytes — a UB source once per
    shadow epoch of the plan (``Memory.shadow_epoch``), a GM source every call unless its
    memory is ``fully_written`` (a caller's array).  Written-shadow updates follow the same
    rule: a UB destination once per epoch, a GM destination unless fully written.

    The plan holds no core: :meth:`bind` makes the UB views over a core's memory, so a plan
    made on one core serves another core of the same chip (``plans.find_plan``).
    """

    instruction: str
    blocks: int  # 0: a documented NOP
    nbytes: int  # bytes per block
    src: BlockRun | None = None
    dst: BlockRun | None = None
    src_view: np.ndarray | None = None  # UB source data, (blocks, nbytes)
    src_shadow: np.ndarray | None = None
    dst_view: np.ndarray | None = None  # UB destination data and shadow
    dst_shadow: np.ndarray | None = None
    src_seen_written: int = NEVER
    dst_seen_written: int = NEVER

    @classmethod
    def nop(cls, instruction: str) -> DataCopyPlan:
        return cls(instruction, 0, 0)

    @property
    def gm_extent(self) -> int:
        """Bytes a GM operand spans from its element 0: ``(blocks - 1) * pitch + nbytes``."""
        run = self.src if self.src.ub_base is None else self.dst
        return (self.blocks - 1) * run.pitch + self.nbytes

    def bind(self, core: Core | None) -> DataCopyPlan:
        """This plan with its UB views over ``core``'s memory (``None``: without views, as a template)."""
        plan = DataCopyPlan(self.instruction, self.blocks, self.nbytes, self.src, self.dst)
        if core is None or not self.blocks:
            return plan
        ub = core.ub
        if self.src.ub_base is not None:
            plan.src_view = self.src.view(ub.data, self.src.ub_base, self.blocks, self.nbytes)
            plan.src_shadow = self.src.view(ub.written, self.src.ub_base, self.blocks, self.nbytes)
        if self.dst.ub_base is not None:
            plan.dst_view = self.dst.view(ub.data, self.dst.ub_base, self.blocks, self.nbytes)
            plan.dst_shadow = self.dst.view(ub.written, self.dst.ub_base, self.blocks, self.nbytes)
        return plan

    def run(self, core: Core, dst, src) -> None:
        """Move the bytes of one call (its arguments ``dst``, ``src``), checked as the class says.

        The checks come in the order an uncached call makes them: bounds (the UB ones are
        the plan's), a GM destination's writability, then the source's never-written bytes.
        """
        if not self.blocks:
            return
        instruction, ub = self.instruction, core.ub
        gm_target = None
        if self.dst_view is None:  # GM destination
            gm_start = dst.check_bytes(instruction, "dst", 0, self.gm_extent)
            dst.buffer.require_writable(instruction, "dst")
            memory = dst.buffer.memory
            gm_target = (dst.buffer, gm_start, self.dst.view(memory.data, gm_start, self.blocks, self.nbytes),
                         None if memory.fully_written else
                         self.dst.view(memory.written, gm_start, self.blocks, self.nbytes))
        if self.src_view is not None:  # UB source
            source = self.src_view
            if self.src_seen_written != ub.shadow_epoch:
                if ub.uninit != "ignore" and not self.src_shadow.all():
                    ub.check_initialized(instruction, "src", self._byte_index(self.src, self.src.ub_base), 1)
                self.src_seen_written = ub.shadow_epoch
        else:
            source = self._gm_source(instruction, src)
        self._commit(ub, source, gm_target)

    def _commit(self, ub: Memory, source: np.ndarray, gm_target: tuple | None) -> None:
        """One numpy copy of the runs (numpy reads all of an overlapping source first), then the shadow."""
        if gm_target is None:
            self.dst_view[...] = source
            if self.dst_seen_written != ub.shadow_epoch:
                self.dst_shadow[...] = 1
                self.dst_seen_written = ub.shadow_epoch
        else:
            buffer, gm_start, data, written = gm_target
            if buffer.host_copy is None:
                data[...] = source
            else:  # the gaps between blocks keep the array's current bytes
                buffer.sync_from_host(gm_start, gm_start + self.gm_extent)
                data[...] = source
                buffer.sync_to_host(gm_start, gm_start + self.gm_extent)
            if written is not None:
                written[...] = 1

    def _gm_source(self, instruction: str, src: GlobalTensor) -> np.ndarray:
        """A GM source's runs, after its bounds and never-written bytes are checked."""
        start = src.check_bytes(instruction, "src", 0, self.gm_extent)
        buffer = src.buffer
        memory = buffer.memory
        if (not memory.fully_written and memory.uninit != "ignore"
                and not self.src.view(memory.written, start, self.blocks, self.nbytes).all()):
            memory.check_initialized(instruction, "src", self._byte_index(self.src, start), 1)
        if buffer.host_copy is not None:
            buffer.sync_from_host(start, start + self.gm_extent)
        return self.src.view(memory.data, start, self.blocks, self.nbytes)

    def _byte_index(self, run: BlockRun, start: int) -> np.ndarray:
        """Every byte of the runs in issue order (only to report a never-written byte)."""
        starts = start + np.arange(self.blocks, dtype=np.int64) * run.pitch
        return (starts[:, None] + np.arange(self.nbytes, dtype=np.int64)[None, :]).reshape(-1)


# --------------------------------------------------------------- DataCopyPad
@dataclass
class _PadGeometry:
    blocks: int
    block_len: int
    src_gap: int
    dst_gap: int


def _pad_geometry(instruction: str, params, core: Core, dtype: DType) -> _PadGeometry | None:
    """Validated block geometry of a DataCopyPad call, ``None`` for a documented NOP."""
    if isinstance(params, DataCopyExtParams):
        count, length, src_gap, dst_gap, _rsv = require_repeat_params(instruction, params, DataCopyExtParams)
        length = require_int(instruction, "data_copy_params.block_len", length, 0, MAX_PAD_BLOCK_LEN,
                             f"{PAD_DOC} 参数说明 (表5); {PAD_RULES}")
    else:
        count, length, src_gap, dst_gap = require_repeat_params(instruction, params, DataCopyParams)
    count = require_int(instruction, "data_copy_params.block_count", count, 0, MAX_BLOCK_COUNT,
                        f"{PAD_DOC} 参数说明 (表5); {PAD_RULES}")
    if length % dtype.itemsize:
        raise ParameterRangeError(instruction, "data_copy_params.block_len", length,
                                  f"block_len counts bytes and must be a multiple of sizeof({dtype})",
                                  f"multiples of {dtype.itemsize}", f"{PAD_DOC} 约束说明; {PAD_RULES}")
    if count == 0 or length == 0:
        _nop_allowed(instruction, core, "data_copy_params.block_count" if count == 0 else
                     "data_copy_params.block_len", f"{PAD_DOC} 约束说明; {PAD_RULES}")
        return None
    return _PadGeometry(count, length, src_gap, dst_gap)


def _pad_fields(instruction: str, pad, dtype: DType) -> tuple[bool, int, int, object]:
    """``(is_pad, left bytes, right bytes, padding value)`` of the pad parameters, checked."""
    if pad is None:
        return False, 0, 0, 0
    if isinstance(pad, DataCopyPadExtParams) and pad.dtype is not None and pad.dtype != dtype:
        raise UnsupportedError(instruction, "pad_params.dtype", str(pad.dtype), "the padding type must be the "
                               "copy's element type T", dtype.name, f"{PAD_DOC} 参数说明 (表4); {PAD_RULES}")
    is_pad = require_bool(instruction, "pad_params.is_pad", pad.is_pad)
    sides = []
    for field_name in ("left_padding", "right_padding"):
        elems = require_uint(instruction, f"pad_params.{field_name}", getattr(pad, field_name), 16,
                             f"{PAD_DOC} 参数说明; {PAD_RULES}")
        if elems * dtype.itemsize > BLOCK_BYTES:
            raise ParameterRangeError(instruction, f"pad_params.{field_name}", elems,
                                      f"{elems} x {dtype.itemsize} bytes exceed 32 bytes",
                                      f"at most {BLOCK_BYTES // dtype.itemsize} elements",
                                      f"{PAD_DOC} 约束说明; {PAD_RULES}")
        sides.append(elems * dtype.itemsize)
    value = pad.padding_value
    if is_pad:
        scalar_bits(instruction, "pad_params.padding_value", value, dtype)
        if dtype.itemsize == 8 and value != 0:
            raise ParameterRangeError(instruction, "pad_params.padding_value", value,
                                      "for 64-bit types the padding value can only be 0", "0",
                                      f"{PAD_DOC} 约束说明; {PAD_RULES}")
    return is_pad, sides[0], sides[1], value


def data_copy_pad(dst, src, *args, **kwargs) -> None:
    """``asc.data_copy_pad``: GM -> UB with padding to 32 bytes, or UB -> GM of unaligned lengths.

    Forms::

        data_copy_pad(dst_local, src_global, DataCopyExtParams(...), DataCopyPadExtParams(dtype, ...))
        data_copy_pad(dst_global, src_local, DataCopyExtParams(...))
        data_copy_pad(dst_local, src_global, DataCopyParams(...), DataCopyPadParams(...))
        data_copy_pad(dst_global, src_local, DataCopyParams(...))
    """
    instruction = "data_copy_pad"
    _form, bound = bind(instruction, PAD_FORMS, args, kwargs)
    core = current_core(instruction)
    if not core.chip.data_copy_pad_dtypes:
        raise unsupported_on(core.chip, instruction, "DataCopyPad", lambda c: bool(c.data_copy_pad_dtypes),
                             f"{PAD_DOC} 产品支持情况; {PAD_RULES}")
    dst = _endpoint(instruction, "dst", dst, core)
    src = _endpoint(instruction, "src", src, core)
    inbound = isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor)
    if not inbound and not (isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor)):
        raise TypeError(f"{instruction}: the data paths are GM -> UB (dst LocalTensor, src GlobalTensor) and "
                        "UB -> GM (dst GlobalTensor, src LocalTensor)")
    dtype = _common_dtype(instruction, dst, src, core.chip.data_copy_pad_dtypes, core,
                          f"{PAD_DOC} 数据类型; {PAD_RULES}")
    pad = bound["pad_params"]
    if inbound and pad is None:
        raise TypeError(f"{instruction}: GM -> UB needs pad_params (DataCopyPadExtParams or DataCopyPadParams)")
    if not inbound and pad is not None:
        raise TypeError(f"{instruction}: UB -> GM takes no pad_params")
    padding = _pad_fields(instruction, pad, dtype)
    geometry = _pad_geometry(instruction, bound["data_copy_params"], core, dtype)
    if geometry is None:
        return
    if inbound:
        _pad_gm_to_ub(instruction, core, dst, src, dtype, geometry, padding)
    else:
        _pad_ub_to_gm(instruction, dst, src, geometry)


def _pad_gm_to_ub(instruction: str, core: Core, dst: LocalTensor, src: GlobalTensor, dtype: DType,
                  geo: _PadGeometry, padding: tuple[bool, int, int, object]) -> None:
    is_pad, left, right, value = padding
    length = geo.block_len
    row = align_up(left + length + right, BLOCK_BYTES)
    order = np.arange(geo.blocks, dtype=np.int64)
    src_side = _side(instruction, "src", src, order * (length + geo.src_gap), length)
    dst_side = _side(instruction, "dst", dst, order * (row + geo.dst_gap * BLOCK_BYTES), row)
    data = _move(instruction, dst_side, src_side, length)

    rows = np.empty((geo.blocks, row), dtype=np.uint8)
    rows[:, left : left + length] = data
    fill = value if is_pad else core.pad_value
    if left == 0 and right == 0:
        first = data[:, : dtype.itemsize]
        rows[:, length:] = np.tile(first, (1, (row - length) // dtype.itemsize))
    elif fill is not None:
        bits = scalar_bits(instruction, "padding value", fill, dtype).view(np.uint8)
        pad_columns = np.r_[np.arange(left), np.arange(left + length, row)]
        rows[:, pad_columns] = np.tile(bits, row // dtype.itemsize)[pad_columns]

    target = dst_side.byte_index(row)
    if (left or right) and fill is None:
        # padding register never set: the pads are "随机值"; only the data bytes become defined
        pad_columns = np.r_[np.arange(left), np.arange(left + length, row)]
        writes = (target[:, left : left + length].reshape(-1), data.reshape(-1), target[:, pad_columns].reshape(-1))
    else:
        writes = (target.reshape(-1), rows.reshape(-1), None)
    _commit_pad(core, *writes, (value,) if is_pad else None)


def _commit_pad(core: Core, at: np.ndarray, payload: np.ndarray, undefined: np.ndarray | None,
                pad_value: tuple | None) -> None:
    """A DataCopyPad GM -> UB: the bytes, the pads left undefined (if any), the padding register (if loaded)."""
    core.ub.scatter(at, payload)
    if undefined is not None:
        core.ub.mark_undefined(undefined)
    if pad_value is not None:
        core.load_pad_value(pad_value[0])


def _pad_ub_to_gm(instruction: str, dst: GlobalTensor, src: LocalTensor, geo: _PadGeometry) -> None:
    length = geo.block_len
    order = np.arange(geo.blocks, dtype=np.int64)
    src_side = _side(instruction, "src", src, order * (align_up(length, BLOCK_BYTES) + geo.src_gap * BLOCK_BYTES),
                     length)
    dst_side = _side(instruction, "dst", dst, order * (length + geo.dst_gap), length)
    dst.buffer.require_writable(instruction, "dst")
    payload = _move(instruction, dst_side, src_side, length)
    dst.buffer.sync_from_host(*dst_side.span)  # the gaps between blocks keep the array's current bytes
    dst_side.memory.scatter(dst_side.byte_index(length).reshape(-1), payload.reshape(-1))
    dst.buffer.sync_to_host(*dst_side.span)


# ---------------------------------------------------------------- SetPadValue
PAD_VALUE_POSITIONS = frozenset({TPosition.MAX, TPosition.VECIN, TPosition.VECOUT})


def set_pad_value(padding_value, pos: TPosition = TPosition.MAX) -> None:
    """Load the padding register that ``data_copy_pad`` uses when ``is_pad`` is false (``SetPadValue``).

    npusim keeps the value and converts it to the copy's element type when a copy uses it.
    """
    instruction = "set_pad_value"
    core = current_core(instruction)
    if not core.chip.pad_value_api:
        raise unsupported_on(core.chip, instruction, "SetPadValue", lambda c: c.pad_value_api,
                             f"{pages.SET_PAD_VALUE} 产品支持情况; {PAD_RULES}")
    if not is_scalar(padding_value):
        raise TypeError(f"{instruction}: padding_value must be a number, got {type(padding_value).__name__}")
    if not isinstance(pos, TPosition):
        raise TypeError(f"{instruction}: pos must be an asc.TPosition, got {type(pos).__name__}")
    if pos not in PAD_VALUE_POSITIONS:
        raise UnsupportedError(instruction, "pos", getattr(pos, "name", pos), "the padding register serves "
                               "GM -> VECIN/VECOUT copies", "TPosition.MAX, VECIN, VECOUT",
                               f"{pages.SET_PAD_VALUE} 参数说明; {PAD_RULES}")
    core.load_pad_value(padding_value)
