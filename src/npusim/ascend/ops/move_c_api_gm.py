"""The C API vector data movement (``asc_copy_gm2ub`` ... ``asc_set_ub2gm_loop_size``): aliases of DataCopy,
DataCopyPad, SetPadValue and SetLoopModePara.

From the pages under ``docs/zh/api/SIMD-API/C-API/vector_datamove/`` (one page per product architecture
for the four GM copies: ``_arch_2201`` for Atlas A2/A3, ``_arch_3510`` for the 950) and their lowering in
``impl/c_api/instr_impl/npu_arch_{2201,3510}/vector_datamove_impl``.  A ``__ubuf__`` pointer is a
``LocalTensor``, a ``__gm__`` pointer a ``GlobalTensor`` (its element offset, ``x_gm[k:]``, is the address).
docs/semantics.md §5.17 has the rules; in short:

* ``asc_copy_gm2ub`` / ``asc_copy_ub2gm`` / ``asc_copy_ub2ub`` (``void*``): on A2/A3 and for UB -> UB
  ``copy_gm_to_ubuf`` / ``copy_ubuf_to_gm`` / ``copy_ubuf_to_ubuf``, the instructions of DataCopy with
  ``DataCopyParams(n_burst, len_burst, src_gap, dst_gap)`` (all in 32-byte DataBlocks); the ``size`` form is
  one burst of ``size / 32`` blocks.  On the 950 the GM copies lower to ``copy_gm_to_ubuf_align_v2`` /
  ``copy_ubuf_to_gm_align_v2`` on bytes (DataCopyPad's instructions): ``len_burst`` bytes, strides head to
  head in bytes, the ``size`` form one burst of ``size`` bytes.
* ``asc_copy_gm2ub_align`` / ``asc_copy_ub2gm_align`` (typed): DataCopyPad.  A2/A3: ``(n_burst, len_burst,
  left_padding_num, right_padding_num, src_gap, dst_gap)``, the pads taken from the padding register
  (``asc_set_copy_pad_val``); the 950: ``(n_burst, len_burst, left_padding_num, right_padding_num,
  enable_constant_pad, l2_cache_mode, src_stride, dst_stride)`` GM -> UB, ``(n_burst, len_burst,
  l2_cache_mode, dst_stride, src_stride)`` UB -> GM, strides head to head in bytes; with
  ``enable_constant_pad`` false the pads repeat the burst's first element.
* On the 950 every GM copy follows the loop-mode registers that ``asc_set_gm2ub_loop_size`` /
  ``..._loop1_stride`` / ``..._loop2_stride`` (and the ``ub2gm`` three) write — the registers
  ``set_loop_mode_para`` loads (``set_loop_size_outtoub`` ..., dav_3510), one field pair per function.
* ``asc_set_copy_pad_val``: ``set_mov_pad_val``, the register ``set_pad_value`` loads.
* ``asc_set_gm2ub_pad(pad_val)`` (950, deprecated: its page names ``asc_set_copy_pad_val``): the same register
  loaded with the ``uint32_t`` bit pattern, of which a copy of T pads with the low ``8 * sizeof(T)`` bits
  (docs/semantics.md §5.25); every call warns with a :class:`~npusim.errors.DeprecatedApiWarning`.
* ``asc_ndim_copy_gm2ub`` (950): DataCopy's NDDMA plan, its strides, loop 1-4 paddings and constant read
  from the NDDMA registers ``asc_set_ndim_loop{0..4}_stride``, ``asc_set_ndim_pad_count`` and
  ``asc_set_ndim_pad_value`` write (and every NDDMA DataCopy loads), its sizes and loop 0's padding from
  the call.
* ``asc_copy_ub2l1``: L1 is a cube buffer npusim does not model (an :class:`UnsupportedError`).

``*_sync`` adds ``pipe_barrier(PIPE_ALL)`` after the copy (``asc_sync_post_process``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from ...dtypes import DType, by_name
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import AlignmentError, DeprecatedApiWarning, ParameterRangeError, UnsupportedError
from ...memory import user_stacklevel
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import align_up, require_bool, require_int, require_uint
from .. import pages
from ..addressing import BLOCK_BYTES, BlockRuns
from ..chips import unsupported_on
from ..core import Core, NddmaRegisters
from ..runtime.gm import GlobalTensor
from ..scalars import require_scalar
from ..tensor import LocalTensor
from ..types import DataCopyMVType, NdDmaConfig, NdDmaLoopInfo, NdDmaParams
from .common import is_bool_arg, is_int_arg, require_dtype
from .data_copy import (
    DISJOINT,
    GM_TO_UB,
    UB_TO_GM,
    UB_TO_UB,
    CopyPlan,
    PadBits,
    PadPlan,
    PadValueWrite,
    copy_endpoint,
    loop_mode_runs,
    require_disjoint_dst,
)
from .loop_mode import ATTRIBUTE, GM_STRIDE_LIMIT, REGISTER, SIZE_LIMIT, UB_STRIDE_LIMIT
from .move_c_api import Synced
from .nddma import nddma_plan

__all__ = ["ARCH_2201", "ARCH_3510", "c_api_move_page"]

RULES = semantics("5.17")
FOLDER = pages.C_API_DATAMOVE  # the pages: FOLDER/asc_<name>.md, or FOLDER/asc_<name>/asc_<name>_arch_<arch>.md
ARCH_2201, ARCH_3510 = 2201, 3510  # the npu_arch of Atlas A2/A3 and of the 950 (chips.py)
#: the functions whose page is one per architecture (a directory with ``_arch_2201`` / ``_arch_3510``)
PER_ARCH = frozenset({"asc_copy_gm2ub", "asc_copy_ub2gm", "asc_copy_gm2ub_align", "asc_copy_ub2gm_align"})
MAX_N_BURST = 4095
MAX_LEN_BURST_BLOCKS = 65535  # a uint16_t count of DataBlocks (2201)
MAX_LEN_BURST_BYTES = 2097151  # the _align pages: [1, 2097151] bytes
MAX_PAD_BYTES = BLOCK_BYTES  # "left_padding_num、right_padding_num的字节数均不能超过32Bytes"

#: the element types each architecture's page of the two typed copies lists (the 950's hifloat8_t: its codes move
#: as bytes, docs/semantics.md §5.32)
_B8_B16_B32 = frozenset({"int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})
ALIGN_DTYPES = {
    ("asc_copy_gm2ub_align", ARCH_2201): _B8_B16_B32,
    ("asc_copy_ub2gm_align", ARCH_2201): _B8_B16_B32 | {"int64", "uint64", "float64"},
    ("asc_copy_gm2ub_align", ARCH_3510): _B8_B16_B32 | {"float8_e5m2", "float8_e4m3fn", "hifloat8"},
    ("asc_copy_ub2gm_align", ARCH_3510): _B8_B16_B32 | {"float8_e5m2", "float8_e4m3fn", "hifloat8"},
}
#: the architectures each function's page (or pages) support
SUPPORTED_ARCHS = {
    "asc_copy_gm2ub": frozenset({ARCH_2201, ARCH_3510}),
    "asc_copy_ub2gm": frozenset({ARCH_2201, ARCH_3510}),
    "asc_copy_ub2ub": frozenset({ARCH_2201, ARCH_3510}),
    "asc_copy_gm2ub_align": frozenset({ARCH_2201, ARCH_3510}),
    "asc_copy_ub2gm_align": frozenset({ARCH_2201, ARCH_3510}),
    "asc_set_copy_pad_val": frozenset({ARCH_2201, ARCH_3510}),
    "asc_set_gm2ub_pad": frozenset({ARCH_3510}),
    "asc_copy_ub2l1": frozenset({ARCH_3510}),
    "asc_ndim_copy_gm2ub": frozenset({ARCH_3510}),
    "asc_set_ndim_loop_stride": frozenset({ARCH_3510}),
    "asc_set_ndim_pad_count": frozenset({ARCH_3510}),
    "asc_set_ndim_pad_value": frozenset({ARCH_3510}),
}
#: the deprecated functions (a page ``<name>_deprecated.md``) and the function their page names instead
DEPRECATED = {"asc_set_gm2ub_pad": "asc_set_copy_pad_val"}
UINT8 = by_name("uint8")  # the void* copies on the 950 run copy_*_align_v2 on uint8_t


def c_api_move_page(name: str, arch: int | None = None) -> str:
    """The page of a C API data-movement function (``asc_copy_gm2ub_sync`` is on ``asc_copy_gm2ub``'s), for
    the four per-architecture functions the page of ``arch``."""
    base = _page_name(name)
    if base in PER_ARCH:
        return f"{FOLDER}/{base}/{base}_arch_{arch or ARCH_2201}.md"
    return f"{FOLDER}/{base}{'_deprecated' if base in DEPRECATED else ''}.md"


def _page_name(name: str) -> str:
    """The function a page is named after: ``_sync`` dropped, ``asc_set_ndim_loop3_stride`` ->
    ``asc_set_ndim_loop_stride``."""
    base = name.removesuffix("_sync")
    return "asc_set_ndim_loop_stride" if base.startswith("asc_set_ndim_loop") else base


def _arch(core: Core, name: str) -> int:
    """The architecture whose page a call follows; an :class:`UnsupportedError` where no page supports it."""
    base = _page_name(name)
    archs = SUPPORTED_ARCHS[base]
    if core.chip.npu_arch not in archs:
        raise unsupported_on(core.chip, name, base, lambda chip: chip.npu_arch in archs,
                             f"{c_api_move_page(name, min(archs))} 产品支持情况; {RULES}")
    return core.chip.npu_arch


def _source(name: str, arch: int, section: str = "参数说明") -> str:
    return f"{c_api_move_page(name, arch)} {section}; {RULES}"


# ------------------------------------------------------------------ operands
def _operands(name: str, direction: str, core: Core, bound: dict) -> tuple:
    """``(dst, src)`` checked for the function's data path: usable, UB operands 32-byte aligned."""
    dst = copy_endpoint(name, "dst", bound["dst"], core)
    src = copy_endpoint(name, "src", bound["src"], core)
    want = {GM_TO_UB: (LocalTensor, GlobalTensor), UB_TO_GM: (GlobalTensor, LocalTensor),
            UB_TO_UB: (LocalTensor, LocalTensor)}[direction]
    if not (isinstance(dst, want[0]) and isinstance(src, want[1])):
        raise TypeError(f"{name}: the data path is {direction}: dst must be an asc.{want[0].__name__}, src an "
                        f"asc.{want[1].__name__} (got {type(dst).__name__}, {type(src).__name__})")
    return dst, src


def _typed(name: str, arch: int, dst, src) -> DType:
    """The element type of a typed copy (``_align``): dst's and src's, one the page lists."""
    source = _source(name, arch, "函数原型")
    if src.dtype != dst.dtype:
        raise UnsupportedError(name, "src dtype", src.dtype.name, "dst and src point to the same type T",
                               dst.dtype.name, source)
    require_dtype(name, "dst", dst.dtype, ALIGN_DTYPES[name.removesuffix("_sync"), arch],
                  "the page has no prototype for this type", source)
    return dst.dtype


# ------------------------------------------------------------------ geometry
@dataclass(frozen=True)
class Bursts:
    """A call's bursts in bytes: ``count`` bursts of ``length`` bytes, each side's pitch (start to start)."""

    count: int
    length: int
    src_pitch: int
    dst_pitch: int


def _n_burst(name: str, value, source: str) -> int:
    return require_int(name, "n_burst", value, 1, MAX_N_BURST, source, rule="n_burst ∈ [1, 4095]")


def _size(name: str, bound: dict, source: str, aligned: bool, limit: int) -> int:
    """The ``size`` form's byte count: uint32_t, at least 1 (the burst it becomes has len_burst >= 1), at
    most ``limit``; a multiple of 32 where the page says so."""
    size = require_uint(name, "size", bound["size"], 32, source)
    if aligned and size % BLOCK_BYTES:
        raise ParameterRangeError(name, "size", size, "with the size form the byte count must be 32-byte aligned",
                                  "multiples of 32", source.replace("参数说明", "约束说明"))
    return require_int(name, "size", size, BLOCK_BYTES if aligned else 1, limit, source,
                       rule="the size form is one burst, within len_burst's range")


def _block_bursts(name: str, arch: int, form: str, bound: dict) -> Bursts:
    """The DataBlock geometry of A2/A3's copies and of asc_copy_ub2ub: len_burst and both gaps in blocks."""
    source = _source(name, arch)
    if form == "size":
        size = _size(name, bound, source, True, MAX_LEN_BURST_BLOCKS * BLOCK_BYTES)
        return Bursts(1, size, size, size)
    count = _n_burst(name, bound["n_burst"], source)
    blocks = require_int(name, "len_burst", bound["len_burst"], 1, MAX_LEN_BURST_BLOCKS, source,
                         rule="len_burst ∈ [1, 65535] DataBlocks")
    src_gap, dst_gap = (require_uint(name, n, bound[n], 16, source) for n in ("src_gap", "dst_gap"))
    length = blocks * BLOCK_BYTES
    return Bursts(count, length, length + src_gap * BLOCK_BYTES, length + dst_gap * BLOCK_BYTES)


def _stride_pair(form: str, bound: dict, order: tuple[str, str]) -> dict:
    """The two 950 strides by name: a ``burst`` call gives them in the positions the 2201 gaps take, in
    the 950 page's order ``order``."""
    if form == "burst":
        return dict(zip(order, (bound["src_gap"], bound["dst_gap"]), strict=True))
    return {n: bound[n] for n in order}


def _require_ub_stride(name: str, operand: str, stride: int, length: int, source: str) -> None:
    """The UB-side stride of a 950 copy: 32-byte aligned unless it equals len_burst (bursts packed)."""
    if stride != length and stride % BLOCK_BYTES:
        raise AlignmentError(name, operand, stride, f"a UB stride other than len_burst ({length}) must be "
                             "32-byte aligned", "len_burst, or multiples of 32",
                             source.replace("参数说明", "约束说明"))


# ------------------------------------------------------------------ the void* copies
def _compile_copy(name: str, direction: str, core: Core, form: str, bound: dict):
    """asc_copy_gm2ub / ub2gm / ub2ub: DataCopy's block plan (A2/A3, UB -> UB) or on the 950 the byte plan of
    copy_*_align_v2 (DataCopyPad's), under the path's loop-mode registers."""
    arch = _arch(core, name)
    if form == "burst_stride" and arch != ARCH_3510:
        raise _arch_form(name, core, arch, "(n_burst, len_burst, ...stride) prototype")
    dst, src = _operands(name, direction, core, bound)
    if arch == ARCH_3510 and direction != UB_TO_UB:
        return _finished(name, _byte_copy(name, direction, core, form, bound, dst, src))
    bursts = _block_bursts(name, arch, form, bound)
    src_runs = BlockRuns(bursts.count, bursts.length, bursts.src_pitch)
    dst_runs = BlockRuns(bursts.count, bursts.length, bursts.dst_pitch)
    src_runs, dst_runs, registers, looped = loop_mode_runs(name, core, direction, src_runs, dst_runs)
    plan = CopyPlan(direction, src_runs, dst_runs, registers_read=registers, gm_aligned=looped, instruction=name)
    plan.check(core, (dst, src))
    if looped:
        require_disjoint_dst(plan.dst, *DISJOINT["loop"], instruction=name)
    return _finished(name, plan)


def _byte_copy(name: str, direction: str, core: Core, form: str, bound: dict, dst, src) -> PadPlan:
    """The 950's asc_copy_gm2ub / ub2gm: uint8_t bursts of len_burst bytes (a uint16_t), strides head to head."""
    source = _source(name, ARCH_3510)
    if form == "size":
        size = _size(name, bound, source, True, (1 << 16) - 1)  # the impl passes size as the uint16_t len_burst
        return _pad_plan(name, direction, core, UINT8, Bursts(1, size, size, size), (0, 0), False, dst, src)
    count = _n_burst(name, bound["n_burst"], source)
    length = require_int(name, "len_burst", bound["len_burst"], 1, (1 << 16) - 1, source,
                         rule="len_burst is a uint16_t byte count ≥ 1 (the page's 2097151 does not fit it)")
    order = ("src_stride", "dst_stride") if direction == GM_TO_UB else ("dst_stride", "src_stride")
    strides = {n: require_uint(name, n, v, 16, source) for n, v in _stride_pair(form, bound, order).items()}
    bursts = Bursts(count, length, strides["src_stride"], strides["dst_stride"])
    return _pad_plan(name, direction, core, UINT8, bursts, (0, 0), False, dst, src)


def _arch_form(name: str, core: Core, arch: int, what: str) -> UnsupportedError:
    other = ARCH_3510 if arch == ARCH_2201 else ARCH_2201
    return UnsupportedError(name, "call form", what, f"this prototype is on the {other} page only, not on "
                            f"{core.chip.name}'s ({arch})", "the prototypes of this product's page",
                            _source(name, arch, "函数原型"))


# ------------------------------------------------------------------ the typed (_align) copies
ALIGN_2201_PARAMS = ("n_burst", "len_burst", "left_padding_num", "right_padding_num", "src_gap", "dst_gap")


def _compile_align(name: str, direction: str, core: Core, form: str, bound: dict):
    """asc_copy_gm2ub_align / ub2gm_align: DataCopyPad's plan, the geometry of the product's page."""
    arch = _arch(core, name)
    if (form == "burst" and arch != ARCH_2201) or (form == "burst_stride" and arch != ARCH_3510):
        raise _arch_form(name, core, arch, f"the {len(bound)}-argument prototype")
    dst, src = _operands(name, direction, core, bound)
    dtype = _typed(name, arch, dst, src)
    source = _source(name, arch)
    if form == "size":
        size = _size(name, bound, source, arch == ARCH_3510, MAX_LEN_BURST_BYTES)
        _require_whole_elements(name, "size", size, dtype, source)
        return _finished(name, _pad_plan(name, direction, core, dtype, Bursts(1, size, size, size), (0, 0),
                                         arch == ARCH_3510, dst, src))
    count = _n_burst(name, bound["n_burst"], source)
    length = require_int(name, "len_burst", bound["len_burst"], 1, MAX_LEN_BURST_BYTES, source,
                         rule="len_burst ∈ [1, 2097151] bytes")
    _require_whole_elements(name, "len_burst", length, dtype, source)
    if arch == ARCH_3510 and direction == UB_TO_GM:
        require_uint(name, "l2_cache_mode", bound["l2_cache_mode"], 8, source)  # a cache hint: no byte changes
        strides = {"dst_stride": require_uint(name, "dst_stride", bound["dst_stride"], 64, source),
                   "src_stride": require_uint(name, "src_stride", bound["src_stride"], 32, source)}
        return _finished(name, _pad_plan(name, direction, core, dtype, Bursts(count, length, strides["src_stride"],
                                                                                strides["dst_stride"]),
                                         (0, 0), False, dst, src))
    pads = _pads(name, bound, dtype, source)
    if direction == UB_TO_GM and any(pads):
        raise UnsupportedError(name, "left_padding_num / right_padding_num", pads, "not modelled: neither this "
                               "page nor DataCopyPad's says what padding does on UB -> GM (DataCopyPad passes 0)",
                               "0 and 0", source)
    if arch == ARCH_2201:  # the gaps of copy_*_align, as DataCopyPad (表5): bytes on GM, DataBlocks on UB
        gaps = {n: require_uint(name, n, bound[n], 32, source) for n in ("src_gap", "dst_gap")}
        row = align_up(pads[0] + length + pads[1], BLOCK_BYTES) if direction == GM_TO_UB else \
            align_up(length, BLOCK_BYTES)
        ub_gap, gm_gap = (gaps["dst_gap"], gaps["src_gap"]) if direction == GM_TO_UB else \
            (gaps["src_gap"], gaps["dst_gap"])
        ub_pitch, gm_pitch = row + ub_gap * BLOCK_BYTES, length + gm_gap
        bursts = Bursts(count, length, *((gm_pitch, ub_pitch) if direction == GM_TO_UB else (ub_pitch, gm_pitch)))
        return _finished(name, _pad_plan(name, direction, core, dtype, bursts, pads, False, dst, src,
                                         dst_pitch_checked=True))
    constant = require_bool(name, "enable_constant_pad", bound["enable_constant_pad"])
    require_uint(name, "l2_cache_mode", bound["l2_cache_mode"], 8, source)
    bursts = Bursts(count, length, require_uint(name, "src_stride", bound["src_stride"], 64, source),
                    require_uint(name, "dst_stride", bound["dst_stride"], 32, source))
    return _finished(name, _pad_plan(name, direction, core, dtype, bursts, pads, not constant, dst, src))


def _require_whole_elements(name: str, operand: str, nbytes: int, dtype: DType, source: str) -> None:
    if nbytes % dtype.itemsize:
        raise ParameterRangeError(name, operand, nbytes, f"a byte count of whole {dtype} elements (DataCopyPad's "
                                  "block_len rule: the burst is T data)", f"multiples of {dtype.itemsize}",
                                  f"{source}; {pages.DATA_COPY_PAD} 约束说明")


def _pads(name: str, bound: dict, dtype: DType, source: str) -> tuple[int, int]:
    """left / right padding in bytes: uint8_t element counts of at most 32 bytes each."""
    sides = []
    for operand in ("left_padding_num", "right_padding_num"):
        elems = require_uint(name, operand, bound[operand], 8, source)
        if elems * dtype.itemsize > MAX_PAD_BYTES:
            raise ParameterRangeError(name, operand, elems, f"{elems} x {dtype.itemsize} bytes exceed 32 bytes",
                                      f"at most {MAX_PAD_BYTES // dtype.itemsize} elements",
                                      source.replace("参数说明", "约束说明"))
        sides.append(elems * dtype.itemsize)
    return sides[0], sides[1]


def _pad_plan(name: str, direction: str, core: Core, dtype: DType, bursts: Bursts, pads: tuple[int, int],
              pads_from_first: bool, dst, src, dst_pitch_checked: bool = False) -> PadPlan:
    """DataCopyPad's plan for these bursts: GM -> UB rows padded to 32 bytes (``[left][data][right][dummy]``)
    unless the UB stride equals len_burst (bursts packed, no pads); checked, under the loop registers."""
    inbound = direction == GM_TO_UB
    left, right = pads
    ub_pitch = bursts.dst_pitch if inbound else bursts.src_pitch
    source = _source(name, core.chip.npu_arch)
    row = align_up(left + bursts.length + right, BLOCK_BYTES) if inbound else bursts.length
    if not dst_pitch_checked:  # the 950: a UB stride given head to head in bytes
        _require_ub_stride(name, "dst_stride" if inbound else "src_stride", ub_pitch, bursts.length, source)
        if inbound and ub_pitch == bursts.length:
            if left or right:
                raise UnsupportedError(name, "dst_stride", ub_pitch, "not modelled: packed bursts (dst_stride = "
                                       "len_burst) with padding", "a 32-byte aligned dst_stride of at least "
                                       f"{row}", source)
            row = bursts.length
        if bursts.count > 1 and ub_pitch < row:
            raise UnsupportedError(name, "dst_stride" if inbound else "src_stride", ub_pitch, "not modelled: UB "
                                   "bursts that overlap one another", f"at least {row}", source)
    src_runs = BlockRuns(bursts.count, bursts.length, bursts.src_pitch)
    dst_runs = BlockRuns(bursts.count, row if inbound else bursts.length, bursts.dst_pitch)
    src_runs, dst_runs, registers, looped = loop_mode_runs(name, core, direction, src_runs, dst_runs)
    plan = PadPlan(inbound, dtype, src_runs, dst_runs, left, right, False, 0, loop_registers_read=registers,
                   gm_aligned=looped, instruction=name, pads_from_first=pads_from_first)
    plan.check(core, (dst, src))
    if looped:
        require_disjoint_dst(plan.dst, *DISJOINT["loop"], instruction=name)
    return plan


def _finished(name: str, plan):
    return Synced(plan) if name.endswith("_sync") else plan


# ------------------------------------------------------------------ the registers
def _compile_pad_val(name: str, core: Core, form: str, bound: dict) -> PadValueWrite:
    """asc_set_copy_pad_val: set_mov_pad_val, the padding register set_pad_value loads (the C overload is
    the copy's T: npusim keeps the number and converts it when a copy uses it, as for set_pad_value)."""
    _arch(core, name)
    require_scalar(name, "pad_value", bound["pad_value"])
    return PadValueWrite(instruction=name, operand="pad_value")


@dataclass(eq=False)
class DeprecatedPadWrite(PadValueWrite):
    """A checked ``asc_set_gm2ub_pad``: warn that the page deprecates it, then load the register with the bits."""

    bits: int = 0

    def run(self, core: Core, values: tuple) -> None:
        replacement = DEPRECATED[self.instruction]
        warnings.warn(DeprecatedApiWarning(
            f"{self.instruction}: deprecated (废弃); use {replacement} to set the padding value "
            f"[{c_api_move_page(self.instruction)} 功能说明]"), stacklevel=user_stacklevel())
        core.load_pad_value(PadBits(self.bits))


def _compile_gm2ub_pad(name: str, core: Core, form: str, bound: dict) -> DeprecatedPadWrite:
    """asc_set_gm2ub_pad: set_pad_val_outtoub of the uint32_t, the register asc_set_copy_pad_val loads."""
    _arch(core, name)
    bits = require_uint(name, "pad_val", bound["pad_val"], 32, f"{c_api_move_page(name)} 函数原型; {semantics('5.25')}")
    return DeprecatedPadWrite(instruction=name, operand="pad_val", bits=bits)


@dataclass(eq=False)
class LoopFieldsWrite(SelfBinding):
    """A checked loop setter: two fields of one path's loop-mode registers after it (the others stay)."""

    attribute: str
    fields: tuple[tuple[str, int], ...]
    registers_written: tuple[str, ...] = ()
    pipe: str = "S"

    def run(self, core: Core, values: tuple) -> None:
        setattr(core, self.attribute, getattr(core, self.attribute)._replace(**dict(self.fields)))


#: per setter: its path, and its two parameters with the register field each loads
LOOP_SETTERS = {
    "asc_set_gm2ub_loop_size": (DataCopyMVType.OUT_TO_UB, ("loop1_size", "loop2_size")),
    "asc_set_gm2ub_loop1_stride": (DataCopyMVType.OUT_TO_UB, ("loop1_src_stride", "loop1_dst_stride")),
    "asc_set_gm2ub_loop2_stride": (DataCopyMVType.OUT_TO_UB, ("loop2_src_stride", "loop2_dst_stride")),
    "asc_set_ub2gm_loop_size": (DataCopyMVType.UB_TO_OUT, ("loop1_size", "loop2_size")),
    "asc_set_ub2gm_loop1_stride": (DataCopyMVType.UB_TO_OUT, ("loop1_src_stride", "loop1_dst_stride")),
    "asc_set_ub2gm_loop2_stride": (DataCopyMVType.UB_TO_OUT, ("loop2_src_stride", "loop2_dst_stride")),
}


def _loop_limit(path: DataCopyMVType, field: str) -> tuple[int, bool]:
    """``(limit, 32-byte aligned)`` of a field: sizes < 2^21; the UB-side strides < 2^21 and aligned, the GM
    side < 2^40 (the setters' pages, as SetLoopModePara's 表2)."""
    if field.endswith("size"):
        return SIZE_LIMIT, False
    on_ub = ("_dst_" in field) == (path == DataCopyMVType.OUT_TO_UB)
    return (UB_STRIDE_LIMIT, True) if on_ub else (GM_STRIDE_LIMIT, False)


def _compile_loop_setter(name: str, core: Core, form: str, bound: dict) -> LoopFieldsWrite:
    path, fields = LOOP_SETTERS[name]
    source = f"{c_api_move_page(name)} 参数说明; {RULES}"
    if not core.chip.loop_mode_api:
        raise unsupported_on(core.chip, name, name, lambda chip: chip.loop_mode_api,
                             f"{c_api_move_page(name)} 产品支持情况; {RULES}")
    values = []
    for field in fields:
        limit, aligned = _loop_limit(path, field)
        value = require_int(name, field, bound[field], 0, limit - 1, source)
        if aligned and value % BLOCK_BYTES:
            raise ParameterRangeError(name, field, value, "the UB-side stride must be 32-byte aligned",
                                      "multiples of 32", source)
        values.append((field, value))
    return LoopFieldsWrite(ATTRIBUTE[path], tuple(values), (REGISTER[path],))


def _compile_ub2l1(name: str, core: Core, form: str, bound: dict):
    _arch(core, name)
    raise UnsupportedError(name, "dst", "L1 Buffer", "not modelled: L1 is a cube-side buffer npusim has no "
                           "memory for (it models UB and GM)", "asc_copy_ub2ub or asc_copy_ub2gm",
                           f"{c_api_move_page(name)} 功能说明; {RULES}")


# ------------------------------------------------------------------ NDDMA
NDIM_DIMS = 5
NDIM_SIZE_LIMIT = 1 << 20  # loopi_size ∈ [1, 2^20 - 1]; dst strides ∈ [0, 2^20 - 1]
NDIM_SRC_STRIDE_LIMIT = 1 << 40
#: the page's element types (fp4x2_e2m1_t, fp4x2_e1m2_t and fp8_e8m0_t are not modelled)
NDIM_DTYPES = _B8_B16_B32 | {"float8_e5m2", "float8_e4m3fn"}
STRUCT_PAD_COUNT = pages.C_API_NDIM_PAD_COUNT_CONFIG
PAD_COUNT_FIELDS = tuple(f"loop{d}_{side}_count" for d in range(1, NDIM_DIMS) for side in ("lp", "rp"))


@dataclass
class NdimPadCountConfig:
    """``asc_ndim_pad_count_config`` (C-API/struct/asc_ndim_pad_count_config.md): the left / right padding
    element counts of loops 1-4 (uint8_t, default 0)."""

    loop1_lp_count: int = 0
    loop1_rp_count: int = 0
    loop2_lp_count: int = 0
    loop2_rp_count: int = 0
    loop3_lp_count: int = 0
    loop3_rp_count: int = 0
    loop4_lp_count: int = 0
    loop4_rp_count: int = 0


asc_ndim_pad_count_config = NdimPadCountConfig  # the C name


@dataclass(eq=False)
class NddmaWrite(SelfBinding):
    """A checked NDDMA register setter: the registers after it (a pad value is read per call)."""

    strides: tuple[int, tuple[int, int]] | None = None  # (loop, (dst, src))
    pad_counts: tuple[tuple[int, int], ...] | None = None
    registers_written: tuple[str, ...] = ("NDDMA",)
    pipe: str = "S"

    def run(self, core: Core, values: tuple) -> None:
        regs = core.nddma
        if self.strides is not None:
            loop, pair = self.strides
            regs = regs._replace(strides=tuple(pair if d == loop else v for d, v in enumerate(regs.strides)))
        elif self.pad_counts is not None:
            regs = regs._replace(pad_counts=self.pad_counts)
        else:  # the value is read per call: checked here, not only when the plan was made
            regs = regs._replace(pad_value=require_scalar("asc_set_ndim_pad_value", "pad_value", values[0]))
        core.nddma = regs


def _compile_ndim_stride(name: str, core: Core, form: str, bound: dict) -> NddmaWrite:
    _arch(core, name)
    source = f"{c_api_move_page(name)} 参数说明; {RULES}"
    dst = require_int(name, "dst_stride", bound["dst_stride"], 0, NDIM_SIZE_LIMIT - 1, source)
    src = require_int(name, "src_stride", bound["src_stride"], 0, NDIM_SRC_STRIDE_LIMIT - 1, source)
    return NddmaWrite(strides=(int(name[len("asc_set_ndim_loop")]), (dst, src)))


def _compile_ndim_pad_count(name: str, core: Core, form: str, bound: dict) -> NddmaWrite:
    _arch(core, name)
    config = bound["config"]
    if not isinstance(config, NdimPadCountConfig):
        raise TypeError(f"{name}: config must be an asc.asc_ndim_pad_count_config, got {type(config).__name__}")
    source = f"{STRUCT_PAD_COUNT} 字段详解; {RULES}"
    counts = [require_uint(name, f"config.{f}", getattr(config, f), 8, source) for f in PAD_COUNT_FIELDS]
    return NddmaWrite(pad_counts=tuple(zip(counts[::2], counts[1::2], strict=True)))


def _compile_ndim_pad_value(name: str, core: Core, form: str, bound: dict) -> NddmaWrite:
    _arch(core, name)
    require_scalar(name, "pad_value", bound["pad_value"])
    return NddmaWrite()


NDIM_PARAMS = (*(f"loop{d}_size" for d in range(NDIM_DIMS)), "loop0_lp_count", "loop0_rp_count")


def _compile_ndim_copy(name: str, core: Core, form: str, bound: dict):
    """asc_ndim_copy_gm2ub: DataCopy's NDDMA plan over five loops, the strides, loop 1-4 paddings and the
    constant from the NDDMA registers (its page's 表1, 表2)."""
    _arch(core, name)
    dst, src = _operands(name, GM_TO_UB, core, bound)
    source = f"{c_api_move_page(name)} 参数说明; {RULES}"
    if src.dtype != dst.dtype:
        raise UnsupportedError(name, "src dtype", src.dtype.name, "dst and src point to the same type T",
                               dst.dtype.name, f"{c_api_move_page(name)} 函数原型; {RULES}")
    require_dtype(name, "dst", dst.dtype, NDIM_DTYPES, "the page has no prototype for this type",
                  f"{c_api_move_page(name)} 函数原型; {RULES}")
    sizes = [require_int(name, f"loop{d}_size", bound[f"loop{d}_size"], 1, NDIM_SIZE_LIMIT - 1, source)
             for d in range(NDIM_DIMS)]
    lp0, rp0 = (require_uint(name, n, bound[n], 8, source) for n in ("loop0_lp_count", "loop0_rp_count"))
    constant = require_bool(name, "padding_mode", bound["padding_mode"])
    require_uint(name, "l2_cache_mode", bound["l2_cache_mode"], 8, source)
    regs = core.nddma
    lps, rps = [lp0, *(lp for lp, _ in regs.pad_counts)], [rp0, *(rp for _, rp in regs.pad_counts)]
    padded = any(lps) or any(rps)
    if constant and padded and regs.pad_value is None:
        raise UnsupportedError(name, "NDDMA pad value register", "never written", "not modelled: constant "
                               "padding before asc_set_ndim_pad_value (or an NDDMA data_copy) set the value",
                               "asc_set_ndim_pad_value first", f"{c_api_move_page('asc_set_ndim_pad_value')} "
                               f"功能说明; {RULES}")
    info = NdDmaLoopInfo([s for _, s in regs.strides], [d for d, _ in regs.strides], sizes, lps, rps)
    params = NdDmaParams(info, regs.pad_value if constant and padded else 0)
    plan = nddma_plan(name, core, dst, src, params, NdDmaConfig(is_nearest_value_mode=not constant),
                      loads_registers=False, registers_read=("NDDMA",))
    plan.check(core, (dst, src))
    return plan


def _nddma_context(core: Core) -> tuple:
    """An asc_ndim_copy_gm2ub plan depends on the NDDMA registers (-0.0 and 0.0 pad apart)."""
    regs: NddmaRegisters = core.nddma
    value = regs.pad_value
    return regs, math.copysign(1.0, value) if isinstance(value, float) and value == value else 0.0


# ------------------------------------------------------------------ forms and entries
def _anything(_value) -> bool:
    return True  # checked by the plan step, naming the operand


_PTRS = (Param("dst", _anything), Param("src", _anything))
SIZE_FORM = Form("size", (*_PTRS, Param("size", is_int_arg)))


def _ints(*names: str) -> tuple[Param, ...]:
    return tuple(Param(n, is_int_arg) for n in names)


def _copy_forms(direction: str, sync: bool) -> tuple[Form, ...]:
    if sync:
        return (SIZE_FORM,)
    forms = [SIZE_FORM, Form("burst", (*_PTRS, *_ints("n_burst", "len_burst", "src_gap", "dst_gap")))]
    if direction != UB_TO_UB:  # the 950 page's names, for keyword calls
        order = ("src_stride", "dst_stride") if direction == GM_TO_UB else ("dst_stride", "src_stride")
        forms.append(Form("burst_stride", (*_PTRS, *_ints("n_burst", "len_burst", *order))))
    return tuple(forms)


def _align_forms(direction: str, sync: bool) -> tuple[Form, ...]:
    if sync:
        return (SIZE_FORM,)
    if direction == GM_TO_UB:
        stride = (*_ints("n_burst", "len_burst", "left_padding_num", "right_padding_num"),
                  Param("enable_constant_pad", is_bool_arg), *_ints("l2_cache_mode", "src_stride", "dst_stride"))
    else:
        stride = _ints("n_burst", "len_burst", "l2_cache_mode", "dst_stride", "src_stride")
    return (SIZE_FORM, Form("burst", (*_PTRS, *_ints(*ALIGN_2201_PARAMS))), Form("burst_stride", (*_PTRS, *stride)))


def _loop_context(core: Core) -> tuple:
    """A GM copy's plan depends on the loop-mode registers (950; constant elsewhere)."""
    return core.loop_gm_to_ub, core.loop_ub_to_gm


def _arch_support(base: str, row=lambda chip: True):
    archs = SUPPORTED_ARCHS[base]
    return lambda chip: row(chip) if chip.npu_arch in archs else None


_GM = ("core.ub_write(0, bytes(range(256)) * 8)\n"
       "ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)\n"
       "x = asc.gm_alloc(asc.float16, 1024)\n"
       "x_gm = asc.GlobalTensor()\n"
       "x_gm.set_global_buffer(x)\n"
       "asc.data_copy(x_gm, ub, 1024)\n")
_UB2 = "out = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 1024)\n"

#: per void* copy: direction, pipe, summary, examples (A2: the default product of the examples)
_COPIES = {
    "asc_copy_gm2ub": (GM_TO_UB, "MTE2", "GM -> UB: size bytes, or n_burst bursts (A2/A3: DataBlocks and gaps; "
                       "950: bytes and strides)", ("asc.{n}(ub, x_gm, 256)", "asc.{n}(ub, x_gm[16:], 3, 2, 1, 0)")),
    "asc_copy_ub2gm": (UB_TO_GM, "MTE3", "UB -> GM: size bytes, or n_burst bursts (A2/A3: DataBlocks and gaps; "
                       "950: bytes and strides)", ("asc.{n}(x_gm[64:], ub, 512)", "asc.{n}(x_gm, ub, 2, 3, 0, 1)")),
    "asc_copy_ub2ub": (UB_TO_UB, "V", "UB -> UB: size bytes, or n_burst bursts of len_burst DataBlocks with gaps",
                       (_UB2 + "asc.{n}(out, ub, 256)", _UB2 + "asc.{n}(out, ub, 4, 1, 1, 2)")),
}
_ALIGNS = {
    "asc_copy_gm2ub_align": (GM_TO_UB, "MTE2", "GM -> UB unaligned (DataCopyPad): size bytes, or bursts of "
                             "len_burst bytes padded to 32 in UB",
                             ("asc.{n}(ub, x_gm[3:], 70)",
                              "asc.set_pad_value(-2.0)\nasc.{n}(ub, x_gm, 2, 20, 1, 2, 6, 1)")),
    "asc_copy_ub2gm_align": (UB_TO_GM, "MTE3", "UB -> GM unaligned (DataCopyPad): size bytes, or bursts of "
                             "len_burst bytes from 32-byte padded UB rows",
                             ("asc.{n}(x_gm[5:], ub, 46)", "asc.{n}(x_gm, ub, 3, 22, 0, 0, 1, 4)")),
}


def _gm_of(dtype: str) -> str:
    """The examples' GM and UB (``_GM``) of another element type."""
    return _GM.replace("asc.float16", f"asc.{dtype}")


#: the 950's own call forms (bytes and strides; docs/semantics.md §5.17) and element types (hifloat8_t, fp8,
#: §5.32; fp8_e8m0_t, §5.34), as (setup, call) pairs
_EXAMPLES_950 = {
    "asc_copy_gm2ub": ((_GM, "asc.{n}(ub, x_gm[16:], 96)"), (_GM, "asc.{n}(ub, x_gm[3:], 3, 40, 70, 64)"),
                       (_gm_of("fp8_e8m0_t"), "asc.{n}(ub, x_gm[5:], 2, 33, 50, 64)")),
    "asc_copy_ub2gm": ((_GM, "asc.{n}(x_gm[64:], ub, 64)"), (_GM, "asc.{n}(x_gm[1:], ub, 3, 22, 30, 64)"),
                       (_gm_of("hifloat8"), "asc.{n}(x_gm[7:], ub, 2, 17, 40, 32)")),
    "asc_copy_ub2ub": ((_GM + _UB2, "asc.{n}(out, ub, 256)"), (_GM + _UB2, "asc.{n}(out, ub, 4, 1, 1, 2)")),
    "asc_copy_gm2ub_align": ((_gm_of("hifloat8"), "asc.{n}(ub, x_gm[3:], 96)"),
                             (_gm_of("hifloat8"), "asc.{n}(ub, x_gm, 2, 20, 1, 2, True, 0, 30, 64)"),
                             (_gm_of("int8"), "asc.{n}(ub, x_gm[9:], 3, 11, 2, 0, False, 0, 13, 32)")),
    "asc_copy_ub2gm_align": ((_gm_of("hifloat8"), "asc.{n}(x_gm[5:], ub, 64)"),
                             (_gm_of("float16"), "asc.{n}(x_gm, ub, 3, 22, 0, 50, 64)")),
}


def _entry(name: str, alias_of: str | None, family: str, pipe: str, forms, compile_, support, summary: str,
           examples: tuple[str, ...], loop_context: bool = False, per_call: frozenset[str] = frozenset(),
           context=None, examples_950: tuple[str, ...] = ()):
    """Register one function; ``context(core)``: the registers its plans depend on (``loop_context``: the
    loop-mode registers)."""
    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if name.endswith("_sync") else ""
    page = c_api_move_page(name)
    context = _loop_context if loop_context else context
    return register(Instruction(
        name, "ascend", family, pipe, forms, lambda core, form, values: compile_(name, core, form, values),
        f"{page} 参数说明; {RULES}", support=support, exactness=BIT_EXACT, summary=summary, examples=examples,
        examples_on={"950": examples_950} if examples_950 else {}, per_call=per_call,
        plan_context=(lambda core, form, values: context(core)) if context else None,
        fast_context=context or (lambda core: ()),
        alias_of=alias_of, doc=f"``{name}``: {summary} ({page}; {RULES}).{barrier}",
    ))


def _gm_copy_entry(name: str, table: dict, alias_of: str, forms, compile_, support):
    """One GM <-> UB copy function of ``table`` (``_COPIES``: DataCopy's, ``_ALIGNS``: DataCopyPad's), or its
    ``_sync`` variant, which shows the first example only."""
    base = name.removesuffix("_sync")
    sync = name.endswith("_sync")
    direction, pipe, summary, examples = table[base]
    shown = examples[:1] if sync else examples
    on_950 = _EXAMPLES_950[base][:1] if sync else _EXAMPLES_950[base]
    return _entry(name, alias_of, "data_movement", pipe, forms(direction, sync),
                  lambda n, core, form, values: compile_(n, direction, core, form, values),
                  support(base), summary, tuple(_GM + e.format(n=name) for e in shown), loop_context=True,
                  examples_950=tuple(setup + e.format(n=name) for setup, e in on_950))


for _table, _alias, _forms, _compile, _support in (
        (_COPIES, "data_copy", _copy_forms, _compile_copy, _arch_support),
        (_ALIGNS, "data_copy_pad", _align_forms, _compile_align,
         lambda base: _arch_support(base, lambda chip: chip.data_copy_pad_dtypes or None))):
    for _name in _table:
        for _full in (_name, f"{_name}_sync"):
            globals()[_full] = _gm_copy_entry(_full, _table, _alias, _forms, _compile, _support)
            __all__.append(_full)

asc_set_copy_pad_val = _entry(
    "asc_set_copy_pad_val", "set_pad_value", "register", "S", (Form("", (Param("pad_value", _anything),)),),
    _compile_pad_val, _arch_support("asc_set_copy_pad_val"),
    "Load the padding register the _align copies pad with (set_mov_pad_val, as set_pad_value)",
    ("asc.asc_set_copy_pad_val(0)", "asc.asc_set_copy_pad_val(-1.5)"), per_call=frozenset({"pad_value"}))
__all__.append("asc_set_copy_pad_val")
asc_set_gm2ub_pad = _entry(
    "asc_set_gm2ub_pad", "set_pad_value", "register", "S", (Form("", _ints("pad_val")),), _compile_gm2ub_pad,
    _arch_support("asc_set_gm2ub_pad"),
    "Deprecated (use asc_set_copy_pad_val): load the padding register with a uint32_t bit pattern (950); warns "
    "DeprecatedApiWarning", ("asc.asc_set_gm2ub_pad(0)", "asc.asc_set_gm2ub_pad(0x3C00)"))
__all__.append("asc_set_gm2ub_pad")

for _name, (_path, _fields) in LOOP_SETTERS.items():
    globals()[_name] = _entry(
        _name, "set_loop_mode_para", "register", "S", (Form("", _ints(*_fields)),), _compile_loop_setter,
        lambda chip: chip.loop_mode_api or None,
        f"Load {' and '.join(_fields)} of the {'GM -> UB' if _path == DataCopyMVType.OUT_TO_UB else 'UB -> GM'} "
        "loop-mode registers (950), the ones set_loop_mode_para loads",
        (f"asc.{_name}({', '.join('2' if f.endswith('size') else '64' for f in _fields)})",))
    __all__.append(_name)

for _full in ("asc_copy_ub2l1", "asc_copy_ub2l1_sync"):
    globals()[_full] = _entry(
        _full, "data_copy", "data_movement", "MTE3",
        _copy_forms(UB_TO_UB, _full.endswith("_sync")), _compile_ub2l1, _arch_support("asc_copy_ub2l1"),
        "UB -> L1 (950): not modelled, L1 is a cube buffer npusim has no memory for (UnsupportedError)",
        ("ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)\n"
         "l1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, 128)\n"
         f"asc.{_full}(l1, ub, 256)",))
    __all__.append(_full)

_NDIM_SETUP = ("x = asc.gm_alloc(asc.float16, 64)\n"
               "x_gm = asc.GlobalTensor()\n"
               "x_gm.set_global_buffer(x)\n"
               "ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)\n"
               "asc.data_copy(x_gm, ub, 64)\n")
asc_ndim_copy_gm2ub = _entry(
    "asc_ndim_copy_gm2ub", "data_copy", "data_movement", "MTE2",
    (Form("", (*_PTRS, *_ints(*NDIM_PARAMS), Param("padding_mode", is_bool_arg), *_ints("l2_cache_mode"))),),
    _compile_ndim_copy, _arch_support("asc_ndim_copy_gm2ub"),
    "NDDMA GM -> UB over five loops with padding (950): sizes and loop 0's padding from the call, strides, "
    "loop 1-4 paddings and the constant from the NDDMA registers",
    # (the examples run on every product's core, and the setters are the 950's: registers at their power-on
    # zeros, one element moves; tests/ascend/test_move_c_api_gm.py runs the page's example)
    (_NDIM_SETUP + "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 256, 64)\n"
     "asc.asc_ndim_copy_gm2ub(z, x_gm, 1, 1, 1, 1, 1, 0, 0, True, 0)",),
    context=_nddma_context)
__all__ += ["asc_ndim_copy_gm2ub", "asc_ndim_pad_count_config", "NdimPadCountConfig"]

for _loop in range(NDIM_DIMS):
    _name = f"asc_set_ndim_loop{_loop}_stride"
    globals()[_name] = _entry(
        _name, None, "register", "S", (Form("", _ints("dst_stride", "src_stride")),), _compile_ndim_stride,
        _arch_support("asc_set_ndim_loop_stride"),
        f"Load loop {_loop}'s NDDMA strides (dst, src elements) that asc_ndim_copy_gm2ub reads (950)",
        (f"asc.{_name}(8, 8)",))
    __all__.append(_name)

asc_set_ndim_pad_count = _entry(
    "asc_set_ndim_pad_count", None, "register", "S", (Form("", (Param("config", _anything),)),),
    _compile_ndim_pad_count, _arch_support("asc_set_ndim_pad_count"),
    "Load loops 1-4's NDDMA padding counts (asc_ndim_pad_count_config) that asc_ndim_copy_gm2ub reads (950)",
    ("asc.asc_set_ndim_pad_count(asc.asc_ndim_pad_count_config())",))
asc_set_ndim_pad_value = _entry(
    "asc_set_ndim_pad_value", None, "register", "S", (Form("", (Param("pad_value", _anything),)),),
    _compile_ndim_pad_value, _arch_support("asc_set_ndim_pad_value"),
    "Load the NDDMA constant padding value asc_ndim_copy_gm2ub's constant mode pads with (950)",
    ("asc.asc_set_ndim_pad_value(2.0)",), per_call=frozenset({"pad_value"}))
__all__ += ["asc_set_ndim_pad_count", "asc_set_ndim_pad_value"]
