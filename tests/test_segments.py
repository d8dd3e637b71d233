"""npusim.segments against a byte-per-byte model: every assignment, then every lookup, agrees."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.segments import Segments

SIZE = 64
ranges = st.tuples(st.integers(0, SIZE), st.integers(0, SIZE)).map(sorted)


@settings(max_examples=300, derandomize=True, database=None)
@given(st.lists(st.tuples(ranges, st.integers(0, 5)), max_size=12), ranges)
def test_segments_agree_with_a_byte_model(assignments, probe):
    segments, model = Segments(), [None] * SIZE
    for (start, stop), value in assignments:
        segments.assign(start, stop, value)
        model[start:stop] = [value] * (stop - start)
    start, stop = probe
    seen = [None] * SIZE
    previous_stop = start
    for s, e, value in segments.overlapping(start, stop):
        assert start <= s < e <= stop and s >= previous_stop  # inside the probe, in order, disjoint
        previous_stop = e
        seen[s:e] = [value] * (e - s)
    assert seen[start:stop] == model[start:stop]


def test_an_assignment_inside_one_segment_splits_it_in_three():
    segments = Segments()
    segments.assign(0, 100, "a")
    segments.assign(40, 60, "b")
    assert list(segments.overlapping(0, 100)) == [(0, 40, "a"), (40, 60, "b"), (60, 100, "a")]
    assert len(segments) == 3


def _disjoint_spans(points: list[int]) -> list[tuple[int, int]]:
    """Sorted, disjoint, non-empty spans from a list of cut points (as a call's merged ranges are)."""
    cuts = sorted(set(points))
    return [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]


@settings(max_examples=400, derandomize=True, database=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, SIZE), max_size=10), st.integers(0, 5), st.booleans()),
                max_size=10))
def test_assign_many_is_assign_per_span(steps):
    """assign_many(spans, v) leaves the map as assigning each span in turn would (the byte model)."""
    segments, model = Segments(), [None] * SIZE
    for points, value, many in steps:
        spans = _disjoint_spans(points)
        if many:
            segments.assign_many(spans, value)
        else:
            for start, stop in spans:
                segments.assign(start, stop, value)
        for start, stop in spans:
            model[start:stop] = [value] * (stop - start)
        seen, previous_stop = [None] * SIZE, 0
        for s, e, value_seen in segments.overlapping(0, SIZE):
            assert previous_stop <= s < e  # sorted, disjoint, non-empty
            previous_stop = e
            seen[s:e] = [value_seen] * (e - s)
        assert seen == model
