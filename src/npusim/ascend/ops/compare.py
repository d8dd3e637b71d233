"""The Compare family: ``Compare`` / ``Compares`` to a UB bitmask, and compare to CMPMASK.

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
  silently skip a partial tail; npusim rejects it, as the 950 does with a hard assert.)
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

Every call is planned and checked (dtypes, ranges, alignment, bounds, overlap) before
anything is written; a rejected call leaves UB and every register unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from ...dtypes import DType
from ...errors import ParameterRangeError, UnsupportedError
from ...overloads import Form, Param, bind_values
from ...sources import semantics
from ...validate import div_up, require_bool, require_int
from .. import pages
from ..addressing import REPEAT_BYTES, ActiveLanes, lanes_per_repeat
from ..chips import CompareSupport, unsupported_on
from ..core import CMPMASK_BYTES, Core, current_core
from ..footprint import bytes_footprint, check_clear_of_scratch, check_overlap, strided_footprint
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
from ..plans import (
    Shortcut,
    call_key,
    find_plan,
    find_shortcut,
    keep_plan,
    keep_shortcut,
    per_call_flags,
    require_usable,
    shortcut_key,
)
from ..tensor import LocalTensor
from ..types import CMPMODE, BinaryRepeatParams, MaskMode, UnaryRepeatParams
from .common import (
    is_scalar,
    is_tensor,
    require_dtype,
    require_repeat_params,
    require_ub_tensor,
    scalar_bits,
    scalar_bits_cached,
)

__all__ = [
    "COMPARE_FORMS",
    "COMPARE_SCALAR_FORMS",
    "CompareCall",
    "ComparePlan",
    "LaneComparison",
    "compare",
    "compare_scalar",
    "plan_vcmp",
    "plan_vcmpv",
    "plan_vcmpvs",
]

COUNT_MAX = (1 << 32) - 1  # count is uint32_t (Compare.md)
WIDEN_FROM = 4096  # elements: from here a 16-bit float compare widens to float32 first (LaneComparison.operand)
COUNT_SOURCE = f"{pages.COMPARE} 约束说明; {semantics('3.3')}"
COUNTER_MODE_SOURCE = semantics("3.8")  # vcmpv/vcmp in counter mode: undocumented, never issued by the library
MASK_SOURCE = f"{pages.COMPARE} mask/mask[]参数说明; {semantics('3.2')}"
PARAMETER_SOURCE = f"{pages.COMPARE} 模板参数及接口参数说明; {semantics('3.2')}"
REPEAT_SOURCE = f"{pages.HIGH_DIM} 迭代控制; {semantics('1.1')}"
REGISTER_DTYPE_SOURCE = f"{pages.COMPARE_TO_REGISTER} 数据类型; {semantics('3.5')}"
_PAGES = {"Compare": pages.COMPARE, "Compares": pages.COMPARES}  # their sections have the same names

_OPERATORS = {
    CMPMODE.LT: np.less,
    CMPMODE.GT: np.greater,
    CMPMODE.EQ: np.equal,
    CMPMODE.LE: np.less_equal,
    CMPMODE.GE: np.greater_equal,
    CMPMODE.NE: np.not_equal,
}


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_mask(v) -> bool:
    return _is_int(v) or isinstance(v, (list, tuple, np.ndarray))


def _any(_v) -> bool:
    return True


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


@dataclass
class CompareCall:
    """A fully resolved compare: operands, lanes, and where the result bits go.

    Attributes:
        lanes: the repeats issued and, per lane, whether it is active.  Every lane of every
            repeat owns one result bit; inactive lanes are not read and their bit is 0
            (bitmask) or left alone / zeroed (CMPMASK, per product).
        strides: ``(src0_blk, src0_rep, src1_blk, src1_rep)`` in DataBlocks.
        dst: the bitmask tensor, or ``None`` when the result goes to CMPMASK.
        mask_words_after: the vector mask register value the call leaves behind, if it sets one.
    """

    instruction: str
    core: Core
    support: CompareSupport
    dtype: DType
    mode: CMPMODE
    src0: LocalTensor
    src1: LocalTensor | None
    lanes: ActiveLanes
    strides: tuple[int, int, int, int]
    dst: LocalTensor | None = None
    mask_words_after: MaskWords | None = None
    src0_name: str = "src0"  # how messages name the first source: "src" in the C API's vcmpvs signature


# ------------------------------------------------------------------- public API
def compare(*args, **kwargs) -> None:
    """``asc.compare`` in every pyasc form (``Compare.md``, ``Compare（结果存入寄存器）.md``).

    Forms::

        compare(dst, src0, src1, cmp_mode, count)                                   # first count elements
        compare(dst, src0, src1, cmp_mode, mask, repeat_times, repeat_params, is_set_mask=True)
        compare(src0, src1, cmp_mode, mask, repeat_params, is_set_mask=True)        # to CMPMASK

    ``mask`` is an int (contiguous mode) or a list of uint64 words (bitwise mode);
    ``repeat_params`` is an :class:`~npusim.ascend.types.BinaryRepeatParams`.  Read a
    register result back with ``asc.get_cmp_mask``.
    """
    instruction = "compare"
    core, short_key = shortcut_key(instruction, args, kwargs)
    if short_key is not None and (shortcut := find_shortcut(core, short_key)) is not None:
        shortcut.checked(instruction, core, args).run(core)
        return
    form, values = bind_values(instruction, COMPARE_FORMS, args, kwargs)
    core = current_core(instruction)
    shape = _SHAPES[instruction, form.name]
    key = _plan_key(instruction, shape, values, core)
    plan = find_plan(core, key)
    if plan is None:
        bound = dict(zip(form.names, values, strict=True))
        if form.name == "register":
            call = _plan_register(instruction, core, bound)
        else:
            call, _ = _plan_bitmask(instruction, core, form.name, bound, scalar=False)
        plan = ComparePlan.compile(call)
        keep_plan(core, key, plan)
    else:
        require_usable(instruction, core, shape.pick_tensors(values), shape.tensor_names)
    plan.run(core)
    if short_key is not None:
        keep_shortcut(core, short_key, Shortcut.of(plan, args, shape.tensor_positions, shape.tensor_names))


def compare_scalar(*args, **kwargs) -> None:
    """``asc.compare_scalar`` (``Compares.md``): each element of ``src0`` against one scalar.

    Forms::

        compare_scalar(dst, src0, src1_scalar, cmp_mode, count)
        compare_scalar(dst, src0, src1_scalar, cmp_mode, mask, repeat_times, repeat_params, is_set_mask=True)

    The scalar is converted to ``src0``'s dtype first (round to nearest even for floats),
    as the C++ ``T src1Scalar`` parameter does.
    """
    instruction = "compare_scalar"
    core, short_key = shortcut_key(instruction, args, kwargs)
    if short_key is not None and (shortcut := find_shortcut(core, short_key)) is not None:
        plan = shortcut.checked(instruction, core, args)
        plan.run(core, scalar_bits_cached(instruction, "src1_scalar", args[shortcut.value_at], plan.call.dtype))
        return
    form, values = bind_values(instruction, COMPARE_SCALAR_FORMS, args, kwargs)
    core = current_core(instruction)
    shape = _SHAPES[instruction, form.name]
    key = _plan_key(instruction, shape, values, core)
    plan = find_plan(core, key)
    if plan is None:
        call, scalar_raw = _plan_bitmask(instruction, core, form.name, dict(zip(form.names, values, strict=True)),
                                         scalar=True)
        plan = ComparePlan.compile(call)
        keep_plan(core, key, plan)
    else:
        require_usable(instruction, core, shape.pick_tensors(values), shape.tensor_names)
        scalar_raw = scalar_bits_cached(instruction, "src1_scalar", values[shape.scalar], plan.call.dtype)
    plan.run(core, scalar_raw)
    if short_key is not None:
        keep_shortcut(core, short_key, Shortcut.of(plan, args, shape.tensor_positions, shape.tensor_names,
                                                   shape.scalar))


@dataclass(frozen=True)
class _FormShape:
    """Where a form's arguments sit in its values: what keys a plan, what is checked per call."""

    form: str
    per_call: tuple[bool, ...]  # the scalar of compare_scalar is read per call
    tensor_names: tuple[str, ...]  # the tensor parameters in the order planning checks them
    pick_tensors: itemgetter  # values -> those tensor parameters (always at least two)
    tensor_positions: tuple[int, ...]  # where those tensors sit in the values
    scalar: int | None  # position of src1_scalar
    is_set_mask: int | None  # position of is_set_mask

    @classmethod
    def of(cls, form: Form) -> _FormShape:
        index = {name: i for i, name in enumerate(form.names)}
        names = tuple(name for name in ("dst", "src0", "src1") if name in index)
        positions = tuple(index[name] for name in names)
        return cls(form.name, per_call_flags(form.names, frozenset({"src1_scalar"})), names, itemgetter(*positions),
                   positions, index.get("src1_scalar"), index.get("is_set_mask"))


