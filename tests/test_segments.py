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
