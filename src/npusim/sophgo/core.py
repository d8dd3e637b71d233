"""An emulated TPU core: lane-major local memory, global memory, and the active-core context.

Local memory is one flat :class:`~npusim.memory.Memory` of ``NPU_NUM * LOCAL_MEM_SIZE``
bytes laid out lane-major, exactly as the vendor cmodel holds it, so a flat byte
index *is* a local address (``lane * LOCAL_MEM_SIZE + offset``; sophgo-semantics §3.2).

Instructions act on the core of the innermost enclosing ``with Core(...)`` block::

    with tpu.Core("bm1684x") as core:
        core.write_local(0, x, tpu.DT_FP32)
        tpu.tpu_bdc_greater_select(...)

Outside any such block they raise :class:`~npusim.errors.NoActiveCoreError`.
"""

from __future__ import annotations

import contextvars
from functools import cached_property
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import AlignmentError, NoActiveCoreError, OutOfBoundsError, ParameterRangeError
from ..memory import Memory, UninitPolicy
from ..validate import is_integer, require_bytes
from .chips import Chip, get_chip
from .layout import Layout, element_lane_offset, lane_span_bytes, local_stride, split_address
from .types import as_data_type, dim4, round_to_bf16_bits, storage_dtype

__all__ = ["DEFAULT_GLOBAL_MEM_BYTES", "Core", "current_core"]

DEFAULT_GLOBAL_MEM_BYTES = 256 * 1024 * 1024  # 256 MiB, the size the vendor cmodel is usually given

_ACTIVE: contextvars.ContextVar[Core | None] = contextvars.ContextVar("npusim_sophgo_core", default=None)


def current_core(instruction: str) -> Core:
    """The core of the innermost active ``with Core(...)`` block.

    Raises:
        NoActiveCoreError: no Sophgo core is active.
    """
    core = _ACTIVE.get()
    if core is None:
        raise NoActiveCoreError(
            instruction, "core", None, "no Sophgo core is active",
            'call it inside "with npusim.sophgo.Core(chip):"',
        )
    return core


