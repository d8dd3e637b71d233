"""``TransDataTo5HD`` (``scatter_vnchwconv_b8/b16/b32``): a 16-DataBlock scatter-transpose.

Semantics (seed 002; ref §4):

* One repeat reads 16 source DataBlocks ``S[0..15]`` and writes 16 destination DataBlocks
  ``D[0..15]``, each at its own 32-byte aligned UB address (the blocks need not be
  contiguous).  With ``s = sizeof(T)`` (ref §4.2):

  - b16: ``D[e][k] = S[k][e]`` for ``e, k < 16`` — a 16 x 16 transpose;
  - b32: ``D[2e + h][k] = S[8h + k][e]`` for ``e, k < 8``, ``h < 2`` — element ``e`` of the
    16 sources fills two consecutive destination blocks;
  - b8:  ``D[e][k + 16 dh] = S[k][e + 16 sh]`` for ``e, k < 16``, where ``sh`` / ``dh`` are
    ``src_high_half`` / ``dst_high_half``; the other 16 bytes of each ``D[e]`` are untouched.

* Repeat ``r`` uses ``S_r[i] = src_list[i] + off_s(r) * 32`` and ``D_r[e] = dst_list[e] +
  off_d(r) * 32`` with ``off(r) = rep_stride if repeat_times == 1 else r * rep_stride``
  (ref §4.3): a single repeat is already offset by one stride.  ``repeat_times == 0`` is a
  no-op (parameters are still checked).
* The vector mask and the mask mode play no part.  ``dst_high_half`` / ``src_high_half``
  only affect 8-bit data (seed 002 表3).
* Constraints: every address 32-byte aligned and every touched byte inside UB (and inside
  its tensor for the LocalTensor form); dtype per product (``AscendChip.transdata_dtypes``);
  overlap per ref §1.4 — within a repeat the bytes read and written are either the same
  bytes in the same order (in place, identical lists) or disjoint, and no repeat reads what
  an earlier repeat wrote.  When two destination blocks of one call coincide, the one
  written later (higher repeat, then higher list index) wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import OutOfBoundsError, ParameterRangeError
from ...overloads import Form, Param, bind
from ...validate import require_aligned, require_bool, require_uint
from ..addressing import BLOCK_BYTES
from ..chips import unsupported_on
from ..core import Core, current_core
from ..footprint import Footprint, check_overlap
from ..tensor import LocalTensor
from ..types import TransDataTo5HDParams
from .common import ALIGN_SOURCE, UB_ALIGN, require_dtype, require_ub_tensor

__all__ = ["ADDR_LIST_SIZE", "TRANS_DATA_TO_5HD_FORMS", "trans_data_to_5hd", "vnchwconv"]

ADDR_LIST_SIZE = 16  # NCHW_CONV_ADDR_LIST_SIZE
HALF_BLOCK_BYTES = BLOCK_BYTES // 2
SOURCE = "TransDataTo5HD.md (seed 002); ref §4"


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


@dataclass(frozen=True)
class TransPlan:
    """A resolved call: element addresses of every read and write, in issue order.

    ``src_addrs`` and ``dst_addrs`` have shape ``(repeats, 16, n)``: repeat, block of the
    list, element inside the (half-)block, ``n`` elements per (half-)block.
    """

    instruction: str
    core: Core
    dtype: DType
    src_addrs: np.ndarray
    dst_addrs: np.ndarray


def trans_data_to_5hd(*args, **kwargs) -> None:
    """``asc.trans_data_to_5hd`` in the three call forms of seed 002.

    Forms::

        trans_data_to_5hd(dst_list, src_list, params)                  # 16 LocalTensors each
        trans_data_to_5hd(dst_addrs, src_addrs, params, dtype=T)       # 16 UB byte addresses each
        trans_data_to_5hd(dst, src, params, dtype=T)                   # uint64 LocalTensors holding them

    ``params`` is an :class:`~npusim.ascend.types.TransDataTo5HDParams`.  The address forms
    carry no element type, so ``dtype`` (the C++ template argument ``T``) is required there;
    the LocalTensor form takes it from the tensors.
    """
    instruction = "trans_data_to_5hd"
    form, bound = bind(instruction, TRANS_DATA_TO_5HD_FORMS, args, kwargs)
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

    if form == "tensor_list":
        dtype, dst_addrs, src_addrs, tensors = _from_tensor_lists(instruction, core, bound)
    elif form == "addr_list":
        dtype = _required_dtype(instruction, bound["dtype"])
        dst_addrs = _address_list(instruction, "dst_list", bound["dst_list"], core.ub.size_bytes)
        src_addrs = _address_list(instruction, "src_list", bound["src_list"], core.ub.size_bytes)
        tensors = None
    else:
        dtype = _required_dtype(instruction, bound["dtype"])
        dst_addrs = _addresses_from_tensor(instruction, core, "dst", bound["dst"])
        src_addrs = _addresses_from_tensor(instruction, core, "src", bound["src"])
        tensors = None
    plan = plan_vnchwconv(instruction, core, dtype, dst_addrs, src_addrs, repeat_times, dst_stride, src_stride,
                          dst_high, src_high, tensors)
    execute(plan)


def vnchwconv(instruction: str, core: Core, dtype: DType, dst_list, src_list, repeat, dst_stride, src_stride,
              dst_high_half=False, src_high_half=False) -> None:
    """The bare ``scatter_vnchwconv_b*`` instruction, as the C API issues it.

    ``dst_list`` / ``src_list`` are what the VA registers hold: 16 UB byte addresses each
    (LocalTensors are accepted and stand for their start addresses).
    """
    _require_product(instruction, core)
    dst_addrs = _address_list(instruction, "dst", _as_addresses(instruction, dst_list), core.ub.size_bytes)
    src_addrs = _address_list(instruction, "src", _as_addresses(instruction, src_list), core.ub.size_bytes)
    repeat = require_uint(instruction, "repeat", repeat, 8, "asc_transto5hd.md")
    dst_stride = require_uint(instruction, "dst_stride", dst_stride, 16, "asc_transto5hd.md")
    src_stride = require_uint(instruction, "src_stride", src_stride, 16, "asc_transto5hd.md")
    dst_high = require_bool(instruction, "dst_high_half", dst_high_half)
    src_high = require_bool(instruction, "src_high_half", src_high_half)
    for name, listed in (("dst", dst_list), ("src", src_list)):
        for i, item in enumerate(listed):
            if isinstance(item, LocalTensor):
                item.check_usable(instruction, f"{name}[{i}]", core)
    execute(plan_vnchwconv(instruction, core, dtype, dst_addrs, src_addrs, repeat, dst_stride, src_stride,
                           dst_high, src_high, None))


# ----------------------------------------------------------------- operands
def _require_product(instruction: str, core: Core) -> None:
    if not core.chip.transdata_dtypes:
        raise unsupported_on(core.chip, instruction, "TransDataTo5HD", lambda c: bool(c.transdata_dtypes))


def _as_addresses(instruction: str, listed) -> list:
    if isinstance(listed, (str, bytes)) or not isinstance(listed, (Sequence, np.ndarray)):
        raise TypeError(f"{instruction}: an address list is 16 UB addresses or LocalTensors, "
                        f"got {type(listed).__name__}")
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


def _addresses_from_tensor(instruction: str, core: Core, name: str, tensor: LocalTensor) -> np.ndarray:
    """The 16 uint64 addresses stored in a LocalTensor<uint64_t> (seed 002, second form)."""
    tensor = require_ub_tensor(instruction, name, tensor, core)
    require_dtype(instruction, name, tensor.dtype, frozenset({"uint64"}),
                  "the address tensor holds uint64_t addresses (LocalTensor<uint64_t>)")
    nbytes = ADDR_LIST_SIZE * 8
    tensor.check_span(instruction, f"{name} (address list)", tensor.addr, tensor.addr + nbytes)
    core.ub.check_initialized_span(instruction, f"{name} (address list)", tensor.addr, tensor.addr + nbytes)
    stored = core.ub.data[tensor.addr : tensor.addr + nbytes].view("<u8")
    too_big = stored >= np.uint64(core.ub.size_bytes)
    if too_big.any():
        index = int(np.argmax(too_big))
        raise OutOfBoundsError(instruction, f"{name}[{index}] address", int(stored[index]),
                               "the stored address lies outside UB", f"[0x0, {core.ub.size_bytes:#x})", SOURCE)
    return stored.astype(np.int64)


# ------------------------------------------------------------------ planning
def plan_vnchwconv(instruction: str, core: Core, dtype: DType, dst_list: np.ndarray, src_list: np.ndarray,
                   repeat_times: int, dst_stride: int, src_stride: int, dst_high: bool, src_high: bool,
                   tensors: tuple[list[LocalTensor], list[LocalTensor]] | None) -> TransPlan:
    """Check every rule and compute the element addresses of all reads and writes."""
    _require_product(instruction, core)
    require_dtype(instruction, "T", dtype, core.chip.transdata_dtypes,
                  f"TransDataTo5HD does not support this type on {core.chip.name} (seed 002 数据类型)")
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
    return TransPlan(instruction, core, dtype, src_addrs, dst_addrs)


def repeat_offsets_blocks(repeat_times: int, rep_stride: int) -> np.ndarray:
    """``off(r)`` in DataBlocks for every repeat: ``stride`` when ``repeat_times == 1``, else ``r * stride``."""
    if repeat_times == 1:
        return np.array([rep_stride], dtype=np.int64)
    return np.arange(repeat_times, dtype=np.int64) * rep_stride


def _element_addresses(itemsize: int, dst_list: np.ndarray, src_list: np.ndarray, repeat_times: int,
                       dst_stride: int, src_stride: int, dst_high: bool, src_high: bool):
    """Byte address of every element read and written, each shaped ``(repeats, 16, n)`` (ref §4.2-4.3)."""
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
def execute(plan: TransPlan) -> None:
    """Gather the 16 source (half-)blocks of every repeat, transpose, scatter (ref §4.2)."""
    if plan.src_addrs.size == 0:
        return
    ub = plan.core.ub
    itemsize = plan.dtype.itemsize
    raw = plan.dtype.raw
    src_index = plan.src_addrs // itemsize
    ub.check_initialized(plan.instruction, "src", src_index.reshape(-1), itemsize)
    values = ub.gather(src_index, raw)  # (repeats, block k, element e)
    repeats = values.shape[0]
    if itemsize == 4:
        # D[2e + h][k] = S[8h + k][e]: split sources into halves h, then order (e, h, k).
        out = values.reshape(repeats, 2, 8, 8).transpose(0, 3, 1, 2).reshape(repeats, 16, 8)
    else:
        out = values.transpose(0, 2, 1)  # b16: D[e][k] = S[k][e]; b8: the same on half-blocks
    ub.scatter((plan.dst_addrs // itemsize).reshape(-1), np.ascontiguousarray(out).reshape(-1))
