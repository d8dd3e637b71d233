"""Where the elements of a 4-D tensor live in lane-major local memory.

A local address spans all lanes: ``addr = lane * LOCAL_MEM_SIZE + offset``
(docs/semantics.md §7.2).  A tensor at ``addr`` with shape ``(N, C, H, W)`` and
element stride ``(ns, cs, hs, ws)`` starts at lane ``s = addr // LOCAL_MEM_SIZE``;
its channels go round-robin over the lanes from ``s`` (docs/semantics.md §7.3)::

    lane(n, c, h, w)   = (s + c) % NPU_NUM
    offset(n, c, h, w) = addr % LOCAL_MEM_SIZE
                         + size * (n*ns + ((s + c) // NPU_NUM)*cs + h*hs + w*ws)

:func:`element_lane_offset` is that formula, vectorised.  The layouts differ only in
their strides (:func:`local_stride`, formulas of docs/semantics.md §7.3):

============  ==========================================  ============================
layout        c stride                                    n stride
============  ==========================================  ============================
aligned       align_up(H*W, EU_NUM(dtype))                ceil((s+C)/NPU_NUM) * cs
compact       H*W                                         ceil((s+C)/NPU_NUM) * cs
line_aligned  H * align_up(W, EU_NUM(dtype))  (h: align)  ceil((s+C)/NPU_NUM) * cs
continuous    H*W                                         C*H*W
============  ==========================================  ============================

Worked example (BM1684X, INT16, shape (2, 70, 3, 5) at lane 5, offset 0): aligned stride
(64, 32, 5, 1); element (1, 60, 2, 4) is in lane 1 at byte 2*(64 + 1*32 + 2*5 + 4) = 220.

Instructions read and write through strided numpy views rather than index arrays.
The channels ``s .. s+C-1`` form a grid of (slot, lane) cells with
``slot = (s + c) // NPU_NUM``; :func:`channel_runs` cuts that grid into at most three
rectangles (a partial first slot, whole slots, a partial last slot), each of which is a
regular strided view of the memory (:func:`run_view`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import UnsupportedError
from ..sources import semantics
from .chips import Chip
from .types import dim4

__all__ = [
    "LAYOUTS", "ChannelRun", "Layout", "align_up", "channel_runs", "channels_per_lane", "div_up",
    "element_lane_offset", "lane_span_bytes", "local_stride", "run_view", "split_address",
]

Layout = Literal["aligned", "compact", "line_aligned", "continuous"]
LAYOUTS: tuple[Layout, ...] = ("aligned", "compact", "line_aligned", "continuous")


def div_up(x: int, step: int) -> int:
    """``ceil(x / step)`` for non-negative integers."""
    return -(-x // step)


def align_up(x: int, step: int) -> int:
    """The smallest multiple of ``step`` that is ``>= x``."""
    return div_up(x, step) * step


def split_address(addr: int, chip: Chip) -> tuple[int, int]:
    """``(lane, offset)`` of a local address: ``(addr // LOCAL_MEM_SIZE, addr % LOCAL_MEM_SIZE)``.

    The inverse is ``lane * chip.local_mem_bytes + offset``.
    """
    return divmod(addr, chip.local_mem_bytes)


def channels_per_lane(start_lane: int, channels: int, chip: Chip) -> int:
    """Channel slots a lane needs: ``ceil((start_lane + C) / NPU_NUM)`` (``tpu_channle_num_per_npu``)."""
    return div_up(start_lane + channels, chip.npu_num)


def local_stride(layout: Layout, shape: dim4, start_lane: int, bits: int, chip: Chip) -> dim4:
    """Element strides of ``layout`` for a tensor of ``shape`` starting at ``start_lane``.

    ``bits`` is the element width, which sets ``EU_NUM = EU_BYTES * 8 / bits``.
    """
    if not isinstance(layout, str):
        raise TypeError(f"layout: must be a layout name ({', '.join(LAYOUTS)}), got {type(layout).__name__}")
    if layout not in _STRIDE_FORMULAS:
        raise UnsupportedError("layout", "layout", layout, "unknown layout", ", ".join(LAYOUTS),
                               semantics("7.3"))
    formula = _STRIDE_FORMULAS[layout]
    return formula(shape, start_lane, chip.eu_num(bits), chip)


def _aligned(shape: dim4, start_lane: int, eu_num: int, chip: Chip) -> dim4:
    cs = align_up(shape.h * shape.w, eu_num)
    return dim4(channels_per_lane(start_lane, shape.c, chip) * cs, cs, shape.w, 1)


def _compact(shape: dim4, start_lane: int, eu_num: int, chip: Chip) -> dim4:
    cs = shape.h * shape.w
    return dim4(channels_per_lane(start_lane, shape.c, chip) * cs, cs, shape.w, 1)


def _line_aligned(shape: dim4, start_lane: int, eu_num: int, chip: Chip) -> dim4:
    hs = align_up(shape.w, eu_num)
    cs = shape.h * hs
    return dim4(channels_per_lane(start_lane, shape.c, chip) * cs, cs, hs, 1)


def _continuous(shape: dim4, start_lane: int, eu_num: int, chip: Chip) -> dim4:
    return dim4(shape.c * shape.h * shape.w, shape.h * shape.w, shape.w, 1)


_STRIDE_FORMULAS = {
    "aligned": _aligned,
    "compact": _compact,
    "line_aligned": _line_aligned,
    "continuous": _continuous,
}


def element_lane_offset(
    addr: int, shape: dim4, stride: dim4, itemsize: int, chip: Chip
) -> tuple[np.ndarray, np.ndarray]:
    """``(lane, byte offset)`` of every element, each an int64 array of shape ``(N, C, H, W)``.

    This is the formula of the module docstring; ``addr`` is the tensor's local address.
    """
    start_lane, base = split_address(addr, chip)
    n = np.arange(shape.n, dtype=np.int64).reshape(-1, 1, 1, 1)
    c = np.arange(shape.c, dtype=np.int64).reshape(1, -1, 1, 1) + start_lane
    h = np.arange(shape.h, dtype=np.int64).reshape(1, 1, -1, 1)
    w = np.arange(shape.w, dtype=np.int64).reshape(1, 1, 1, -1)
    lane = np.broadcast_to(c % chip.npu_num, shape.as_tuple())
    elems = n * stride.n + (c // chip.npu_num) * stride.c + h * stride.h + w * stride.w
    return lane, base + itemsize * elems


def lane_span_bytes(shape: dim4, stride: dim4, start_lane: int, itemsize: int, chip: Chip) -> int:
    """Bytes from a tensor's in-lane offset to one past the last byte any lane touches.

    Strides are non-negative, so the farthest element is ``(N-1, last slot, H-1, W-1)``.
    """
    last_slot = (start_lane + shape.c - 1) // chip.npu_num
    last = (
        (shape.n - 1) * stride.n + last_slot * stride.c + (shape.h - 1) * stride.h + (shape.w - 1) * stride.w
    )
    return itemsize * (last + 1)


@dataclass(frozen=True)
class ChannelRun:
    """A rectangle of channels in the (slot, lane) grid: ``slots x lanes`` channels.

    Channel ``first_channel + i * lanes + j`` (``0 <= i < slots``, ``0 <= j < lanes``)
    sits in slot ``slot + i`` of lane ``lane + j``.  Runs are listed in channel order,
    so a run's channels are ``first_channel .. first_channel + slots*lanes - 1``.
    """

    first_channel: int
    slot: int
    slots: int
    lane: int
    lanes: int


def channel_runs(start_lane: int, channels: int, npu_num: int) -> tuple[ChannelRun, ...]:
    """Cut channels ``0 .. channels-1`` starting at ``start_lane`` into at most three runs.

    >>> channel_runs(60, 70, 64)   # lanes 60-63 of slot 0, slot 1 whole, lanes 0-1 of slot 2
    (ChannelRun(first_channel=0, slot=0, slots=1, lane=60, lanes=4), \
ChannelRun(first_channel=4, slot=1, slots=1, lane=0, lanes=64), \
ChannelRun(first_channel=68, slot=2, slots=1, lane=0, lanes=2))
    """
    runs: list[ChannelRun] = []
    first = 0
    if start_lane:  # the partial first slot
        lanes = min(npu_num - start_lane, channels)
        runs.append(ChannelRun(0, 0, 1, start_lane, lanes))
        first = lanes
    whole_slots, tail = divmod(channels - first, npu_num)
    slot = 1 if start_lane else 0
    if whole_slots:
        runs.append(ChannelRun(first, slot, whole_slots, 0, npu_num))
        first += whole_slots * npu_num
        slot += whole_slots
    if tail:
        runs.append(ChannelRun(first, slot, 1, 0, tail))
    return tuple(runs)


def run_view(lanes: np.ndarray, first_elem: int, run: ChannelRun, shape: dim4, stride: dim4) -> np.ndarray:
    """The elements of one channel run, shaped ``(N, slots, lanes, H, W)``; an axis of stride 0 is cut
    to length 1, so each element appears once (a VECTOR's strides are all 0).

    ``lanes`` is a memory (or its shadow) as ``[NPU_NUM, LOCAL_MEM_SIZE / size]`` elements; element
    (n, slot, lane, h, w) is ``lanes[lane, first_elem + n*ns + slot*cs + h*hs + w*ws]`` (§7.3).
    """
    lane_stride, item = lanes.strides
    view = as_strided(
        lanes[run.lane, first_elem + run.slot * stride.c:],
        (shape.n, run.slots, run.lanes, shape.h, shape.w),
        (stride.n * item, stride.c * item, lane_stride, stride.h * item, stride.w * item),
    )
    return view[tuple(slice(0, 1) if step == 0 else slice(None) for step in view.strides)]