_SHAPES = {("compare", form.name): _FormShape.of(form) for form in COMPARE_FORMS}
_SHAPES.update({("compare_scalar", form.name): _FormShape.of(form) for form in COMPARE_SCALAR_FORMS})


def _plan_key(instruction: str, shape: _FormShape, values: tuple, core: Core) -> tuple:
    """Everything a compare plan depends on (``plans`` module docstring): the arguments, the mask
    mode, and the vector mask register when the lanes come from it (``is_set_mask=False``)."""
    reads_register = shape.is_set_mask is not None and values[shape.is_set_mask] is not True
    words = core.mask_words if reads_register else None
    return call_key((instruction, shape.form, int(core.mask_mode), words), values, shape.per_call)


# ------------------------------------------------------ bare instructions (C API)
def plan_vcmpv(instruction: str, core: Core, mode: CMPMODE, dst, src0, src1, repeat: int,
               strides: tuple[int, int, int, int]) -> ComparePlan:
    """The ``vcmpv_<op>`` instruction as the C API issues it: tensor-tensor to a UB bitmask.

    ``strides`` are ``(src0_blk, src0_rep, src1_blk, src1_rep)``; the dst strides of the C
    signature have no effect on the packed output (module docstring).  The vector mask
    register is used only where the product honours compare masks.  Returns the checked
    plan; ``plan.run(core)`` executes it.
    """
    support = _support(core, instruction, "Compare", lambda s: bool(s.dtypes))
    dst, src0, src1 = _tensors(instruction, core, dst, src0, src1)
    _check_dtypes(instruction, core, support, "mask", mode, src0, src1, dst, scalar=False)
    lanes = _bare_lanes(instruction, core, support, repeat, src0.dtype.itemsize)
    return ComparePlan.compile(CompareCall(instruction, core, support, src0.dtype, mode, src0, src1, lanes, strides,
                                           dst))


