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
  no-op (parameters are still checked).
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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import OutOfBoundsError, ParameterRangeError
from ...lazy import cached_attribute
from ...overloads import Form, Param, bind_values
from ...sources import semantics
from ...validate import describe_type, is_list_like, require_aligned, require_bool, require_uint
from .. import pages
from ..addressing import BLOCK_BYTES
from ..chips import unsupported_on
from ..core import Core, active_core, current_core
from ..footprint import Footprint, check_overlap
from ..operands import ALL_WRITTEN, NEVER
from ..plans import find_plan, keep_plan, require_usable, value_key
from ..tensor import LocalTensor
from ..types import TransDataTo5HDParams
from .common import ALIGN_SOURCE, UB_ALIGN, require_dtype, require_ub_tensor

__all__ = ["ADDR_LIST_SIZE", "TRANS_DATA_TO_5HD_FORMS", "trans_data_to_5hd", "vnchwconv"]

ADDR_LIST_SIZE = 16  # NCHW_CONV_ADDR_LIST_SIZE
HALF_BLOCK_BYTES = BLOCK_BYTES // 2
SOURCE = f"{pages.TRANS_DATA_TO_5HD} 参数说明; {semantics('4.1')}"
C_API_SOURCE = f"{pages.C_API}/asc_transto5hd.md 参数说明; {semantics('4.1')}"
DTYPE_SOURCE = f"{pages.TRANS_DATA_TO_5HD} 数据类型; {semantics('4.4')}"
VA_WORDS = 4  # VA_REG_ARRAY_LEN / HALF_FACTOR: entries packed per address tensor
VA_FIELD_BITS = 16  # one DataBlock number per 16-bit field of a VA word
VA_BLOCK_MASK = 0x1FFF  # vaMask: 13 bits of DataBlock number
# the packing of the NPU build of kernel_operator_vec_transpose_intf_impl.h, described in semantics.md §4.1
PACKING_SOURCE = f"{pages.TRANS_DATA_TO_5HD} 参数说明; {semantics('4.1')}"
REUSE_HINT = ("; entries 0-3 of an address tensor are rewritten in place by every call (packed DataBlock numbers), "
              "so refill the tensor before using it again")


