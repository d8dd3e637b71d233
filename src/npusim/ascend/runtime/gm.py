"""Global Memory (GM): the caller's arrays, as the cores of a launch see them.

Three objects, each with one job:

* :class:`GmBuffer` — one allocation in GM.  A buffer made from a C-contiguous
  little-endian array *is* that array's bytes (no copy, :meth:`npusim.memory.Memory.over`),
  so what a kernel writes to GM lands in the array; every byte of it counts as written.
  Any other array (strided, Fortran-ordered, big-endian) is reached through a
  :class:`HostCopy` that reads the array before every GM access and writes it after every
  GM write, so it behaves the same: the kernel sees its values, and its writes land at
  once, in the array's own layout and byte order.  A buffer from :func:`gm_alloc` starts
  never-written, so reading it before writing is reported like an uninitialised UB read.
* :class:`GlobalAddress` — what a kernel parameter receives for an array: a typed pointer
  (buffer, element offset).  ``addr + n`` moves it ``n`` elements, as in pyasc.
* :func:`gm_codes` — GM of a type numpy has no type for (``hifloat8``) over a ``uint8`` array of its codes;
  :func:`gm_alloc` makes a fresh one.  Host reads give its values, host writes take only values it holds.
* :class:`GlobalTensor` — pyasc's ``GlobalTensor``: ``set_global_buffer(addr, size)``,
  ``g[offset:]``, ``get_value`` / ``set_value``.

GM has no alignment rule beyond the element size (docs/semantics.md §1.5).  Every access is checked
against the allocation and, when ``set_global_buffer`` was given a size, against that
size: an overrun is an :class:`~npusim.errors.OutOfBoundsError` naming the buffer.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Literal

import numpy as np

from ...dtypes import DTYPES, CodedDType, DType, from_numpy, is_little_endian, uint_of_bits
from ...engine.trace import ByteRange
from ...errors import GmPastEndWarning, OutOfBoundsError, RuntimeMisuseError, UnsupportedError
from ...memory import Memory, UninitPolicy, require_uninit_policy, user_stacklevel
from ...sources import semantics
from ...validate import require_int, to_elements
from .. import pages
from ..coded_values import coded_codes, coded_source
from ..core import active_core
from ..scalars import scalar_bits
from ..shape_info import ShapeInfo, require_shape_info
from ..types import CacheMode, CacheRwMode

__all__ = ["GlobalAddress", "GlobalTensor", "GmBuffer", "as_global_address", "device_allocation_bytes", "gm_alloc",
           "gm_codes", "is_array_like"]

GM_ALLOC_MAX_BYTES = 1 << 32
GM_SOURCE = f"{pages.SET_GLOBAL_BUFFER} 参数说明; {semantics('5.4')}"
HOST_SOURCE = semantics("10.4")
BINDING_SOURCE = semantics("10.2")
TOLERANCE_SOURCE = semantics("10.7")
DEVICE_SLACK_BYTES = 512  # the launch asks the device for nbytes + 512 and aligns the address to 512
HUGE_PAGE_BYTES = 2 << 20  # huge-page allocations (tensors over 2 KiB) come in whole 2 MiB
SMALL_PAGE_BYTES = 4 << 10  # assumed page of the default policy (documents give none), see §10.7
PastEndPolicy = Literal["strict", "hardware"]
CODED_GM_SOURCE = f"{pages.BUILTIN_TYPES} 浮点数; {semantics('5.32')}; {semantics('5.34')}"
GM_DTYPES = ("int8 ... uint64, float16, bfloat16 (ml_dtypes), float32, float64, float8_e4m3fn, float8_e5m2, "
             "complex64, complex32 (docs/semantics.md §5.29); hifloat8, fp8_e8m0_t: gm_codes over a uint8 array "
             "of codes (§5.32, §5.34)")


class GmBuffer:
    """One allocation in global memory.

    Attributes:
        name: how messages refer to it (``"GM arg 0 (x)"``).
        memory: its bytes, with the written-shadow of :class:`~npusim.memory.Memory`.
        dtype: element type of the array it came from.
        writable: False for a read-only array; writing to it is an error.
        host_copy: ``None`` when :attr:`memory` *is* the caller's array; else the
            :class:`HostCopy` that keeps the two in step (see :meth:`from_array`).
    """

    def __init__(self, name: str, memory: Memory, dtype: DType, writable: bool,
                 host_copy: HostCopy | None = None) -> None:
        self.name = name
        self.memory = memory
        self.dtype = dtype
        self.writable = writable
        self.host_copy = host_copy
        self.tensor_bytes: int | None = None  # set by device_copy: the host tensor's bytes, less than memory's
        self.past_end: PastEndPolicy = "strict"
        self._host: np.ndarray | None = None
        self._last_tolerated: tuple | None = None  # data_copy checks its GM range twice: warn once

    @classmethod
    def device_copy(cls, array: Any, name: str, past_end: PastEndPolicy = "strict",
                    uninit: UninitPolicy = "warn") -> GmBuffer:
        """A device allocation holding a copy of ``array``, as pyasc's launch makes one (docs/semantics.md §10.7).

        The allocation is :func:`device_allocation_bytes` long; bytes past the tensor start
        never-written.  An access past the tensor but inside the allocation raises under the
        ``"strict"`` policy and warns (:class:`~npusim.errors.GmPastEndWarning`) under
        ``"hardware"``.  :meth:`copy_back` stores the tensor's bytes in the array.
        """
        if past_end not in ("strict", "hardware"):
            raise ValueError(f"GmBuffer.device_copy: past_end must be 'strict' or 'hardware', got {past_end!r}")
        host, dtype = _host_array(array, name)
        nbytes = host.size * dtype.itemsize
        region = np.zeros(device_allocation_bytes(nbytes), dtype=np.uint8)
        region[:nbytes] = np.ascontiguousarray(host).reshape(-1).astype(dtype.np_dtype, copy=False).view(np.uint8)
        memory = Memory.over(region, name, uninit, written=False)
        memory.mark_written(0, nbytes)
        buffer = cls(name, memory, dtype, bool(host.flags.writeable))
        buffer.tensor_bytes, buffer.past_end, buffer._host = nbytes, past_end, host
        return buffer

    def copy_back(self) -> None:
        """After a launch: the tensor's bytes back into the array it was copied from (in its own layout)."""
        host = self._host
        if host is None or not self.writable:
            return
        values = self.memory.data[: self.tensor_bytes].view(self.dtype.np_dtype).reshape(host.shape)
        np.copyto(host, values, casting="unsafe")

    def past_tensor_end(self, instruction: str, operand: str, start: int, stop: int) -> None:
        """Bytes ``[start, stop)`` reach past the host tensor but stay in the allocation: warn or raise."""
        rule = (f"the access runs {stop - self.tensor_bytes} bytes past the {self.tensor_bytes}-byte host tensor, "
                f"into the {self.nbytes - self.tensor_bytes} bytes of slack of its device allocation")
        allowed = f"[0x0, {self.tensor_bytes:#x}) of {self.name}"
        if self.past_end == "strict":
            raise OutOfBoundsError(instruction, f"{operand} GM byte range", f"[{start:#x}, {stop:#x})",
                                   rule + " (policy 'strict'; the device tolerates it: policy 'hardware')",
                                   allowed, TOLERANCE_SOURCE)
        if self._last_tolerated == (instruction, operand, start, stop):
            return
        self._last_tolerated = (instruction, operand, start, stop)
        warnings.warn(GmPastEndWarning(f"{instruction}: {operand} GM byte range = [{start:#x}, {stop:#x}): {rule}; "
                                       f"the device reads what the slack holds and the copy-back drops writes "
                                       f"there; documented range: {allowed} [{TOLERANCE_SOURCE}]"),
                      stacklevel=user_stacklevel())

    @classmethod
    def from_array(cls, array: Any, name: str, uninit: UninitPolicy = "warn") -> GmBuffer:
        """A buffer over a numpy array (or a CPU torch tensor): kernel writes land in it.

        A C-contiguous little-endian array (the NPU's byte order) is used in place.  Any
        other array — a strided view, a Fortran-ordered or a big-endian array — is reached
        through a :class:`HostCopy`: every GM access reads the elements it touches from the
        array first, and every GM write stores them back at once, in the array's own layout
        and byte order.  So the kernel sees the array's values, its writes are in the array
        as soon as they happen (also when a later block fails), and arguments that share
        memory see each other's writes, exactly as with contiguous arrays.
        """
        host, dtype = _host_array(array, name)
        return cls._over(host, dtype, name, uninit)

    @classmethod
    def _over(cls, host: np.ndarray, dtype: DType, name: str, uninit: UninitPolicy) -> GmBuffer:
        """A buffer of ``dtype`` elements over the caller's array ``host`` (its elements of ``dtype``'s storage
        type), in place when it is C-contiguous little-endian, else through a :class:`HostCopy`."""
        writable = bool(host.flags.writeable)
        if host.flags.c_contiguous and is_little_endian(host.dtype):
            raw = host.reshape(-1).view(np.uint8)
            return cls(name, Memory.over(raw, name, uninit), dtype, writable)
        host_copy = HostCopy(host)
        return cls(name, Memory.over(host_copy.staged_bytes, name, uninit), dtype, writable, host_copy)

    @property
    def nbytes(self) -> int:
        return self.memory.size_bytes

    def sync_from_host(self, start: int, stop: int) -> None:
        """Before bytes ``[start, stop)`` are read or written: bring them up to date with the caller's array."""
        if self.host_copy is not None:
            self.host_copy.load(start, stop)

    def sync_to_host(self, start: int, stop: int) -> None:
        """After bytes ``[start, stop)`` were written: store them in the caller's array."""
        if self.host_copy is not None:
            self.host_copy.store(start, stop)

    def require_writable(self, instruction: str, operand: str) -> None:
        if not self.writable:
            raise RuntimeMisuseError(
                instruction, operand, self.name, "the GM buffer comes from a read-only array",
                "a writable array (arr.flags.writeable)", GM_SOURCE,
            )

    def __repr__(self) -> str:
        return f"GmBuffer({self.name!r}, {self.nbytes} bytes, {self.dtype})"


