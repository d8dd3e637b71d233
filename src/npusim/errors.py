"""Errors and warnings raised by npusim.

Every rule an instruction enforces is reported as a subclass of
:class:`ConstraintError`.  The message always names five things, in this order::

    <instruction>: <operand> = <value>: <rule>; allowed: <allowed> [<source>]

for example (one line)::

    select: src0 address = 0x44: UB operands must be 32-byte aligned; allowed: multiples of 32
    [SIMD-API/通用说明和约束.md 通用地址对齐约束; docs/semantics.md §1.5]

The source names documents a user can open: vendor pages with one of their section
headings, and sections of ``docs/semantics.md`` (its §0.1 lists the forms).

The same five facts are kept as attributes so tools can report them
structurally (``err.instruction``, ``err.operand``, ``err.value``, ``err.rule``,
``err.allowed``, ``err.source``).

An instruction that raises has not changed memory or any register: every check
runs in the *plan* step, before anything is committed (docs/architecture.md).

Undefined-but-legal behaviour, such as reading bytes that were never written, is
a warning (:class:`UninitializedReadWarning`), or an error in strict mode
(:class:`UninitializedReadError`).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AlignmentError",
    "ConstraintError",
    "DataCopyRoundDownWarning",
    "DeprecatedApiWarning",
    "NoActiveCoreError",
    "OutOfBoundsError",
    "OverlapError",
    "ParameterRangeError",
    "SyncError",
    "SyncWarning",
    "RuntimeMisuseError",
    "UninitializedReadError",
    "UninitializedReadWarning",
    "HardwareToleranceWarning",
    "GmPastEndWarning",
    "MaskHighWordWarning",
    "PadRegisterUnusedWarning",
    "TmpBufferSizeWarning",
    "UbPastTensorEndWarning",
    "UnsupportedError",
    "WrongCoreError",
]


def format_value(value: Any, as_hex: bool = False) -> str:
    """Render an offending value for a message (addresses and masks in hex)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) and as_hex:
        return f"{value:#x}" if value >= 0 else f"-{-value:#x}"
    return repr(value) if isinstance(value, str) else str(value)


def _is_hex_operand(operand: str) -> bool:
    return "address" in operand or (operand.startswith("mask") and "length" not in operand)


class ConstraintError(ValueError):
    """A call broke a documented rule of the instruction or product.

    Args:
        instruction: API name as the user called it (``"select"``, ``"tpu_bdc_greater_select"``).
        operand: the operand or parameter at fault (``"src0 address"``, ``"repeat_times"``).
        value: the offending value.
        rule: the rule, in words.
        allowed: what would have been accepted.
        source: where the rule is documented: vendor pages with a section, or sections of
            ``docs/semantics.md`` (its §0.1 lists the forms).
    """

    def __init__(
        self,
        instruction: str,
        operand: str,
        value: Any,
        rule: str,
        allowed: str,
        source: str | None = None,
    ) -> None:
        self.instruction = instruction
        self.operand = operand
        self.value = value
        self.rule = rule
        self.allowed = allowed
        self.source = source
        text = f"{instruction}: {operand} = {format_value(value, _is_hex_operand(operand))}: {rule}; allowed: {allowed}"
        if source:
            text += f" [{source}]"
        super().__init__(text)


class AlignmentError(ConstraintError):
    """An address is not aligned as the memory or instruction requires."""


class OutOfBoundsError(ConstraintError):
    """A byte the call would touch lies outside the memory or the tensor's extent."""


class ParameterRangeError(ConstraintError):
    """A scalar parameter (repeat, stride, mask, count, shape ...) is outside its range."""


class UnsupportedError(ConstraintError):
    """The dtype, mode or instruction is not supported on the selected product."""


class OverlapError(ConstraintError):
    """Operands overlap in a way the documents forbid (partial overlap, cross-repeat dependency)."""


class RuntimeMisuseError(ConstraintError):
    """A runtime object (queue, pipe, buffer, tensor) was used against its protocol."""


