"""``TransDataTo5HD`` (``scatter_vnchwconv_b8/b16/b32``): a 16-DataBlock scatter-transpose.

Semantics (TransDataTo5HD.md; docs/semantics.md §4):

* One repeat reads 16 source DataBlocks ``S[0..15]`` and writes 16 destination DataBlocks
  ``D[0..15]``, each at its own 32-byte aligned UB address (the blocks need not be
  contiguous).  With ``s = sizeof(T)`` (docs/semantics.md §4.2):

  - b16: ``D[e][k] = S[k][e]`` for ``e, k < 16`` — a 16 x 16 transpose;
  - b32: ``D[2e + h][k] = S[8h + k][e]`` for ``e, k < 8``, ``h < 2`` — element ``e`` of the
    16 sources fills two consecutive destination blocks;
  - b8:  ``D[e][k + 16 dh] = S[k][e + 16 sh]`` for ``e, k < 16``, where ``sh`` / ``dh`` are
    ``src_high_half`` / ``dst_high_half``; the other 16 bytes of each ``D[e]`` are untouched.

* Repeat ``r`` uses ``S_r[i] = src_list[i] + off_s(r) * 32`` and ``D_r[e] = dst_list[e] +
  off_d(r) * 32`` with ``off(r) = rep_stride if repeat_times == 1 else r * rep_stride``
  (docs/semantics.md §4.3): a single repeat is already offset by one stride.  ``repeat_times == 0`` is a
  no-op (parameters are still checked).  The arithmetic is :class:`..addressing.Vnchwconv`.
* The vector mask and the mask mode play no part.  ``dst_high_half`` / ``src_high_half``
  select a half DataBlock of 8-bit data; with 16- or 32-bit data they must be ``False``
  (TransDataTo5HD.md 参数说明, 表3: "该配置只支持int8_t、uint8_t的数据类型").
* **Address tensors** (the ``LocalTensor<uint64_t>`` form, NPU build of
  ``kernel_operator_vec_transpose_intf_impl.h``): before the instruction, scalar code packs
  the 16 addresses of each tensor into the VA-register layout *in place*: for ``i = 0..3``,
  entry ``i`` of dst and then entry ``i`` of src becomes
  ``sum_j ((e[4i + j] >> 5) & 0x1fff) << 16 j`` — four 16-bit DataBlock numbers.  Entries 4-15
  are left as they are.  ``vld_va_reg`` then loads the VA registers from the 32 bytes of
  entries 0-3, so the instruction's lists are those 16 fields times 32.  A tensor used a second
  time therefore holds packed words, not addresses, in entries 0-3; and when dst and src are
  the same tensor, src's packing reads entries dst's packing has already rewritten.  npusim
  does exactly this: every value the packing reads must be a 32-byte aligned UB address (the
  documented content of the tensor), the rewritten entries are written back to UB (before the
  transpose's own writes, which may overwrite them), and the transpose reads them where its
  sources cover them.  Not available on the 910 (``AscendChip.transdata_address_tensor``).
* Constraints: every address 32-byte aligned and every touched byte inside UB (and inside
  its tensor for the LocalTensor form); dtype per product (``AscendChip.transdata_dtypes``);
  overlap per docs/semantics.md §1.6 — within a repeat the bytes read and written are either the same
  bytes in the same order (in place, identical lists) or disjoint, and no repeat reads what
  an earlier repeat wrote.  When two destination blocks of one call coincide, the one
  written later (higher repeat, then higher list index) wins.

On the engine: the address lists (16 ints each; the C API's ``asc_transto5hd_*``, whose
LocalTensor entries stand for their addresses) *are* the parameters, so their plan is keyed on
them.  Tensor lists are keyed on the tensors' geometry and bound per call to the 32 addresses;
address tensors are keyed on their geometry and every call reads, checks and packs the tables.
What a placement needs beyond its bounds depends only on the 32 addresses relative to the
first (:class:`Layout`), so tensors that move together tile by tile are laid out once.  Every
binding knows exactly what it reads (the moved elements, the tables) and writes (the moved
elements, the packed entries).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES, DType
from ...engine.caches import Cache
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OutOfBoundsError, ParameterRangeError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import describe_type, is_integer, is_list_like, require_aligned, require_bool, require_uint
from .. import pages
from ..addressing import ADDR_LIST_SIZE, BLOCK_BYTES, Vnchwconv
from ..chips import unsupported_on
from ..core import Core, SyncRecord
from ..footprint import Footprint, check_overlap, same_array
from ..operands import ALL_WRITTEN, NEVER
from ..tensor import LocalTensor
from ..types import PipeID, TransDataTo5HDParams
from .common import ALIGN_SOURCE, UB_ALIGN, require_dtype, require_ub_tensor
from .va_registers import is_va_register, va_context, va_pair_addresses

__all__ = ["TRANSTO5HD_ARCHS", "TRANS_DATA_TO_5HD_FORMS", "asc_transto5hd_b8", "asc_transto5hd_b8_sync",
           "asc_transto5hd_b16", "asc_transto5hd_b16_sync", "asc_transto5hd_b32", "asc_transto5hd_b32_sync",
           "has_transto5hd_c_api", "trans_data_to_5hd"]

NAME = "trans_data_to_5hd"
SOURCE = f"{pages.TRANS_DATA_TO_5HD} 参数说明; {semantics('4.1')}"
C_API_SOURCE = f"{pages.C_API}/asc_transto5hd.md 参数说明; {semantics('4.1')}"
DTYPE_SOURCE = f"{pages.TRANS_DATA_TO_5HD} 数据类型; {semantics('4.4')}"
VA_WORDS = 4  # VA_REG_ARRAY_LEN / HALF_FACTOR: entries packed per address tensor
VA_FIELD_BITS = 16  # one DataBlock number per 16-bit field of a VA word
VA_BLOCK_MASK = 0x1FFF  # vaMask: 13 bits of DataBlock number
TABLE_BYTES = ADDR_LIST_SIZE * 8  # an address tensor's 16 uint64 entries
REUSE_HINT = ("; entries 0-3 of an address tensor are rewritten in place by every call (packed DataBlock numbers), "
              "so refill the tensor before using it again")


def _is_list(v) -> bool:
    return isinstance(v, (list, tuple, np.ndarray))


def _is_params(v) -> bool:
    return isinstance(v, TransDataTo5HDParams)


def _is_dtype_or_none(v) -> bool:
    return v is None or isinstance(v, DType)


def _anything(_value) -> bool:
    return True  # the C API checks every argument in its plan step, naming it


# Every test depends on the argument's type only (overloads.bind may cache by types); whether a
# list holds LocalTensors or addresses is decided afterwards, by :func:`_list_kind`.
TRANS_DATA_TO_5HD_FORMS = (
    Form("lists", (Param("dst_list", _is_list), Param("src_list", _is_list),
                   Param("params", _is_params), Param("dtype", _is_dtype_or_none, None))),
    Form("addr_tensor", (Param("dst", lambda v: isinstance(v, LocalTensor)),
                         Param("src", lambda v: isinstance(v, LocalTensor)),
                         Param("params", _is_params), Param("dtype", _is_dtype_or_none, None))),
)
_C_API_PARAMS = tuple(Param(name, _anything) for name in ("dst", "src", "repeat", "dst_stride", "src_stride"))
_C_API_FORMS = {
    8: (Form("", (*_C_API_PARAMS, Param("dst_high_half", _anything), Param("src_high_half", _anything))),),
    16: (Form("", _C_API_PARAMS),),
    32: (Form("", _C_API_PARAMS),),
}


# ------------------------------------------------------------------ plan step
def _compile(core: Core, form: str, bound: dict):
    """Check every rule of a ``trans_data_to_5hd`` call, in the order the documents' checks come, and plan it."""
    if form == "lists":
        form = _list_kind(bound["dst_list"], bound["src_list"])
    _require_product(NAME, core)
    params = bound["params"]
    dst_high = require_bool(NAME, "params.dst_high_half", params.dst_high_half)
    src_high = require_bool(NAME, "params.src_high_half", params.src_high_half)
    repeat_times = require_uint(NAME, "params.repeat_times", params.repeat_times, 8, SOURCE)
    dst_stride = require_uint(NAME, "params.dst_rep_stride", params.dst_rep_stride, 16, SOURCE)
    src_stride = require_uint(NAME, "params.src_rep_stride", params.src_rep_stride, 16, SOURCE)

    if form == "tensor_list":
        dtype, tensors = _tensor_lists(core, bound)
        dst_list, src_list = (np.array([t.addr for t in listed], dtype=np.int64) for listed in tensors)
    elif form == "addr_list":
        dtype = _required_dtype(bound["dtype"])
        dst_list = _address_list(NAME, "dst_list", bound["dst_list"], core.ub.size_bytes)
        src_list = _address_list(NAME, "src_list", bound["src_list"], core.ub.size_bytes)
    else:
        dtype = _required_dtype(bound["dtype"])
        if not core.chip.transdata_address_tensor:
            raise unsupported_on(core.chip, NAME, "TransDataTo5HD with the address lists in a "
                                 "LocalTensor<uint64_t>", _has_address_tensor_form,
                                 f"{pages.TRANS_DATA_TO_5HD} 产品支持情况; {semantics('4.1')}")
        _packed_lists(core, bound["dst"], bound["src"], warn=False)  # the content rules, in their place
    _require_low_halves(dtype, dst_high, src_high)
    _require_transdata_dtype(NAME, core, dtype)
    geometry = Vnchwconv(dtype.itemsize, repeat_times, dst_stride, src_stride, dst_high, src_high)
    if form == "addr_tensor":
        return PerCallPlan(geometry, _locate_address_tensors)
    layout, anchor = place(NAME, core, geometry, dst_list, src_list, tensors if form == "tensor_list" else None)
    if form == "addr_list":
        return ListPlan(NAME, layout, anchor)
    if type(bound["dst_list"]) in (list, tuple) and type(bound["src_list"]) in (list, tuple):
        return TensorListPlan(geometry)
    return PerCallPlan(geometry, _locate_tensor_lists)  # the engine keys lists of operands, not arrays of them


