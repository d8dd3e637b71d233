"""The five BDC compare-select instructions (TPU-Kernel 比较选择函数, cmp.html; docs/semantics.md §8).

::

    dst(n,c,h,w) = src2 if cond(src0, src1) else src3          greater / less / equal _select
    dst0 = src0 if cond else src1;  dst1 = src2 if cond else src3  maximum_greater / minimum_less _select

Each operand is a TENSOR (its own 64-byte aligned layout, same shape as dst), a VECTOR
(src0/src1 only: channel ``c`` reads lane ``(start_lane + c) % NPU_NUM`` at the vector's
own offset, docs/semantics.md §8.2 - the page's ``src(0, c mod NPU_NUM, 0, 0)`` agrees only for start lane 0;
checked on the cmodel) or a SCALAR (the low ``bits(dtype)`` bits of the ``scalar_t``).  The chosen
src2/src3 bits are copied unchanged; only the dtype *width* of dst matters (§8.1).
Only valid elements of dst are written; its padding is untouched.

The plan (:class:`SelectPlan`) is the checked call for dst's start lane: operand kinds, dtypes and
channel runs (:func:`~npusim.sophgo.layout.channel_runs`); the binding checks each address (local,
aligned, inside its lane, on dst's lane) and holds strided views of local memory per channel run.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import ParameterRangeError, UnsupportedError
from ...memory import ALL_WRITTEN, Memory
from ...sources import semantics
from .. import pages
from ..chips import Chip
from ..layout import ChannelRun, channel_runs, local_stride, split_address
from ..placement import SHAPE_MAX, LocalPlacement, PlacedBinding, check_shape, place_local, require_address
from ..types import (
    SCALAR,
    TENSOR,
    VECTOR,
    as_data_type,
    data_type_t,
    dim4,
    storage_dtype,
    tpu_data_type_bits,
    var_type_t,
    variable_t,
)
from ..vendor import local_lane, sophgo_instruction
from .fused_compare import Condition, compare, flush_chosen

__all__ = ["SelectBinding", "SelectPlan"]

_NOTES = f"{pages.COMPARE_SELECT} 注意事项"
_SRC_NAMES = ("src0", "src1", "src2", "src3")


# ------------------------------------------------------------------------------ plan


@dataclass(frozen=True, eq=False)
class _Operand:
    """A placed TENSOR or VECTOR operand.  A VECTOR is placed as a tensor of dst's shape with all
    strides 0: element ``(n, c, h, w)`` is the one in lane ``(start_lane + c) % NPU_NUM``."""

    name: str
    dtype: DType
    placement: LocalPlacement


@dataclass(frozen=True, eq=False)
class SelectPlan:
    """A checked select for dst's start lane: everything but the operands' in-lane offsets."""

    instruction: str
    condition: Condition
    min_max: bool
    shape: dim4
    start_lane: int
    runs: tuple[ChannelRun, ...]
    compare_type: data_type_t
    dst_dtypes: tuple[DType, ...]  # dst, or dst0 and dst1
    src_dtypes: tuple[DType, DType, DType, DType]
    src_kinds: tuple[var_type_t, var_type_t, var_type_t, var_type_t]
    operands: tuple[str, ...]

    def bind(self, core, operands: tuple) -> SelectBinding:
        """Check every operand's address, dsts first, and place it (a SCALAR: ``None``)."""
        chip, ndst = core.chip, len(self.dst_dtypes)
        dests = tuple(self._place(chip, name.removesuffix("_addr"), TENSOR, int(addr), dtype)
                      for name, addr, dtype in zip(self.operands[:ndst], operands[:ndst], self.dst_dtypes, strict=True))
        sources = tuple(None if kind is SCALAR else self._place(chip, name, kind, var.addr, dtype)
                        for name, kind, var, dtype in zip(_SRC_NAMES, self.src_kinds, operands[ndst:],
                                                          self.src_dtypes, strict=True))
        return SelectBinding(self, chip, core.lmem, dests, sources)

    def _place(self, chip: Chip, name: str, kind: var_type_t, addr: int, dtype: DType) -> _Operand:
        """Check an address operand (range, alignment, extent, start lane) and place it."""
        operand, size, lane = f"{name} address", dtype.itemsize, split_address(addr, chip)[0]
        if kind is VECTOR:  # one element per lane at the vector's offset: every element of a channel there (§8.2)
            stride, alignment, rule, source = dim4(0, 0, 0, 0), size, f"aligned to its {size}-byte element", ""
        else:
            stride = local_stride("aligned", self.shape, max(lane, 0), dtype.bits, chip)
            alignment, rule, source = chip.align_bytes, f"{chip.align_bytes}-byte (EU) aligned", f"{_NOTES}; "
        placement = place_local(self.instruction, chip, operand, addr, self.shape, stride, size, alignment,
                                f"a {kind.name} operand must be {rule}", source + semantics("8.2"))
        if lane != self.start_lane:
            raise ParameterRangeError(
                self.instruction, operand, addr, f"starts on NPU lane {lane}, but dst starts on lane {self.start_lane}",
                f"an address on lane {self.start_lane}: [{self.start_lane * chip.local_mem_bytes:#x}, "
                f"{(self.start_lane + 1) * chip.local_mem_bytes:#x})",
                f"{_NOTES}; {semantics('8.5')}",
            )
        return _Operand(name, dtype, placement)


