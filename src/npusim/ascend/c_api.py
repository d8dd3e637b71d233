"""The Ascend C API (``asc_*`` functions) as thin wrappers over the instruction models.

Signatures follow ``docs/zh/api/SIMD-API/C-API`` (docs/semantics.md §2.6, §3.6, §4) and
``include/c_api/vector_compute/vector_compute.h``; UB pointers are passed as
:class:`~npusim.ascend.tensor.LocalTensor` objects.  The compare functions have
exactly two overloads each in the header — to a uint8 UB bitmask and to CMPMASK
(the ``_scalar`` ones only the former); there is no count overload.  The
C API exists on Atlas A2/A3 only; on other products every call raises an
:class:`~npusim.errors.UnsupportedError` naming the product.  ``*_sync``
variants add a ``pipe_barrier(PIPE_ALL)``, which the emulator records.

Each wrapper keeps the checked plan of a call (``npusim.ascend.plans``) under a key
made of its arguments and the mask registers, so a repeated call skips the argument
checks; only the per-call ones (tensors still usable, a scalar's conversion) remain.
"""

from __future__ import annotations

from collections.abc import Callable

from ..overloads import Form, Param, bind_values
from ..sources import semantics
from ..validate import require_int, require_uint
from . import pages
from .addressing import lanes_per_repeat
from .chips import unsupported_on
from .core import Core, SyncRecord, current_core
from .masking import COUNTER_MAX, checked_counter_lanes, lanes_from_register
from .ops.common import is_scalar, is_tensor, require_dtype, scalar_bits_cached
from .ops.compare import plan_vcmp, plan_vcmpv, plan_vcmpvs
from .ops.select import plan_vsel_cmpmask
from .plans import (
    Shortcut,
    call_key,
    find_plan,
    find_shortcut,
    keep_plan,
    keep_shortcut,
    per_call_flags,
    require_usable,
    shortcut_key,
    value_key,
)
from .tensor import LocalTensor
from .types import CMPMODE, MaskMode, PipeID

__all__ = [
    "asc_eq", "asc_eq_scalar", "asc_eq_scalar_sync", "asc_eq_sync",
    "asc_ge", "asc_ge_scalar", "asc_ge_scalar_sync", "asc_ge_sync",
    "asc_gt", "asc_gt_scalar", "asc_gt_scalar_sync", "asc_gt_sync",
    "asc_le", "asc_le_scalar", "asc_le_scalar_sync", "asc_le_sync",
    "asc_lt", "asc_lt_scalar", "asc_lt_scalar_sync", "asc_lt_sync",
    "asc_ne", "asc_ne_scalar", "asc_ne_scalar_sync", "asc_ne_sync",
    "asc_select", "asc_select_sync",
    "c_api_core",
]


def c_api_core(instruction: str) -> Core:
    """The active core, provided the product has the C API."""
    core = current_core(instruction)
    if not core.chip.c_api:
        raise unsupported_on(core.chip, instruction, "the asc_* C API", lambda c: c.c_api,
                             f"{_page(instruction)} 产品支持情况; {semantics('2.6', '3.6')}")
    return core


def _page(instruction: str) -> str:
    """The page of a C API function: ``asc_eq_sync`` is on ``asc_eq.md``."""
    return f"{pages.C_API}/{instruction.removesuffix('_sync')}.md"


def _barrier(core: Core) -> None:
    core.sync_log.append(SyncRecord("pipe_barrier", int(PipeID.PIPE_ALL), 0))


def _strides(instruction: str, values: tuple) -> tuple[int, ...]:
    names = ("dst_block_stride", "src0_block_stride", "src1_block_stride",
             "dst_repeat_stride", "src0_repeat_stride", "src1_repeat_stride")
    source = f"{_page(instruction)} 参数说明; {semantics('2.6')}"
    return tuple(require_uint(instruction, n, v, 8, source) for n, v in zip(names, values, strict=True))


def asc_select(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args) -> None:
    """``vsel`` in mode 0: per lane, src0 where the CMPMASK bit is 1, else src1.

    Forms::

        asc_select(dst, src0, src1, count)            # counter mode, first `count` elements
        asc_select(dst, src0, src1, repeat, dst_block_stride, src0_block_stride, src1_block_stride,
                   dst_repeat_stride, src0_repeat_stride, src1_repeat_stride)

    The count form is ``set_mask_count(); set_vector_mask(0, count); vsel; set_mask_norm()``:
    afterwards the core is in normal mode with ``count`` left in the mask register's low word.
    """
    _asc_select("asc_select", dst, src0, src1, args)


