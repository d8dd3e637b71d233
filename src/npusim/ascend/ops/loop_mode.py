"""``SetLoopModePara`` / ``ResetLoopModePara``: the loop-mode registers of the GM <-> UB paths (950 only).

SetLoopModePara.md: each path (``OUT_TO_UB``: GM -> UB, ``UB_TO_OUT``: UB -> GM) has a register
set ``(loop1Size, loop2Size, loop1SrcStride, loop1DstStride, loop2SrcStride, loop2DstStride)``
(``LOOP_SIZE_OUTTOUB``, ``LOOP1_STRIDE_OUTTOUB``, ``LOOP2_STRIDE_OUTTOUB`` and the ``UBTOOUT``
three, dav_3510 ``SetLoopModeOutParaImpl`` / ``SetLoopModeUBParaImpl``).  While it holds more than
one iteration, a ``DataCopy`` or ``DataCopyPad`` on that path runs ``loop2Size`` x ``loop1Size``
times, iteration ``(i2, i1)`` (outer, inner) with its source and destination moved by
``i1 * loop1*Stride + i2 * loop2*Stride`` bytes.  ``ResetLoopModePara`` sets both sizes back to 1
("硬件约定置1为normal", ``ResetUBLoopModeParaImpl``) and leaves the strides.

Rules (表2, 约束说明): sizes in ``[0, 2^21)``; the UB-side strides in ``[0, 2^21)`` and 32-byte
aligned, the GM-side ones in ``[0, 2^40)``; under loop mode both start addresses 32-byte aligned
and no two destination bytes written twice (iterations may interleave).  What the pages leave
open, and npusim therefore rejects when a copy meets it (``UnsupportedError``): a loop size of 0
(in range, but the page does not say whether that copies nothing or once), the software-emulated
copies built from several DataCopy calls (SliceInfo, ND2NZ, NZ2ND) under loop mode, and the
``PaddingMode::Compact`` form of DataCopyPad, which npusim does not model at all.
docs/semantics.md §5.11.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.plan import SelfBinding
from ...engine.registry import Instruction, register
from ...errors import ParameterRangeError, UnsupportedError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..addressing import BLOCK_BYTES, BlockRuns, SliceRuns
from ..chips import unsupported_on
from ..core import Core, LoopRegisters
from ..types import DataCopyMVType, LoopModeParams
from .common import require_repeat_params

__all__ = ["REGISTER", "loop_registers", "looped_runs", "require_no_loop", "reset_loop_mode_para", "set_loop_mode_para"]

RULES = semantics("5.11")
SET_DOC, RESET_DOC = pages.SET_LOOP_MODE_PARA, pages.RESET_LOOP_MODE_PARA
SIZE_LIMIT, UB_STRIDE_LIMIT, GM_STRIDE_LIMIT = 1 << 21, 1 << 21, 1 << 40
#: the register name access records give each path's set
REGISTER = {DataCopyMVType.OUT_TO_UB: "LOOP_OUTTOUB", DataCopyMVType.UB_TO_OUT: "LOOP_UBTOOUT"}
ATTRIBUTE = {DataCopyMVType.OUT_TO_UB: "loop_gm_to_ub", DataCopyMVType.UB_TO_OUT: "loop_ub_to_gm"}


def loop_registers(core: Core, inbound: bool) -> LoopRegisters:
    """The loop-mode registers a GM -> UB (``inbound``) or UB -> GM copy on ``core`` follows."""
    return core.loop_gm_to_ub if inbound else core.loop_ub_to_gm


def looped_runs(instruction: str, regs: LoopRegisters, src: BlockRuns, dst: BlockRuns) -> tuple[SliceRuns, SliceRuns]:
    """A copy's runs repeated over the loop-mode iterations, the outer loop slowest."""
    if not regs.loop1_size or not regs.loop2_size:
        raise UnsupportedError(instruction, "loop-mode registers", f"loop1Size={regs.loop1_size}, "
                               f"loop2Size={regs.loop2_size}", "not modelled: a copy under a loop size of 0 (the "
                               "page allows the value but does not say what a copy then moves)",
                               "loop sizes of at least 1 (or reset_loop_mode_para)",
                               f"{SET_DOC} 参数说明 (表2); {RULES}")
    counts = (regs.loop2_size, regs.loop1_size)

    def side(runs: BlockRuns, outer: int, inner: int) -> SliceRuns:
        return SliceRuns(0, counts, (outer, inner), runs.blocks, runs.pitch, runs.nbytes)

    return (side(src, regs.loop2_src_stride, regs.loop1_src_stride),
            side(dst, regs.loop2_dst_stride, regs.loop1_dst_stride))


def require_no_loop(instruction: str, core: Core, inbound: bool, what: str) -> None:
    """The software-emulated copies (several DataCopy calls each) are not modelled under loop mode."""
    if core.chip.loop_mode_api and not loop_registers(core, inbound).normal:
        raise UnsupportedError(instruction, "loop-mode registers", "loop mode set", f"not modelled: {what} "
                               "under loop mode (each of its DataCopy calls would loop)",
                               "reset_loop_mode_para first", f"{SET_DOC} 约束说明; {RULES}")