class Core:
    """One TPU core of ``chip`` with fresh (never-written) memories.

    Args:
        chip: chip name (``"bm1684x"``, ``"BM1688"``, aliases such as ``"bm1690"``) or a
            :class:`~npusim.sophgo.chips.Chip`.
        global_mem_bytes: size of global memory (allocated lazily, on first use of :attr:`gmem`).
            Default: 256 MiB.
        uninit: what reading never-written memory does: ``"warn"`` (default), ``"raise"``
            or ``"ignore"``.

    Attributes:
        chip: the :class:`~npusim.sophgo.chips.Chip`.
        lmem: local memory, ``NPU_NUM * LOCAL_MEM_SIZE`` bytes, lane-major.
    """

    def __init__(
        self,
        chip: str | Chip = "BM1684X",
        *,
        global_mem_bytes: int = DEFAULT_GLOBAL_MEM_BYTES,
        uninit: UninitPolicy = "warn",
    ) -> None:
        self.chip = get_chip(chip)
        self.uninit: UninitPolicy = uninit
        self.global_mem_bytes = global_mem_bytes
        self.lmem = Memory(self.chip.total_local_mem_bytes, "local memory", uninit)
        self._tokens: list[contextvars.Token] = []

    @cached_property
    def gmem(self) -> Memory:
        """Global memory (DDR), created on first use."""
        return Memory(self.global_mem_bytes, "global memory", self.uninit)

    # ------------------------------------------------------------------ context
    def __enter__(self) -> Core:
        self._tokens.append(_ACTIVE.set(self))
        return self

    def __exit__(self, *exc_info: object) -> None:
        _ACTIVE.reset(self._tokens.pop())

    def __repr__(self) -> str:
        return f"Core({self.chip.name!r})"

    # ------------------------------------------------------- chip constants
    @property
    def npu_num(self) -> int:
        return self.chip.npu_num

    @property
    def local_mem_bytes(self) -> int:
        return self.chip.local_mem_bytes

    # ------------------------------------------------------------ host access
    def write_local(
        self, addr: int, array: Any, dtype: Any, layout: Layout = "aligned"
    ) -> None:
        """Store an ``(N, C, H, W)`` array at local address ``addr`` in ``layout``.

        Values are converted to ``dtype``'s storage type (integers must fit; floats round to
        nearest).  To store raw bit patterns, pass an array already of that storage type,
        e.g. ``bits.view(np.float32)``.  Only the elements are written; padding is untouched.
        """
        dt = as_data_type(dtype, "write_local", "dtype")
        storage = storage_dtype(dt, "write_local", "dtype")
        values = _to_storage(np.asarray(array), storage.np_dtype, "write_local")
        if values.ndim != 4 or 0 in values.shape:
            raise ParameterRangeError("write_local", "array shape", values.shape, "a tensor is 4-D (N, C, H, W)",
                                      "4 dimensions, each at least 1")
        shape = dim4(*values.shape)
        elems = self._element_index("write_local", addr, shape, storage.itemsize, storage.bits, layout)
        self.lmem.scatter(elems, values.view(storage.raw))

    def read_local(self, addr: int, shape: Any, dtype: Any, layout: Layout = "aligned") -> np.ndarray:
        """The ``(N, C, H, W)`` tensor at local address ``addr`` in ``layout``, as a new array.

        Reading never-written bytes warns (or raises in strict mode), naming the first address.
        """
        dt = as_data_type(dtype, "read_local", "dtype")
        storage = storage_dtype(dt, "read_local", "dtype")
        shape = _as_dim4(shape, "read_local")
        elems = self._element_index("read_local", addr, shape, storage.itemsize, storage.bits, layout)
        self.lmem.check_initialized("read_local", "tensor", elems, storage.itemsize)
        return self.lmem.gather(elems, storage.raw).view(storage.np_dtype)

    def local_bytes(self, lane: int, offset: int, nbytes: int) -> bytes:
        """Raw bytes ``[offset, offset + nbytes)`` of one lane (no uninitialised-read report)."""
        start = self._check_lane_span("local_bytes", lane, offset, nbytes)
        return self.lmem.read_bytes(start, int(nbytes))

    def write_local_bytes(self, lane: int, offset: int, payload: bytes | bytearray | np.ndarray) -> None:
        """Store raw bytes at ``offset`` of one lane."""
        data = require_bytes("write_local_bytes", "payload", payload)
        start = self._check_lane_span("write_local_bytes", lane, offset, len(data))
        self.lmem.write_bytes(start, data)

    # ---------------------------------------------------------------- helpers
    def _check_lane_span(self, who: str, lane: int, offset: int, nbytes: int) -> int:
        """Check bytes ``[offset, offset + nbytes)`` of one lane; return the local address of the first."""
        for name, value in (("lane", lane), ("offset", offset), ("nbytes", nbytes)):
            if not is_integer(value):
                raise TypeError(f"{who}: {name} must be an integer, got {type(value).__name__}")
        lane, offset, nbytes = int(lane), int(offset), int(nbytes)
        if not 0 <= lane < self.chip.npu_num:
            raise OutOfBoundsError(who, "lane", lane, "no such NPU lane", f"[0, {self.chip.npu_num - 1}]")
        if offset < 0 or nbytes < 0 or offset + nbytes > self.chip.local_mem_bytes:
            raise OutOfBoundsError(
                who, "offset", offset, f"bytes [{offset:#x}, {offset + nbytes:#x}) leave the lane",
                f"[0x0, {self.chip.local_mem_bytes:#x}) per lane",
            )
        return lane * self.chip.local_mem_bytes + offset

    def _element_index(
        self, who: str, addr: int, shape: dim4, itemsize: int, bits: int, layout: Layout
    ) -> np.ndarray:
        """Flat element indices (local address / itemsize) of every element, after bounds checks."""
        if isinstance(addr, bool) or not isinstance(addr, (int, np.integer)):
            raise TypeError(f"{who}: addr must be an int local address, got {type(addr).__name__}")
        addr = int(addr)
        chip = self.chip
        if not 0 <= addr < chip.total_local_mem_bytes:
            raise OutOfBoundsError(
                who, "addr", addr, "is not a local address", f"[0x0, {chip.total_local_mem_bytes:#x})"
            )
        if addr % itemsize:
            raise AlignmentError(
                who, "addr", addr, f"is not {itemsize}-byte aligned", "multiples of the element size"
            )
        if min(shape.as_tuple()) < 1:
            raise ValueError(f"{who}: every dimension of shape must be >= 1, got {shape.as_tuple()}")
        start_lane, offset = split_address(addr, chip)
        stride = local_stride(layout, shape, start_lane, bits, chip)
        end = offset + lane_span_bytes(shape, stride, start_lane, itemsize, chip)
        if end > chip.local_mem_bytes:
            raise OutOfBoundsError(
                who, "tensor end offset", end, "runs past the end of the lane's local memory",
                f"<= {chip.local_mem_bytes:#x}",
            )
        lane, byte_offset = element_lane_offset(addr, shape, stride, itemsize, chip)
        return (lane * chip.local_mem_bytes + byte_offset) // itemsize


def _as_dim4(shape: Any, who: str) -> dim4:
    if not isinstance(shape, dim4):
        try:
            shape = dim4(*shape)
        except TypeError:
            raise TypeError(f"{who}: shape must be a dim4 or 4 integers, got {shape!r}") from None
    if min(shape.as_tuple()) < 1:
        raise ParameterRangeError(who, "shape", shape.as_tuple(), "every dimension of a tensor is at least 1",
                                  "N, C, H, W >= 1")
    return shape


def _to_storage(values: np.ndarray, storage: np.dtype, who: str) -> np.ndarray:
    """``values`` converted to ``storage``: same type passes through, integers must fit, floats round."""
    if values.dtype == storage:
        return values
    if storage.kind in "iu":
        if values.dtype.kind not in "iub":
            raise TypeError(f"{who}: integer dtype needs integer values, got {values.dtype}")
        info = np.iinfo(storage)
        if values.size and (values.min() < info.min or values.max() > info.max):
            raise ParameterRangeError(who, "array values", f"[{values.min()}, {values.max()}]",
                                      f"do not fit in {storage}", f"[{info.min}, {info.max}]")
        return values.astype(storage)
    source = _dtypes.from_numpy(values.dtype)
    if values.dtype.kind not in "iub" and not (source is not None and source.is_float):
        raise TypeError(f"{who}: float dtype needs real values, got {values.dtype}")
    exact_in_float32 = values.dtype.kind == "f" and values.dtype.itemsize <= 4
    if storage.name == "bfloat16" and not exact_in_float32:  # ml_dtypes would round twice, via float32
        return round_to_bf16_bits(values.astype(np.float64)).view(storage)
    with np.errstate(over="ignore"):
        return values.astype(storage)
