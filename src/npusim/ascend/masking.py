"""From an API call's mask arguments to the lanes it activates (docs/semantics.md §1.3, §1.4).

Three sources of a lane selection, one function each:

* :func:`lanes_from_mask_arg` — the high-dimensional forms' ``mask`` (an int for
  the contiguous mode, a list of 64-bit words for the bitwise mode) plus
  ``repeat_times``;
* :func:`lanes_from_register` — the no-mask forms, which use the vector mask
  register and the mask mode as set beforehand (``set_vector_mask``,
  ``set_mask_count``);
* :func:`lanes_from_count` — the count (calCount) forms: the first ``count``
  elements, contiguous.

Each returns the :class:`~npusim.ascend.addressing.ActiveLanes` and, where the
API writes it, the new value of the vector mask register.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import MaskHighWordWarning, ParameterRangeError
from ..sources import semantics
from ..validate import describe_type, is_list_like, require_bool, require_int
from . import pages
from .addressing import (
    FULL_WORD,
    ActiveLanes,
    contiguous_mask_words,
    counter_mode_lanes,
    lanes_per_repeat,
    normal_mode_lanes,
)
from .core import Core
from .tolerance import TolerancePolicy, tolerate
from .types import MaskMode

__all__ = [
    "CONTIGUOUS_MASK_MAX", "MaskWords", "bitwise_mask_words", "checked_counter_lanes", "contiguous_mask_length",
    "lanes_from_count", "lanes_from_mask_arg", "lanes_from_register", "mask_arg_words", "mask_form_lanes",
    "normal_lanes_from_mask_arg",
]

MaskWords = tuple[int, int, int, int]
MAX_REPEAT = 255
COUNTER_MAX = (1 << 32) - 1  # CheckMaskValue: counter-mode mask <= UINT32_MAX (docs/semantics.md §1.4)
MAX_MODELLED_REPEATS = 65535  # emulator limit: UB holds at most 1024 distinct 256-byte repeats
CONTIGUOUS_MASK_MAX = (1 << 31) - 1  # SetMask<T>(int32_t len) / SetVectorMask<T>(int32_t len)
MASK_SOURCE = f"{pages.MASK_PARAMETERS} 接口通用参数说明; {semantics('1.3')}"
CONTIGUOUS_MASK_SOURCE = MASK_SOURCE  # the lowering: AscendCUtils::SetMask<T>(int32_t len) (semantics.md §1.3)
NONZERO_MASK_SOURCE = f"{pages.C_API_GENERAL} 掩码操作; {semantics('1.3')}"
ZERO_MASK_SOURCE = semantics("1.3")  # the vendor's debug check on 2002, no page
COUNTER_SOURCE = f"{pages.MASK_IN_API} Counter模式; {semantics('1.4')}"
REPEAT_SOURCE = f"{pages.HIGH_DIM} 迭代控制; {semantics('1.1')}"
MODELLED_REPEATS_SOURCE = semantics("1.1")
COUNT_SOURCE = f"{pages.SELECT} 参数说明 (count); {semantics('1.4', '1.9')}"


def _is_int(value) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def contiguous_mask_length(instruction: str, name: str, value) -> int:
    """A contiguous mask (a lane count, or in counter mode an element count), checked.

    The API's ``uint64_t mask`` reaches the register through ``SetMask<T>(int32_t len)``: a
    value above 2**31 - 1 turns into a negative length, which is undefined, so it is rejected.
    """
    return require_int(instruction, name, value, 0, CONTIGUOUS_MASK_MAX, CONTIGUOUS_MASK_SOURCE,
                       rule="a contiguous mask is passed on as an int32_t length (SetMask(int32_t len)); "
                       "above 2**31 - 1 it would be negative")


def bitwise_mask_words(instruction: str, mask, itemsize: int, source: str = MASK_SOURCE) -> list[int]:
    """The words of a bitwise ``mask`` argument (``uint64_t mask[2]``, or 2 or 4 for 8-bit data), checked.

    Raises:
        TypeError: ``mask`` is not a list, tuple or 1-D array (a 0-d array is not a list of words).
        ParameterRangeError: the wrong number of words, or a word outside uint64.
    """
    if not is_list_like(mask):
        raise TypeError(f"{instruction}: mask must be an int (contiguous mode) or a list of uint64 words "
                        f"(bitwise mode), got {describe_type(mask)}")
    words = list(mask)
    allowed_lengths = (2, 4) if itemsize == 1 else (2,)
    if len(words) not in allowed_lengths:
        raise ParameterRangeError(
            instruction, "mask length", len(words), f"a bitwise mask for {8 * itemsize}-bit data has "
            f"{' or '.join(map(str, allowed_lengths))} uint64 words", " or ".join(map(str, allowed_lengths)),
            source,
        )
    return [require_int(instruction, f"mask[{i}]", w, 0, FULL_WORD, source, rule="a mask word is uint64")
            for i, w in enumerate(words)]


def mask_arg_words(instruction: str, mask, itemsize: int, lowering_counts_raw: bool, counter: bool,
                   tolerance: TolerancePolicy = "strict") -> MaskWords:
    """Validate a ``mask`` argument and return the register words it stands for.

    Args:
        tolerance: the core's policy; ``"hardware"`` lets a 32-bit mask's high word through
            with a :class:`~npusim.errors.MaskHighWordWarning`.
        lowering_counts_raw: in counter mode an integer mask is the count itself
            (vector-function lowering) rather than the ``SetMask<T>(len)`` bit pattern.
        counter: the core is in counter mode.
    """
    lanes = lanes_per_repeat(itemsize)
    if _is_int(mask):
        length = contiguous_mask_length(instruction, "mask", mask)
        if counter and lowering_counts_raw:
            return (length, 0, 0, 0)
        low, high = contiguous_mask_words(length, itemsize)
        return (low, high, 0, 0)
    words = bitwise_mask_words(instruction, mask, itemsize)
    if itemsize >= 4 and words[1] != 0:
        error = ParameterRangeError(
            instruction, "mask[1]", words[1], f"{8 * itemsize}-bit data has {lanes} lanes, so the high "
            "mask word must be 0", "0", MASK_SOURCE,
        )
        # Only 32-bit data is known to run so on the device (docs/semantics.md §10.7); 64-bit stays strict.
        tolerate(tolerance if itemsize == 4 else "strict", error, MaskHighWordWarning,
                 "32-bit lanes are selected by the low word alone; the register keeps both words")
    if itemsize == 8 and words[0] > 0xFFFFFFFF:
        raise ParameterRangeError(instruction, "mask[0]", words[0], "64-bit data has 32 lanes",
                                  "[0, 2**32-1]", MASK_SOURCE)
    if not counter and not any(words):
        raise ParameterRangeError(instruction, "mask", words, "bitwise mask words cannot all be 0",
                                  "at least one set bit", NONZERO_MASK_SOURCE)
    return tuple(words + [0] * (4 - len(words)))  # type: ignore[return-value]


def _check_zero_mask(core: Core, instruction: str, words: MaskWords) -> None:
    if not any(words) and not core.chip.zero_mask_allowed:
        raise ParameterRangeError(
            instruction, "mask", 0, f"a normal-mode mask of 0 is rejected on {core.chip.product}",
            "at least one active lane", ZERO_MASK_SOURCE,
        )


def checked_counter_lanes(instruction: str, count: int, lanes: int, operand: str) -> ActiveLanes:
    """Counter-mode lanes for ``count`` elements, after checking the count's range."""
    if count > COUNTER_MAX:
        raise ParameterRangeError(
            instruction, operand, count, "in counter mode the mask register's low word is the element "
            "count and must not exceed UINT32_MAX", f"[0, {COUNTER_MAX}]", COUNTER_SOURCE,
        )
    if count > MAX_MODELLED_REPEATS * lanes:
        raise ParameterRangeError(
            instruction, operand, count, f"npusim models at most {MAX_MODELLED_REPEATS} repeats per instruction "
            "(only a repeat stride of 0 could keep more inside UB)", f"[0, {MAX_MODELLED_REPEATS * lanes}]",
            MODELLED_REPEATS_SOURCE,
        )
    return counter_mode_lanes(count, lanes)


