"""``DataCopy`` and ``DataCopyPad``: moving blocks of bytes between GM and UB, and within UB.

Every copy is a list of *blocks*: block ``i`` reads ``n`` bytes at ``src_start(i)`` and
writes them at ``dst_start(i)``.  The forms differ only in how the starts advance:

* ``data_copy(dst, src, count)``: one block of ``count * sizeof(T)`` bytes, which must be a
  multiple of 32 (the hardware would silently round it down: "若未对齐，搬运量会向下取整到32字节对齐").
* ``data_copy(dst, src, DataCopyParams(block_count, block_len, src_stride, dst_stride))``:
  ``block_len`` and both *gaps* (end of one block to start of the next) count 32-byte
  DataBlocks, on both sides (GM与UB高维切分数据搬运(DataCopy).md, 表3).
* ``data_copy(dst, src, slice_list1, slice_list2, dim_value)``: GM <-> UB only, a grid of
  runs that ``SliceInfo`` lists describe on each side (GM与UB切片数据搬运(DataCopy).md;
  :mod:`.data_copy_slice`).
* ``data_copy(dst, src, Nd2NzParams)`` GM -> UB and ``data_copy(dst, src, Nz2NdParamsFull)``
  UB -> GM: the same runs, laid out as the ND <-> NZ conversion does (:mod:`.data_copy_nz`).
* ``data_copy(dst, src, NdDmaParams, NdDmaConfig())``: the 950's NDDMA, GM -> UB in up to five
  loops with padding (:mod:`.nddma`).
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
  them later is reported as an uninitialised read.  On the 950 an ``is_pad``-false copy with
  padding fills the pads with each block's first element instead (its lowering turns constant
  padding off): a ``PadRegisterUnusedWarning`` under the hardware policy, an error under strict.

All checks (types, dtypes, field ranges, alignment, bounds in UB and GM, overlap of a
UB -> UB copy) run before any byte moves.

On the engine (docs/architecture.md) a copy's plan is its block geometry
(:class:`~npusim.ascend.addressing.BlockRuns` on each side) and its direction, which names
its pipe: MTE2 for GM -> UB, MTE3 for UB -> GM, V for UB -> UB.  A plan binds to the UB
tensors' addresses and to a GM tensor's *buffer*; the GM offset is read on every call
(with its bounds checked), so a kernel loop that walks GM tile by tile reuses one binding.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...dtypes import CodedDType, DType
from ...engine.plan import SelfBinding
from ...engine.registry import Instruction, register
from ...engine.trace import ByteRange
from ...errors import (
    AlignmentError,
    DataCopyRoundDownWarning,
    OverlapError,
    PadRegisterUnusedWarning,
    ParameterRangeError,
    UnsupportedError,
)
from ...lazy import cached_attribute
from ...memory import Memory
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import align_up, require_bool, require_int, require_uint
from .. import pages
from ..addressing import BLOCK_BYTES, BlockRuns, SliceRuns
from ..chips import unsupported_on
from ..core import Core
from ..footprint import same_array
from ..operands import NEVER
from ..runtime.gm import GlobalTensor, GmBuffer
from ..scalars import require_scalar
from ..tensor import LocalTensor
from ..tolerance import tolerate
from ..types import (
    DataCopyExtParams,
    DataCopyMVType,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    Nd2NzParams,
    NdDmaConfig,
    NdDmaParams,
    Nz2NdParamsFull,
    TPosition,
)
from .common import require_dtype, require_repeat_params, require_ub_tensor, scalar_bits
from .data_copy_nz import nd2nz_runs, nz2nd_runs
from .data_copy_slice import is_slice_list, slice_runs
from .loop_mode import REGISTER, loop_registers, looped_runs, require_no_loop
from .nddma import nddma_plan

__all__ = ["CopyBinding", "CopyPlan", "PadBinding", "PadBits", "PadPlan", "copy_endpoint", "data_copy", "data_copy_pad",
           "loop_mode_runs", "require_disjoint_dst", "set_pad_value"]

COPY_DOC = pages.DATA_COPY
PAD_DOC = pages.DATA_COPY_PAD
COPY_RULES = semantics("5.1")
PAD_RULES = semantics("5.2")
#: what the 950's DataCopyPad lowering passes its isPad to (dav_3510 DataCopyPadGm2UBImpl)
PAD_950_LOWERING = f"{pages.C_API_DATAMOVE}/asc_copy_gm2ub_align/asc_copy_gm2ub_align_arch_3510.md 参数说明"
MAX_BLOCK_COUNT = 4095  # blockCount ∈ [0, 4095]
MAX_PAD_BLOCK_LEN = 2097151  # DataCopyExtParams.blockLen ∈ [0, 2097151] bytes
GM_TO_UB, UB_TO_GM, UB_TO_UB = "GM -> UB", "UB -> GM", "UB -> UB"
PIPES = {GM_TO_UB: "MTE2", UB_TO_GM: "MTE3", UB_TO_UB: "V"}  # the pipe each direction issues on
NO_RUNS = BlockRuns(0, 0, 0)


def _is_int(value) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_copy_params(value) -> bool:
    return isinstance(value, DataCopyParams)


def _anything(_value) -> bool:
    return True  # checked by the plan step, with the message naming the operand


OPERANDS = (Param("dst", _anything), Param("src", _anything))
COPY_FORMS = (
    Form("count", (*OPERANDS, Param("count", _is_int))),
    Form("params", (*OPERANDS, Param("repeat_params", _is_copy_params))),
    Form("slice", (*OPERANDS, Param("slice_list1", is_slice_list), Param("slice_list2", is_slice_list),
                   Param("dim_value", _is_int, 1))),
    Form("nd2nz", (*OPERANDS, Param("intri_params", lambda v: isinstance(v, Nd2NzParams)))),
    Form("nz2nd", (*OPERANDS, Param("intri_params", lambda v: isinstance(v, Nz2NdParamsFull)))),
    Form("nddma", (*OPERANDS, Param("params", lambda v: isinstance(v, NdDmaParams)),
                   Param("config", lambda v: isinstance(v, NdDmaConfig), NdDmaConfig()))),
)
PAD_FORMS = (
    Form("ext", (*OPERANDS, Param("data_copy_params", lambda v: isinstance(v, DataCopyExtParams)),
                 Param("pad_params", lambda v: isinstance(v, DataCopyPadExtParams), None))),
    Form("params", (*OPERANDS, Param("data_copy_params", _is_copy_params),
                    Param("pad_params", lambda v: isinstance(v, DataCopyPadParams), None))),
)


# ------------------------------------------------------------------- operands
def copy_endpoint(instruction: str, name: str, operand, core: Core):
    """A checked operand: a usable UB tensor or a bound GlobalTensor."""
    if isinstance(operand, LocalTensor):
        return require_ub_tensor(instruction, name, operand, core)
    if isinstance(operand, GlobalTensor):
        _ = operand.address  # raises RuntimeMisuseError if the tensor was never bound
        return operand
    raise TypeError(f"{instruction}: {name} must be an asc.LocalTensor or asc.GlobalTensor, "
                    f"got {type(operand).__name__}")


def _direction(dst, src) -> str:
    if isinstance(src, GlobalTensor):
        return GM_TO_UB
    return UB_TO_GM if isinstance(dst, GlobalTensor) else UB_TO_UB


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


def _check_side(instruction: str, name: str, operand, runs: BlockRuns) -> None:
    """The runs from the operand's start lie in its UB tensor, or in its GM buffer (and declared size)."""
    if isinstance(operand, LocalTensor):
        operand.check_span(instruction, name, operand.addr, operand.addr + runs.extent)
    else:
        operand.check_bytes(instruction, name, 0, runs.extent)