def plan_vcmpvs(instruction: str, core: Core, mode: CMPMODE, dst, src, value, repeat: int,
                strides: tuple[int, int]) -> tuple[ComparePlan, np.ndarray]:
    """The ``vcmpvs_<op>`` instruction: tensor-scalar to a UB bitmask; ``strides`` = ``(src_blk, src_rep)``.

    Returns the checked plan and ``value``'s raw bits; ``plan.run(core, bits)`` executes it.
    """
    support = _support(core, instruction, "Compares", lambda s: bool(s.scalar_dtypes))
    dst, src, _ = _tensors(instruction, core, dst, src, None, src0_name="src")
    _check_dtypes(instruction, core, support, "mask", mode, src, None, dst, scalar=True, src0_name="src")
    scalar_raw = scalar_bits(instruction, "value", value, src.dtype)
    lanes = _bare_lanes(instruction, core, support, repeat, src.dtype.itemsize)
    call = CompareCall(instruction, core, support, src.dtype, mode, src, None, lanes, (strides[0], strides[1], 0, 0),
                       dst, src0_name="src")
    return ComparePlan.compile(call), scalar_raw


def plan_vcmp(instruction: str, core: Core, mode: CMPMODE, src0, src1, block_strides: tuple[int, int]) -> ComparePlan:
    """The ``vcmp_<op>`` instruction: one 256-byte repeat into CMPMASK under the vector mask register."""
    support = _register_support(core, instruction)
    _, src0, src1 = _tensors(instruction, core, None, src0, src1)
    _check_register_dtypes(instruction, core, support, src0, src1)
    _require_normal_mode(instruction, core, support)
    lanes = lanes_from_register(core, instruction, 1, src0.dtype.itemsize)
    return ComparePlan.compile(CompareCall(instruction, core, support, src0.dtype, mode, src0, src1, lanes,
                                           (block_strides[0], 0, block_strides[1], 0)))


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