class HostCopy:
    """A caller's array that GM cannot use in place, and the contiguous little-endian bytes GM uses instead.

    Element ``i`` of GM is element ``i`` of the array in C order (``array.flat[i]``).  Elements
    move as raw bits (an unsigned integer of their width, in the array's byte order on one side
    and little-endian on the other), so NaN payloads survive.  :meth:`load` and :meth:`store`
    move the elements that bytes ``[start, stop)`` of GM touch.
    """

    __slots__ = ("host_bits", "staged_bits", "itemsize")

    def __init__(self, host: np.ndarray) -> None:
        self.itemsize = host.dtype.itemsize
        bits = uint_of_bits(8 * self.itemsize)
        self.host_bits = host.view(bits if is_little_endian(host.dtype) else bits.newbyteorder(">"))
        self.staged_bits = np.empty(host.size, dtype=bits)
        self.load(0, host.size * self.itemsize)

    @property
    def staged_bytes(self) -> np.ndarray:
        return self.staged_bits.view(np.uint8)

    def _elements(self, start: int, stop: int) -> slice:
        return slice(start // self.itemsize, -(-stop // self.itemsize))

    def load(self, start: int, stop: int) -> None:
        elements = self._elements(start, stop)
        self.staged_bits[elements] = self.host_bits.flat[elements]

    def store(self, start: int, stop: int) -> None:
        elements = self._elements(start, stop)
        self.host_bits.flat[elements] = self.staged_bits[elements]


def _host_array(array: Any, name: str) -> tuple[np.ndarray, DType]:
    """The caller's array as numpy (sharing memory) and its npusim element type."""
    host = _to_numpy(array, name)
    dtype = from_numpy(host.dtype)
    if dtype is None:
        raise UnsupportedError(
            "launch", f"{name} dtype", str(host.dtype), "GM arrays need an element type npusim knows",
            GM_DTYPES, HOST_SOURCE,
        )
    return host, dtype


def _to_numpy(array: Any, name: str) -> np.ndarray:
    """A numpy view sharing memory with ``array`` (numpy array or CPU torch tensor)."""
    if isinstance(array, np.ndarray):
        return array
    module = type(array).__module__
    if module == "torch" or module.startswith("torch."):
        return _torch_to_numpy(array, name)
    raise TypeError(f"{name}: expected a numpy array or a CPU torch tensor, got {type(array).__name__}")


def _torch_to_numpy(tensor: Any, name: str) -> np.ndarray:
    """The tensor's memory as a numpy array of its npusim type, viewed through an integer of its width.

    The integer view reaches every type npusim has (bfloat16 and float8 have no numpy type in
    torch); what npusim cannot hold as plain memory is an :class:`UnsupportedError`.
    """
    import torch  # optional dependency: only reached when the caller passed a torch tensor

    if tensor.device.type != "cpu":
        raise UnsupportedError("launch", f"{name} device", str(tensor.device),
                               "npusim emulates GM in host memory", "CPU tensors", HOST_SOURCE)
    dtype = DTYPES.get(str(tensor.dtype).removeprefix("torch."))
    if dtype is None:  # complex128, bool, quantized, other float8 formats
        raise UnsupportedError("launch", f"{name} dtype", str(tensor.dtype),
                               "GM arrays need an element type npusim knows", GM_DTYPES, HOST_SOURCE)
    if tensor.layout != torch.strided:
        raise UnsupportedError("launch", f"{name} layout", str(tensor.layout), "GM arrays are dense memory",
                               "torch.strided (call .to_dense())", HOST_SOURCE)
    if tensor.is_conj():
        raise UnsupportedError("launch", f"{name} conjugate bit", True, "the tensor is a lazily conjugated view: its "
                               "memory holds the unconjugated values", "a tensor without it (call .resolve_conj())",
                               HOST_SOURCE)
    if tensor.is_neg():
        raise UnsupportedError("launch", f"{name} negative bit", True, "the tensor is a lazily negated view: its "
                               "memory holds the negated values", "a tensor without it (call .resolve_neg())",
                               HOST_SOURCE)
    widths = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    return tensor.detach().view(widths[dtype.itemsize]).numpy().view(dtype.np_dtype)


def device_allocation_bytes(nbytes: int) -> int:
    """Bytes of the device allocation behind an ``nbytes`` tensor argument (docs/semantics.md §10.7).

    pyasc asks for ``nbytes + 512`` bytes and aligns the address up to 512; the allocation is
    then a whole number of pages: 2 MiB for huge pages (``nbytes > 2048``), else 4 KiB (assumed).
    """
    page = HUGE_PAGE_BYTES if nbytes > 2048 else SMALL_PAGE_BYTES
    return -(-(nbytes + DEVICE_SLACK_BYTES) // page) * page


def is_array_like(value: Any) -> bool:
    """A numpy array or a torch tensor (checked without importing torch)."""
    if isinstance(value, np.ndarray):
        return True
    module = type(value).__module__
    return (module == "torch" or module.startswith("torch.")) and hasattr(value, "numpy")


def gm_alloc(dtype: DType, count: int, name: str = "GM workspace", uninit: UninitPolicy = "warn") -> GlobalAddress:
    """A fresh GM allocation of ``count`` elements that no one has written yet.

    Reading it before writing is reported like an uninitialised UB read.  Useful for
    workspaces; :meth:`GlobalAddress.read` returns its contents on the host, :meth:`GlobalAddress.write`
    fills it.  A ``hifloat8`` allocation holds codes (docs/semantics.md §5.32).
    """
    if not isinstance(dtype, DType):
        raise TypeError(f"gm_alloc: dtype must be an npusim dtype such as asc.float32, got {dtype!r}")
    if dtype.bits < 8:
        raise UnsupportedError("gm_alloc", "dtype", dtype.name, "npusim's GM holds whole-byte elements",
                               "int8 ... float64 (a packed int4b_t's bytes as uint8)", semantics("5.23"))
    count = require_int("gm_alloc", "count", count, 0, GM_ALLOC_MAX_BYTES // dtype.itemsize, HOST_SOURCE,
                        rule="npusim holds GM in host memory, at most 4 GiB per allocation")
    uninit = require_uninit_policy("gm_alloc", uninit)
    memory = Memory.over(np.zeros(count * dtype.itemsize, dtype=np.uint8), name, uninit, written=False)
    return GlobalAddress(GmBuffer(name, memory, dtype, True), 0, dtype)


def gm_codes(codes: Any, dtype: DType, name: str = "GM codes", uninit: UninitPolicy = "warn") -> GlobalAddress:
    """GM memory of the coded type ``dtype`` (``asc.hifloat8``) over the caller's array of its codes.

    numpy and torch have no ``hifloat8_t``: its elements are held as their ``uint8`` codes (docs/semantics.md
    §5.32), so an array cannot say it holds them; this says it.  ``codes`` is a ``uint8`` numpy array or CPU torch
    tensor, used as :meth:`GmBuffer.from_array` uses an array (in place when C-contiguous): what a kernel writes
    to the returned address lands in it as codes.  :meth:`GlobalAddress.read` gives the values (float32, exact),
    :meth:`GlobalAddress.write` takes values the type holds exactly.  The element type an instruction accepts is
    its page's (on the 950 DataCopy's rows list hifloat8_t; other products reject it).
    """
    if not isinstance(dtype, DType):
        raise TypeError(f"gm_codes: dtype must be an npusim dtype such as asc.hifloat8, got {dtype!r}")
    if not isinstance(dtype, CodedDType):
        raise UnsupportedError("gm_codes", "dtype", dtype.name, "gm_codes is for a type numpy has no type for, held "
                               "as its codes; an array of this type is GM memory of it as it is",
                               "hifloat8, fp8_e8m0_t (for other types: set_global_buffer(array) or a kernel "
                               "argument)", CODED_GM_SOURCE)
    host = _to_numpy(codes, "gm_codes codes")
    if host.dtype != dtype.np_dtype:
        raise UnsupportedError("gm_codes", "codes dtype", str(host.dtype), f"{dtype} elements are held as their "
                               f"1-byte codes (values are written with GlobalAddress.write)", "uint8 (numpy or torch)",
                               coded_source(dtype))
    buffer = GmBuffer._over(host, dtype, name, require_uninit_policy("gm_codes", uninit))
    return GlobalAddress(buffer, 0, dtype)


class GlobalAddress:
    """A typed pointer into a GM buffer (pyasc ``GlobalAddress``).

    ``addr + n`` is the address ``n`` elements later; ``addr.dtype.sizeof()`` is the
    element size in bytes.
    """

    __slots__ = ("buffer", "offset", "dtype")

    def __init__(self, buffer: GmBuffer, offset: int, dtype: DType) -> None:
        self.buffer = buffer
        self.offset = offset
        self.dtype = dtype

    @property
    def byte_offset(self) -> int:
        """Byte offset from the start of the buffer."""
        return self.offset * self.dtype.itemsize

    def __add__(self, offset: int) -> GlobalAddress:
        if type(offset) is int:  # the common case, without the checks below
            return GlobalAddress(self.buffer, self.offset + offset, self.dtype)
        return GlobalAddress(self.buffer, self.offset + _element_offset("GlobalAddress +", offset), self.dtype)

    __radd__ = __add__

    def __sub__(self, offset: int) -> GlobalAddress:
        return GlobalAddress(self.buffer, self.offset - _element_offset("GlobalAddress -", offset), self.dtype)

    def read(self, count: int | None = None) -> np.ndarray:
        """Host read: a copy of ``count`` elements from here (default: to the end of the buffer)."""
        available = (self.buffer.nbytes - self.byte_offset) // self.dtype.itemsize
        count = available if count is None else require_int("GlobalAddress.read", "count", count, 0, available,
                                                            GM_SOURCE)
        start = self.byte_offset
        if start < 0:
            raise OutOfBoundsError("GlobalAddress.read", "address", start, f"lies before {self.buffer.name}",
                                   f"[0x0, {self.buffer.nbytes:#x})", GM_SOURCE)
        stop = start + count * self.dtype.itemsize
        self.buffer.sync_from_host(start, stop)
        raw = self.buffer.memory.data[start:stop]
        if isinstance(self.dtype, CodedDType):  # the codes' values, all exact in float32 (§5.32)
            return self.dtype.decode(raw)
        return raw.view(self.dtype.np_dtype).copy()

    def write(self, values) -> None:
        """Host write: ``values`` (converted to the element type) into the elements from here on, marked written.

        A float type gets each value rounded once to nearest even, an integer type integers in its range (as
        ``LocalTensor.write``); a coded type (``hifloat8``) only values it holds exactly, NaN and ±infinity
        included, stored as their codes (§5.32: rounding to it is ``cast``'s, with a RoundMode).  Nothing is
        written when a value is rejected.
        """
        dtype = self.dtype
        if isinstance(dtype, CodedDType):
            array = _coded_elements("GlobalAddress.write", values, dtype)
        else:
            array = np.ascontiguousarray(to_elements("GlobalAddress.write", "values", values, dtype.np_dtype,
                                                     GM_SOURCE))
        start = self.byte_offset
        stop = start + array.size * dtype.itemsize
        if start < 0 or stop > self.buffer.nbytes:
            raise OutOfBoundsError("GlobalAddress.write", "GM byte range", f"[{start:#x}, {stop:#x})",
                                   f"the values do not fit {self.buffer.name}", f"[0x0, {self.buffer.nbytes:#x})",
                                   GM_SOURCE)
        self.buffer.require_writable("GlobalAddress.write", "address")
        self.buffer.memory.write_bytes(start, array.view(np.uint8), who="GlobalAddress.write")
        self.buffer.sync_to_host(start, stop)

    def __repr__(self) -> str:
        return f"GlobalAddress({self.buffer.name}, offset={self.offset}, dtype={self.dtype})"


def _coded_elements(instruction: str, values, dtype: CodedDType) -> np.ndarray:
    """The codes of ``values``, each a value the coded type holds exactly (as ``LocalTensor.write``)."""
    return coded_codes(instruction, values, dtype)


def _element_offset(instruction: str, offset) -> int:
    """An address moves by a whole number of elements; anything else is a TypeError naming the offset."""
    if isinstance(offset, (bool, np.bool_)) or not isinstance(offset, (numbers.Integral, np.integer)):
        raise TypeError(f"{instruction}: offset must be an integer number of elements, got {type(offset).__name__}")
    return int(offset)


def as_global_address(value: Any, name: str) -> GlobalAddress:
    """``value`` as a GlobalAddress: an address as is, an array wrapped into its own GM buffer."""
    if isinstance(value, GlobalAddress):
        return value
    if is_array_like(value):
        buffer = GmBuffer.from_array(value, name)
        return GlobalAddress(buffer, 0, buffer.dtype)
    raise TypeError(f"{name}: expected an asc.GlobalAddress or an array, got {type(value).__name__}")


class GlobalTensor:
    """pyasc ``GlobalTensor``: a typed window onto GM.

    Create it empty, then bind it with :meth:`set_global_buffer`::

        x_gm = asc.GlobalTensor()
        x_gm.set_global_buffer(x + offset, block_length)   # x: a kernel's GlobalAddress

    ``x_gm[i:]`` (or ``x_gm[i]``) is the tensor ``i`` elements later.

    ``geometry_key`` (its element type's name) and ``bound_buffer`` are what an instruction's
    plan and binding know of it (``npusim.ascend.vendor``); both ``None`` while unbound.
    """

    __slots__ = ("_address", "_size", "geometry_key", "bound_buffer", "l2_cache_hint", "shape_info")

    def __init__(self) -> None:
        self._address: GlobalAddress | None = None
        self._size: int | None = None
        self.geometry_key: str | None = None
        self.bound_buffer: GmBuffer | None = None
        self.l2_cache_hint: tuple[CacheMode, CacheRwMode] = (CacheMode.CACHE_MODE_NORMAL, CacheRwMode.RW)
        self.shape_info: ShapeInfo = ShapeInfo()

    # ------------------------------------------------- hints and shape
    def set_l2_cache_hint(self, mode: CacheMode = CacheMode.CACHE_MODE_NORMAL,
                          rw_mode: CacheRwMode = CacheRwMode.RW) -> None:
        """Record an L2 cache policy (pyasc ``set_l2_cache_hint``).

        npusim models no cache: the hint is kept in ``l2_cache_hint`` and changes no result.
        """
        if not isinstance(mode, CacheMode):
            raise TypeError(f"set_l2_cache_hint: mode must be an asc.CacheMode, got {mode!r}")
        if not isinstance(rw_mode, CacheRwMode):
            raise TypeError(f"set_l2_cache_hint: rw_mode must be an asc.CacheRwMode, got {rw_mode!r}")
        self.l2_cache_hint = (mode, rw_mode)

    def set_shape_info(self, shape_info: ShapeInfo) -> None:
        """Attach a logical shape (pyasc ``set_shape_info``); npusim's instructions do not read it."""
        self.shape_info = require_shape_info("set_shape_info", shape_info)

    def get_shape_info(self) -> ShapeInfo:
        return self.shape_info

    def _bind(self, address: GlobalAddress, size: int | None) -> None:
        self._address, self._size = address, size
        self.geometry_key, self.bound_buffer = address.dtype.name, address.buffer

    # ------------------------------------------------------------ binding
    def set_global_buffer(self, buffer: Any = None, buffer_size: int | None = None) -> None:
        """Bind to ``buffer`` (a GlobalAddress, or an array for host-side use) of ``buffer_size`` elements.

        Without a size the tensor reaches to the end of the underlying allocation.

        Raises:
            OutOfBoundsError: the declared range does not lie inside the allocation.
        """
        if buffer is None:
            raise TypeError("set_global_buffer: buffer must be an asc.GlobalAddress (a kernel argument) or an array")
        address = as_global_address(buffer, "set_global_buffer buffer")
        size = None
        if buffer_size is not None:
            size = require_int("set_global_buffer", "buffer_size", buffer_size, 0, 1 << 48, GM_SOURCE)
        _check_extent("set_global_buffer", "buffer", address, 0, (size or 0) * address.dtype.itemsize)
        self._bind(address, size)

    # ---------------------------------------------------------- identity
    @property
    def address(self) -> GlobalAddress:
        """The element-0 address; raises if the tensor was never bound."""
        if self._address is None:
            raise RuntimeMisuseError(
                "GlobalTensor", "tensor", "unbound", "the GlobalTensor was used before set_global_buffer",
                "call set_global_buffer(addr[, size]) first", BINDING_SOURCE,
            )
        return self._address

    @property
    def dtype(self) -> DType:
        return self.address.dtype

    @property
    def buffer(self) -> GmBuffer:
        return self.address.buffer

    def get_size(self) -> int:
        """Elements reachable: the declared size, or up to the end of the allocation."""
        if self._size is not None:
            return self._size
        address = self.address
        return max(0, (address.buffer.nbytes - address.byte_offset) // address.dtype.itemsize)

    def get_phy_addr(self, offset: int = 0) -> GlobalAddress:
        return self.address + require_int("get_phy_addr", "offset", offset, -(1 << 48), 1 << 48, GM_SOURCE)

    def __repr__(self) -> str:
        if self._address is None:
            return "GlobalTensor(unbound)"
        return f"GlobalTensor({self._address.buffer.name}, offset={self._address.offset}, {self.dtype})"

    # -------------------------------------------------------------- views
    def __getitem__(self, index) -> GlobalTensor:
        """``g[offset:]`` or ``g[offset]``: the tensor ``offset`` elements later (pyasc semantics)."""
        if isinstance(index, slice):
            if index.stop is not None or index.step is not None:
                raise TypeError("GlobalTensor slicing supports only g[offset:] (as pyasc)")
            index = 0 if index.start is None else index.start
        if type(index) is int and -(1 << 48) <= index <= 1 << 48:
            offset = index
        else:
            offset = require_int("GlobalTensor[]", "offset", index, -(1 << 48), 1 << 48, GM_SOURCE)
        address = self._address
        if address is None:
            address = self.address  # raises: the tensor was never bound
        view = GlobalTensor.__new__(GlobalTensor)  # a kernel makes one per tile: the fields set directly
        view._address = GlobalAddress(address.buffer, address.offset + offset, address.dtype)
        view._size = None if self._size is None else max(0, self._size - offset)
        view.geometry_key, view.bound_buffer = self.geometry_key, self.bound_buffer
        view.l2_cache_hint, view.shape_info = self.l2_cache_hint, self.shape_info
        return view

    __call__ = __getitem__

    # ------------------------------------------------------ scalar access
    def get_value(self, offset: int):
        """Element ``offset`` as a numpy scalar (a scalar GM read)."""
        _no_coded_scalar("GlobalTensor.get_value", self.dtype)
        offset = require_int("GlobalTensor.get_value", "offset", offset, 0, 1 << 48, GM_SOURCE)
        start = self.check_span("GlobalTensor.get_value", "offset", offset, 1)
        stop = start + self.dtype.itemsize
        buffer = self.buffer
        _scalar_access("GlobalTensor.get_value", buffer, start, stop, False)
        buffer.memory.check_initialized_span("GlobalTensor.get_value", "tensor", start, stop)
        buffer.sync_from_host(start, stop)
        return buffer.memory.data[start:stop].view(self.dtype.np_dtype)[0]

    def set_value(self, offset: int, value) -> None:
        """Write element ``offset`` (converted to the tensor's dtype, floats rounding to nearest even)."""
        _no_coded_scalar("GlobalTensor.set_value", self.dtype)
        offset = require_int("GlobalTensor.set_value", "offset", offset, 0, 1 << 48, GM_SOURCE)
        start = self.check_span("GlobalTensor.set_value", "offset", offset, 1)
        self.buffer.require_writable("GlobalTensor.set_value", "tensor")
        bits = scalar_bits("GlobalTensor.set_value", "value", value, self.dtype)
        _scalar_access("GlobalTensor.set_value", self.buffer, start, start + self.dtype.itemsize, True)
        self.buffer.memory.write_bytes(start, bits.view(np.uint8), who="GlobalTensor.set_value")
        self.buffer.sync_to_host(start, start + self.dtype.itemsize)

    # ------------------------------------------------------------ checks
    def check_span(self, instruction: str, operand: str, first_elem: int, count: int) -> int:
        """Check elements ``[first_elem, first_elem + count)``; return the first one's buffer byte offset."""
        itemsize = self.dtype.itemsize
        return self.check_bytes(instruction, operand, first_elem * itemsize, (first_elem + count) * itemsize)

    def locate(self, instruction: str, operand: str, nbytes: int) -> tuple[GmBuffer, int]:
        """Check bytes ``[0, nbytes)`` from element 0 (:meth:`check_bytes`); return the buffer and
        their start in it."""
        return self.bound_buffer or self.buffer, self.check_bytes(instruction, operand, 0, nbytes)

    def check_bytes(self, instruction: str, operand: str, start: int, stop: int) -> int:
        """Check bytes ``[start, stop)`` relative to element 0; return ``start`` relative to the buffer."""
        address = self._address
        if address is None:
            address = self.address  # raises: the tensor was never bound
        base = address.offset * address.dtype.itemsize
        if stop > start:
            nbytes = address.buffer.memory.size_bytes
            if base + start < 0 or base + stop > nbytes:
                _check_extent(instruction, operand, address, start, stop)  # raises, naming the allocation
            limit = nbytes if self._size is None else min(nbytes, base + self._size * address.dtype.itemsize)
            if base + stop > limit:
                raise OutOfBoundsError(
                    instruction, f"{operand} GM byte range", f"[{base + start:#x}, {base + stop:#x})",
                    f"the access runs past the {self._size} elements given to set_global_buffer",
                    f"[{base:#x}, {limit:#x}) of {address.buffer.name}", GM_SOURCE,
                )
            tensor_bytes = address.buffer.tensor_bytes
            if tensor_bytes is not None and base + stop > tensor_bytes:
                address.buffer.past_tensor_end(instruction, operand, base + start, base + stop)
        return base + start


def _check_extent(instruction: str, operand: str, address: GlobalAddress, start: int, stop: int) -> None:
    """Raise unless bytes ``[start, stop)`` after ``address`` lie inside its allocation."""
    base = address.byte_offset
    buffer = address.buffer
    if base + start < 0 or base + stop > buffer.nbytes:
        raise OutOfBoundsError(
            instruction, f"{operand} GM byte range", f"[{base + start:#x}, {base + stop:#x})",
            f"the access lies outside {buffer.name}", f"[0x0, {buffer.nbytes:#x})", GM_SOURCE,
        )


def _no_coded_scalar(instruction: str, dtype: DType) -> None:
    """A scalar access of a coded element (``hifloat8_t``, ``fp8_e8m0_t``) is not modelled, in GM as in UB."""
    if isinstance(dtype, CodedDType):
        raise UnsupportedError(instruction, "tensor dtype", dtype.name, f"a scalar access of a {dtype} element is "
                               "not modelled (numpy has no scalar type for it)", "GlobalAddress.read / write, or a "
                               "DataCopy to UB", coded_source(dtype))


def _scalar_access(instruction: str, buffer: GmBuffer, start: int, stop: int, write: bool) -> None:
    """Tell the running core's sync checker (if any) of a scalar access of GM bytes ``[start, stop)``
    of ``buffer`` (the S pipe: GetValue.md / SetValue.md ``__inout_pipe__(S)``)."""
    core = active_core()
    observer = getattr(core, "observer", None)
    if observer is not None:
        where = (ByteRange("GM", start, stop, buffer.name),)
        observer.scalar(instruction, () if write else where, where if write else (), core.block_idx)