def asc_select_sync(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args) -> None:
    """:func:`asc_select` followed by ``pipe_barrier(PIPE_ALL)``."""
    core = _asc_select("asc_select_sync", dst, src0, src1, args)
    _barrier(core)


def _asc_select(instruction: str, dst, src0, src1, args: tuple) -> Core:
    core = c_api_core(instruction)
    key = (instruction, value_key(dst), value_key(src0), value_key(src1), *map(value_key, args),
           int(core.mask_mode), core.mask_words)
    plan = find_plan(core, key)
    if plan is None:
        plan = _plan_asc_select(instruction, core, dst, src0, src1, args)
        keep_plan(core, key, plan)
    else:
        require_usable(instruction, core, (dst, src0, src1), ("dst", "src0", "src1"))
    plan.run(core)
    return core


def _plan_asc_select(instruction: str, core: Core, dst, src0, src1, args: tuple):
    if not isinstance(dst, LocalTensor):
        raise TypeError(f"{instruction}: dst must be a LocalTensor, got {type(dst).__name__}")
    if len(args) == 1:
        count = require_int(instruction, "count", args[0], 0, COUNTER_MAX,
                            f"{_page(instruction)} 参数说明 (uint32_t count); {semantics('2.6')}")
        lanes = checked_counter_lanes(instruction, count, lanes_per_repeat(dst.dtype.itemsize), "count")
        return plan_vsel_cmpmask(instruction, core, dst, src0, src1, lanes, (1, 1, 1, 8, 8, 8),
                                 mask_words_after=(count, 0, 0, 0), mask_mode_after=MaskMode.NORMAL)
    if len(args) == 7:
        repeat = require_uint(instruction, "repeat", args[0], 8, f"{_page(instruction)} 参数说明; {semantics('2.6')}")
        strides = _strides(instruction, args[1:])
        lanes = lanes_from_register(core, instruction, repeat, dst.dtype.itemsize)
        return plan_vsel_cmpmask(instruction, core, dst, src0, src1, lanes, strides)
    raise TypeError(f"{instruction}: takes (dst, src0, src1, count) or (dst, src0, src1, repeat, "
                    f"6 strides), got {3 + len(args)} arguments")


# ----------------------------------------------------------------- compare
_STRIDES8 = ("dst_block_stride", "src0_block_stride", "src1_block_stride",
             "dst_repeat_stride", "src0_repeat_stride", "src1_repeat_stride")
_SCALAR_STRIDES16 = ("dst_block_stride", "src_block_stride", "dst_repeat_stride", "src_repeat_stride")


def _uint(v) -> bool:
    return isinstance(v, int) or hasattr(v, "__index__")


_COMPARE_FORMS = (
    Form("to_ub", (Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
                   Param("repeat", _uint), *(Param(n, _uint) for n in _STRIDES8))),
    Form("to_register", (Param("src0", is_tensor), Param("src1", is_tensor), Param("repeat", _uint),
                         *(Param(n, _uint) for n in _STRIDES8))),
)
_COMPARE_SCALAR_FORMS = (
    Form("to_ub", (Param("dst", is_tensor), Param("src", is_tensor), Param("value", is_scalar),
                   Param("repeat", _uint), *(Param(n, _uint) for n in _SCALAR_STRIDES16))),
)
_NOT_PER_CALL = {form.name: (False,) * len(form.params) for form in _COMPARE_FORMS}
_VALUE = per_call_flags(_COMPARE_SCALAR_FORMS[0].names, frozenset({"value"}))  # the scalar is converted per call


def _require_uint8_dst(instruction: str, dst: LocalTensor) -> None:
    require_dtype(instruction, "dst", dst.dtype, frozenset({"uint8"}), "the C API bitmask is __ubuf__ uint8_t*",
                  f"{_page(instruction)} 函数原型; {semantics('3.4')}")


def _register_key(core: Core, reads_mask_register: bool) -> tuple:
    """The register configuration a compare plans with: the mask mode, and the mask words if it reads them."""
    return int(core.mask_mode), core.mask_words if reads_mask_register else None