def _tensors(instruction: str, core: Core, dst, src0, src1, src0_name: str = "src0") -> tuple:
    checked = []
    for name, tensor in (("dst", dst), (src0_name, src0), ("src1", src1)):
        checked.append(None if tensor is None else require_ub_tensor(instruction, name, tensor, core))
    return tuple(checked)


def _check_dtypes(instruction: str, core: Core, support: CompareSupport, form: str, mode: CMPMODE,
                  src0: LocalTensor, src1: LocalTensor | None, dst: LocalTensor, *, scalar: bool,
                  src0_name: str = "src0") -> None:
    product = core.chip.name
    dtypes = support.scalar_dtypes if scalar else support.dtypes
    if form != "count":
        dtypes = dtypes - support.count_only_dtypes
    doc = "Compares.md" if scalar else "Compare.md"
    source = f"{pages.COMPARES if scalar else pages.COMPARE} 数据类型; {semantics('3.4')}"
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


def _plan_bitmask(instruction: str, core: Core, form: str, bound: dict, *,
                  scalar: bool) -> tuple[CompareCall, np.ndarray | None]:
    """The checked call of a bitmask form, and the scalar's raw bits (``None`` for tensor-tensor)."""
    what = "Compares" if scalar else "Compare"
    support = _support(core, instruction, what, (lambda s: bool(s.scalar_dtypes)) if scalar else
                       (lambda s: bool(s.dtypes)))
    mode = _cmp_mode(instruction, bound["cmp_mode"])
    dst, src0, src1 = _tensors(instruction, core, bound["dst"], bound["src0"], bound.get("src1"))
    _check_dtypes(instruction, core, support, form, mode, src0, src1, dst, scalar=scalar)
    dtype = src0.dtype
    scalar_raw = scalar_bits(instruction, "src1_scalar", bound["src1_scalar"], dtype) if scalar else None
    if form == "count":
        lanes = _count_lanes(instruction, core, support, bound["count"], src0, src1, dst)
        strides = (1, 8, 1, 8)
        mask_words_after = None
    else:
        params_cls = UnaryRepeatParams if scalar else BinaryRepeatParams
        fields = require_repeat_params(instruction, bound["repeat_params"], params_cls)
        # Unary: (dst_blk, src_blk, dst_rep, src_rep); Binary: (dst_blk, s0_blk, s1_blk, dst_rep, s0_rep, s1_rep).
        strides = (fields[1], fields[3], 0, 0) if scalar else (fields[1], fields[4], fields[2], fields[5])
        is_set_mask = require_bool(instruction, "is_set_mask", bound["is_set_mask"])
        if not scalar and not is_set_mask:
            raise ParameterRangeError(
                instruction, "is_set_mask", False, "is_set_mask is a reserved parameter of Compare to a "
                "bitmask; keep the default", "True", PARAMETER_SOURCE,
            )
        lanes, mask_words_after = _high_dim_lanes(
            instruction, core, support, "compares" if scalar else "compare", bound["mask"],
            bound["repeat_times"], is_set_mask, dtype.itemsize, dst,
        )
    return CompareCall(instruction, core, support, dtype, mode, src0, src1, lanes, strides, dst,
                       mask_words_after), scalar_raw