def _compile(instruction: str, condition: Condition, min_max: bool, core, form: str, values: dict) -> SelectPlan:
    """Check every rule of the call, types first, and plan it (nothing is read or written)."""
    chip = core.chip
    dst_names = ("dst0_addr", "dst1_addr") if min_max else ("dst_addr",)
    cmp_name = "dst0_dtype" if min_max else "src0_src1_dtype"
    val_name = "dst1_dtype" if min_max else "dst_dtype"
    dst_addrs = [require_address(instruction, name, values[name], "int local address") for name in dst_names]
    sources = [values[name] for name in _SRC_NAMES]
    for name, src in zip(_SRC_NAMES, sources, strict=True):
        if not isinstance(src, variable_t):
            raise TypeError(f"{instruction}: {name} must be a variable_t, got {type(src).__name__}")
    shape = values["shape"]
    if not isinstance(shape, dim4):
        raise TypeError(f"{instruction}: shape must be a dim4, got {type(shape).__name__}")
    compare_type = as_data_type(values[cmp_name], instruction, cmp_name)
    value_type = as_data_type(values[val_name], instruction, val_name)
    check_shape(instruction, shape, SHAPE_MAX, f"{_NOTES}; {semantics('8.5')}")
    _check_dtypes(instruction, chip, min_max, compare_type, value_type, cmp_name, val_name)
    for name, src in zip(_SRC_NAMES[2:], sources[2:], strict=True):
        if src.type is VECTOR:
            raise UnsupportedError(
                instruction, name, "VECTOR", "src2 and src3 cannot be VECTOR operands", "TENSOR or SCALAR",
                semantics("8.2"),
            )
    cmp_storage = storage_dtype(compare_type, instruction, cmp_name)
    val_storage = storage_dtype(value_type, instruction, val_name)
    lane = max(dst_addrs[0] // chip.local_mem_bytes, 0)  # dst0's lane (placing dst0, first, checks it is one)
    plan = SelectPlan(
        instruction, condition, min_max, shape, lane, channel_runs(lane, shape.c, chip.npu_num), compare_type,
        (cmp_storage, val_storage) if min_max else (val_storage,), (cmp_storage, cmp_storage, val_storage, val_storage),
        tuple(src.type for src in sources), (*dst_names, *_SRC_NAMES),
    )  # fmt: skip
    plan.bind(core, (*dst_addrs, *sources))
    return plan


def _check_dtypes(
    instruction: str, chip: Chip, min_max: bool, compare_type: data_type_t, value_type: data_type_t,
    cmp_name: str, val_name: str,
) -> None:  # fmt: skip
    """Dtype support on the chip and the width rules (docs/semantics.md §8.4).

    The document's rules (the compare type no wider than dst; maximum/minimum dst0 and dst1 of one
    width) hold on every chip, also on SG2260, whose emulator computes such calls anyway
    (docs/sophgo.md).  The equal-width rule of a float compare is the BM cmodels' own assert.
    """
    for name, dt, allowed in (
        (cmp_name, compare_type, chip.select_compare_dtypes),
        (val_name, value_type, chip.select_value_dtypes),
    ):
        if dt not in allowed:
            raise UnsupportedError(
                instruction, name, dt.name, f"is not supported by the select instructions on {chip.name}",
                ", ".join(d.name for d in sorted(allowed)), semantics("8.4"),
            )
    cmp_bits, val_bits = tpu_data_type_bits(compare_type), tpu_data_type_bits(value_type)
    if min_max:
        if cmp_bits != val_bits:
            raise UnsupportedError(
                instruction, val_name, value_type.name,
                f"is {val_bits} bits wide but dst0_dtype {compare_type.name} is {cmp_bits} "
                "(the vendor asserts WIDTH(dst0) == WIDTH(dst1))",
                f"a {cmp_bits}-bit dst1_dtype", semantics("8.4"),
            )
        return
    if cmp_bits > val_bits:
        raise UnsupportedError(
            instruction, cmp_name, compare_type.name,
            f"is {cmp_bits} bits wide, wider than dst_dtype {value_type.name} ({val_bits} bits)",
            f"a compare type of at most {val_bits} bits", f"{_NOTES}; {semantics('8.4')}",
        )
    if compare_type in chip.select_equal_width_compare_dtypes and cmp_bits != val_bits:
        raise UnsupportedError(
            instruction, val_name, value_type.name,
            f"is {val_bits} bits wide; a float compare ({compare_type.name}) needs a dst of the same width "
            "(the cmodel asserts AB_type_size == CD_type_size)",
            f"a {cmp_bits}-bit dst_dtype", semantics("8.4"),
        )


# ------------------------------------------------------------------------------ run


class SelectBinding(PlacedBinding):
    """A select bound to its operands on one core: views of local memory per channel run.  It reads its
    TENSOR and VECTOR sources (a VECTOR one element per lane) and writes the elements of its dsts."""

    def __init__(self, plan: SelectPlan, chip: Chip, lmem: Memory, dests: tuple[_Operand, ...],
                 sources: tuple[_Operand | None, ...]) -> None:
        self.plan, self.chip, self.lmem, self.dests, self.sources = plan, chip, lmem, dests, sources
        self.read_placements = tuple(op.placement for op in sources if op is not None)
        self.write_placements = tuple(op.placement for op in dests)
        self.source_views = tuple(None if op is None else self._views(op, lmem.data) for op in sources)
        self.dest_views = tuple((self._views(op, lmem.data), self._views(op, lmem.written)) for op in dests)

    def _views(self, op: _Operand, array: np.ndarray) -> tuple[np.ndarray, ...]:
        return op.placement.run_views(array, op.dtype.raw, self.chip)

    def run(self, core, values: tuple) -> None:
        """Read (reporting never-written bytes), compare and select, then write dst0 before dst1
        (when dst0 == dst1 the cmodel keeps dst1)."""
        plan, lmem, chip = self.plan, self.lmem, self.chip
        if lmem.uninit != "ignore":
            for op in filter(None, self.sources):  # a SCALAR reads no memory
                if any(int(view.min()) != ALL_WRITTEN[op.dtype.itemsize] for view in self._views(op, lmem.written)):
                    lmem.check_initialized(plan.instruction, op.name, op.placement.element_index(chip),
                                           op.dtype.itemsize)
        variables = values[len(self.dests):][:4]
        results: list[list[np.ndarray]] = [[] for _ in self.dests]
        for i in range(len(plan.runs)):
            a, b, c, d = (  # a SCALAR is the low bits of its scalar_t (docs/semantics.md §6.2)
                np.array(var.scalar.low_bits(dtype.bits), dtype=dtype.raw) if views is None else views[i]
                for views, var, dtype in zip(self.source_views, variables, plan.src_dtypes, strict=True)
            )
            chosen = compare(plan.condition, a, b, plan.compare_type)
            if plan.min_max:
                results[0].append(flush_chosen(_choose(chosen, a, b), plan.compare_type))
            results[-1].append(_choose(chosen, c, d))
        for (data, shadow), per_run, op in zip(self.dest_views, results, self.dests, strict=True):
            for data_view, shadow_view, bits in zip(data, shadow, per_run, strict=True):
                data_view[...] = bits
                shadow_view[...] = ALL_WRITTEN[op.dtype.itemsize]


def _choose(mask: np.ndarray, when_true: np.ndarray, when_false: np.ndarray) -> np.ndarray:
    """``np.where(mask, when_true, when_false)`` for unsigned bit patterns, as a branch-free blend.

    ``false ^ ((true ^ false) & -mask)``: same bits as ``np.where``, about three times faster
    on the unpredictable masks a compare produces.  Always returns a new array.
    """
    select_all_ones = np.asarray(mask, dtype=when_true.dtype)
    np.negative(select_all_ones, out=select_all_ones)  # 1 -> all ones (unsigned wrap-around), 0 -> 0
    blended = np.bitwise_and(np.bitwise_xor(when_true, when_false), select_all_ones)
    blended ^= when_false
    return blended


# ------------------------------------------------------------------------------ registry


def _examples(name: str, min_max: bool) -> tuple[str, ...]:
    """All-TENSOR on lane 0; VECTOR src0 and SCALAR src1/src2 from lane 5; SCALAR src0 and VECTOR src1."""
    dst = "0x8000, 0x9000" if min_max else "0x8000"
    head = "import numpy as np\nT, V, S = tpu.TENSOR, tpu.VECTOR, tpu.SCALAR\n"
    vector = ("for lane in range(tpu.tpu_npu_num()):  # a VECTOR: one element per lane\n"
              "    core.write_local_bytes(lane, 0x1000, np.{}(lane - 20).tobytes())\n")
    value8, value16 = ("DT_INT8", "DT_UINT8") if min_max else ("DT_INT8", "DT_INT32")
    return (
        head + "x = np.linspace(-2, 2, 420, dtype=np.float32).reshape(1, 70, 2, 3)\n"
        "for addr, values in ((0x0, x), (0x1000, -x), (0x2000, 10 * x), (0x3000, 100 * x)):\n"
        "    core.write_local(addr, values, tpu.DT_FP32)\n"
        f"tpu.{name}({dst}, tpu.variable_t(type=T, addr=0x0), tpu.variable_t(type=T, addr=0x1000),\n"
        "    tpu.variable_t(type=T, addr=0x2000), tpu.variable_t(type=T, addr=0x3000),\n"
        "    tpu.dim4(1, 70, 2, 3), tpu.DT_FP32, tpu.DT_FP32)",
        head + "lane5 = 5 * tpu.tpu_local_mem_size_per_npu()\n" + vector.format("int8")
        + f"core.write_local(lane5 + 0x3000, np.arange(140).reshape(1, 70, 1, 2), tpu.{value16})\n"
        f"tpu.{name}({', '.join(f'lane5 + {a}' for a in dst.split(', '))},\n"
        "    tpu.variable_t(type=V, addr=lane5 + 0x1000), tpu.variable_t(type=S, scalar=tpu.scalar_t(s8=0)),\n"
        "    tpu.variable_t(type=S, scalar=tpu.scalar_t(u8=7)), tpu.variable_t(type=T, addr=lane5 + 0x3000),\n"
        f"    tpu.dim4(1, 70, 1, 2), tpu.{value8}, tpu.{value16})",
        head + vector.format("float16")
        + "core.write_local(0x2000, np.full((2, 3, 4, 5), 7), tpu.DT_INT16)\n"
        f"tpu.{name}({dst}, tpu.variable_t(type=S, scalar=tpu.scalar_t(f16=-18.0)),\n"
        "    tpu.variable_t(type=V, addr=0x1000), tpu.variable_t(type=T, addr=0x2000),\n"
        "    tpu.variable_t(type=S, scalar=tpu.scalar_t(s16=-1)), tpu.dim4(2, 3, 4, 5), tpu.DT_FP16, tpu.DT_INT16)",
    )


# stem, condition, summary (the public function's docstring)
_SELECTS = (
    ("greater", "greater", "dst = src2 if src0 > src1 else src3 (IEEE ordered; FP32/BF16 subnormals compare as 0)"),
    ("less", "less", "dst = src2 if src0 < src1 else src3 (true with a NaN unless both bit patterns are identical)"),
    ("equal", "equal", "dst = src2 if bits(src0) == bits(src1) else src3 (bitwise, floats included)"),
    ("maximum_greater", "greater", "g = src0 > src1; dst0 = src0 if g else src1 (FP32/BF16 subnormals -> signed 0); "
                                   "dst1 = src2 if g else src3; dst0_dtype is also the compare type"),
    ("minimum_less", "less", "l = src0 < src1; dst0 = src0 if l else src1 (FP32/BF16 subnormals -> signed 0); "
                             "dst1 = src2 if l else src3; dst0_dtype is also the compare type"),
)

for _stem, _condition, _summary in _SELECTS:
    _name, _min_max = f"tpu_bdc_{_stem}_select", "_" in _stem
    _dsts = ("dst0_addr", "dst1_addr") if _min_max else ("dst_addr",)
    _dtypes = ("dst0_dtype", "dst1_dtype") if _min_max else ("src0_src1_dtype", "dst_dtype")
    sophgo_instruction(
        _name, "select", "BDC", (*_dsts, *_SRC_NAMES, "shape", *_dtypes),
        functools.partial(_compile, _name, _condition, _min_max), f"{pages.COMPARE_SELECT} {_name}; {semantics('8')}",
        lambda chip: chip.select_compare_dtypes | chip.select_value_dtypes, _summary, _examples(_name, _min_max),
        frozenset(_dsts),
        plan_context=lambda core, form, values: local_lane(core, values[0]),  # dst's start lane
    )
