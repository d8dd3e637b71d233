"""Repeat / DataBlock / mask address arithmetic of Ascend vector instructions.

This module is the only place that turns repeat parameters into addresses.

* A DataBlock is 32 bytes; one repeat covers 8 DataBlocks = 256 bytes, so a
  repeat has ``E = 256 / sizeof(T)`` lanes and a block ``B = 32 / sizeof(T)``
  elements (docs/semantics.md §1.1).
* Lane ``j`` of repeat ``r`` of an operand based at ``base`` lives at byte::

      base + r * rep_stride * 32 + (j // B) * blk_stride * 32 + (j % B) * sizeof(T)

  with both strides in DataBlocks (docs/semantics.md §1.1, §1.2).
* Normal mask mode: the vector mask register selects lanes, bit ``j`` = lane
  ``j``, LSB first, the same bits in every repeat (docs/semantics.md §1.3).
* Counter mask mode: the register's low 64 bits hold an element count ``N``;
  the instruction runs ``ceil(N / E)`` repeats, lane ``j`` of repeat ``r``
  being active iff ``r * E + j < N`` (docs/semantics.md §1.4).
* Data movement (``DataCopy``, ``DataCopyPad``) moves *block runs*: ``blocks``
  runs of ``nbytes`` bytes, the run ``i`` at ``base + i * pitch`` (:class:`BlockRuns`;
  the pitch is a run plus its gap, GM与UB高维切分数据搬运(DataCopy).md 表3); a slice copy
  (``SliceInfo``) moves a grid of such runs, one row of runs per index of the outer
  dimensions (:class:`SliceRuns`).
* TransDataTo5HD (``vnchwconv``) reads and writes 16 DataBlocks per repeat, each at its
  own address from a list, repeat ``r`` offset by ``off(r) * 32`` bytes with
  ``off(r) = stride if repeat_times == 1 else r * stride`` (docs/semantics.md §4.3):
  :class:`Vnchwconv`.

Everything returned here depends only on parameters, so it is cached and
shared; returned arrays are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..engine.trace import ByteRange, merge_ranges

_new_tuple = tuple.__new__

__all__ = [
    "ADDR_LIST_SIZE",
    "ActiveLanes",
    "BLOCKS_PER_REPEAT",
    "BLOCK_BYTES",
    "BlockRuns",
    "REPEAT_BYTES",
    "SliceRuns",
    "contiguous_mask_words",
    "counter_mode_lanes",
    "elems_per_block",
    "lane_offsets",
    "lanes_per_repeat",
    "mask_word_bits",
    "normal_mode_lanes",
    "Vnchwconv",
]

BLOCK_BYTES = 32
BLOCKS_PER_REPEAT = 8
REPEAT_BYTES = BLOCK_BYTES * BLOCKS_PER_REPEAT
ADDR_LIST_SIZE = 16  # NCHW_CONV_ADDR_LIST_SIZE: DataBlocks a vnchwconv repeat reads, and writes
HALF_BLOCK_BYTES = BLOCK_BYTES // 2
FULL_WORD = (1 << 64) - 1


def lanes_per_repeat(itemsize: int) -> int:
    """``E``: elements one repeat processes (256 bytes' worth)."""
    return REPEAT_BYTES // itemsize


def elems_per_block(itemsize: int) -> int:
    """``B``: elements in one 32-byte DataBlock."""
    return BLOCK_BYTES // itemsize


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@lru_cache(maxsize=4096)
def lane_offsets(repeats: int, itemsize: int, blk_stride: int, rep_stride: int) -> np.ndarray:
    """Byte offset from the operand base of every lane of every repeat, shape ``(repeats, E)``.

    Example: float32 (B = 8), ``blk_stride=2``, ``rep_stride=16``: lane 9 of repeat 1 is at
    ``1*16*32 + (9//8)*2*32 + (9%8)*4 = 580``.
    """
    lanes = lanes_per_repeat(itemsize)
    per_block = elems_per_block(itemsize)
    j = np.arange(lanes, dtype=np.int64)
    in_repeat = (j // per_block) * (blk_stride * BLOCK_BYTES) + (j % per_block) * itemsize
    r = np.arange(repeats, dtype=np.int64)[:, None]
    return _frozen(r * (rep_stride * BLOCK_BYTES) + in_repeat[None, :])


def contiguous_mask_words(length: int, itemsize: int) -> tuple[int, int]:
    """The register value ``(low, high)`` the contiguous-mask APIs set for ``length`` lanes.

    Mirrors ``AscendCUtils::SetMask<T>(len)`` (``impl/basic_api/kernel_utils_base.h``; docs/semantics.md §1.3):
    64 -> (~0, 0); E or >= 128 -> (~0, ~0); otherwise the low ``length`` bits.
    Values above E are therefore clamped to E, as the documents state.
    """
    lanes = lanes_per_repeat(itemsize)
    if length == 64:
        return FULL_WORD, 0
    if length == lanes or length >= 128:
        return FULL_WORD, FULL_WORD
    if length > 64:
        return FULL_WORD, (1 << (length - 64)) - 1
    return (1 << length) - 1, 0


def mask_word_bits(words: tuple[int, ...], lanes: int) -> np.ndarray:
    """The first ``lanes`` bits of the mask words, LSB first, as a bool array."""
    raw = np.array(words, dtype=np.uint64).view(np.uint8)
    return np.unpackbits(raw, bitorder="little")[:lanes].astype(bool)


@dataclass(frozen=True)
class ActiveLanes:
    """Which lanes of which repeats an instruction touches.

    Attributes:
        repeats: number of repeats issued.
        lanes: ``E``, lanes per repeat.
        mask: ``(repeats, lanes)`` bool array, or ``None`` when every lane is active.
        count: number of active lanes in total.
    """

    repeats: int
    lanes: int
    mask: np.ndarray | None
    count: int

    @property
    def all_active(self) -> bool:
        return self.mask is None

    def select(self, per_lane: np.ndarray) -> np.ndarray:
        """The entries of a ``(repeats, lanes)`` array at active lanes, in repeat-major order."""
        return per_lane.reshape(-1) if self.mask is None else per_lane[self.mask]


@lru_cache(maxsize=1024)
def normal_mode_lanes(words: tuple[int, ...], lanes: int, repeats: int) -> ActiveLanes:
    """Normal mode: the same register bits select lanes in every repeat (docs/semantics.md §1.3)."""
    bits = mask_word_bits(words, lanes)
    per_repeat = int(bits.sum())
    if per_repeat == lanes:
        return ActiveLanes(repeats, lanes, None, repeats * lanes)
    mask = _frozen(np.broadcast_to(bits, (repeats, lanes)).copy())
    return ActiveLanes(repeats, lanes, mask, repeats * per_repeat)


@lru_cache(maxsize=1024)
def counter_mode_lanes(count: int, lanes: int) -> ActiveLanes:
    """Counter mode: ``ceil(count / E)`` repeats, the first ``count`` lanes in order active (docs/semantics.md §1.4)."""
    repeats = -(-count // lanes)
    if count == repeats * lanes:
        return ActiveLanes(repeats, lanes, None, count)
    flat = np.arange(repeats * lanes, dtype=np.int64) < count
    return ActiveLanes(repeats, lanes, _frozen(flat.reshape(repeats, lanes)), count)


@dataclass(frozen=True)
class BlockRuns:
    """``blocks`` runs of ``nbytes`` bytes, ``pitch`` bytes from one run's start to the next one's.

    Every address is relative to the first run's start (``base``): the runs are the same
    wherever a copy's operands sit.
    """

    blocks: int
    nbytes: int
    pitch: int

    @property
    def extent(self) -> int:
        """Bytes from the first run's start to the last run's end."""
        return (self.blocks - 1) * self.pitch + self.nbytes if self.blocks else 0

    @property
    def contiguous(self) -> bool:
        return self.blocks <= 1 or self.pitch == self.nbytes

    def starts(self, base: int = 0) -> np.ndarray:
        """Each run's first byte."""
        return base + np.arange(self.blocks, dtype=np.int64) * self.pitch

    def byte_index(self, base: int = 0) -> np.ndarray:
        """Every byte of every run, shape ``(blocks, nbytes)``, in issue order."""
        return self.starts(base)[:, None] + np.arange(self.nbytes, dtype=np.int64)[None, :]

    def view(self, array: np.ndarray, base: int) -> np.ndarray:
        """The runs as a ``(blocks, nbytes)`` view of the byte array ``array`` (bounds already checked)."""
        if self.contiguous:
            return array[base : base + self.blocks * self.nbytes].reshape(self.blocks, self.nbytes)
        return np.ndarray((self.blocks, self.nbytes), np.uint8, array, base, (self.pitch, 1))

    def ranges(self, space: str, base: int, buffer: str | None = None) -> tuple[ByteRange, ...]:
        """The runs as merged byte ranges of ``space`` (and GM ``buffer``).

        A copy's runs are already sorted; with a gap between them (``pitch > nbytes``, every strided
        copy: the gaps are unsigned) they are already merged too, and are built as they are."""
        blocks, nbytes, pitch = self.blocks, self.nbytes, self.pitch
        if not blocks or not nbytes:
            return ()
        if self.contiguous:
            return (ByteRange(space, base, base + blocks * nbytes, buffer),)
        if pitch > nbytes:  # (tuple.__new__ skips ByteRange's Python-level __new__: a strided copy has many)
            return tuple([_new_tuple(ByteRange, (space, start, start + nbytes, buffer))
                          for start in range(base, base + blocks * pitch, pitch)])
        return merge_ranges((space, int(start), int(start) + nbytes, buffer) for start in self.starts(base))


@dataclass(frozen=True)
class SliceRuns:
    """The runs of one side of a slice copy: a grid of equal runs of ``nbytes`` bytes.

    Run ``(i_{d-1}, ..., i_1, j)`` starts at ``base + offset + sum_k i_k * outer_pitches[k] + j * pitch``
    (``j < runs_per_row``, ``i_k < outer_counts[k]``; the outermost dimension first): dimension 0
    holds ``runs_per_row`` runs ``pitch`` bytes apart, every other dimension repeats the rows below
    it.  Issue order is row-major, the outermost dimension slowest (``DataCopyGetOffsetList``).
    Offsets are relative to the operand's start, so the runs are the same wherever it sits; the
    interface is :class:`BlockRuns`'s.
    """

    offset: int
    outer_counts: tuple[int, ...]
    outer_pitches: tuple[int, ...]
    runs_per_row: int
    pitch: int
    nbytes: int

    @property
    def blocks(self) -> int:
        """The number of runs."""
        return self.runs_per_row * int(np.prod(self.outer_counts, dtype=np.int64))

    @property
    def shape(self) -> tuple[int, ...]:
        return (*self.outer_counts, self.runs_per_row, self.nbytes)

    @property
    def strides(self) -> tuple[int, ...]:
        return (*self.outer_pitches, self.pitch, 1)

    @property
    def extent(self) -> int:
        """Bytes from the operand's start to the end of the run that ends last."""
        last = sum((count - 1) * pitch for count, pitch in zip(self.outer_counts, self.outer_pitches, strict=True))
        return self.offset + last + (self.runs_per_row - 1) * self.pitch + self.nbytes

    @property
    def contiguous(self) -> bool:
        """The runs are one block of bytes from the operand's start, in issue order."""
        if self.offset:
            return False
        inner = self.nbytes
        for count, stride in zip(reversed(self.shape[:-1]), reversed(self.strides[:-1]), strict=True):
            if count > 1 and stride != inner:
                return False
            inner *= count
        return True

    def starts(self, base: int = 0) -> np.ndarray:
        """Each run's first byte, in issue order."""
        grid = np.zeros((), dtype=np.int64)
        for count, pitch in zip(self.shape[:-1], self.strides[:-1], strict=True):
            grid = grid[..., None] + np.arange(count, dtype=np.int64) * pitch
        return base + self.offset + grid.reshape(-1)

    def byte_index(self, base: int = 0) -> np.ndarray:
        """Every byte of every run, shape ``(blocks, nbytes)``, in issue order."""
        return self.starts(base)[:, None] + np.arange(self.nbytes, dtype=np.int64)[None, :]

    def view(self, array: np.ndarray, base: int) -> np.ndarray:
        """The runs as a view of the byte array ``array`` shaped :attr:`shape` (bounds already checked)."""
        return np.ndarray(self.shape, np.uint8, array, base + self.offset, self.strides)

    def ranges(self, space: str, base: int, buffer: str | None = None) -> tuple[ByteRange, ...]:
        """The runs as merged byte ranges of ``space`` (and GM ``buffer``)."""
        return merge_ranges((space, int(start), int(start) + self.nbytes, buffer) for start in self.starts(base))


class Vnchwconv(NamedTuple):
    """The address arithmetic of one TransDataTo5HD call (``scatter_vnchwconv_b8/b16/b32``).

    A repeat reads the 16 source DataBlocks ``S[i]`` at ``src_list[i] + off_s(r) * 32`` and
    writes the 16 destination DataBlocks ``D[e]`` at ``dst_list[e] + off_d(r) * 32``, with
    ``off(r) = stride if repeat_times == 1 else r * stride``: a single repeat is already
    offset by one stride (docs/semantics.md §4.3).  8-bit data moves half-blocks: the half
    ``high`` selects, 16 bytes (§4.2).  Inside a repeat (§4.2)::

        b16, b8: D[e][k] = S[k][e]              e, k < 16
        b32:     D[2e + h][k] = S[8h + k][e]     e, k < 8, h < 2

    Example: half, ``repeat_times=2``, ``src_stride=1``: element 3 of source block 5 in
    repeat 1 is at ``src_list[5] + 1 * 32 + 3 * 2``.
    """

    itemsize: int
    repeat_times: int
    dst_stride: int
    src_stride: int
    dst_high: bool = False
    src_high: bool = False

    def repeat_offsets(self, stride: int) -> np.ndarray:
        """``off(r) * 32`` in bytes for every repeat, shape ``(repeat_times,)``."""
        if self.repeat_times == 1:
            return np.array([stride * BLOCK_BYTES], dtype=np.int64)
        return np.arange(self.repeat_times, dtype=np.int64) * (stride * BLOCK_BYTES)

    def _in_block(self, high: bool) -> np.ndarray:
        """Byte offset of each element moved inside one (half-)DataBlock."""
        if self.itemsize == 1:
            return HALF_BLOCK_BYTES * int(high) + np.arange(HALF_BLOCK_BYTES, dtype=np.int64)
        return np.arange(BLOCK_BYTES // self.itemsize, dtype=np.int64) * self.itemsize

    def elements(self, listed: np.ndarray, dst: bool) -> np.ndarray:
        """Byte address of every element read (``dst=False``) or written, shape ``(repeats, 16, n)``:
        repeat, list entry, element inside the (half-)block, in issue order."""
        stride, high = (self.dst_stride, self.dst_high) if dst else (self.src_stride, self.src_high)
        blocks = listed[None, :] + self.repeat_offsets(stride)[:, None]
        return _frozen(blocks[:, :, None] + self._in_block(high))

    def block_span(self, dst: bool) -> tuple[int, int]:
        """``[lo, hi)``: the bytes, counted from a list entry, that its block touches over all
        repeats (``repeat_times > 0``)."""
        stride, high = (self.dst_stride, self.dst_high) if dst else (self.src_stride, self.src_high)
        offsets = self.repeat_offsets(stride)
        start = HALF_BLOCK_BYTES * int(high) if self.itemsize == 1 else 0
        moved = HALF_BLOCK_BYTES if self.itemsize == 1 else BLOCK_BYTES
        return int(offsets[0]) + start, int(offsets[-1]) + start + moved

    def in_dst_order(self, src: np.ndarray) -> np.ndarray:
        """``src`` (any per-element array shaped like :meth:`elements`) rearranged so that entry
        ``(r, e, k)`` belongs to the source element that destination element ``(r, e, k)`` takes."""
        repeats = src.shape[0]
        if self.itemsize == 4:  # D[2e + h][k] = S[8h + k][e]: split the sources by h, order (e, h, k)
            return src.reshape(repeats, 2, 8, 8).transpose(0, 3, 1, 2).reshape(repeats, 16, 8)
        return src.transpose(0, 2, 1)  # D[e][k] = S[k][e]

    def view_strides(self, dst_step: int, src_step: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """``(shape, dst strides, src strides)`` in bytes of two strided views, indexed alike, such that
        copying the source view onto the destination view is the call — for lists that step evenly,
        by ``dst_step`` and ``src_step`` bytes.  Both views start at the first element of repeat 0
        (``elements(...)[0, 0, 0]``); indices are ``(r, e, k)``, for b32 ``(r, e, h, k)``."""
        size = self.itemsize
        d_rep = self.dst_stride * BLOCK_BYTES if self.repeat_times > 1 else 0
        s_rep = self.src_stride * BLOCK_BYTES if self.repeat_times > 1 else 0
        if size == 4:
            return ((self.repeat_times, 8, 2, 8), (d_rep, 2 * dst_step, dst_step, size),
                    (s_rep, size, 8 * src_step, src_step))
        per_block = len(self._in_block(False))
        return (self.repeat_times, ADDR_LIST_SIZE, per_block), (d_rep, dst_step, size), (s_rep, size, src_step)
