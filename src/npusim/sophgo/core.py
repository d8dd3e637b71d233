"""An emulated TPU core: lane-major local memory, global memory, and the active-core context.

Local memory is one flat :class:`~npusim.memory.Memory` of ``NPU_NUM * LOCAL_MEM_SIZE``
bytes laid out lane-major, exactly as the vendor cmodel holds it, so a flat byte
index *is* a local address (``lane * LOCAL_MEM_SIZE + offset``; docs/semantics.md §7.2).

Global memory (DDR) is another flat :class:`~npusim.memory.Memory`; a global address is a
byte offset into it.  (The vendor cmodel maps its DDR at ``0x100000000``; kernels receive
global addresses from the host, so npusim starts them at 0.)  The host fills and reads it
with :meth:`Core.write_global` / :meth:`Core.read_global`, kernels with the GDMA copies.

Instructions act on the core of the innermost enclosing ``with Core(...)`` block::

    with tpu.Core("bm1684x") as core:
        core.write_local(0, x, tpu.DT_FP32)
        tpu.tpu_bdc_greater_select(...)

Outside any such block they raise :class:`~npusim.errors.NoActiveCoreError`.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..context import ActiveCores
from ..engine.dispatch import new_core_caches
from ..engine.trace import AccessRecord, core_trace
from ..errors import NoActiveCoreError, OutOfBoundsError, ParameterRangeError, UnsupportedError
from ..lazy import cached_attribute
from ..memory import Memory, UninitPolicy, core_uninit_policy
from ..sources import semantics
from ..validate import is_integer, require_bool, require_bytes, require_int, to_float_elements
from . import pages
from .chips import INT32_MAX, Chip, get_chip, get_default_chip
from .layout import LAYOUTS, Layout, local_stride, split_address
from .placement import check_element_count, check_stride, place_global, place_local, require_address
from .types import as_data_type, dim4, storage_dtype

__all__ = ["DEFAULT_GLOBAL_MEM_BYTES", "MAX_GLOBAL_MEM_BYTES", "Core", "current_core"]

HOST_SOURCE = semantics("9.3", "10.4")  # global memory lives in host memory
HOST_ACCESS_SOURCE = semantics("7.4")
LANE_SOURCE = semantics("7.2")
LAYOUT_SOURCE = semantics("7.3")

DEFAULT_GLOBAL_MEM_BYTES = 256 * 1024 * 1024  # 256 MiB, the size the vendor cmodel is usually given
# npusim holds global memory in two numpy arrays (the bytes and the written-shadow), 2 bytes per byte.
MAX_GLOBAL_MEM_BYTES = 1 << 32  # 4 GiB

_ACTIVE: ActiveCores[Core] = ActiveCores("npusim_sophgo_cores")


def current_core(instruction: str) -> Core:
    """The core of the innermost active ``with Core(...)`` block.

    Raises:
        NoActiveCoreError: no Sophgo core is active.
    """
    core = _ACTIVE.innermost()
    if core is None:
        raise NoActiveCoreError(
            instruction, "core", None, "no Sophgo core is active",
            'call it inside "with npusim.sophgo.Core(chip):"', semantics("10.1"),
        )
    return core


class Core:
    """One TPU core of ``chip`` with fresh (never-written) memories.

    Args:
        chip: chip name (``"bm1684x"``, ``"BM1688"``, aliases such as ``"bm1690"``) or a
            :class:`~npusim.sophgo.chips.Chip`; default: the default chip
            (:func:`~npusim.sophgo.chips.get_default_chip`, initially BM1684X).
        global_mem_bytes: size of global memory (allocated lazily, on first use of :attr:`gmem`).
            Default: 256 MiB; at most :data:`MAX_GLOBAL_MEM_BYTES` (4 GiB), a multiple of 8.
        uninit: what reading never-written memory does: ``"warn"`` (default), ``"raise"``
            or ``"ignore"``.
        trace: keep an access record of every instruction call in :attr:`trace`.

    Attributes:
        chip: the :class:`~npusim.sophgo.chips.Chip`.
        lmem: local memory, ``NPU_NUM * LOCAL_MEM_SIZE`` bytes, lane-major.
        initialized: ``tpu_initialize()`` ran on this core.
        polls: how many times ``tpu_poll()`` ran.
        trace: ``None``, or (``trace=True``) a list of one :class:`~npusim.engine.trace.AccessRecord` per
            instruction call: ``"LOCAL"`` ranges (offsets ``lane * LOCAL_MEM_SIZE + offset``) and ``"GLOBAL"`` ones.
        invocations, bindings: the engine's per-core caches (:mod:`npusim.engine.dispatch`).
    """

    def __init__(
        self,
        chip: str | Chip | None = None,
        *,
        global_mem_bytes: int = DEFAULT_GLOBAL_MEM_BYTES,
        strict: bool = False,
        uninit: UninitPolicy | None = None,
        trace: bool = False,
    ) -> None:
        self.chip = get_default_chip() if chip is None else get_chip(chip)
        self.uninit: UninitPolicy = core_uninit_policy("tpu.Core", strict, uninit)
        self.trace: list[AccessRecord] | None = core_trace(require_bool("tpu.Core", "trace", trace), "sophgo",
                                                           self.chip.name)
        self.global_mem_bytes = require_int(
            "tpu.Core", "global_mem_bytes", global_mem_bytes, 8, MAX_GLOBAL_MEM_BYTES, HOST_SOURCE,
            rule="out of range: npusim holds at most 4 GiB of global memory (twice that with its written-shadow)",
        )  # fmt: skip
        if self.global_mem_bytes % 8:
            raise ParameterRangeError("tpu.Core", "global_mem_bytes", global_mem_bytes, "is not a multiple of 8",
                                      "multiples of 8 bytes", HOST_SOURCE)
        self.lmem = Memory(self.chip.total_local_mem_bytes, "local memory", self.uninit)
        self.initialized = False
        self.polls = 0
        self.invocations, self.bindings = new_core_caches()

    @cached_attribute
    def gmem(self) -> Memory:
        """Global memory (DDR), created on first use.

        Raises:
            ParameterRangeError: the machine cannot allocate it (numpy's MemoryError).
        """
        try:
            return Memory(self.global_mem_bytes, "global memory", self.uninit)
        except MemoryError:
            raise ParameterRangeError(
                "tpu.Core", "global_mem_bytes", self.global_mem_bytes,
                f"{self.global_mem_bytes} bytes of global memory and as many for its written-shadow cannot be "
                "allocated on this machine", "a smaller global_mem_bytes (the default is 256 MiB)", HOST_SOURCE,
            ) from None

    # ------------------------------------------------------------------ context
    def __enter__(self) -> Core:
        _ACTIVE.enter(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Leave the core's innermost ``with``; cores left out of order leave the others active."""
        _ACTIVE.leave(self, "tpu.Core.__exit__")

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
        self, addr: int, array: Any, dtype: Any, layout: Layout | dim4 = "aligned"
    ) -> None:
        """Store an ``(N, C, H, W)`` array at local address ``addr`` in ``layout``.

        ``layout`` is a layout name (``"aligned"``, ``"compact"``, ``"line_aligned"``,
        ``"continuous"``) or an explicit :class:`dim4` element stride (free layout).
        Values are converted to ``dtype``'s storage type (integers must fit; floats round once,
        from the exact value, to nearest even: :mod:`npusim.rounding`).  To store raw bit
        patterns, pass an array already of that storage type, e.g. ``bits.view(np.float32)``.
        Only the elements are written; padding is untouched.
        """
        dt = as_data_type(dtype, "write_local", "dtype")
        storage = storage_dtype(dt, "write_local", "dtype")
        values = _to_storage(np.asarray(array), storage.np_dtype, "write_local")
        if values.ndim != 4:
            raise ParameterRangeError("write_local", "array shape", values.shape, "must be 4-D (N, C, H, W)",
                                      "4 dimensions", HOST_ACCESS_SOURCE)
        shape = dim4(*values.shape)
        elems = self._element_index("write_local", addr, shape, storage.itemsize, storage.bits, layout)
        self.lmem.scatter(elems, values.view(storage.raw))

    def read_local(self, addr: int, shape: Any, dtype: Any, layout: Layout | dim4 = "aligned") -> np.ndarray:
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
            raise OutOfBoundsError(who, "lane", lane, "no such NPU lane", f"[0, {self.chip.npu_num - 1}]",
                                   LANE_SOURCE)
        if offset < 0 or nbytes < 0 or offset + nbytes > self.chip.local_mem_bytes:
            raise OutOfBoundsError(
                who, "offset", offset, f"bytes [{offset:#x}, {offset + nbytes:#x}) leave the lane",
                f"[0x0, {self.chip.local_mem_bytes:#x}) per lane", LANE_SOURCE,
            )
        return lane * self.chip.local_mem_bytes + offset

    def _element_index(
        self, who: str, addr: int, shape: dim4, itemsize: int, bits: int, layout: Layout | dim4
    ) -> np.ndarray:
        """Flat element indices (local address / itemsize) of every element, after bounds checks."""
        addr = require_address(who, "addr", addr)
        if min(shape.as_tuple()) < 1:
            raise ParameterRangeError(who, "shape", shape.as_tuple(), "every dimension must be >= 1", ">= 1",
                                      HOST_ACCESS_SOURCE)
        if isinstance(layout, dim4):
            stride = _require_host_stride(who, layout)
        elif not isinstance(layout, str):
            raise TypeError(f"{who}: layout must be a layout name or a dim4 stride, got {type(layout).__name__}")
        elif layout in LAYOUTS:
            start_lane = split_address(addr, self.chip)[0] if 0 <= addr < self.chip.total_local_mem_bytes else 0
            stride = local_stride(layout, shape, start_lane, bits, self.chip)
        else:
            raise UnsupportedError(who, "layout", layout, "unknown layout", f"{', '.join(LAYOUTS)} or a dim4 stride",
                                   LAYOUT_SOURCE)
        placement = place_local(who, self.chip, "addr", addr, shape, stride, itemsize, itemsize,
                                f"is not {itemsize}-byte aligned (the element size)", HOST_ACCESS_SOURCE)
        check_element_count(who, shape, self.chip.total_local_mem_bytes, "local memory")
        return placement.element_index(self.chip)

    # ------------------------------------------------------------ global memory
    def write_global(self, addr: int, array: Any, dtype: Any = None, stride: dim4 | None = None) -> None:
        """Store ``array`` in global memory at byte address ``addr``.

        Without ``stride`` the elements are stored contiguously in C order (any shape); with a
        :class:`dim4` ``stride`` (elements) the array must be 4-D and element ``(n, c, h, w)``
        goes to ``addr + size * (n*ns + c*cs + h*hs + w*ws)``.  Without ``dtype`` the array's
        own elements are stored (its dtype must be one npusim knows; a big-endian array is
        stored little-endian, as global memory holds every element); with a ``data_type_t``
        the values are converted as in :meth:`write_local`.
        """
        values = self._global_values("write_global", array, dtype)
        shape, stride = _global_geometry("write_global", values.shape, stride)
        index = self._global_index("write_global", addr, shape, stride, values.itemsize)
        self.gmem.scatter(index, values.reshape(shape.as_tuple()).view(f"<u{values.itemsize}"))

    def read_global(self, addr: int, shape: Any, dtype: Any, stride: dim4 | None = None) -> np.ndarray:
        """The ``dtype`` elements at global byte address ``addr``, as a new array of ``shape``.

        ``shape`` is an int or a tuple (C order, contiguous); with a :class:`dim4` ``stride``
        it is 4-D and read through that stride.  Reading never-written bytes is reported.
        """
        dt = as_data_type(dtype, "read_global", "dtype")
        storage = storage_dtype(dt, "read_global", "dtype")
        dims = (shape,) if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool) else shape
        try:
            dims = tuple(dims)
            if any(isinstance(d, (bool, np.bool_)) for d in dims):  # numpy < 2 would index with np.bool_
                raise TypeError("a bool is not a dimension")
            dims = tuple(operator.index(d) for d in dims)
        except TypeError:
            raise TypeError(f"read_global: shape must be an int or a tuple of ints, got {shape!r}") from None
        if any(not 0 <= d <= INT32_MAX for d in dims):
            raise ParameterRangeError("read_global", "shape", dims, "dimensions must be C ints >= 0",
                                      f"[0, {INT32_MAX}] each", HOST_ACCESS_SOURCE)
        geometry, stride = _global_geometry("read_global", dims, stride)
        index = self._global_index("read_global", addr, geometry, stride, storage.itemsize)
        self.gmem.check_initialized("read_global", "tensor", index, storage.itemsize)
        return self.gmem.gather(index, storage.raw).view(storage.np_dtype).reshape(dims)

    def _global_values(self, who: str, array: Any, dtype: Any) -> np.ndarray:
        """``array`` as contiguous little-endian elements: its own type without ``dtype``, else converted."""
        if dtype is None:
            values = np.asarray(array)
            if _dtypes.from_numpy(values.dtype) is None:
                raise TypeError(f"{who}: without dtype, array must have a numeric dtype npusim knows, got "
                                f"{values.dtype}")
            return np.ascontiguousarray(_dtypes.as_little_endian(values))
        dt = as_data_type(dtype, who, "dtype")
        return np.ascontiguousarray(_to_storage(np.asarray(array), storage_dtype(dt, who, "dtype").np_dtype, who))

    def _global_index(self, who: str, addr: int, shape: dim4, stride: dim4, itemsize: int) -> np.ndarray:
        addr = require_address(who, "addr", addr)
        if shape.n * shape.c * shape.h * shape.w == 0:
            return np.zeros(shape.as_tuple(), dtype=np.int64)
        placement = place_global(who, self.global_mem_bytes, "addr", addr, shape, stride, itemsize,
                                 semantics("7.4", "9.3"))
        check_element_count(who, shape, self.global_mem_bytes, "global memory")
        return placement.element_index()


