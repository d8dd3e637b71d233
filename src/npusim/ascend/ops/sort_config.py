"""Sort with SortConfig (高阶API/排序操作/Sort.md, the prototypes 带SortConfig; the 950 only): values sorted by
radix or merge sort, ascending or descending, with or without indices.

Forms (the page's six prototypes, in its parameter order; ``config`` and ``is_reuse_source`` are the C++
template arguments ``config`` and ``isReuseSource``, keyword or trailing)::

    sort_with_config(dst, src, cal_count)                                         # values only
    sort_with_config(dst, src, shared_tmp_buffer, cal_count)
    sort_with_config(dst, dst_index, src, cal_count)                              # + indices 0, 1, 2 ...
    sort_with_config(dst, dst_index, src, shared_tmp_buffer, cal_count)
    sort_with_config(dst, dst_index, src, src_index, cal_count)                   # + src_index permuted
    sort_with_config(dst, dst_index, src, src_index, shared_tmp_buffer, cal_count)
    ... config=asc.SortConfig(asc.SortType.RADIX_SORT, is_descend=False), is_reuse_source=False

**Why a name of its own.**  The C++ overloads all are ``Sort``; pyasc has no SortConfig form.  npusim's
``asc.sort`` is the form without SortConfig, ``sort(dst, concat, index, tmp, repeat_time)``, whose five
arguments have the shape of ``(dst, dst_index, src, src_index, cal_count)``: one name for both would choose
by element types alone, and a call meant for one form could silently run the other.  ``sort_with_config``
is the C++ ``Sort<T, isReuseSource, config>`` (its ``config`` defaults to ``DEFAULT_SORT_CONFIG``, radix,
ascending, as the C++ does), a registry entry, so that it has the generated fuzz, access-record and
interruption tests; ``asc.sort`` stays as it was.

Forms of the same shape are told apart as C++ overload resolution does: of four tensors, the second is
``src`` when it has dst's dtype and the third is uint8 (``sharedTmpBuffer``), else ``dst_index``; of five,
the fourth is ``shared_tmp_buffer`` when it is uint8 (an index is never uint8), else ``src_index``.

Results (docs/semantics.md §5.28; the orders: :mod:`.sort_config_order`): dst gets the first ``cal_count``
source values in the configured order, dst_index their positions (0, 1, 2 ...) or src_index's elements.
What else the implementation changes: an ascending MERGE_SORT leaves src with every sign bit flipped (it
flips them in place, ``DescendProcess``); with ``is_reuse_source`` a RADIX_SORT of 2-, 4- or 8-byte values
leaves src (and src_index) holding the keys (and indices) of its next-to-last round.  npusim writes both.
Not modelled: the contents of shared_tmp_buffer and, of a MERGE_SORT, of dst's bytes past the values (its
8-byte element space) — scratch the page does not describe; npusim leaves them unchanged, and the access
record counts them written (the device writes them).  The framework-allocated forms use scratch outside the
kernel's tensors: npusim computes in private buffers and checks only that GetSortMaxMinTmpSize's size fits
in UB.  Sorting moves bits: bit-exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from ..masking import MAX_REPEAT
from ..operands import NEVER
from ..tensor import LocalTensor
from ..types import DEFAULT_SORT_CONFIG, SortConfig, SortType
from .common import is_int_arg, is_tensor, require_dtype, require_ub_tensor
from .sort import SORTED_PER_REPEAT
from .sort_config_order import UNSIGNED, merge_order, radix_keys, radix_order, radix_partial_order, tmp_bytes

__all__ = ["SORT_CONFIG_DTYPES", "sort_with_config"]

NAME = "sort_with_config"
PAGE = pages.SORT_HIGH_LEVEL
TMP_PAGE = pages.GET_SORT_MAX_MIN_TMP_SIZE
SECTION = semantics("5.28")
RADIX, MERGE = SortType.RADIX_SORT, SortType.MERGE_SORT
#: per product: per algorithm, (value types T, index types U) (表3 模板参数说明; 功能说明: "仅在Ascend 950PR/Ascend
#: 950DT上支持")
SORT_CONFIG_DTYPES = {"950": {
    RADIX: (frozenset({"uint8", "int8", "uint16", "int16", "uint32", "int32", "float16", "bfloat16", "float32",
                       "uint64", "int64"}), frozenset({"uint32", "int32", "uint64", "int64"})),
    MERGE: (frozenset({"float16", "float32"}), frozenset({"uint32"})),
}}
MAX_MERGE_COUNT = MAX_REPEAT * SORTED_PER_REPEAT  # Sort32's repeatTime is cal_count / 32, at most 255


def _support(chip) -> frozenset[str] | None:
    row = SORT_CONFIG_DTYPES.get(chip.name)
    return None if row is None else row[RADIX][0] | row[MERGE][0]


def _is_config(value) -> bool:
    return isinstance(value, SortConfig)


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


_TAIL = (Param("config", _is_config, DEFAULT_SORT_CONFIG), Param("is_reuse_source", _is_bool, False))
_N = Param("cal_count", is_int_arg)
_LAYOUTS = {  # form -> its tensors in the page's order
    "values": ("dst", "src"),
    "values_tmp": ("dst", "src", "shared_tmp_buffer"),
    "dst_index": ("dst", "dst_index", "src"),
    "dst_index_tmp": ("dst", "dst_index", "src", "shared_tmp_buffer"),
    "src_index": ("dst", "dst_index", "src", "src_index"),
    "src_index_tmp": ("dst", "dst_index", "src", "src_index", "shared_tmp_buffer"),
}
FORMS = tuple(Form(form, (*(Param(label, is_tensor) for label in labels), _N, *_TAIL))
              for form, labels in _LAYOUTS.items())
_SAME_SHAPE = {"values_tmp": "dst_index", "dst_index_tmp": "src_index"}  # bound first -> its twin


def _resolve(form: str, bound: dict) -> tuple[str, dict]:
    """The form a positional call of an ambiguous shape means (module docstring: as C++ resolves it)."""
    twin = _SAME_SHAPE.get(form)
    if twin is None:
        return form, bound
    tensors = [bound[label] for label in _LAYOUTS[form]]
    if all(isinstance(t, LocalTensor) for t in tensors):
        if form == "values_tmp":
            dst, second, third = tensors
            keep = second.dtype == dst.dtype and third.dtype.name == "uint8"
        else:
            keep = tensors[3].dtype.name == "uint8"
        if not keep:
            bound = {**bound, **dict(zip(_LAYOUTS[twin], tensors, strict=True))}
            bound.pop("shared_tmp_buffer", None)
            return twin, bound
    return form, bound


def _compile(core: Core, form: str, bound: dict):
    operands = _LAYOUTS[form]  # the parameters the dispatcher binds, by the form it bound
    form, bound = _resolve(form, bound)
    labels = _LAYOUTS[form]  # the tensors' roles
    row = SORT_CONFIG_DTYPES.get(core.chip.name)
    if row is None:
        raise unsupported_on(core.chip, NAME, "Sort with SortConfig", lambda c: c.name in SORT_CONFIG_DTYPES,
                             f"{PAGE} 产品支持情况, 功能说明")
    config, reuse = bound["config"], bool(bound["is_reuse_source"])
    if not isinstance(config.type, SortType) or not isinstance(config.is_descend, (bool, np.bool_)):
        raise TypeError(f"{NAME}: config must hold a SortType and a bool, got {config!r}")
    tensors = {label: require_ub_tensor(NAME, label, bound[label], core) for label in labels}
    value_types, index_types = row[config.type]
    dst, src = tensors["dst"], tensors["src"]
    algorithm = config.type.name
    require_dtype(NAME, "src", src.dtype, value_types, f"T of {algorithm}", f"{PAGE} 参数说明 (表3)")
    if dst.dtype != src.dtype:
        raise UnsupportedError(NAME, "dst dtype", dst.dtype.name, "dst has src's dtype", src.dtype.name,
                               f"{PAGE} 参数说明 (表4)")
    index_dtype = None
    if "dst_index" in tensors:
        index_dtype = tensors["dst_index"].dtype
        if "src_index" in tensors:
            require_dtype(NAME, "src_index", tensors["src_index"].dtype, index_types, f"U of {algorithm}",
                          f"{PAGE} 参数说明 (表3)")
            if index_dtype != tensors["src_index"].dtype:
                raise UnsupportedError(NAME, "dst_index dtype", index_dtype.name, "dst_index has src_index's dtype",
                                       tensors["src_index"].dtype.name, f"{PAGE} 参数说明 (表4)")
        elif index_dtype.name != "uint32":
            raise UnsupportedError(NAME, "dst_index dtype", index_dtype.name, "without src_index the indices "
                                   "are uint32_t", "uint32", f"{PAGE} 函数原型, 参数说明 (表4)")
    if "shared_tmp_buffer" in tensors and tensors["shared_tmp_buffer"].dtype.name != "uint8":
        raise UnsupportedError(NAME, "shared_tmp_buffer dtype", tensors["shared_tmp_buffer"].dtype.name,
                               "sharedTmpBuffer is uint8_t", "uint8", f"{PAGE} 参数说明 (表4)")
    count = _check_count(bound["cal_count"], tensors, config.type)
    merge = config.type == MERGE
    scratch = tmp_bytes(count, merge, src.dtype.itemsize, index_dtype.itemsize if index_dtype else 4,
                        "src_index" in tensors, "dst_index" in tensors, reuse)
    tmp = tensors.get("shared_tmp_buffer")
    if tmp is not None and tmp.nbytes < scratch:
        raise ParameterRangeError(NAME, "shared_tmp_buffer bytes", tmp.nbytes, "the scratch must hold "
                                  "GetSortMaxMinTmpSize's minValue", f"at least {scratch}",
                                  f"{TMP_PAGE} 功能说明, 参数说明; {SECTION}")
    if tmp is None and scratch > core.ub.size_bytes:
        raise ParameterRangeError(NAME, "cal_count", count, f"the framework's scratch of {scratch} bytes "
                                  "(GetSortMaxMinTmpSize) must fit in UB", f"at most {core.ub.size_bytes} bytes",
                                  f"{PAGE} 函数原型; {TMP_PAGE} 功能说明; {SECTION}")
    plan = SortConfigPlan(operands, labels, src.dtype, index_dtype, count, merge, bool(config.is_descend), reuse,
                          scratch if tmp is not None else 0)
    plan.bind(core, [tensors[label] for label in labels])
    return plan


def _check_count(value, tensors: dict, algorithm: SortType) -> int:
    """cal_count's rules (约束说明; the implementation's asserts, §5.28)."""
    if not is_int_arg(value):
        raise TypeError(f"{NAME}: cal_count must be an int, got {type(value).__name__}")
    count = int(value)
    limit = min(t.tile_size for label, t in tensors.items() if label != "shared_tmp_buffer")
    if count < 1 or count > limit:
        raise ParameterRangeError(NAME, "cal_count", count, "calCount may not exceed the operands' elements and "
                                  "is at least 1", f"[1, {limit}]", f"{PAGE} 约束说明; {SECTION}")
    for label, tensor in tensors.items():
        if label != "shared_tmp_buffer" and tensor.nbytes % 32:
            raise ParameterRangeError(NAME, f"{label} bytes", tensor.nbytes, "the tensors' sizes are whole "
                                      "32-byte blocks", "a multiple of 32", SECTION)
    sizes = {label: t.tile_size for label, t in tensors.items()
             if label != "shared_tmp_buffer" and not (algorithm == MERGE and label == "dst")}
    if len(set(sizes.values())) > 1:
        raise ParameterRangeError(NAME, "tensor elements", sizes, "dst, dst_index, src and src_index hold "
                                  "the same number of elements", "equal sizes", f"{PAGE} 约束说明")
    if algorithm == MERGE:
        if count % SORTED_PER_REPEAT or count > MAX_MERGE_COUNT:
            raise ParameterRangeError(NAME, "cal_count", count, "MERGE_SORT sorts a multiple of 32 elements, "
                                      "32 per Sort32 repeat of at most 255", f"multiples of 32 up to {MAX_MERGE_COUNT}",
                                      f"{PAGE} 约束说明; {pages.SORT32} 参数说明; {SECTION}")
        dst = tensors["dst"]
        if dst.nbytes < 8 * count:
            raise ParameterRangeError(NAME, "dst bytes", dst.nbytes, "MERGE_SORT needs 8 bytes of dst per "
                                      "element", f"at least {8 * count}", f"{PAGE} 参数说明 (表4)")
    return count


@dataclass(eq=False)
class SortConfigPlan:
    """A checked Sort with SortConfig, relative to its tensors (``operands``: the bound form's tensor parameters,
    ``roles``: what they are, :func:`_resolve`)."""

    operands: tuple[str, ...]
    roles: tuple[str, ...]
    dtype: DType
    index_dtype: DType | None
    count: int
    merge: bool
    descending: bool
    reuse: bool
    tmp_bytes: int  # of a shared_tmp_buffer (0: the framework's)

    @property
    def src_changes(self) -> bool:
        """Whether the implementation leaves src changed (module docstring)."""
        if self.merge:
            return not self.descending
        return self.reuse and self.dtype.itemsize > 1

    def bind(self, core: Core, tensors: list[LocalTensor]) -> SortConfigBinding:
        for label, tensor in zip(self.roles, tensors, strict=True):
            require_ub_tensor(NAME, label, tensor, core)
        spans = self.spans({label: t.addr for label, t in zip(self.roles, tensors, strict=True)})
        written = [label for label in spans if label.startswith("dst") or label == "shared_tmp_buffer"]
        read = [label for label in spans if label.startswith("src")]
        pairs = [(a, b) for a in written for b in read]
        pairs += [(a, b) for i, a in enumerate(written) for b in written[i + 1:]]
        for a, b in pairs:
            _check_apart(spans, a, b)
        if self.src_changes and "src_index" in spans:
            _check_src_index_apart(spans)
        return SortConfigBinding(self, core, spans)

    def spans(self, addrs: dict) -> dict[str, tuple[int, int]]:
        n, item = self.count, self.dtype.itemsize
        sizes = {"dst": (8 if self.merge else item) * n, "src": item * n,
                 "dst_index": (self.index_dtype.itemsize if self.index_dtype else 4) * n,
                 "src_index": (self.index_dtype.itemsize if self.index_dtype else 4) * n,
                 "shared_tmp_buffer": self.tmp_bytes}
        return {label: (addrs[label], addrs[label] + sizes[label]) for label in self.roles}


def _check_apart(spans: dict, a: str, b: str) -> None:
    (a0, a1), (b0, b1) = spans[a], spans[b]
    if a0 < b1 and b0 < a1:
        raise OverlapError(NAME, f"{a} / {b}", f"byte {max(a0, b0):#x}", f"{a} [{a0:#x}, {a1:#x}) overlaps {b} "
                           f"[{b0:#x}, {b1:#x})", "disjoint byte ranges",
                           f"{PAGE} 约束说明; {SECTION}")


def _check_src_index_apart(spans: dict) -> None:
    """src and src_index share no byte when the call rewrites src in place: an ascending MERGE_SORT flips src's
    sign bits before Sort32 reads src_index (``sort_impl.h``), a reused RADIX_SORT source holds its rounds' keys;
    npusim reads src_index as the call found it, so it does not model their aliasing."""
    (a0, a1), (b0, b1) = spans["src"], spans["src_index"]
    if a0 < b1 and b0 < a1:
        raise OverlapError(NAME, "src / src_index", f"byte {max(a0, b0):#x}", f"src [{a0:#x}, {a1:#x}) overlaps "
                           f"src_index [{b0:#x}, {b1:#x}), and the call rewrites src before it has read src_index "
                           "(ascending MERGE_SORT, or RADIX_SORT reusing the source); npusim does not model that",
                           "disjoint byte ranges", f"{PAGE} 约束说明; {SECTION}")


class SortConfigBinding:
    """A :class:`SortConfigPlan` at one placement on one core."""

    registers_read = ()
    registers_written = ()

    def __init__(self, plan: SortConfigPlan, core: Core, spans: dict) -> None:
        self.plan, self.spans = plan, spans
        ub, n = core.ub, plan.count
        unsigned = UNSIGNED[plan.dtype.itemsize]
        (s0, s1) = spans["src"]
        self.src = ub.data[s0:s1].view(unsigned)
        d0 = spans["dst"][0]
        self.dst = ub.data[d0:d0 + n * plan.dtype.itemsize].view(unsigned)
        index = UNSIGNED[plan.index_dtype.itemsize] if plan.index_dtype else None
        self.dst_index = self._view(ub, "dst_index", index)
        self.src_index = self._view(ub, "src_index", index)
        self.seen_written = NEVER

    def _view(self, ub, label: str, unsigned) -> np.ndarray | None:
        if label not in self.spans:
            return None
        start, stop = self.spans[label]
        return ub.data[start:stop].view(unsigned)

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges([("UB", *self.spans[label]) for label in ("src", "src_index") if label in self.spans])

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        labels = [label for label in ("dst", "dst_index", "shared_tmp_buffer") if label in self.spans]
        if self.plan.src_changes:
            labels += ["src", "src_index"] if self.plan.reuse and "src_index" in self.spans else ["src"]
        return merge_ranges([("UB", *self.spans[label]) for label in labels if self.spans[label][1] >
                             self.spans[label][0]])

    def run(self, core: Core, values: tuple) -> None:
        plan, ub = self.plan, core.ub
        if self.seen_written != ub.shadow_epoch:
            for label in ("src", "src_index"):
                if label in self.spans:
                    ub.check_initialized_span(NAME, label, *self.spans[label])
            self.seen_written = ub.shadow_epoch
        raw = self.src.copy()
        src_after = src_index_after = None
        if plan.merge:
            order = merge_order(raw, plan.dtype, plan.descending)
            if plan.src_changes:
                src_after = raw ^ raw.dtype.type(1 << (8 * raw.dtype.itemsize - 1))
        else:
            keys = radix_keys(raw, plan.dtype, plan.descending)
            order = radix_order(keys)
            if plan.src_changes:
                partial = radix_partial_order(keys)
                src_after = keys[partial]
                if self.src_index is not None:
                    src_index_after = self.src_index[partial]
        values_out = raw[order]
        index_out = None
        if self.dst_index is not None:
            index_out = self.src_index[order] if self.src_index is not None else order.astype(np.uint32)
        self._commit(ub, values_out, index_out, src_after, src_index_after)

    def _commit(self, ub, values_out, index_out, src_after, src_index_after) -> None:
        self.dst[:] = values_out
        ub.mark_written(self.spans["dst"][0], self.spans["dst"][0] + values_out.nbytes)
        if index_out is not None:
            self.dst_index[:] = index_out
            ub.mark_written(*self.spans["dst_index"])
        if src_after is not None:
            self.src[:] = src_after
        if src_index_after is not None:
            self.src_index[:] = src_index_after


def _example(form: str, config: str, dtype: str = "float16") -> str:
    size = 256
    dst_size = size * 8 // (2 if dtype == "float16" else 4) if "MERGE" in config else size
    lines = [f"s = asc.LocalTensor(asc.{dtype}, asc.TPosition.VECIN, 0, {size})",
             f"s.write([float((i * 37) % 101 - 50) for i in range({size})])",
             f"z = asc.LocalTensor(asc.{dtype}, asc.TPosition.VECOUT, 2048, {dst_size})"]
    args = ["z"]
    if "index" in form:
        lines.append(f"zi = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 4096, {size})")
        args.append("zi")
    args.append("s")
    if form.startswith("src_index"):
        lines += [f"si = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 5120, {size})",
                  f"si.write(list(range(1000, 1000 + {size})))"]
        args.append("si")
    if form.endswith("tmp"):
        lines.append("w = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 6144, 8192)")
        args.append("w")
    count = 224 if "MERGE" in config else 200
    lines.append(f"asc.{NAME}({', '.join(args)}, {count}, config={config})")
    return "\n".join(lines)


_RADIX_DOWN = "asc.SortConfig(asc.SortType.RADIX_SORT, True)"
_MERGE_UP = "asc.SortConfig(asc.SortType.MERGE_SORT, False)"
_EXAMPLES = (_example("dst_index", "asc.SortConfig()"), _example("values_tmp", _RADIX_DOWN),
             _example("src_index_tmp", _MERGE_UP), _example("src_index", _RADIX_DOWN + ", is_reuse_source=True"),
             _example("dst_index_tmp", "asc.SortConfig(asc.SortType.MERGE_SORT, True)", "float32"),
             _example("values", _MERGE_UP))

sort_with_config = register(Instruction(
    NAME, "ascend", "sort", "V", FORMS, _compile, f"{PAGE} 功能说明, 函数原型, 参数说明, 约束说明", support=_support,
    exactness=BIT_EXACT,
    summary="Sort with SortConfig: radix or merge sort, ascending or descending, stable, with or without indices",
    examples=_EXAMPLES, fast_context=lambda core: (),
    doc=f"``{NAME}(dst, [dst_index,] src, [src_index,] [shared_tmp_buffer,] cal_count, config=DEFAULT_SORT_CONFIG, "
        f"is_reuse_source=False)``: the C++ ``Sort<T, [U,] isReuseSource, config>`` ({PAGE}; orders: {SECTION}).  "
        "A name of its own: ``asc.sort`` is the form without SortConfig, of the same five-argument shape.",
))
