"""Transpose (Transpose.md): the 16 x 16 block transpose of 2-byte data, and NCHW <-> NHWC.

Forms (pyasc ``basic/vec_transpose.py``)::

    transpose(dst, src)                                      # dst = src.T, 16 x 16 (vtranspose)
    transpose(dst, src, shared_tmp_buffer, TransposeParamsExt(n_size, c_size, h_size, w_size, transpose_type))

The page defines the results by numpy (功能说明): ``dst = src.T`` for the 16 x 16 form and for
``TRANSPOSE_ND2ND_B16``; ``np.transpose(src_nchw, (0, 2, 3, 1))`` for ``TRANSPOSE_NCHW2NHWC`` and
``np.transpose(src_nhwc, (0, 3, 1, 2))`` for ``TRANSPOSE_NHWC2NCHW``.  Elements move unchanged, so
both are bit-exact.  Each call is an :class:`~.index_move.IndexMove`; the NCHW <-> NHWC forms leave
the part of ``shared_tmp_buffer`` the page asks for undefined (their intermediates are not modelled).

Rules (约束说明): the 16 x 16 form and ND2ND_B16 may work in place (dst is src), the NCHW <-> NHWC
forms may not overlap at all; ``h_size = w_size = 16`` for ND2ND_B16 (n, c ignored); for NCHW <->
NHWC ``n_size <= 65535``, ``c_size <= 4095``, ``h_size * w_size <= 4095`` and a multiple of 32 bytes,
any size 0 a NOP; ``shared_tmp_buffer`` (uint8) at least ``(c + 2) * h0 * w0 * sizeof(T)`` bytes
(NCHW2NHWC) or ``(2c + 1) * h0 * w0 * sizeof(T)`` (NHWC2NCHW), ``h0 = 32`` for 8-bit types else 16,
``w0 = 32 / sizeof(T)``; none on the Atlas inference AI Core (310P).
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import ParameterRangeError, UnsupportedError
from ...overloads import Form, Param
from ...validate import require_int
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint
from ..tensor import LocalTensor
from ..types import TransposeParamsExt, TransposeType
from .common import is_tensor, require_dtype, require_pair, require_ub_tensor
from .elementwise import DST
from .index_move import IndexMove

__all__ = ["Nothing", "block_transpose", "transpose"]

NAME = "transpose"
PAGE = pages.TRANSPOSE
SIDE = 16  # the block transpose is 16 x 16

_B16 = frozenset({"int16", "uint16", "float16"})
_NCHW = frozenset({"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"})
_CLASSIC = ("A2", "A3", "310B", "310P", "910", "KirinX90", "Kirin9030", "950")
#: T per product and form (数据类型).  The 950's fp4 / int4 types are not modelled (fp4x2_e2m1_t: its
#: transpose moves byte pairs, docs/semantics.md §5.33); its complex32 moves as a 4-byte element
#: (docs/semantics.md §5.29), its hifloat8 and fp8_e8m0_t (float8_e8m0fnu) as 1-byte codes (§5.32, §5.34).
DTYPES: dict[str, dict[str, frozenset[str]]] = {
    "plain": {chip: _B16 for chip in _CLASSIC},
    "TRANSPOSE_ND2ND_B16": {**{chip: frozenset({"uint16"}) for chip in ("A2", "A3", "310B", "310P")}, "950": _B16},
    "NCHW": {**{chip: _NCHW for chip in ("A2", "A3", "310P", "KirinX90", "Kirin9030")},
             "950": _NCHW | {"bfloat16", "float8_e4m3fn", "float8_e5m2", "hifloat8", "float8_e8m0fnu",
                     "complex32"}},
}
NO_TMP_BUFFER = frozenset({"310P"})  # Atlas inference AI Core: 不需要临时Buffer
DIRECTIONS = {TransposeType.TRANSPOSE_NCHW2NHWC: (0, 2, 3, 1), TransposeType.TRANSPOSE_NHWC2NCHW: (0, 3, 1, 2)}


def _is_params(value) -> bool:
    return isinstance(value, TransposeParamsExt)


FORMS = (
    Form("plain", (DST, Param("src", is_tensor))),
    Form("ext", (DST, Param("src", is_tensor), Param("shared_tmp_buffer", is_tensor), Param("params", _is_params))),
)


def _support(chip) -> frozenset[str] | None:
    return DTYPES["plain"].get(chip.name)


def _kind(params: TransposeParamsExt) -> str:
    return "TRANSPOSE_ND2ND_B16" if params.transpose_type == TransposeType.TRANSPOSE_ND2ND_B16 else "NCHW"


def _compile(core: Core, form: str, bound: dict) -> IndexMove | Nothing:
    dst, src = require_pair(NAME, core, bound["dst"], bound["src"], f"{PAGE} 参数说明")
    if form == "plain":
        _require_dtype(core, "plain", dst.dtype, "the 16 x 16 transpose")
        return block_transpose(dst, src, ("dst", "src"))
    tmp = require_ub_tensor(NAME, "shared_tmp_buffer", bound["shared_tmp_buffer"], core)
    if tmp.dtype.name != "uint8":
        raise UnsupportedError(NAME, "shared_tmp_buffer dtype", tmp.dtype.name, "the shared tmp buffer is a "
                               "LocalTensor<uint8_t>", "uint8", f"{PAGE} 函数原型")
    params = bound["params"]
    if params.transpose_type not in (TransposeType.TRANSPOSE_ND2ND_B16, *DIRECTIONS):
        raise UnsupportedError(NAME, "params.transpose_type", getattr(params.transpose_type, "name",
                               params.transpose_type), "Transpose implements only these types (当前不支持: the rest)",
                               "TRANSPOSE_ND2ND_B16, TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW", f"{PAGE} 参数说明")
    kind = _kind(params)
    _require_dtype(core, kind, dst.dtype, f"the enhanced transpose {kind}")
    sizes = [require_int(NAME, f"params.{field}", getattr(params, field), 0, 65535, f"{PAGE} 参数说明",
                         rule="a uint16_t size") for field in ("n_size", "c_size", "h_size", "w_size")]
    operands = ("dst", "src", "shared_tmp_buffer")
    if kind == "TRANSPOSE_ND2ND_B16":
        for field, value in zip(("h_size", "w_size"), sizes[2:], strict=True):
            if value != SIDE:
                raise ParameterRangeError(NAME, f"params.{field}", value, "the 16 x 16 transpose takes hSize = "
                                          "wSize = 16 (固定传入16)", "16", f"{PAGE} 约束说明")
        return block_transpose(dst, src, operands)
    return _layout_transpose(core, dst, src, tmp, params.transpose_type, *sizes)


def _require_dtype(core: Core, kind: str, dtype: DType, what: str) -> None:
    allowed = DTYPES[kind].get(core.chip.name)
    if allowed is None:
        raise unsupported_on(core.chip, NAME, what, lambda c: c.name in DTYPES[kind], f"{PAGE} 产品支持情况, 数据类型")
    require_dtype(NAME, "dst", dtype, allowed, f"{what} does not support this data type on {core.chip.product}",
                  f"{PAGE} 数据类型")


def block_transpose(dst: LocalTensor, src: LocalTensor, operands: tuple[str, ...], name: str = NAME) -> IndexMove:
    """dst[i][j] = src[j][i], 16 x 16 elements of 2 bytes; in place allowed."""
    order = np.arange(SIDE * SIDE, dtype=np.int64).reshape(SIDE, SIDE).T.reshape(-1)
    plan = IndexMove(name, dst.dtype, _footprint("dst", np.arange(SIDE * SIDE, dtype=np.int64), 2),
                     _footprint("src", order, 2), "in_place", f"{PAGE} 约束说明", operands=operands)
    plan.placed(dst, src)
    return plan


def _layout_transpose(core: Core, dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, kind: TransposeType,
                      n: int, c: int, h: int, w: int) -> IndexMove | Nothing:
    """NCHW -> NHWC or back (the page's np.transpose), after its range and tmp-buffer rules."""
    itemsize = dst.dtype.itemsize
    source = f"{PAGE} 约束说明"
    require_int(NAME, "params.c_size", c, 0, 4095, source, rule="cSize ∈ [0, 4095]")
    require_int(NAME, "params.h_size * params.w_size", h * w, 0, 4095, source, rule="hSize * wSize ∈ [0, 4095]")
    if h * w * itemsize % 32:
        raise ParameterRangeError(NAME, "params.h_size * params.w_size", h * w, "hSize * wSize * sizeof(T) must be a "
                                  "multiple of 32 bytes", f"a multiple of {32 // itemsize}", source)
    if 0 in (n, c, h, w):
        return Nothing(("dst", "src", "shared_tmp_buffer"))
    needed = 0 if core.chip.name in NO_TMP_BUFFER else _tmp_bytes(kind, c, itemsize)
    if tmp.nbytes < needed:
        raise ParameterRangeError(NAME, "shared_tmp_buffer size", tmp.nbytes, f"{kind.name} with cSize = {c} needs "
                                  f"{needed} bytes of shared_tmp_buffer", f"at least {needed} bytes",
                                  f"{PAGE} 参数说明, 约束说明 (表 sharedTmpBuffer所需的内存)")
    total = n * c * h * w
    for tensor, label in ((dst, "dst"), (src, "src")):
        tensor.check_span(NAME, label, tensor.addr, tensor.addr + total * itemsize)  # before any index array
    shape = (n, c, h, w) if kind == TransposeType.TRANSPOSE_NCHW2NHWC else (n, h, w, c)
    order = np.arange(total, dtype=np.int64).reshape(shape).transpose(DIRECTIONS[kind]).reshape(-1)
    plan = IndexMove(NAME, dst.dtype, _footprint("dst", np.arange(total, dtype=np.int64), itemsize),
                     _footprint("src", order, itemsize), "disjoint", source,
                     operands=("dst", "src", "shared_tmp_buffer"), scratch_bytes=needed,
                     scratch_source=f"{PAGE} 参数说明 (表 sharedTmpBuffer所需的内存)")
    plan.placed(dst, src, tmp)
    return plan


def _tmp_bytes(kind: TransposeType, c: int, itemsize: int) -> int:
    """The page's minimum: (c + 2) or (2c + 1) tiles of h0 x w0 elements (表 sharedTmpBuffer所需的内存)."""
    h0, w0 = (32 if itemsize == 1 else 16), 32 // itemsize
    tiles = c + 2 if kind == TransposeType.TRANSPOSE_NCHW2NHWC else 2 * c + 1
    return tiles * h0 * w0 * itemsize


def _footprint(name: str, elements: np.ndarray, itemsize: int) -> Footprint:
    return Footprint(name, elements * itemsize, np.zeros(elements.size, dtype=np.int64), itemsize)


class Nothing(SelfBinding):
    """A call the page says computes nothing (a size of 0): its tensors are still checked per call."""

    def __init__(self, operands: tuple[str, ...], name: str = NAME) -> None:
        self.operands, self.name = operands, name

    def bind(self, core: Core, tensors) -> Nothing:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.name, label, tensor, core)
        return self

    def run(self, core: Core, values: tuple) -> None:
        return None


