"""The Compare family: ``Compare`` / ``Compares`` to a UB bitmask, compare to CMPMASK, and the C API.

Semantics (docs/semantics.md §3; ``Compare.md``, ``Compares.md``, ``Compare（结果存入寄存器）.md``):

* Per lane, ``bit = src0 <op> src1`` (``Compares``: ``src0 <op> scalar``) for the six
  ``CMPMODE`` values, computed on the source dtype exactly: float16 and bfloat16 are widened
  to float32 (exact), NaN compares unordered (NE true, all others false) and +0 == -0
  (``CompareSupport.float_semantics``; an assumption for A2, docs/semantics.md §3.7).  int32 compares its
  two's-complement values; on A2/A3 and Kirin it is allowed with ``CMPMODE.EQ`` only.
* **Bitmask output** (docs/semantics.md §3.1): one bit per lane, LSB first; repeat ``r`` writes exactly
  ``E / 8`` bytes at ``dst + r * E / 8`` (16 B for half, 8 B for float/int32), packed
  contiguously.  Source strides follow the address formula of docs/semantics.md §1.1; the dst strides
  of ``BinaryRepeatParams`` / ``UnaryRepeatParams`` are validated but have no effect on
  the packed output (the hardware behaviour with non-default dst strides is undocumented,
  docs/semantics.md §3.1; the CCE and TIK descriptions of ``vcmpv`` have no dst stride at all).
* **Mask** (docs/semantics.md §3.2, ``CompareSupport.mask_honoured``): on A2/A3, 310P, 910 and Kirin the
  high-dim ``mask`` is a reserved parameter: every bit of every repeat is computed and
  written.  On 950 and 310B masked-off lanes produce 0 bits (their bytes are still written).
* **Count forms** (docs/semantics.md §3.3): ``count * sizeof(T)`` must be a multiple of 256; the call
  runs ``count * sizeof(T) / 256`` full repeats with default strides.  (The library would
  silently skip a partial tail; npusim rejects it, as the 950 does with a hard assert.)  On the 950 a
  64-bit T's loop stores 8 result bytes per 64 elements (two registers, ``CompareLevel2`` /
  ``CompareScalarLevel2``): with ``count / 32`` odd the last store's 4 bytes past the result bits are
  written too, all 0 (:data:`B64_STORE_LANES`).
* ``repeat_times == 0`` / ``count == 0`` writes nothing (parameters are still checked).  The
  docs guarantee the NOP on A2/A3 only; on the 950 "不保证…视为NOP" (Compare.md 约束说明),
  and npusim treats it as a NOP there too.
* **Counter mask mode**: ``vcmpv``/``vcmp`` document no counter-mode behaviour (docs/semantics.md §3.8) and
  the library never combines them, so on products whose compare is the native instruction
  (``counter_mode_modelled`` false) a high-dim, count or register compare issued while the
  core is in counter mode raises :class:`~npusim.errors.UnsupportedError` rather than guess.
  On the 950 the VF emulation takes the element count from the mask argument
  (``CompareLevel0CounterMode``): ``ceil(count / E)`` repeats, the last one's tail bits 0.
* **Compare to CMPMASK** (docs/semantics.md §3.5): one repeat of 256 bytes; only the source block strides
  matter.  The E result bits go to CMPMASK bits ``0..E-1``.  A2/A3 and 310P
  (``register_keeps_masked_bits``): masked-off bits keep their previous value, as do bits
  ``E..127``; 950: the whole register is rewritten, inactive bits and bits ``E..127`` zero,
  and the result is staged in UB scratch at ``GetRuntimeUBSize()`` (a visible write).
* **Register side effects**: where the lowering calls ``SetMask``/``SetVectorMask`` with the
  mask argument (``CompareSupport.mask_arg_sets_register``), the vector mask register keeps
  that value after the call.  ``is_set_mask=False`` (``Compares`` and compare to register)
  means the mask argument is a placeholder and the lanes come from the vector mask register
  set beforehand (``Compares.md`` 表1); for ``Compare`` to a bitmask the parameter is
  reserved and must stay ``True`` (``Compare.md`` 表1).
* **The C API** (docs/semantics.md §3.6; ``include/c_api/vector_compute/vector_compute.h``):
  ``asc_<op>`` is the bare ``vcmpv_<op>`` (to a uint8 UB bitmask) or ``vcmp_<op>`` (to
  CMPMASK), ``asc_<op>_scalar`` the bare ``vcmpvs_<op>``; exactly those overloads, no count
  form.  The C API exists on Atlas A2/A3 only (the 950's register-level ``asc_ne_scalar`` ... take the vector
  first too: no page has a scalar-first compare in the C API).  ``*_sync`` variants add a
  ``pipe_barrier(PIPE_ALL)``, which the emulator records.  They are registered as aliases of
  ``compare`` / ``compare_scalar``: the same plans.

* **The flexible scalar position** (docs/semantics.md §3.9; ``Compares（灵活标量位置）.md``, the 950 only):
  ``compare_scalar(dst, src0, src1, cmp_mode, ...)`` with either source a number or a tensor's first element
  (``scalar_tensor_index`` when both are tensors, :mod:`.flexible_scalar`).  With the scalar first a lane's
  bit is ``scalar <op> src1_i`` (``dav_3510`` ``CompareSrc0Scalar*`` / ``CompareScalarBothTensor*``:
  ``Compare(dst, scalarReg, src1Reg)``); the forms, types and rules are Compares' own.

On the engine (docs/architecture.md): ``compile`` checks every rule with the call's real
tensors and plans its geometry (:class:`ComparePlan`: no tensor address);
:meth:`ComparePlan.bind` makes the checks that depend on where the tensors are (alignment,
extents, overlap, the scratch) and the views (:class:`CompareBinding`);
:meth:`CompareBinding.run` compares, packs, then commits.  A rejected call leaves UB and
every register unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import div_up, require_bool, require_int, require_uint
from .. import pages
from ..addressing import REPEAT_BYTES, ActiveLanes, lanes_per_repeat
from ..chips import CompareSupport, unsupported_on
from ..core import CMPMASK_BYTES, Core
from ..footprint import Footprint, bytes_footprint, check_clear_of_scratch, check_overlap, strided_footprint
from ..masking import (
    MAX_REPEAT,
    MaskWords,
    bitwise_mask_words,
    contiguous_mask_length,
    lanes_from_mask_arg,
    lanes_from_register,
    mask_arg_words,
)
from ..operands import ByteSpan, OperandAccess, StridedOperand, choose_layout
from ..tensor import LocalTensor
from ..types import CMPMODE, BinaryRepeatParams, MaskMode, UnaryRepeatParams
from .common import (
    c_api_page,
    is_scalar,
    is_tensor,
    record_pipe_barrier,
    require_c_api,
    require_dtype,
    require_repeat_params,
    require_ub_tensor,
    scalar_bits,
)
from .flexible_scalar import (
    FLEX_PREFIX,
    FLEXIBLE_PRODUCTS,
    SCALAR_INDEX,
    SRC0,
    SRC1,
    ScalarPosition,
    scalar_position,
    scalar_raw_bits,
    with_element,
)

__all__ = [
    "COMPARE_FORMS", "COMPARE_SCALAR_FORMS", "CompareBinding", "CompareCall", "ComparePlan", "LaneComparison",
    "asc_eq", "asc_eq_scalar", "asc_eq_scalar_sync", "asc_eq_sync", "asc_ge", "asc_ge_scalar", "asc_ge_scalar_sync",
    "asc_ge_sync", "asc_gt", "asc_gt_scalar", "asc_gt_scalar_sync", "asc_gt_sync", "asc_le", "asc_le_scalar",
    "asc_le_scalar_sync", "asc_le_sync", "asc_lt", "asc_lt_scalar", "asc_lt_scalar_sync", "asc_lt_sync", "asc_ne",
    "asc_ne_scalar", "asc_ne_scalar_sync", "asc_ne_sync", "compare", "compare_scalar",
]

COUNT_MAX = (1 << 32) - 1  # count is uint32_t (Compare.md)
#: Lanes per result store of the 950's count loop for 64-bit T (docs/semantics.md §3.3): dav_3510
#: ``CompareLevel2`` / ``CompareScalarLevel2`` / ``CompareSrc0ScalarLevel2`` / ``CompareScalarLevel2B64`` take
#: ``GetVecLen() / sizeof(T) * 2`` elements per iteration and store its MaskReg with ``StoreUnAlign`` as
#: uint32, which packs 8 bytes (MaskReg非对齐搬出（StoreUnAlign）.md 关键特性说明); the lanes past ``count``
#: are inactive in ``UpdateMask`` and Compare zeroes them (Reg Compare.md 约束说明).
B64_STORE_LANES = 64
WIDEN_FROM = 4096  # elements: from here a 16-bit float compare widens to float32 first (LaneComparison.operand)
COUNT_SOURCE = f"{pages.COMPARE} 约束说明; {semantics('3.3')}"
COUNTER_MODE_SOURCE = semantics("3.8")  # vcmpv/vcmp in counter mode: undocumented, never issued by the library
MASK_SOURCE = f"{pages.COMPARE} mask/mask[]参数说明; {semantics('3.2')}"
PARAMETER_SOURCE = f"{pages.COMPARE} 模板参数及接口参数说明; {semantics('3.2')}"
REPEAT_SOURCE = f"{pages.HIGH_DIM} 迭代控制; {semantics('1.1')}"
REGISTER_DTYPE_SOURCE = f"{pages.COMPARE_TO_REGISTER} 数据类型; {semantics('3.5')}"
REGISTER_ORDER = ("CMPMASK", "MASK", "MASK_MODE")
_PAGES = {"Compare": pages.COMPARE, "Compares": pages.COMPARES}  # their sections have the same names

_OPERATORS = {
    CMPMODE.LT: np.less,
    CMPMODE.GT: np.greater,
    CMPMODE.EQ: np.equal,
    CMPMODE.LE: np.less_equal,
    CMPMODE.GE: np.greater_equal,
    CMPMODE.NE: np.not_equal,
}
_SYMBOLS = {CMPMODE.EQ: "==", CMPMODE.NE: "!=", CMPMODE.LT: "<", CMPMODE.LE: "<=", CMPMODE.GT: ">",
            CMPMODE.GE: ">="}


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_mask(v) -> bool:
    return _is_int(v) or isinstance(v, (list, tuple, np.ndarray))


def _any(_v) -> bool:
    return True


def _uint(v) -> bool:
    return isinstance(v, int) or hasattr(v, "__index__")


COMPARE_FORMS = (
    Form("count", (
        Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
        Param("cmp_mode", _is_int), Param("count", _is_int),
    )),
    Form("mask", (
        Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
        Param("cmp_mode", _is_int), Param("mask", _is_mask), Param("repeat_times", _is_int),
        Param("repeat_params", lambda v: isinstance(v, BinaryRepeatParams)), Param("is_set_mask", _any, True),
    )),
    Form("register", (
        Param("src0", is_tensor), Param("src1", is_tensor), Param("cmp_mode", _is_int), Param("mask", _is_mask),
        Param("repeat_params", lambda v: isinstance(v, BinaryRepeatParams)), Param("is_set_mask", _any, True),
    )),
)

COMPARE_SCALAR_FORMS = (
    Form("count", (
        Param("dst", is_tensor), Param("src0", is_tensor), Param("src1_scalar", is_scalar),
        Param("cmp_mode", _is_int), Param("count", _is_int),
    )),
    Form("mask", (
        Param("dst", is_tensor), Param("src0", is_tensor), Param("src1_scalar", is_scalar),
        Param("cmp_mode", _is_int), Param("mask", _is_mask), Param("repeat_times", _is_int),
        Param("repeat_params", lambda v: isinstance(v, UnaryRepeatParams)), Param("is_set_mask", _any, True),
    )),
)

#: the flexible scalar position (Compares（灵活标量位置）.md 函数原型): src0 and src1 each a number or a tensor
FLEXIBLE_SCALAR_FORMS = (
    Form("flexible_count", (
        Param("dst", is_tensor), SRC0, SRC1, Param("cmp_mode", _is_int), Param("count", _is_int), SCALAR_INDEX,
    )),
    Form("flexible_mask", (
        Param("dst", is_tensor), SRC0, SRC1, Param("cmp_mode", _is_int), Param("mask", _is_mask),
        Param("repeat_times", _is_int), Param("repeat_params", lambda v: isinstance(v, UnaryRepeatParams)),
        Param("is_set_mask", _any, True), SCALAR_INDEX,
    )),
)
_IS_SET_MASK_AT = {form.name: form.names.index("is_set_mask")
                   for form in (*COMPARE_FORMS, *COMPARE_SCALAR_FORMS, *FLEXIBLE_SCALAR_FORMS)
                   if "is_set_mask" in form.names}
FLEXIBLE_SOURCE = f"{pages.COMPARES_FLEXIBLE} 产品支持情况; {semantics('3.9')}"

_STRIDES8 = ("dst_block_stride", "src0_block_stride", "src1_block_stride",
             "dst_repeat_stride", "src0_repeat_stride", "src1_repeat_stride")
_SCALAR_STRIDES16 = ("dst_block_stride", "src_block_stride", "dst_repeat_stride", "src_repeat_stride")
C_API_FORMS = (  # vector_compute.h: to a uint8 UB bitmask, or to CMPMASK
    Form("to_ub", (Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
                   Param("repeat", _uint), *(Param(n, _uint) for n in _STRIDES8))),
    Form("to_register", (Param("src0", is_tensor), Param("src1", is_tensor), Param("repeat", _uint),
                         *(Param(n, _uint) for n in _STRIDES8))),
)
C_API_SCALAR_FORMS = (
    Form("to_ub", (Param("dst", is_tensor), Param("src", is_tensor), Param("value", is_scalar),
                   Param("repeat", _uint), *(Param(n, _uint) for n in _SCALAR_STRIDES16))),
)
_SCALAR_AT = 2  # the scalar's place in every scalar form (compare_scalar's src1_scalar, the C API's value)


@dataclass
class CompareCall:
    """A checked compare's geometry: lanes, strides, and where the result bits go (no tensor address).

    Attributes:
        lanes: the repeats issued and, per lane, whether it is active.  Every lane of every
            repeat owns one result bit; inactive lanes are not read and their bit is 0
            (bitmask) or left alone / zeroed (CMPMASK, per product).
        strides: ``(src0_blk, src0_rep, src1_blk, src1_rep)`` in DataBlocks.
        operands: the values that bind per call, in the order the plan step checks them: the
            tensors (``dst``, then ``src0`` — ``src`` in the C API's vcmpvs — and ``src1``), then a
            scalar (``src1_scalar`` / ``value``; a flexible form's number ``src0`` or ``src1``), whose
            conversion the plan step checks after them.  A tensor element as the scalar is not here: its
            :class:`~.flexible_scalar.ElementScalarPlan` binds it.
        to_register: the result goes to CMPMASK (no dst).
        mask_words_after: the vector mask register value the call leaves behind, if it sets one.
        extent_checks: ``(operand, bytes)``: the first bytes of an operand the plan step checks
            against UB and the tensor before it builds any footprint (count forms, counter mode).
        dst_tail: zero bytes the call stores after the packed result bits (a 64-bit count form's last
            half-filled 8-byte store, :data:`B64_STORE_LANES`).
        reads_mask_words, reads_mask_mode: the plan depends on the vector mask / the mask mode.
        sync: a ``*_sync`` C API call: ``pipe_barrier(PIPE_ALL)`` follows.
        scalar: the scalar operand's name, ``None`` for tensor-tensor.
        scalar_at: its place among the call's values.
        scalar_first: the scalar is the left operand (``scalar <op> src1_i``, the flexible forms).
    """

    instruction: str
    support: CompareSupport
    dtype: DType
    mode: CMPMODE
    lanes: ActiveLanes
    strides: tuple[int, int, int, int]
    operands: tuple[str, ...]
    to_register: bool = False
    mask_words_after: MaskWords | None = None
    extent_checks: tuple[tuple[str, int], ...] = ()
    dst_tail: int = 0
    reads_mask_words: bool = False
    reads_mask_mode: bool = True
    sync: bool = False
    scalar: str | None = None
    scalar_at: int = _SCALAR_AT
    scalar_first: bool = False

    @property
    def registers_read(self) -> tuple[str, ...]:
        keeps = self.to_register and self.support.register_keeps_masked_bits  # the bits it does not write
        return tuple(name for name, read in zip(REGISTER_ORDER, (keeps, self.reads_mask_words, self.reads_mask_mode),
                                                strict=True) if read)

    @property
    def registers_written(self) -> tuple[str, ...]:
        return ("CMPMASK",) * self.to_register + ("MASK",) * (self.mask_words_after is not None)


# ------------------------------------------------------------------- planning
def _support(core: Core, instruction: str, what: str, has) -> CompareSupport:
    support = core.chip.compare
    if support is None or not has(support):
        raise unsupported_on(core.chip, instruction, what, lambda c: c.compare is not None and has(c.compare),
                             f"{_PAGES[what]} 产品支持情况; {semantics('3.4')}")
    return support


def _register_support(core: Core, instruction: str) -> CompareSupport:
    support = core.chip.compare
    if support is None or not support.register_compare:
        raise unsupported_on(core.chip, instruction, "Compare with the result in CMPMASK",
                             lambda c: c.compare is not None and c.compare.register_compare,
                             f"{pages.COMPARE_TO_REGISTER} 产品支持情况; {semantics('3.5')}")
    return support


def _cmp_mode(instruction: str, value) -> CMPMODE:
    mode = int(value)
    if mode not in {m.value for m in CMPMODE}:
        raise ParameterRangeError(instruction, "cmp_mode", mode, "unknown CMPMODE",
                                  ", ".join(f"{m.name}={m.value}" for m in CMPMODE), PARAMETER_SOURCE)
    return CMPMODE(mode)


def _tensors(instruction: str, core: Core, named: tuple[tuple[str, LocalTensor | None], ...]) -> dict:
    """Each tensor checked (usable, in UB, aligned) in order; the checked ones by name."""
    return {name: require_ub_tensor(instruction, name, tensor, core) for name, tensor in named if tensor is not None}


def _check_dtypes(instruction: str, core: Core, support: CompareSupport, form: str, mode: CMPMODE,
                  src0: LocalTensor, src1: LocalTensor | None, dst: LocalTensor, *, scalar: bool,
                  src0_name: str = "src0", page: str | None = None) -> None:
    product = core.chip.name
    dtypes = support.scalar_dtypes if scalar else support.dtypes
    if form != "count":
        dtypes = dtypes - support.count_only_dtypes
    page = page or (pages.COMPARES if scalar else pages.COMPARE)
    doc = page.rsplit("/", 1)[-1]
    source = f"{page} 数据类型; {semantics('3.4')}"
    require_dtype(instruction, src0_name, src0.dtype, dtypes,
                  f"{doc} '数据类型': not a supported T{'' if form == 'count' else ' of the high-dim forms'} "
                  f"on {product}", source)
    if src1 is not None and src1.dtype != src0.dtype:
        raise UnsupportedError(instruction, "src1 dtype", src1.dtype.name, "src1 must have src0's dtype",
                               src0.dtype.name, source)
    eq_only = support.scalar_eq_only_dtypes if scalar else support.eq_only_dtypes
    if src0.dtype.name in eq_only and mode != CMPMODE.EQ:
        raise UnsupportedError(instruction, "cmp_mode", mode.name,
                               f"{src0.dtype} data supports only CMPMODE.EQ on {product}", "EQ", source)
    require_dtype(instruction, "dst", dst.dtype, support.scalar_dst_dtypes if scalar else support.dst_dtypes,
                  f"{doc} '数据类型': not a supported bitmask type U on {product}", source)


def _check_register_dtypes(instruction: str, core: Core, support: CompareSupport, src0: LocalTensor,
                           src1: LocalTensor) -> None:
    require_dtype(instruction, "src0", src0.dtype, support.register_dtypes,
                  f"Compare（结果存入寄存器）.md: not a supported T on {core.chip.name}", REGISTER_DTYPE_SOURCE)
    if src1.dtype != src0.dtype:
        raise UnsupportedError(instruction, "src1 dtype", src1.dtype.name, "src1 must have src0's dtype",
                               src0.dtype.name, REGISTER_DTYPE_SOURCE)


def _require_normal_mode(instruction: str, core: Core, support: CompareSupport) -> None:
    if core.mask_mode == MaskMode.COUNTER and not support.counter_mode_modelled:
        raise UnsupportedError(
            instruction, "mask mode", "counter",
            f"the compare instruction on {core.chip.product} has no documented counter-mode behaviour; "
            "npusim does not guess it", "normal mode (call set_mask_norm first)", COUNTER_MODE_SOURCE,
        )


def _check_extents(instruction: str, checks: tuple[tuple[str, int], ...], tensors: dict) -> None:
    """The first ``bytes`` of each operand inside UB and its tensor (checked before any footprint is made)."""
    for name, nbytes in checks:
        tensor = tensors[name]
        tensor.check_span(instruction, name, tensor.addr, tensor.addr + nbytes)


def _plan_bitmask(instruction: str, core: Core, form: str, bound: dict, *, scalar: bool,
                  position: ScalarPosition | None = None) -> tuple[CompareCall, dict]:
    """The checked call of a ``compare`` / ``compare_scalar`` bitmask form, and its operands by name.

    ``position``: a flexible-scalar call's vector and scalar (``form`` then names the plain form, count or
    mask); a tensor element as the scalar is left to :func:`.flexible_scalar.with_element`."""
    what = "Compares" if scalar else "Compare"
    support = _support(core, instruction, what, (lambda s: bool(s.scalar_dtypes)) if scalar else
                       (lambda s: bool(s.dtypes)))
    mode = _cmp_mode(instruction, bound["cmp_mode"])
    vector = position.vector if position is not None else "src0"
    sources = (vector,) if scalar else ("src0", "src1")
    tensors = _tensors(instruction, core, (("dst", bound["dst"]), *((name, bound[name]) for name in sources)))
    dst, src0, src1 = tensors["dst"], tensors[vector], tensors.get("src1") if not scalar else None
    _check_dtypes(instruction, core, support, form, mode, src0, src1, dst, scalar=scalar, src0_name=vector,
                  page=pages.COMPARES_FLEXIBLE if position is not None else None)
    dtype = src0.dtype
    operands = tuple(tensors)
    call = CompareCall(instruction, support, dtype, mode, None, (1, 8, 1, 8), operands)  # type: ignore[arg-type]
    if scalar:
        call.scalar = position.scalar if position is not None else "src1_scalar"
        if position is not None:
            call.scalar_at, call.scalar_first = position.at, position.scalar == "src0"
        if position is None or not position.element:
            scalar_bits(instruction, call.scalar, bound[call.scalar], dtype)  # rejected now; read per call
            tensors[call.scalar] = bound[call.scalar]
            call.operands += (call.scalar,)
    if form == "count":
        call.lanes, call.extent_checks, call.dst_tail = _count_lanes(instruction, core, support, bound["count"],
                                                                     tensors, sources)
        call.reads_mask_mode = not support.counter_mode_modelled
    else:
        params_cls = UnaryRepeatParams if scalar else BinaryRepeatParams
        fields = require_repeat_params(instruction, bound["repeat_params"], params_cls)
        # Unary: (dst_blk, src_blk, dst_rep, src_rep); Binary: (dst_blk, s0_blk, s1_blk, dst_rep, s0_rep, s1_rep).
        call.strides = (fields[1], fields[3], 0, 0) if scalar else (fields[1], fields[4], fields[2], fields[5])
        is_set_mask = require_bool(instruction, "is_set_mask", bound["is_set_mask"])
        if not scalar and not is_set_mask:
            raise ParameterRangeError(
                instruction, "is_set_mask", False, "is_set_mask is a reserved parameter of Compare to a "
                "bitmask; keep the default", "True", PARAMETER_SOURCE,
            )
        _high_dim_lanes(call, core, "compares" if scalar else "compare", bound["mask"], bound["repeat_times"],
                        is_set_mask, tensors, element=position is not None and position.element)
    return call, tensors


def _count_lanes(instruction: str, core: Core, support: CompareSupport, count, tensors: dict,
                 sources: tuple[str, ...]) -> tuple[ActiveLanes, tuple[tuple[str, int], ...], int]:
    """Full repeats covering ``count`` elements, after checking that they fit every operand (dst and the
    tensors named in ``sources``); also those extent checks and the zero bytes stored after the result bits
    (:data:`B64_STORE_LANES`)."""
    dtype = tensors[sources[0]].dtype
    itemsize = dtype.itemsize
    count = require_int(instruction, "count", count, 0, COUNT_MAX, COUNT_SOURCE, rule="count is uint32_t")
    if count * itemsize % REPEAT_BYTES:
        step = REPEAT_BYTES // itemsize
        raise ParameterRangeError(
            instruction, "count", count, f"count * sizeof({dtype}) must be a multiple of 256 bytes "
            "(elements past the last whole repeat would not be compared)", f"multiples of {step}", COUNT_SOURCE,
        )
    _require_normal_mode(instruction, core, support)
    repeats = count * itemsize // REPEAT_BYTES
    lanes = lanes_per_repeat(itemsize)
    tail = (div_up(count, B64_STORE_LANES) * B64_STORE_LANES - count) // 8 if itemsize == 8 else 0
    # Bounds first, from the contiguous extents, so a huge count never builds huge index arrays.
    checks: tuple[tuple[str, int], ...] = ()
    if repeats:
        checks = (*((name, repeats * REPEAT_BYTES) for name in sources), ("dst", repeats * lanes // 8 + tail))
        _check_extents(instruction, checks, tensors)
    return ActiveLanes(repeats, lanes, None, repeats * lanes), checks, tail


def _high_dim_lanes(call: CompareCall, core: Core, kind: str, mask, repeat_times, is_set_mask: bool,
                    tensors: dict, *, element: bool = False) -> None:
    """Lanes of a high-dim bitmask form and the vector mask register value it leaves, if any.

    ``element``: a flexible call whose scalar is a tensor element; its ``mask[]`` form sets the register in
    counter mode too (dav_3510 ``VcmpvsImpl`` of two tensors calls ``SetVectorMask`` before it tests the
    mode; the other forms only in normal mode)."""
    instruction, support, itemsize = call.instruction, call.support, call.dtype.itemsize
    lanes = lanes_per_repeat(itemsize)
    _require_normal_mode(instruction, core, support)
    counter = core.mask_mode == MaskMode.COUNTER
    if not support.mask_honoured:
        _check_reserved_mask(instruction, mask, itemsize)
        repeat_times = require_int(instruction, "repeat_times", repeat_times, 0, MAX_REPEAT, REPEAT_SOURCE)
        call.lanes = ActiveLanes(repeat_times, lanes, None, repeat_times * lanes)
        return
    if not is_set_mask:
        if counter:
            raise _spill_unsupported(instruction, core)
        call.lanes, call.reads_mask_words = lanes_from_register(core, instruction, repeat_times, itemsize), True
        return
    if counter:
        words = mask_arg_words(instruction, mask, itemsize, True, counter, core.tolerance)
        # ceil(count / E) repeats of E/8 bytes each: check the extent before building lanes.
        call.extent_checks = (("dst", div_up(words[0], lanes) * lanes // 8),)
        _check_extents(instruction, call.extent_checks, tensors)
    call.lanes, words = lanes_from_mask_arg(core, instruction, mask, repeat_times, itemsize, lowering_counts_raw=True)
    form_key = f"{kind}_{'len' if _is_int(mask) else 'bits'}"
    if (not counter or element) and form_key in support.mask_arg_sets_register:
        call.mask_words_after = words


def _check_reserved_mask(instruction: str, mask, itemsize: int) -> None:
    """A reserved ``mask`` (docs/semantics.md §3.2) still has to be a well-formed uint64 or uint64 list."""
    if _is_int(mask):
        contiguous_mask_length(instruction, "mask", mask)
        return
    bitwise_mask_words(instruction, mask, itemsize, MASK_SOURCE)


def _spill_unsupported(instruction: str, core: Core) -> UnsupportedError:
    return UnsupportedError(
        instruction, "is_set_mask", False,
        f"in counter mode {core.chip.product} spills the vector mask register to UB scratch in a packed "
        "layout npusim does not model", "is_set_mask=True, or normal mode",
        semantics("3.8"),  # dav_3510 kernel_operator_vec_cmp_impl.h: MoveMask + StoreAlign DIST_PACK
    )


def _plan_register(instruction: str, core: Core, bound: dict) -> tuple[CompareCall, dict]:
    """The checked call of ``compare``'s register form (to CMPMASK), and its tensors by name."""
    support = _register_support(core, instruction)
    mode = _cmp_mode(instruction, bound["cmp_mode"])
    tensors = _tensors(instruction, core, (("src0", bound["src0"]), ("src1", bound["src1"])))
    src0, src1 = tensors["src0"], tensors["src1"]
    _check_register_dtypes(instruction, core, support, src0, src1)
    fields = require_repeat_params(instruction, bound["repeat_params"], BinaryRepeatParams)
    strides = (fields[1], 0, fields[2], 0)  # one repeat: only the source block strides matter
    is_set_mask = require_bool(instruction, "is_set_mask", bound["is_set_mask"])
    itemsize = src0.dtype.itemsize
    mask = bound["mask"]
    _require_normal_mode(instruction, core, support)
    call = CompareCall(instruction, support, src0.dtype, mode, None, strides, ("src0", "src1"),  # type: ignore
                       to_register=True)
    if core.mask_mode == MaskMode.COUNTER:
        if not is_set_mask:
            raise _spill_unsupported(instruction, core)
        # 950 CompareWithoutDstCounterModeImplVF: one repeat, the first min(count, E) lanes.
        count = mask_arg_words(instruction, mask, itemsize, True, True, core.tolerance)[0]
        call.lanes = _first_lanes(count, lanes_per_repeat(itemsize))
    elif is_set_mask:
        call.lanes, words = lanes_from_mask_arg(core, instruction, mask, 1, itemsize)
        form_key = f"register_{'len' if _is_int(mask) else 'bits'}"
        if form_key in support.mask_arg_sets_register:
            call.mask_words_after = words
    else:
        call.lanes, call.reads_mask_words = lanes_from_register(core, instruction, 1, itemsize), True
    return call, tensors


def _first_lanes(count: int, lanes: int) -> ActiveLanes:
    """One repeat with its first ``min(count, E)`` lanes active."""
    if count >= lanes:
        return ActiveLanes(1, lanes, None, lanes)
    row = np.arange(lanes, dtype=np.int64)[None, :] < count
    row.setflags(write=False)
    return ActiveLanes(1, lanes, row, count)


def _bare_lanes(call: CompareCall, core: Core, repeat: int) -> None:
    """Lanes of a bare ``vcmpv``/``vcmpvs``: the register mask where honoured, else every lane."""
    instruction, support, itemsize = call.instruction, call.support, call.dtype.itemsize
    _require_normal_mode(instruction, core, support)
    if support.mask_honoured:
        call.lanes, call.reads_mask_words = lanes_from_register(core, instruction, repeat, itemsize), True
        return
    repeat = require_int(instruction, "repeat", repeat, 0, MAX_REPEAT, REPEAT_SOURCE)
    lanes = lanes_per_repeat(itemsize)
    call.lanes = ActiveLanes(repeat, lanes, None, repeat * lanes)


# ------------------------------------------------------ bare instructions (C API)
def _require_uint8_dst(instruction: str, dst: LocalTensor) -> None:
    require_dtype(instruction, "dst", dst.dtype, frozenset({"uint8"}), "the C API bitmask is __ubuf__ uint8_t*",
                  f"{c_api_page(instruction)} 函数原型; {semantics('3.4')}")


def _plan_c_api(instruction: str, mode: CMPMODE, core: Core, form: str, bound: dict) -> tuple[CompareCall, dict]:
    """``asc_<op>``: the bare ``vcmpv_<op>`` (to a uint8 UB bitmask) or ``vcmp_<op>`` (to CMPMASK).

    The dst strides of the C signature have no effect on the packed output (module
    docstring); the vector mask register is used only where the product honours compare
    masks.  To CMPMASK: one 256-byte repeat (``repeat`` has no effect, "固定处理256B的数据，
    repeat字段不生效") under the vector mask register.
    """
    require_c_api(core, instruction)
    source = f"{c_api_page(instruction)} 参数说明; {semantics('3.6')}"
    strides = {n: require_uint(instruction, n, bound[n], 8, source) for n in _STRIDES8}
    repeat = require_uint(instruction, "repeat", bound["repeat"], 8, source)
    sync = instruction.endswith("_sync")
    if form == "to_ub":
        _require_uint8_dst(instruction, bound["dst"])
        support = _support(core, instruction, "Compare", lambda s: bool(s.dtypes))
        tensors = _tensors(instruction, core, (("dst", bound["dst"]), ("src0", bound["src0"]),
                                               ("src1", bound["src1"])))
        dst, src0, src1 = tensors["dst"], tensors["src0"], tensors["src1"]
        _check_dtypes(instruction, core, support, "mask", mode, src0, src1, dst, scalar=False)
        call = CompareCall(instruction, support, src0.dtype, mode, None,  # type: ignore[arg-type]
                           (strides["src0_block_stride"], strides["src0_repeat_stride"],
                            strides["src1_block_stride"], strides["src1_repeat_stride"]), tuple(tensors), sync=sync)
        _bare_lanes(call, core, repeat)
        return call, tensors
    support = _register_support(core, instruction)
    tensors = _tensors(instruction, core, (("src0", bound["src0"]), ("src1", bound["src1"])))
    src0, src1 = tensors["src0"], tensors["src1"]
    _check_register_dtypes(instruction, core, support, src0, src1)
    _require_normal_mode(instruction, core, support)
    lanes = lanes_from_register(core, instruction, 1, src0.dtype.itemsize)
    return CompareCall(instruction, support, src0.dtype, mode, lanes,
                       (strides["src0_block_stride"], 0, strides["src1_block_stride"], 0), ("src0", "src1"),
                       to_register=True, reads_mask_words=True, sync=sync), tensors


def _plan_c_api_scalar(instruction: str, mode: CMPMODE, core: Core, form: str,
                       bound: dict) -> tuple[CompareCall, dict]:
    """``asc_<op>_scalar``: the bare ``vcmpvs_<op>``, tensor-scalar to a uint8 UB bitmask (strides ``uint16_t``)."""
    require_c_api(core, instruction)
    source = f"{c_api_page(instruction)} 参数说明; {semantics('3.6')}"
    strides = {n: require_uint(instruction, n, bound[n], 16, source) for n in _SCALAR_STRIDES16}
    repeat = require_uint(instruction, "repeat", bound["repeat"], 8, source)
    _require_uint8_dst(instruction, bound["dst"])
    support = _support(core, instruction, "Compares", lambda s: bool(s.scalar_dtypes))
    tensors = _tensors(instruction, core, (("dst", bound["dst"]), ("src", bound["src"])))
    dst, src = tensors["dst"], tensors["src"]
    _check_dtypes(instruction, core, support, "mask", mode, src, None, dst, scalar=True, src0_name="src")
    scalar_bits(instruction, "value", bound["value"], src.dtype)  # rejected now; read per call
    tensors["value"] = bound["value"]
    call = CompareCall(instruction, support, src.dtype, mode, None,  # type: ignore[arg-type]
                       (strides["src_block_stride"], strides["src_repeat_stride"], 0, 0), ("dst", "src", "value"),
                       sync=instruction.endswith("_sync"), scalar="value")
    _bare_lanes(call, core, repeat)
    return call, tensors


# ------------------------------------------------------------------ the plan
@dataclass(eq=False)
class ComparePlan:
    """A checked compare's geometry, relative to its tensors' addresses (docs/architecture.md).

    Attributes:
        call: the resolved call.
        sources: the sources' element accesses, relative to each source tensor (one against a scalar).
        dst_fp: the packed bitmask bytes relative to dst (``E / 8`` per repeat, docs/semantics.md §3.1; a
            64-bit count form's zero tail counts as the last repeat's, §3.3), ``None`` for CMPMASK.
        comparison: how lanes compare (:class:`LaneComparison`).
    """

    call: CompareCall
    sources: list[Footprint]
    dst_fp: Footprint | None
    comparison: LaneComparison

    @property
    def operands(self) -> tuple[str, ...]:
        return self.call.operands

    @property
    def footprints(self) -> list[Footprint]:
        """dst's bytes (if any), then the sources' (what :class:`~.flexible_scalar.ElementScalarPlan` checks)."""
        return ([self.dst_fp] if self.dst_fp is not None else []) + self.sources

    @classmethod
    def compile(cls, call: CompareCall, core: Core, operands: dict) -> ComparePlan:
        """The plan of a checked call; the rules that depend on the tensors' addresses are checked for
        ``operands`` (this call's), as :meth:`bind` checks them for every other placement."""
        lanes, itemsize = call.lanes, call.dtype.itemsize
        s0_blk, s0_rep, s1_blk, s1_rep = call.strides
        names = [name for name in call.operands if name in ("src0", "src", "src1") and name != call.scalar]
        sources = [strided_footprint(name, 0, lanes, itemsize, blk, rep)
                   for name, (blk, rep) in zip(names, ((s0_blk, s0_rep), (s1_blk, s1_rep)), strict=False)]
        dst_fp = None if call.to_register else _dst_footprint(lanes, call.dst_tail)
        plan = cls(call, sources, dst_fp, LaneComparison.of(call.mode, call.dtype, call.support.float_semantics))
        plan.placed(operands)
        return plan

    def bind(self, core: Core, values: list) -> CompareBinding:
        """The per-placement checks in the plan step's order (each tensor usable, in UB and aligned; a
        scalar's conversion; extents; bounds, overlap, scratch), then the views over this core's UB."""
        call = self.call
        instruction, scalar = call.instruction, call.scalar
        for name, value in zip(call.operands, values, strict=True):
            if name == scalar:
                scalar_bits(instruction, name, value, call.dtype)
            else:
                require_ub_tensor(instruction, name, value, core)
        operands = dict(zip(call.operands, values, strict=True))
        _check_extents(instruction, call.extent_checks, operands)
        return CompareBinding(self, core, operands, *self.placed(operands))

    def placed(self, operands: dict) -> tuple[list[Footprint], Footprint | None]:
        """The footprints at these tensors' addresses, checked against UB, the tensors' extents, each
        other (docs/semantics.md §1.6) and the 950's UB scratch (§3.5)."""
        call = self.call
        instruction = call.instruction
        reads = [fp.moved(operands[fp.name].addr) for fp in self.sources]
        for fp in reads:
            fp.check_in(instruction, operands[fp.name])
        dst = None
        if self.dst_fp is not None:
            dst = self.dst_fp.moved(operands["dst"].addr)
            dst.check_in(instruction, operands["dst"])
            for fp in reads:
                check_overlap(instruction, dst, fp)
        start = call.support.register_scratch_offset_bytes
        if call.to_register and start is not None:
            check_clear_of_scratch(
                instruction, start, call.lanes.lanes // 8, reads,
                "UB scratch", "this call writes (该接口占用8KB Unified Buffer临时空间)",
                f"{pages.COMPARE_TO_REGISTER} 约束说明; {semantics('3.5')}")  # dav_3510 VcmpImpl
        return reads, dst


def _dst_footprint(lanes: ActiveLanes, tail: int) -> Footprint:
    """The bitmask's bytes relative to dst: ``E / 8`` per repeat, then ``tail`` zero bytes stored with the
    last repeat's bits (docs/semantics.md §3.3)."""
    packed = bytes_footprint("dst", 0, lanes.lanes // 8, lanes.repeats)
    if not tail:
        return packed
    extra = np.arange(packed.addrs.size, packed.addrs.size + tail, dtype=np.int64)
    return Footprint("dst", np.concatenate((packed.addrs, extra)),
                     np.concatenate((packed.repeats, np.full(tail, lanes.repeats - 1, np.int64))), 1)


# ------------------------------------------------------------------ execution
@dataclass(frozen=True)
class LaneComparison:
    """How ``a <mode> b`` is computed on raw bits of one dtype (docs/semantics.md §3.7).

    Integers compare as two's-complement / unsigned values.  Floats follow the product's
    ``CompareSupport.float_semantics``; the only one documented is ``"ieee754"``: NumPy's
    comparisons are IEEE-754 (NaN unordered, +0 == -0), and float16/bfloat16 (and the 8-bit
    floats) widen to float32 exactly first.

    Attributes:
        operator: the NumPy comparison ufunc.
        values: the dtype the raw bits are viewed as.
        widened: the dtype values are converted to before comparing (exactly), or ``None``.
        native: float16, which NumPy compares itself (see :meth:`operand`).
    """

    operator: np.ufunc
    values: np.dtype
    widened: np.dtype | None
    native: bool = False  # values has NumPy's own comparison loops (float16): small blocks compare unwidened

    @classmethod
    def of(cls, mode: CMPMODE, dtype: DType, float_semantics: str = "ieee754") -> LaneComparison:
        if dtype.is_float and float_semantics != "ieee754":
            raise ValueError(f"unknown float compare semantics {float_semantics!r}")
        widened = np.dtype(np.float32) if dtype.is_float and dtype.itemsize < 4 else None
        return cls(_OPERATORS[mode], dtype.np_dtype, widened, dtype.np_dtype == np.float16)

    def operand(self, raw: np.ndarray) -> np.ndarray:
        """Raw bits as the values the operator compares.

        Widening is exact, so it changes no result: for float16 (``native``: NumPy's own
        type) it is done only for blocks large enough that NumPy's float32 comparison loop
        repays the conversion; below that NumPy's float16 loop is faster.  The ``ml_dtypes``
        types always widen.
        """
        values = raw.view(self.values)
        if self.widened is None or (self.native and values.size < WIDEN_FROM):
            return values
        return values.astype(self.widened)


class CompareBinding:
    """A :class:`ComparePlan` at one placement on one core: its operands' views, and what it touches.

    ``run`` does what depends on memory and register contents: uninitialised-read checks,
    the compare on raw bits (:class:`LaneComparison`), packing and the commit.

    Attributes:
        src0, src1: the sources in the binding's layout (``src1`` is ``None`` against a scalar).
        dst: the packed bitmask bytes, ``None`` for CMPMASK.
        scratch: the UB staging bytes of a compare to CMPMASK on the 950, else ``None``.
        lane_mask: view layout: ``(repeats, E)`` active lanes when some are inactive (their
            bits are 0), else ``None``.
    """

    def __init__(self, plan: ComparePlan, core: Core, operands: dict, sources: list[Footprint],
                 dst_fp: Footprint | None) -> None:
        call = self.call = plan.call
        self.comparison, self.sources, self.dst_fp = plan.comparison, sources, dst_fp
        self.footprints = ([dst_fp] if dst_fp is not None else []) + sources
        self.registers_read, self.registers_written = call.registers_read, call.registers_written
        ub, lanes = core.ub, call.lanes
        s0_blk, s0_rep, s1_blk, s1_rep = call.strides
        strided = [StridedOperand(operands[fp.name].addr, fp, blk, rep)
                   for fp, (blk, rep) in zip(sources, ((s0_blk, s0_rep), (s1_blk, s1_rep)), strict=False)]
        layout = choose_layout(ub, strided, lanes, None)
        accesses = [OperandAccess.build(ub, op, call.dtype.raw, lanes, layout) for op in strided]
        self.src0 = accesses[0]
        self.src1: OperandAccess | None = accesses[1] if len(accesses) > 1 else None
        self.dst = None
        if dst_fp is not None:
            start = operands["dst"].addr
            self.dst = ByteSpan("dst", start, start + lanes.repeats * lanes.lanes // 8 + call.dst_tail)
        self.scratch = None
        start = call.support.register_scratch_offset_bytes
        if call.to_register and start is not None:
            self.scratch = ByteSpan("scratch", start, start + lanes.lanes // 8)
        self.lane_mask = lanes.mask if layout == "view" else None
        self.scalar_operand: tuple | None = None  # (raw bits, compared value) of the latest scalar

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges(r for fp in self.sources for r in ranges_of_addresses("UB", fp.byte_addrs()[0]))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        spans = [span for span in (self.dst, self.scratch) if span is not None]
        return merge_ranges(ByteRange("UB", span.start, span.stop) for span in spans)

    def run(self, core: Core, values: tuple) -> None:
        """Compare, pack, then commit (:meth:`_commit`); a scalar compare takes its scalar from ``values``."""
        call, ub = self.call, core.ub
        lanes, raw = call.lanes, call.dtype.raw

        # --- read and compare, from memory as it is before any write
        self.src0.check_initialized(ub, call.instruction)
        if self.src1 is not None:
            self.src1.check_initialized(ub, call.instruction)
        comparison = self.comparison
        first = comparison.operand(self.src0.gather(ub, raw))
        if self.src1 is not None:
            second = comparison.operand(self.src1.gather(ub, raw))
        else:
            scalar_raw = scalar_raw_bits(call.instruction, call.scalar, values[call.scalar_at], call.dtype)
            memo = self.scalar_operand  # scalar_bits_cached hands out one array per value: compare by identity
            if memo is None or memo[0] is not scalar_raw:
                memo = self.scalar_operand = (scalar_raw, comparison.operand(scalar_raw)[0])
            second = memo[1]
        hits = comparison.operator(second, first) if call.scalar_first else comparison.operator(first, second)
        if self.src0.layout == "view":  # every lane was compared: clear the bits of inactive ones
            bits = hits.reshape(lanes.repeats, lanes.lanes)
            if self.lane_mask is not None:
                bits &= self.lane_mask
        else:
            bits = np.zeros((lanes.repeats, lanes.lanes), dtype=bool)
            if lanes.mask is None:
                bits[:] = hits.reshape(lanes.repeats, lanes.lanes)
            else:
                bits[lanes.mask] = hits

        if self.dst is None:
            packed = np.packbits(bits[0], bitorder="little") if self.scratch is not None else None
            self._commit(core, packed, _cmpmask_after(call, core, bits[0]))
        else:
            packed = np.packbits(bits, axis=None, bitorder="little") if lanes.repeats else None
            if call.dst_tail:  # the last 8-byte store's lanes past count: 0 bits (docs/semantics.md §3.3)
                packed = np.concatenate((packed, np.zeros(call.dst_tail, np.uint8)))
            self._commit(core, packed, None)

    def _commit(self, core: Core, packed: np.ndarray | None, cmpmask: bytes | None) -> None:
        """Store a computed compare: the packed bits (dst, or the 950's UB staging), CMPMASK, the mask
        register, and a ``*_sync`` C API call's barrier."""
        call = self.call
        if packed is not None:
            (self.dst if self.dst is not None else self.scratch).write(core.ub, packed)
        if cmpmask is not None:
            core.load_cmpmask(cmpmask)
        if call.mask_words_after is not None:
            core.set_mask_words(*call.mask_words_after)
        if call.sync:
            record_pipe_barrier(core)


def _cmpmask_after(call: CompareCall, core: Core, bits: np.ndarray) -> bytes:
    """CMPMASK after a compare to register: result bits at lanes ``0..E-1`` (docs/semantics.md §3.5)."""
    lanes = call.lanes
    if not call.support.register_keeps_masked_bits:
        register = np.zeros(8 * CMPMASK_BYTES, dtype=bool)
        register[: lanes.lanes] = bits
        return np.packbits(register, bitorder="little").tobytes()
    if lanes.mask is not None and not core.cmpmask_written:
        core.report_unset_cmpmask(call.instruction)  # masked-off bits keep a never-set value
    register = np.unpackbits(np.frombuffer(core.cmpmask, dtype=np.uint8), bitorder="little").astype(bool)
    active = np.ones(lanes.lanes, dtype=bool) if lanes.mask is None else lanes.mask[0]
    register[: lanes.lanes][active] = bits[active]
    return np.packbits(register, bitorder="little").tobytes()


# ------------------------------------------------------------------ the API
def _compiled(planned: tuple[CompareCall, dict], core: Core) -> ComparePlan:
    call, operands = planned
    return ComparePlan.compile(call, core, operands)


def _compile_compare(core: Core, form: str, bound: dict) -> ComparePlan:
    if form == "register":
        return _compiled(_plan_register("compare", core, bound), core)
    return _compiled(_plan_bitmask("compare", core, form, bound, scalar=False), core)


def _compile_compare_scalar(core: Core, form: str, bound: dict):
    if form.startswith(FLEX_PREFIX):
        return _compile_flexible(core, form, bound)
    return _compiled(_plan_bitmask("compare_scalar", core, form, bound, scalar=True), core)


def _compile_flexible(core: Core, form: str, bound: dict):
    """Compares（灵活标量位置）(docs/semantics.md §3.9): which source is the scalar (:mod:`.flexible_scalar`), then
    Compares' plan of the vector against it (a number per call, or the element, read when the call runs)."""
    page = pages.COMPARES_FLEXIBLE
    if core.chip.name not in FLEXIBLE_PRODUCTS:
        raise unsupported_on(core.chip, "compare_scalar", "Compares with the scalar first or a tensor element",
                             lambda c: c.name in FLEXIBLE_PRODUCTS, FLEXIBLE_SOURCE)
    names = next(f for f in FLEXIBLE_SCALAR_FORMS if f.name == form).names
    position = scalar_position("compare_scalar", bound, page, names)
    planned = _plan_bitmask("compare_scalar", core, form.removeprefix(FLEX_PREFIX), bound, scalar=True,
                            position=position)
    vector = planned[1][position.vector]
    return with_element(_compiled(planned, core), "compare_scalar", page, position, bound, vector.dtype, core,
                        raw_bits=True)


def _plan_context(core: Core, form: str, values: tuple) -> tuple:
    """The register configuration a ``compare`` / ``compare_scalar`` plan depends on: the mask mode
    (except for a count form where counter mode is modelled), and the vector mask when the lanes may
    come from it (``is_set_mask`` not True where the mask is honoured, and for the register form)."""
    support = core.chip.compare
    if form.removeprefix(FLEX_PREFIX) == "count":
        return () if support is not None and support.counter_mode_modelled else (core.mask_mode,)
    from_register = values[_IS_SET_MASK_AT[form]] is not True and (form == "register" or support is None
                                                                    or support.mask_honoured)
    return (core.mask_mode, core.mask_words if from_register else None)


def _c_api_context(core: Core, form: str, values: tuple) -> tuple:
    """The register configuration a C API compare plans with: the mask mode, and the vector mask for the
    register form and where the product honours compare masks."""
    support = core.chip.compare
    from_register = form == "to_register" or support is None or support.mask_honoured
    return (core.mask_mode, core.mask_words if from_register else None)


def _fast_context(core: Core) -> tuple:
    return (core.mask_mode, core.mask_words)


_SETUP = ("src0 = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
          "src1 = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 512, 256)\n"
          "dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 1024, 32)\n")
COMPARE_EXAMPLES = (
    _SETUP + "asc.compare(dst, src0, src1, asc.CMPMODE.LT, 256)",
    _SETUP + "asc.compare(dst, src0, src1, asc.CMPMODE.GE, 128, 2, asc.BinaryRepeatParams())",
    _SETUP + "asc.set_cmp_mask(dst)\n"  # the bits the mask leaves off keep CMPMASK's earlier value
    "asc.compare(src0, src1, asc.CMPMODE.EQ, 100, asc.BinaryRepeatParams())",
)
COMPARE_SCALAR_EXAMPLES = (
    _SETUP + "asc.compare_scalar(dst, src0, 0.5, asc.CMPMODE.LT, 256)",
    _SETUP + "asc.compare_scalar(dst, src0, -1.0, asc.CMPMODE.NE, 128, 2, asc.UnaryRepeatParams())",
)

_FLEX_SETUP = ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
               "s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 8)\n"
               "s.write([0.5, 0, 0, 0, 0, 0, 0, 0])\n"
               "dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 2048, 64)\n")
#: Compares（灵活标量位置）.md 调用示例 (float, 256 elements): the scalar after and first, a number or an element
COMPARE_SCALAR_EXAMPLES_950 = (
    _FLEX_SETUP + "asc.compare_scalar(dst, x, s, asc.CMPMODE.LT, 256)",
    _FLEX_SETUP + "asc.compare_scalar(dst, s, x, asc.CMPMODE.LT, 256, scalar_tensor_index=0)",
    _FLEX_SETUP + "asc.compare_scalar(dst, 0.25, x, asc.CMPMODE.GE, 64, 4, asc.UnaryRepeatParams(1, 1, 8, 8))",
    _FLEX_SETUP + "asc.compare_scalar(dst, s, x, asc.CMPMODE.NE, [0xFFFF0000FFFF0000, 0], 2, "
                  "asc.UnaryRepeatParams(1, 2, 8, 16), scalar_tensor_index=0)",
    "x = asc.LocalTensor(asc.int64, asc.TPosition.VECIN, 0, 64)\n"
    "dst = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 1024, 32)\n"
    "asc.compare_scalar(dst, -3, x, asc.CMPMODE.GT, 64)",
)

compare = register(Instruction(
    "compare", "ascend", "compare", "V", COMPARE_FORMS, _compile_compare,
    f"{pages.COMPARE} 功能说明; {pages.COMPARE_TO_REGISTER} 功能说明; {semantics('3')}",
    support=lambda chip: chip.compare if chip.compare is not None and chip.compare.dtypes else None,
    exactness=BIT_EXACT, summary="bit = src0 <cmp_mode> src1 per lane, packed into a uint8 bitmask (or CMPMASK)",
    examples=COMPARE_EXAMPLES, plan_context=_plan_context, fast_context=_fast_context,
    doc="``asc.compare`` in every pyasc form (``Compare.md``, ``Compare（结果存入寄存器）.md``).\n\n``mask`` is "
        "an int (contiguous mode) or a list of uint64 words (bitwise mode); ``repeat_params`` is an "
        ":class:`~npusim.ascend.types.BinaryRepeatParams`.  Read a register result back with "
        "``asc.get_cmp_mask``.",
))
compare_scalar = register(Instruction(
    "compare_scalar", "ascend", "compare", "V", (*COMPARE_SCALAR_FORMS, *FLEXIBLE_SCALAR_FORMS),
    _compile_compare_scalar, f"{pages.COMPARES} 功能说明; {pages.COMPARES_FLEXIBLE} 功能说明; {semantics('3')}",
    support=lambda chip: chip.compare if chip.compare is not None and chip.compare.scalar_dtypes else None,
    exactness=BIT_EXACT, summary="bit = src0 <cmp_mode> scalar per lane, packed into a uint8 bitmask",
    examples=COMPARE_SCALAR_EXAMPLES, examples_on={"950": COMPARE_SCALAR_EXAMPLES_950},
    per_call=frozenset({"src1_scalar", "src0", "src1"}), plan_context=_plan_context, fast_context=_fast_context,
    doc="``asc.compare_scalar`` (``Compares.md``): each element of ``src0`` against one scalar.\n\nThe scalar "
        "is converted to ``src0``'s dtype first (round to nearest even for floats), as the C++ ``T src1Scalar`` "
        "parameter does.\n\nThe 950 also takes the scalar first (``scalar <cmp_mode> src1`` per lane), or a "
        "tensor's first element on either side (``Compares（灵活标量位置）.md``; ``scalar_tensor_index`` when both "
        "are tensors).",
))


def _c_api_support(chip):
    return chip.compare if chip.c_api and chip.compare is not None else None


def _register_c_api(name: str, mode: CMPMODE):
    op = mode.name.lower()
    return _register_c_api_entry(
        name, C_API_FORMS, lambda core, form, values: _plan_c_api(name, mode, core, form, values),
        f"vcmpv_{op} / vcmp_{op}: bit = src0 {_SYMBOLS[mode]} src1 per lane, to a uint8 bitmask or CMPMASK",
        (_SETUP + f"asc.{name}(dst, src0, src1, 2, 1, 1, 1, 8, 8, 8)",
         _SETUP + f"asc.{name}(src0, src1, 1, 1, 1, 1, 8, 8, 8)"), "compare", frozenset(),
        f"``vcmpv_{op}`` / ``vcmp_{op}``: per lane, ``src0 {_SYMBOLS[mode]} src1`` "
        f"({name.removesuffix('_sync')}.md).\n\nTo UB: ``repeat`` repeats, every bit written (the vector mask "
        "has no effect), E/8 bytes per repeat packed at ``dst``.  To CMPMASK: one 256-byte repeat (``repeat`` "
        "has no effect) under the vector mask register; masked-off CMPMASK bits keep their previous value.  "
        "Read it back with ``asc_get_cmp_mask``.")


def _register_c_api_scalar(name: str, mode: CMPMODE):
    op = mode.name.lower()
    return _register_c_api_entry(
        name, C_API_SCALAR_FORMS, lambda core, form, values: _plan_c_api_scalar(name, mode, core, form, values),
        f"vcmpvs_{op}: bit = src {_SYMBOLS[mode]} value per lane, to a uint8 bitmask",
        (_SETUP + f"asc.{name}(dst, src0, 0.5, 2, 1, 1, 8, 8)",), "compare_scalar", frozenset({"value"}),
        f"``vcmpvs_{op}``: per lane, ``src {_SYMBOLS[mode]} value`` into a uint8 bitmask "
        f"({name.removesuffix('_sync')}.md).\n\n``value`` is converted to the source dtype; every bit of every "
        "repeat is written, E/8 bytes per repeat packed at ``dst`` (strides ``uint16_t``).")


def _register_c_api_entry(name: str, forms, plan, summary: str, examples: tuple, alias_of: str,
                          per_call: frozenset, doc: str):
    """A C API compare as an alias of ``alias_of``: the same plans; ``*_sync`` adds the barrier."""
    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if name.endswith("_sync") else ""
    return register(Instruction(
        name, "ascend", "compare", "V", forms, lambda core, form, values: _compiled(plan(core, form, values), core),
        f"{c_api_page(name)}; {semantics('3.6')}", support=_c_api_support, exactness=BIT_EXACT, summary=summary,
        examples=examples, per_call=per_call, plan_context=_c_api_context, fast_context=_fast_context,
        alias_of=alias_of, doc=doc + barrier,
    ))


asc_eq = _register_c_api("asc_eq", CMPMODE.EQ)
asc_eq_sync = _register_c_api("asc_eq_sync", CMPMODE.EQ)
asc_ne = _register_c_api("asc_ne", CMPMODE.NE)
asc_ne_sync = _register_c_api("asc_ne_sync", CMPMODE.NE)
asc_lt = _register_c_api("asc_lt", CMPMODE.LT)
asc_lt_sync = _register_c_api("asc_lt_sync", CMPMODE.LT)
asc_le = _register_c_api("asc_le", CMPMODE.LE)
asc_le_sync = _register_c_api("asc_le_sync", CMPMODE.LE)
asc_gt = _register_c_api("asc_gt", CMPMODE.GT)
asc_gt_sync = _register_c_api("asc_gt_sync", CMPMODE.GT)
asc_ge = _register_c_api("asc_ge", CMPMODE.GE)
asc_ge_sync = _register_c_api("asc_ge_sync", CMPMODE.GE)

asc_eq_scalar = _register_c_api_scalar("asc_eq_scalar", CMPMODE.EQ)
asc_eq_scalar_sync = _register_c_api_scalar("asc_eq_scalar_sync", CMPMODE.EQ)
asc_ne_scalar = _register_c_api_scalar("asc_ne_scalar", CMPMODE.NE)
asc_ne_scalar_sync = _register_c_api_scalar("asc_ne_scalar_sync", CMPMODE.NE)
asc_lt_scalar = _register_c_api_scalar("asc_lt_scalar", CMPMODE.LT)
asc_lt_scalar_sync = _register_c_api_scalar("asc_lt_scalar_sync", CMPMODE.LT)
asc_le_scalar = _register_c_api_scalar("asc_le_scalar", CMPMODE.LE)
asc_le_scalar_sync = _register_c_api_scalar("asc_le_scalar_sync", CMPMODE.LE)
asc_gt_scalar = _register_c_api_scalar("asc_gt_scalar", CMPMODE.GT)
asc_gt_scalar_sync = _register_c_api_scalar("asc_gt_scalar_sync", CMPMODE.GT)
asc_ge_scalar = _register_c_api_scalar("asc_ge_scalar", CMPMODE.GE)
asc_ge_scalar_sync = _register_c_api_scalar("asc_ge_scalar_sync", CMPMODE.GE)
