"""Floor, Ceil, Trunc, Round and Frac (高阶API/数学计算), each a composition of npusim's ``cast`` and ``sub``.

pyasc's ``asc.adv.floor(dst, src, count=None, temp_buffer=None, is_reuse_source=False)`` (and ``ceil``,
``trunc``, ``round``, ``frac``: ``python/asc/language/adv/math.py``) is the C++ ``Floor(dstTensor, srcTensor,
[sharedTmpBuffer,] [calCount])``; ``count=None`` is the "源操作数Tensor全部参与计算" form, all of ``src``.

The steps are the vendor's for the Atlas A2/A3 (``__NPU_ARCH__`` 2201; asc-devkit
``impl/adv_api/detail/math/<name>/<name>_v220_impl.h`` and ``<name>_common_impl.h``), issued in counter mode
as npusim's count forms, so a call is as exact as those instructions (exactness class: exact — every
step is a Cast between float types or a float Sub of values whose difference is representable) and its
access records are theirs:

* float Floor and Round: one ``cast(dst, src, CAST_FLOOR / CAST_RINT, count)``; the temporary buffer is
  not used (the Floor overload for float is chosen even without a buffer);
* float Ceil and Trunc: the same cast (CAST_CEIL / CAST_TRUNC), in chunks of ``tmp bytes / 4 / 32 * 32``
  elements (``ceil_common_impl.h``, ``trunc_common_impl.h``): the buffer only sets the chunk length;
* half: per chunk of ``tmp bytes / 4 / 32 * 32`` halves, ``cast`` half -> float (CAST_NONE) into the buffer,
  the float -> float cast in place, ``cast`` float -> half (CAST_NONE) into dst;
* Frac (``frac_common_impl.h``): float in one pass, ``cast(dst, src, CAST_TRUNC)`` then
  ``sub(dst, src, dst)``; half in chunks of ``tmp bytes / 4 / 2 / 32 * 32``: src as float in the buffer's
  first part, its trunc in the second, their difference there, cast to half into dst.

Without ``temp_buffer`` the vendor pops the stack buffer (``PopStackBuffer``); npusim uses the API scratch
every kernel has, from ``TMP_UB_OFFSET`` (``chip.vec_local_bytes``) to the end of the UB less the KFC
message area, as :mod:`.softmax` does.  A given buffer must hold the page's minimum
(GetXxxMaxMinTmpSize, ``impl/adv_api/tiling/math/<name>_tiling_impl.cpp``).  Every check runs before
the first instruction, so a rejected call changes nothing (docs/semantics.md §5.37).

On the 950 (``<name>_3510_impl.h``) Floor and Trunc are the Memory-level ``Truncate<T, CAST_FLOOR /
CAST_TRUNC>(dst, src, calCount)`` and Ceil and Round a vector function whose lanes are ``Reg::Truncate``
(CAST_CEIL, CAST_RINT): npusim issues ``truncate(dst, src, mode, count)`` for all four, one call and one
access record; the buffer is only checked to be a UB uint8 tensor (no minimum: the kernel does not use it).

Not modelled (an :class:`~npusim.errors.UnsupportedError`): the other products (the 310P's ``_v200``
int32 route: Cast.md's 310P table lists float -> int64_t, not the float -> int32_t it issues, docs/semantics.md
§5.37; the 950's Frac vector function, Kirin, the Atlas 200I/500 A2's ``_v300``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...dtypes import DTYPES
from ...errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError
from ...validate import require_bool, require_int
from .. import pages
from ..core import current_core
from ..ops.cast import cast
from ..ops.common import require_ub_tensor
from ..ops.elementwise import sub
from ..ops.elementwise_isasi import truncate
from ..tensor import LocalTensor
from ..types import RoundMode, TPosition
from .quant_common import check_written_up_front
from .softmax import KFC_MESSAGE  # the bytes PopStackBuffer leaves at the UB's end

__all__ = ["APIS", "BLOCK", "SEMANTICS", "RoundingApi", "ceil", "checked_call", "floor", "frac", "round_", "trunc"]

FLOAT = DTYPES["float32"]
HALF = DTYPES["float16"]
UINT8 = DTYPES["uint8"]
BLOCK = 32  # ONE_BLK_SIZE: chunk lengths are multiples of 32 elements
#: the products whose implementation npusim follows, by __NPU_ARCH__: the A2/A3 (v220); for Floor, Ceil, Trunc
#: and Round also the 950 (3510), where each is ``Truncate<T, mode>`` (floor and trunc: the Memory-level call;
#: ceil and round: a vector function of Reg::Truncate lanes, the same lanes in one call)
MODELLED_ARCH = 2201
REGISTER_ARCH = 3510
SEMANTICS = "docs/semantics.md §5.37"


@dataclass(frozen=True)
class RoundingApi:
    """One of the functions: its page, the float -> float Cast mode of its steps and its buffer rules."""

    name: str
    page: str
    tmp_page: str
    mode: RoundMode
    #: GetXxxMaxMinTmpSize's minValue on 2201, by element type
    min_tmp: dict
    #: float elements go through the buffer's chunks (Ceil, Trunc) instead of one cast (Floor, Round, Frac)
    float_chunked: bool = False
    #: dst may be src (约束说明: 支持源操作数与目的操作数地址重叠; Round's page does not forbid it)
    dst_may_be_src: bool = False
    #: the difference src - trunc(src) (Frac)
    fraction: bool = False
    #: the section of docs/semantics.md that states the function's rules, cited by its errors
    semantics: str = SEMANTICS
    #: the element types T may be (表1 模板参数说明), src and dst alike
    dtypes: tuple = ("float16", "float32")

    def chunk(self, tmp_bytes: int) -> int:
        """Elements per chunk: ``bytes / sizeof(float) [/ 2 for Frac's two float arrays] / 32 * 32``."""
        floats = tmp_bytes // FLOAT.itemsize
        return floats // (2 if self.fraction else 1) // BLOCK * BLOCK

    def uses_tmp(self, dtype) -> bool:
        return dtype is HALF or self.float_chunked


def _api(name, mode, half_min, float_min, **kw) -> RoundingApi:
    title = name.capitalize()
    page = getattr(pages, name.upper())
    return RoundingApi(name, page, f"{page.rsplit('/', 1)[0]}/Get{title}MaxMinTmpSize.md", mode,
                       {"float16": half_min, "float32": float_min}, **kw)


APIS = {
    "floor": _api("floor", RoundMode.CAST_FLOOR, 512, 0),
    "ceil": _api("ceil", RoundMode.CAST_CEIL, 512, 256, float_chunked=True),
    "trunc": _api("trunc", RoundMode.CAST_TRUNC, 512, 256, float_chunked=True, dst_may_be_src=True),
    "round": _api("round", RoundMode.CAST_RINT, 256, 0, dst_may_be_src=True),
    "frac": _api("frac", RoundMode.CAST_TRUNC, 1024, 0, fraction=True),
}


def floor(dst: LocalTensor, src: LocalTensor, count: int | None = None, temp_buffer: LocalTensor | None = None,
          is_reuse_source: bool = False) -> None:
    """Floor: each element rounded toward minus infinity, ``-0.5 -> -1``, ``-0.0 -> -0.0`` (exact)."""
    _run(APIS["floor"], dst, src, count, temp_buffer, is_reuse_source)


def ceil(dst: LocalTensor, src: LocalTensor, count: int | None = None, temp_buffer: LocalTensor | None = None,
         is_reuse_source: bool = False) -> None:
    """Ceil: each element rounded toward plus infinity, ``-0.5 -> -0.0`` (exact)."""
    _run(APIS["ceil"], dst, src, count, temp_buffer, is_reuse_source)


def trunc(dst: LocalTensor, src: LocalTensor, count: int | None = None, temp_buffer: LocalTensor | None = None,
          is_reuse_source: bool = False) -> None:
    """Trunc: each element rounded toward zero (exact)."""
    _run(APIS["trunc"], dst, src, count, temp_buffer, is_reuse_source)


def round_(dst: LocalTensor, src: LocalTensor, count: int | None = None, temp_buffer: LocalTensor | None = None,
           is_reuse_source: bool = False) -> None:
    """Round: each element to the nearest integer, ties to even (约束说明: 向偶数舍入), ``2.5 -> 2`` (exact)."""
    _run(APIS["round"], dst, src, count, temp_buffer, is_reuse_source)


def frac(dst: LocalTensor, src: LocalTensor, count: int | None = None, temp_buffer: LocalTensor | None = None,
         is_reuse_source: bool = False) -> None:
    """Frac: ``src - trunc(src)``, the sign of src's (exact: the difference is representable)."""
    _run(APIS["frac"], dst, src, count, temp_buffer, is_reuse_source)


def _run(api: RoundingApi, dst, src, count, temp_buffer, is_reuse_source) -> None:
    arches = (MODELLED_ARCH,) if api.fraction else (MODELLED_ARCH, REGISTER_ARCH)
    core, dst, src, total, tmp = checked_call(api, dst, src, count, temp_buffer, is_reuse_source, arches)
    if core.chip.npu_arch == REGISTER_ARCH:  # <name>_3510_impl.h: Truncate<T, mode>, the buffer unused
        truncate(dst, src, api.mode, total)
        return
    if total == 0:
        return
    if src.dtype is FLOAT and api.fraction:
        cast(dst, src, RoundMode.CAST_TRUNC, total)
        sub(dst, src, dst, total)
        return
    split = api.chunk(tmp.nbytes) if api.uses_tmp(src.dtype) else total
    for start in range(0, total, split):
        _chunk(api, dst[start:], src[start:], tmp, min(split, total - start), split)


def _used_tmp(api: RoundingApi, tmp: LocalTensor, total: int, dtype) -> int:
    """The buffer's bytes a call uses: ``min(split, count)`` floats (Frac: two such arrays), none for float
    Floor, Round and Frac."""
    if not api.uses_tmp(dtype):
        return 0
    return min(api.chunk(tmp.nbytes), total) * FLOAT.itemsize * (2 if api.fraction else 1)


def checked_call(api: RoundingApi, dst, src, count, temp_buffer, is_reuse_source, arches=(MODELLED_ARCH,),
                 used_tmp=_used_tmp) -> tuple:
    """(core, dst, src, count, buffer or None) after every check of the call (the product among ``arches``;
    ``used_tmp(api, buffer, count, dtype)``: the buffer bytes the steps use), before any instruction runs."""
    core = current_core(api.name)
    _require_product(core, api, arches)
    require_bool(api.name, "is_reuse_source", is_reuse_source)  # reserved (表1: 该参数预留)
    dst = require_ub_tensor(api.name, "dst", dst, core)
    src = require_ub_tensor(api.name, "src", src, core)
    dtype = src.dtype
    if dtype.name not in api.dtypes or dst.dtype is not dtype:
        raise UnsupportedError(api.name, "dtype", f"src {dtype.name}, dst {dst.dtype.name}", f"T is one of "
                               f"{', '.join(api.dtypes)}, the same for src and dst (表1 模板参数说明)",
                               ", ".join(api.dtypes), f"{api.page} 参数说明; {api.semantics}")
    total = _count(api, dst, src, count)
    register_isa = core.chip.npu_arch == REGISTER_ARCH  # the 950 only checks the buffer's position
    needs_tmp = (api.uses_tmp(dtype) or api.fraction) and not register_isa  # Frac: CheckTmpBufferSize too
    tmp = _tmp_buffer(core, api, temp_buffer, dtype, register_isa) if needs_tmp or temp_buffer is not None \
        else None
    if register_isa:
        used_tmp = _no_tmp
    _check_overlaps(api, dst, src, tmp, total, 0 if tmp is None else used_tmp(api, tmp, total, dtype))
    check_written_up_front(core, {"src": (src.addr, src.addr + total * dtype.itemsize)}, api.name)
    return core, dst, src, total, tmp


def _chunk(api: RoundingApi, dst: LocalTensor, src: LocalTensor, tmp: LocalTensor | None, n: int, split: int) -> None:
    """One chunk's instructions (``<Name>Process`` / ``FracCompute``)."""
    if src.dtype is FLOAT:
        cast(dst, src, api.mode, n)
        return
    work = tmp.reinterpret_cast(FLOAT)
    cast(work, src, RoundMode.CAST_NONE, n)
    if api.fraction:
        whole = work[split:]
        cast(whole, work, RoundMode.CAST_TRUNC, n)
        sub(whole, work, whole, n)
        work = whole
    else:
        cast(work, work, api.mode, n)
    cast(dst, work, RoundMode.CAST_NONE, n)


PRODUCTS = {2201: "Atlas A2, Atlas A3", 2002: "Atlas inference AI Core", 3510: "Ascend 950PR/950DT"}


def _require_product(core, api: RoundingApi, arches) -> None:
    if core.chip.npu_arch not in arches:
        raise UnsupportedError(api.name, "product", core.chip.product, f"npusim follows {api.name.capitalize()}'s "
                               f"implementation for __NPU_ARCH__ {', '.join(map(str, arches))} only",
                               ", ".join(PRODUCTS[a] for a in arches), f"{api.page} 产品支持情况; {api.semantics}")


def _count(api: RoundingApi, dst: LocalTensor, src: LocalTensor, count) -> int:
    """calCount: at most src's and dst's sizes (CalCountVerifyingParameters); default all of src."""
    if count is None:
        count = src.tile_size
    else:
        count = require_int(api.name, "count", count, 0, src.tile_size, f"{api.page} 参数说明; {api.semantics}",
                            rule="calCount must not exceed src's size")
    if count > dst.tile_size:
        raise OutOfBoundsError(api.name, "dst size", dst.tile_size, f"dst must hold the {count} results",
                               f"at least {count} elements", f"{api.page} 参数说明; {api.semantics}")
    return count


def _no_tmp(*_) -> int:
    return 0


def _tmp_buffer(core, api: RoundingApi, temp_buffer, dtype, register_isa: bool = False) -> LocalTensor:
    """The given buffer (uint8, at least the page's minimum), or the API scratch standing for the stack buffer."""
    if temp_buffer is None:
        start = core.chip.vec_local_bytes
        end = core.chip.ub_bytes - KFC_MESSAGE.get(core.chip.npu_arch, 0)
        return LocalTensor(UINT8, TPosition.VECCALC, start, end - start)
    tmp = require_ub_tensor(api.name, "temp_buffer", temp_buffer, core)
    if tmp.dtype is not UINT8:
        raise UnsupportedError(api.name, "temp_buffer dtype", tmp.dtype.name, "sharedTmpBuffer is a "
                               "LocalTensor<uint8_t> (函数原型)", "uint8", f"{api.page} 函数原型; {api.semantics}")
    minimum = 0 if register_isa else api.min_tmp[dtype.name]
    minimum = max(minimum, FLOAT.itemsize if api.fraction else 0)
    if tmp.nbytes < minimum:
        raise ParameterRangeError(api.name, "temp_buffer size", tmp.nbytes, "the temporary space must not be "
                                  f"smaller than Get{api.name.capitalize()}MaxMinTmpSize's minimum for "
                                  f"{dtype.name}", f"at least {minimum} bytes",
                                  f"{api.tmp_page} 参数说明; {api.semantics}")
    return tmp


def _check_overlaps(api: RoundingApi, dst, src, tmp, total: int, used_tmp: int) -> None:
    """dst and src disjoint (Trunc, Round: or the same tensor); the buffer's used bytes clear of both."""
    spans = {"src": (src.addr, src.addr + total * src.dtype.itemsize),
             "dst": (dst.addr, dst.addr + total * dst.dtype.itemsize)}
    (s_lo, s_hi), (d_lo, d_hi) = spans["src"], spans["dst"]
    if total and d_lo < s_hi and s_lo < d_hi and not (api.dst_may_be_src and d_lo == s_lo):
        allowed = f"disjoint from [{s_lo:#x}, {s_hi:#x})" + (f" or starting at {s_lo:#x}" if api.dst_may_be_src
                                                             else "")
        rule = ("dst may reuse src only from the same address (a shifted dst would overwrite elements a later "
                "chunk reads)" if api.dst_may_be_src else "src and dst must not overlap "
                "(不支持源操作数与目的操作数地址重叠)")
        raise OverlapError(api.name, "dst byte range", f"[{d_lo:#x}, {d_hi:#x})", rule, allowed,
                           f"{api.page} 约束说明; {api.semantics}")
    for label, (lo, hi) in spans.items():
        if total and used_tmp and lo < tmp.addr + used_tmp and tmp.addr < hi:
            raise OverlapError(api.name, f"{label} byte range", f"[{lo:#x}, {hi:#x})", f"{label} must not overlap "
                               f"the temp buffer bytes [{tmp.addr:#x}, {tmp.addr + used_tmp:#x}) the chunks use",
                               "disjoint byte ranges", f"{api.page} 约束说明; {api.semantics}")
