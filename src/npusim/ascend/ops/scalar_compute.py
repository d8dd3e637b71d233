"""The scalar unit's integer computations (标量计算; docs/semantics.md §5.35).

Each is a function of its arguments alone, run on the scalar pipe (S): it reads and writes no memory
and no register, and returns a number.

* **On 64 bits** (the pages' ``uint64_t valueIn`` / ``int64_t valueIn``): ``scalar_get_count_of_value``
  (GetBitCount<countValue>), ``scalar_count_leading_zero`` (CountLeadingZero),
  ``count_bits_cnt_same_as_sign_bit`` (CountBitsCntSameAsSignBit), ``scalar_get_sff_value``
  (GetSFFValue<countValue>) under pyasc's names, and the C API's ``asc_popc``, ``asc_zero_bits_cnt``,
  ``asc_clz``, ``asc_sflbits``, ``asc_ffs``, ``asc_ffz``, ``asc_set_nthbit``, ``asc_clear_nthbit``.
  An argument is any integer C converts to the parameter's 64 bits: ``[-2**63, 2**64 - 1]``, taken
  modulo ``2**64`` (the pages pass ``0xFFFFFFFFFFFFFFFFLL`` to an ``int64_t`` and mean -1).
* **On int32**: ``ceil_division`` (CeilDivision) and ``nop`` (Nop<count>), the 950's.

The results are Python ints (the pages' ``int64_t``; ``uint64_t`` for the nthbit functions); under
pyasc, its int64 runtime values (docs/semantics.md §10.9).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import ParameterRangeError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import is_integer, require_int
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from .common import record_pipe_barrier

__all__ = ["bit_count", "bits64", "count_leading_zeros", "find_first", "require_product", "same_as_sign_bits"]

RULES = semantics("5.35")
_WIDTH = 64
_SPAN = 1 << _WIDTH
_ALL_ONES = _SPAN - 1
_INT64_MIN = -(1 << 63)
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1

_BASIC_PAGES = {  # under 基础API/标量计算/
    "scalar_get_count_of_value": "GetBitCount", "scalar_count_leading_zero": "CountLeadingZero",
    "count_bits_cnt_same_as_sign_bit": "CountBitsCntSameAsSignBit", "scalar_get_sff_value": "GetSFFValue",
    "ceil_division": "CeilDivision", "nop": "Nop",
}


def page_of(instruction: str) -> str:
    """The page an instruction of this module follows (a C API function: ``asc_<name>.md``)."""
    if instruction.startswith("asc_"):
        return f"{pages.C_API_SCALAR}/{instruction}.md"
    return f"{pages.SCALAR}/{_BASIC_PAGES[instruction]}.md"


# ------------------------------------------------------------------ what the scalar unit computes
def bits64(instruction: str, name: str, value) -> int:
    """``value`` as the 64 bits of a ``uint64_t`` / ``int64_t`` parameter (an int in ``[-2**63, 2**64 - 1]``)."""
    if not is_integer(value):
        raise TypeError(f"{instruction}: {name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if not _INT64_MIN <= value <= _ALL_ONES:
        raise ParameterRangeError(instruction, name, value, "does not fit a 64-bit parameter (int64_t or uint64_t)",
                                  f"[{_INT64_MIN}, {_ALL_ONES}]", f"{page_of(instruction)} 函数原型; {RULES}")
    return value % _SPAN


def bit_count(bits: int, count_value: int) -> int:
    """How many of the 64 bits are ``count_value`` (bcnt1 / bcnt0)."""
    ones = bin(bits).count("1")
    return ones if count_value == 1 else _WIDTH - ones


def count_leading_zeros(bits: int) -> int:
    """The zeros above the highest 1 (64 for 0; clz)."""
    return _WIDTH - bits.bit_length()


def same_as_sign_bits(bits: int) -> int:
    """The bits below the sign bit equal to it, counted from the top down to the first that differs; -1 for
    0 and -1, where every bit is the sign (sflbits)."""
    if bits in (0, _ALL_ONES):
        return -1
    magnitude = bits ^ _ALL_ONES if bits >> (_WIDTH - 1) else bits
    return count_leading_zeros(magnitude) - 1


def find_first(bits: int, count_value: int) -> int:
    """The position of the lowest bit equal to ``count_value``, -1 if none is (sff1 / sff0)."""
    wanted = bits if count_value == 1 else bits ^ _ALL_ONES
    return (wanted & -wanted).bit_length() - 1


# ------------------------------------------------------------------ the plans
@dataclass(eq=False)
class ScalarBits(SelfBinding):
    """One 64-bit computation: ``compute(bits of each argument...)`` (``count_value`` fixed by the plan)."""

    instruction: str
    operands_named: tuple[str, ...]
    compute: object

    def run(self, core: Core, values: tuple) -> int:
        return self.compute(*(bits64(self.instruction, name, value)
                              for name, value in zip(self.operands_named, values, strict=False)))


def require_product(core: Core, instruction: str, group: str, what: str, page: str | None = None) -> None:
    """Raise unless the product has ``group`` of ``AscendChip.scalar_compute`` (``page``'s 产品支持情况)."""
    if group not in core.chip.scalar_compute:
        raise unsupported_on(core.chip, instruction, what, lambda c: group in c.scalar_compute,
                             f"{page or page_of(instruction)} 产品支持情况; {RULES}")


def _count_value(instruction: str, value) -> int:
    return require_int(instruction, "count_value", value, 0, 1,
                       f"{page_of(instruction)} 参数说明; {RULES}", rule="the bit value to look for is 0 or 1")


def anything(_value) -> bool:
    """Every argument binds (the compile step checks it, with a clear error)."""
    return True


_VALUE = Param("value_in", anything)
_COUNT = Param("count_value", anything)


def _entry(name: str, group: str, params: tuple[Param, ...], compute, summary: str, examples: tuple[str, ...],
           doc: str, *, count: bool = False, examples_on: dict | None = None):
    """Register one 64-bit function: ``params`` are 64-bit values, then ``count_value`` if ``count``."""
    value_names = tuple(p.name for p in params)
    what = "the asc_* scalar C API" if group.startswith("c_api") else name

    def compile_(core: Core, form: str, bound: dict) -> ScalarBits:
        require_product(core, name, group, what)
        for label in value_names:
            bits64(name, label, bound[label])
        if count:
            count_value = _count_value(name, bound["count_value"])
            return ScalarBits(name, value_names, lambda bits: compute(bits, count_value))
        return ScalarBits(name, value_names, compute)

    return register(Instruction(
        name, "ascend", "scalar", "S", (Form("", params + ((_COUNT,) if count else ())),), compile_,
        f"{page_of(name)} 功能说明, 返回值说明; {RULES}", support=lambda chip: group in chip.scalar_compute or None,
        per_call=frozenset(value_names), exactness=BIT_EXACT, summary=summary, examples=examples,
        examples_on=examples_on or {}, fast_context=lambda core: (), doc=doc,
    ))


scalar_get_count_of_value = _entry(
    "scalar_get_count_of_value", "bits", (_VALUE,), bit_count,
    "How many bits of a uint64 are count_value (0 or 1) (GetBitCount, ScalarGetCountOfValue)",
    ("asc.scalar_get_count_of_value(0xFFFF, 1)", "asc.scalar_get_count_of_value(0xFFFF, 0)"),
    "``scalar_get_count_of_value(value_in, count_value)``: GetBitCount<countValue>(valueIn) (GetBitCount.md).",
    count=True)
scalar_count_leading_zero = _entry(
    "scalar_count_leading_zero", "bits", (_VALUE,), count_leading_zeros,
    "The leading zeros of a uint64, 64 for 0 (CountLeadingZero, ScalarCountLeadingZero)",
    ("asc.scalar_count_leading_zero(0x000000000000FFFF)",),
    "``scalar_count_leading_zero(value_in)``: CountLeadingZero(valueIn) (CountLeadingZero.md).")
count_bits_cnt_same_as_sign_bit = _entry(
    "count_bits_cnt_same_as_sign_bit", "bits", (_VALUE,), same_as_sign_bits,
    "The bits after an int64's sign bit equal to it, -1 for 0 and -1 (CountBitsCntSameAsSignBit)",
    ("asc.count_bits_cnt_same_as_sign_bit(0x00F0000000000000)", "asc.count_bits_cnt_same_as_sign_bit(-2)"),
    "``count_bits_cnt_same_as_sign_bit(value_in)``: CountBitsCntSameAsSignBit(valueIn) "
    "(CountBitsCntSameAsSignBit.md).")
scalar_get_sff_value = _entry(
    "scalar_get_sff_value", "bits", (_VALUE,), find_first,
    "The position of the lowest bit of a uint64 equal to count_value, -1 if none (GetSFFValue, ScalarGetSFFValue)",
    ("asc.scalar_get_sff_value(0xFF00, 1)", "asc.scalar_get_sff_value(0xFF00, 0)"),
    "``scalar_get_sff_value(value_in, count_value)``: GetSFFValue<countValue>(valueIn) (GetSFFValue.md).",
    count=True)

# The C API (scalar_compute/asc_*.md): the same computations with the bit value fixed by the name.
_C_VALUE = Param("value", anything)
asc_popc = _entry("asc_popc", "c_api", (_C_VALUE,), lambda bits: bit_count(bits, 1),
                  "The 1 bits of a uint64 (bcnt1)", ("asc.asc_popc(33)",), "``asc_popc(value)`` (asc_popc.md).")
asc_zero_bits_cnt = _entry("asc_zero_bits_cnt", "c_api", (_C_VALUE,), lambda bits: bit_count(bits, 0),
                           "The 0 bits of a uint64 (bcnt0)", ("asc.asc_zero_bits_cnt(33)",),
                           "``asc_zero_bits_cnt(value)`` (asc_zero_bits_cnt.md).")
asc_clz = _entry("asc_clz", "c_api", (Param("value_in", anything),), count_leading_zeros,
                 "The leading zeros of a uint64", ("asc.asc_clz(0x0fffffffffffffff)",),
                 "``asc_clz(value_in)`` (asc_clz.md).")
asc_sflbits = _entry("asc_sflbits", "c_api", (_C_VALUE,), same_as_sign_bits,
                     "The bits after an int64's sign bit equal to it, -1 for 0 and -1", ("asc.asc_sflbits(-256)",),
                     "``asc_sflbits(value)`` (asc_sflbits.md).")
asc_ffs = _entry("asc_ffs", "c_api", (_C_VALUE,), lambda bits: find_first(bits, 1),
                 "The position of a uint64's lowest 1 bit, -1 if none", ("asc.asc_ffs(10)",),
                 "``asc_ffs(value)`` (asc_ffs.md).")
asc_ffz = _entry("asc_ffz", "c_api", (_C_VALUE,), lambda bits: find_first(bits, 0),
                 "The position of a uint64's lowest 0 bit, -1 if none", ("asc.asc_ffz(33)",),
                 "``asc_ffz(value)`` (asc_ffz.md).")


@dataclass(eq=False)
class NthBit(SelfBinding):
    """``asc_set_nthbit`` / ``asc_clear_nthbit``: ``bits`` with bit ``idx`` set to ``value``."""

    instruction: str
    value: int

    def run(self, core: Core, values: tuple) -> int:
        bits = bits64(self.instruction, "bits", values[0])
        mask = 1 << bit_index(self.instruction, values[1])
        return bits | mask if self.value else bits & ~mask


def bit_index(instruction: str, idx) -> int:
    """``idx``, a position among the 64 bits: a shift of a uint64_t by 64 or more, or by a negative amount, is
    undefined in C (the pages state no range; docs/semantics.md §5.35)."""
    return require_int(instruction, "idx", idx, 0, _WIDTH - 1, f"{page_of(instruction)} 参数说明; {RULES}",
                       rule="a bit position of a uint64_t")


def _nthbit_entry(name: str, value: int, summary: str, example: str):
    def compile_(core: Core, form: str, bound: dict) -> NthBit:
        require_product(core, name, "c_api", "the asc_* scalar C API")
        bits64(name, "bits", bound["bits"])
        bit_index(name, bound["idx"])
        return NthBit(name, value)

    return register(Instruction(
        name, "ascend", "scalar", "S", (Form("", (Param("bits", anything), Param("idx", anything))),), compile_,
        f"{page_of(name)} 功能说明, 返回值说明; {RULES}", support=lambda chip: "c_api" in chip.scalar_compute or None,
        per_call=frozenset({"bits", "idx"}), exactness=BIT_EXACT, summary=summary, examples=(example,),
        fast_context=lambda core: (), doc=f"``{name}(bits, idx)`` ({name}.md): a uint64_t.",
    ))


asc_set_nthbit = _nthbit_entry("asc_set_nthbit", 1, "A uint64 with bit idx set to 1", "asc.asc_set_nthbit(0, 2)")
asc_clear_nthbit = _nthbit_entry("asc_clear_nthbit", 0, "A uint64 with bit idx cleared", "asc.asc_clear_nthbit(7, 2)")


# ------------------------------------------------------------------ the 950's int32 helpers
@dataclass(eq=False)
class CeilDivision(SelfBinding):
    """CeilDivision(num1, num2): ``(num1 + num2 - 1) / num2``, 0 for ``num2 == 0``."""

    def run(self, core: Core, values: tuple) -> int:
        num1, num2 = ceil_division_operands(*values)
        return 0 if num2 == 0 else (num1 + num2 - 1) // num2


def ceil_division_operands(num1, num2) -> tuple[int, int]:
    """The page's operands: num1 positive, num2 positive or 0 ("该接口仅支持在num1和num2为正数场景下使用"; 0 has its
    own result), and ``num1 + num2 - 1``, computed in int32, no overflow (C: undefined)."""
    source = f"{page_of('ceil_division')} 约束说明; {RULES}"
    num1 = require_int("ceil_division", "num1", num1, 1, _INT32_MAX, source, rule="the page takes a positive num1")
    num2 = require_int("ceil_division", "num2", num2, 0, _INT32_MAX, source,
                       rule="the page takes a positive num2 (or 0, which gives 0)")
    if num1 + num2 - 1 > _INT32_MAX:
        raise ParameterRangeError("ceil_division", "num1 + num2 - 1", num1 + num2 - 1,
                                  "the int32 sum CeilDivision computes overflows",
                                  f"num1 + num2 - 1 <= {_INT32_MAX}", source)
    return num1, num2


def _compile_ceil_division(core: Core, form: str, bound: dict) -> CeilDivision:
    require_product(core, "ceil_division", "regbase", "CeilDivision")
    ceil_division_operands(bound["num1"], bound["num2"])
    return CeilDivision()


ceil_division = register(Instruction(
    "ceil_division", "ascend", "scalar", "S", (Form("", (Param("num1", anything), Param("num2", anything))),),
    _compile_ceil_division, f"{page_of('ceil_division')} 功能说明, 约束说明; {RULES}",
    support=lambda chip: "regbase" in chip.scalar_compute or None, per_call=frozenset({"num1", "num2"}),
    exactness=BIT_EXACT, summary="num1 / num2 rounded up, of two positive int32 (0 for num2 = 0) (CeilDivision)",
    examples=("asc.ceil_division(300, 128)", "asc.ceil_division(7, 0)"), fast_context=lambda core: (),
    doc="``ceil_division(num1, num2)``: CeilDivision (CeilDivision.md), the 950's.",
))


@dataclass(eq=False)
class Nop(SelfBinding):
    """Nop<count>: for ``count > 0`` a ``PipeBarrier<PIPE_ALL>`` then ``count`` idle cycles; nothing for
    ``count <= 0`` (include/basic_api/kernel_operator_utils_intf.h).  npusim models no cycles: the barrier is
    what a program can observe (the sync checker's order, docs/semantics.md §11.2)."""

    count: int

    def run(self, core: Core, values: tuple) -> None:
        if self.count > 0:
            record_pipe_barrier(core)


def _compile_nop(core: Core, form: str, bound: dict) -> Nop:
    require_product(core, "nop", "regbase", "Nop")
    return Nop(require_int("nop", "count", bound["count"], _INT32_MIN, _INT32_MAX,
                           f"{page_of('nop')} 参数说明; {RULES}", rule="the template parameter is an int"))


nop = register(Instruction(
    "nop", "ascend", "scalar", "S", (Form("", (Param("count", anything, 1),)),), _compile_nop,
    f"{page_of('nop')} 功能说明; include/basic_api/kernel_operator_utils_intf.h; {RULES}",
    support=lambda chip: "regbase" in chip.scalar_compute or None, exactness=BIT_EXACT,
    summary="Wait count cycles (Nop<count>): a pipe barrier (PIPE_ALL) for count > 0, nothing otherwise",
    examples=("asc.nop(10)", "asc.nop()"), fast_context=lambda core: (),
    doc="``nop(count=1)``: Nop<count> (Nop.md), the 950's; a ``pipe_barrier(PIPE_ALL)`` when count > 0.",
))