def _is_integer(value) -> bool:
    """An int or numpy integer, not a bool (concrete classes: much faster than numbers.Integral)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_list(v) -> bool:
    return isinstance(v, (list, tuple, np.ndarray))


def _is_params(v) -> bool:
    return isinstance(v, TransDataTo5HDParams)


def _is_dtype_or_none(v) -> bool:
    return v is None or isinstance(v, DType)


# Every test depends on the argument's type only (overloads.bind may cache by types); whether a
# list holds LocalTensors or addresses is decided afterwards, by :func:`_list_kind`.
TRANS_DATA_TO_5HD_FORMS = (
    Form("lists", (Param("dst_list", _is_list), Param("src_list", _is_list),
                   Param("params", _is_params), Param("dtype", _is_dtype_or_none, None))),
    Form("addr_tensor", (Param("dst", lambda v: isinstance(v, LocalTensor)),
                         Param("src", lambda v: isinstance(v, LocalTensor)),
                         Param("params", _is_params), Param("dtype", _is_dtype_or_none, None))),
)


def _list_kind(instruction: str, dst_list, src_list) -> str:
    """``"tensor_list"`` (LocalTensors) or ``"addr_list"`` (integer UB addresses)."""
    items = [*dst_list, *src_list]
    if items and all(isinstance(item, LocalTensor) for item in items):
        return "tensor_list"
    if all(_is_integer(item) for item in items):
        return "addr_list"
    raise TypeError(f"{instruction}: dst_list and src_list hold either 16 LocalTensors each or 16 integer UB "
                    f"addresses each, got {sorted({type(i).__name__ for i in items})}")


def trans_data_to_5hd(*args, **kwargs) -> None:
    """``asc.trans_data_to_5hd`` in the three call forms of TransDataTo5HD.md.

    Forms::

        trans_data_to_5hd(dst_list, src_list, params)                  # 16 LocalTensors each
        trans_data_to_5hd(dst_addrs, src_addrs, params, dtype=T)       # 16 UB byte addresses each
        trans_data_to_5hd(dst, src, params, dtype=T)                   # uint64 LocalTensors holding them

    ``params`` is an :class:`~npusim.ascend.types.TransDataTo5HDParams`; its high-half flags
    must be ``False`` unless ``T`` is int8/uint8.  The address forms carry no element type, so
    ``dtype`` (the C++ template argument ``T``) is required there; the LocalTensor form takes
    it from the tensors.

    The uint64-tensor form does what the NPU build does: it rewrites entries 0-3 of both
    tensors in place with the packed VA-register words (four 16-bit DataBlock numbers
    ``(addr >> 5) & 0x1fff`` each) and the instruction reads its lists from those words.
    A second call with the same tensors sees the packed words, not the addresses: refill
    the tensors first (module docstring).  Not available on the Atlas training series (910).
    """
    instruction = "trans_data_to_5hd"
    form, values = bind_values(instruction, TRANS_DATA_TO_5HD_FORMS, args, kwargs)
    core = active_core()
    key = _lists_call_key(instruction, *values) if form.name == "lists" and core is not None else None
    plan = find_plan(core, key) if key is not None else None
    if plan is None:
        plan = _plan_call(instruction, form.name, dict(zip(form.names, values, strict=True)))
        if key is not None:
            keep_plan(core, key, plan)
    elif plan.tensor_operands:
        require_usable(instruction, core, [*values[0], *values[1]], _LISTED_NAMES)
    plan.run(core)


def _plan_call(instruction: str, form: str, bound: dict) -> TransPlan:
    """Check every rule of a call and compile it (nothing is written)."""
    if form == "lists":
        form = _list_kind(instruction, bound["dst_list"], bound["src_list"])
    core = current_core(instruction)
    _require_product(instruction, core)
    params = bound["params"]
    dst_high = require_bool(instruction, "params.dst_high_half", params.dst_high_half)
    src_high = require_bool(instruction, "params.src_high_half", params.src_high_half)
    repeat_times = require_uint(instruction, "params.repeat_times", params.repeat_times, 8, SOURCE)
    dst_stride = require_uint(instruction, "params.dst_rep_stride", params.dst_rep_stride, 16, SOURCE)
    src_stride = require_uint(instruction, "params.src_rep_stride", params.src_rep_stride, 16, SOURCE)

    rewrite = tensors = None
    if form == "tensor_list":
        dtype, dst_addrs, src_addrs, tensors = _from_tensor_lists(instruction, core, bound)
    elif form == "addr_list":
        dtype = _required_dtype(instruction, bound["dtype"])
        dst_addrs = _address_list(instruction, "dst_list", bound["dst_list"], core.ub.size_bytes)
        src_addrs = _address_list(instruction, "src_list", bound["src_list"], core.ub.size_bytes)
    else:
        dtype = _required_dtype(instruction, bound["dtype"])
        if not core.chip.transdata_address_tensor:
            raise unsupported_on(core.chip, instruction, "TransDataTo5HD with the address lists in a "
                                 "LocalTensor<uint64_t>", _has_address_tensor_form,
                                 f"{pages.TRANS_DATA_TO_5HD} 产品支持情况; {semantics('4.1')}")
        dst_addrs, src_addrs, rewrite = _va_lists_from_tensors(instruction, core, bound["dst"], bound["src"])
    _require_low_halves(instruction, dtype, dst_high, src_high)
    return plan_vnchwconv(instruction, core, dtype, dst_addrs, src_addrs, repeat_times, dst_stride, src_stride,
                          dst_high, src_high, tensors, rewrite)


def _has_address_tensor_form(chip) -> bool:
    return bool(chip.transdata_dtypes) and chip.transdata_address_tensor


def _require_low_halves(instruction: str, dtype: DType, dst_high: bool, src_high: bool) -> None:
    """``dstHighHalf`` / ``srcHighHalf`` are for int8_t / uint8_t only (TransDataTo5HD.md 参数说明, 表3)."""
    if dtype.itemsize == 1:
        return
    for flag, value in (("dst_high_half", dst_high), ("src_high_half", src_high)):
        if value:
            raise ParameterRangeError(
                instruction, f"params.{flag}", True, f"the high-half flags select half a DataBlock of int8_t / "
                f"uint8_t data only; {dtype} data has no halves to choose", "False",
                f"{SOURCE} (TransDataTo5HDParams: 该配置只支持int8_t、uint8_t的数据类型)",
            )


def _lists_call_key(instruction: str, dst_list, src_list, params, dtype) -> tuple | None:
    """The plan key of a list-form call (``npusim.ascend.plans``), ``None`` if its lists are not lists."""
    dst_key, src_key = _list_key(dst_list), _list_key(src_list)
    if dst_key is None or src_key is None:
        return None
    return (instruction, dst_key, src_key, value_key(params), dtype.name if type(dtype) is DType else value_key(dtype))


_PLAIN_INTS = {int}


def _list_key(listed) -> tuple | None:
    """A dst/src list's key part: its items with their types (LocalTensors by ``plan_key``), or just
    the items when all are plain ``int`` addresses; ``None`` unless the list is a list or tuple."""
    kind = type(listed)
    if kind is not list and kind is not tuple:
        return None
    items = tuple(listed)
    types = set(map(type, items))
    if types == _PLAIN_INTS:
        return items
    if LocalTensor in types:
        items = tuple(item.plan_key if type(item) is LocalTensor else item for item in items)
    return kind, items, tuple(map(type, listed))


_LISTED_NAMES = [f"{name}[{i}]" for name in ("dst_list", "src_list") for i in range(ADDR_LIST_SIZE)]
_VA_NAMES = [f"{name}[{i}]" for name in ("dst", "src") for i in range(ADDR_LIST_SIZE)]


def vnchwconv(instruction: str, core: Core, dtype: DType, dst_list, src_list, repeat, dst_stride, src_stride,
              dst_high_half=False, src_high_half=False) -> None:
    """The bare ``scatter_vnchwconv_b*`` instruction, as the C API issues it.

    ``dst_list`` / ``src_list`` are what the VA registers hold: 16 UB byte addresses each
    (LocalTensors are accepted and stand for their start addresses).
    """
    dst_key, src_key = _list_key(dst_list), _list_key(src_list)
    key = None
    if dst_key is not None and src_key is not None:
        key = (instruction, dtype.name, dst_key, src_key,
               *map(value_key, (repeat, dst_stride, src_stride, dst_high_half, src_high_half)))
    plan = find_plan(core, key) if key is not None else None
    if plan is None:
        plan = _plan_vnchwconv_call(instruction, core, dtype, dst_list, src_list, repeat, dst_stride, src_stride,
                                    dst_high_half, src_high_half)
        if key is not None:
            keep_plan(core, key, plan)
    elif plan.tensor_operands:  # a kept plan's lists hold 16 entries each (their items are in its key)
        require_usable(instruction, core, [*dst_list, *src_list], _VA_NAMES)
    plan.run(core)


def _plan_vnchwconv_call(instruction: str, core: Core, dtype: DType, dst_list, src_list, repeat, dst_stride,
                         src_stride, dst_high_half, src_high_half) -> TransPlan:
    _require_product(instruction, core)
    dst_addrs = _address_list(instruction, "dst", _as_addresses(instruction, dst_list), core.ub.size_bytes)
    src_addrs = _address_list(instruction, "src", _as_addresses(instruction, src_list), core.ub.size_bytes)
    repeat = require_uint(instruction, "repeat", repeat, 8, C_API_SOURCE)
    dst_stride = require_uint(instruction, "dst_stride", dst_stride, 16, C_API_SOURCE)
    src_stride = require_uint(instruction, "src_stride", src_stride, 16, C_API_SOURCE)
    dst_high = require_bool(instruction, "dst_high_half", dst_high_half)
    src_high = require_bool(instruction, "src_high_half", src_high_half)
    tensors = False
    for name, listed in (("dst", dst_list), ("src", src_list)):
        for i, item in enumerate(listed):
            if isinstance(item, LocalTensor):
                item.check_usable(instruction, f"{name}[{i}]", core)
                tensors = True
    plan = plan_vnchwconv(instruction, core, dtype, dst_addrs, src_addrs, repeat, dst_stride, src_stride,
                          dst_high, src_high, None)
    plan.tensor_operands = tensors
    return plan


# ----------------------------------------------------------------- operands
def _require_product(instruction: str, core: Core) -> None:
    if not core.chip.transdata_dtypes:
        raise unsupported_on(core.chip, instruction, "TransDataTo5HD", lambda c: bool(c.transdata_dtypes),
                             f"{pages.TRANS_DATA_TO_5HD} 产品支持情况; {semantics('4.4')}")


def _as_addresses(instruction: str, listed) -> list:
    if not is_list_like(listed):
        raise TypeError(f"{instruction}: an address list is 16 UB addresses or LocalTensors, "
                        f"got {describe_type(listed)}")
    return [item.addr if isinstance(item, LocalTensor) else item for item in listed]


def _required_dtype(instruction: str, dtype) -> DType:
    if dtype is None:
        raise TypeError(f"{instruction}: the address forms carry no element type; pass dtype=asc.<type> "
                        "(the C++ template argument T)")
    return dtype


def _address_list(instruction: str, name: str, values, ub_bytes: int) -> np.ndarray:
    """16 UB byte addresses as an int64 array (alignment is checked in the plan)."""
    if len(values) != ADDR_LIST_SIZE:
        raise ParameterRangeError(instruction, f"{name} length", len(values),
                                  "the address list has NCHW_CONV_ADDR_LIST_SIZE entries", "16", SOURCE)
    addresses = []
    for i, value in enumerate(values):
        if not _is_integer(value):
            raise TypeError(f"{instruction}: {name}[{i}] must be an integer UB address, got {type(value).__name__}")
        if not 0 <= int(value) < ub_bytes:
            raise OutOfBoundsError(instruction, f"{name}[{i}] address", int(value),
                                   "the DataBlock address lies outside UB", f"[0x0, {ub_bytes:#x})", SOURCE)
        addresses.append(int(value))
    return np.array(addresses, dtype=np.int64)


def _from_tensor_lists(instruction: str, core: Core, bound: dict):
    lists = {}
    for name in ("dst_list", "src_list"):
        tensors = list(bound[name])
        if len(tensors) != ADDR_LIST_SIZE:
            raise ParameterRangeError(instruction, f"{name} length", len(tensors),
                                      "the tensor list has NCHW_CONV_ADDR_LIST_SIZE entries", "16", SOURCE)
        lists[name] = [require_ub_tensor(instruction, f"{name}[{i}]", t, core) for i, t in enumerate(tensors)]
    dtype = lists["dst_list"][0].dtype
    for name, tensors in lists.items():
        for i, tensor in enumerate(tensors):
            if tensor.dtype != dtype:
                raise TypeError(f"{instruction}: every tensor of dst_list and src_list must have one dtype; "
                                f"{name}[{i}] is {tensor.dtype}, dst_list[0] is {dtype}")
    if bound["dtype"] is not None and bound["dtype"] != dtype:
        raise TypeError(f"{instruction}: dtype={bound['dtype']} contradicts the tensors' dtype {dtype}")
    dst_addrs = np.array([t.addr for t in lists["dst_list"]], dtype=np.int64)
    src_addrs = np.array([t.addr for t in lists["src_list"]], dtype=np.int64)
    return dtype, dst_addrs, src_addrs, (lists["dst_list"], lists["src_list"])


def _address_tensor(instruction: str, core: Core, name: str, tensor: LocalTensor) -> LocalTensor:
    """A LocalTensor<uint64_t> holding 16 written UB addresses (TransDataTo5HD.md 函数原型, second form)."""
    tensor = require_ub_tensor(instruction, name, tensor, core)
    require_dtype(instruction, name, tensor.dtype, frozenset({"uint64"}),
                  "the address tensor holds uint64_t addresses (LocalTensor<uint64_t>)", SOURCE)
    nbytes = ADDR_LIST_SIZE * 8
    tensor.check_span(instruction, f"{name} (address list)", tensor.addr, tensor.addr + nbytes)
    core.ub.check_initialized_span(instruction, f"{name} (address list)", tensor.addr, tensor.addr + nbytes)
    return tensor


def _va_lists_from_tensors(instruction: str, core: Core, dst: LocalTensor, src: LocalTensor):
    """The NPU build's packing of two address tensors (module docstring), without writing anything.

    Returns the dst and src lists the instruction then reads (16 UB byte addresses each) and the
    rewrite: ``(uint64 element indices, words)`` of the entries the packing leaves in UB.
    """
    dst = _address_tensor(instruction, core, "dst", dst)
    src = _address_tensor(instruction, core, "src", src)
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
                _require_stored_address(instruction, f"{name}[{k}]", address, ub.size_bytes, packed=k < VA_WORDS)
                word |= ((address >> 5) & VA_BLOCK_MASK) << (VA_FIELD_BITS * j)
            rewritten[tensor.addr + 8 * i] = word

    def va_list(tensor: LocalTensor) -> np.ndarray:  # vld_va_reg: 16 fields from entries 0-3, in DataBlocks
        fields = [(entry(tensor, i) >> (VA_FIELD_BITS * j)) & 0xFFFF for i in range(VA_WORDS) for j in range(VA_WORDS)]
        return np.array(fields, dtype=np.int64) * BLOCK_BYTES

    rewrite = (np.array(list(rewritten), dtype=np.int64) // 8, np.array(list(rewritten.values()), dtype="<u8"))
    return va_list(dst), va_list(src), rewrite


def _require_stored_address(instruction: str, operand: str, address: int, ub_bytes: int, packed: bool) -> None:
    """An address tensor entry the packing reads is a 32-byte aligned UB address (TransDataTo5HD.md 参数说明: the tensor
    holds LocalTensor addresses, whose start must be 32-byte aligned).  ``packed``: one of the entries
    every call rewrites, so the message says why it may hold something else."""
    if address >= ub_bytes:
        raise OutOfBoundsError(instruction, f"{operand} address", address,
                               "the stored address lies outside UB" + (REUSE_HINT if packed else ""),
                               f"[0x0, {ub_bytes:#x})", f"{SOURCE}; {PACKING_SOURCE}")
    require_aligned(instruction, operand, address, UB_ALIGN, "UB", ALIGN_SOURCE)


# ------------------------------------------------------------------ planning
def plan_vnchwconv(instruction: str, core: Core, dtype: DType, dst_list: np.ndarray, src_list: np.ndarray,
                   repeat_times: int, dst_stride: int, src_stride: int, dst_high: bool, src_high: bool,
                   tensors: tuple[list[LocalTensor], list[LocalTensor]] | None,
                   rewrite: tuple[np.ndarray, np.ndarray] | None = None) -> TransPlan:
    """Check every rule and compute the element addresses of all reads and writes.

    ``rewrite``: address-tensor entries the call stores before the instruction runs
    (:func:`_va_lists_from_tensors`), as ``(uint64 element indices, words)``.
    """
    _require_product(instruction, core)
    require_dtype(instruction, "T", dtype, core.chip.transdata_dtypes,
                  f"TransDataTo5HD does not support this type on {core.chip.name}", DTYPE_SOURCE)
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

    src_addrs, dst_addrs = _element_addresses(dtype.itemsize, dst_list, src_list, repeat_times, dst_stride,
                                              src_stride, dst_high, src_high)
    _check_bounds(instruction, core, "dst", dst_addrs, dtype.itemsize, tensors[0] if tensors else None)
    _check_bounds(instruction, core, "src", src_addrs, dtype.itemsize, tensors[1] if tensors else None)
    check_overlap(instruction, _footprint("dst", dst_addrs, dtype.itemsize),
                  _footprint("src", src_addrs, dtype.itemsize))
    plan = TransPlan(instruction, dtype, src_addrs, dst_addrs, tensors is not None, rewrite=rewrite)
    if rewrite is None:  # the rewritten entries may lie among the sources: the indexed path patches them
        plan.geometry = _view_geometry(core.ub, dtype.raw, plan, dst_list, src_list, repeat_times, dst_stride,
                                       src_stride)
    return plan.bind(core)


def repeat_offsets_blocks(repeat_times: int, rep_stride: int) -> np.ndarray:
    """``off(r)`` in DataBlocks for every repeat: ``stride`` when ``repeat_times == 1``, else ``r * stride``."""
    if repeat_times == 1:
        return np.array([rep_stride], dtype=np.int64)
    return np.arange(repeat_times, dtype=np.int64) * rep_stride


def _element_addresses(itemsize: int, dst_list: np.ndarray, src_list: np.ndarray, repeat_times: int,
                       dst_stride: int, src_stride: int, dst_high: bool, src_high: bool):
    """Byte address of every element read and written, each shaped ``(repeats, 16, n)``
    (docs/semantics.md §4.2, §4.3)."""
    src_base = src_list[None, :] + repeat_offsets_blocks(repeat_times, src_stride)[:, None] * BLOCK_BYTES
    dst_base = dst_list[None, :] + repeat_offsets_blocks(repeat_times, dst_stride)[:, None] * BLOCK_BYTES
    if itemsize == 1:
        span = np.arange(HALF_BLOCK_BYTES, dtype=np.int64)
        src = src_base[:, :, None] + HALF_BLOCK_BYTES * int(src_high) + span
        dst = dst_base[:, :, None] + HALF_BLOCK_BYTES * int(dst_high) + span
    else:
        span = np.arange(BLOCK_BYTES // itemsize, dtype=np.int64) * itemsize
        src = src_base[:, :, None] + span
        dst = dst_base[:, :, None] + span
    return src, dst


def _check_bounds(instruction: str, core: Core, operand: str, addrs: np.ndarray, itemsize: int,
                  tensors: list[LocalTensor] | None) -> None:
    if addrs.size == 0:
        return
    lo = addrs.min(axis=(0, 2))
    hi = addrs.max(axis=(0, 2)) + itemsize
    block = int(np.argmax(hi))
    core.ub.check_span(instruction, f"{operand}_list[{block}]", int(lo[block]), int(hi[block]))
    if tensors is None:
        return
    starts = np.array([t.addr for t in tensors], dtype=np.int64)
    ends = np.array([t.end for t in tensors], dtype=np.int64)
    outside = (lo < starts) | (hi > ends)
    if outside.any():
        i = int(np.argmax(outside))
        tensors[i].check_span(instruction, f"{operand}_list[{i}]", int(lo[i]), int(hi[i]))


def _footprint(name: str, addrs: np.ndarray, itemsize: int) -> Footprint:
    repeats = np.broadcast_to(np.arange(addrs.shape[0], dtype=np.int64)[:, None, None], addrs.shape)
    return Footprint(name, addrs.reshape(-1), repeats.reshape(-1), itemsize)


# ----------------------------------------------------------------- execution
@dataclass
class TransPlan:
    """A checked call, compiled; cached per core and re-run.

    ``src_addrs`` and ``dst_addrs`` hold the byte address of every element read and
    written, shape ``(repeats, 16, n)``: repeat, block of the list, element inside the
    (half-)block.  ``run`` moves ``D[e][k] = S[k][e]`` (docs/semantics.md §4.2, per element size) in one
    of two ways, chosen when the plan is compiled:

    * ``views``: when both address lists step evenly (the seed's NCHW -> NC1HWC0 recipe:
      channel planes in, consecutive blocks out) and no destination element is written
      twice, the reads and the writes are two strided views of UB and a call is one
      ``np.copyto`` (numpy copies the source first when the views overlap, so every
      source is read before any write, as the in-place form requires);
    * otherwise the elements are gathered by index in destination order and scattered,
      in issue order (a destination written twice keeps its last value).

    The uninitialised-read check and the written-shadow update run once per shadow epoch
    (``Memory.shadow_epoch``).  Every source is read before anything is written: the view
    copy is one numpy assignment, and the indexed path gathers all values first and then
    commits the address-tensor ``rewrite`` (if any) and the destination elements.

    The plan is portable (``npusim.ascend.plans``): everything but ``views`` is addresses
    and geometry, and :meth:`bind` makes the views over a core's memory.
    """

    instruction: str
    dtype: DType
    src_addrs: np.ndarray
    dst_addrs: np.ndarray
    tensor_operands: bool  # the call names LocalTensors (checked per call: still usable, same core)
    geometry: tuple | None = None  # the two views as (shape, dst offset, dst strides, src offset, src strides)
    views: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None  # dst, src, dst shadow, src shadow
    src_seen_written: int = NEVER
    dst_seen_written: int = NEVER
    rewrite: tuple[np.ndarray, np.ndarray] | None = None  # address-tensor entries stored first (indices, words)

    def bind(self, core: Core | None) -> TransPlan:
        """This plan with its views over ``core``'s memory (``None``: without views, as a template)."""
        plan = TransPlan(self.instruction, self.dtype, self.src_addrs, self.dst_addrs, self.tensor_operands,
                         self.geometry, rewrite=self.rewrite)
        if core is not None and self.geometry is not None:
            plan.views = _views(core.ub, self.dtype.raw, *self.geometry)
        return plan

    def run(self, core: Core) -> None:
        """Read every source element, then write every destination element (docs/semantics.md §4.2)."""
        ub = core.ub
        if self.src_seen_written != ub.shadow_epoch:
            self._check_sources(ub)
        if self.views is not None:
            self._commit_views(ub)
            return
        values = ub.data.view(self.dtype.raw)[self.src_for_dst] if self.src_addrs.size else None
        if self.rewrite is not None and values is not None:
            self._read_rewritten_entries(values)
        self._commit(ub, values)

    def _commit_views(self, ub) -> None:
        """The view layout: the copy is one numpy assignment (reading every source first), then the shadow."""
        views = self.views
        views[0][...] = views[1]
        if self.dst_seen_written != ub.shadow_epoch:
            views[2][...] = ALL_WRITTEN[self.dtype.itemsize]
            self.dst_seen_written = ub.shadow_epoch

    def _commit(self, ub, values: np.ndarray | None) -> None:
        """The indexed layout: the rewritten address-tensor entries (if any), then the destination elements."""
        if self.rewrite is not None:
            ub.scatter(*self.rewrite)
        if values is None:
            return
        if self.dst_seen_written == ub.shadow_epoch:
            ub.data.view(self.dtype.raw)[self.dst_index] = values
        else:
            ub.scatter(self.dst_index, values)
            self.dst_seen_written = ub.shadow_epoch

    def _read_rewritten_entries(self, values: np.ndarray) -> None:
        """Sources that lie in a rewritten address-tensor entry read the packed word (it is stored first)."""
        itemsize = self.dtype.itemsize
        source_bytes = self.src_for_dst * itemsize
        for index, word in zip(*self.rewrite, strict=True):
            start = int(index) * 8
            inside = (source_bytes >= start) & (source_bytes < start + 8)
            if inside.any():
                parts = np.array([word], dtype="<u8").view(self.dtype.raw)
                values[inside] = parts[(source_bytes[inside] - start) // itemsize]

    def _check_sources(self, ub) -> None:
        """Report the first never-written source byte; remembered until the shadow epoch changes."""
        if ub.uninit == "ignore" or self.src_addrs.size == 0:
            return
        itemsize = self.dtype.itemsize
        if self.views is None or not (self.views[3] == ALL_WRITTEN[itemsize]).all():
            ub.check_initialized(self.instruction, "src", self.src_index, itemsize)
        self.src_seen_written = ub.shadow_epoch

    @cached_attribute
    def src_index(self) -> np.ndarray:
        """Element index of every source element read, ``(repeats, 16, n)`` flattened."""
        return (self.src_addrs // self.dtype.itemsize).reshape(-1)

    @cached_attribute
    def dst_index(self) -> np.ndarray:
        """Element index of every destination element, in issue order."""
        return (self.dst_addrs // self.dtype.itemsize).reshape(-1)

    @cached_attribute
    def src_for_dst(self) -> np.ndarray:
        """For each destination element (issue order), the element index of its source."""
        src = self.src_addrs // self.dtype.itemsize  # (repeats, block k, element e)
        repeats = src.shape[0]
        if self.dtype.itemsize == 4:
            # D[2e + h][k] = S[8h + k][e]: split sources into halves h, then order (e, h, k).
            out = src.reshape(repeats, 2, 8, 8).transpose(0, 3, 1, 2).reshape(repeats, 16, 8)
        else:
            out = src.transpose(0, 2, 1)  # b16: D[e][k] = S[k][e]; b8: the same on half-blocks
        return np.ascontiguousarray(out).reshape(-1)


def _even_step(addresses: np.ndarray) -> int | None:
    """The common difference of the 16 addresses, ``None`` if they do not step evenly."""
    step = int(addresses[1] - addresses[0])
    return step if np.array_equal(addresses, addresses[0] + step * np.arange(ADDR_LIST_SIZE)) else None


def _view_geometry(ub, raw: np.dtype, plan: TransPlan, dst_list: np.ndarray, src_list: np.ndarray,
                   repeat_times: int, dst_stride: int, src_stride: int) -> tuple | None:
    """``(shape, dst offset, dst strides, src offset, src strides)`` of two views of UB such that
    ``dst[...] = src`` is the call, or ``None`` when the call is not two strided views.

    Indices of both views are ``(r, e, k)`` (b32: ``(r, e, h, k)``) for ``D[e][k] = S[k][e]``
    (b32: ``D[2e + h][k] = S[8h + k][e]``), with the repeat offsets of docs/semantics.md §4.3.
    """
    d_step, s_step = _even_step(dst_list), _even_step(src_list)
    if d_step is None or s_step is None or repeat_times == 0:
        return None
    ordered = np.sort(plan.dst_addrs, axis=None)
    if (ordered[1:] == ordered[:-1]).any():
        return None  # a destination element written twice: the last write must win
    size = raw.itemsize
    d_rep = dst_stride * BLOCK_BYTES if repeat_times > 1 else 0
    s_rep = src_stride * BLOCK_BYTES if repeat_times > 1 else 0
    d_base = int(plan.dst_addrs[0, 0, 0])  # repeat 0 (offset by one stride when repeat_times == 1), block 0
    s_base = int(plan.src_addrs[0, 0, 0])
    if size == 4:
        shape = (repeat_times, 8, 2, 8)
        d_strides, s_strides = (d_rep, 2 * d_step, d_step, size), (s_rep, size, 8 * s_step, s_step)
    else:
        shape = (repeat_times, 16, BLOCK_BYTES // max(size, 2))
        d_strides, s_strides = (d_rep, d_step, size), (s_rep, size, s_step)
    geometry = (shape, d_base, d_strides, s_base, s_strides)
    try:
        _views(ub, raw, *geometry)
    except ValueError:  # not representable over the buffer: index the elements instead
        return None
    return geometry


def _views(ub, raw: np.dtype, shape: tuple, d_base: int, d_strides: tuple, s_base: int,
           s_strides: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(dst, src, dst shadow, src shadow)`` over ``ub`` (see :func:`_view_geometry`)."""
    shadow = np.dtype(f"<u{raw.itemsize}")
    return (np.ndarray(shape, raw, ub.data, d_base, d_strides), np.ndarray(shape, raw, ub.data, s_base, s_strides),
            np.ndarray(shape, shadow, ub.written, d_base, d_strides),
            np.ndarray(shape, shadow, ub.written, s_base, s_strides))