_SETUP = ("core.ub_write(0, bytes(range(256)) * 8)\n"
          "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
          "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)\n")

transpose = register(Instruction(
    NAME, "ascend", "layout", "V", FORMS, _compile, f"{PAGE} 功能说明, 约束说明",
    support=_support, exactness=BIT_EXACT,
    summary="dst = src.T for a 16 x 16 block of 2-byte data; with TransposeParamsExt also NCHW <-> NHWC",
    examples=(
        _SETUP + "asc.transpose(z, x)",
        _SETUP.replace("float16", "uint16") + "tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, 32)\n"
                 "asc.transpose(z, x, tmp, asc.TransposeParamsExt(0, 0, 16, 16))",
        _SETUP + "tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, 10240)\n"
                 "asc.transpose(z, x, tmp, asc.TransposeParamsExt(1, 16, 4, 4, asc.TransposeType.TRANSPOSE_NCHW2NHWC))",
    ),
    examples_on={"950": tuple(  # NCHW <-> NHWC of complex32 and hifloat8_t (docs/semantics.md §5.29, §5.32)
        f"x = asc.LocalTensor(asc.{dtype}, asc.TPosition.VECIN, 0, 256)\n"
        f"z = asc.LocalTensor(asc.{dtype}, asc.TPosition.VECOUT, 2048, 256)\n"
        "tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, 10240)\n"
        f"asc.transpose(z, x, tmp, asc.TransposeParamsExt({shape}, asc.TransposeType.{kind}))"
        for dtype, shape, kind in (("complex32", "1, 2, 2, 8", "TRANSPOSE_NCHW2NHWC"),
                                   ("hifloat8", "1, 4, 2, 32", "TRANSPOSE_NHWC2NCHW")))},
    fast_context=lambda core: (),
    doc="``transpose(dst, src)``: the 16 x 16 transpose of int16/uint16/half (in place allowed); "
        "``transpose(dst, src, shared_tmp_buffer, TransposeParamsExt(n, c, h, w, type))``: TRANSPOSE_ND2ND_B16 "
        f"(16 x 16), TRANSPOSE_NCHW2NHWC, TRANSPOSE_NHWC2NCHW ({PAGE}).",
))
