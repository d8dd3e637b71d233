"""The VA (address) registers: ``asc_set_va_reg`` loads one, the register form of ``asc_transto5hd_*`` reads a pair.

From asc_set_va_reg.md and asc_transto5hd.md (C API, vector_compute) and their 2201 / 3510 lowering
(``set_va_reg_sb`` of the 8 pointers as ``uint64_t``); docs/semantics.md §5.25 has the rules:

* ``asc_set_va_reg(addr, src_array)``: ``addr`` is ``VA0`` .. ``VA7`` (:class:`~npusim.ascend.types.VaReg`,
  the C ``ub_addr8_t``, or its number); ``src_array`` holds the register's 8 UB addresses — LocalTensors (one
  element type of the 8 the prototypes list) or integer byte addresses, in any mix.  A longer sequence is read
  from its start, as the C function reads ``src_array[0..7]`` (the pages' examples pass the 16-entry list to
  ``VA0`` and the list from entry 8 to ``VA1``); a shorter one is an error.  Every address 32-byte aligned
  inside UB.  The register keeps the 8 addresses, written at once after every check (commit last).
* ``asc_transto5hd_b<bits>(VAn, VAm, ...)``: the 16 destination addresses are those of ``VAn`` then
  ``VA(n+1)``, the 16 sources those of ``VAm`` then ``VA(m+1)`` (the pages' examples: ``VA0``/``VA1`` and
  ``VA2``/``VA3``), so ``n, m`` lie in [0, 6]; both registers of a pair must have been set (a
  :class:`~npusim.errors.RuntimeMisuseError` otherwise: they have no documented power-on value).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import OutOfBoundsError, ParameterRangeError, RuntimeMisuseError, UnsupportedError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import describe_type, is_integer, is_list_like, require_aligned
from .. import pages
from ..chips import unsupported_on
from ..core import VA_REG_ADDRESSES, VA_REGISTERS, Core
from ..tensor import LocalTensor
from ..types import VaReg
from .common import UB_ALIGN, c_api_page

__all__ = ["VA_REG_DTYPES", "asc_set_va_reg", "is_va_register", "va_pair_addresses"]

NAME = "asc_set_va_reg"
PAGE = c_api_page(NAME)
TRANSTO5HD_PAGE = c_api_page("asc_transto5hd")
RULES = semantics("5.25")
#: per npu_arch of the products the page supports (A2/A3: 2201, the 950: 3510), the pointer types of its
#: prototypes (函数原型)
VA_REG_DTYPES: dict[int, frozenset[str]] = dict.fromkeys(
    (2201, 3510), frozenset({"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"}))


def _support(chip) -> frozenset[str] | None:
    return VA_REG_DTYPES.get(chip.npu_arch)


def is_va_register(value) -> bool:
    """A VA register argument: ``asc.VA0`` .. (the C API's ``ub_addr8_t``), or its number as an integer."""
    return is_integer(value)


def _register_index(name: str, operand: str, value, top: int, source: str) -> int:
    if not is_integer(value):
        raise TypeError(f"{name}: {operand} must be a VA register (asc.VA0 .. asc.VA7), got {describe_type(value)}")
    if not 0 <= int(value) <= top:
        shown = value.name if isinstance(value, VaReg) else int(value)
        raise ParameterRangeError(name, operand, shown, "the register and the next one hold the 16 addresses "
                                  "(VAn, VAn+1)" if top < VA_REGISTERS - 1 else "ub_addr8_t names VA0 .. VA7",
                                  f"VA0 .. VA{top}", source)
    return int(value)


# ------------------------------------------------------------------ asc_set_va_reg
@dataclass(eq=False)
class VaRegWrite(SelfBinding):
    """A checked ``asc_set_va_reg``: register ``index`` gets ``addresses``; ``tensors`` are the entries that
    were LocalTensors, checked (still allocated, on this core) on every call before the register changes."""

    index: int
    addresses: tuple[int, ...]
    tensors: tuple[int, ...]
    registers_written: tuple[str, ...] = ()
    pipe: str = "V"

    def __post_init__(self) -> None:
        self.registers_written = (f"VA{self.index}",)

    def run(self, core: Core, values: tuple) -> None:
        listed = values[1]
        for i in self.tensors:
            listed[i].check_usable(NAME, f"src_array[{i}]", core)
        core.load_va_reg(self.index, self.addresses)


def _compile_set_va_reg(core: Core, form: str, bound: dict) -> VaRegWrite:
    allowed = _support(core.chip)
    if allowed is None:
        raise unsupported_on(core.chip, NAME, NAME, lambda chip: _support(chip) is not None,
                             f"{PAGE} 产品支持情况; {RULES}")
    index = _register_index(NAME, "addr", bound["addr"], VA_REGISTERS - 1, f"{PAGE} 参数说明; {RULES}")
    listed = bound["src_array"]
    if not is_list_like(listed):
        raise TypeError(f"{NAME}: src_array is a sequence of 8 UB addresses or LocalTensors, got "
                        f"{describe_type(listed)}")
    if len(listed) < VA_REG_ADDRESSES:
        raise ParameterRangeError(NAME, "src_array length", len(listed), "a VA register holds 8 addresses, read "
                                  "from src_array[0 .. 7]", "at least 8", f"{PAGE} 参数说明; {RULES}")
    entries = list(listed[:VA_REG_ADDRESSES])
    tensors = [i for i, item in enumerate(entries) if isinstance(item, LocalTensor)]
    dtypes = {entries[i].dtype for i in tensors}
    if len(dtypes) > 1:
        raise TypeError(f"{NAME}: src_array is an array of one pointer type; its tensors have the dtypes "
                        f"{sorted(d.name for d in dtypes)}")
    if dtypes and (dtype := next(iter(dtypes))).name not in allowed:
        raise UnsupportedError(NAME, "src_array dtype", dtype.name, "asc_set_va_reg has no overload for this type",
                               ", ".join(sorted(allowed)), f"{PAGE} 函数原型; {RULES}")
    addresses = []
    for i, item in enumerate(entries):
        operand = f"src_array[{i}]"
        if isinstance(item, LocalTensor):
            item.check_usable(NAME, operand, core)
            address = item.addr
        elif is_integer(item):
            address = int(item)
        else:
            raise TypeError(f"{NAME}: {operand} must be a LocalTensor or an integer UB address, got "
                            f"{describe_type(item)}")
        if not 0 <= address < core.ub.size_bytes:
            raise OutOfBoundsError(NAME, f"{operand} address", address, "a VA register holds UB addresses",
                                   f"[0x0, {core.ub.size_bytes:#x})", f"{PAGE} 函数原型; {RULES}")
        require_aligned(NAME, operand, address, UB_ALIGN, "UB", f"{PAGE} 约束说明; {pages.GENERAL} 通用地址对齐约束; "
                        f"{RULES}")
        addresses.append(address)
    return VaRegWrite(index, tuple(addresses), tuple(tensors))


asc_set_va_reg = register(Instruction(
    NAME, "ascend", "register", "V", (Form("", (Param("addr", lambda v: True), Param("src_array", lambda v: True))),),
    _compile_set_va_reg, f"{PAGE} 参数说明; {RULES}", support=_support, exactness=BIT_EXACT,
    summary="Load VA register addr with the 8 UB addresses src_array[0 .. 7] (the register form of asc_transto5hd)",
    examples=(
        "src = asc.LocalTensor(asc.half, asc.TPosition.VECIN, 0, 256)\n"
        "asc.asc_set_va_reg(asc.VA2, [src[16 * i:] for i in range(16)])",
        "asc.asc_set_va_reg(asc.VA7, [0x1000 + 32 * i for i in range(8)])",
    ),
    relative=False, fast_context=lambda core: (),
    doc=f"``asc_set_va_reg(addr, src_array)``: VA register ``addr`` (``asc.VA0`` .. ``asc.VA7``) gets the 8 UB "
        f"addresses ``src_array[0 .. 7]`` (LocalTensors or integer byte addresses, 32-byte aligned); "
        f"``asc_transto5hd_b*`` given ``VAn`` reads ``VAn`` and ``VA(n+1)`` ({PAGE}; {RULES}).",
))


# ------------------------------------------------------------------ the register form of asc_transto5hd
def va_pair_addresses(name: str, core: Core, operand: str, value) -> list[int]:
    """The 16 addresses a VA register argument of ``asc_transto5hd_*`` stands for: ``VAn``'s 8, then
    ``VA(n+1)``'s (docs/semantics.md §5.25)."""
    source = f"{TRANSTO5HD_PAGE} 调用示例; {PAGE} 功能说明; {RULES}"
    first = _register_index(name, operand, value, VA_REGISTERS - 2, source)
    addresses = []
    for index in (first, first + 1):
        held = core.va_regs[index]
        if held is None:
            raise RuntimeMisuseError(name, f"{operand} (VA{index})", "never set", "the VA register is read before "
                                     "asc_set_va_reg loaded it (it has no documented power-on value)",
                                     f"asc_set_va_reg(asc.VA{index}, ...) first", source)
        addresses.extend(held)
    return addresses


def va_context(core: Core) -> tuple:
    """What a register-form plan depends on besides its arguments: the VA registers."""
    return core.va_regs
