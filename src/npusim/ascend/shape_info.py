"""ShapeInfo: the logical shape a tensor carries for the APIs that read it (pyasc ``asc.ShapeInfo``).

Ascend C's ``ShapeInfo`` holds up to ``K_MAX_SHAPE_DIM`` = 8 dimensions of a shape and of an
original shape, and a data format (``ShapeInfo`` in ``include/basic_api/kernel_struct_shape.h``
of asc-devkit; pyasc ``ShapeInfo(shape, original_shape, data_format)``).  A tensor keeps the one
``set_shape_info`` gave it; no vector instruction of npusim reads it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..errors import ParameterRangeError
from ..sources import semantics
from ..validate import require_int
from .types import DataFormat

__all__ = ["MAX_SHAPE_DIMS", "ShapeInfo", "get_shape_size", "require_shape_info"]

MAX_SHAPE_DIMS = 8  # K_MAX_SHAPE_DIM
SOURCE = semantics("10.8")


def _dims(operand: str, values: Iterable | None) -> tuple[int, ...]:
    if values is None:
        return ()
    if not isinstance(values, Iterable):
        raise TypeError(f"ShapeInfo: {operand} must be an asc.array or a sequence of ints, got {values!r}")
    dims = tuple(require_int("ShapeInfo", operand, value, 0, (1 << 31) - 1, SOURCE) for value in values)
    if len(dims) > MAX_SHAPE_DIMS:
        raise ParameterRangeError("ShapeInfo", f"{operand} dimensions", len(dims), "too many dimensions",
                                  f"at most {MAX_SHAPE_DIMS}", SOURCE)
    return dims


class ShapeInfo:
    """A shape, its original shape (the shape itself when not given) and a data format (ND by default)."""

    def __init__(self, shape: Iterable | None = None, original_shape: Iterable | None = None,
                 data_format: DataFormat | None = None) -> None:
        if data_format is not None and not isinstance(data_format, DataFormat):
            raise TypeError(f"ShapeInfo: data_format must be an asc.DataFormat, got {data_format!r}")
        self.dims = _dims("shape", shape)
        self.original_dims = _dims("original_shape", original_shape) if original_shape is not None else self.dims
        self.data_format = DataFormat.ND if data_format is None else data_format

    def shape(self, dim: int) -> int:
        """Dimension ``dim`` of the shape."""
        return self.dims[require_int("ShapeInfo.shape", "dim", dim, 0, len(self.dims) - 1, SOURCE)]

    def original_shape(self, dim: int) -> int:
        """Dimension ``dim`` of the original shape."""
        return self.original_dims[require_int("ShapeInfo.original_shape", "dim", dim, 0,
                                              len(self.original_dims) - 1, SOURCE)]

    def __repr__(self) -> str:
        return f"ShapeInfo({list(self.dims)}, original={list(self.original_dims)}, {self.data_format.name})"


def require_shape_info(instruction: str, value) -> ShapeInfo:
    if not isinstance(value, ShapeInfo):
        raise TypeError(f"{instruction}: shape_info must be an asc.ShapeInfo, got {type(value).__name__}")
    return value


def get_shape_size(shape_info: ShapeInfo) -> int:
    """The number of elements of the shape (pyasc ``get_shape_size``, Ascend C ``GetShapeSize``)."""
    return math.prod(require_shape_info("get_shape_size", shape_info).dims)
