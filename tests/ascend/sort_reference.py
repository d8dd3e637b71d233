"""An independent model of Sort32 and the four-way merge, element by element, in plain Python.

It reads the documents' rules (docs/semantics.md §5.9) and nothing of ``npusim.ascend.ops``:

* a score is a Python float decoded with ``struct`` (``<e`` half, ``<f`` float); scores are ordered by
  value, largest first, NaN above everything, ``-0.0 == 0.0``; equal scores keep input order (Python's
  sort is stable, also with ``reverse=True``);
* Sort32: per repeat of 32, the (score, index) structures in that order: float score bytes 0-3, half
  score bytes 0-1 (bytes 2-3 untouched), index bytes 4-7;
* the merge: at each step the head with the largest score, the lowest queue on a tie; with suspension
  it stops right after a queue gives its last structure (at once if a queue is empty).
"""

from __future__ import annotations

import math
import struct

FORMAT = {2: "<e", 4: "<f"}


def score(raw: bytes, itemsize: int) -> float:
    return struct.unpack(FORMAT[itemsize], raw)[0]


def sort_key(value: float) -> tuple:
    return (1, 0.0) if math.isnan(value) else (0, value)


def sort32(ub: bytearray, dst: int, src0: int, src1: int, repeats: int, itemsize: int) -> None:
    """Sort32 on a bytearray image of UB, in place."""
    for r in range(repeats):
        scores = [bytes(ub[src0 + (32 * r + i) * itemsize: src0 + (32 * r + i + 1) * itemsize]) for i in range(32)]
        indices = [bytes(ub[src1 + (32 * r + i) * 4: src1 + (32 * r + i + 1) * 4]) for i in range(32)]
        order = sorted(range(32), key=lambda i: sort_key(score(scores[i], itemsize)), reverse=True)
        for k, i in enumerate(order):
            at = dst + 256 * r + 8 * k
            ub[at: at + itemsize] = scores[i]
            ub[at + 4: at + 8] = indices[i]


def merge(ub: bytearray, dst: int, queues: list[int], lengths: list[int], record: int, score_at: int,
          itemsize: int, suspend: bool) -> list[int]:
    """One repeat of the merge on a UB image, in place; returns the structures taken from each queue."""
    def head_score(q: int, j: int) -> tuple:
        at = queues[q] + j * record + score_at
        return sort_key(score(bytes(ub[at: at + itemsize]), itemsize))

    taken = [0] * len(queues)
    out = []
    if not (suspend and 0 in lengths):
        while True:
            best = None
            for q in range(len(queues)):
                if taken[q] < lengths[q] and (best is None or head_score(q, taken[q]) > head_score(best, taken[best])):
                    best = q
            if best is None:
                break
            at = queues[best] + taken[best] * record
            out.append(bytes(ub[at: at + record]))
            taken[best] += 1
            if suspend and taken[best] == lengths[best]:
                break
    for k, structure in enumerate(out):
        ub[dst + k * record: dst + (k + 1) * record] = structure
    return taken


# ----------------------------------------------------------------- the 310P's high-level Sort (region proposals)
def proposal_fields(concat: bytes, indices: bytes | None, count: int, itemsize: int) -> list[bytearray]:
    """The first ``count`` proposals of 8 elements of concat, after Sort writes the indices into them
    (Sort.md 排布方式二, ProposalConcat.md: element k of proposal i at element 8i + k): half: the index's low
    16 bits in y1 (element 1, bytes 2-3) and its high 16 bits in label (element 5, bytes 10-11); float: the
    index's 4 bytes in label (element 5, bytes 20-23).  ``indices`` None: concat as it is."""
    record = 8 * itemsize
    proposals = [bytearray(concat[i * record:(i + 1) * record]) for i in range(count)]
    if indices is not None:
        for i, proposal in enumerate(proposals):
            index = indices[4 * i:4 * i + 4]
            if itemsize == 2:
                proposal[2:4] = index[0:2]
                proposal[10:12] = index[2:4]
            else:
                proposal[20:24] = index
    return proposals


def proposal_sort(proposals: list[bytearray], itemsize: int, full: bool) -> bytes:
    """RpSort16 and the full sort: whole proposals, largest score (element 4) first, equal scores in input
    order; per 16 without full sort, over all with it."""
    def key(i: int) -> tuple:
        return sort_key(score(bytes(proposals[i][4 * itemsize:5 * itemsize]), itemsize))

    n = len(proposals)
    blocks = [range(n)] if full else [range(s, s + 16) for s in range(0, n, 16)]
    return b"".join(bytes(proposals[i]) for block in blocks for i in sorted(block, key=key, reverse=True))
