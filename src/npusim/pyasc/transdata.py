"""pyasc's ``trans_data_to_5hd``: the address forms infer the element type as pyasc's code generator does.

npusim's :func:`~npusim.ascend.trans_data_to_5hd` needs ``dtype=`` for the address forms (the
C++ template argument).  pyasc has no such argument: it takes the type of the tensor the first
address of a list came from, straight from ``LocalTensor.get_phy_addr()``, or, for uint64
address tensors, of the tensor whose ``get_phy_addr()`` was ``set_value``-d into either one
(hicann/pyasc ``python/asc/language/basic/``; docs/semantics.md §10.7).  Without such an
address it is a ``TypeError``, as pyasc's "could not infer element type".
"""

from __future__ import annotations

from .. import ascend
from ..ascend.tensor import LocalTensor, PhyAddress

__all__ = ["trans_data_to_5hd"]


def _inferred_dtype(dst, src):
    if isinstance(dst, (list, tuple)) and dst and not isinstance(dst[0], LocalTensor):
        first = dst[0]
        return first.dtype if isinstance(first, PhyAddress) else None
    if isinstance(dst, LocalTensor) and isinstance(src, LocalTensor):
        return getattr(dst, "address_dtype", None) or getattr(src, "address_dtype", None)
    return None


def trans_data_to_5hd(dst, src, params, **kwargs) -> None:
    """pyasc's ``asc.trans_data_to_5hd(dst_or_list, src_or_list, params)``."""
    is_address_form = not (isinstance(dst, (list, tuple)) and dst and isinstance(dst[0], LocalTensor))
    if is_address_form and "dtype" not in kwargs:
        dtype = _inferred_dtype(dst, src)
        if dtype is None:
            raise TypeError("trans_data_to_5hd: could not infer the element type: the first address (or one "
                            "set_value into an address tensor) must come straight from LocalTensor.get_phy_addr()")
        kwargs["dtype"] = dtype
    ascend.trans_data_to_5hd(dst, src, params, **kwargs)