# ------------------------------------------------------------------ the two instructions
@dataclass(eq=False)
class LoopModeWrite(SelfBinding):
    """A checked ``set_loop_mode_para`` / ``reset_loop_mode_para``: the registers of one path after it."""

    attribute: str
    value: LoopRegisters | None  # None: reset (the sizes to 1, the strides kept)
    registers_written: tuple[str, ...] = ()
    pipe: str = "S"

    def run(self, core: Core, values: tuple) -> None:
        value = self.value or getattr(core, self.attribute)._replace(loop1_size=1, loop2_size=1)
        setattr(core, self.attribute, value)


def _path(instruction: str, core: Core, value, doc: str) -> DataCopyMVType:
    if not core.chip.loop_mode_api:
        raise unsupported_on(core.chip, instruction, doc.rsplit("/", 1)[-1][:-3], lambda c: c.loop_mode_api,
                             f"{doc} 产品支持情况; {RULES}")
    if not isinstance(value, DataCopyMVType):
        raise TypeError(f"{instruction}: type must be an asc.DataCopyMVType, got {type(value).__name__}")
    return value


def _compile_set(core: Core, form: str, values: dict) -> LoopModeWrite:
    instruction = "set_loop_mode_para"
    path = _path(instruction, core, values["type"], SET_DOC)
    fields = dict(zip(LoopModeParams.FIELD_BITS, require_repeat_params(
        instruction, values["loop_params"], LoopModeParams, "loop_params"), strict=True))
    source = f"{SET_DOC} 参数说明 (表2); {RULES}"
    for name in ("loop1_size", "loop2_size"):
        require_int(instruction, f"loop_params.{name}", fields[name], 0, SIZE_LIMIT - 1, source)
    ub_side = "dst" if path == DataCopyMVType.OUT_TO_UB else "src"
    for name in ("loop1_src_stride", "loop1_dst_stride", "loop2_src_stride", "loop2_dst_stride"):
        on_ub = f"_{ub_side}_" in name
        limit = UB_STRIDE_LIMIT if on_ub else GM_STRIDE_LIMIT
        require_int(instruction, f"loop_params.{name}", fields[name], 0, limit - 1, source)
        if on_ub and fields[name] % BLOCK_BYTES:
            raise ParameterRangeError(instruction, f"loop_params.{name}", fields[name], f"the UB-side stride of "
                                      f"{path.name} must be 32-byte aligned", "multiples of 32", source)
    return LoopModeWrite(ATTRIBUTE[path], LoopRegisters(*fields.values()), (REGISTER[path],))


def _compile_reset(core: Core, form: str, values: dict) -> LoopModeWrite:
    path = _path("reset_loop_mode_para", core, values["type"], RESET_DOC)
    return LoopModeWrite(ATTRIBUTE[path], None, (REGISTER[path],))


def _is_loop_params(value) -> bool:
    return isinstance(value, LoopModeParams)


def _anything(_value) -> bool:
    return True


set_loop_mode_para = register(Instruction(
    "set_loop_mode_para", "ascend", "register", "S",
    (Form("", (Param("loop_params", _is_loop_params), Param("type", _anything))),), _compile_set,
    f"{SET_DOC} 参数说明; {RULES}", support=lambda chip: chip.loop_mode_api or None,
    summary="Load a GM <-> UB path's loop-mode registers: later DataCopy / DataCopyPad calls on it run "
            "loop2_size x loop1_size times (SetLoopModePara)",
    examples=("asc.set_loop_mode_para(asc.LoopModeParams(2, 2, 96, 128, 192, 288), asc.DataCopyMVType.OUT_TO_UB)",
              "asc.set_loop_mode_para(asc.LoopModeParams(3, 1, 64, 100, 0, 0), asc.DataCopyMVType.UB_TO_OUT)"),
    fast_context=lambda core: (),
    doc="``asc.set_loop_mode_para(loop_params: LoopModeParams, type: DataCopyMVType)`` (950 only): load the "
        "loop-mode registers of GM -> UB (``OUT_TO_UB``) or UB -> GM (``UB_TO_OUT``).",
))

reset_loop_mode_para = register(Instruction(
    "reset_loop_mode_para", "ascend", "register", "S", (Form("", (Param("type", _anything),)),), _compile_reset,
    f"{RESET_DOC} 功能说明; {RULES}", support=lambda chip: chip.loop_mode_api or None,
    summary="Set a GM <-> UB path's loop sizes back to 1 x 1 (ResetLoopModePara)",
    examples=("asc.reset_loop_mode_para(asc.DataCopyMVType.OUT_TO_UB)",
              "asc.reset_loop_mode_para(asc.DataCopyMVType.UB_TO_OUT)"),
    fast_context=lambda core: (),
    doc="``asc.reset_loop_mode_para(type: DataCopyMVType)`` (950 only): loop sizes back to 1 (the strides stay).",
))