class NoActiveCoreError(ConstraintError):
    """An instruction ran with no emulated core active (no enclosing ``with Core(...)``)."""


class WrongCoreError(ConstraintError):
    """An operand belongs to a different emulated core than the one running the call."""


class UninitializedReadError(ConstraintError):
    """Strict mode: an instruction read bytes that were never written since the core started."""


class SyncError(ConstraintError):
    """Two pipes of one core (or two blocks of one launch) access the same bytes with nothing ordering
    them, or a synchronisation call breaks its protocol (a wait with no set, an event id out of range).

    Raised by ``Core(chip, sync="raise")``; with ``sync="warn"`` the same finding is a :class:`SyncWarning`.
    """


class SyncWarning(UserWarning):
    """A race or synchronisation misuse found with ``sync="warn"``: the message is the :class:`SyncError`'s."""


class UninitializedReadWarning(UserWarning):
    """An instruction read bytes never written since the core started.

    Hardware returns whatever the memory held; npusim returns zeros and warns.
    The message names the instruction, the operand and the first such address.
    Use ``Core(..., strict=True)`` to turn this into :class:`UninitializedReadError`, or
    ``warnings.filterwarnings("ignore", category=UninitializedReadWarning)`` to silence it.
    """


class DeprecatedApiWarning(FutureWarning):
    """A call of an API its page marks deprecated (废弃); the message names the replacement.

    npusim runs the call as the page describes it (``asc_set_gm2ub_pad``: docs/semantics.md §5.25).  A
    ``FutureWarning``, so Python shows it by default; silence it with
    ``warnings.filterwarnings("ignore", category=DeprecatedApiWarning)``.
    """


class HardwareToleranceWarning(UserWarning):
    """The hardware policy let through what the documents forbid and the device tolerates.

    Each tolerance is its own subclass; the message names the instruction, the operand,
    the bytes and the rule (docs/semantics.md §10.7).  The strict policy raises instead.
    """


class GmPastEndWarning(HardwareToleranceWarning):
    """A GM access ran past the end of the host tensor, inside the device allocation's slack.

    The device allocator hands out more than the tensor's bytes (docs/semantics.md §10.7), so
    the device neither faults nor reports it: reads see whatever the slack holds, writes are
    lost when the tensor is copied back.
    """


class MaskHighWordWarning(HardwareToleranceWarning):
    """A bitwise mask for 32-bit data set the high word, which the documents require to be 0.

    32-bit data has 64 lanes per repeat, all selected by the low word; the device ignores the
    high word for it (docs/semantics.md §10.7).  The register keeps both words, as on the device.
    """


class DataCopyRoundDownWarning(HardwareToleranceWarning):
    """A ``data_copy`` count whose bytes are not a multiple of 32: the device rounds the amount down.

    The contiguous DataCopy pages say so ("若未对齐，搬运量会向下取整到32字节对齐"); the bytes past the
    last whole DataBlock are not moved (docs/semantics.md §10.7).
    """


class TmpBufferSizeWarning(HardwareToleranceWarning):
    """A ``shared_tmp_buffer`` smaller than the page's minimum: the device does not check its size.

    The API's lowering writes the bytes it needs from the buffer's start (past the tensor's end, if it
    is shorter, which is then a :class:`UbPastTensorEndWarning` too; docs/semantics.md §10.7).
    """


class PadRegisterUnusedWarning(HardwareToleranceWarning):
    """A 950 ``data_copy_pad`` with ``is_pad`` false and padding: the pads repeat each block's first element.

    The DataCopyPad and SetPadValue pages say the pads take the ``SetPadValue`` register; the 950's
    lowering turns the constant padding off instead, which fills them with the block's first element
    (docs/semantics.md §5.2).  Set ``is_pad`` with the padding value to get the value on every product.
    """


class UbPastTensorEndWarning(HardwareToleranceWarning):
    """An instruction touched UB bytes outside the LocalTensor passed for the operand, inside UB.

    The tensor extent is npusim's check (docs/semantics.md §1.7); the device knows only
    addresses and reads or writes whatever lies there (docs/semantics.md §10.7).
    """