def _count_lanes(instruction: str, core: Core, support: CompareSupport, count, src0: LocalTensor,
                 src1: LocalTensor | None, dst: LocalTensor) -> ActiveLanes:
    """Full repeats covering ``count`` elements, after checking that they fit every operand."""
    itemsize = src0.dtype.itemsize
    count = require_int(instruction, "count", count, 0, COUNT_MAX, COUNT_SOURCE, rule="count is uint32_t")
    if count * itemsize % REPEAT_BYTES:
        step = REPEAT_BYTES // itemsize
        raise ParameterRangeError(
            instruction, "count", count, f"count * sizeof({src0.dtype}) must be a multiple of 256 bytes "
            "(elements past the last whole repeat would not be compared)", f"multiples of {step}", COUNT_SOURCE,
        )
    _require_normal_mode(instruction, core, support)
    repeats = count * itemsize // REPEAT_BYTES
    lanes = lanes_per_repeat(itemsize)
    # Bounds first, from the contiguous extents, so a huge count never builds huge index arrays.
    if repeats:
        for name, tensor in (("src0", src0), ("src1", src1)):
            if tensor is not None:
                tensor.check_span(instruction, name, tensor.addr, tensor.addr + repeats * REPEAT_BYTES)
        dst.check_span(instruction, "dst", dst.addr, dst.addr + repeats * lanes // 8)
    return ActiveLanes(repeats, lanes, None, repeats * lanes)


def _high_dim_lanes(instruction: str, core: Core, support: CompareSupport, kind: str, mask, repeat_times,
                    is_set_mask: bool, itemsize: int, dst: LocalTensor | None) -> tuple[ActiveLanes, MaskWords | None]:
    """Lanes of a high-dim bitmask form and the vector mask register value it leaves, if any."""
    lanes = lanes_per_repeat(itemsize)
    _require_normal_mode(instruction, core, support)
    counter = core.mask_mode == MaskMode.COUNTER
    if not support.mask_honoured:
        _check_reserved_mask(instruction, mask, itemsize)
        repeat_times = require_int(instruction, "repeat_times", repeat_times, 0, MAX_REPEAT, REPEAT_SOURCE)
        return ActiveLanes(repeat_times, lanes, None, repeat_times * lanes), None
    if not is_set_mask:
        if counter:
            raise _spill_unsupported(instruction, core)
        return lanes_from_register(core, instruction, repeat_times, itemsize), None
    words = mask_arg_words(instruction, mask, itemsize, True, counter)
    if counter and dst is not None:
        # ceil(count / E) repeats of E/8 bytes each: check the extent before building lanes.
        dst.check_span(instruction, "dst", dst.addr, dst.addr + div_up(words[0], lanes) * lanes // 8)
    active, words = lanes_from_mask_arg(core, instruction, mask, repeat_times, itemsize, lowering_counts_raw=True)
    form_key = f"{kind}_{'len' if _is_int(mask) else 'bits'}"
    sets_register = not counter and form_key in support.mask_arg_sets_register
    return active, (words if sets_register else None)


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


def _plan_register(instruction: str, core: Core, bound: dict) -> CompareCall:
    support = _register_support(core, instruction)
    mode = _cmp_mode(instruction, bound["cmp_mode"])
    _, src0, src1 = _tensors(instruction, core, None, bound["src0"], bound["src1"])
    _check_register_dtypes(instruction, core, support, src0, src1)
    fields = require_repeat_params(instruction, bound["repeat_params"], BinaryRepeatParams)
    strides = (fields[1], 0, fields[2], 0)  # one repeat: only the source block strides matter
    is_set_mask = require_bool(instruction, "is_set_mask", bound["is_set_mask"])
    itemsize = src0.dtype.itemsize
    mask = bound["mask"]
    _require_normal_mode(instruction, core, support)
    mask_words_after = None
    if core.mask_mode == MaskMode.COUNTER:
        if not is_set_mask:
            raise _spill_unsupported(instruction, core)
        # 950 CompareWithoutDstCounterModeImplVF: one repeat, the first min(count, E) lanes.
        count = mask_arg_words(instruction, mask, itemsize, True, True)[0]
        lanes = _first_lanes(count, lanes_per_repeat(itemsize))
    elif is_set_mask:
        lanes, words = lanes_from_mask_arg(core, instruction, mask, 1, itemsize)
        form_key = f"register_{'len' if _is_int(mask) else 'bits'}"
        if form_key in support.mask_arg_sets_register:
            mask_words_after = words
    else:
        lanes = lanes_from_register(core, instruction, 1, itemsize)
    return CompareCall(instruction, core, support, src0.dtype, mode, src0, src1, lanes, strides, None,
                       mask_words_after)


def _first_lanes(count: int, lanes: int) -> ActiveLanes:
    """One repeat with its first ``min(count, E)`` lanes active."""
    if count >= lanes:
        return ActiveLanes(1, lanes, None, lanes)
    row = np.arange(lanes, dtype=np.int64)[None, :] < count
    row.setflags(write=False)
    return ActiveLanes(1, lanes, row, count)


def _bare_lanes(instruction: str, core: Core, support: CompareSupport, repeat: int, itemsize: int) -> ActiveLanes:
    """Lanes of a bare ``vcmpv``/``vcmpvs``: the register mask where honoured, else every lane."""
    _require_normal_mode(instruction, core, support)
    if support.mask_honoured:
        return lanes_from_register(core, instruction, repeat, itemsize)
    repeat = require_int(instruction, "repeat", repeat, 0, MAX_REPEAT, REPEAT_SOURCE)
    lanes = lanes_per_repeat(itemsize)
    return ActiveLanes(repeat, lanes, None, repeat * lanes)


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



@dataclass
class ComparePlan:
    """A checked compare, compiled to operand accesses; cached per core and re-run.

    ``compile`` checks bounds, overlap and the scratch (nothing is read or written);
    ``run`` does what depends on memory and register contents: uninitialised-read checks,
    the compare on raw bits (:class:`LaneComparison`), packing and the commit.

    Attributes:
        call: the resolved call.
        src0, src1: the sources in the plan's layout (``src1`` is ``None`` against a scalar).
        dst: the packed bitmask bytes (``E / 8`` per repeat, docs/semantics.md §3.1), ``None`` for CMPMASK.
        scratch: the UB staging bytes of a compare to CMPMASK on the 950, else ``None``.
        lane_mask: view layout: ``(repeats, E)`` active lanes when some are inactive (their
            bits are 0), else ``None``.
    """

    call: CompareCall
    src0: OperandAccess
    src1: OperandAccess | None
    dst: ByteSpan | None
    scratch: ByteSpan | None
    lane_mask: np.ndarray | None
    comparison: LaneComparison
    scalar_operand: tuple | None = None  # (raw bits, compared value) of the latest scalar

    @classmethod
    def compile(cls, call: CompareCall) -> ComparePlan:
        ub, lanes, itemsize = call.core.ub, call.lanes, call.dtype.itemsize
        s0_blk, s0_rep, s1_blk, s1_rep = call.strides
        operands = [StridedOperand(call.src0.addr, strided_footprint(call.src0_name, call.src0.addr, lanes, itemsize,
                                                                     s0_blk, s0_rep), s0_blk, s0_rep)]
        if call.src1 is not None:
            operands.append(StridedOperand(call.src1.addr, strided_footprint("src1", call.src1.addr, lanes, itemsize,
                                                                             s1_blk, s1_rep), s1_blk, s1_rep))
        reads = [op.footprint for op in operands]
        tensors = {call.src0_name: call.src0, "src1": call.src1}

        # bounds, overlap, scratch (nothing is read or written here)
        for fp in reads:
            fp.check_in(call.instruction, tensors[fp.name])
        dst = None
        if call.dst is not None:
            dst_fp = bytes_footprint("dst", call.dst.addr, lanes.lanes // 8, lanes.repeats)
            dst_fp.check_in(call.instruction, call.dst)
            for fp in reads:
                check_overlap(call.instruction, dst_fp, fp)
            dst = ByteSpan("dst", call.dst.addr, call.dst.addr + lanes.repeats * lanes.lanes // 8)
        scratch = None
        if call.dst is None and call.support.register_scratch_offset_bytes is not None:
            start = call.support.register_scratch_offset_bytes
            check_clear_of_scratch(
                call.instruction, start, lanes.lanes // 8, reads,
                "UB scratch", "this call writes (该接口占用8KB Unified Buffer临时空间)",
                f"{pages.COMPARE_TO_REGISTER} 约束说明; {semantics('3.5')}")  # dav_3510 VcmpImpl
            scratch = ByteSpan("scratch", start, start + lanes.lanes // 8)
        comparison = LaneComparison.of(call.mode, call.dtype, call.support.float_semantics)

        layout = choose_layout(ub, operands, lanes, None)
        accesses = [OperandAccess.build(ub, op, call.dtype.raw, lanes, layout) for op in operands]
        lane_mask = lanes.mask if layout == "view" else None
        return cls(call, accesses[0], accesses[1] if len(accesses) > 1 else None, dst, scratch, lane_mask,
                   comparison)

    def run(self, core: Core, scalar_raw: np.ndarray | None = None) -> None:
        """Execute on ``core`` (the one planned for); ``scalar_raw``: a scalar compare's raw bits."""
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
            memo = self.scalar_operand  # scalar_bits_cached hands out one array per value: compare by identity
            if memo is None or memo[0] is not scalar_raw:
                memo = self.scalar_operand = (scalar_raw, comparison.operand(scalar_raw)[0])
            second = memo[1]
        hits = comparison.operator(first, second)
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
            self._commit(core, packed, _cmpmask_after(call, bits[0]))
        else:
            self._commit(core, np.packbits(bits, axis=None, bitorder="little") if lanes.repeats else None, None)

    def _commit(self, core: Core, packed: np.ndarray | None, cmpmask: bytes | None) -> None:
        """Store a computed compare: the packed bits (dst, or the 950's UB staging), CMPMASK, the mask register."""
        if packed is not None:
            (self.dst if self.dst is not None else self.scratch).write(core.ub, packed)
        if cmpmask is not None:
            core.load_cmpmask(cmpmask)
        if self.call.mask_words_after is not None:
            core.mask_words = self.call.mask_words_after


def _cmpmask_after(plan: CompareCall, bits: np.ndarray) -> bytes:
    """CMPMASK after a compare to register: result bits at lanes ``0..E-1`` (docs/semantics.md §3.5)."""
    core = plan.core
    lanes = plan.lanes
    if not plan.support.register_keeps_masked_bits:
        register = np.zeros(8 * CMPMASK_BYTES, dtype=bool)
        register[: lanes.lanes] = bits
        return np.packbits(register, bitorder="little").tobytes()
    if lanes.mask is not None and not core.cmpmask_written:
        core.report_unset_cmpmask(plan.instruction)  # masked-off bits keep a never-set value
    register = np.unpackbits(np.frombuffer(core.cmpmask, dtype=np.uint8), bitorder="little").astype(bool)
    active = np.ones(lanes.lanes, dtype=bool) if lanes.mask is None else lanes.mask[0]
    register[: lanes.lanes][active] = bits[active]
    return np.packbits(register, bitorder="little").tobytes()
