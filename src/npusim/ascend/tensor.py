"""``LocalTensor``: a typed window onto the Unified Buffer of one core.

A LocalTensor is (core, dtype, position, byte address, length in elements).
It holds no data of its own: reads and writes go to ``core.ub``.  Like pyasc's
``LocalTensor(dtype, pos, addr, tile_size)``, ``t[offset:]`` (or ``t[offset]``)
is the tensor ``offset`` elements later, sharing the same memory.

A tensor handed out by a queue or buffer (see ``npusim.ascend.runtime``) carries
a *lease*; once the buffer is freed the lease is revoked and any use of the
tensor is a :class:`~npusim.errors.RuntimeMisuseError`.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import CodedDType, DType, PackedDType, PackedFloatDType
from ..engine.trace import ByteRange
from ..errors import (
    OutOfBoundsError,
    ParameterRangeError,
    RuntimeMisuseError,
    UbPastTensorEndWarning,
    UnsupportedError,
    WrongCoreError,
)
from ..sources import semantics
from ..validate import require_int, to_elements
from .coded_values import coded_codes, coded_source, exact_doubles
from .core import Core, current_core
from .shape_info import ShapeInfo, require_shape_info
from .tolerance import tolerate
from .types import TPosition

TENSOR_SOURCE = semantics("10.2")
EXTENT_SOURCE = semantics("1.7")
PACKED_SOURCE = semantics("5.23")

__all__ = ["Lease", "LocalTensor", "PhyAddress", "element_text"]


def element_text(values: np.ndarray) -> str:
    """Elements as printed by ``print`` / ``dump_tensor``: ``[0, 1.5, -2]``."""
    return "[" + ", ".join(str(value) for value in values.tolist()) + "]"


class Lease:
    """Validity token of a runtime-allocated buffer; ``revoke()`` on free."""

    __slots__ = ("alive", "owner")

    def __init__(self, owner: str) -> None:
        self.alive = True
        self.owner = owner

    def revoke(self) -> None:
        self.alive = False


class PhyAddress(int):
    """A UB byte address from :meth:`LocalTensor.get_phy_addr`, remembering the element type of its tensor.

    pyasc infers TransDataTo5HD's element type from addresses that come straight from
    ``get_phy_addr``; arithmetic on one gives a plain ``int`` (no longer straight from it).
    """

    def __new__(cls, value: int, dtype: DType) -> PhyAddress:
        address = super().__new__(cls, value)
        address.dtype = dtype
        return address


class _TensorFields:
    """The storage of a :class:`LocalTensor`, without its checked ``__setattr__``.

    A tensor the runtime derives (``t[k:]``, a queue's buffer) is filled in as a
    ``_TensorFields`` and then becomes a LocalTensor (:func:`_tensor_of_fields`): plain
    attribute stores cost a tenth of ``object.__setattr__``, and ``t[k:]`` is the most
    frequent call of a kernel written the plain way.
    """

    __slots__ = ("core", "dtype", "position", "addr", "tile_size", "lease", "geometry_key", "user_tag",
                 "address_dtype", "shape_info")


def _tensor_of_fields(core: Core, dtype: DType, position: TPosition, addr: int, tile_size: int,
                      lease: Lease | None, shape_info: ShapeInfo | None = None) -> LocalTensor:
    """A LocalTensor over already-checked bytes, every field set (see :class:`_TensorFields`)."""
    tensor = object.__new__(_TensorFields)
    tensor.core, tensor.dtype, tensor.position, tensor.addr = core, dtype, position, addr
    tensor.tile_size, tensor.lease, tensor.shape_info = tile_size, lease, shape_info
    tensor.geometry_key = (tile_size, dtype.name, int(position))
    tensor.__class__ = LocalTensor  # same slots: only the type changes
    return tensor


class LocalTensor(_TensorFields):
    """A typed view of ``tile_size`` elements of UB starting at byte ``addr``.

    Args:
        dtype: element type (``asc.float16``, ``asc.float32`` ...).
        pos: logical position; VECIN, VECOUT and VECCALC live in UB.
        addr: byte address in UB.
        tile_size: length in elements; 0 means "up to the end of UB".

    The tensor belongs to the core active when it is created.

    ``geometry_key`` is ``(tile_size, dtype name, position)``: what an instruction plan depends on
    (``npusim.engine.dispatch``: plans are keyed on geometry and bound to the address per call);
    it is kept in step with the attributes.

    ``addr`` and ``tile_size`` may be assigned (checked as the constructor checks them);
    ``dtype``, ``position``, ``core``, ``lease`` and ``geometry_key`` are read-only:
    :meth:`reinterpret_cast` gives a view of the same bytes as another type.
    """

    __slots__ = ()

    def __init__(self, dtype: DType, pos: TPosition = TPosition.VECIN, addr: int = 0, tile_size: int = 0,
                 *, core: Core | None = None, lease: Lease | None = None) -> None:
        if not isinstance(dtype, DType):
            raise TypeError(f"LocalTensor: dtype must be an npusim dtype such as asc.float16, got {dtype!r}")
        if not isinstance(pos, TPosition):
            raise TypeError(f"LocalTensor: pos must be an asc.TPosition, got {pos!r}")
        core = core if core is not None else current_core("LocalTensor")
        ub_bytes = core.ub.size_bytes
        addr = require_int("LocalTensor", "addr", addr, 0, ub_bytes - 1, TENSOR_SOURCE)
        max_elems = dtype.count_in(ub_bytes - addr)
        tile = require_int("LocalTensor", "tile_size", tile_size, 0, max(max_elems, 0), TENSOR_SOURCE)
        self._init(core, dtype, pos, addr, tile if tile else max_elems, lease)

    @classmethod
    def over_checked_bytes(cls, core: Core, dtype: DType, position: TPosition, addr: int, tile_size: int,
                           lease: Lease | None) -> LocalTensor:
        """A tensor over UB bytes its caller has already checked (a runtime allocator's buffer):
        the constructor without its argument checks."""
        if cls is LocalTensor:
            return _tensor_of_fields(core, dtype, position, addr, tile_size, lease)
        tensor = object.__new__(cls)
        tensor._init(core, dtype, position, addr, tile_size, lease)
        return tensor

    def _init(self, core: Core, dtype: DType, position: TPosition, addr: int, tile_size: int,
              lease: Lease | None) -> None:
        """Set every field (bypassing ``__setattr__``, which only has to keep ``geometry_key`` current)."""
        set_field = object.__setattr__
        set_field(self, "core", core)
        set_field(self, "dtype", dtype)
        set_field(self, "position", position)
        set_field(self, "addr", addr)
        set_field(self, "tile_size", tile_size)
        set_field(self, "lease", lease)
        set_field(self, "geometry_key", (tile_size, dtype.name, int(position)))
        if not hasattr(self, "shape_info"):  # set_addr_with_offset re-initialises a tensor and keeps its shape
            set_field(self, "shape_info", None)

    def __setattr__(self, name: str, value) -> None:
        ub_bytes = self.core.ub.size_bytes
        if name == "addr":
            value = require_int("LocalTensor.addr", "addr", value, 0, ub_bytes - 1, TENSOR_SOURCE)
        elif name == "tile_size":
            value = require_int("LocalTensor.tile_size", "tile_size", value, 0, self.dtype.count_in(ub_bytes),
                                TENSOR_SOURCE)
        elif name in _TensorFields.__slots__:
            raise AttributeError(f"LocalTensor.{name} is read-only: a tensor's type, position and core are fixed "
                                 "when it is made (reinterpret_cast(dtype) gives a view as another type)")
        object.__setattr__(self, name, value)
        object.__setattr__(self, "geometry_key", (self.tile_size, self.dtype.name, int(self.position)))

    # ------------------------------------------------------------ identity
    @property
    def nbytes(self) -> int:
        return self.dtype.nbytes(self.tile_size)

    @property
    def end(self) -> int:
        """One past the last byte of the tensor."""
        return self.addr + self.nbytes

    def __repr__(self) -> str:
        return (f"LocalTensor({self.dtype}, {self.position.name}, addr={self.addr:#x}, "
                f"tile_size={self.tile_size})")

    def get_phy_addr(self, offset: int = 0) -> int:
        """Byte address of element ``offset`` (pyasc ``get_phy_addr``)."""
        offset = require_int("get_phy_addr", "offset", offset, 0, self.tile_size, TENSOR_SOURCE)
        return PhyAddress(self.addr + self._byte_offset("get_phy_addr", offset), self.dtype)

    def get_length(self) -> int:
        """Length in bytes (pyasc ``get_length``)."""
        return self.nbytes

    def get_size(self) -> int:
        """Length in elements (pyasc ``get_size``)."""
        return self.tile_size

    def get_position(self) -> TPosition:
        return self.position

    # -------------------------------------------------- pyasc's setters
    def set_size(self, size: int = 0) -> None:
        """Make the tensor ``size`` elements long (pyasc ``set_size``; checked as ``tile_size``)."""
        self.tile_size = size

    def set_buffer_len(self, data_len: int) -> None:
        """Make the tensor ``data_len`` bytes long (pyasc ``set_buffer_len``: bytes on dav-c220).

        Like ``SetBufferLen`` it may exceed the buffer the tensor came from (pyasc's test_vadd_sw
        sets a longer length and then ``set_size``); every instruction still checks the bytes it touches.
        """
        self.tile_size = self.dtype.count_in(require_int("set_buffer_len", "data_len", data_len, 0,
                                                         self.core.ub.size_bytes - self.addr, TENSOR_SOURCE))

    def set_user_tag(self, tag: int = 0) -> None:
        """A user number kept with this tensor object (pyasc ``set_user_tag``; int32)."""
        object.__setattr__(self, "user_tag", require_int("set_user_tag", "tag", tag, -(1 << 31), (1 << 31) - 1,
                                                         TENSOR_SOURCE))

    def get_user_tag(self) -> int:
        """The tag of :meth:`set_user_tag` (0 when none was set)."""
        return getattr(self, "user_tag", 0)

    def set_addr_with_offset(self, src: LocalTensor, offset: int) -> None:
        """Point this tensor at ``src``'s address plus ``offset`` of *src's* elements, in src's buffer
        (pyasc ``set_addr_with_offset``); the length stays, checked against UB."""
        if not isinstance(src, LocalTensor):
            raise TypeError(f"set_addr_with_offset: src must be a LocalTensor, got {type(src).__name__}")
        src._check_host("set_addr_with_offset")
        if src.core is not self.core:
            raise WrongCoreError("set_addr_with_offset", "src", repr(src), "the tensor belongs to another core",
                                 "tensors created on the running core", TENSOR_SOURCE)
        offset = require_int("set_addr_with_offset", "offset", offset, 0, src.tile_size, TENSOR_SOURCE)
        addr = src.addr + src._byte_offset("set_addr_with_offset", offset)
        tile = require_int("set_addr_with_offset", "tile_size", self.tile_size, 0,
                           self.dtype.count_in(self.core.ub.size_bytes - addr), TENSOR_SOURCE)
        self._init(self.core, self.dtype, self.position, addr, tile, src.lease)

    # -------------------------------------------------------------- views
    def __getitem__(self, index) -> LocalTensor:
        """``t[offset:]`` or ``t[offset]``: the tensor ``offset`` elements later (pyasc semantics)."""
        kind = type(index)
        if kind is slice and type(index.start) is int and index.stop is None and index.step is None:
            offset = index.start  # the usual call: t[k:] with an int (checked as below, without the calls)
            if 0 <= offset <= self.tile_size and self.dtype.bits >= 8:
                return self._derive(self.dtype, self.addr + offset * self.dtype.itemsize, self.tile_size - offset)
        if kind is slice:
            if index.stop is not None or index.step is not None:
                raise TypeError("LocalTensor slicing supports only t[offset:] (as pyasc)")
            offset = 0 if index.start is None else index.start
        else:
            offset = index
        offset = require_int("LocalTensor[]", "offset", offset, 0, self.tile_size, TENSOR_SOURCE)
        return self._derive(self.dtype, self.addr + self._byte_offset("LocalTensor[]", offset), self.tile_size - offset)

    __call__ = __getitem__  # pyasc's element form t(i): the tensor at element i, as GlobalTensor's

    def reinterpret_cast(self, dtype: DType) -> LocalTensor:
        """The same bytes viewed as ``dtype``."""
        if not isinstance(dtype, DType):
            raise TypeError(f"reinterpret_cast: dtype must be an npusim dtype, got {dtype!r}")
        return self._derive(dtype, self.addr, dtype.count_in(self.nbytes))

    def _byte_offset(self, what: str, offset: int) -> int:
        """The bytes ``offset`` elements take: a packed type's offset must start a byte (§5.23)."""
        dtype = self.dtype
        if isinstance(dtype, PackedDType) and offset % dtype.per_byte:
            raise ParameterRangeError(what, "offset", offset, f"{dtype} tensors start at a byte boundary: "
                                      f"{dtype.per_byte} elements share a byte", f"multiples of {dtype.per_byte}",
                                      PACKED_SOURCE)
        return dtype.nbytes(offset)

    def _derive(self, dtype: DType, addr: int, tile_size: int) -> LocalTensor:
        # a view keeps the shape info, as Ascend C's copies of a tensor do
        return _tensor_of_fields(self.core, dtype, self.position, addr, tile_size, self.lease, self.shape_info)

    # --------------------------------------------------------- shape info
    def set_shape_info(self, shape_info: ShapeInfo) -> None:
        """Attach a logical shape (pyasc ``set_shape_info``); npusim's instructions do not read it."""
        object.__setattr__(self, "shape_info", require_shape_info("set_shape_info", shape_info))

    def get_shape_info(self) -> ShapeInfo:
        """The shape of :meth:`set_shape_info` (an empty ShapeInfo when none was set)."""
        return self.shape_info or ShapeInfo()

    # --------------------------------------------------------- validation
    def check_usable(self, instruction: str, operand: str, core: Core) -> None:
        """Raise unless this tensor may be used by ``instruction`` running on ``core``."""
        if self.lease is not None and not self.lease.alive:
            raise RuntimeMisuseError(
                instruction, operand, repr(self),
                f"the tensor's buffer was freed ({self.lease.owner})",
                "a tensor allocated and not yet freed", TENSOR_SOURCE,
            )
        if self.core is not core:
            raise WrongCoreError(
                instruction, operand, repr(self),
                "the tensor belongs to another core (each core has its own UB)",
                "tensors created on the running core", TENSOR_SOURCE,
            )

    def check_span(self, instruction: str, operand: str, start: int, stop: int) -> None:
        """Raise unless UB bytes ``[start, stop)`` lie inside both UB and this tensor.

        Outside the tensor but inside UB the core's tolerance policy decides: ``"hardware"``
        warns (:class:`~npusim.errors.UbPastTensorEndWarning`) and lets the call run.
        """
        self.core.ub.check_span(instruction, operand, start, stop)
        if start < self.addr or stop > self.end:
            error = OutOfBoundsError(
                instruction,
                f"{operand} byte range",
                f"[{start:#x}, {stop:#x})",
                f"the call touches bytes outside the tensor's extent ({self.tile_size} x {self.dtype})",
                f"[{self.addr:#x}, {self.end:#x})",
                EXTENT_SOURCE,
            )
            tolerate(self.core.tolerance, error, UbPastTensorEndWarning,
                     "the device knows only addresses and accesses the UB bytes there")

    # -------------------------------------------------------- host access
    def write(self, values) -> None:
        """Copy ``values`` (converted to this dtype) into the first elements of the tensor.

        A packed tensor (``int4b_t``) takes integers in its range, an even number of them (§5.23); a
        ``hifloat8`` tensor values the type holds exactly (NaN and ±infinity too), stored as their codes
        (§5.32: rounding to it is ``cast``'s, with a rounding mode); a ``float4_e2m1fn`` (``fp4x2_e2m1_t``) tensor
        values the type holds exactly, an even number of them, packed as their 4-bit codes (§5.33).
        """
        self._check_host("write")
        if isinstance(self.dtype, PackedFloatDType):
            array = self._packed_float_codes(values)
        elif isinstance(self.dtype, PackedDType):
            array = self._packed_values(values)
        elif isinstance(self.dtype, CodedDType):
            array = self._coded_values(values)
        else:
            array = np.ascontiguousarray(
                to_elements("LocalTensor.write", "values", values, self.dtype.np_dtype, TENSOR_SOURCE))
        if array.size > self.tile_size:
            raise OutOfBoundsError(
                "LocalTensor.write", "values length", array.size,
                "more elements than the tensor holds", f"at most {self.tile_size}", TENSOR_SOURCE,
            )
        if isinstance(self.dtype, PackedFloatDType):
            raw = self.dtype.pack(array)
        elif isinstance(self.dtype, PackedDType):
            raw = self.dtype.pack(array.astype(np.int8))
        else:
            raw = array.view(np.uint8)
        self.core.ub.write_bytes(self.addr, raw, who="LocalTensor.write")

    def _packed_float_codes(self, values) -> np.ndarray:
        """``values`` for a packed float tensor: the codes of values the type holds, whole bytes of them (§5.33)."""
        codes = coded_codes("LocalTensor.write", values, self.dtype)
        if codes.size % self.dtype.per_byte:
            raise ParameterRangeError("LocalTensor.write", "values length", codes.size,
                                      f"{self.dtype} values are written a byte ({self.dtype.per_byte} elements) at a "
                                      f"time", f"multiples of {self.dtype.per_byte}", coded_source(self.dtype))
        return codes

    def _packed_values(self, values) -> np.ndarray:
        """``values`` for a packed tensor: integers in the type's range, whole bytes of them (§5.23)."""
        dtype = self.dtype
        low, high = dtype.value_range
        array = to_elements("LocalTensor.write", "values", values, np.dtype(np.float64), PACKED_SOURCE)
        given = np.asarray(values).reshape(-1)
        wrong = ~((array >= low) & (array <= high) & (array == np.round(array))  # NaN is wrong too
                  & exact_doubles(given, array))  # a Fraction's nearest double need not be it
        if wrong.any():
            at = int(np.flatnonzero(wrong)[0])
            if given.dtype.kind == "O":
                raise ParameterRangeError("LocalTensor.write", "values", given[at], f"{dtype} values are integers "
                                          f"in [{low}, {high}]", f"integers in [{low}, {high}]", PACKED_SOURCE)
            bad = float(array[at])
            raise ParameterRangeError("LocalTensor.write", "values", int(bad) if bad.is_integer() else bad,
                                      f"{dtype} values are integers in [{low}, {high}]", f"integers in [{low}, {high}]",
                                      PACKED_SOURCE)
        if array.size % dtype.per_byte:
            raise ParameterRangeError("LocalTensor.write", "values length", array.size,
                                      f"{dtype} values are written a byte ({dtype.per_byte} elements) at a time",
                                      f"multiples of {dtype.per_byte}", PACKED_SOURCE)
        return array

    def _coded_values(self, values) -> np.ndarray:
        """``values`` for a coded tensor (``hifloat8``, ``fp8_e8m0_t``): their codes, each value one the type holds
        (§5.32, §5.34)."""
        return coded_codes("LocalTensor.write", values, self.dtype)

    def read(self, count: int | None = None) -> np.ndarray:
        """A copy of the first ``count`` elements (default: all) as a numpy array (a packed tensor's as
        ``int8`` values, one per element; its bytes are those of a ``uint8`` view, §5.23; a ``hifloat8``
        or ``float4_e2m1fn`` tensor's as float32 values, all exact, §5.32, §5.33)."""
        self._check_host("read")
        count = self.tile_size if count is None else require_int("LocalTensor.read", "count", count, 0,
                                                                  self.tile_size, TENSOR_SOURCE)
        raw = self.core.ub.data[self.addr : self.addr + self.dtype.nbytes(count)]
        if isinstance(self.dtype, PackedFloatDType):  # the codes' values, one per element (§5.33)
            return self.dtype.decode(self.dtype.unpack(raw)[:count])
        if isinstance(self.dtype, PackedDType):  # element values, one per element (§5.23)
            return self.dtype.unpack(raw)[:count]
        if isinstance(self.dtype, CodedDType):  # the codes' values (§5.32)
            return self.dtype.decode(raw)
        return raw.view(self.dtype.np_dtype).copy()

    def get_value(self, index: int):
        """Element ``index`` as a numpy scalar (a scalar read of UB)."""
        self._check_host("get_value", scalar=True)
        self._no_scalar_access("get_value")
        index = require_int("get_value", "index", index, 0, self.tile_size - 1, TENSOR_SOURCE)
        start = self.addr + index * self.dtype.itemsize
        self._scalar_access("get_value", start, False)
        self.core.ub.check_initialized_span("get_value", "tensor", start, start + self.dtype.itemsize)
        return self.core.ub.data[start : start + self.dtype.itemsize].view(self.dtype.np_dtype)[0]

    def set_value(self, index: int, value) -> None:
        """Write element ``index`` (converted to this dtype)."""
        self._check_host("set_value", scalar=True)
        self._no_scalar_access("set_value")
        index = require_int("set_value", "index", index, 0, self.tile_size - 1, TENSOR_SOURCE)
        item = to_elements("set_value", "value", value, self.dtype.np_dtype, TENSOR_SOURCE)
        if item.size != 1:
            raise TypeError(f"set_value: value must be one number, got {item.size} values")
        self._scalar_access("set_value", self.addr + index * self.dtype.itemsize, True)
        self.core.ub.write_bytes(self.addr + index * self.dtype.itemsize, item.view(np.uint8), who="set_value")
        if isinstance(value, PhyAddress):  # an address tensor: remember whose address it holds (pyasc)
            object.__setattr__(self, "address_dtype", value.dtype)

    def print(self, data_len: int) -> None:
        """Print the first ``data_len`` elements to stdout (pyasc ``LocalTensor.print``)."""
        self._check_host("print")
        data_len = require_int("LocalTensor.print", "data_len", data_len, 0, self.tile_size, TENSOR_SOURCE)
        print(element_text(self.read(data_len)))

    def to_file(self, file_name: str) -> None:
        """Write the tensor's bytes (little-endian elements) to ``file_name`` (pyasc ``to_file``)."""
        if not isinstance(file_name, str):
            raise TypeError(f"LocalTensor.to_file: file_name must be a str, got {type(file_name).__name__}")
        self._check_host("to_file")
        packed = isinstance(self.dtype, (PackedDType, CodedDType))  # a packed tensor's bytes (hifloat8: codes) in UB
        data = self.core.ub.data[self.addr : self.end].tobytes() if packed else self.read().tobytes()
        with open(file_name, "wb") as file:
            file.write(data)

    def _no_scalar_access(self, what: str) -> None:
        if isinstance(self.dtype, PackedDType):
            raise UnsupportedError(what, "tensor dtype", self.dtype.name, f"a scalar access reads or writes whole "
                                   f"bytes, {self.dtype} elements are {self.dtype.bits} bits",
                                   "write / read, or a uint8 view (reinterpret_cast)", PACKED_SOURCE)
        if isinstance(self.dtype, CodedDType):
            raise UnsupportedError(what, "tensor dtype", self.dtype.name, f"a scalar access of a {self.dtype} element "
                                   "is not modelled (numpy has no scalar type for it)",
                                   "write / read, or a uint8 view (reinterpret_cast) for the codes",
                                   coded_source(self.dtype))

    def _check_host(self, what: str, scalar: bool = False) -> None:
        """The tensor is still allocated; the host (not ``scalar``, the S pipe's get/set_value) sees every
        call done."""
        if self.lease is not None and not self.lease.alive:
            raise RuntimeMisuseError(
                f"LocalTensor.{what}", "tensor", repr(self),
                f"the tensor's buffer was freed ({self.lease.owner})",
                "a tensor allocated and not yet freed", TENSOR_SOURCE,
            )
        observer = self.core.observer
        if observer is not None and not scalar:  # a fuzzed schedule may hold calls back: the host sees them done
            observer.flush()

    def _scalar_access(self, what: str, start: int, write: bool) -> None:
        """Tell the core's sync checker (if any) of a scalar access of one element at UB byte ``start``."""
        observer = self.core.observer
        if observer is not None:
            where = (ByteRange("UB", start, start + self.dtype.itemsize),)
            observer.scalar(what, () if write else where, where if write else (), self.core.block_idx)