def _check_ub_overlap(instruction: str, dst: LocalTensor, src: LocalTensor, dst_runs: BlockRuns,
                      src_runs: BlockRuns) -> None:
    """A UB -> UB copy may be exactly in place or disjoint, never partially overlapping (docs/semantics.md §1.6)."""
    d_idx, s_idx = dst_runs.byte_index(dst.addr), src_runs.byte_index(src.addr)
    if same_array(d_idx, s_idx):
        return
    shared = np.intersect1d(d_idx, s_idx)
    if shared.size:
        raise OverlapError(
            instruction, "src / dst", f"byte {int(shared[0]):#x}", "source and destination partially overlap",
            "identical or disjoint byte ranges", f"{pages.GENERAL} 通用地址重叠约束; {semantics('1.6', '5.1')}",
        )


def _runs_ranges(runs: BlockRuns, operand) -> tuple[ByteRange, ...]:
    """The bytes ``runs`` cover from the operand's start: in UB, or in the GM tensor's buffer."""
    if isinstance(operand, LocalTensor):
        return runs.ranges("UB", operand.addr)
    return runs.ranges("GM", operand.address.byte_offset, operand.buffer.name)


def _check_placement(instruction: str, core: Core, operands, src_runs: BlockRuns, dst_runs: BlockRuns) -> tuple:
    """A copy's operands checked where they are, in the order an uncached call checks them: usable,
    the runs inside each (source first), a GM destination writable.  Returns ``(dst, src)``."""
    dst = copy_endpoint(instruction, "dst", operands[0], core)
    src = copy_endpoint(instruction, "src", operands[1], core)
    if src_runs.blocks:
        _check_side(instruction, "src", src, src_runs)
        _check_side(instruction, "dst", dst, dst_runs)
        if isinstance(dst, GlobalTensor):
            dst.buffer.require_writable(instruction, "dst")
    return dst, src