def _list_kind(dst_list, src_list) -> str:
    """``"tensor_list"`` (LocalTensors) or ``"addr_list"`` (integer UB addresses)."""
    items = [*dst_list, *src_list]
    if items and all(isinstance(item, LocalTensor) for item in items):
        return "tensor_list"
    if all(is_integer(item) for item in items):
        return "addr_list"
    raise TypeError(f"{NAME}: dst_list and src_list hold either 16 LocalTensors each or 16 integer UB "
                    f"addresses each, got {sorted({type(i).__name__ for i in items})}")


#: ``__NPU_ARCH__`` of the products asc_transto5hd.md supports (产品支持情况: the A2/A3, 2201, and the 950, 3510);
#: both lower it to the same ``scatter_vnchwconv_b8/b16/b32`` (``impl/c_api/instr_impl/npu_arch_{2201,3510}/
#: vector_compute_impl/asc_transto5hd_impl.h``; docs/semantics.md §5.31)
TRANSTO5HD_ARCHS = frozenset({2201, 3510})


def has_transto5hd_c_api(chip) -> bool:
    """``chip`` has the C API ``asc_transto5hd_b8/b16/b32[_sync]``."""
    return chip.npu_arch in TRANSTO5HD_ARCHS and bool(chip.transdata_dtypes)


