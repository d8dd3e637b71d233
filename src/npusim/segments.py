"""A map from byte ranges to values: disjoint half-open segments, sorted, with split-on-assign.

The sync checker keeps, per memory, who last wrote and read each byte.  Calls touch a few
ranges each, so the map holds segments, not bytes: looking up or assigning a range costs a
binary search plus the segments it overlaps, whatever the number of bytes.

Example::

    m = Segments()
    m.assign(0, 64, "a")
    m.assign(32, 96, "b")
    list(m.overlapping(0, 128))   # [(0, 32, "a"), (32, 96, "b")]
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import Any

__all__ = ["Segments"]


class Segments:
    """Disjoint segments ``[start, stop)``, each with a value (module docstring)."""

    __slots__ = ("_starts", "_items", "_pending")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._items: list[tuple[int, int, Any]] = []
        self._pending: list[tuple[Any, Any]] = []  # assign_many calls not applied yet, oldest first

    def __len__(self) -> int:
        self._apply_pending()
        return len(self._items)

    def _first_overlapping(self, start: int) -> int:
        """The index of the first segment whose stop lies past ``start``."""
        i = bisect.bisect_right(self._starts, start) - 1
        if i < 0 or self._items[i][1] <= start:
            i += 1
        return i

    def overlapping(self, start: int, stop: int) -> Iterator[tuple[int, int, Any]]:
        """``(start, stop, value)`` of every segment part inside ``[start, stop)``, in address order."""
        if stop <= start:
            return
        self._apply_pending()
        items = self._items
        i = self._first_overlapping(start)
        while i < len(items) and items[i][0] < stop:
            s, e, value = items[i]
            yield max(s, start), min(e, stop), value
            i += 1

    def assign(self, start: int, stop: int, value: Any) -> None:
        """Give ``[start, stop)`` the value ``value``; the parts of other segments outside it keep theirs."""
        if stop <= start:
            return
        self._apply_pending()
        items = self._items
        i = j = self._first_overlapping(start)
        if i < len(items) and items[i][0] == start and items[i][1] == stop:  # the same bytes again (a loop's buffer)
            items[i] = (start, stop, value)
            return
        replacement = []
        while j < len(items) and items[j][0] < stop:
            s, e, old = items[j]
            if s < start:
                replacement.append((s, start, old))
            if e > stop:
                tail = (stop, e, old)
                break
            j += 1
        else:
            tail = None
        if tail is not None:
            j += 1
        replacement.append((start, stop, value))
        if tail is not None:
            replacement.append(tail)
        items[i:j] = replacement
        self._starts[i:j] = [item[0] for item in replacement]

    def assign_many(self, spans: list[tuple[int, int]] | tuple, value: Any) -> None:
        """:meth:`assign` of each span in ``spans`` (sorted, disjoint, non-empty: a call's merged
        ranges), applied when the map is next looked at: the sync checker records every call's
        ranges, and looks up few of them (only where another pipe's access may be unordered)."""
        if spans:
            self._pending.append((spans, value))

    def _apply_pending(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, []
            for spans, value in pending:
                self._assign_spans(spans, value)

    def _assign_spans(self, spans, value: Any) -> None:
        """The spans in one splice: the segments between the first span's start and the last one's
        stop are rebuilt in one walk, instead of one search and one list splice per span."""
        if len(spans) == 1:
            self.assign(spans[0][0], spans[0][1], value)
            return
        items = self._items
        i = self._first_overlapping(spans[0][0])
        j = bisect.bisect_left(self._starts, spans[-1][1], i)
        if i == j:  # the spans fall in a gap between segments (fresh bytes): inserted as they are
            rebuilt = [(start, stop, value) for start, stop in spans]
            items[i:i] = rebuilt
            self._starts[i:i] = [start for start, _stop in spans]
            return
        old = items[i:j]
        count = len(old)
        rebuilt = []
        o = 0
        for start, stop in spans:
            while o < count and old[o][1] <= start:  # wholly before the span: kept
                rebuilt.append(old[o])
                o += 1
            if o < count and old[o][0] < start:  # straddles the span's start: its head is kept
                rebuilt.append((old[o][0], start, old[o][2]))
            rebuilt.append((start, stop, value))
            while o < count and old[o][1] <= stop:  # wholly inside the span: replaced
                o += 1
            if o < count and old[o][0] < stop:  # straddles the span's stop: its tail may meet the next span
                old[o] = (stop, old[o][1], old[o][2])
        rebuilt.extend(old[o:])
        items[i:j] = rebuilt
        self._starts[i:j] = [item[0] for item in rebuilt]