def lanes_from_mask_arg(
    core: Core, instruction: str, mask, repeat_times: int, itemsize: int, *, lowering_counts_raw: bool = False
) -> tuple[ActiveLanes, MaskWords]:
    """Lanes of a high-dimensional form with a ``mask`` argument; also the register value it sets.

    In counter mode ``repeat_times`` is ignored and the mask's low word is the count
    (``接口内设置Mask.md``, Counter 模式 高维切分).
    """
    counter = core.mask_mode == MaskMode.COUNTER
    words = mask_arg_words(instruction, mask, itemsize, lowering_counts_raw, counter, core.tolerance)
    lanes = lanes_per_repeat(itemsize)
    if counter:
        return checked_counter_lanes(instruction, words[0], lanes, "mask (counter-mode count)"), words
    repeat_times = require_int(instruction, "repeat_times", repeat_times, 0, MAX_REPEAT, REPEAT_SOURCE)
    _check_zero_mask(core, instruction, words)
    return normal_mode_lanes(words, lanes, repeat_times), words


def normal_lanes_from_mask_arg(core: Core, instruction: str, mask, repeats: int,
                               itemsize: int) -> tuple[ActiveLanes, MaskWords]:
    """Lanes of a ``mask`` argument in normal mode whatever the core's mode: for an API whose lowering sets
    normal mode itself before it applies the mask (BilinearInterpolation's ``SetMaskNorm``)."""
    words = mask_arg_words(instruction, mask, itemsize, False, False, core.tolerance)
    _check_zero_mask(core, instruction, words)
    return normal_mode_lanes(words, lanes_per_repeat(itemsize), repeats), words


