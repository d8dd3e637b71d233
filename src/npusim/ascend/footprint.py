"""What bytes an operand touches, and the checks that depend on it.

A :class:`Footprint` lists, for one operand of one call, the byte address of
every element it reads or writes, in issue order (repeat-major), together with
the repeat each access belongs to.  From footprints follow three checks of the
plan step:

* bounds — every touched byte inside UB and inside the operand's tensor;
* alignment — the operand's start address (``require_aligned``);
* overlap — the Unified Buffer rules of docs/semantics.md §1.6: within one repeat a source
  and the destination overlap completely (exact in-place) or not at all, and
  no repeat may read what an earlier repeat of the same call wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import OverlapError, UbPastTensorEndWarning
from ..sources import semantics
from . import pages
from .addressing import ActiveLanes, lane_offsets
from .tensor import LocalTensor
from .tolerance import tolerate

__all__ = [
    "Footprint", "bytes_footprint", "check_clear_of_scratch", "check_overlap", "element_bytes", "first_common",
    "same_array", "strided_footprint", "written_earlier",
]


def same_array(a: np.ndarray, b: np.ndarray) -> bool:
    """``a`` and ``b`` have the same shape and elements.

    Not ``np.array_equal``: some numpy versions catch ``Exception`` inside it and answer False,
    which would turn a ``MemoryError`` raised there into a wrong verdict instead of an error.
    """
    return a.shape == b.shape and bool((a == b).all())


OVERLAP_SOURCE = f"{pages.GENERAL} 通用地址重叠约束; {semantics('1.6')}"


def element_bytes(elements: np.ndarray, itemsize: int) -> np.ndarray:
    """Every byte address of the elements at these element indices, element by element."""
    return (elements[:, None] * itemsize + np.arange(itemsize, dtype=np.int64)).reshape(-1)


def first_common(a: np.ndarray, b: np.ndarray) -> int | None:
    """The lowest address in both ``a`` and ``b`` (int arrays, any order, repeats allowed), or None.

    Linear in the sizes plus the span where both lie: a call's operands are usually far apart, and
    then only the bounds are compared (``np.intersect1d`` sorts both, every call).
    """
    if not a.size or not b.size:
        return None
    lo, hi = max(int(a.min()), int(b.min())), min(int(a.max()), int(b.max()))
    if lo > hi:
        return None
    marked = np.zeros(hi - lo + 1, dtype=bool)
    marked[a[(a >= lo) & (a <= hi)] - lo] = True
    hits = b[(b >= lo) & (b <= hi)]
    hits = hits[marked[hits - lo]]
    return int(hits.min()) if hits.size else None


@dataclass
class Footprint:
    """Element accesses of one operand.

    Attributes:
        name: operand name used in messages (``"dst"``, ``"src0"``, ``"sel_mask"``).
        addrs: byte address of each accessed element, shape ``(n,)``, issue order.
        repeats: repeat index of each access, shape ``(n,)``.
        itemsize: bytes per access.
    """

    name: str
    addrs: np.ndarray
    repeats: np.ndarray
    itemsize: int
    lo: int = field(init=False)
    hi: int = field(init=False)

    def __post_init__(self) -> None:
        if self.addrs.size:
            self.lo = int(self.addrs.min())
            self.hi = int(self.addrs.max()) + self.itemsize
        else:
            self.lo = self.hi = 0

    @property
    def empty(self) -> bool:
        return self.addrs.size == 0

    @property
    def elem_index(self) -> np.ndarray:
        """Element indices into UB viewed as this operand's dtype."""
        return self.addrs // self.itemsize

    def byte_addrs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every touched byte with its repeat (expanded from element accesses)."""
        offsets = np.arange(self.itemsize, dtype=np.int64)
        return (self.addrs[:, None] + offsets).reshape(-1), np.repeat(self.repeats, self.itemsize)

    def moved(self, base: int) -> Footprint:
        """The same accesses ``base`` bytes later (a plan's footprints are relative to their operand)."""
        return Footprint(self.name, self.addrs + base, self.repeats, self.itemsize)

    def check_in(self, instruction: str, tensor: LocalTensor) -> None:
        """Bounds check against UB and ``tensor``'s extent (no-op when nothing is touched)."""
        if not self.empty:
            tensor.check_span(instruction, self.name, self.lo, self.hi)


def _repeat_grid(lanes: ActiveLanes) -> np.ndarray:
    grid = np.broadcast_to(np.arange(lanes.repeats, dtype=np.int64)[:, None], (lanes.repeats, lanes.lanes))
    return lanes.select(grid)


def strided_footprint(
    name: str, base: int, lanes: ActiveLanes, itemsize: int, blk_stride: int, rep_stride: int
) -> Footprint:
    """Footprint of a repeat/block-strided operand at its active lanes (docs/semantics.md §1.1).

    ``lanes.lanes`` may be fewer than a repeat of this operand holds: the narrower operand of a
    conversion takes as many lanes per repeat as the wider one (Cast.md 约束说明), the first ones.
    """
    offsets = lane_offsets(lanes.repeats, itemsize, blk_stride, rep_stride)[:, : lanes.lanes]
    return Footprint(name, base + lanes.select(offsets), _repeat_grid(lanes), itemsize)


def bytes_footprint(name: str, start: int, nbytes_per_repeat: int, repeats: int) -> Footprint:
    """Footprint of a byte stream consumed (or produced) contiguously, ``nbytes_per_repeat`` each repeat."""
    index = np.arange(nbytes_per_repeat * repeats, dtype=np.int64)
    return Footprint(name, start + index, index // max(nbytes_per_repeat, 1), 1)


def check_overlap(instruction: str, dst: Footprint, src: Footprint, *, cross_repeat_allowed: bool = False,
                  tolerated_outside: tuple[tuple[int, int], tuple[int, int]] | None = None,
                  converts_in_place: bool = False) -> bool:
    """Apply the overlap rules of docs/semantics.md §1.6 between a written and a read operand.

    * Within one repeat, ``dst`` and ``src`` must touch disjoint bytes, or be exactly in
      place: the same addresses lane for lane with the same element size, or, with
      ``converts_in_place`` (a converting Cast), operands of different sizes nested from the
      same first byte.
    * No repeat may read a byte that an earlier repeat wrote (a cross-repeat dependency,
      which the pipelined hardware does not honour), unless ``cross_repeat_allowed``: the
      documented exception of Add/Sub/Mul/Max/Min for dst and src1 (docs/semantics.md §1.6).

    ``tolerated_outside`` (the hardware policy, docs/semantics.md §10.7): the dst and src tensors'
    byte extents; a partial overlap within one repeat, or a cross-repeat dependency, whose bytes all
    lie outside one of the two tensors (a row run past its tensor, as in 16-bit rows of a 32-bit-sized
    tile, or a Copy's repeats past two small adjacent tensors) warns with
    :class:`~npusim.errors.UbPastTensorEndWarning` instead of raising.

    Returns:
        True when ``src`` reads bytes an earlier repeat of ``dst`` wrote (possible only when
        ``cross_repeat_allowed``): the caller must then run the repeats in order.
    """
    if dst.empty or src.empty or dst.hi <= src.lo or src.hi <= dst.lo:
        return False
    d_bytes, d_rep = dst.byte_addrs()
    s_bytes, s_rep = src.byte_addrs()
    lo = max(dst.lo, src.lo)
    span = min(dst.hi, src.hi) - lo
    first_write = np.full(span, np.iinfo(np.int64).max, dtype=np.int64)
    last_read = np.full(span, -1, dtype=np.int64)
    d_in = (d_bytes >= lo) & (d_bytes < lo + span)
    s_in = (s_bytes >= lo) & (s_bytes < lo + span)
    np.minimum.at(first_write, d_bytes[d_in] - lo, d_rep[d_in])
    np.maximum.at(last_read, s_bytes[s_in] - lo, s_rep[s_in])
    later = last_read > first_write
    dependent = bool(later.any())
    if dependent and not cross_repeat_allowed:
        byte = lo + int(np.argmax(later))
        error = OverlapError(
            instruction, f"{src.name} / {dst.name}", f"byte {byte:#x}",
            f"repeat {int(last_read[byte - lo])} reads a byte that repeat {int(first_write[byte - lo])} "
            f"writes ({dst.name} of one repeat is {src.name} of a later one)",
            "no cross-repeat dependency between destination and source", OVERLAP_SOURCE,
        )
        if tolerated_outside is None or _inside_both(lo + np.flatnonzero(later), tolerated_outside).any():
            raise error
        tolerate("hardware", error, UbPastTensorEndWarning, "the bytes lie past one operand's tensor; npusim "
                 "reads every source before it writes (the documents leave the order open)")
        dependent = False
    _check_same_repeat(instruction, dst, src, d_bytes, d_rep, s_bytes, s_rep, tolerated_outside, converts_in_place)
    return dependent


def written_earlier(dst: Footprint, src: Footprint) -> np.ndarray:
    """Per access of ``src``: whether an earlier repeat of ``dst`` wrote any of its bytes."""
    if dst.empty or src.empty or dst.hi <= src.lo or src.hi <= dst.lo:
        return np.zeros(src.addrs.size, dtype=bool)
    lo, hi = min(dst.lo, src.lo), max(dst.hi, src.hi)
    first_write = np.full(hi - lo, np.iinfo(np.int64).max, dtype=np.int64)
    d_bytes, d_rep = dst.byte_addrs()
    np.minimum.at(first_write, d_bytes - lo, d_rep)
    s_bytes, s_rep = src.byte_addrs()
    per_byte = first_write[s_bytes - lo] < s_rep
    return per_byte.reshape(-1, src.itemsize).any(axis=1)


def _check_same_repeat(instruction, dst, src, d_bytes, d_rep, s_bytes, s_rep, tolerated_outside=None,
                       converts_in_place=False) -> None:
    span = max(dst.hi, src.hi)
    d_keys = d_rep * span + d_bytes
    s_keys = s_rep * span + s_bytes
    shared = np.intersect1d(d_keys, s_keys, assume_unique=False)
    if shared.size == 0:
        return
    exact = (
        dst.itemsize == src.itemsize
        and dst.addrs.shape == src.addrs.shape
        and same_array(dst.repeats, src.repeats)
    )
    if exact:
        clash = np.unique(shared // span)
        in_clash = np.isin(dst.repeats, clash)
        if same_array(dst.addrs[in_clash], src.addrs[in_clash]):
            return
    elif converts_in_place and dst.itemsize != src.itemsize and _nested_from_one_start(
            d_bytes, d_rep, s_bytes, s_rep, shared // span):
        return
    repeat, byte = int(shared[0] // span), int(shared[0] % span)
    error = OverlapError(
        instruction, f"{src.name} / {dst.name}", f"byte {byte:#x} in repeat {repeat}",
        f"{src.name} and {dst.name} partially overlap within one repeat",
        "exactly the same addresses lane for lane (in place)"
        f"{', for a conversion one inside the other from the same first byte' if converts_in_place else ''}, "
        "or no common byte", OVERLAP_SOURCE,
    )
    if tolerated_outside is None or _inside_both(shared % span, tolerated_outside).any():
        raise error
    tolerate("hardware", error, UbPastTensorEndWarning, "the common bytes lie past one operand's tensor; "
             "npusim reads every source before it writes (the documents leave the order open)")


def _nested_from_one_start(d_bytes, d_rep, s_bytes, s_rep, repeats: np.ndarray) -> bool:
    """Whether, in every repeat where they meet, the narrower operand's bytes start where the wider one's
    do and lie inside them: a conversion in place, such as a float -> half ``Cast`` onto its own source.

    Operands of different widths cannot share addresses lane for lane; the overlap rule's "100% 完全重叠"
    (docs/semantics.md §1.6) then reads as one repeat's region inside the other's from the same first
    byte.  The vendor's own AscendQuant relies on it: it casts a float scale tensor to half in place
    (``impl/adv_api/detail/quantization/quant/ascend_quant_pre_impl.h``, "source vector of scale is
    reused").  npusim reads every source before it writes, so the result is the conversion's.
    """
    for repeat in np.unique(repeats):
        dst_bytes = np.unique(d_bytes[d_rep == repeat])
        src_bytes = np.unique(s_bytes[s_rep == repeat])
        inner, outer = (dst_bytes, src_bytes) if dst_bytes.size <= src_bytes.size else (src_bytes, dst_bytes)
        if inner[0] != outer[0] or not np.isin(inner, outer, assume_unique=True).all():
            return False
    return True


def _inside_both(byte: np.ndarray, extents: tuple[tuple[int, int], tuple[int, int]]) -> np.ndarray:
    (d_lo, d_hi), (s_lo, s_hi) = extents
    return (byte >= d_lo) & (byte < d_hi) & (byte >= s_lo) & (byte < s_hi)


def check_clear_of_scratch(instruction: str, start: int, nbytes: int, footprints: list[Footprint],
                           name: str, note: str, source: str) -> None:
    """Raise :class:`OverlapError` if an operand touches the API scratch ``[start, start+nbytes)``.

    Some lowerings write a scratch area of UB before the instruction itself runs (docs/semantics.md §2.3);
    an operand placed there would be overwritten behind the kernel's back.  ``name`` and
    ``note`` say whose scratch it is, in the words of the document that reserves it.
    """
    stop = start + nbytes
    for fp in footprints:
        if not fp.empty and fp.lo < stop and start < fp.hi:
            raise OverlapError(
                instruction, fp.name, f"bytes [{fp.lo:#x}, {fp.hi:#x})",
                f"the operand lies in the {name} [{start:#x}, {stop:#x}) {note}", f"UB outside [{start:#x}, {stop:#x})",
                source,
            )
