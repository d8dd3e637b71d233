"""NDDMA: the multi-dimensional GM -> UB ``DataCopy`` with padding, and ``NdDmaDci`` (950 only).

GMToUB多维数据搬运NDDMA(DataCopy).md: ``dim`` (1 to 5) nested loops, entry 0 innermost.  Loop
``d`` runs over ``n_d = lp_d + size_d + rp_d`` positions; destination element ``(j_0, ..., j_{dim-1})``
is at ``sum_d j_d * dstStride_d`` elements from ``dst``.  With ``k_d = j_d - lp_d``, it takes the
source element ``sum_d k_d * srcStride_d`` when every ``k_d`` lies in ``[0, size_d)``; otherwise it
is padding: the constant ``constantValue``, or in nearest-value mode the source element at the
``k_d`` clamped into ``[0, size_d)`` (the vendor sample data_copy_gm2ub_nddma, scenarios 1-5:
``np.pad`` with a constant, index clamping, transpose, broadcast, slice).  ``NdDmaConfig``'s
``loopLpSize`` / ``loopRpSize``, when not ``unsetPad``, replace every dimension's padding.

Rules (表3-表5, 约束说明): ``srcStride`` in ``[0, 2^40)``, ``dstStride`` and ``size`` in ``[0, 2^20)``,
paddings ``uint8_t``; config paddings ``unsetPad`` or ``[0, 255]``; ``ascOptimize`` is reserved
(not supported); for 64-bit types no nearest-value mode and a constant of 0.  With ascending
destination strides, the loops' address ranges may not interleave or overlap; npusim also rejects
any destination element written twice (non-ascending strides), where the result would depend on
the issue order.  Not given by the page, so rejected: a loop size of 0.

``NdDmaDci`` refreshes the NDDMA data cache so that other cores' GM writes are seen.  npusim has no
such cache (every NDDMA copy reads GM as it is, as if ``NdDmaDci`` had just run): the call checks
its product and changes nothing.  docs/semantics.md §5.12.

Every NDDMA copy first loads the NDDMA registers (dav_3510 ``DataCopyWithNDDMAImpl``: ``set_loop0_stride_nddma``
... ``set_loop4_stride_nddma``, ``set_pad_cnt_nddma``, ``set_pad_val_nddma``; the unused loops' strides and
counts 0), which the C API's ``asc_ndim_copy_gm2ub`` reads instead (docs/semantics.md §5.17): the plan
records the registers a copy leaves, :attr:`NdDmaPlan.registers_after`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.plan import SelfBinding
from ...engine.registry import Instruction, register
from ...engine.trace import ByteRange, ranges_of_addresses
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form
from ...sources import semantics
from ...validate import require_bool, require_int
from .. import pages
from ..chips import unsupported_on
from ..core import Core, NddmaRegisters
from ..runtime.gm import GlobalTensor
from ..tensor import LocalTensor
from ..types import NdDmaConfig, NdDmaLoopInfo, NdDmaParams
from .common import require_ub_tensor, scalar_bits

__all__ = ["NdDmaBinding", "NdDmaPlan", "nd_dma_dci", "nddma_plan"]

DOC, DCI_DOC = pages.DATA_COPY_NDDMA, pages.ND_DMA_DCI
RULES = semantics("5.12")
MAX_DIM = 5
LIMITS = {"loop_src_stride": 1 << 40, "loop_dst_stride": 1 << 20, "loop_size": 1 << 20, "loop_lp_size": 256,
          "loop_rp_size": 256}


def _loops(instruction: str, info) -> dict[str, tuple[int, ...]]:
    """The five per-dimension sequences, checked: equal lengths ``dim`` in [1, 5], each entry in range."""
    if not isinstance(info, NdDmaLoopInfo):
        raise TypeError(f"{instruction}: params.loop_info must be an asc.NdDmaLoopInfo, got {type(info).__name__}")
    loops = {name: info.astuple()[i] for i, name in enumerate(LIMITS)}
    dim = len(loops["loop_size"])
    require_int(instruction, "dim (len(params.loop_info.loop_size))", dim, 1, MAX_DIM, f"{DOC} 参数说明 (表1); {RULES}")
    for name, values in loops.items():
        if len(values) != dim:
            raise ParameterRangeError(instruction, f"len(params.loop_info.{name})", len(values), "every sequence of "
                                      "NdDmaLoopInfo has dim entries", f"{dim} (dim)", f"{DOC} 参数说明 (表5); {RULES}")
        for d, value in enumerate(values):
            require_int(instruction, f"params.loop_info.{name}[{d}]", value, 0, LIMITS[name] - 1,
                        f"{DOC} 参数说明 (表5); {RULES}")
    return loops


def _config(instruction: str, config, dtype: DType) -> tuple[bool, int | None, int | None]:
    if not isinstance(config, NdDmaConfig):
        raise TypeError(f"{instruction}: config must be an asc.NdDmaConfig, got {type(config).__name__}")
    nearest = require_bool(instruction, "config.is_nearest_value_mode", config.is_nearest_value_mode)
    pads = []
    for name in ("loop_lp_size", "loop_rp_size"):
        value = require_int(instruction, f"config.{name}", getattr(config, name), 0, NdDmaConfig.UNSET_PAD,
                            f"{DOC} 参数说明 (表3); {RULES}")
        if value != NdDmaConfig.UNSET_PAD and value > 255:
            raise ParameterRangeError(instruction, f"config.{name}", value, "a padding size for every dimension is "
                                      "unsetPad or at most 255", "0xFFFF or [0, 255]", f"{DOC} 参数说明 (表3); {RULES}")
        pads.append(None if value == NdDmaConfig.UNSET_PAD else value)
    if require_bool(instruction, "config.asc_optimize", config.asc_optimize):
        raise UnsupportedError(instruction, "config.asc_optimize", True, "a reserved parameter, not supported "
                               "(预留参数，暂不支持)", "False", f"{DOC} 参数说明 (表3); {RULES}")
    if nearest and dtype.itemsize == 8:
        raise UnsupportedError(instruction, "config.is_nearest_value_mode", True, "64-bit types pad with a "
                               "constant only", "False", f"{DOC} 参数说明 (表3); {RULES}")
    return nearest, pads[0], pads[1]


def _grid(sizes, lps, rps, src_strides, dst_strides, nearest: bool):
    """Per destination element (row-major over the loops, outermost first): its element offset, and its
    source element offset or -1 for a constant."""
    dst = np.zeros((), np.int64)
    src = np.zeros((), np.int64)
    pad = np.zeros((), bool)
    for d in reversed(range(len(sizes))):
        j = np.arange(lps[d] + sizes[d] + rps[d], dtype=np.int64)
        k = j - lps[d]
        outside = (k < 0) | (k >= sizes[d])
        dst = dst[..., None] + j * dst_strides[d]
        src = src[..., None] + np.clip(k, 0, sizes[d] - 1) * src_strides[d]
        pad = pad[..., None] | outside
    dst, src, pad = dst.reshape(-1), src.reshape(-1), pad.reshape(-1)
    if not nearest:
        src = np.where(pad, -1, src)
    return dst, src


def _written_once(instruction: str, dst: np.ndarray, dst_strides, extents) -> None:
    ascending = all(a <= b for a, b in zip(dst_strides, dst_strides[1:], strict=False))
    if ascending:  # 约束说明: the loops' ranges may not interleave
        span = 1
        for d, (stride, n) in enumerate(zip(dst_strides, extents, strict=True)):
            if d and n > 1 and stride < span:
                raise OverlapError(instruction, f"params.loop_info.loop_dst_stride[{d}]", stride, "with ascending "
                                   "destination strides the loops' address ranges may not interleave or overlap",
                                   f"at least {span} (the lower loops' extent)", f"{DOC} 约束说明; {RULES}")
            span = (n - 1) * stride + span
    if np.unique(dst).size != dst.size:
        raise OverlapError(instruction, "params.loop_info.loop_dst_stride", list(dst_strides), "two destination "
                           "elements at one address (the result would depend on the issue order)", "distinct "
                           "destination elements", f"{DOC} 约束说明; {RULES}")


def nddma_plan(instruction: str, core: Core, dst, src, params, config, loads_registers: bool = True,
               registers_read: tuple[str, ...] = ()) -> NdDmaPlan:
    """Every check of an NDDMA copy, in the page's order; its plan.  ``loads_registers``: the copy loads the
    NDDMA registers from its parameters (DataCopy); without it they are the parameters' source
    (``asc_ndim_copy_gm2ub``, which names them in ``registers_read``)."""
    source = f"{DOC} 产品支持情况; {RULES}"
    if not core.chip.loop_mode_api:
        raise unsupported_on(core.chip, instruction, "DataCopy with NdDmaParams (NDDMA)", lambda c: c.loop_mode_api,
                             source)
    if not (isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor)):
        raise TypeError(f"{instruction}: NDDMA copies GM -> UB (dst LocalTensor, src GlobalTensor)")
    if not isinstance(params, NdDmaParams):
        raise TypeError(f"{instruction}: params must be an asc.NdDmaParams, got {type(params).__name__}")
    dtype = dst.dtype
    loops = _loops(instruction, params.loop_info)
    nearest, lp_all, rp_all = _config(instruction, config, dtype)
    sizes = loops["loop_size"]
    lps = tuple(lp_all if lp_all is not None else v for v in loops["loop_lp_size"])
    rps = tuple(rp_all if rp_all is not None else v for v in loops["loop_rp_size"])
    if 0 in sizes:
        raise UnsupportedError(instruction, "params.loop_info.loop_size", list(sizes), "not modelled: a loop "
                               "size of 0 (in range, but the page does not say what the loop then writes)",
                               "sizes of at least 1", f"{DOC} 参数说明 (表5); {RULES}")
    constant = scalar_bits(instruction, "params.constant_value", params.constant_value, dtype).view(np.uint8)
    if dtype.itemsize == 8 and constant.any():
        raise ParameterRangeError(instruction, "params.constant_value", params.constant_value, "for 64-bit "
                                  "types the constant must be 0", "0", f"{DOC} 参数说明 (表4); {RULES}")
    dst_index, src_index = _grid(sizes, lps, rps, loops["loop_src_stride"], loops["loop_dst_stride"], nearest)
    _written_once(instruction, dst_index, loops["loop_dst_stride"],
                  [lp + n + rp for lp, n, rp in zip(lps, sizes, rps, strict=True)])
    after = _registers_after(loops, lps, rps, params.constant_value) if loads_registers else None
    return NdDmaPlan(dtype, dst_index, src_index, bytes(constant), registers_read=registers_read,
                     registers_written=("NDDMA",) if after else (), instruction=instruction, registers_after=after)


def _registers_after(loops: dict, lps: tuple[int, ...], rps: tuple[int, ...], constant) -> NddmaRegisters:
    """The NDDMA registers a DataCopy leaves: its loops' strides and loops 1-4's paddings, 0 past ``dim``."""
    dim = len(lps)
    strides = tuple((loops["loop_dst_stride"][d], loops["loop_src_stride"][d]) if d < dim else (0, 0)
                    for d in range(MAX_DIM))
    counts = tuple((lps[d], rps[d]) if d < dim else (0, 0) for d in range(1, MAX_DIM))
    return NddmaRegisters(strides, counts, constant)


@dataclass(eq=False)
class NdDmaPlan:
    """A checked NDDMA copy: per destination element its offset and its source offset (-1: the constant)."""

    dtype: DType
    dst_elems: np.ndarray
    src_elems: np.ndarray
    constant: bytes
    operands: tuple[str, ...] = ("dst", "src")
    registers_read: tuple[str, ...] = ()
    registers_written: tuple[str, ...] = ()
    instruction: str = "data_copy"  # the name errors give (asc_ndim_copy_gm2ub shares the plan)
    registers_after: NddmaRegisters | None = None  # the NDDMA registers the copy loads (None: it reads them)

    @cached_attribute
    def read_elems(self) -> np.ndarray:
        return self.src_elems[self.src_elems >= 0]

    @property
    def dst_extent(self) -> int:
        return (int(self.dst_elems.max()) + 1) * self.dtype.itemsize

    @property
    def src_extent(self) -> int:
        return (int(self.read_elems.max()) + 1) * self.dtype.itemsize if self.read_elems.size else 0

    def check(self, core: Core, operands) -> LocalTensor:
        instruction = self.instruction
        dst = require_ub_tensor(instruction, "dst", operands[0], core, self.dtype.itemsize,
                                f"{DOC} 参数说明; {RULES}")
        src = operands[1]
        _ = src.address  # raises RuntimeMisuseError if the tensor was never bound
        if src.dtype != self.dtype:
            raise UnsupportedError(instruction, "src dtype", src.dtype.name, "source and destination must have "
                                   "the same element type T", self.dtype.name, f"{DOC} 数据类型; {RULES}")
        src.check_bytes(instruction, "src", 0, self.src_extent)
        dst.check_span(instruction, "dst", dst.addr, dst.addr + self.dst_extent)
        return dst

    def bind(self, core: Core, operands) -> NdDmaBinding:
        dst = self.check(core, operands)
        return NdDmaBinding(self, dst.addr)


def _bytes_of(elems: np.ndarray, itemsize: int) -> np.ndarray:
    return (elems[:, None] * itemsize + np.arange(itemsize, dtype=np.int64)).reshape(-1)


class NdDmaBinding:
    """An :class:`NdDmaPlan` at one UB address; the GM offset is read on every call."""

    pipe = "MTE2"

    def __init__(self, plan: NdDmaPlan, dst_addr: int) -> None:
        self.plan, self.dst_addr = plan, dst_addr
        self.registers_read, self.registers_written = plan.registers_read, plan.registers_written
        size = plan.dtype.itemsize
        self.dst_bytes = _bytes_of(plan.dst_elems, size) + dst_addr
        self.src_bytes = _bytes_of(plan.read_elems, size)
        self.padded = plan.src_elems < 0
        self.gather = _bytes_of(np.where(self.padded, 0, plan.src_elems), size)  # padded: overwritten below

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        src = values[1]
        reads = ranges_of_addresses("GM", self.src_bytes + src.address.byte_offset, src.buffer.name)
        return tuple(reads), tuple(ranges_of_addresses("UB", self.dst_bytes))

    def run(self, core: Core, values: tuple) -> None:
        plan, size = self.plan, self.plan.dtype.itemsize
        buffer, start = values[1].locate(plan.instruction, "src", plan.src_extent)
        memory = buffer.memory
        out = np.empty((plan.dst_elems.size, size), np.uint8)
        if self.src_bytes.size:
            at = self.src_bytes + start
            memory.check_initialized(plan.instruction, "src", at, 1)
            buffer.sync_from_host(start, start + plan.src_extent)
            out[...] = memory.data[self.gather + start].reshape(-1, size)
        if self.padded.any():
            out[self.padded] = np.frombuffer(plan.constant, np.uint8)
        core.ub.scatter(self.dst_bytes, out.reshape(-1))
        if plan.registers_after is not None:
            core.nddma = plan.registers_after


# ------------------------------------------------------------------ NdDmaDci
@dataclass(eq=False)
class CacheRefresh(SelfBinding):
    """``nd_dma_dci``: nothing to refresh in npusim (no NDDMA cache is modelled)."""

    pipe: str = "MTE2"

    def run(self, core: Core, values: tuple) -> None:
        return None


def _compile_dci(core: Core, form: str, values: dict) -> CacheRefresh:
    if not core.chip.loop_mode_api:
        raise unsupported_on(core.chip, "nd_dma_dci", "NdDmaDci", lambda c: c.loop_mode_api,
                             f"{DCI_DOC} 产品支持情况; {RULES}")
    return CacheRefresh()


nd_dma_dci = register(Instruction(
    "nd_dma_dci", "ascend", "data_movement", "MTE2", (Form("", ()),), _compile_dci, f"{DCI_DOC} 功能说明; {RULES}",
    support=lambda chip: chip.loop_mode_api or None,
    summary="Refresh the NDDMA data cache before an NDDMA data_copy (NdDmaDci); npusim models no such cache, "
            "so it changes nothing",
    examples=("asc.nd_dma_dci()",), fast_context=lambda core: (),
    doc="``asc.nd_dma_dci()`` (950 only): the NDDMA cache refresh; npusim's NDDMA copies always read GM as it is.",
))