def lanes_from_register(core: Core, instruction: str, repeat_times: int, itemsize: int) -> ActiveLanes:
    """Lanes of a no-mask form: the vector mask register in the current mask mode."""
    lanes = lanes_per_repeat(itemsize)
    repeat_times = require_int(instruction, "repeat_times", repeat_times, 0, MAX_REPEAT, REPEAT_SOURCE)
    if core.mask_mode == MaskMode.COUNTER:
        return checked_counter_lanes(instruction, core.mask_words[0], lanes, "vector mask register (counter)")
    _check_zero_mask(core, instruction, core.mask_words)
    return normal_mode_lanes(core.mask_words, lanes, repeat_times)


def mask_form_lanes(core: Core, instruction: str, bound: dict, itemsize: int,
                    native: bool) -> tuple[ActiveLanes, MaskWords | None, tuple[str, ...]]:
    """The lanes of a high-dimensional form, from its ``mask`` argument (``is_set_mask``) or the register.

    Returns the lanes, the mask a native lowering leaves in the register (``None``: untouched) and
    the registers the call reads (``"MASK_MODE"``, and ``"MASK"`` when the register supplies the lanes).
    """
    if require_bool(instruction, "is_set_mask", bound["is_set_mask"]):
        lanes, words = lanes_from_mask_arg(core, instruction, bound["mask"], bound["repeat_times"], itemsize,
                                           lowering_counts_raw=not native)
        return lanes, (words if native else None), ("MASK_MODE",)
    return lanes_from_register(core, instruction, bound["repeat_times"], itemsize), None, ("MASK", "MASK_MODE")


def lanes_from_count(instruction: str, count, itemsize: int, name: str = "count") -> ActiveLanes:
    """Lanes of a count form: the first ``count`` elements, ``count`` in ``[1, E * 255]``."""
    lanes = lanes_per_repeat(itemsize)
    count = require_int(instruction, name, count, 1, lanes * MAX_REPEAT, COUNT_SOURCE,
                        rule=f"at most 255 repeats of {lanes} elements")
    return counter_mode_lanes(count, lanes)