def _call_ranges(plan, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
    """The bytes a copy with these values (``dst``, ``src``, ...) reads and writes; none for a NOP."""
    if not plan.src.blocks:
        return (), ()
    return _runs_ranges(plan.src, values[1]), _runs_ranges(plan.dst, values[0])


def _read_runs(instruction: str, memory: Memory, runs: BlockRuns, start: int, buffer: GmBuffer | None) -> np.ndarray:
    """The source runs' bytes, shape ``(blocks, nbytes)``, after the never-written check (GM: synced first)."""
    index = runs.byte_index(start)
    memory.check_initialized(instruction, "src", index.reshape(-1), 1)
    if buffer is not None:
        buffer.sync_from_host(start, start + runs.extent)
    return memory.data[index]


# ------------------------------------------------------------------ DataCopy
def _compile_copy(core: Core, form: str, values: dict) -> CopyPlan:
    """Every check of a call, in the order the documents' rules come; the plan of its block runs."""
    instruction = "data_copy"
    dst = copy_endpoint(instruction, "dst", values["dst"], core)
    src = copy_endpoint(instruction, "src", values["src"], core)
    if isinstance(dst, GlobalTensor) and isinstance(src, GlobalTensor):
        raise TypeError(f"{instruction}: GM -> GM is not a data path; one of dst and src must be a LocalTensor")
    direction = _direction(dst, src)
    if form == "nddma":
        plan = nddma_plan(instruction, core, dst, src, values["params"], values["config"])
        plan.check(core, (dst, src))
        return plan
    if form in ("slice", "nd2nz", "nz2nd"):
        plan = (_slice_plan if form == "slice" else _conversion_plan)(core, form, direction, dst, src, values)
        if direction != UB_TO_UB:
            require_no_loop(instruction, core, direction == GM_TO_UB, f"DataCopy with {form}")
            plan.registers_read = _loop_register(core, direction) if plan.src.blocks else ()
        plan.check(core, (dst, src))
        require_disjoint_dst(plan.dst, *DISJOINT[form])  # after the bounds: the runs lie in real memory
        return plan
    dtype = _common_dtype(instruction, dst, src, core.chip.data_copy_dtypes, core,
                          f"{COPY_DOC} 数据类型; {COPY_RULES}")
    if form == "count":
        count = require_uint(instruction, "count", values["count"], 32, f"{COPY_DOC} 函数原型; {COPY_RULES}")
        nbytes = count * dtype.itemsize
        if nbytes % BLOCK_BYTES:
            error = ParameterRangeError(
                instruction, "count", count,
                f"count * sizeof({dtype}) = {nbytes} bytes is not a multiple of 32 (the hardware would round it "
                f"down to {nbytes // BLOCK_BYTES * BLOCK_BYTES} bytes)",
                f"multiples of {BLOCK_BYTES // dtype.itemsize} elements; use data_copy_pad for a tail",
                f"{COPY_DOC} 约束说明; {COPY_RULES}",
            )
            tolerate(core.tolerance, error, DataCopyRoundDownWarning,
                     f"moves the first {nbytes // BLOCK_BYTES * BLOCK_BYTES} bytes only")
            nbytes -= nbytes % BLOCK_BYTES
        src_runs = dst_runs = BlockRuns(1, nbytes, nbytes) if nbytes else NO_RUNS
    else:
        block_count, block_len, src_gap, dst_gap = require_repeat_params(instruction, values["repeat_params"],
                                                                         DataCopyParams)
        block_count = require_int(instruction, "repeat_params.block_count", block_count, 0, MAX_BLOCK_COUNT,
                                  f"{pages.DATA_COPY_PARAMS} 约束说明 (表4); {COPY_RULES}")
        if block_count == 0 or block_len == 0:
            _nop_allowed(instruction, core, "repeat_params.block_count" if block_count == 0 else
                         "repeat_params.block_len", f"{pages.DATA_COPY_PARAMS} 约束说明; {COPY_RULES}")
            src_runs = dst_runs = NO_RUNS
        else:
            nbytes = block_len * BLOCK_BYTES
            src_runs = BlockRuns(block_count, nbytes, nbytes + src_gap * BLOCK_BYTES)
            dst_runs = BlockRuns(block_count, nbytes, nbytes + dst_gap * BLOCK_BYTES)
    src_runs, dst_runs, registers, looped = loop_mode_runs(instruction, core, direction, src_runs, dst_runs)
    plan = CopyPlan(direction, src_runs, dst_runs, registers_read=registers, gm_aligned=looped)
    plan.check(core, (dst, src))
    if looped:
        require_disjoint_dst(plan.dst, *DISJOINT["loop"])
    return plan


def _loop_register(core: Core, direction: str) -> tuple[str, ...]:
    """The loop-mode register set a GM <-> UB copy follows, where the product has one."""
    if direction == UB_TO_UB or not core.chip.loop_mode_api:
        return ()
    return (REGISTER[DataCopyMVType.OUT_TO_UB if direction == GM_TO_UB else DataCopyMVType.UB_TO_OUT],)


def loop_mode_runs(instruction: str, core: Core, direction: str, src_runs: BlockRuns, dst_runs: BlockRuns):
    """``(src runs, dst runs, registers read, looped)``: a copy's runs under its path's loop-mode registers
    (950, SetLoopModePara.md; :mod:`.loop_mode`); unchanged with one iteration, or for a NOP."""
    registers = _loop_register(core, direction)
    if not registers or not src_runs.blocks:
        return src_runs, dst_runs, (), False
    regs = loop_registers(core, direction == GM_TO_UB)
    if regs.normal:
        return src_runs, dst_runs, registers, False
    return (*looped_runs(instruction, regs, src_runs, dst_runs), registers, True)


def _require_gm_aligned(instruction: str, name: str, start: int) -> None:
    """Under loop mode a GM operand starts 32-byte aligned (SetLoopModePara.md 约束说明)."""
    if start % BLOCK_BYTES:
        raise AlignmentError(instruction, f"{name} GM offset", f"{start:#x}", "under loop mode the start address "
                             "must be 32-byte aligned", "multiples of 32 bytes",
                             f"{pages.SET_LOOP_MODE_PARA} 约束说明; {semantics('5.11')}")


def _conversion_plan(core: Core, form: str, direction: str, dst, src, values: dict) -> CopyPlan:
    """ND -> NZ (GM -> UB) or NZ -> ND (UB -> GM), on the products and dtypes of its page."""
    instruction = "data_copy"
    doc, wanted = (pages.DATA_COPY_ND2NZ, GM_TO_UB) if form == "nd2nz" else (pages.DATA_COPY_NZ2ND, UB_TO_GM)
    supported = (lambda c: bool(c.nd2nz_dtypes)) if form == "nd2nz" else (lambda c: bool(c.nz2nd_dtypes))
    if not supported(core.chip):
        raise unsupported_on(core.chip, instruction, f"DataCopy with {type(values['intri_params']).__name__}",
                             supported, f"{doc} 产品支持情况; {semantics('5.10')}")
    if direction != wanted:
        raise TypeError(f"{instruction}: with {type(values['intri_params']).__name__} the data path is {wanted} "
                        f"(dst {'LocalTensor' if wanted == GM_TO_UB else 'GlobalTensor'})")
    dtypes = core.chip.nd2nz_dtypes if form == "nd2nz" else core.chip.nz2nd_dtypes
    dtype = _common_dtype(instruction, dst, src, dtypes, core, f"{doc} 数据类型; {semantics('5.10')}")
    runs = (nd2nz_runs if form == "nd2nz" else nz2nd_runs)(instruction, core, dtype, values["intri_params"])
    return CopyPlan(direction, *(runs or (NO_RUNS, NO_RUNS)))


#: per kind of grid copy: the operand and source an overlap of its destination runs is reported with
DISJOINT = {
    "slice": ("slice_list1", f"{pages.DATA_COPY_SLICE} 参数说明; {semantics('5.9')}"),
    "nd2nz": ("intri_params", f"{pages.DATA_COPY_ND2NZ} 参数说明 (表3); {semantics('5.10')}"),
    "nz2nd": ("intri_params", f"{pages.DATA_COPY_NZ2ND} 参数说明 (表3); {semantics('5.10')}"),
    "loop": ("loop-mode registers", f"{pages.SET_LOOP_MODE_PARA} 约束说明; {semantics('5.11')}"),
}


def require_disjoint_dst(runs, operand: str, source: str, instruction: str = "data_copy") -> None:
    """No two destination runs of a grid copy (SliceInfo, ND <-> NZ, loop mode) share a byte: the result
    would depend on the order the runs are issued in, which the pages do not give (loop mode: forbidden)."""
    if not runs.blocks:
        return
    span = runs.extent - runs.offset
    if runs.blocks * runs.nbytes > span:
        clash = f"{runs.blocks} runs of {runs.nbytes} bytes within {span} bytes"
    else:
        starts = np.sort(runs.starts())
        hits = np.flatnonzero(np.diff(starts) < runs.nbytes)
        if not hits.size:
            return
        clash = f"runs at bytes {int(starts[hits[0]])} and {int(starts[hits[0] + 1])}"
    raise OverlapError(instruction, operand, clash, "destination runs overlap one another", "disjoint "
                       "destination runs", source)


def _slice_plan(core: Core, form: str, direction: str, dst, src, values: dict) -> CopyPlan:
    """A copy with SliceInfo: GM <-> UB only, on the products and dtypes of its page."""
    instruction, source = "data_copy", f"{pages.DATA_COPY_SLICE} 产品支持情况; {semantics('5.9')}"
    if not core.chip.data_copy_slice_dtypes:
        raise unsupported_on(core.chip, instruction, "DataCopy with SliceInfo",
                             lambda c: bool(c.data_copy_slice_dtypes), source)
    if direction == UB_TO_UB:
        raise TypeError(f"{instruction}: a copy with SliceInfo runs GM -> UB (dst LocalTensor, src GlobalTensor) "
                        "or UB -> GM (dst GlobalTensor, src LocalTensor)")
    dtype = _common_dtype(instruction, dst, src, core.chip.data_copy_slice_dtypes, core,
                          f"{pages.DATA_COPY_SLICE} 数据类型; {semantics('5.9')}")
    src_runs, dst_runs = slice_runs(instruction, dtype, direction == GM_TO_UB, values["slice_list1"],
                                    values["slice_list2"], values["dim_value"])
    return CopyPlan(direction, src_runs, dst_runs)


@dataclass(eq=False)
class CopyPlan:
    """A checked ``data_copy``: its direction and the block runs on each side (none: a documented NOP).

    It holds no address: :meth:`bind` checks a placement (UB bounds and alignment, a GM
    tensor's bounds at its current offset, a GM destination's writability, UB -> UB
    overlap) and makes the UB views of a :class:`CopyBinding`.
    """

    direction: str
    src: BlockRuns | SliceRuns
    dst: BlockRuns | SliceRuns
    operands: tuple[str, ...] = ("dst", "src")
    registers_read: tuple[str, ...] = ()  # the loop-mode registers of the path (950)
    gm_aligned: bool = False  # under loop mode: a GM operand must start 32-byte aligned
    instruction: str = "data_copy"  # the name errors give: an alias (asc_copy_gm2ub) shares the plan

    def check(self, core: Core, operands) -> None:
        """The per-placement rules, in the order an uncached call makes them."""
        dst, src = _check_placement(self.instruction, core, operands, self.src, self.dst)
        if self.src.blocks and self.direction == UB_TO_UB:
            _check_ub_overlap(self.instruction, dst, src, self.dst, self.src)

    def bind(self, core: Core, operands) -> CopyBinding:
        self.check(core, operands)
        return CopyBinding(self, core, *operands)


class CopyBinding:
    """A :class:`CopyPlan` bound to its UB tensors' addresses and its GM tensor's buffer on one core.

    A call is one numpy assignment between two ``(blocks, nbytes)`` views (a slice when the
    runs are contiguous, else a strided view).  What ``run`` still checks per call: a GM
    operand's bounds at its current offset, that a GM destination is writable, and
    never-written source bytes — a UB source once per shadow epoch (``Memory.shadow_epoch``),
    a GM source every call unless its memory is ``fully_written`` (a caller's array).
    Written-shadow updates follow the same rule.
    """

    registers_written: tuple[str, ...] = ()

    def __init__(self, plan: CopyPlan, core: Core, dst, src) -> None:
        self.plan = plan
        self.registers_read = plan.registers_read
        self.pipe = PIPES[plan.direction]
        self.blocks, self.src_extent, self.dst_extent = plan.src.blocks, plan.src.extent, plan.dst.extent
        self.dense = plan.src.contiguous and plan.dst.contiguous  # both sides one run: flat slices
        self.src_view = self.src_shadow = self.dst_view = self.dst_shadow = None
        self.src_seen_written = self.dst_seen_written = NEVER
        self.src_addr = src.addr if isinstance(src, LocalTensor) else None
        if not plan.src.blocks:
            return
        ub = core.ub
        if self.src_addr is not None:
            self.src_view = self._view(plan.src, ub.data, self.src_addr)
            self.src_shadow = self._view(plan.src, ub.written, self.src_addr)
        if isinstance(dst, LocalTensor):
            self.dst_view = self._view(plan.dst, ub.data, dst.addr)
            self.dst_shadow = self._view(plan.dst, ub.written, dst.addr)

    def _view(self, runs: BlockRuns, array: np.ndarray, start: int) -> np.ndarray:
        """The runs over ``array``: a flat slice when both sides are contiguous, else ``(blocks, nbytes)``."""
        if self.dense:
            return array[start : start + runs.extent]
        return runs.view(array, start)

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        """Bytes read and written by the call with these values (a GM offset moves per call)."""
        return _call_ranges(self.plan, values)

    def run(self, core: Core, values: tuple) -> None:
        """Move the bytes of one call, checked as the class says, in the order an uncached call checks:
        bounds (the UB ones are the binding's), a GM destination's writability, never-written source bytes."""
        if self.blocks == 0:
            return
        instruction, ub = self.plan.instruction, core.ub
        gm_target = None
        if self.dst_view is None:  # GM destination
            runs = self.plan.dst
            buffer, gm_start = values[0].locate(instruction, "dst", self.dst_extent)
            if self.plan.gm_aligned:
                _require_gm_aligned(instruction, "dst", gm_start)
            buffer.require_writable(instruction, "dst")
            memory = buffer.memory
            gm_target = (buffer, gm_start, self._view(runs, memory.data, gm_start),
                         None if memory.fully_written else self._view(runs, memory.written, gm_start))
        if self.src_view is not None:  # UB source
            source = self.src_view
            if self.src_seen_written != ub.shadow_epoch:
                if ub.uninit != "ignore" and not self.src_shadow.all():
                    ub.check_initialized(instruction, "src", self.plan.src.byte_index(self.src_addr).reshape(-1), 1)
                self.src_seen_written = ub.shadow_epoch
        else:
            source = self._gm_source(instruction, values[1])
        if gm_target is None:
            self._commit_ub(ub, source)
        else:
            self._commit_gm(source, *gm_target)

    def _commit_ub(self, ub: Memory, source: np.ndarray) -> None:
        """One numpy copy of the runs into UB (numpy reads all of an overlapping source first), then the shadow."""
        self.dst_view[...] = source
        if self.dst_seen_written != ub.shadow_epoch:
            self.dst_shadow[...] = 1
            self.dst_seen_written = ub.shadow_epoch

    def _commit_gm(self, source: np.ndarray, buffer: GmBuffer, gm_start: int, data: np.ndarray,
                   written: np.ndarray | None) -> None:
        """One numpy copy of the runs into GM, then its written-shadow (unless the buffer is a caller's array)."""
        if buffer.host_copy is None:
            data[...] = source
        else:  # the gaps between blocks keep the array's current bytes
            stop = gm_start + self.dst_extent
            buffer.sync_from_host(gm_start, stop)
            data[...] = source
            buffer.sync_to_host(gm_start, stop)
        if written is not None:
            written[...] = 1

    def _gm_source(self, instruction: str, src: GlobalTensor) -> np.ndarray:
        """A GM source's runs, after its bounds and never-written bytes are checked."""
        runs = self.plan.src
        buffer, start = src.locate(instruction, "src", self.src_extent)
        if self.plan.gm_aligned:
            _require_gm_aligned(instruction, "src", start)
        memory = buffer.memory
        if (not memory.fully_written and memory.uninit != "ignore"
                and not runs.view(memory.written, start).all()):
            memory.check_initialized(instruction, "src", runs.byte_index(start).reshape(-1), 1)
        if buffer.host_copy is not None:
            buffer.sync_from_host(start, start + self.src_extent)
        return self._view(runs, memory.data, start)


# --------------------------------------------------------------- DataCopyPad
def _pad_runs(instruction: str, params, core: Core, dtype: DType) -> tuple[int, int, int, int] | None:
    """Validated ``(blocks, block_len, src_gap, dst_gap)`` of a DataCopyPad call, ``None`` for a documented NOP."""
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
    return count, length, src_gap, dst_gap


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


def _compile_pad(core: Core, form: str, values: dict) -> PadPlan:
    instruction = "data_copy_pad"
    if not core.chip.data_copy_pad_dtypes:
        raise unsupported_on(core.chip, instruction, "DataCopyPad", lambda c: bool(c.data_copy_pad_dtypes),
                             f"{PAD_DOC} 产品支持情况; {PAD_RULES}")
    dst = copy_endpoint(instruction, "dst", values["dst"], core)
    src = copy_endpoint(instruction, "src", values["src"], core)
    inbound = isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor)
    if not inbound and not (isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor)):
        raise TypeError(f"{instruction}: the data paths are GM -> UB (dst LocalTensor, src GlobalTensor) and "
                        "UB -> GM (dst GlobalTensor, src LocalTensor)")
    dtype = _common_dtype(instruction, dst, src, core.chip.data_copy_pad_dtypes, core,
                          f"{PAD_DOC} 数据类型; {PAD_RULES}")
    pad = values["pad_params"]
    if inbound and pad is None:
        raise TypeError(f"{instruction}: GM -> UB needs pad_params (DataCopyPadExtParams or DataCopyPadParams)")
    if not inbound and pad is not None:
        raise TypeError(f"{instruction}: UB -> GM takes no pad_params")
    is_pad, left, right, value = _pad_fields(instruction, pad, dtype)
    pads_from_first = inbound and not is_pad and bool(left or right) and core.chip.copy_pad_fills_first
    if pads_from_first:
        error = UnsupportedError(
            instruction, "pad_params.is_pad", is_pad,
            f"on {core.chip.product} the pads of an is_pad-false copy repeat each block's first element, not the "
            "SetPadValue register the page names (the lowering turns constant padding off)",
            "True, with the padding value", f"{PAD_DOC} 参数说明 (isPad); {PAD_950_LOWERING}; {PAD_RULES}")
        tolerate(core.tolerance, error, PadRegisterUnusedWarning, "pads with each block's first element")
    geometry = _pad_runs(instruction, values["data_copy_params"], core, dtype)
    src_runs = dst_runs = NO_RUNS
    if geometry is not None:
        blocks, length, src_gap, dst_gap = geometry
        if inbound:  # GM gap in bytes; in UB each block padded to 32 bytes, the UB gap in DataBlocks
            row = align_up(left + length + right, BLOCK_BYTES)
            src_runs = BlockRuns(blocks, length, length + src_gap)
            dst_runs = BlockRuns(blocks, row, row + dst_gap * BLOCK_BYTES)
        else:  # the UB side 32-byte padded, its gap in DataBlocks; the GM gap in bytes
            src_runs = BlockRuns(blocks, length, align_up(length, BLOCK_BYTES) + src_gap * BLOCK_BYTES)
            dst_runs = BlockRuns(blocks, length, length + dst_gap)
    src_runs, dst_runs, registers, looped = loop_mode_runs(instruction, core, GM_TO_UB if inbound else UB_TO_GM,
                                                       src_runs, dst_runs)
    plan = PadPlan(inbound, dtype, src_runs, dst_runs, left, right, is_pad, value, loop_registers_read=registers,
                   gm_aligned=looped, pads_from_first=pads_from_first)
    plan.check(core, (dst, src))
    if looped:
        require_disjoint_dst(plan.dst, *DISJOINT["loop"])
    return plan