def _global_geometry(who: str, dims: tuple[int, ...], stride: dim4 | None) -> tuple[dim4, dim4]:
    """A 4-D view of ``dims`` and its element stride (continuous C order without ``stride``)."""
    if stride is None:
        count = math.prod(dims)
        return dim4(1, 1, 1, count), dim4(count, count, count, 1)
    if not isinstance(stride, dim4):
        raise TypeError(f"{who}: stride must be a dim4 or None, got {type(stride).__name__}")
    if len(dims) != 4:
        raise ParameterRangeError(who, "shape", dims, "a strided tensor is 4-D (N, C, H, W)", "4 dimensions",
                                  HOST_ACCESS_SOURCE)
    return dim4(*dims), _require_host_stride(who, stride)


def _require_host_stride(who: str, stride: dim4) -> dim4:
    """A host accessor's element stride: each component a non-negative C int, as dim4's fields.

    (A huge stride on an axis of size 1 moves nothing, yet is not a stride any C caller can pass.)
    """
    check_stride(who, "stride", stride, dim4(0, 0, 0, 0), dim4(*(INT32_MAX,) * 4),
                 f"{pages.TPU_DEFS_H} dim4; {semantics('6.3', '7.4')}")
    return stride


def _as_dim4(shape: Any, who: str) -> dim4:
    if not isinstance(shape, dim4):
        try:
            shape = dim4(*shape)
        except TypeError:
            raise TypeError(f"{who}: shape must be a dim4 or 4 integers, got {shape!r}") from None
    if min(shape.as_tuple()) < 1:
        raise ParameterRangeError(who, "shape", shape.as_tuple(), "every dimension of a tensor is at least 1",
                                  "N, C, H, W >= 1", HOST_ACCESS_SOURCE)
    return shape


def _to_storage(values: np.ndarray, storage: np.dtype, who: str) -> np.ndarray:
    """``values`` converted to ``storage``: same type passes through, integers must fit, floats round
    once from the exact value (:mod:`npusim.rounding`)."""
    if values.dtype == storage:
        return values
    if storage.kind in "iu":
        if values.dtype.kind not in "iub":
            raise TypeError(f"{who}: integer dtype needs integer values, got {values.dtype}")
        info = np.iinfo(storage)
        if values.size and (values.min() < info.min or values.max() > info.max):
            bad = (values.min() if values.min() < info.min else values.max()).item()
            raise ParameterRangeError(who, "values", bad, f"do not fit in {storage}", f"[{info.min}, {info.max}]",
                                      HOST_ACCESS_SOURCE)
        return values.astype(storage)
    return to_float_elements(who, "array", values, _dtypes.from_numpy(storage))  # rounds once, exactly
