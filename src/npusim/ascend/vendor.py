"""Ascend as the engine sees it: its products, its active core, and how a tensor binds per call.

A :class:`~npusim.ascend.tensor.LocalTensor` argument takes part in a call by its *geometry*
(extent, dtype, position: ``LocalTensor.geometry_key``), never by its address, so a kernel
that moves its tensors reuses what it planned; its address is the base the plan binds to,
and on every call the tensor must still be usable (allocated, on the running core).

A :class:`~npusim.ascend.runtime.gm.GlobalTensor` takes part by its element type; it binds
to its GM *buffer*, not its offset, which a kernel moves tile by tile: the instruction reads
the offset on every call and checks its bounds there (``data_copy``).  Per call the tensor
must be bound (``set_global_buffer``).

A :class:`~npusim.ascend.types.MrgSortSrcList` (a merge sort's queues) takes part by its
queues' geometries and binds to their addresses, tensor by tensor.
"""

from __future__ import annotations

from ..engine.registry import OperandKind, Vendor, register_vendor
from .chips import CHIPS
from .core import current_core
from .runtime.gm import GlobalTensor
from .tensor import LocalTensor
from .types import MrgSortSrcList

__all__ = ["ASCEND"]


def _check_tensor(tensor: LocalTensor, instruction: str, name: str, core) -> None:
    if tensor.core is not core or (tensor.lease is not None and not tensor.lease.alive):
        tensor.check_usable(instruction, name, core)  # raises the error an uncached call would


def _source_list_geometry(sources: MrgSortSrcList) -> tuple:
    return (sources.dtype, *(None if t is None else (type(t), t.geometry_key) for t in sources.sources))


def _source_list_bases(sources: MrgSortSrcList) -> tuple:
    return tuple(t.addr if isinstance(t, LocalTensor) else None for t in sources.sources)


def _check_source_list(sources: MrgSortSrcList, instruction: str, name: str, core) -> None:
    for number, tensor in enumerate(sources.sources, 1):
        if isinstance(tensor, LocalTensor):
            _check_tensor(tensor, instruction, f"{name}.src{number}", core)


def _check_gm_tensor(tensor: GlobalTensor, instruction: str, name: str, core) -> None:
    if tensor.bound_buffer is None:
        _ = tensor.address  # raises the error an uncached call would: never bound


ASCEND = register_vendor(Vendor(
    "ascend", chips=lambda: CHIPS.values(), current_core=current_core,
    operand_kinds={LocalTensor: OperandKind(lambda t: t.geometry_key, lambda t: t.addr, _check_tensor),
                   GlobalTensor: OperandKind(lambda t: t.geometry_key, lambda t: t.bound_buffer,
                                             _check_gm_tensor),
                   MrgSortSrcList: OperandKind(_source_list_geometry, _source_list_bases, _check_source_list)},
))