@dataclass(eq=False)
class PadPlan:
    """A checked ``data_copy_pad``: direction, element type, block runs, padding (no runs: a NOP)."""

    inbound: bool  # GM -> UB
    dtype: DType
    src: BlockRuns
    dst: BlockRuns
    left: int  # padding bytes
    right: int
    is_pad: bool
    value: object
    operands: tuple[str, ...] = ("dst", "src")
    loop_registers_read: tuple[str, ...] = ()  # the loop-mode registers of the path (950)
    gm_aligned: bool = False  # under loop mode: the GM operand must start 32-byte aligned
    instruction: str = "data_copy_pad"  # the name errors give: an alias (asc_copy_gm2ub_align) shares the plan
    #: the pads repeat each block's first element instead of a padding value (the 950's copy_gm_to_ubuf_align_v2
    #: with enable_constant_pad false, as asc_copy_gm2ub_align exposes it)
    pads_from_first: bool = False

    def check(self, core: Core, operands) -> None:
        """The per-placement rules, in the order an uncached call makes them."""
        _check_placement(self.instruction, core, operands, self.src, self.dst)

    def bind(self, core: Core, operands) -> PadBinding:
        self.check(core, operands)
        return PadBinding(self)

    @cached_attribute
    def pad_columns(self) -> np.ndarray:
        """The byte columns of a UB row that are not data: the left pad, then the right pad and the dummy."""
        start = self.left + self.src.nbytes
        return np.r_[np.arange(self.left), np.arange(start, self.dst.nbytes)]

    @property
    def pads_from_register(self) -> bool:
        """The pads take the padding register (``set_pad_value`` or an earlier ``is_pad`` copy)."""
        return self.inbound and not self.is_pad and not self.pads_from_first and bool(self.left or self.right)


