"""Checks and conversions every Ascend vector instruction shares."""

from __future__ import annotations

import math
import numbers
from dataclasses import fields

import numpy as np

from ...dtypes import DTYPES, DType, PackedFloatDType
from ...engine.caches import Cache
from ...errors import UnsupportedError
from ...overloads import Param
from ...sources import semantics
from ...validate import require_aligned, require_uint
from .. import pages
from ..chips import unsupported_on
from ..core import Core, SyncRecord
from ..scalars import is_scalar, scalar_bits
from ..tensor import LocalTensor
from ..types import UB_POSITIONS, PipeID, UnaryRepeatParams

__all__ = [
    "require_register_dtype",
    "RangesAfterRun",
    "UB_ALIGN",
    "c_api_page",
    "record_pipe_barrier",
    "require_c_api",
    "is_scalar",
    "is_tensor",
    "require_dtype",
    "require_pair",
    "require_repeat_params",
    "require_ub_tensor",
    "scalar_bits",
    "scalar_bits_cached",
]

UB_ALIGN = 32  # UB operand start addresses are 32-byte aligned (docs/semantics.md §1.5)
ALIGN_SOURCE = f"{pages.GENERAL} 通用地址对齐约束; {semantics('1.5')}"
PACKED_SOURCE = semantics("5.23")
FP4_SOURCE = semantics("5.33")
POSITION_SOURCE = f"{pages.GENERAL} 逻辑位置和物理存储的映射关系; {semantics('1.8')}"


def is_tensor(value) -> bool:
    return isinstance(value, LocalTensor)


def require_ub_tensor(
    instruction: str, name: str, tensor: LocalTensor, core: Core, alignment: int = UB_ALIGN,
    align_source: str = ALIGN_SOURCE, packed: bool = False,
) -> LocalTensor:
    """A tensor usable by ``instruction`` on ``core``: alive, same core, in UB, aligned; of a packed
    element type (``int4b_t``) only where the caller handles one (``packed``, docs/semantics.md §5.23)."""
    if not isinstance(tensor, LocalTensor):
        raise TypeError(f"{instruction}: {name} must be a LocalTensor, got {type(tensor).__name__}")
    tensor.check_usable(instruction, name, core)
    if isinstance(tensor.dtype, PackedFloatDType) and not packed:
        raise UnsupportedError(instruction, f"{name} dtype", tensor.dtype.name, f"{instruction} does not take "
                               f"{tensor.dtype.bits}-bit elements (the 950's moves that list fp4x2_e2m1_t are not "
                               "modelled: their count's unit is not settled)", "Cast's fp4x2_e2m1_t <-> bfloat16_t "
                               "lines", FP4_SOURCE)
    if tensor.dtype.bits < 8 and not packed:
        raise UnsupportedError(instruction, f"{name} dtype", tensor.dtype.name, f"{instruction} does not take "
                               f"{tensor.dtype.bits}-bit elements", "Cast's int4b_t pairs and asc_half2int4 / "
                               "asc_int42half", PACKED_SOURCE)
    if tensor.position not in UB_POSITIONS:
        raise UnsupportedError(
            instruction, f"{name} position", tensor.position.name,
            "vector instructions read and write the Unified Buffer", "VECIN, VECOUT, VECCALC", POSITION_SOURCE,
        )
    require_aligned(instruction, name, tensor.addr, alignment, "UB", align_source)
    return tensor


def require_pair(instruction: str, core: Core, dst, src, page: str, src_label: str = "src") -> tuple:
    """dst and ``src_label`` as usable UB tensors of one element type (the pages' "数据类型和dst保持一致")."""
    dst = require_ub_tensor(instruction, "dst", dst, core)
    src = require_ub_tensor(instruction, src_label, src, core)
    if src.dtype != dst.dtype:
        raise UnsupportedError(instruction, f"{src_label} dtype", src.dtype.name, f"{src_label} must have dst's dtype",
                               dst.dtype.name, page)
    return dst, src


class RangesAfterRun:
    """A binding whose bytes depend on what each call read (offsets, pattern bits): its ``ranges(values)``
    describe the last call, and the engine records the call after it ran (``ranges_after_run``)."""

    ranges_after_run = True

    @property
    def reads(self):
        return self.ranges(())[0]

    @property
    def writes(self):
        return self.ranges(())[1]


def require_dtype(
    instruction: str, name: str, dtype: DType, allowed: frozenset[str], what: str, source: str | None = None
) -> None:
    """Raise :class:`UnsupportedError` unless ``dtype`` is in ``allowed``; ``source`` documents ``allowed``."""
    if dtype.name not in allowed:
        raise UnsupportedError(
            instruction, f"{name} dtype", dtype.name, f"{what}", ", ".join(sorted(allowed)) or "none", source,
        )


def require_repeat_params(instruction: str, params, cls, label: str = "repeat_params") -> tuple[int, ...]:
    """Validate every field of a parameter object against its C field width (``cls.SOURCE``); ``label`` is
    the parameter's name in the call (errors name ``label.field``)."""
    if not isinstance(params, cls):
        raise TypeError(f"{instruction}: {label} must be asc.{cls.__name__}, got {type(params).__name__}")
    return tuple(
        require_uint(instruction, f"{label}.{f.name}", getattr(params, f.name), cls.FIELD_BITS[f.name],
                     cls.SOURCE)
        for f in fields(params)
    )