def _tensor_compare(name: str, mode: CMPMODE, sync: bool) -> Callable[..., None]:
    def call(*args, **kwargs) -> None:
        core, short_key = shortcut_key(name, args, kwargs)
        if short_key is not None and (shortcut := find_shortcut(core, short_key)) is not None:
            shortcut.checked(name, core, args).run(core)
        else:
            form, values = bind_values(name, _COMPARE_FORMS, args, kwargs)
            core = c_api_core(name)
            to_ub = form.name == "to_ub"
            reads_register = not to_ub or core.chip.compare is None or core.chip.compare.mask_honoured
            key = call_key((name, form.name, *_register_key(core, reads_register)), values, _NOT_PER_CALL[form.name])
            plan = find_plan(core, key)
            count = 3 if to_ub else 2
            if plan is None:
                plan = _plan_tensor_compare(name, mode, core, to_ub, dict(zip(form.names, values, strict=True)))
                keep_plan(core, key, plan)
            else:
                require_usable(name, core, values[:count], form.names[:count])
            plan.run(core)
            if short_key is not None:
                keep_shortcut(core, short_key, Shortcut.of(plan, args, range(count), form.names[:count]))
        if sync:
            _barrier(core)

    base = name.removesuffix("_sync")
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (
        f"``vcmpv_{mode.name.lower()}`` / ``vcmp_{mode.name.lower()}``: per lane, "
        f"``src0 {_SYMBOLS[mode]} src1`` ({base}.md).\n\n"
        "Forms::\n\n"
        f"    {name}(dst, src0, src1, repeat, dst_block_stride, src0_block_stride, src1_block_stride,\n"
        "        dst_repeat_stride, src0_repeat_stride, src1_repeat_stride)   # bits to a uint8 UB tensor\n"
        f"    {name}(src0, src1, repeat, <the same 6 strides>)                 # bits to CMPMASK\n\n"
        "To UB: ``repeat`` repeats, every bit written (the vector mask has no effect), E/8 bytes per\n"
        "repeat packed at ``dst``.  To CMPMASK: one 256-byte repeat (``repeat`` has no effect) under\n"
        "the vector mask register; masked-off CMPMASK bits keep their previous value.  Read it\n"
        "back with :func:`asc_get_cmp_mask`."
        + ("\n\nFollowed by ``pipe_barrier(PIPE_ALL)``." if sync else "")
    )
    return call


def _plan_tensor_compare(name: str, mode: CMPMODE, core: Core, to_ub: bool, bound: dict):
    source = f"{_page(name)} 参数说明; {semantics('3.6')}"
    strides = {n: require_uint(name, n, bound[n], 8, source) for n in _STRIDES8}
    repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
    if to_ub:
        _require_uint8_dst(name, bound["dst"])
        return plan_vcmpv(name, core, mode, bound["dst"], bound["src0"], bound["src1"], repeat,
                          (strides["src0_block_stride"], strides["src0_repeat_stride"],
                           strides["src1_block_stride"], strides["src1_repeat_stride"]))
    # "固定处理256B的数据，repeat字段不生效": one repeat whatever `repeat` says
    return plan_vcmp(name, core, mode, bound["src0"], bound["src1"],
                     (strides["src0_block_stride"], strides["src1_block_stride"]))