class PadBinding:
    """A :class:`PadPlan` on one core: the GM offset and both sides' bounds are read per call."""

    def __init__(self, plan: PadPlan) -> None:
        self.plan = plan
        self.pipe = PIPES[GM_TO_UB if plan.inbound else UB_TO_GM]
        self.registers_read = (("PAD",) if plan.src.blocks and plan.pads_from_register else ()) + \
            plan.loop_registers_read
        self.registers_written = ("PAD",) if plan.src.blocks and plan.is_pad else ()

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        return _call_ranges(self.plan, values)

    def run(self, core: Core, values: tuple) -> None:
        if not self.plan.src.blocks:
            return
        if self.plan.inbound:
            self._gm_to_ub(core, values[0], values[1])
        else:
            self._ub_to_gm(core, values[0], values[1])

    def _gm_to_ub(self, core: Core, dst: LocalTensor, src: GlobalTensor) -> None:
        plan = self.plan
        instruction = plan.instruction
        dtype, left, right = plan.dtype, plan.left, plan.right
        length, row = plan.src.nbytes, plan.dst.nbytes
        start = src.check_bytes(instruction, "src", 0, plan.src.extent)
        if plan.gm_aligned:
            _require_gm_aligned(instruction, "src", start)
        data = _read_runs(instruction, src.buffer.memory, plan.src, start, src.buffer)

        rows = np.empty((plan.src.blocks, row), dtype=np.uint8)
        rows[:, left : left + length] = data
        fill = plan.value if plan.is_pad else core.pad_value
        if plan.pads_from_first:  # every byte around the data repeats the block's first element
            pattern = np.tile(data[:, : dtype.itemsize], (1, row // dtype.itemsize))
            pad_columns = plan.pad_columns
            rows[:, pad_columns] = pattern[:, pad_columns]
        elif left == 0 and right == 0:
            first = data[:, : dtype.itemsize]
            rows[:, length:] = np.tile(first, (1, (row - length) // dtype.itemsize))
        elif fill is not None:
            bits = pad_fill_bits(instruction, fill, dtype)
            pad_columns = plan.pad_columns
            rows[:, pad_columns] = np.tile(bits, row // dtype.itemsize)[pad_columns]

        target = plan.dst.byte_index(dst.addr)
        if (left or right) and fill is None and not plan.pads_from_first:
            # padding register never set: the pads are "随机值"; only the data bytes become defined
            writes = (target[:, left : left + length].reshape(-1), data.reshape(-1),
                      target[:, plan.pad_columns].reshape(-1))
        else:
            writes = (target.reshape(-1), rows.reshape(-1), None)
        self._commit_pad(core, *writes)

    def _commit_pad(self, core: Core, at: np.ndarray, payload: np.ndarray, undefined: np.ndarray | None) -> None:
        """A DataCopyPad GM -> UB: the bytes, the pads left undefined (if any), the padding register (if loaded)."""
        core.ub.scatter(at, payload)
        if undefined is not None:
            core.ub.mark_undefined(undefined)
        if self.plan.is_pad:
            core.load_pad_value(self.plan.value)

    def _ub_to_gm(self, core: Core, dst: GlobalTensor, src: LocalTensor) -> None:
        plan = self.plan
        instruction = plan.instruction
        start = dst.check_bytes(instruction, "dst", 0, plan.dst.extent)
        if plan.gm_aligned:
            _require_gm_aligned(instruction, "dst", start)
        buffer = dst.buffer
        buffer.require_writable(instruction, "dst")
        payload = _read_runs(instruction, core.ub, plan.src, src.addr, None)
        stop = start + plan.dst.extent
        buffer.sync_from_host(start, stop)  # the gaps between blocks keep the array's current bytes
        buffer.memory.scatter(plan.dst.byte_index(start).reshape(-1), payload.reshape(-1))
        buffer.sync_to_host(start, stop)


# ---------------------------------------------------------------- SetPadValue
class PadBits(NamedTuple):
    """The padding register as a raw bit pattern (``asc_set_gm2ub_pad``'s ``uint32_t``, docs/semantics.md
    §5.25): a copy of T pads with its low ``8 * sizeof(T)`` bits, the way ``asc_set_copy_pad_val`` passes each
    T's bits zero-extended."""

    bits: int


def pad_fill_bits(instruction: str, fill, dtype: DType) -> np.ndarray:
    """The bytes of one padding element of ``dtype``: the register's number converted, or its raw low bits."""
    if isinstance(fill, PadBits):
        low = fill.bits & ((1 << (8 * dtype.itemsize)) - 1)
        return np.frombuffer(low.to_bytes(dtype.itemsize, "little"), dtype=np.uint8)
    if isinstance(dtype, CodedDType) or (instruction == "asc_copy_gm2ub_align" and dtype.name in BYTE_PADDED):
        return _code_pad_bits(instruction, fill, dtype)
    return scalar_bits(instruction, "padding value", fill, dtype).view(np.uint8)


#: the 8-bit float types whose asc_copy_gm2ub_align (the 950) pads with the register's byte: asc_set_copy_pad_val.md
#: has no overload of theirs and says their data "需转换成int8_t" first (hifloat8_t, a coded type, as well)
BYTE_PADDED = frozenset({"float8_e5m2", "float8_e4m3fn"})


def _code_pad_bits(instruction: str, fill, dtype: DType) -> np.ndarray:
    """The padding byte of a ``hifloat8`` copy, or of an fp8 asc_copy_gm2ub_align: asc_set_copy_pad_val.md (the
    950) has no overload of these types, their data "需转换成int8_t" first, so the register holds the element's
    byte as a 1-byte integer (``int8_t`` or ``uint8_t``: the same byte) and the pads are that byte
    (docs/semantics.md §5.32; §5.17 for the fp8 types)."""
    integral = isinstance(fill, (numbers.Integral, np.integer)) and not isinstance(fill, (bool, np.bool_))
    if not integral or not -128 <= int(fill) <= 255:
        section = semantics("5.32") if isinstance(dtype, CodedDType) else semantics("5.17")
        raise ParameterRangeError(instruction, "padding value", fill, f"a {dtype} copy pads with the padding "
                                  "register's byte: the element's bits, set as an int8_t (asc_set_copy_pad_val has "
                                  f"no {dtype} overload)", "integers in [-128, 255] (int8_t or uint8_t)",
                                  f"{pages.C_API_DATAMOVE}/asc_set_copy_pad_val.md 功能说明; {section}")
    return np.array([int(fill) & 0xFF], dtype=np.uint8)


PAD_VALUE_POSITIONS = frozenset({TPosition.MAX, TPosition.VECIN, TPosition.VECOUT})
SET_PAD_VALUE_FORMS = (Form("", (Param("padding_value", _anything), Param("pos", _anything, TPosition.MAX))),)


@dataclass(eq=False)
class PadValueWrite(SelfBinding):
    """A checked ``set_pad_value``: the value is read per call (``-0.0`` and ``0.0`` share no key)."""

    registers_written: tuple[str, ...] = ("PAD",)
    pipe: str = "S"
    instruction: str = "set_pad_value"  # or its C API alias, asc_set_copy_pad_val
    operand: str = "padding_value"

    def run(self, core: Core, values: tuple) -> None:
        value = values[0]
        core.load_pad_value(require_scalar(self.instruction, self.operand, value))


def _compile_set_pad_value(core: Core, form: str, values: dict) -> PadValueWrite:
    instruction = "set_pad_value"
    if not core.chip.pad_value_api:
        raise unsupported_on(core.chip, instruction, "SetPadValue", lambda c: c.pad_value_api,
                             f"{pages.SET_PAD_VALUE} 产品支持情况; {PAD_RULES}")
    padding_value, pos = values["padding_value"], values["pos"]
    require_scalar(instruction, "padding_value", padding_value)
    if not isinstance(pos, TPosition):
        raise TypeError(f"{instruction}: pos must be an asc.TPosition, got {type(pos).__name__}")
    if pos not in PAD_VALUE_POSITIONS:
        raise UnsupportedError(instruction, "pos", getattr(pos, "name", pos), "the padding register serves "
                               "GM -> VECIN/VECOUT copies", "TPosition.MAX, VECIN, VECOUT",
                               f"{pages.SET_PAD_VALUE} 参数说明; {PAD_RULES}")
    return PadValueWrite()


# ------------------------------------------------------------------ the API
def _loop_context(core: Core) -> tuple:
    """What a copy's plan depends on besides its arguments: the loop-mode registers (950; constant elsewhere)."""
    return core.loop_gm_to_ub, core.loop_ub_to_gm



_UB = "ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
_FILLED_UB = "core.ub_write(0, bytes(range(256)) * 4)\n" + _UB
_GM_SETUP = (_FILLED_UB + "x = asc.gm_alloc(asc.float16, 512)\n"
             "x_gm = asc.GlobalTensor()\n"
             "x_gm.set_global_buffer(x)\n"
             "asc.data_copy(x_gm, ub, 512)\n")



def _coded_gm_setup(dtype: str) -> str:
    """GM of a coded 8-bit type (hifloat8_t, fp8_e8m0_t: every byte a code, docs/semantics.md §5.32, §5.34)
    written from UB, for the 950's GM examples."""
    return (f"core.ub_write(0, bytes(range(256)) * 4)\n"
            f"ub = asc.LocalTensor(asc.{dtype}, asc.TPosition.VECIN, 0, 1024)\n"
            f"x = asc.gm_alloc(asc.{dtype}, 1024)\nx_gm = asc.GlobalTensor()\nx_gm.set_global_buffer(x)\n"
            "asc.data_copy(x_gm, ub, 1024)\n")


_CODED_GM_CALLS = (
    "asc.data_copy(ub, x_gm[64:], 256)",
    "asc.data_copy(x_gm[32:], ub, asc.DataCopyParams(4, 2, 1, 3))",
    "asc.data_copy(ub, x_gm, [asc.SliceInfo(0, 63, 0, 1, 64), asc.SliceInfo(0, 1, 0, 1, 2)], "
    "[asc.SliceInfo(5, 100, 32, 1, 200), asc.SliceInfo(0, 2, 1, 1, 4)], 2)",
)

data_copy = register(Instruction(
    "data_copy", "ascend", "data_movement", "MTE2", COPY_FORMS, _compile_copy,
    f"{COPY_DOC} 函数原型; {pages.DATA_COPY_PARAMS} 参数说明; {pages.DATA_COPY_SLICE} 参数说明; "
    f"{pages.DATA_COPY_ND2NZ} 参数说明; {pages.DATA_COPY_NZ2ND} 参数说明; {pages.DATA_COPY_NDDMA} 参数说明; "
    f"{COPY_RULES}",
    support=lambda chip: chip.data_copy_dtypes,
    summary="Copy 32-byte-aligned blocks GM -> UB (MTE2), UB -> GM (MTE3) or UB -> UB (V): count elements, "
            "DataCopyParams block runs with gaps in DataBlocks, a SliceInfo slice (GM <-> UB), ND -> NZ "
            "(Nd2NzParams, GM -> UB), NZ -> ND (Nz2NdParamsFull, UB -> GM) or NDDMA (NdDmaParams, 950)",
    # (the NDDMA form runs on the 950 only; its record, with GM ranges the generated access-record test does
    # not index, is checked in tests/ascend/test_nddma.py)
    examples=(
        _GM_SETUP + "asc.data_copy(ub, x_gm[64:], 256)",
        _GM_SETUP + "asc.data_copy(x_gm[32:], ub, asc.DataCopyParams(4, 2, 1, 3))",
        _FILLED_UB + "out = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 512)\n"
                     "asc.data_copy(out, ub, asc.DataCopyParams(3, 1, 2, 0))",
        _GM_SETUP + "asc.data_copy(ub, x_gm, [asc.SliceInfo(0, 31, 0, 1, 32), asc.SliceInfo(0, 1, 0, 1, 2)], "
                    "[asc.SliceInfo(5, 52, 16, 1, 100), asc.SliceInfo(0, 2, 1, 1, 4)], 2)",
        _GM_SETUP + "asc.data_copy(x_gm[7:], ub, [asc.SliceInfo(3, 40, 6, 1, 48)], "
                    "[asc.SliceInfo(0, 47, 16, 1, 128)], 1)",
        _GM_SETUP + "asc.data_copy(ub, x_gm[16:], asc.Nd2NzParams(1, 8, 32, 0, 40, 8, 1, 0))",
        _GM_SETUP + "asc.data_copy(x_gm[8:], ub, asc.Nz2NdParamsFull(2, 3, 32, 1, 4, 40, 128))",
    ),
    examples_on={"950": (*(  # UB -> UB of the 950's complex64 and hifloat8_t (docs/semantics.md §5.29, §5.32)
        f"ub = asc.LocalTensor(asc.{dtype}, asc.TPosition.VECIN, 0, 512)\n"
        f"out = asc.LocalTensor(asc.{dtype}, asc.TPosition.VECOUT, 4096, 512)\n" + f"asc.data_copy(out, ub, {how})"
        for dtype, how in (("complex64", "128"), ("hifloat8", "256"), ("hifloat8", "asc.DataCopyParams(3, 2, 1, 0)"))),
        *(_coded_gm_setup(dtype) + call for dtype in ("hifloat8", "fp8_e8m0_t") for call in _CODED_GM_CALLS))},
    plan_context=lambda core, form, values: _loop_context(core), fast_context=lambda core: _loop_context(core),
    doc="``asc.data_copy``: GM -> UB, UB -> GM or UB -> UB; count * sizeof(T) a multiple of 32 bytes, or "
        "DataCopyParams(block_count, block_len, src_stride, dst_stride) in DataBlocks, or GM <-> UB a slice "
        "(slice_list1 = dst SliceInfo list, slice_list2 = src, dim_value; GM与UB切片数据搬运(DataCopy).md), "
        "or with intri_params = Nd2NzParams (GM -> UB) / Nz2NdParamsFull (UB -> GM), the layout conversions "
        "where the vendor lowering does what their pages say (docs/semantics.md §5.10), or on the 950 the NDDMA "
        "form params = NdDmaParams(NdDmaLoopInfo(...), constant_value), config = NdDmaConfig() (§5.12).",
))

data_copy_pad = register(Instruction(
    "data_copy_pad", "ascend", "data_movement", "MTE2", PAD_FORMS, _compile_pad, f"{PAD_DOC} 参数说明; {PAD_RULES}",
    support=lambda chip: chip.data_copy_pad_dtypes or None,
    summary="Copy unaligned blocks: GM -> UB padding each block to 32 bytes (MTE2), UB -> GM dropping the "
            "padding (MTE3)",
    examples=(
        _GM_SETUP + "asc.data_copy_pad(ub, x_gm[3:], asc.DataCopyExtParams(2, 40, 6, 1), "
                          "asc.DataCopyPadExtParams(asc.float16, True, 2, 1, 7.5))",
        _GM_SETUP + "asc.data_copy_pad(x_gm[5:], ub, asc.DataCopyExtParams(3, 22, 1, 4))",
        _GM_SETUP + "asc.set_pad_value(-1.0)\n"
                     "asc.data_copy_pad(ub, x_gm, asc.DataCopyParams(2, 10, 2, 0), "
                          "asc.DataCopyPadParams(False, 1, 2))",
        _GM_SETUP + "asc.data_copy_pad(x_gm, ub, asc.DataCopyParams(2, 64, 0, 2))",
    ),
    plan_context=lambda core, form, values: _loop_context(core), fast_context=lambda core: _loop_context(core),
    doc="``asc.data_copy_pad``: GM -> UB with padding to 32 bytes (DataCopyPadExtParams / DataCopyPadParams), "
        "or UB -> GM of unaligned lengths.",
))

set_pad_value = register(Instruction(
    "set_pad_value", "ascend", "register", "S", SET_PAD_VALUE_FORMS, _compile_set_pad_value,
    f"{pages.SET_PAD_VALUE} 参数说明; {PAD_RULES}", support=lambda chip: chip.pad_value_api or None,
    summary="Load the padding register data_copy_pad uses when is_pad is false (SetPadValue)",
    examples=("asc.set_pad_value(3.0)", "asc.set_pad_value(0, asc.TPosition.VECIN)"),
    per_call=frozenset({"padding_value"}), fast_context=lambda core: (),
    doc="Load the padding register that ``data_copy_pad`` uses when ``is_pad`` is false (``SetPadValue``); "
        "npusim keeps the value and converts it to the copy's element type when a copy uses it.",
))