_SCALAR_MEMO = Cache("scalar bits", 4096)  # shared by every thread: racing threads store equal read-only arrays


def scalar_bits_cached(instruction: str, name: str, value, dtype: DType) -> np.ndarray:
    """:func:`scalar_bits`, remembered for plain ``int`` / ``float`` values seen before.

    Kernels pass the same few constants again and again.  The memo key is exact: the
    value with its type and, for floats, the sign (``0.0 == -0.0`` but converts
    differently); NaN, numpy scalars and rejected values are never remembered.  The
    returned array is read-only.
    """
    kind = type(value)
    if (kind is not float and kind is not int) or value != value:
        return scalar_bits(instruction, name, value, dtype)
    key = (dtype.name, kind, value, math.copysign(1.0, value) if kind is float else 0)
    raw = _SCALAR_MEMO.get(key)
    if raw is None:
        raw = scalar_bits(instruction, name, value, dtype)
        raw.setflags(write=False)
        _SCALAR_MEMO.put(key, raw)
    return raw


# ------------------------------------------------------------------ the C API
def c_api_page(instruction: str) -> str:
    """The page of a C API function: ``asc_eq_sync`` is on ``asc_eq.md``, ``asc_transto5hd_b8`` on
    ``asc_transto5hd.md``."""
    base = instruction.removesuffix("_sync")
    return f"{pages.C_API}/{'asc_transto5hd' if base.startswith('asc_transto5hd') else base}.md"


def require_c_api(core: Core, instruction: str) -> None:
    """Raise unless the product has the ``asc_*`` C API (Atlas A2/A3 only, docs/semantics.md §2.6, §3.6)."""
    if not core.chip.c_api:
        raise unsupported_on(core.chip, instruction, "the asc_* C API", lambda c: c.c_api,
                             f"{c_api_page(instruction)} 产品支持情况; {semantics('2.6', '3.6')}")


def record_pipe_barrier(core: Core) -> None:
    """What a ``*_sync`` C API function adds after its instruction: ``pipe_barrier(PIPE_ALL)``."""
    core.sync_log.append(SyncRecord("pipe_barrier", int(PipeID.PIPE_ALL), 0))


# ---------------------------------------------------------------- call-form predicates and mask contexts
# Shared by every instruction with the element-wise call forms (count, mask + repeat, bit-wise mask).
def is_int_arg(v) -> bool:
    """An integer argument (Python or numpy), not a bool."""
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def is_mask_arg(v) -> bool:
    """A mask argument: an int (contiguous mode) or a sequence of uint64 words (bit-wise mode)."""
    return is_int_arg(v) or (isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, (str, bytes)))


def is_bool_arg(v) -> bool:
    return isinstance(v, (bool, np.bool_))


def is_unary_params(v) -> bool:
    return isinstance(v, UnaryRepeatParams)


DST = Param("dst", lambda _value: True)  # checked by the plan step, naming dst (as before forms bound it)


def mask_plan_context(core: Core, form: str, values: tuple) -> tuple:
    """The register configuration a mask-form plan depends on: the mask mode, and the mask words when
    ``is_set_mask`` (the form's last value) is False (the register supplies the lanes); none for a count form."""
    if form == "count":
        return ()
    return (int(core.mask_mode), None if values[-1] else core.mask_words)


def count_form_context(core: Core, form: str, values: tuple) -> tuple:
    """The register configuration a C API plan depends on: none for a count form (it sets the mask
    registers itself), the mask mode and words for a repeat form (it runs under them)."""
    return () if form == "count" else (int(core.mask_mode), core.mask_words)


def mask_fast_context(core: Core) -> tuple:
    """What a raw-argument lookup of such an instruction depends on: the mask mode and words."""
    return (int(core.mask_mode), core.mask_words)


# ---------------------------------------------------------------- the mask registers a lowering leaves
def mask_registers_left(words_after, mode_after) -> tuple[str, ...]:
    """The register names a call whose lowering leaves ``words_after`` / ``mode_after`` (``None``: that
    register untouched) writes: ``"MASK"``, ``"MASK_MODE"`` (docs/semantics.md §1.4)."""
    return ("MASK",) * (words_after is not None) + ("MASK_MODE",) * (mode_after is not None)


def require_register_dtype(instruction: str, dtype, allowed: frozenset[str], rule: str, source: str) -> DType:
    """The ``T`` a special-register read takes (``GetReduceRepeatSumSpr<T>``, ``GetReduceRepeatMaxMinSpr<T>``):
    one of npusim's dtype objects (``TypeError`` otherwise) whose name is in ``allowed``."""
    known = DTYPES.get(dtype.name) if isinstance(dtype, DType) and type(dtype.name) is str else None
    if known is None or known is not dtype:  # identity: a mutated copy may hold arrays (elementwise ==)
        raise TypeError(f"{instruction}: dtype must be an asc dtype (asc.float16, asc.float32), got {dtype!r}")
    if dtype.name not in allowed:
        raise UnsupportedError(instruction, "T", dtype.name, rule, ", ".join(sorted(allowed)), source)
    return dtype