def _scalar_compare(name: str, mode: CMPMODE, sync: bool) -> Callable[..., None]:
    def call(*args, **kwargs) -> None:
        core, short_key = shortcut_key(name, args, kwargs)
        if short_key is not None and (shortcut := find_shortcut(core, short_key)) is not None:
            plan = shortcut.checked(name, core, args)
            plan.run(core, scalar_bits_cached(name, "value", args[2], plan.call.dtype))
        else:
            form, values = bind_values(name, _COMPARE_SCALAR_FORMS, args, kwargs)
            core = c_api_core(name)
            reads_register = core.chip.compare is None or core.chip.compare.mask_honoured
            key = call_key((name, *_register_key(core, reads_register)), values, _VALUE)
            plan = find_plan(core, key)
            if plan is None:
                bound = dict(zip(form.names, values, strict=True))
                source = f"{_page(name)} 参数说明; {semantics('3.6')}"
                strides = {n: require_uint(name, n, bound[n], 16, source) for n in _SCALAR_STRIDES16}
                repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
                _require_uint8_dst(name, bound["dst"])
                plan, scalar_raw = plan_vcmpvs(name, core, mode, bound["dst"], bound["src"], bound["value"], repeat,
                                               (strides["src_block_stride"], strides["src_repeat_stride"]))
                keep_plan(core, key, plan)
            else:
                require_usable(name, core, values[:2], form.names[:2])
                scalar_raw = scalar_bits_cached(name, "value", values[2], plan.call.dtype)
            plan.run(core, scalar_raw)
            if short_key is not None:
                keep_shortcut(core, short_key, Shortcut.of(plan, args, range(2), form.names[:2], 2))
        if sync:
            _barrier(core)

    base = name.removesuffix("_sync")
    call.__name__ = call.__qualname__ = name
    call.__doc__ = (
        f"``vcmpvs_{mode.name.lower()}``: per lane, ``src {_SYMBOLS[mode]} value`` into a uint8 bitmask "
        f"({base}.md).\n\n"
        f"Signature: ``{name}(dst, src, value, repeat, dst_block_stride, src_block_stride, "
        "dst_repeat_stride, src_repeat_stride)`` (strides ``uint16_t``).  ``value`` is converted to the\n"
        "source dtype; every bit of every repeat is written, E/8 bytes per repeat packed at ``dst``."
        + ("\n\nFollowed by ``pipe_barrier(PIPE_ALL)``." if sync else "")
    )
    return call


_SYMBOLS = {CMPMODE.EQ: "==", CMPMODE.NE: "!=", CMPMODE.LT: "<", CMPMODE.LE: "<=", CMPMODE.GT: ">",
            CMPMODE.GE: ">="}

asc_eq = _tensor_compare("asc_eq", CMPMODE.EQ, sync=False)
asc_eq_sync = _tensor_compare("asc_eq_sync", CMPMODE.EQ, sync=True)
asc_ne = _tensor_compare("asc_ne", CMPMODE.NE, sync=False)
asc_ne_sync = _tensor_compare("asc_ne_sync", CMPMODE.NE, sync=True)
asc_lt = _tensor_compare("asc_lt", CMPMODE.LT, sync=False)
asc_lt_sync = _tensor_compare("asc_lt_sync", CMPMODE.LT, sync=True)
asc_le = _tensor_compare("asc_le", CMPMODE.LE, sync=False)
asc_le_sync = _tensor_compare("asc_le_sync", CMPMODE.LE, sync=True)
asc_gt = _tensor_compare("asc_gt", CMPMODE.GT, sync=False)
asc_gt_sync = _tensor_compare("asc_gt_sync", CMPMODE.GT, sync=True)
asc_ge = _tensor_compare("asc_ge", CMPMODE.GE, sync=False)
asc_ge_sync = _tensor_compare("asc_ge_sync", CMPMODE.GE, sync=True)

asc_eq_scalar = _scalar_compare("asc_eq_scalar", CMPMODE.EQ, sync=False)
asc_eq_scalar_sync = _scalar_compare("asc_eq_scalar_sync", CMPMODE.EQ, sync=True)
asc_ne_scalar = _scalar_compare("asc_ne_scalar", CMPMODE.NE, sync=False)
asc_ne_scalar_sync = _scalar_compare("asc_ne_scalar_sync", CMPMODE.NE, sync=True)
asc_lt_scalar = _scalar_compare("asc_lt_scalar", CMPMODE.LT, sync=False)
asc_lt_scalar_sync = _scalar_compare("asc_lt_scalar_sync", CMPMODE.LT, sync=True)
asc_le_scalar = _scalar_compare("asc_le_scalar", CMPMODE.LE, sync=False)
asc_le_scalar_sync = _scalar_compare("asc_le_scalar_sync", CMPMODE.LE, sync=True)
asc_gt_scalar = _scalar_compare("asc_gt_scalar", CMPMODE.GT, sync=False)
asc_gt_scalar_sync = _scalar_compare("asc_gt_scalar_sync", CMPMODE.GT, sync=True)
asc_ge_scalar = _scalar_compare("asc_ge_scalar", CMPMODE.GE, sync=False)
asc_ge_scalar_sync = _scalar_compare("asc_ge_scalar_sync", CMPMODE.GE, sync=True)
