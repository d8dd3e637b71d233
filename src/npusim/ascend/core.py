"""The emulated Ascend AI Vector core: Unified Buffer plus vector registers.

A :class:`Core` owns the state an instruction can change:

* ``ub``: the Unified Buffer, a :class:`~npusim.memory.Memory` sized per product (docs/semantics.md §1.7);
* ``cmpmask``: the 128-bit CMPMASK special register, as 16 little-endian bytes (docs/semantics.md §3.5);
* the vector mask register (two or four 64-bit words, bit j = lane j, docs/semantics.md §1.3)
  and the mask mode, normal or counter (docs/semantics.md §1.4);
* ``pad_value``: the DataCopyPad padding register (``SetPadValue``; ``None`` until set);
* ``float_saturation``: CTRL[48], whether half/bfloat16 results saturate (``SetCtrlSpr(ISASI).md``);
* ``loop_gm_to_ub`` / ``loop_ub_to_gm``: the loop-mode registers of the two GM <-> UB paths
  (``LOOP_SIZE_OUTTOUB`` and its strides, ``..._UBTOOUT``; SetLoopModePara.md), :data:`NORMAL_LOOP`
  (one iteration) until ``set_loop_mode_para``;
* ``nddma``: the NDDMA registers (950): per loop 0-4 the strides, per loop 1-4 the padding counts, and
  the padding value (``set_loop*_stride_nddma``, ``set_pad_cnt_nddma``, ``set_pad_val_nddma``), which every
  NDDMA DataCopy loads and ``asc_ndim_copy_gm2ub`` reads (:data:`NDDMA_POWER_ON` until written);
* ``acc``: the reduce-sum accumulator ``GetReduceRepeatSumSpr`` reads, ``(dtype name, raw bytes)`` of the
  last count-form ``ReduceSum`` of half or float, ``None`` until one ran;
* ``max_min_cnt``: MAX_MIN_CNT, the extremum and index the last ReduceRepeat<MAX/MIN> or ReduceMax/ReduceMin of
  half/float left (``GetReduceRepeatMaxMinSpr``; a :class:`~.ops.reduce_max_min_spr.MaxMinCnt`), ``None`` until one ran;
* ``rsvd_cnt``, ``vms4_sr``: the counts GatherMask and a suspending merge sort leave (RSVD_CNT, VMS4_SR);
* ``deqscale``: the dequantisation parameters ``SetDeqScale`` leaves (DEQSCALE, :class:`DeqScale`; ``None``
  until the first ``SetDeqScale``, docs/semantics.md §5.21);
* ``va_regs``: the eight VA address registers ``asc_set_va_reg`` loads and the register form of
  ``asc_transto5hd_*`` reads: per register its 8 UB byte addresses, ``None`` until set (docs/semantics.md §5.25).

Instructions act on the core of the innermost enclosing ``with Core(...)``
block; there is no hidden global core.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

from ..context import ActiveCores
from ..engine.dispatch import new_core_caches
from ..engine.trace import AccessRecord, core_trace
from ..errors import (
    NoActiveCoreError,
    ParameterRangeError,
    UninitializedReadError,
    UninitializedReadWarning,
    UnsupportedError,
)
from ..memory import Memory, UninitPolicy, core_uninit_policy, user_stacklevel
from ..sources import semantics
from ..validate import require_bool, require_bytes, require_int
from . import pages
from .chips import AscendChip, get_chip, get_default_chip
from .sync_check import sync_checker
from .tolerance import TolerancePolicy, require_tolerance_policy
from .types import MaskMode

__all__ = ["Core", "DeqScale", "SyncRecord", "active_core", "current_core"]

FULL_WORD = (1 << 64) - 1
CMPMASK_BYTES = 16
VA_REGISTERS = 8  # VA0 .. VA7 (ub_addr8_t)
VA_REG_ADDRESSES = 8  # addresses per VA register (asc_set_va_reg.md 参数说明)
MAX_BLOCK_NUM = 65535  # blockDim is a uint16 launch parameter

_ACTIVE: ActiveCores[Core] = ActiveCores("npusim_ascend_cores")


class LoopRegisters(NamedTuple):
    """One path's loop-mode registers: ``(loop1_size, loop2_size, loop1_src_stride, loop1_dst_stride,
    loop2_src_stride, loop2_dst_stride)``, strides in bytes (SetLoopModePara.md 表2)."""

    loop1_size: int
    loop2_size: int
    loop1_src_stride: int
    loop1_dst_stride: int
    loop2_src_stride: int
    loop2_dst_stride: int

    @property
    def normal(self) -> bool:
        """One iteration: the copy is the plain one (the state ResetLoopModePara restores)."""
        return self.loop1_size == 1 and self.loop2_size == 1


#: sizes 1 x 1 ("硬件约定置1为normal", dav_3510 ResetUBLoopModeParaImpl); assumed at power-on as well
NORMAL_LOOP = LoopRegisters(1, 1, 0, 0, 0, 0)


class NddmaRegisters(NamedTuple):
    """The NDDMA registers (950): ``strides[d] = (dst, src)`` in elements for loops 0-4,
    ``pad_counts[d - 1] = (left, right)`` elements for loops 1-4 (loop 0's travel with the copy), and the
    constant padding value (a number, converted to the copy's T when used; ``None`` until written)."""

    strides: tuple[tuple[int, int], ...]
    pad_counts: tuple[tuple[int, int], ...]
    pad_value: int | float | None


#: the registers' defaults: strides and counts 0 (asc_set_ndim_loop_stride.md, asc_ndim_pad_count_config.md
#: "默认值：0"), no padding value
NDDMA_POWER_ON = NddmaRegisters(((0, 0),) * 5, ((0, 0),) * 4, None)
class DeqScale(NamedTuple):
    """What the dequantising instructions read, as ``SetDeqScale`` left it (SetDeqScale.md 表1; DEQSCALE).

    ``half``: the 16 bits of the half scale of the int32 -> half conversions (DEQSCALE bits 0-15), ``None``
    when the last write was another prototype on a product where the prototypes share one register.
    ``word``: the 64-bit word of the int16 -> b8 conversions: scale, offset and sign mode packed
    (``vector`` False), or the vdeq table's address in the product's encoding (``vector`` True); ``None``
    when the half prototype wrote last on such a product.
    """

    half: int | None
    word: int | None
    vector: bool = False


class SyncRecord(NamedTuple):
    """One synchronisation call (``set_flag``, ``wait_flag``, ``pipe_barrier``), kept in order."""

    kind: str
    arg: int
    event_id: int


class Core:
    """One emulated AI Vector core.

    Args:
        chip: product short name (``"A2"``, ``"950"``, ``"310P"`` ...) or CANN SoC name
            (``"Ascend910B1"``). Default: the default chip (``"A2"`` unless changed with
            ``set_default_chip`` / ``npusim run --chip``).
        strict: make reads of never-written UB bytes an error instead of a warning.
        trace: keep ``core.trace``, one :class:`~npusim.engine.trace.AccessRecord` per executed
            instruction call (what it read and wrote, exactly); ``None`` when off.  A core
            made while :func:`~npusim.engine.trace.collecting` keeps one in any case.
        block_idx: this core's index in a multi-core launch (``get_block_idx()``).
        block_num: number of cores in the launch (``get_block_num()``).
        sync: the pipe synchronisation checker (docs/semantics.md §11, :mod:`.sync_check`):
            ``"raise"`` (a :class:`~npusim.errors.SyncError` at the first race, before the call
            runs), ``"warn"`` (a :class:`~npusim.errors.SyncWarning` per finding) or ``"off"``.
            Default ``"off"`` for a core used directly, where program order is what a test of
            single instructions means; kernel launches take ``launch(sync=...)``.
        schedule_seed: run the pipes in a seeded random order that keeps every happens-before
            edge (:class:`~npusim.ascend.sync_check.Schedule`), so that a missing sync changes the
            bytes as it would on the device; needs ``sync`` other than ``"off"``.
        tolerance: where the device tolerates what the documents forbid (:mod:`.tolerance`,
            docs/semantics.md §10.7): ``"strict"`` (default) raises the documented error,
            ``"hardware"`` does what the device does and warns.

    Example::

        with Core("A2") as core:
            core.ub_write(0, bytes(256))
    """

    def __init__(self, chip: str | AscendChip | None = None, *, strict: bool = False,
                 uninit: UninitPolicy | None = None, block_idx: int = 0, block_num: int = 1,
                 trace: bool = False, sync: str = "off", schedule_seed: int | None = None,
                 tolerance: TolerancePolicy = "strict") -> None:
        self.chip: AscendChip = get_default_chip() if chip is None else get_chip(chip)
        self.ub = Memory(self.chip.ub_bytes, "UB", uninit=core_uninit_policy("Core", strict, uninit))
        self._cmpmask = bytearray(CMPMASK_BYTES)
        self.cmpmask_written = False
        self.mask_words: tuple[int, int, int, int] = (FULL_WORD, FULL_WORD, 0, 0)
        self.mask_mode = MaskMode.NORMAL
        self.pad_value: int | float | None = None
        self.rsvd_cnt = 0  # RSVD_CNT: the elements the last GatherMask kept (get_gather_mask_remain_count)
        self.loop_gm_to_ub = self.loop_ub_to_gm = NORMAL_LOOP
        self.nddma = NDDMA_POWER_ON
        self.acc: tuple[str, bytes] | None = None  # ACC (GetReduceRepeatSumSpr)
        self.max_min_cnt: tuple | None = None  # MAX_MIN_CNT (GetReduceRepeatMaxMinSpr): a MaxMinCnt
        #: VMS4_SR: the structures a suspending merge sort took from each queue (get_mrg_sort_result);
        #: None while undefined (no merge yet, or the last merge did not suspend: GetMrgSortResult.md 约束说明)
        self.vms4_sr: tuple[int, int, int, int] | None = None
        self.deqscale: DeqScale | None = None  # DEQSCALE (SetDeqScale): undefined until set
        self.va_regs: tuple[tuple[int, ...] | None, ...] = (None,) * VA_REGISTERS  # VA0-VA7: undefined until set
        self.tolerance: TolerancePolicy = require_tolerance_policy("Core", tolerance)
        self.float_saturation = True  # CTRL[48] = 0 (saturate) at power-on; applies to chip.float_saturation_dtypes
        self.block_num = require_int("Core", "block_num", block_num, 1, MAX_BLOCK_NUM,
                                     f"{pages.GET_BLOCK_NUM} 返回值说明; {semantics('5.7')}")
        self.block_idx = require_int("Core", "block_idx", block_idx, 0, self.block_num - 1,
                                     f"{pages.GET_BLOCK_IDX} 返回值说明; {semantics('5.7')}")
        self.sync_log: list[SyncRecord] = []
        self.trace: list[AccessRecord] | None = core_trace(require_bool("Core", "trace", trace), "ascend",
                                                           self.chip.name, self.block_idx)
        self.invocations, self.bindings = new_core_caches()
        self.observer = sync_checker("Core", sync, self.chip.hard_event_ids,  # None when sync="off"
                                     schedule_seed=schedule_seed, ub=self.ub)

    # ------------------------------------------------------------ context
    def __enter__(self) -> Core:
        _ACTIVE.enter(self)
        return self

    def __exit__(self, *exc) -> None:
        """Leave the core's innermost ``with``; cores left out of order leave the others active."""
        _ACTIVE.leave(self, "Core.__exit__")

    def __repr__(self) -> str:
        return f"Core(chip={self.chip.name!r}, ub={self.chip.ub_bytes // 1024} KiB)"

    # ----------------------------------------------------------- UB access
    def ub_write(self, addr: int, data: bytes) -> None:
        """Write raw bytes into UB (host side; marks them written)."""
        self.ub.write_bytes(addr, data, who="ub_write")

    def ub_read(self, addr: int, nbytes: int) -> bytes:
        """Read raw bytes from UB (host side; no uninitialised-read report)."""
        return self.ub.read_bytes(addr, nbytes, who="ub_read")

    # ------------------------------------------------------------- CMPMASK
    @property
    def cmpmask(self) -> bytes:
        """The 16-byte CMPMASK register (byte 0 holds lanes 0-7, LSB first)."""
        return bytes(self._cmpmask)

    @cmpmask.setter
    def cmpmask(self, value: bytes) -> None:
        raw = require_bytes("Core.cmpmask", "value", value)
        if len(raw) != CMPMASK_BYTES:
            raise ParameterRangeError(
                "Core.cmpmask", "value length", len(raw), "CMPMASK is a 128-bit register", "exactly 16 bytes",
                semantics("3.5"),
            )
        self._cmpmask[:] = raw
        self.cmpmask_written = True

    def load_cmpmask(self, raw: bytes) -> None:
        """Instruction-side load of CMPMASK (``set_cmpmask``)."""
        self._cmpmask[:] = raw
        self.cmpmask_written = True

    def report_unset_cmpmask(self, instruction: str) -> None:
        """CMPMASK is read before anything set it: warn, or raise in strict mode (docs/semantics.md §10.3)."""
        if self.cmpmask_written or self.ub.uninit == "ignore":
            return
        if self.ub.raises_on_uninitialized():
            raise UninitializedReadError(
                instruction, "CMPMASK", "never set", "the instruction reads CMPMASK before any instruction "
                "or host write set it (strict mode)", "set it first (set_cmp_mask, compare to register)",
                semantics("10.3"),
            )
        warnings.warn(
            UninitializedReadWarning(f"{instruction}: reads CMPMASK, which was never set since the core started"),
            stacklevel=user_stacklevel(),
        )

    # --------------------------------------------------------- vector mask
    @property
    def vector_mask(self) -> tuple[int, int]:
        """The vector mask register as ``(mask_high, mask_low)`` (lanes 64-127, lanes 0-63)."""
        return self.mask_words[1], self.mask_words[0]

    def set_mask_words(self, low: int, high: int, word2: int = 0, word3: int = 0) -> None:
        self.mask_words = (low, high, word2, word3)

    def set_mask_mode(self, mode: MaskMode) -> None:
        """Instruction-side write of the mask mode (``SetMaskCount`` / ``SetMaskNorm``)."""
        self.mask_mode = mode

    def load_pad_value(self, value) -> None:
        """Instruction-side write of the DataCopyPad padding register."""
        self.pad_value = value

    def load_va_reg(self, index: int, addresses: tuple[int, ...]) -> None:
        """Instruction-side write of VA register ``index`` (``asc_set_va_reg``): its 8 addresses at once."""
        self.va_regs = (*self.va_regs[:index], addresses, *self.va_regs[index + 1:])

    # --------------------------------------------------------------- state
    #: the plain register attributes of :meth:`register_state`, in its order after CMPMASK's bytes
    _STATE_FIELDS = ("cmpmask_written", "mask_words", "mask_mode", "pad_value", "float_saturation", "rsvd_cnt",
                     "loop_gm_to_ub", "loop_ub_to_gm", "nddma", "acc", "vms4_sr", "max_min_cnt", "deqscale",
                     "va_regs")

    def register_state(self) -> tuple:
        """Every register's value, for comparing state before and after a call."""
        return (bytes(self._cmpmask), *(getattr(self, name) for name in self._STATE_FIELDS))

    def restore_register_state(self, state: tuple) -> None:
        """Put back every register as :meth:`register_state` gave it (test harnesses that rewind a call)."""
        self._cmpmask[:] = state[0]
        for name, value in zip(self._STATE_FIELDS, state[1:], strict=True):
            setattr(self, name, value)

    def require_counter_mode(self, instruction: str) -> None:
        if not self.chip.counter_mode:
            raise UnsupportedError(
                instruction,
                "mask mode",
                "counter",
                f"{self.chip.product} has no counter mask mode",
                "normal mode (set_mask_norm)",
                f"{pages.SET_MASK_COUNT} 产品支持情况; {semantics('1.4')}",
            )


def active_core() -> Core | None:
    """The innermost active :class:`Core`, or ``None`` (for code that must not raise yet)."""
    return _ACTIVE.innermost()


def current_core(instruction: str) -> Core:
    """The innermost active :class:`Core`; raises :class:`NoActiveCoreError` if there is none."""
    core = _ACTIVE.innermost()
    if core is None:
        raise NoActiveCoreError(
            instruction,
            "core",
            None,
            "instructions run on the core of the enclosing `with asc.Core(...)` block and none is active",
            "call inside `with asc.Core(chip) as core:`",
            semantics("10.1"),
        )
    return core