def _compile_c_api(name: str, bits: int, sync: bool, core: Core, bound: dict) -> ListPlan:
    """The plan step of ``asc_transto5hd_b<bits>[_sync]``: the C API's argument order, then the instruction's rules."""
    if not has_transto5hd_c_api(core.chip):
        raise unsupported_on(core.chip, name, name, has_transto5hd_c_api,
                             f"{pages.C_API}/asc_transto5hd.md 产品支持情况; {semantics('5.25', '5.31')}")
    _require_product(name, core)
    ub_bytes = core.ub.size_bytes
    dst_list, src_list = (_address_list(name, operand, _c_api_addresses(name, core, operand, bound[operand]), ub_bytes)
                          for operand in ("dst", "src"))
    repeat_times = require_uint(name, "repeat", bound["repeat"], 8, C_API_SOURCE)
    dst_stride = require_uint(name, "dst_stride", bound["dst_stride"], 16, C_API_SOURCE)
    src_stride = require_uint(name, "src_stride", bound["src_stride"], 16, C_API_SOURCE)
    dst_high = require_bool(name, "dst_high_half", bound.get("dst_high_half", False))
    src_high = require_bool(name, "src_high_half", bound.get("src_high_half", False))
    tensors = []  # (argument, entry) of every LocalTensor standing for its address: checked on every call
    for at, operand in enumerate(("dst", "src")):
        for i, item in enumerate(() if is_va_register(bound[operand]) else bound[operand]):
            if isinstance(item, LocalTensor):
                item.check_usable(name, f"{operand}[{i}]", core)
                tensors.append((at, i))
    _require_transdata_dtype(name, core, DTYPES[f"uint{bits}"])
    geometry = Vnchwconv(bits // 8, repeat_times, dst_stride, src_stride, dst_high, src_high)
    layout, anchor = place(name, core, geometry, dst_list, src_list)
    registers = tuple((operand, (dst_list, src_list)[at]) for at, operand in enumerate(("dst", "src"))
                      if is_va_register(bound[operand]))
    return ListPlan(name, layout, anchor, tuple(tensors), sync, resolved=tuple(
        (operand, tuple(int(a) for a in addresses)) for operand, addresses in registers),
        registers=tuple(f"VA{int(bound[operand]) + i}" for operand, _ in registers for i in (0, 1)))


# ------------------------------------------------------------ parameter rules
def _require_product(instruction: str, core: Core) -> None:
    if not core.chip.transdata_dtypes:
        raise unsupported_on(core.chip, instruction, "TransDataTo5HD", lambda c: bool(c.transdata_dtypes),
                             f"{pages.TRANS_DATA_TO_5HD} 产品支持情况; {semantics('4.4')}")


def _has_address_tensor_form(chip) -> bool:
    return bool(chip.transdata_dtypes) and chip.transdata_address_tensor


def _require_transdata_dtype(instruction: str, core: Core, dtype: DType) -> None:
    fields = (dtype.name, dtype.bits, dtype.kind, dtype.storage)
    known = DTYPES.get(dtype.name) if type(dtype.name) is str else None
    if known is None or tuple(map(type, fields)) != (str, int, str, str) or fields != (
            known.name, known.bits, known.kind, known.storage):  # its width decides the mapping (§4.2)
        raise TypeError(f"{instruction}: T must be one of npusim's element types (asc.int8 ...), got a DType "
                        f"with fields {tuple(describe_type(f) for f in fields)}")
    require_dtype(instruction, "T", dtype, core.chip.transdata_dtypes,
                  f"TransDataTo5HD does not support this type on {core.chip.name}", DTYPE_SOURCE)


def _require_low_halves(dtype: DType, dst_high: bool, src_high: bool) -> None:
    """``dstHighHalf`` / ``srcHighHalf`` are for int8_t / uint8_t only (TransDataTo5HD.md 参数说明, 表3)."""
    if dtype.itemsize == 1:
        return
    for flag, value in (("dst_high_half", dst_high), ("src_high_half", src_high)):
        if value:
            raise ParameterRangeError(
                NAME, f"params.{flag}", True, f"the high-half flags select half a DataBlock of int8_t / "
                f"uint8_t data only; {dtype} data has no halves to choose", "False",
                f"{SOURCE} (TransDataTo5HDParams: 该配置只支持int8_t、uint8_t的数据类型)",
            )


def _required_dtype(dtype) -> DType:
    if dtype is None:
        raise TypeError(f"{NAME}: the address forms carry no element type; pass dtype=asc.<type> "
                        "(the C++ template argument T)")
    return dtype


def _as_addresses(instruction: str, listed) -> list:
    if not is_list_like(listed):
        raise TypeError(f"{instruction}: an address list is 16 UB addresses or LocalTensors, "
                        f"got {describe_type(listed)}")
    return [item.addr if isinstance(item, LocalTensor) else item for item in listed]


def _c_api_addresses(instruction: str, core: Core, operand: str, value) -> list:
    """The C API's ``dst`` / ``src``: a VA register (its pair's 16 addresses, docs/semantics.md §5.25), or the
    16 addresses (or LocalTensors) such a pair would hold."""
    if is_va_register(value):
        return va_pair_addresses(instruction, core, operand, value)
    if not is_list_like(value):
        raise TypeError(f"{instruction}: {operand} is a VA register (asc.VA0 .. asc.VA6) or an address list (16 UB "
                        f"addresses or LocalTensors), got {describe_type(value)}")
    return _as_addresses(instruction, value)


def _address_list(instruction: str, name: str, values, ub_bytes: int) -> np.ndarray:
    """16 UB byte addresses as an int64 array (alignment is checked when they are placed)."""
    if len(values) != ADDR_LIST_SIZE:
        raise ParameterRangeError(instruction, f"{name} length", len(values),
                                  "the address list has NCHW_CONV_ADDR_LIST_SIZE entries", "16", SOURCE)
    addresses = []
    for i, value in enumerate(values):
        if not is_integer(value):
            raise TypeError(f"{instruction}: {name}[{i}] must be an integer UB address, got {type(value).__name__}")
        if not 0 <= int(value) < ub_bytes:
            raise OutOfBoundsError(instruction, f"{name}[{i}] address", int(value),
                                   "the DataBlock address lies outside UB", f"[0x0, {ub_bytes:#x})", SOURCE)
        addresses.append(int(value))
    return np.array(addresses, dtype=np.int64)


def _tensor_lists(core: Core, bound: dict) -> tuple[DType, tuple[list[LocalTensor], list[LocalTensor]]]:
    lists = {}
    for name in ("dst_list", "src_list"):
        tensors = list(bound[name])
        if len(tensors) != ADDR_LIST_SIZE:
            raise ParameterRangeError(NAME, f"{name} length", len(tensors),
                                      "the tensor list has NCHW_CONV_ADDR_LIST_SIZE entries", "16", SOURCE)
        lists[name] = [require_ub_tensor(NAME, f"{name}[{i}]", t, core) for i, t in enumerate(tensors)]
    dtype = lists["dst_list"][0].dtype
    for name, tensors in lists.items():
        for i, tensor in enumerate(tensors):
            if tensor.dtype != dtype:
                raise TypeError(f"{NAME}: every tensor of dst_list and src_list must have one dtype; "
                                f"{name}[{i}] is {tensor.dtype}, dst_list[0] is {dtype}")
    if bound["dtype"] is not None and bound["dtype"] != dtype:
        raise TypeError(f"{NAME}: dtype={bound['dtype']} contradicts the tensors' dtype {dtype}")
    return dtype, (lists["dst_list"], lists["src_list"])


# ------------------------------------------------------------ address tensors
def _address_tensor(core: Core, name: str, tensor: LocalTensor, warn: bool) -> LocalTensor:
    """A LocalTensor<uint64_t> holding 16 written UB addresses (TransDataTo5HD.md 函数原型, second form).

    ``warn=False``: a never-written entry is reported only where that raises (the plan step
    leaves the warning to the call that reads the entries)."""
    tensor = require_ub_tensor(NAME, name, tensor, core)
    require_dtype(NAME, name, tensor.dtype, frozenset({"uint64"}),
                  "the address tensor holds uint64_t addresses (LocalTensor<uint64_t>)", SOURCE)
    tensor.check_span(NAME, f"{name} (address list)", tensor.addr, tensor.addr + TABLE_BYTES)
    if warn or core.ub.raises_on_uninitialized():
        core.ub.check_initialized_span(NAME, f"{name} (address list)", tensor.addr, tensor.addr + TABLE_BYTES)
    return tensor


def _packed_lists(core: Core, dst: LocalTensor, src: LocalTensor, warn: bool = True):
    """The NPU build's packing of two address tensors (module docstring), without writing anything.

    Returns the dst and src lists the instruction then reads (16 UB byte addresses each) and the
    rewrite: ``(uint64 element indices, words)`` of the entries the packing leaves in UB.
    """
    dst = _address_tensor(core, "dst", dst, warn)
    src = _address_tensor(core, "src", src, warn)
    ub = core.ub
    rewritten: dict[int, int] = {}  # byte address of an entry -> the word the packing stored there

    def entry(tensor: LocalTensor, k: int) -> int:
        at = tensor.addr + 8 * k
        return rewritten[at] if at in rewritten else int.from_bytes(ub.data[at : at + 8], "little")

    for i in range(VA_WORDS):
        for name, tensor in (("dst", dst), ("src", src)):  # dst.SetValue(i) comes before src.GetValue
            word = 0
            for j in range(VA_WORDS):
                k = VA_WORDS * i + j
                address = entry(tensor, k)
                _require_stored_address(f"{name}[{k}]", address, ub.size_bytes, packed=k < VA_WORDS)
                word |= ((address >> 5) & VA_BLOCK_MASK) << (VA_FIELD_BITS * j)
            rewritten[tensor.addr + 8 * i] = word

    def va_list(tensor: LocalTensor) -> np.ndarray:  # vld_va_reg: 16 fields from entries 0-3, in DataBlocks
        fields = [(entry(tensor, i) >> (VA_FIELD_BITS * j)) & 0xFFFF for i in range(VA_WORDS) for j in range(VA_WORDS)]
        return np.array(fields, dtype=np.int64) * BLOCK_BYTES

    rewrite = (np.array(list(rewritten), dtype=np.int64) // 8, np.array(list(rewritten.values()), dtype="<u8"))
    return va_list(dst), va_list(src), rewrite


def _require_stored_address(operand: str, address: int, ub_bytes: int, packed: bool) -> None:
    """An address tensor entry the packing reads is a 32-byte aligned UB address (TransDataTo5HD.md 参数说明: the tensor
    holds LocalTensor addresses, whose start must be 32-byte aligned).  ``packed``: one of the entries
    every call rewrites, so the message says why it may hold something else."""
    if address >= ub_bytes:
        raise OutOfBoundsError(NAME, f"{operand} address", address,
                               "the stored address lies outside UB" + (REUSE_HINT if packed else ""),
                               f"[0x0, {ub_bytes:#x})", SOURCE)
    require_aligned(NAME, operand, address, UB_ALIGN, "UB", ALIGN_SOURCE)


# ------------------------------------------------------------------ placement
@dataclass(eq=False)
class Layout:
    """Where a call's elements lie relative to its *anchor* (``dst_list[0]``): all of a placement
    that does not move when the 32 addresses move together.  Shared by every core and call.

    Attributes:
        geometry: the call's address arithmetic.
        raw: the unsigned numpy type of its element size (what is moved).
        src, dst: byte offset from the anchor of every element read / written, ``(repeats, 16, n)``.
        views: ``(shape, dst offset, dst strides, src offset, src strides)`` of two strided views of
            UB (offsets from the anchor) whose copy is the call, or ``None`` when the call is not two
            strided views (lists that do not step evenly, a destination element written twice).
    """

    geometry: Vnchwconv
    raw: np.dtype
    src: np.ndarray
    dst: np.ndarray
    views: tuple | None

    @cached_attribute
    def src_index(self) -> np.ndarray:
        """Element index from the anchor of every source element, in issue order."""
        return (self.src // self.raw.itemsize).reshape(-1)

    @cached_attribute
    def dst_index(self) -> np.ndarray:
        """Element index from the anchor of every destination element, in issue order."""
        return (self.dst // self.raw.itemsize).reshape(-1)

    @cached_attribute
    def src_for_dst(self) -> np.ndarray:
        """For each destination element (issue order), its source's element index from the anchor."""
        return np.ascontiguousarray(self.geometry.in_dst_order(self.src // self.raw.itemsize)).reshape(-1)

    @cached_attribute
    def spans(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The byte runs read and written, ``(start, stop)`` from the anchor, sorted and merged."""
        in_element = np.arange(self.raw.itemsize, dtype=np.int64)
        read, written = ((elements[..., None] + in_element).reshape(-1) for elements in (self.src, self.dst))
        return ([(r.start, r.stop) for r in ranges_of_addresses("UB", read)],
                [(r.start, r.stop) for r in ranges_of_addresses("UB", written)])


_LAYOUTS = Cache("trans_data_to_5hd layouts", 1024)  # (geometry, 32 relative addresses) -> Layout


def place(instruction: str, core: Core, geometry: Vnchwconv, dst_list: np.ndarray, src_list: np.ndarray,
          tensors: tuple[list[LocalTensor], list[LocalTensor]] | None = None) -> tuple[Layout, int]:
    """Check the rules that depend on the 32 addresses and return the call's layout and anchor.

    The addresses inside UB and aligned, every touched byte inside UB (and inside its tensor
    when ``tensors`` name them), then the overlap rules — those on the first placement of a
    layout only, since they depend on the addresses relative to each other alone.
    """
    ub_bytes = core.ub.size_bytes
    for name, listed in (("dst_list", dst_list), ("src_list", src_list)):
        outside = (listed < 0) | (listed >= ub_bytes)
        if outside.any():
            index = int(np.argmax(outside))
            raise OutOfBoundsError(instruction, f"{name}[{index}] address", int(listed[index]),
                                   "the DataBlock address lies outside UB", f"[0x0, {ub_bytes:#x})", SOURCE)
        misaligned = listed % UB_ALIGN != 0
        if misaligned.any():
            index = int(np.argmax(misaligned))
            require_aligned(instruction, f"{name}[{index}]", int(listed[index]), UB_ALIGN, "UB", ALIGN_SOURCE)
    if geometry.repeat_times:
        _check_bounds(instruction, core, geometry, "dst", dst_list, tensors[0] if tensors else None)
        _check_bounds(instruction, core, geometry, "src", src_list, tensors[1] if tensors else None)
    anchor = int(dst_list[0])
    key = (geometry, tuple((dst_list - anchor).tolist()), tuple((src_list - anchor).tolist()))
    layout = _LAYOUTS.get(key)
    if layout is None:
        layout = _layout(instruction, geometry, dst_list, src_list, anchor)
        _LAYOUTS.put(key, layout)
    return layout, anchor


def _check_bounds(instruction: str, core: Core, geometry: Vnchwconv, operand: str, listed: np.ndarray,
                  tensors: list[LocalTensor] | None) -> None:
    """Every byte the blocks of one list touch over all repeats lies inside UB, and inside each block's tensor."""
    start, stop = geometry.block_span(operand == "dst")
    lo, hi = listed + start, listed + stop
    block = int(np.argmax(hi))
    core.ub.check_span(instruction, f"{operand}_list[{block}]", int(lo[block]), int(hi[block]))
    for i, tensor in enumerate(tensors or ()):
        if lo[i] < tensor.addr or hi[i] > tensor.end:
            tensor.check_span(instruction, f"{operand}_list[{i}]", int(lo[i]), int(hi[i]))


def _layout(instruction: str, geometry: Vnchwconv, dst_list: np.ndarray, src_list: np.ndarray,
            anchor: int) -> Layout:
    """Compute a layout at real addresses (an overlap error names real bytes), then make it relative."""
    size = geometry.itemsize
    src, dst = geometry.elements(src_list, dst=False), geometry.elements(dst_list, dst=True)
    check_overlap(instruction, _footprint("dst", dst, size), _footprint("src", src, size))
    views = None
    d_step, s_step = _even_step(dst_list), _even_step(src_list)
    if d_step is not None and s_step is not None and geometry.repeat_times:
        ordered = np.sort(dst, axis=None)
        if not (ordered[1:] == ordered[:-1]).any():  # a destination element written twice: the last write must win
            shape, d_strides, s_strides = geometry.view_strides(d_step, s_step)
            views = (shape, int(dst[0, 0, 0]) - anchor, d_strides, int(src[0, 0, 0]) - anchor, s_strides)
    return Layout(geometry, np.dtype(f"<u{size}"), src - anchor, dst - anchor, views)


def _even_step(addresses: np.ndarray) -> int | None:
    """The common difference of the 16 addresses, ``None`` if they do not step evenly."""
    step = int(addresses[1] - addresses[0])
    return step if same_array(addresses, addresses[0] + step * np.arange(ADDR_LIST_SIZE)) else None


def _footprint(name: str, addrs: np.ndarray, itemsize: int) -> Footprint:
    repeats = np.broadcast_to(np.arange(addrs.shape[0], dtype=np.int64)[:, None, None], addrs.shape)
    return Footprint(name, addrs.reshape(-1), repeats.reshape(-1), itemsize)


# ------------------------------------------------------------ plans
@dataclass(eq=False)
class ListPlan:
    """A checked call at absolute addresses (the address-list forms, keyed on their addresses).

    Attributes:
        instruction: the public name (errors name it).
        layout, anchor: where its elements lie.
        tensors: for the C API, ``(argument, entry)`` of each LocalTensor in its lists, checked
            (still allocated, on this core) on every call.
        sync: the ``_sync`` C-API variant: ``pipe_barrier(PIPE_ALL)`` follows.
        resolved: for the C API's VA register arguments, ``(argument, the 16 addresses its pair held)``: the
            access record shows the addresses (a record's parameters replan the call).
        registers: the VA registers it read.
    """

    instruction: str
    layout: Layout
    anchor: int
    tensors: tuple[tuple[int, int], ...] = ()
    sync: bool = False
    operands: tuple[str, ...] = ()
    resolved: tuple[tuple[str, tuple[int, ...]], ...] = ()
    registers: tuple[str, ...] = ()

    def bind(self, core: Core, operands) -> Transposition:
        binding = Transposition(self.instruction, self.layout, self.anchor, core, self.tensors, self.sync)
        if self.registers:
            binding.registers_read = self.registers
            binding.record_params = {name: list(addresses) for name, addresses in self.resolved}
        return binding


@dataclass(eq=False)
class TensorListPlan:
    """A checked tensor-list call, relative to the tensors' addresses (keyed on their geometry)."""

    geometry: Vnchwconv
    operands: tuple[str, ...] = ("dst_list", "src_list")

    def bind(self, core: Core, operands) -> Transposition:
        """The per-placement checks, in the plan step's order (each tensor usable and aligned, then the
        placement's), and the layout of the 32 addresses relative to each other."""
        layout, anchor, _rewrite, _tables = _locate_tensor_lists(core, self.geometry, operands)
        return Transposition(NAME, layout, anchor, core)


@dataclass(eq=False)
class PerCallPlan:
    """A checked call whose addresses each call finds anew: in UB (the address tensors), or in
    tensor lists the engine keys by identity (numpy arrays of LocalTensors).

    ``locate(core, geometry, values)`` checks them and returns ``(layout, anchor, rewrite, tables)``:
    the rewrite the packing stores first (or ``None``) and the addresses of the tables it read.
    """

    geometry: Vnchwconv
    locate: Callable[[Core, Vnchwconv, tuple], tuple]
    operands: tuple[str, ...] = ()  # what is read per call binds to nothing (module docstring)

    def bind(self, core: Core, operands) -> PerCallBinding:
        return PerCallBinding(self)


def _locate_tensor_lists(core: Core, geometry: Vnchwconv, values) -> tuple[Layout, int, None, tuple]:
    dst_list, src_list = values[0], values[1]
    for name, tensors in (("dst_list", dst_list), ("src_list", src_list)):
        for i, t in enumerate(tensors):  # their positions and dtypes are part of the plan's key
            if t.core is not core or (t.lease is not None and not t.lease.alive) or t.addr % UB_ALIGN:
                require_ub_tensor(NAME, f"{name}[{i}]", t, core)  # raises what the plan step would
    dst_addrs = np.array([t.addr for t in dst_list], dtype=np.int64)
    src_addrs = np.array([t.addr for t in src_list], dtype=np.int64)
    return (*place(NAME, core, geometry, dst_addrs, src_addrs, (dst_list, src_list)), None, ())


def _locate_address_tensors(core: Core, geometry: Vnchwconv, values) -> tuple[Layout, int, tuple, tuple]:
    dst, src = values[0], values[1]
    dst_list, src_list, rewrite = _packed_lists(core, dst, src)
    return (*place(NAME, core, geometry, dst_list, src_list), rewrite, (dst.addr, src.addr))


# ------------------------------------------------------------ execution
class Transposition:
    """A checked transpose at its addresses on one core: the binding of the list forms.

    It moves ``D[e][k] = S[k][e]`` (docs/semantics.md §4.2, per element size) in one of two ways,
    chosen by the layout:

    * ``views``: when both address lists step evenly (the seed's NCHW -> NC1HWC0 recipe:
      channel planes in, consecutive blocks out) and no destination element is written
      twice, the reads and the writes are two strided views of UB and a call is one
      assignment (numpy copies the source first when the views overlap, so every
      source is read before any write, as the in-place form requires);
    * otherwise the elements are gathered by index in destination order and scattered,
      in issue order (a destination written twice keeps its last value).

    The never-written-source check and the written-shadow update run once per shadow epoch
    (``Memory.shadow_epoch``).  Every source is read before anything is written.
    """

    registers_read: tuple[str, ...] = ()
    registers_written: tuple[str, ...] = ()

    def __init__(self, instruction: str, layout: Layout, anchor: int, core: Core,
                 tensors: tuple[tuple[int, int], ...] = (), sync: bool = False, views: bool = True) -> None:
        self.instruction, self.layout, self.anchor, self.tensors, self.sync = instruction, layout, anchor, tensors, sync
        self.views = _views(core.ub, layout, anchor) if views and layout.views is not None else None
        self.src_seen_written = self.dst_seen_written = NEVER

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return self._moved(self.layout.spans[0])

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        return self._moved(self.layout.spans[1])

    def _moved(self, spans) -> tuple[ByteRange, ...]:
        return tuple(ByteRange("UB", start + self.anchor, stop + self.anchor) for start, stop in spans)

    @cached_attribute
    def src_index(self) -> np.ndarray:
        """Element index of every source element read."""
        return self.layout.src_index + self.anchor // self.layout.raw.itemsize

    @cached_attribute
    def dst_index(self) -> np.ndarray:
        """Element index of every destination element, in issue order."""
        return self.layout.dst_index + self.anchor // self.layout.raw.itemsize

    @cached_attribute
    def src_for_dst(self) -> np.ndarray:
        """For each destination element (issue order), the element index of its source."""
        return self.layout.src_for_dst + self.anchor // self.layout.raw.itemsize

    def run(self, core: Core, values: tuple) -> None:
        if self.tensors:
            _check_listed_tensors(self.instruction, core, values, self.tensors)
        ub = core.ub
        if self.views is not None and self.src_seen_written == ub.shadow_epoch:
            self._commit_views(ub)  # what execute does here, one call shorter
        else:
            self.execute(ub)
        if self.sync:
            core.sync_log.append(SyncRecord("pipe_barrier", int(PipeID.PIPE_ALL), 0))

    def execute(self, ub, rewrite: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """Read every source element, then write every destination element (docs/semantics.md §4.2);
        ``rewrite``: address-tensor entries ``(uint64 element indices, words)`` stored first."""
        if self.src_seen_written != ub.shadow_epoch:
            self._check_sources(ub)
        if self.views is not None:
            self._commit_views(ub)
            return
        values = ub.data.view(self.layout.raw)[self.src_for_dst] if self.layout.src.size else None
        if rewrite is not None and values is not None:
            self._read_rewritten_entries(values, rewrite)
        self._commit(ub, values, rewrite)

    def _commit_views(self, ub) -> None:
        """The view layout: the copy is one numpy assignment (reading every source first), then the shadow."""
        views = self.views
        views[0][...] = views[1]
        if self.dst_seen_written != ub.shadow_epoch:
            views[2][...] = ALL_WRITTEN[self.layout.raw.itemsize]
            self.dst_seen_written = ub.shadow_epoch

    def _commit(self, ub, values: np.ndarray | None, rewrite) -> None:
        """The indexed layout: the rewritten address-tensor entries (if any), then the destination elements."""
        if rewrite is not None:
            ub.scatter(*rewrite)
        if values is None:
            return
        if self.dst_seen_written == ub.shadow_epoch:
            ub.data.view(self.layout.raw)[self.dst_index] = values
        else:
            ub.scatter(self.dst_index, values)
            self.dst_seen_written = ub.shadow_epoch

    def _read_rewritten_entries(self, values: np.ndarray, rewrite) -> None:
        """Sources that lie in a rewritten address-tensor entry read the packed word (it is stored first)."""
        itemsize = self.layout.raw.itemsize
        source_bytes = self.src_for_dst * itemsize
        for index, word in zip(*rewrite, strict=True):
            start = int(index) * 8
            inside = (source_bytes >= start) & (source_bytes < start + 8)
            if inside.any():
                parts = np.array([word], dtype="<u8").view(self.layout.raw)
                values[inside] = parts[(source_bytes[inside] - start) // itemsize]

    def _check_sources(self, ub) -> None:
        """Report the first never-written source byte; remembered until the shadow epoch changes."""
        if ub.uninit == "ignore" or self.layout.src.size == 0:
            return
        itemsize = self.layout.raw.itemsize
        if self.views is None or not (self.views[3] == ALL_WRITTEN[itemsize]).all():
            ub.check_initialized(self.instruction, "src", self.src_index, itemsize)
        self.src_seen_written = ub.shadow_epoch


def _views(ub, layout: Layout, anchor: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``(dst, src, dst shadow, src shadow)`` over ``ub`` at ``anchor``, ``None`` if not representable."""
    shape, d_off, d_strides, s_off, s_strides = layout.views
    raw = layout.raw
    shadow = np.dtype(f"<u{raw.itemsize}")
    try:
        return (np.ndarray(shape, raw, ub.data, anchor + d_off, d_strides),
                np.ndarray(shape, raw, ub.data, anchor + s_off, s_strides),
                np.ndarray(shape, shadow, ub.written, anchor + d_off, d_strides),
                np.ndarray(shape, shadow, ub.written, anchor + s_off, s_strides))
    except ValueError:  # not representable over the buffer: index the elements instead
        return None


def _check_listed_tensors(instruction: str, core: Core, values: tuple, tensors) -> None:
    """The C API's LocalTensor entries are still allocated and on this core, in the plan step's order."""
    for at, i in tensors:
        tensor = values[at][i]
        if tensor.core is not core or (tensor.lease is not None and not tensor.lease.alive):
            for at_, i_ in tensors:
                values[at_][i_].check_usable(instruction, f"{('dst', 'src')[at_]}[{i_}]", core)


class PerCallBinding:
    """A :class:`PerCallPlan` on one core: each call locates the transpose (address tensors: reads,
    checks and packs the two tables), runs it, and stores the packed entries with its results."""

    registers_read: tuple[str, ...] = ()
    registers_written: tuple[str, ...] = ()
    ranges_after_run = True  # the address tables are read by the call itself

    def __init__(self, plan: PerCallPlan) -> None:
        self.plan = plan
        self.last: tuple[Transposition, tuple | None, tuple] | None = None  # what the last call touched

    def run(self, core: Core, values: tuple) -> None:
        layout, anchor, rewrite, tables = self.plan.locate(core, self.plan.geometry, values)
        moved = Transposition(NAME, layout, anchor, core, views=rewrite is None)  # a rewrite may lie among the sources
        moved.execute(core.ub, rewrite)
        self.last = (moved, rewrite, tables)

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        """What the last call read (its sources and the tables) and wrote (its destination, the packed entries)."""
        moved, rewrite, tables = self.last
        read = [ByteRange("UB", at, at + TABLE_BYTES) for at in tables]
        packed = [ByteRange("UB", 8 * int(i), 8 * int(i) + 8) for i in (rewrite[0] if rewrite is not None else ())]
        return merge_ranges((*moved.reads, *read)), merge_ranges((*moved.writes, *packed))

    @property
    def reads(self) -> tuple[ByteRange, ...]:
        return self.ranges(())[0]

    @property
    def writes(self) -> tuple[ByteRange, ...]:
        return self.ranges(())[1]


# ------------------------------------------------------------ registration
_EXAMPLES = (
    # TransDataTo5HD.md 调用示例, int8 (dst/src high halves): 16 UB addresses from GetPhyAddr
    "src = asc.LocalTensor(asc.int8, asc.TPosition.VECIN, 0, 512)\n"
    "dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 0x1000, 512)\n"
    "src.write([v % 128 for v in range(512)])\n"
    "dst.write([0] * 512)\n"
    "asc.trans_data_to_5hd([dst.get_phy_addr(32 * i) for i in range(16)], [src.get_phy_addr(32 * i) for i in "
    "range(16)], asc.TransDataTo5HDParams(True, True, 1, 0, 0), dtype=asc.int8)",
    # TransDataTo5HD.md 调用示例, half: 16 LocalTensors each
    "src = asc.LocalTensor(asc.half, asc.TPosition.VECIN, 0, 256)\n"
    "dst = asc.LocalTensor(asc.half, asc.TPosition.VECOUT, 0x1000, 256)\n"
    "src.write(list(range(256)))\n"
    "asc.trans_data_to_5hd([dst[16 * i:] for i in range(16)], [src[16 * i:] for i in range(16)], "
    "asc.TransDataTo5HDParams())",
    # TransDataTo5HD.md 调用示例, int32: the lists in two LocalTensor<uint64_t>
    "src = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 128)\n"
    "dst = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0x1000, 128)\n"
    "src.write(list(range(128)))\n"
    "dst_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x2000, 16)\n"
    "src_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x2080, 16)\n"
    "dst_addrs.write([dst.get_phy_addr(8 * i) for i in range(16)])\n"
    "src_addrs.write([src.get_phy_addr(8 * i) for i in range(16)])\n"
    "asc.trans_data_to_5hd(dst_addrs, src_addrs, asc.TransDataTo5HDParams(), dtype=asc.int32)",
    # float32, two repeats: D[2e + h][k] = S[8h + k][e]
    "asc.trans_data_to_5hd([0x4000 + 32 * i for i in range(16)], [0x100 * i for i in range(16)], "
    "asc.TransDataTo5HDParams(False, False, 2, 16, 1), dtype=asc.float32)",
    # uint8 tensor lists: low source halves into high destination halves, blocks in no order
    "src = [asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 64 * ((5 * i) % 16), 64) for i in range(16)]\n"
    "dst = [asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 0x2000 + 32 * i, 32) for i in range(16)]\n"
    "asc.trans_data_to_5hd(dst, src, asc.TransDataTo5HDParams(True, False, 1, 0, 0))",
    # int8 address tensors: high source halves into low destination halves
    "dst_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x3000, 16)\n"
    "src_addrs = asc.LocalTensor(asc.uint64, asc.TPosition.VECIN, 0x3080, 16)\n"
    "dst_addrs.write([0x1000 + 32 * i for i in range(16)])\n"
    "src_addrs.write([32 * i for i in range(16)])\n"
    "asc.trans_data_to_5hd(dst_addrs, src_addrs, asc.TransDataTo5HDParams(False, True, 1, 0, 0), dtype=asc.int8)",
)
_DOC = (
    "A 16-DataBlock scatter-transpose (TransDataTo5HD.md), in its three call forms: 16 LocalTensors "
    "each, 16 UB byte addresses each (``dtype=`` the C++ template argument T), or two "
    "``LocalTensor<uint64_t>`` holding them.\n\n"
    "``params`` is an :class:`~npusim.ascend.types.TransDataTo5HDParams`; its high-half flags must be "
    "``False`` unless T is int8/uint8.  The uint64-tensor form does what the NPU build does: it rewrites "
    "entries 0-3 of both tensors in place with the packed VA-register words (four 16-bit DataBlock "
    "numbers ``(addr >> 5) & 0x1fff`` each) and the instruction reads its lists from those words, so "
    "refill the tensors before a second call.  Not available on the Atlas training series (910)."
)

trans_data_to_5hd = register(Instruction(
    NAME, "ascend", "layout", "V", TRANS_DATA_TO_5HD_FORMS, _compile, pages.TRANS_DATA_TO_5HD,
    support=lambda chip: chip.transdata_dtypes or None, exactness=BIT_EXACT,
    summary="16 DataBlocks transposed into 16 (NCHW -> NC1HWC0): D[e][k] = S[k][e] per repeat",
    examples=_EXAMPLES, fast_context=lambda core: (), doc=_DOC,
))


def _register_c_api(bits: int, sync: bool):
    name = f"asc_transto5hd_b{bits}" + ("_sync" if sync else "")
    halves = ", True, False" if bits == 8 else ""
    example = (f"asc.{name}([0x4000 + 32 * i for i in range(16)], [0x200 * i for i in range(16)], 2, 16, 1"
               f"{halves})")
    registers = ("for n, base in ((0, 0x4000), (2, 0)):\n"
                 "    asc.asc_set_va_reg(asc.VaReg(n), [base + 0x200 * i for i in range(8)])\n"
                 "    asc.asc_set_va_reg(asc.VaReg(n + 1), [base + 0x200 * i for i in range(8, 16)])\n"
                 f"asc.{name}(asc.VA0, asc.VA2, 1, 0, 0{halves})")
    doc = (f"``scatter_vnchwconv_b{bits}`` (asc_transto5hd.md).  ``dst`` / ``src`` are VA registers "
           "(``asc.VA0`` .. ``asc.VA6``: ``VAn`` and ``VA(n+1)`` hold the 16 addresses, as ``asc_set_va_reg`` "
           "loaded them, docs/semantics.md §5.25), or the 16 UB byte addresses (or 16 LocalTensors) such a "
           "pair would hold.  Strides are in DataBlocks; with ``repeat == 1`` "
           "the start is already offset by one stride (docs/semantics.md §4.3)."
           + ("  Followed by ``pipe_barrier(PIPE_ALL)``." if sync else ""))
    return register(Instruction(
        name, "ascend", "layout", "V", _C_API_FORMS[bits],
        lambda core, form, values: _compile_c_api(name, bits, sync, core, values), C_API_SOURCE,
        support=lambda chip: (frozenset(d for d in chip.transdata_dtypes if DTYPES[d].bits == bits) or None)
        if has_transto5hd_c_api(chip) else None,
        exactness=BIT_EXACT,
        summary=f"TransDataTo5HD of {bits}-bit data from two VA register pairs or address lists (C API)",
        examples=(example, registers), examples_on={"950": (example, registers)},  # the 950's too (§5.31)
        relative=False, plan_context=lambda core, form, values: va_context(core),
        fast_context=va_context, alias_of=NAME, doc=doc,
    ))


asc_transto5hd_b8 = _register_c_api(8, sync=False)
asc_transto5hd_b8_sync = _register_c_api(8, sync=True)
asc_transto5hd_b16 = _register_c_api(16, sync=False)
asc_transto5hd_b16_sync = _register_c_api(16, sync=True)
asc_transto5hd_b32 = _register_c_api(32, sync=False)
asc_transto5hd_b32_sync = _register_c_api(32, sync=True)
